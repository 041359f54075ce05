//! The report as a whole: nothing for no change, the same report however the specs are
//! split into files, the allow-list, the three renderings, and reading a git revision.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::{Format, Target, changes, edited, line, read, unchanged};
use crate::diff::{AllowList, Api, Report, Revision};
use crate::load;

/// The Widget without `spec.name`, with a new `spec.size`, a new value of `spec.mode` and
/// without the value `Pending` of `status.phase`: a change of each severity (the last
/// compatible, since status may tighten).
fn widget_changes(format: Format) -> (Value, Value) {
    let old = format.document();
    let mut new = edited(format, Target::Spec, |spec| {
        spec["properties"].as_object_mut().expect("properties").remove("name");
        spec["properties"]["size"] = json!({"type": "integer", "format": "int32"});
        spec["properties"]["mode"]["enum"] = json!(["Fast", "Slow", "Off"]);
    });
    let status = new.pointer_mut(format.pointer(Target::Status)).expect("status");
    status["properties"]["phase"]["enum"] = json!(["Ready"]);
    (old, new)
}

fn report(old: &Value, new: &Value, allow: Option<&AllowList>) -> Report {
    Report::new("main", "specs", &read(old), &read(new), allow)
}

#[test]
fn the_same_api_has_no_changes() {
    for format in [Format::OpenApi, Format::Crd] {
        assert_eq!(changes(format, Target::Document, unchanged, unchanged), []);
        let document = format.document();
        let report = report(&document, &document, None);
        assert!(!report.breaks());
        assert_eq!(report.text(), "No API changes between main and specs.\n");
        let json: Value = serde_json::from_str(&report.json()).expect("JSON");
        assert_eq!(json["changes"], json!([]));
        assert_eq!(
            json["summary"],
            json!({"breaking": 0, "allowed": 0, "review": 0, "compatible": 0, "semver": "none"})
        );
    }
}

/// The documents of an OpenAPI Widget and a CRD Gadget, as files named `names`.
fn mixed(widget: &Value, gadget: &Value, names: [&str; 2]) -> Api {
    let mut documents = Vec::new();
    for (name, document) in names.into_iter().zip([widget, gadget]) {
        documents.extend(load::parse(Path::new(&format!("specs/{name}")), document.to_string()).expect("JSON"));
    }
    // The loader reads a folder's files in name order.
    documents.sort_by(|a, b| a.display_path.cmp(&b.display_path));
    Api::from_documents(documents).unwrap_or_else(|e| panic!("{e}"))
}

fn gadget(crd: &Value) -> Value {
    let text = crd.to_string().replace("widgets", "gadgets").replace("Widget", "Gadget").replace("wd", "gd");
    serde_json::from_str(&text).expect("still JSON")
}

#[test]
fn reports_do_not_depend_on_file_names_or_runs() {
    let (old_widget, new_widget) = widget_changes(Format::OpenApi);
    let (old_crd, new_crd) = widget_changes(Format::Crd);
    let (old_gadget, new_gadget) = (gadget(&old_crd), gadget(&new_crd));
    let render = |names: [&str; 2]| {
        let old = mixed(&old_widget, &old_gadget, names);
        let new = mixed(&new_widget, &new_gadget, names);
        let report = Report::new("main", "specs", &old, &new, None);
        (report.text(), report.markdown(), report.json())
    };
    let first = render(["a.json", "b.json"]);
    assert!(first.0.contains("demo.k8s.io/v1 Gadget") && first.0.contains("demo.k8s.io/v1 Widget"), "{}", first.0);
    assert_eq!(render(["a.json", "b.json"]), first, "a second run differs");
    assert_eq!(render(["b.json", "a.json"]), first, "the report depends on the order of the files");
}

const ALLOW: &str = r#"
# Accepted breaking changes.
[[allow]]
rule = "field-removed"
path = "spec.name"
kind = "Widget"
reason = "never read by any client"

[[allow]]
rule = "field-removed"
path = "spec.colour"
reason = "went away long ago"
"#;

