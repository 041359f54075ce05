//! `cargo xtask api-diff` as CI runs it: its exit status (0 nothing breaks, 1 something
//! breaks, 2 usage or spec errors), its three formats, the allow-list, and a git revision
//! as the base.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{copy_specs, specs};

mod common;

/// `cargo xtask api-diff ARGS`, run in `cwd`.
fn api_diff(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).arg("api-diff").args(args).current_dir(cwd).output().expect("xtask runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A copy of `specs/` as `dir/specs`, with the HorizontalPodAutoscaler's
/// `spec.minReplicas` raised from a minimum of 1 to 2: a breaking change of a built-in API.
fn tightened_copy(dir: &Path) -> PathBuf {
    let copy = copy_specs(dir);
    let file = copy.join("autoscaling_v2.yaml");
    let original = fs::read_to_string(&file).expect("the HPA spec");
    let minimum = "          format: int32\n          minimum: 1\n          type: integer\n        scaleTargetRef:";
    assert!(original.contains(minimum), "specs/autoscaling_v2.yaml changed; update this test");
    fs::write(&file, original.replace(minimum, &minimum.replace("minimum: 1", "minimum: 2"))).expect("written");
    copy
}

fn specs_arg() -> String {
    specs().display().to_string()
}

#[test]
fn the_same_specs_exit_0() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let output = api_diff(tmp.path(), &["--base", &specs_arg(), "--specs", &specs_arg()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), format!("No API changes between {0} and {0}.\n", specs_arg()));
}

#[test]
fn a_breaking_change_exits_1_in_every_format_unless_allowed() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let new = tightened_copy(tmp.path());
    let new = new.to_str().expect("UTF-8");
    let run = |extra: &[&str]| api_diff(tmp.path(), &[&["--base", &specs_arg(), "--specs", new], extra].concat());

    let output = run(&[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(
            "breaking: autoscaling/v2 HorizontalPodAutoscaler\n  spec.minReplicas [minimum-tightened] >= 1 → >= 2\n"
        ),
        "{stdout}"
    );

    let output = run(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["changes"][0]["rule"], "minimum-tightened");
    assert_eq!(json["changes"][0]["path"], "spec.minReplicas");
    assert_eq!(json["summary"]["breaking"], 1);

    let output = run(&["--format", "markdown"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stdout).starts_with("### API changes: 1 breaking, 0 to review, 0 compatible\n"));

    let allow = tmp.path().join("api-diff-allow.toml");
    fs::write(
        &allow,
        "[[allow]]\nrule = \"minimum-tightened\"\npath = \"spec.minReplicas\"\nkind = \"HorizontalPodAutoscaler\"\n\
         reason = \"no autoscaler runs with one replica\"\n",
    )
    .expect("written");
    let output = run(&["--allow", allow.to_str().expect("UTF-8")]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(text(&output.stdout).contains("    allowed: no autoscaler runs with one replica\n"));
}

#[test]
fn usage_and_spec_errors_exit_2() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let usage = |args: &[&str], message: &str| {
        let output = api_diff(tmp.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.starts_with(&format!("error: {message}\n\nusage:")), "{stderr}");
    };
    usage(&[], "--base is required");
    usage(&["--base"], "--base needs a git revision or a folder");
    usage(&["--base", "main", "--format", "yaml"], "unknown format `yaml`; expected text, markdown or json");
    usage(&["--base", "main", "--check"], "unknown option `--check`");

    let broken = tmp.path().join("broken");
    fs::create_dir_all(&broken).expect("a folder");
    fs::write(broken.join("bad.json"), "{\n  \"openapi\": \"2.0\"\n}\n").expect("written");
    let output = api_diff(tmp.path(), &["--base", &specs_arg(), "--specs", "broken"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "error: broken: broken/bad.json:2:14: at /openapi: unsupported OpenAPI version \"2.0\"; expected 3.x\n"
    );

    let allow = tmp.path().join("allow.toml");
    fs::write(&allow, "[[allow]]\nrule = \"field-gone\"\npath = \"spec\"\nreason = \"r\"\n").expect("written");
    let output = api_diff(tmp.path(), &["--base", &specs_arg(), "--specs", &specs_arg(), "--allow", "allow.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stderr), "error: allow-list: allow.toml:1:1: unknown rule \"field-gone\"\n");

    // Not a folder, so a revision: of the git repository `specs/` is in.
    let output = api_diff(tmp.path(), &["--base", "no-such-revision", "--specs", &specs_arg()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stderr), "error: base no-such-revision: unknown git revision \"no-such-revision\"\n");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", text(&output.stderr));
    text(&output.stdout)
}

#[test]
fn a_git_revision_as_the_base() {
    if !Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: git is not installed");
        return;
    }
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let repo = tmp.path();
    git(repo, &["init", "-q"]);
    // `specs/` is committed as this repository has it; the work tree then has the
    // tightened copy in its place.
    let committed = copy_specs(repo);
    git(repo, &["add", "specs"]);
    git(repo, &["commit", "-qm", "specs"]);
    let tightened = tightened_copy(&repo.join("work"));
    fs::remove_dir_all(&committed).expect("removed");
    fs::rename(&tightened, &committed).expect("moved");
    let status = git(repo, &["status", "--porcelain"]);

    let output = api_diff(repo, &["--base", "HEAD", "--specs", "specs", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["base"], "HEAD");
    assert_eq!(json["changes"][0]["rule"], "minimum-tightened");
    assert_eq!(json["changes"].as_array().map(Vec::len), Some(1));
    assert_eq!(git(repo, &["status", "--porcelain"]), status, "the work tree or the index changed");
}
