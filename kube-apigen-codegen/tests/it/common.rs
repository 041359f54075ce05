//! Helpers shared by the tests.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use kube_apigen_codegen::emit::CrateOptions;

pub use kube_apigen_codegen::workspace_root;

/// `codegen/tests/fixtures/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures").join(name)
}

/// The fixture folders, sorted.
pub fn fixture_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("fixture folder entry"))
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Emits the crate of a specs folder in memory, with options that do not depend on
/// where the tests run (so snapshots are stable on every machine).
pub fn emit(specs: &Path) -> kube_apigen_codegen::Result<BTreeMap<PathBuf, String>> {
    let (api, _) = kube_apigen_codegen::read_api(specs)?;
    let name = specs.file_name().expect("specs folder has a name").to_string_lossy().into_owned();
    let options = CrateOptions {
        package_name: name.replace('_', "-"),
        runtime_path: "../kube-apigen".to_owned(),
        standalone: true,
        specs_label: format!("{name}/"),
        translate_cel: true,
    };
    kube_apigen_codegen::emit::emit_crate(&api, &options)
}

/// The whole crate as one text: every file, sorted by path, under a `=== path ===` line.
pub fn render(files: &BTreeMap<PathBuf, String>) -> String {
    let mut text = String::new();
    for (path, content) in files {
        text.push_str(&format!("=== {} ===\n", slash_path(path)));
        text.push_str(content);
        if !content.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// A relative path with `/` separators on every platform.
pub fn slash_path(path: &Path) -> String {
    path.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Runs the generator.
pub fn generate(specs: &Path, out: &Path, check: bool) -> kube_apigen_codegen::Result<kube_apigen_codegen::Summary> {
    kube_apigen_codegen::generate(&kube_apigen_codegen::Options {
        specs: specs.to_path_buf(),
        out: out.to_path_buf(),
        check,
        format_cache: None,
    })
}

/// Runs the generator and panics with the error's text on failure.
pub fn generate_ok(specs: &Path, out: &Path) -> kube_apigen_codegen::Summary {
    generate(specs, out, false).unwrap_or_else(|e| panic!("generating {} failed: {e}", specs.display()))
}

/// One file as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub bytes: Vec<u8>,
    pub modified: SystemTime,
}

/// Every file under `dir` (hidden ones included), by path relative to it.
pub fn read_tree(dir: &Path) -> BTreeMap<PathBuf, FileState> {
    let mut files = BTreeMap::new();
    if dir.exists() {
        collect(dir, Path::new(""), &mut files);
    }
    files
}

fn collect(root: &Path, relative: &Path, files: &mut BTreeMap<PathBuf, FileState>) {
    let dir = root.join(relative);
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
        let entry = entry.expect("folder entry");
        let path = relative.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            collect(root, &path, files);
        } else {
            let full = root.join(&path);
            let bytes = fs::read(&full).unwrap_or_else(|e| panic!("cannot read {}: {e}", full.display()));
            let modified = entry.metadata().and_then(|m| m.modified()).expect("modification time");
            files.insert(path, FileState { bytes, modified });
        }
    }
}

/// The bytes of every file under `dir`, without timestamps.
pub fn read_contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    read_tree(dir).into_iter().map(|(path, state)| (path, state.bytes)).collect()
}

/// The names directly inside `dir`, sorted.
pub fn list_dir(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("folder entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    for (path, state) in read_tree(from) {
        write_file(&to.join(path), &state.bytes);
    }
}

/// Writes a file, creating its folder.
pub fn write_file(path: &Path, content: impl AsRef<[u8]>) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    }
    fs::write(path, content).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// Paths whose content differs between two trees (added, removed or changed), sorted.
pub fn differing_paths<T: PartialEq>(before: &BTreeMap<PathBuf, T>, after: &BTreeMap<PathBuf, T>) -> Vec<String> {
    let mut paths: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|path| before.get(*path) != after.get(*path))
        .map(|path| slash_path(path))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}
