//! Formatting emitted code: prettyplease turns each file's token stream into source (and
//! doc attributes into `///` comments), with a blank line between items.
//!
//! The printer's text is the generated crate's final text: it is deterministic, reads
//! like hand-written code, and costs a small part of what a rustfmt process per run would.
//! The crate root marks itself and its modules `#[rustfmt::skip]`, so `cargo fmt` in the
//! workspace that holds a generated crate leaves it as printed. Emitting and printing
//! each file run on every core; printing is skipped where it would give what the output
//! folder already holds (the `Reuse` cache).

mod reuse;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use rayon::iter::{IntoParallelIterator, ParallelIterator};

pub(crate) use self::reuse::Reuse;
use crate::error::{Error, Result};

/// A file of a generated crate before printing.
pub(crate) enum Source {
    /// A file written as it is (`Cargo.toml`, served documents).
    Text(String),
    Rust(RustSource),
}

/// A Rust file: a header comment, a `use` block and items.
pub(crate) struct RustSource {
    header: String,
    uses: TokenStream,
    items: TokenStream,
}

impl RustSource {
    pub fn new(header: String, uses: TokenStream, items: TokenStream) -> Self {
        RustSource { header, uses, items }
    }

    fn unparse(self) -> Result<String> {
        Ok(format!("{}\n{}", self.header, unparse(self.uses, self.items)?))
    }

    /// Feeds what the file's text is made from to `hasher`, without printing it: within one
    /// build of the generator, the text is a function of the header and the tokens.
    fn hash_into(&self, hasher: &mut impl Hasher) {
        struct Feed<'a, H>(&'a mut H);
        impl<H: Hasher> std::fmt::Write for Feed<'_, H> {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0.write(s.as_bytes());
                Ok(())
            }
        }
        // Writing to a hasher cannot fail.
        let _ = write!(Feed(hasher), "{}\0{}\0{}", self.header, self.uses, self.items);
    }
}

/// The final text of every file of a crate.
pub(crate) struct Formatted {
    pub texts: BTreeMap<PathBuf, String>,
    /// The files whose text was read from the output folder (reused), which therefore holds
    /// them as they are.
    pub reused: BTreeSet<PathBuf>,
}

/// The final text of every file: Rust sources printed (or reused from `reuse`'s output
/// folder where nothing they depend on changed), other files as they are. Each file is
/// emitted by `emit` and printed on one of rayon's worker threads, one per core: token
/// streams are not `Send`, so a file's stay on the thread that emits it.
pub(crate) fn format_crate<F: Send>(
    files: Vec<(PathBuf, F)>,
    emit: impl Fn(F) -> Source + Sync,
    reuse: Option<&Reuse>,
) -> Result<Formatted> {
    let prepared: Vec<(PathBuf, Result<Prepared>)> = files
        .into_par_iter()
        .map(|(path, file)| {
            let prepared = prepare(&path, emit(file), reuse);
            (path, prepared)
        })
        .collect();
    let mut texts = BTreeMap::new();
    let mut reused = BTreeSet::new();
    let mut keys = BTreeMap::new();
    for (path, prepared) in prepared {
        let Prepared { text, key, from_out } = prepared?;
        if let Some(key) = key {
            keys.insert(path.clone(), key);
        }
        if from_out {
            reused.insert(path.clone());
        }
        texts.insert(path, text);
    }
    if let Some(reuse) = reuse {
        reuse.save(&keys, &texts, &reused);
    }
    Ok(Formatted { texts, reused })
}

/// A file's final text.
struct Prepared {
    text: String,
    /// The reuse key of a Rust source, when there is a cache.
    key: Option<u64>,
    /// Whether the text is the output folder's copy.
    from_out: bool,
}

fn prepare(path: &Path, source: Source, reuse: Option<&Reuse>) -> Result<Prepared> {
    let rust = match source {
        Source::Text(text) => return Ok(Prepared { text, key: None, from_out: false }),
        Source::Rust(rust) => rust,
    };
    let key = reuse.map(|reuse| reuse.key(&rust));
    if let Some(text) = reuse.zip(key).and_then(|(reuse, key)| reuse.printed(path, key)) {
        return Ok(Prepared { text, key, from_out: true });
    }
    Ok(Prepared { text: rust.unparse()?, key, from_out: false })
}

/// Source text of a file: its `use` items, then `items` (after their inner attributes,
/// such as the module's doc), with a blank line between items.
fn unparse(uses: TokenStream, items: TokenStream) -> Result<String> {
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

/// prettyplease prints items back to back. A blank line between consecutive items at one
/// depth (type definitions, impls, functions, methods, statics) makes files read like
/// hand-written code; runs of `use` and `mod` declarations (with their attributes) stay
/// together, and so do statements, fields and match arms.
fn separate_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    let lines: Vec<&str> = code.lines().collect();
    // The last line, and whether it ends a `use` or `mod` declaration (which may span lines).
    let mut previous: Option<(&str, bool)> = None;
    let mut in_declaration = false;
    for (index, line) in lines.iter().copied().enumerate() {
        let starts_declaration = starts_declaration(&lines[index..]);
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

/// Whether the first of `lines` begins a `use` or `mod` declaration, or an attribute of one.
fn starts_declaration(lines: &[&str]) -> bool {
    let is_attribute = |line: &&str| line.trim_start().starts_with("#[") && line.ends_with(']');
    lines.iter().find(|line| !is_attribute(line)).is_some_and(|line| {
        let line = line.trim_start();
        ["use ", "pub use ", "mod ", "pub mod "].iter().any(|p| line.starts_with(p))
    })
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
#[cfg(test)]
#[rustfmt::skip]
mod n;
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
#[cfg(test)]
#[rustfmt::skip]
mod n;
";
        assert_eq!(separate_items(code), expected);
    }
}
