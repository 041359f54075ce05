//! Runs the generator over unmodified upstream specs and builds what it writes.
//!
//! The upstream files stay where they are: `$KUBE_APIGEN_UPSTREAM` names the
//! `specs-upstream` folder (normally `../shared/specs-upstream`, relative to the repository
//! root). A file generated alone is copied into a temporary spec folder of its own, never
//! into the repository.
//!
//! Every output is written as a member of one throwaway cargo workspace ([`Scratch`]),
//! so that a single cargo invocation checks them all and their dependencies compile once,
//! into one target folder under the workspace's `target/`.
//!
//! A crate generated outside this repository's workspace carries an empty `[workspace]`
//! table, which makes it a workspace root of its own and so refuses to be a member of
//! another workspace. [`Scratch::generate`] strips that table from the generated
//! `Cargo.toml`, and only that: everything else is built exactly as generated.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The generator runs in the processes of this crate with the allocator `cargo xtask`
/// runs it with, so the benchmarks measure it as it runs there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The environment variable naming the `specs-upstream` folder.
pub const UPSTREAM_ENV: &str = "KUBE_APIGEN_UPSTREAM";

/// Where the Kubernetes OpenAPI v3 documents are inside the `specs-upstream` folder.
pub const KUBERNETES_V3: &str = "kubernetes/v3";

/// Where the same upstream APIs are at several releases inside the `specs-upstream`
/// folder: `history/<api>/<release>/`.
pub const HISTORY: &str = "history";

/// Where the CustomResourceDefinition manifests are inside the `specs-upstream` folder.
pub const CRDS: &str = "crds";

/// Where the `.proto` files are inside the `specs-upstream` folder, by import path.
pub const PROTOS: &str = "proto";

/// The root of this repository.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("corpus/ lives in the workspace").to_path_buf()
}

/// Generating `specs` into `out` against this checkout's runtime (which no registry has).
pub fn options(specs: &Path, out: &Path) -> kube_apigen_codegen::Options {
    let runtime = kube_apigen_codegen::Runtime::Path {
        path: workspace_root().join("kube-apigen"),
        version: kube_apigen_codegen::package::GENERATOR_VERSION.to_owned(),
    };
    kube_apigen_codegen::Options {
        runtime,
        ..kube_apigen_codegen::Options::new(specs.to_path_buf(), out.to_path_buf())
    }
}

/// The `specs-upstream` folder named by [`UPSTREAM_ENV`], if it is set. A relative path is
/// taken relative to the repository root (`../shared/specs-upstream`).
pub fn upstream_dir() -> Result<Option<PathBuf>, String> {
    let Some(value) = std::env::var_os(UPSTREAM_ENV).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let dir = workspace_root().join(&value);
    if !dir.join(KUBERNETES_V3).is_dir() {
        return Err(format!(
            "{UPSTREAM_ENV}={} does not name a specs-upstream folder: {} is not a folder",
            Path::new(&value).display(),
            dir.join(KUBERNETES_V3).display()
        ));
    }
    Ok(Some(dir))
}

/// The spec files of a folder (not recursive), sorted.
pub fn spec_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let is_spec = path.extension().and_then(OsStr::to_str).is_some_and(|e| matches!(e, "json" | "yaml" | "yml"));
        if is_spec && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// `apis__autoscaling__v1_openapi.json` -> `apis__autoscaling__v1`.
pub fn document_stem(file: &Path) -> String {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    stem.strip_suffix("_openapi").map(str::to_owned).unwrap_or(stem)
}

/// A cargo workspace of generated crates, written to a folder of its own.
///
/// The folder is kept between runs: the generator rewrites only files whose content
/// changed, so cargo rebuilds only what changed. Members of earlier runs that are not
/// members now are removed by [`Scratch::finish`].
pub struct Scratch {
    root: PathBuf,
    members: Vec<String>,
    /// Held while the value lives: test runners that run each test in a process of its
    /// own (nextest) take turns instead of writing the same folder at once.
    _lock: fs::File,
}

