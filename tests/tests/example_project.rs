//! `examples/widgets`, an extension API server in a workspace of its own, used as a user
//! would use it from a repository of their own: copied to a temporary folder outside this
//! one, its kube-apigen dependencies pointed at this checkout (a `[patch.crates-io]`
//! section, the only edit), its `cargo xtask codegen` run (which must give the committed
//! crate back), built, started, and driven with kubectl: create, get (the printer
//! columns), server-side apply, watch, the effect of its strategy, and the API server's
//! 422s.
//!
//! The build goes to `target/fixture-builds/target`, the folder every project built by
//! the tests shares, with this workspace's `Cargo.lock` as the start of its own (the same
//! dependency versions, offline). Without `kubectl` on the PATH (or in `$KUBECTL`) the
//! test builds the project and prints `SKIPPED` for the kubectl part.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The crates of this checkout the example names by version.
const PATCHED: &[&str] = &[
    "kube-apigen",
    "kube-apigen-core",
    "kube-apigen-validation",
    "kube-apigen-server",
    "kube-apigen-patch",
    "kube-apigen-registry",
    "kube-apigen-codegen",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ lives in the workspace").to_path_buf()
}

fn builds_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target folder").join("fixture-builds").join("target")
}

/// Copies `from` into `to`, leaving out build output.
fn copy_project(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("a folder");
    for entry in fs::read_dir(from).expect("the example") {
        let entry = entry.expect("an entry");
        let name = entry.file_name();
        if name == "target" || name == "Cargo.lock" {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if source.is_dir() {
            copy_project(&source, &target);
        } else {
            fs::copy(&source, &target).expect("a copy");
        }
    }
}

/// Every file under `dir` with its text, by relative path.
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).expect("a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let text = fs::read_to_string(&path).expect("a text file");
                files.push((path.strip_prefix(dir).expect("below").to_path_buf(), text));
            }
        }
    }
    files.sort();
    files
}

fn cargo(project: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO"))
        .args(args)
        .current_dir(project)
        .env("CARGO_TARGET_DIR", builds_target())
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs")
}

