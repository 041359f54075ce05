//! The real `cargo xtask codegen` binary: exit codes, messages on stderr, nothing written.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{
    copy_dir, differing_paths, fixture, generate_ok, read_contents, read_tree, temp_dir, workspace_root, write_file,
};

/// Runs `cargo run -p xtask -- codegen ARGS` (the first run builds it) in the workspace.
fn xtask(args: &[&Path]) -> Output {
    xtask_in(&workspace_root(), args)
}

/// Runs `cargo xtask codegen ARGS` with `cwd` as the working directory.
fn xtask_in(cwd: &Path, args: &[&Path]) -> Output {
    Command::new(env!("CARGO"))
        .args(["run", "--offline", "--quiet", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"))
        .args(["--package", "xtask", "--", "codegen"])
        .args(args)
        .current_dir(cwd)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn xtask_reports_errors_with_exit_code_1_and_writes_nothing() {
    let tmp = temp_dir();
    let specs = tmp.path().join("specs");
    write_file(
        &specs.join("bad.json"),
        "{\n  \"openapi\": \"3.0.0\",\n  \"components\": {\"schemas\": {\"io.k8s.api.demo.v1.A\": {\n    \"properties\": {\"b\": {\"$ref\": \"#/components/schemas/B\"}}\n  }}}\n}\n",
    );
    let out = tmp.path().join("out");
    write_file(&out.join("Cargo.toml"), "# an earlier run\n");
    let before = read_tree(&out);

    let output = xtask(&[Path::new("--specs"), &specs, Path::new("--out"), &out]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr:\n{stderr}");
    assert_eq!(
        stderr,
        "error: specs/bad.json:4:34: at /components/schemas/io.k8s.api.demo.v1.A/properties/b/$ref: \
         unresolved $ref \"#/components/schemas/B\": no such schema in components.schemas\n\
         nothing was written\n"
    );
    assert_eq!(text(&output.stdout), "");
    assert!(read_tree(&out) == before, "the output folder was touched");
    assert_eq!(crate::common::list_dir(tmp.path()), ["out", "specs"]);

    // Check mode on a stale output: exit code 1 and the stale and extra files on stderr.
    let stale = tmp.path().join("stale");
    generate_ok(&fixture("enums"), &stale);
    write_file(&stale.join("src/lib.rs"), "// edited\n");
    write_file(&stale.join("src/extra.rs"), "// extra\n");
    let before = read_tree(&stale);
    let output = xtask(&[Path::new("--check"), Path::new("--specs"), &fixture("enums"), Path::new("--out"), &stale]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr:\n{stderr}");
    assert_eq!(
        stderr,
        format!(
            "{} is not up to date; run `cargo xtask codegen`:\n  stale:   src/lib.rs\n  extra:   src/extra.rs\n",
            stale.display()
        )
    );
    assert!(read_tree(&stale) == before, "check mode touched the output folder");
}

/// `--specs .` from inside the specs folder generates the same files as naming the folder:
/// headers name the folder itself, not the way it was given.
#[test]
fn xtask_output_does_not_depend_on_how_the_specs_folder_is_named() {
    let tmp = temp_dir();
    let specs = tmp.path().join("enums");
    copy_dir(&fixture("enums"), &specs);
    let (from_inside, named) = (tmp.path().join("a").join("out"), tmp.path().join("b").join("out"));
    let output = xtask_in(&specs, &[Path::new("--specs"), Path::new("."), Path::new("--out"), &from_inside]);
    assert!(output.status.success(), "stderr:\n{}", text(&output.stderr));
    generate_ok(&fixture("enums"), &named);
    let (a, b) = (read_contents(&from_inside), read_contents(&named));
    assert!(!a.is_empty());
    assert!(a == b, "files differ: {:?}", differing_paths(&a, &b));
}
