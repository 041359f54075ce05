//! What the tests of `cargo xtask` share: this repository's specs, and copies of them.

use std::fs;
use std::path::{Path, PathBuf};

/// This repository's `specs/`.
pub fn specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("specs")
}

/// A copy of `specs/` as `dir/specs`.
pub fn copy_specs(dir: &Path) -> PathBuf {
    let copy = dir.join("specs");
    copy_folder(&specs(), &copy);
    copy
}

fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("a folder");
    for entry in fs::read_dir(from).expect("a folder to copy") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_folder(&path, &target);
        } else {
            fs::copy(&path, &target).expect("copied");
        }
    }
}
