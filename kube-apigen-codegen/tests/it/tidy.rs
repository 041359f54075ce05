//! Rules of the generator's layout that the compiler does not check.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// Every name is decided while building the IR: emitters print the names it holds, and
/// never make one (`codegen/src/naming.rs` is for the builders only).
#[test]
fn emitters_do_not_name_things() {
    let emit = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join("emit");
    let mut files = Vec::new();
    rust_files(&emit, &mut files);
    assert!(files.len() > 5, "the emitters are in {}", emit.display());
    let offenders: Vec<String> = files
        .iter()
        .filter(|file| {
            let source = fs::read_to_string(file).expect("a source file");
            source.contains("naming::") || source.contains("crate::naming")
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "emitters that use `naming`: {offenders:?}");
}
