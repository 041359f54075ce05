//! `cargo xtask codegen` as a user runs it.

use std::path::Path;
use std::process::Command;

mod common;

#[test]
fn without_rustfmt_generation_fails_clearly_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("out");
    let specs = common::specs();
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

/// Regeneration formats only the files whose source changed or whose copy in the output
/// folder was edited, and writes what a generation from scratch writes.
#[cfg(unix)]
#[test]
fn regeneration_formats_only_what_changed() {
    use std::collections::BTreeMap;
    use std::os::unix::fs::PermissionsExt;

    let tmp = tempfile::tempdir().expect("a temporary folder");
    let log = tmp.path().join("rustfmt.log");
    // rustfmt, logging the files each run is given.
    let rustfmt = tmp.path().join("rustfmt");
    let script = format!(
        "#!/bin/sh\nfor arg in \"$@\"; do case \"$arg\" in *.rs) echo \"$arg\" >> '{}';; esac; done\nexec rustfmt \"$@\"\n",
        log.display()
    );
    std::fs::write(&rustfmt, script).expect("the script is written");
    std::fs::set_permissions(&rustfmt, std::fs::Permissions::from_mode(0o755)).expect("the script is executable");
    let specs = common::copy_specs(tmp.path());
    let out = tmp.path().join("out");
    let generate = |specs: &Path, out: &Path| -> usize {
        let _ = std::fs::remove_file(&log);
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["codegen", "--specs"])
            .arg(specs)
            .arg("--out")
            .arg(out)
            .env("RUSTFMT", &rustfmt)
            .env("CARGO_TARGET_DIR", tmp.path().join("target"))
            .output()
            .expect("xtask runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        std::fs::read_to_string(&log).map_or(0, |log| log.lines().count())
    };
    let rust_files = |out: &Path| -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        let mut pending = vec![out.join("src")];
        while let Some(folder) = pending.pop() {
            for entry in std::fs::read_dir(&folder).expect("the output is readable") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("a generated file");
                    files.insert(path.strip_prefix(out).expect("inside").display().to_string(), text);
                }
            }
        }
        files
    };

    let formatted = generate(&specs, &out);
    let first = rust_files(&out);
    assert_eq!(formatted, first.len(), "a new output folder has every file formatted");
    assert_eq!(generate(&specs, &out), 0, "nothing changed, nothing is formatted");

    let edited = out.join("src/api/autoscaling/v2/horizontal_pod_autoscaler_spec.rs");
    let original = std::fs::read_to_string(&edited).expect("the file was generated");
    std::fs::write(&edited, format!("{original}// edited by hand\n")).expect("the edit is written");
    assert_eq!(generate(&specs, &out), 1, "the edited file is formatted again");
    assert_eq!(std::fs::read_to_string(&edited).expect("the file is there"), original, "the edit is undone");

    let spec = specs.join("autoscaling_v2.yaml");
    let text = std::fs::read_to_string(&spec).expect("the spec is there");
    let old = "Largest replica count the autoscaler may set";
    assert!(text.contains(old), "the description this test changes is in the spec");
    std::fs::write(&spec, text.replace(old, "The most replicas the autoscaler may set")).expect("the spec is written");
    let formatted = generate(&specs, &out);
    let second = rust_files(&out);
    let changed = second.iter().filter(|(path, text)| first.get(*path) != Some(text)).count();
    assert!(changed > 0, "the description is in some Rust file");
    assert_eq!(formatted, changed, "exactly the files whose source changed are formatted");
    let fresh = tmp.path().join("fresh");
    generate(&specs, &fresh);
    assert_eq!(second, rust_files(&fresh), "regeneration writes what a generation from scratch writes");

    // A damaged cache is a cache that knows nothing.
    for entry in std::fs::read_dir(tmp.path().join("target/codegen-format")).expect("the cache folder") {
        std::fs::write(entry.expect("a cache file").path(), "not a cache\n0 1\n").expect("the cache is damaged");
    }
    assert_eq!(generate(&specs, &out), second.len(), "every file is formatted again");
    assert_eq!(rust_files(&out), second, "and the output is the same");
}
