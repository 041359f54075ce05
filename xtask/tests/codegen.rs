//! `cargo xtask codegen` as a user runs it.

use std::path::Path;
use std::process::Command;

#[test]
fn without_rustfmt_generation_fails_clearly_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("out");
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("specs");
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["codegen", "--specs"])
        .arg(&specs)
        .arg("--out")
        .arg(&out)
        .env("RUSTFMT", tmp.path().join("no-rustfmt-here"))
        .output()
        .expect("xtask runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("no-rustfmt-here"), "{stderr}");
    assert!(
        stderr.contains("the generator formats its output with rustfmt (`rustup component add rustfmt`)"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written when formatting fails");
}