#[test]
fn the_allow_list_accepts_breaking_changes_and_names_entries_that_match_nothing() {
    let (old, new) = widget_changes(Format::OpenApi);
    let allow = AllowList::parse(Path::new("api-diff-allow.toml"), ALLOW).unwrap_or_else(|e| panic!("{e}"));
    let without = report(&old, &new, None);
    assert!(without.breaks());
    let with = report(&old, &new, Some(&allow));
    assert!(!with.breaks(), "{}", with.text());
    let lines: Vec<String> = with.changes.iter().map(line).collect();
    assert_eq!(
        lines,
        [
            r#"breaking field-removed spec.name: "string" → —; field removed (was string) => major: field WidgetSpec::name removed (allowed: never read by any client)"#,
            r#"review enum-value-added spec.mode: — → "Off"; enum value Off added => major: new variant WidgetSpecMode::Off"#,
            r#"compatible field-added spec.size: — → "integer (int32)"; field added (integer (int32)) => major: new field WidgetSpec::size (struct literals must name it)"#,
            r#"compatible enum-value-removed status.phase: "Pending" → —; enum value Pending removed; status may tighten: clients see a subset of the values they saw => major: variant WidgetStatusPhase::Pending removed"#,
        ][..]
    );
    let unmatched: Vec<(&str, usize)> = with.unmatched.iter().map(|e| (e.path.as_str(), e.line)).collect();
    assert_eq!(unmatched, [("spec.colour", 9)]);
    assert!(with.text().ends_with(
        "\nAllow-list entries that match no breaking change (remove them):\n  api-diff-allow.toml:9: field-removed at spec.colour\n"
    ));
    // An entry narrowed to another kind accepts nothing.
    let elsewhere = AllowList::parse(Path::new("allow.toml"), &ALLOW.replace("kind = \"Widget\"", "kind = \"Gadget\""))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(report(&old, &new, Some(&elsewhere)).breaks());
}

#[test]
fn a_bad_allow_list_is_an_error_with_its_place() {
    let error = |text: &str| AllowList::parse(Path::new("allow.toml"), text).unwrap_err().to_string();
    assert_eq!(
        error("[[allow]]\nrule = \"field-gone\"\npath = \"spec\"\nreason = \"r\"\n"),
        "allow.toml:1:1: unknown rule \"field-gone\""
    );
    assert_eq!(
        error("\n[[allow]]\nrule = \"field-removed\"\npath = \"spec\"\nreason = \" \"\n"),
        "allow.toml:2:1: an allow-list entry needs a reason"
    );
    assert_eq!(
        error("[[allow]]\nrule = \"field-removed\"\npath = \"spec\"\nwhy = \"r\"\n"),
        "allow.toml:4:1: invalid allow-list: unknown field `why`, expected one of `rule`, `path`, `group`, `version`, `kind`, `reason`"
    );
    assert_eq!(error("[[allow]\n"), "allow.toml:1:9: invalid allow-list: unclosed array table, expected `]`");
}

#[test]
fn the_text_report() {
    let (old, new) = widget_changes(Format::Crd);
    assert_eq!(
        report(&old, &new, None).text(),
        "\
API changes in specs against main: 1 breaking, 1 to review, 2 compatible
The generated crate needs a major version bump.

breaking: demo.k8s.io/v1 Widget
  spec.name [field-removed] string → —
    field removed (was string): clients that set or read the field break, and stored values are dropped
    Rust (major): field WidgetSpec::name removed

review: demo.k8s.io/v1 Widget
  spec.mode [enum-value-added] — → Off
    enum value Off added: clients that handle every value of a closed enum do not know the new one
    Rust (major): new variant WidgetSpecMode::Off

compatible: demo.k8s.io/v1 Widget
  spec.size [field-added] — → integer (int32)
    field added (integer (int32)): a new optional field; clients that do not know it keep working
    Rust (major): new field WidgetSpec::size (struct literals must name it)
  status.phase [enum-value-removed] Pending → —
    enum value Pending removed: requests with the value are rejected; status may tighten: clients see a subset of the values they saw
    Rust (major): variant WidgetStatusPhase::Pending removed
"
    );
}

#[test]
fn the_markdown_report() {
    let (old, new) = widget_changes(Format::OpenApi);
    let allow = AllowList::parse(Path::new("allow.toml"), ALLOW).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        report(&old, &new, Some(&allow)).markdown(),
        "\
### API changes: 1 breaking (1 allowed), 1 to review, 2 compatible

`specs` compared with `main`. The generated crate needs a major version bump.

| severity | changes | allowed |
|---|---:|---:|
| breaking | 1 | 1 |
| review | 1 | |
| compatible | 2 | |

#### Breaking (1)

**demo.k8s.io/v1 Widget**

| path | rule | old → new | why | Rust |
|---|---|---|---|---|
| `spec.name` | `field-removed` | `string` → — | clients that set or read the field break, and stored values are dropped; **allowed**: never read by any client | major: field WidgetSpec::name removed |

#### To review (1)

**demo.k8s.io/v1 Widget**

| path | rule | old → new | why | Rust |
|---|---|---|---|---|
| `spec.mode` | `enum-value-added` | — → `Off` | clients that handle every value of a closed enum do not know the new one | major: new variant WidgetSpecMode::Off |

<details><summary>Compatible (2)</summary>

**demo.k8s.io/v1 Widget**

| path | rule | old → new | why | Rust |
|---|---|---|---|---|
| `spec.size` | `field-added` | — → `integer (int32)` | a new optional field; clients that do not know it keep working | major: new field WidgetSpec::size (struct literals must name it) |
| `status.phase` | `enum-value-removed` | `Pending` → — | requests with the value are rejected; _status may tighten: clients see a subset of the values they saw_ | major: variant WidgetStatusPhase::Pending removed |

</details>

#### Allow-list entries that match no breaking change

- `allow.toml:9: field-removed at spec.colour`
"
    );
}

