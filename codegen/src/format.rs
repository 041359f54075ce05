//! Formatting emitted code: prettyplease turns token streams into source (and doc
//! attributes into `///` comments), then rustfmt formats every file with the workspace's
//! `rustfmt.toml`, so generated code follows the same policy as hand-written code and
//! `cargo fmt --check` holds for both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Runs rustfmt over every `.rs` file of a crate. Every one of them is part of the module
/// tree of `src/lib.rs`, so they are written to a scratch folder and rustfmt is run once on
/// `src/lib.rs`, reaching the others through their `mod` declarations as `cargo fmt`
/// does: one process instead of one per file, whose start-up would cost more than the
/// formatting.
pub fn rustfmt_all(files: &mut BTreeMap<PathBuf, String>) -> Result<()> {
    let scratch = tempfile::tempdir().map_err(|e| Error::new(format!("cannot create a folder for rustfmt: {e}")))?;
    for (path, text) in files.iter().filter(|(path, _)| is_rust(path)) {
        let target = scratch.path().join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::in_file(&target, format!("cannot create: {e}")))?;
        }
        std::fs::write(&target, text).map_err(|e| Error::in_file(&target, format!("cannot write: {e}")))?;
    }
    rustfmt(&policy_path(), scratch.path(), Path::new(CRATE_ROOT))?;
    for (path, text) in files.iter_mut().filter(|(path, _)| is_rust(path)) {
        let formatted = scratch.path().join(path);
        *text = std::fs::read_to_string(&formatted)
            .map_err(|e| Error::in_file(&formatted, format!("cannot read rustfmt's output: {e}")))?;
    }
    Ok(())
}

/// The root of every generated crate's module tree.
const CRATE_ROOT: &str = "src/lib.rs";

fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

/// rustfmt (`$RUSTFMT`, as cargo fmt reads it, else `rustfmt`) on `root` inside `folder`,
/// in place, with the modules it declares.
fn rustfmt(config: &Path, folder: &Path, root: &Path) -> Result<()> {
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let output = Command::new(&program)
        .current_dir(folder)
        .arg("--config-path")
        .arg(config)
        .arg("--quiet")
        .arg(root)
        .output()
        .map_err(|e| {
            Error::new(format!(
                "cannot run {}: {e}; the generator formats its output with rustfmt \
                 (`rustup component add rustfmt`)",
                Path::new(&program).display()
            ))
        })?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "internal error: rustfmt rejected generated code: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(())
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