fn succeeded(what: &str, output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{what} failed:\n{stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The example, copied and patched to this checkout's crates.
fn prepared_project(dir: &Path) -> PathBuf {
    let root = workspace_root();
    let project = dir.join("widgets");
    copy_project(&root.join("examples").join("widgets"), &project);
    let patches: String = PATCHED
        .iter()
        .map(|name| format!("{name} = {{ path = {:?} }}\n", root.join(name).display().to_string()))
        .collect();
    let manifest = project.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).expect("the example's manifest");
    fs::write(&manifest, format!("{text}\n[patch.crates-io]\n{patches}")).expect("the patched manifest");
    fs::copy(root.join("Cargo.lock"), project.join("Cargo.lock")).expect("the lock file");
    project
}

/// The server, started on a free port; its address.
struct Running(Child, String);

impl Running {
    fn start(binary: &Path) -> Running {
        let mut child = Command::new(binary)
            .arg("127.0.0.1:0")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("its stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let line = lines.recv_timeout(Duration::from_secs(30)).expect("the server says where it listens");
        let url = line.strip_prefix("listening on ").expect("a `listening on` line").to_owned();
        Running(child, url)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn kubectl_program() -> Option<PathBuf> {
    let program = std::env::var_os("KUBECTL").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("kubectl"));
    Command::new(&program).arg("version").arg("--client").output().ok().filter(|o| o.status.success()).map(|_| program)
}

/// kubectl with a kubeconfig of its own for `url`.
struct Kubectl {
    program: PathBuf,
    config: PathBuf,
    cache: PathBuf,
}

impl Kubectl {
    fn new(program: PathBuf, dir: &Path, url: &str) -> Kubectl {
        let config = dir.join("kubeconfig.yaml");
        fs::write(
            &config,
            format!(
                "apiVersion: v1\nkind: Config\nclusters: [{{name: local, cluster: {{server: \"{url}\"}}}}]\n\
                 users: [{{name: anonymous, user: {{}}}}]\n\
                 contexts: [{{name: local, context: {{cluster: local, user: anonymous, namespace: default}}}}]\n\
                 current-context: local\n"
            ),
        )
        .expect("a kubeconfig");
        Kubectl { program, config, cache: dir.join("kube-cache") }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command.arg("--kubeconfig").arg(&self.config).arg("--cache-dir").arg(&self.cache).args(args);
        command
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl runs");
        let mut input = child.stdin.take().expect("its stdin");
        std::io::Write::write_all(&mut input, stdin.unwrap_or("").as_bytes()).expect("kubectl reads its input");
        drop(input);
        child.wait_with_output().expect("kubectl ends")
    }

    /// Runs a step that must succeed; its stdout.
    fn ok(&self, args: &[&str], stdin: Option<&str>) -> String {
        succeeded(&format!("kubectl {}", args.join(" ")), &self.run(args, stdin))
    }

    /// Runs a step that must fail; its stderr.
    fn fails(&self, args: &[&str], stdin: Option<&str>) -> String {
        let output = self.run(args, stdin);
        assert!(!output.status.success(), "kubectl {} succeeded", args.join(" "));
        String::from_utf8_lossy(&output.stderr).into_owned()
    }
}

fn widget(name: &str, color: &str, size: i64) -> String {
    format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n  color: {color}\n  size: {size}\n"
    )
}

#[test]
fn the_example_server_builds_outside_the_repository_and_serves_kubectl() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let project = prepared_project(dir.path());
    let committed = tree(&project.join("widgets-api"));

    succeeded("cargo xtask codegen", &cargo(&project, &["xtask", "codegen"]));
    assert!(tree(&project.join("widgets-api")) == committed, "regenerating changed examples/widgets/widgets-api");
    succeeded("cargo clippy", &cargo(&project, &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]));
    succeeded("cargo build", &cargo(&project, &["build", "-p", "widgets-server"]));

    let Some(program) = kubectl_program() else {
        eprintln!("SKIPPED: the kubectl part: kubectl not found (install it, or set KUBECTL)");
        return;
    };
    let server = Running::start(&builds_target().join("debug").join("widgets-server"));
    let kubectl = Kubectl::new(program, dir.path(), &server.1);

    assert_eq!(kubectl.ok(&["create", "-f", "-"], Some(&widget("w1", "red", 3))), "widget.example.com/w1 created\n");
    let table = kubectl.ok(&["get", "widgets"], None);
    let lines: Vec<Vec<&str>> = table.lines().map(|line| line.split_whitespace().collect()).collect();
    assert_eq!(lines[0], ["NAME", "COLOR", "SIZE", "PHASE"], "{table}");
    assert_eq!(lines[1], ["w1", "red", "3", "Ordered"], "the strategy's phase shows: {table}");

    // Server-side apply creates a widget, then changes what its manager owns.
    for size in [7, 8] {
        let applied = kubectl.ok(&["apply", "--server-side", "-f", "-"], Some(&widget("w2", "green", size)));
        assert_eq!(applied, "widget.example.com/w2 serverside-applied\n");
    }
    assert_eq!(kubectl.ok(&["get", "wd", "w2", "-o", "jsonpath={.spec.size} {.status.phase}"], None), "8 Ordered");

    // A watch sees a widget made after it started.
    let mut watch = kubectl
        .command(&["get", "widgets", "--watch", "-o", "name"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kubectl watches");
    let (sender, lines) = mpsc::channel();
    let stdout = watch.stdout.take().expect("its stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    for existing in ["widget.example.com/w1", "widget.example.com/w2"] {
        assert_eq!(lines.recv_timeout(Duration::from_secs(10)).as_deref(), Ok(existing));
    }
    kubectl.ok(&["create", "-f", "-"], Some(&widget("w3", "blue", 1)));
    assert_eq!(lines.recv_timeout(Duration::from_secs(10)).as_deref(), Ok("widget.example.com/w3"));
    let _ = watch.kill();
    let _ = watch.wait();

    // The strategy refuses a new color; the schema a size out of range; both in the API
    // server's words.
    let refused = kubectl.fails(&["patch", "widget", "w1", "--type=merge", "-p", r#"{"spec":{"color":"blue"}}"#], None);
    assert_eq!(refused, "The Widget \"w1\" is invalid: spec.color: Invalid value: \"blue\": field is immutable\n",);
    let invalid = kubectl.fails(&["create", "-f", "-"], Some(&widget("w4", "blue", 0)));
    assert_eq!(
        invalid,
        "The Widget \"w4\" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1\n",
    );
    let names = kubectl.ok(&["get", "widgets", "-o", "name"], None);
    assert_eq!(names, "widget.example.com/w1\nwidget.example.com/w2\nwidget.example.com/w3\n");
}
