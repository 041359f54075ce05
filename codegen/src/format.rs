//! Formatting emitted code: prettyplease turns token streams into source (and doc
//! attributes into `///` comments), then rustfmt formats every file with the workspace's
//! `rustfmt.toml`, so generated code follows the same policy as hand-written code and
//! `cargo fmt --check` holds for both.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use proc_macro2::TokenStream;

use crate::error::{Error, Result};

/// The formatting policy, which generated crates carry as their own `rustfmt.toml` so
/// that `cargo fmt` agrees with the generator wherever they are written.
pub fn policy() -> Result<String> {
    let path = policy_path();
    std::fs::read_to_string(&path).map_err(|e| Error::in_file(&path, format!("cannot read the formatting policy: {e}")))
}

fn policy_path() -> PathBuf {
    crate::workspace_root().join("rustfmt.toml")
}

/// Source text of a file: its `use` items, then `items` (after their inner attributes,
/// such as the module's doc), with a blank line between items.
pub fn unparse(uses: TokenStream, items: TokenStream) -> Result<String> {
    let parse = |tokens: TokenStream| -> Result<syn::File> {
        syn::parse2(tokens.clone()).map_err(|e| {
            let code: String = tokens.to_string().chars().take(2000).collect();
            Error::new(format!("internal error: emitted code does not parse: {e}\n{code}"))
        })
    };
    let mut file = parse(items)?;
    file.items.splice(0..0, parse(uses)?.items);
    Ok(separate_items(&prettyplease::unparse(&file)))
}

/// Runs rustfmt over every `.rs` file, a few at a time.
pub fn rustfmt_all(files: &mut BTreeMap<PathBuf, String>) -> Result<()> {
    let config = policy_path();
    let sources: Vec<(&PathBuf, &mut String)> = files.iter_mut().filter(|(path, _)| is_rust(path)).collect();
    let queue = Mutex::new(sources.into_iter());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let Some((path, text)) = queue.lock().expect("queue lock").next() else { return };
                    match rustfmt(&config, text) {
                        Ok(formatted) => *text = formatted,
                        Err(message) => {
                            failure.lock().expect("failure lock").get_or_insert(Error::in_file(path, message));
                            return;
                        }
                    }
                }
            });
        }
    });
    match failure.into_inner().expect("failure lock") {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

/// One file through rustfmt (`$RUSTFMT`, as cargo fmt reads it, else `rustfmt`).
fn rustfmt(config: &Path, source: &str) -> std::result::Result<String, String> {
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = Command::new(&program)
        .arg("--config-path")
        .arg(config)
        .args(["--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run {}: {e}; the generator formats its output with rustfmt \
                 (`rustup component add rustfmt`)",
                Path::new(&program).display()
            )
        })?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Write from another thread: rustfmt may fill its output pipe before reading all input.
    let writer = {
        let source = source.to_owned();
        std::thread::spawn(move || stdin.write_all(source.as_bytes()))
    };
    let output = child.wait_with_output().map_err(|e| format!("rustfmt failed: {e}"))?;
    writer.join().expect("writer thread").map_err(|e| format!("cannot send code to rustfmt: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "internal error: rustfmt rejected generated code: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("rustfmt printed invalid UTF-8: {e}"))
}

/// prettyplease prints items back to back. A blank line between consecutive items at one
/// depth (type definitions, impls, functions, methods, statics) makes files read like
/// hand-written code; runs of `use` and `mod` declarations stay together, and so do
/// statements, fields and match arms.
fn separate_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    // The last line, and whether it ends a `use` or `mod` declaration (which may span lines).
    let mut previous: Option<(&str, bool)> = None;
    let mut in_declaration = false;
    for line in code.lines() {
        let starts_declaration = is_declaration(line.trim_start());
        if let Some((previous, after_declaration)) = previous
            && needs_blank_line(previous, after_declaration, line, starts_declaration)
        {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        let within = in_declaration || starts_declaration;
        in_declaration = within && !line.ends_with(';');
        previous = Some((line, within && line.ends_with(';')));
    }
    out
}

fn is_declaration(line: &str) -> bool {
    ["use ", "pub use ", "mod ", "pub mod "].iter().any(|p| line.starts_with(p))
}

fn needs_blank_line(previous: &str, after_declaration: bool, line: &str, declaration: bool) -> bool {
    let indent = |s: &str| s.len() - s.trim_start().len();
    if line.trim().is_empty() || previous.trim().is_empty() || indent(previous) != indent(line) {
        return false;
    }
    if !starts_item(line.trim()) || (after_declaration && declaration) || line.trim().starts_with("//!") {
        return false;
    }
    let previous = previous.trim();
    matches!(previous, "}" | "};" | "});") || previous.ends_with(';') || previous.starts_with("//!")
}

/// Whether a line begins an item (or its doc comment or attributes).
fn starts_item(line: &str) -> bool {
    const STARTS: &[&str] = &[
        "///",
        "//!",
        "#[",
        "pub ",
        "pub(",
        "fn ",
        "async fn ",
        "impl ",
        "impl<",
        "const ",
        "static ",
        "type ",
        "struct ",
        "enum ",
        "trait ",
        "mod ",
        "use ",
        "unsafe impl",
    ];
    STARTS.iter().any(|start| line.starts_with(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_separated_and_statements_are_not() {
        let code = "\
use a::B;
use c::D;
pub struct S {
    pub x: i32,
}
impl S {
    fn a() {
        let x = 1;
        if x == 1 {
            f();
        }
        g();
    }
    fn b() {}
}
pub type T = S;
mod m;
pub use self::m::M;
";
        let expected = "\
use a::B;
use c::D;

pub struct S {
    pub x: i32,
}

impl S {
    fn a() {
        let x = 1;
        if x == 1 {
            f();
        }
        g();
    }

    fn b() {}
}

pub type T = S;

mod m;
pub use self::m::M;
";
        assert_eq!(separate_items(code), expected);
    }
}