impl Scratch {
    /// Creates (or reuses) the workspace folder, waiting for other users of it to finish.
    pub fn new(root: impl Into<PathBuf>) -> io::Result<Scratch> {
        let root = root.into();
        fs::create_dir_all(&root)?;
        let lock = fs::File::create(root.join(".lock"))?;
        lock.lock()?;
        Ok(Scratch { root, members: Vec::new(), _lock: lock })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of member `name`.
    pub fn member_dir(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Generates the crate for a specs folder as member `name`.
    pub fn generate(&mut self, name: &str, specs: &Path) -> Result<kube_apigen_codegen::Summary, String> {
        let out = self.member_dir(name);
        let options = kube_apigen_codegen::Options {
            membership: kube_apigen_codegen::Membership::Member,
            ..options(specs, &out)
        };
        let summary = kube_apigen_codegen::generate(&options).map_err(|e| format!("{}: {e}", specs.display()))?;
        self.members.push(name.to_owned());
        Ok(summary)
    }

    /// Generates one spec file alone, as member `name`. The file is copied, unmodified, into
    /// a temporary spec folder named after it, so generated headers stay the same from run
    /// to run (`from apis__policy__v1/`).
    pub fn generate_alone(&mut self, name: &str, spec: &Path) -> Result<kube_apigen_codegen::Summary, String> {
        self.generate_copies(name, &document_stem(spec), &[spec])
    }

    /// Generates some spec files together, as member `name`, from copies of them, unmodified,
    /// in a temporary spec folder named `folder` (for files of several upstream folders).
    pub fn generate_copies(
        &mut self,
        name: &str,
        folder: &str,
        specs: &[&Path],
    ) -> Result<kube_apigen_codegen::Summary, String> {
        self.generate_copies_with_protos(name, folder, specs, None)
    }

    /// [`Scratch::generate_copies`], with a copy of the `.proto` files under `protos` (a
    /// folder laid out by import path) as the spec folder's `proto/`.
    pub fn generate_copies_with_protos(
        &mut self,
        name: &str,
        folder: &str,
        specs: &[&Path],
        protos: Option<&Path>,
    ) -> Result<kube_apigen_codegen::Summary, String> {
        let temp = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
        let dir = temp.path().join(folder);
        fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        if let Some(protos) = protos {
            copy_tree(protos, &dir.join("proto")).map_err(|e| format!("cannot copy {}: {e}", protos.display()))?;
        }
        for spec in specs {
            let copy = dir.join(spec.file_name().unwrap_or_default());
            if copy.exists() {
                return Err(format!("two spec files named {}", copy.display()));
            }
            fs::copy(spec, &copy).map_err(|e| format!("cannot copy {} to {}: {e}", spec.display(), copy.display()))?;
        }
        self.generate(name, &dir)
    }

    /// Adds a hand-written member crate with a `src/lib.rs`.
    pub fn add_crate(&mut self, name: &str, manifest: &str, lib: &str) -> io::Result<()> {
        let dir = self.member_dir(name);
        write_if_changed(&dir.join("Cargo.toml"), manifest)?;
        write_if_changed(&dir.join("src").join("lib.rs"), lib)?;
        self.members.push(name.to_owned());
        Ok(())
    }

    /// Writes a further file of member `name` (added with [`Scratch::add_crate`]), at
    /// `relative` to its folder.
    pub fn add_file(&self, name: &str, relative: &str, content: &str) -> io::Result<()> {
        write_if_changed(&self.member_dir(name).join(relative), content)
    }

    /// Writes the workspace manifest, with this repository's lock file so dependencies
    /// resolve to the versions the repository uses, and removes members of earlier runs.
    pub fn finish(&self) -> io::Result<()> {
        let members: Vec<String> = self.members.iter().map(|m| format!("    {m:?},\n")).collect();
        let manifest = format!(
            "# A throwaway workspace of generated crates, written by the corpus package.\n\
             [workspace]\nresolver = \"3\"\nmembers = [\n{}]\n",
            members.concat()
        );
        write_if_changed(&self.root.join("Cargo.toml"), &manifest)?;
        if let Ok(lock) = fs::read_to_string(workspace_root().join("Cargo.lock")) {
            write_if_changed(&self.root.join("Cargo.lock"), &lock)?;
        }
        for entry in fs::read_dir(&self.root)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type()?.is_dir() && !name.starts_with('.') && !self.members.contains(&name) {
                fs::remove_dir_all(entry.path())?;
            }
        }
        Ok(())
    }

    /// A cargo command run in the workspace, with its own target folder.
    pub fn cargo(&self, target_dir: &Path) -> Command {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command.current_dir(&self.root).env("CARGO_TARGET_DIR", target_dir);
        command
    }

    /// Runs `cargo clippy --offline --workspace --keep-going` once over every member: it
    /// type-checks them as a build does, and lints them. Warnings are not denied on the
    /// command line: [`BuildReport::problems`] counts any warning as a problem, as
    /// `-D warnings` would, while a member whose only problems are lints still gets its
    /// metadata written, so the members that depend on it are checked too.
    pub fn clippy(&self, target_dir: &Path) -> io::Result<BuildReport> {
        let mut command = self.cargo(target_dir);
        command.args(["clippy", "--offline", "--workspace", "--keep-going", "--message-format=json"]);
        BuildReport::run(&mut command, &self.root)
    }
}

/// Writes a file unless it already holds `content`, keeping its timestamp for cargo.
pub fn write_if_changed(path: &Path, content: &str) -> io::Result<()> {
    if fs::read(path).is_ok_and(|old| old == content.as_bytes()) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(path, content)
}

/// What one cargo build said, member by member.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// Cargo's own verdict (`build-finished`).
    pub success: bool,
    pub members: BTreeMap<String, MemberReport>,
    /// Cargo's standard error (progress, and errors that are not compiler messages).
    pub stderr: String,
    pub elapsed: Duration,
}

