//! The CEL fast path (the generator's `emit::cel`) gives exactly the interpreter's errors.
//!
//! Design: the reference is the same crate generated with the fast path off
//! (`CrateOptions::translate_cel` off), which checks every rule with the interpreter as
//! before the fast path existed. Both crates come from one IR, so they have the same types,
//! decode the same JSON the same way, and walk objects in the same order; they differ only
//! in how rules are checked. Comparing whole error lists (paths, types, bad values,
//! details, order) of `validate()` and `validate_update()` on many objects then checks
//! every translated rule, its failure error and its fallback, with no second copy of
//! the rules or of the walk in the test.
//!
//! The specs: `specs/` (HorizontalPodAutoscaler, CertificateSigningRequest, DeleteOptions),
//! `tests/fixture-specs/` (Widget) and `cel_fast_path/constructs.yaml`, which has every
//! construct the translation supports in rules that pass, fail and fail to evaluate.
//!
//! Both variants of each are written under `target/fixture-builds/cel-fast-path/` and a
//! harness binary (`cel_fast_path/harness.rs`) depending on all six is built and run there:
//! it generates objects with a seeded RNG, mutating the fields the rules read (presence,
//! enum values, numbers, strings, list lengths), and compares.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kube_apigen_codegen::emit::{CrateOptions, Header};

use crate::common::{workspace_root, write_file};

fn builds_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target folder").join("fixture-builds")
}

/// Writes only when the content differs, so cargo's fingerprints stay valid.
fn write_if_changed(path: &Path, content: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(content) {
        write_file(path, content);
    }
}

/// Writes the fast and the interpreter-only crate of `specs`; returns their package names.
fn emit_both(name: &str, specs: &Path, root: &Path, runtime: &Path) -> [(String, PathBuf); 2] {
    let (api, _) = kube_apigen_codegen::read_api(specs).unwrap_or_else(|e| panic!("{e}"));
    ["fast", "interpreted"].map(|variant| {
        let package = format!("cel-{variant}-{name}");
        let out = root.join(&package);
        let header = Header { command: "kube-apigen generate".to_owned(), specs_label: format!("{name}/") };
        let options = CrateOptions {
            runtime: format!("{{ path = {:?} }}", runtime.display().to_string()),
            translate_cel: variant == "fast",
            ..CrateOptions::new(package.clone(), header)
        };
        let files = kube_apigen_codegen::emit::emit_crate(&api, &options).unwrap_or_else(|e| panic!("{e}"));
        kube_apigen_codegen::write::write(&out, &files, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
        (package, out)
    })
}

#[test]
fn fast_path_gives_the_interpreters_errors() {
    let root = builds_dir().join("cel-fast-path");
    let workspace = workspace_root();
    let runtime = fs::canonicalize(workspace.join("kube-apigen")).expect("kube-apigen/ exists");
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("it").join("cel_fast_path");
    let mut packages = Vec::new();
    for (name, specs) in [
        ("specs", workspace.join("specs")),
        ("fixture", workspace.join("tests").join("fixture-specs")),
        ("constructs", here.clone()),
    ] {
        packages.extend(emit_both(name, &specs, &root, &runtime));
    }

    let harness = root.join("harness");
    let dependencies: String = packages
        .iter()
        .map(|(package, folder)| format!("{package} = {{ path = {:?} }}\n", folder.display().to_string()))
        .collect();
    write_if_changed(
        &harness.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"cel-fast-path-harness\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\n{dependencies}serde = \"1\"\nserde_json = \"1\"\nkube-apigen = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    );
    let source = fs::read_to_string(here.join("harness.rs")).expect("reading the harness source");
    write_if_changed(&harness.join("src").join("main.rs"), &source);
    if let Ok(lock) = fs::read_to_string(workspace.join("Cargo.lock")) {
        write_if_changed(&harness.join("Cargo.lock"), &lock);
    }

    let target = builds_dir().join("target");
    let build = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--manifest-path"])
        .arg(harness.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "the harness does not compile:\n{stderr}");
    let warned: Vec<&str> = packages
        .iter()
        .map(|(package, _)| package.as_str())
        .filter(|package| stderr.contains(&format!("warning: `{package}` (lib) generated")))
        .collect();
    assert!(warned.is_empty(), "generated crates {warned:?} compile with warnings:\n{stderr}");

    let run = Command::new(target.join("debug").join(format!("cel-fast-path-harness{}", std::env::consts::EXE_SUFFIX)))
        .output()
        .expect("the harness runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the fast path and the interpreter differ:\n{stdout}\n{stderr}");
    // The summary, for `cargo test -- --nocapture`.
    println!("{stdout}");
}
