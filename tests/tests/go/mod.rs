//! The Go oracle: `tests/go-oracle/oracle.go`, built once (per version of its source)
//! and asked questions over a pipe, so the Rust reimplementations of Go behaviour can be
//! compared with Go itself. See that file for the protocol; adding a function there and
//! one [`Go::agree`] call here is all a new comparison needs.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

const SOURCE: &str = include_str!("../../go-oracle/oracle.go");

/// A running oracle.
pub struct Go {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// `runtime.Version()` of the Go that answers, `go1.19.8`.
    pub version: String,
}

/// Go's answer: a JSON value, or an error message.
pub type Answer = Result<Value, String>;

/// Inputs split by Go's answers ([`Go::partition`]).
pub struct Split {
    /// The inputs to compare.
    pub kept: Vec<Vec<String>>,
    /// The others, with Go's answers.
    pub others: Vec<(Vec<String>, Answer)>,
}

/// Stands, on the Rust side, for any successful answer: only success is compared.
pub const ANY: Value = Value::Null;

/// How the errors of the two sides are compared.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Errors {
    /// Both fail with the same message.
    Exact,
    /// Both fail; the messages are not compared (the Rust side words its own).
    Presence,
}

impl Go {
    /// Builds the oracle if needed and starts it, or prints a loud `SKIPPED` line and
    /// returns `None` when no Go toolchain is installed (`.ci/run` installs Debian's).
    pub fn start(test: &str) -> Option<Go> {
        if Command::new("go").arg("version").output().is_err() {
            eprintln!("SKIPPED: {test}: no `go` on PATH (apt-get install golang-go)");
            return None;
        }
        let binary = build();
        let mut child = Command::new(&binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut go = Go { child, stdin, stdout, version: String::new() };
        go.version = go.ask("version", &[vec![]]).remove(0).expect("runtime.Version()").as_str().unwrap().to_owned();
        Some(go)
    }

    /// Go's answers to `function` for each argument list.
    pub fn ask(&mut self, function: &str, inputs: &[Vec<String>]) -> Vec<Answer> {
        let mut line = serde_json::to_vec(&json!({ "fn": function, "inputs": inputs })).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).and_then(|()| self.stdin.flush()).expect("writing to the oracle");
        let mut response = String::new();
        self.stdout.read_line(&mut response).expect("reading from the oracle");
        let answers: Vec<Value> = serde_json::from_str(&response)
            .unwrap_or_else(|e| panic!("the oracle's answer to {function} is not JSON ({e}): {response:?}"));
        assert_eq!(answers.len(), inputs.len(), "{function}: one answer per input");
        answers
            .into_iter()
            .map(|answer| match answer.get("err") {
                Some(Value::String(message)) => Err(message.clone()),
                _ => Ok(answer.get("ok").cloned().unwrap_or(Value::Null)),
            })
            .collect()
    }

    /// Splits `inputs` by Go's answers: those `keep` accepts, and the others with Go's
    /// answer (for a documented difference, checked on its own).
    pub fn partition(&mut self, function: &str, inputs: Vec<Vec<String>>, keep: impl Fn(&Answer) -> bool) -> Split {
        let answers = self.ask(function, &inputs);
        let (kept, others): (Vec<_>, Vec<_>) = inputs.into_iter().zip(answers).partition(|(_, answer)| keep(answer));
        Split { kept: kept.into_iter().map(|(args, _)| args).collect(), others }
    }

    /// Asks Go and `rust` the same questions and panics listing every disagreement.
    pub fn agree(
        &mut self,
        function: &str,
        inputs: &[Vec<String>],
        errors: Errors,
        rust: impl Fn(&[String]) -> Result<Value, String>,
    ) {
        let answers = self.ask(function, inputs);
        let mut disagreements = Vec::new();
        for (args, go) in inputs.iter().zip(answers) {
            let ours = rust(args);
            let same = match (&go, &ours) {
                (Ok(_), Ok(Value::Null)) => true,
                (Ok(a), Ok(b)) => a == b,
                (Err(a), Err(b)) => errors == Errors::Presence || a == b,
                _ => false,
            };
            if !same {
                disagreements.push(format!("  {function}{args:?}\n    Go:   {go:?}\n    Rust: {ours:?}"));
            }
        }
        let total = disagreements.len();
        disagreements.truncate(30);
        assert!(
            total == 0,
            "{total} of {} inputs answered differently ({}):\n{}",
            inputs.len(),
            self.version,
            disagreements.join("\n")
        );
    }
}

impl Drop for Go {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The oracle binary for this version of its source, built into Cargo's temporary
/// directory unless an earlier test already did. Parallel builds race harmlessly: each
/// writes its own file and renames it into place.
fn build() -> PathBuf {
    let mut hasher = DefaultHasher::new();
    SOURCE.hash(&mut hasher);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-oracle");
    let binary = dir.join(format!("oracle-{:016x}", hasher.finish()));
    if binary.exists() {
        return binary;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("go-oracle/oracle.go");
    let partial = dir.join(format!("oracle-{}.partial", std::process::id()));
    let output = Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&partial)
        .arg(&source)
        // Standard library only: nothing to download, and no toolchain switching.
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOCACHE", dir.join("cache"))
        .env("GOPATH", dir.join("gopath"))
        .output()
        .expect("running go build");
    assert!(output.status.success(), "go build failed:\n{}", String::from_utf8_lossy(&output.stderr));
    std::fs::rename(&partial, &binary).unwrap();
    binary
}

/// Inputs near the interesting ones: `count` strings, each a seed with one to three
/// random edits (a character of `alphabet` inserted or substituted, a character
/// removed, a slice repeated), from a fixed random seed so failures reproduce.
pub fn mutations(seeds: &[&str], alphabet: &str, count: usize) -> Vec<String> {
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    (0..count)
        .map(|_| {
            let mut s: Vec<char> = seeds[rng.usize(..seeds.len())].chars().collect();
            for _ in 0..rng.usize(1..=3) {
                let at = rng.usize(..=s.len());
                match rng.u8(..4) {
                    0 => s.insert(at, alphabet[rng.usize(..alphabet.len())]),
                    1 if at < s.len() => s[at] = alphabet[rng.usize(..alphabet.len())],
                    2 if at < s.len() => {
                        s.remove(at);
                    }
                    _ => {
                        let end = rng.usize(at..=s.len());
                        let slice: Vec<char> = s[at..end].to_vec();
                        s.splice(at..at, slice);
                    }
                }
            }
            s.into_iter().collect()
        })
        .collect()
}

/// Single-argument inputs: the hand-picked ones, then `count` [`mutations`] of `seeds`.
pub fn cases(hand_picked: &[&str], seeds: &[&str], alphabet: &str, count: usize) -> Vec<Vec<String>> {
    let generated = mutations(seeds, alphabet, count);
    one_each(hand_picked.iter().copied().chain(generated.iter().map(String::as_str)))
}

/// Single-argument inputs: each string its own argument list.
pub fn one_each<S: AsRef<str>>(inputs: impl IntoIterator<Item = S>) -> Vec<Vec<String>> {
    inputs.into_iter().map(|s| vec![s.as_ref().to_owned()]).collect()
}