#[test]
fn the_json_report() {
    let (old, new) = widget_changes(Format::OpenApi);
    let allow = AllowList::parse(Path::new("allow.toml"), ALLOW).unwrap_or_else(|e| panic!("{e}"));
    let json: Value = serde_json::from_str(&report(&old, &new, Some(&allow)).json()).expect("JSON");
    assert_eq!(json["base"], "main");
    assert_eq!(json["specs"], "specs");
    assert_eq!(
        json["changes"][0],
        json!({
            "severity": "breaking",
            "rule": "field-removed",
            "group": "demo.k8s.io",
            "version": "v1",
            "kind": "Widget",
            "path": "spec.name",
            "old": "string",
            "new": null,
            "message": "field removed (was string): clients that set or read the field break, and stored values are dropped",
            "rust": {"semver": "major", "change": "field WidgetSpec::name removed"},
            "allowed": "never read by any client",
        })
    );
    assert_eq!(json["changes"].as_array().map(Vec::len), Some(4));
    assert_eq!(json["summary"], json!({"breaking": 1, "allowed": 1, "review": 1, "compatible": 2, "semver": "major"}));
    assert_eq!(
        json["unmatchedAllowances"],
        json!([{"rule": "field-removed", "path": "spec.colour", "group": null, "version": null, "kind": null,
            "reason": "went away long ago", "file": "allow.toml", "line": 9}])
    );
}

/// Runs git in `dir`, panicking on failure.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn git_available() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: git is not installed");
    }
    found
}

#[test]
fn a_revision_is_read_from_git_without_touching_the_work_tree_or_the_index() {
    if !git_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let repo = tmp.path();
    let specs = repo.join("api").join("specs");
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
        std::fs::write(path, text).expect("written");
    };
    git(repo, &["init", "-q"]);
    write(&specs.join("widget.json"), &Format::OpenApi.document().to_string());
    write(&specs.join("nested").join("notes.txt"), "not a spec\n");
    write(&repo.join("README"), "elsewhere\n");
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "base"]);
    // The work tree and the index move on: a staged change and an unstaged one.
    let (_, new) = widget_changes(Format::OpenApi);
    write(&specs.join("widget.json"), &new.to_string());
    git(repo, &["add", "api/specs/widget.json"]);
    write(&specs.join("extra.yaml"), "openapi: 3.0.0\n");
    let status = git(repo, &["status", "--porcelain"]);
    let index = std::fs::read(repo.join(".git").join("index")).expect("the index");

    let revision = Revision::read(&specs, "HEAD").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(revision.specs().file_name(), specs.file_name());
    let read_back = std::fs::read_to_string(revision.specs().join("widget.json")).expect("the file at HEAD");
    assert_eq!(read_back, Format::OpenApi.document().to_string());
    assert_eq!(std::fs::read(revision.specs().join("nested").join("notes.txt")).expect("copied"), b"not a spec\n");
    assert!(!revision.specs().join("extra.yaml").exists());
    assert_eq!(git(repo, &["status", "--porcelain"]), status, "the work tree or index changed");
    assert_eq!(std::fs::read(repo.join(".git").join("index")).expect("the index"), index, "the index was written");

    let report = Report::new("HEAD", "specs", &Api::read(revision.specs()).unwrap(), &read(&new), None);
    assert!(report.breaks(), "{}", report.text());

    let error = |specs: &Path, revision: &str| Revision::read(specs, revision).err().expect("an error").to_string();
    assert_eq!(error(&specs, "no-such-branch"), "unknown git revision \"no-such-branch\"");
    std::fs::create_dir_all(repo.join("later")).expect("a folder");
    assert_eq!(error(&repo.join("later"), "HEAD"), "later/ does not exist at git revision \"HEAD\"");
}