#[derive(Debug, Default)]
pub struct MemberReport {
    /// Whether the library target was compiled (or was fresh).
    pub built: bool,
    /// Errors and warnings, rendered as the compiler prints them, each once.
    pub diagnostics: Vec<String>,
}

impl BuildReport {
    /// Runs a cargo command with `--message-format=json` and sorts its messages by the
    /// member of `root` they belong to.
    pub fn run(command: &mut Command, root: &Path) -> io::Result<BuildReport> {
        let started = Instant::now();
        let output = command.stdin(Stdio::null()).output()?;
        // Cargo reports canonical manifest paths.
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut report = BuildReport {
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            elapsed: started.elapsed(),
            ..BuildReport::default()
        };
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
            let text = |key: &str| message.get(key).and_then(Value::as_str);
            let member = text("manifest_path").and_then(|path| member_of(&root, Path::new(path)));
            match (text("reason"), member) {
                (Some("build-finished"), _) => report.success = message.get("success") == Some(&Value::Bool(true)),
                (Some("compiler-artifact"), Some(member)) => {
                    let is_lib = message
                        .pointer("/target/kind")
                        .and_then(Value::as_array)
                        .is_some_and(|kinds| kinds.iter().any(|k| matches!(k.as_str(), Some("lib" | "rlib"))));
                    if is_lib {
                        report.members.entry(member).or_default().built = true;
                    }
                }
                (Some("compiler-message"), Some(member)) => {
                    let level = message.pointer("/message/level").and_then(Value::as_str).unwrap_or_default();
                    if level.starts_with("error") || level == "warning" {
                        let rendered = message.pointer("/message/rendered").and_then(Value::as_str).unwrap_or(level);
                        // A member compiled twice (checked, and built as a build dependency
                        // of another) says the same things twice: each is kept once.
                        let diagnostics = &mut report.members.entry(member).or_default().diagnostics;
                        if !diagnostics.iter().any(|d| d == rendered) {
                            diagnostics.push(rendered.to_owned());
                        }
                    }
                }
                _ => {}
            }
        }
        report.success &= output.status.success();
        Ok(report)
    }

    /// Why `member` did not build clean, or `None` if it did.
    pub fn problems(&self, member: &str) -> Option<String> {
        let report = self.members.get(member);
        let diagnostics = report.map(|r| r.diagnostics.as_slice()).unwrap_or_default();
        if !diagnostics.is_empty() {
            // Grouped by headline (`error[E0277]: ...`), with the first of each in full.
            let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for diagnostic in diagnostics {
                groups.entry(diagnostic.lines().next().unwrap_or_default()).or_default().push(diagnostic);
            }
            let mut text = format!("{} diagnostics:\n", diagnostics.len());
            for (headline, group) in &groups {
                text.push_str(&format!("  {} x {headline}\n", group.len()));
            }
            for group in groups.values().take(5) {
                text.push_str(&format!("first of its kind:\n{}", group[0]));
            }
            return Some(text);
        }
        if !report.is_some_and(|r| r.built) {
            return Some(format!("was not built; cargo said:\n{}", tail(&self.stderr, 30)));
        }
        None
    }
}

/// The member folder (first path component below `root`) a manifest belongs to.
fn member_of(root: &Path, manifest: &Path) -> Option<String> {
    let relative = manifest.strip_prefix(root).ok()?;
    let first = relative.components().next()?;
    (relative.components().count() > 1).then(|| first.as_os_str().to_string_lossy().into_owned())
}

/// The last `n` lines of a text.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Every `.rs` file under `dir`, sorted, with its text.
pub fn rust_files(dir: &Path) -> io::Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension() == Some(OsStr::new("rs")) {
                let text = fs::read_to_string(&path)?;
                files.push((path, text));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The types a generated crate implements `kube_apigen::Resource` for, sorted.
pub fn resource_impls(crate_dir: &Path) -> io::Result<Vec<String>> {
    let mut types = Vec::new();
    for (_, text) in rust_files(&crate_dir.join("src"))? {
        for line in text.lines() {
            let line = line.trim_start();
            let implemented = line
                .strip_prefix("impl Resource for ")
                .or_else(|| line.strip_prefix("impl kube_apigen::Resource for "));
            if let Some(rest) = implemented {
                types.push(rest.trim_end_matches(|c: char| c == '{' || c.is_whitespace()).to_owned());
            }
        }
    }
    types.sort();
    Ok(types)
}

/// The median of some durations (the lower middle one for an even count).
pub fn median(durations: &[Duration]) -> Duration {
    let mut sorted = durations.to_vec();
    sorted.sort();
    sorted.get(sorted.len().saturating_sub(1) / 2).copied().unwrap_or_default()
}

/// Copies the files of `from` into `to`, folders included.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
