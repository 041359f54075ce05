//! Reading spec files: JSON or YAML into `serde_json::Value`, with source text kept for
//! pointing errors at a line and column.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle, Span, StrInput};

use crate::error::{Error, Result, escape_pointer_segment};

/// One parsed document of a spec file.
#[derive(Debug, Clone)]
pub struct Document {
    /// Path shown to users: relative to the specs folder, prefixed with its name (`specs/x.yaml`).
    pub display_path: PathBuf,
    /// Index of the document among the non-empty documents of a multi-document YAML file.
    pub index_in_file: usize,
    /// The text of the whole file, shared by its documents, for finding lines and columns.
    pub source: std::sync::Arc<str>,
    /// The document's value.
    pub value: Value,
    /// For a document written from another one (the OpenAPI document of a CRD version):
    /// pointer prefixes here and the places in the file they were made from, so errors
    /// point into the file as written. Empty for documents read as they are.
    pub derived: Vec<(String, String)>,
}

impl Document {
    /// An error at `pointer` in this document, with its line and column when they can be found.
    pub fn error(&self, pointer: &str, message: impl Into<String>) -> Error {
        let pointer = self.source_pointer(pointer);
        Error::in_file(&self.display_path, message).at(pointer.as_str()).with_position(locate(
            &self.source,
            self.index_in_file,
            &pointer,
        ))
    }

    /// Where `pointer` of this document is in the file it was read from.
    fn source_pointer(&self, pointer: &str) -> String {
        if self.derived.is_empty() {
            return pointer.to_owned();
        }
        let within = |prefix: &str| pointer == prefix || pointer.starts_with(&format!("{prefix}/"));
        self.derived
            .iter()
            .filter(|(prefix, _)| within(prefix))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(prefix, origin)| format!("{origin}{}", &pointer[prefix.len()..]))
            .unwrap_or_default()
    }
}

/// Spec file extensions the loader reads; anything else in the folder is ignored.
const EXTENSIONS: &[&str] = &["json", "yaml", "yml"];

/// Reads every spec file under `dir` (recursively, in sorted order).
pub fn load_dir(dir: &Path) -> Result<Vec<Document>> {
    let mut files = Vec::new();
    collect_files(dir, &mut files)?;
    files.sort();
    if files.is_empty() {
        return Err(Error::in_file(dir, "no spec files (*.json, *.yaml, *.yml) in this folder"));
    }
    let label = label(dir);
    let mut documents = Vec::new();
    for file in files {
        let relative = file.strip_prefix(dir).unwrap_or(&file);
        let display_path = label.join(relative);
        let text = fs::read_to_string(&file).map_err(|e| Error::in_file(&display_path, format!("cannot read: {e}")))?;
        documents.extend(parse(&display_path, text)?);
    }
    Ok(documents)
}

/// The name errors and generated headers show for a specs folder: its own name, however
/// it was given (`specs`, `./specs/`, or `.` from inside it), so output does not depend
/// on the working directory.
pub(crate) fn label(dir: &Path) -> PathBuf {
    crate::package::absolute(dir)
        .ok()
        .and_then(|dir| dir.file_name().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("specs"))
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| Error::in_file(dir, format!("cannot read folder: {e}")))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::in_file(dir, e.to_string()))?.path();
        if path.is_dir() {
            collect_files(&path, files)?;
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            files.push(path);
        }
    }
    Ok(())
}

/// Parses one file's text; YAML files may hold several documents.
pub fn parse(display_path: &Path, text: String) -> Result<Vec<Document>> {
    let is_yaml = display_path.extension().is_some_and(|e| e != "json");
    let source: std::sync::Arc<str> = text.into();
    let values = if is_yaml {
        serde_saphyr::from_multiple::<Value>(&source).map_err(|e| {
            let message = e.to_string();
            let position = e.location().map(|l| (l.line() as usize, l.column() as usize));
            let message = match position {
                Some((line, column)) => without_position(first_line(&message), line, column),
                None => first_line(&message),
            };
            Error::in_file(display_path, format!("invalid YAML: {message}")).with_position(position)
        })?
    } else {
        let value = serde_json::from_str::<Value>(&source).map_err(|e| {
            let message = e.to_string();
            let message = without_position(&message, e.line(), e.column());
            Error::in_file(display_path, format!("invalid JSON: {message}")).with_position(Some((e.line(), e.column())))
        })?;
        vec![value]
    };
    Ok(values
        .into_iter()
        .enumerate()
        .filter(|(_, value)| !value.is_null())
        .map(|(index_in_file, value)| Document {
            display_path: display_path.to_path_buf(),
            index_in_file,
            source: source.clone(),
            value,
            derived: Vec::new(),
        })
        .collect())
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or(message)
}

/// A parser's message without the position it repeats, which the error shows in front:
/// serde_json ends with ` at line 3 column 18`; the YAML parser starts with
/// `error: line 3 column 12: ` or ends with ` at line 3, column 12`.
fn without_position(message: &str, line: usize, column: usize) -> &str {
    let message = message.strip_prefix("error: ").unwrap_or(message);
    let message = message.strip_prefix(&format!("line {line} column {column}: ")).unwrap_or(message);
    let message = message.strip_suffix(&format!(" at line {line} column {column}")).unwrap_or(message);
    message.strip_suffix(&format!(" at line {line}, column {column}")).unwrap_or(message)
}

/// Finds the 1-based line and column of the node at `pointer` in document `index` of `source`.
///
/// Only used on the error path: it reads the text again as YAML parser events, which carry
/// their positions (JSON is YAML), so the fast path stays a plain `serde_json` decode.
pub(crate) fn locate(source: &str, index: usize, pointer: &str) -> Option<(usize, usize)> {
    let mut events = Events::new(source);
    // Count documents as `parse` does: the value parser skips empty (null) documents.
    let mut seen = 0;
    let (mut node, mut span) = loop {
        match events.next()?.0 {
            Event::DocumentStart(..) => {
                let root = events.next()?;
                let empty = matches!(&root.0, Event::Scalar(text, ScalarStyle::Plain, ..)
                    if matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL"));
                if !empty {
                    if seen == index {
                        break root;
                    }
                    seen += 1;
                }
                events.skip(&root.0)?;
            }
            Event::StreamEnd => return None,
            _ => {}
        }
    };
    // The key naming the current node, if it is a mapping value.
    let mut key = None;
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        match node {
            Event::MappingStart(..) => loop {
                let (entry_key, key_span) = events.next()?;
                let (value, value_span) = events.next()?;
                if matches!(&entry_key, Event::Scalar(text, ..) if *text == segment) {
                    (node, span, key) = (value, value_span, Some(key_span));
                    break;
                }
                events.skip(&entry_key)?;
                events.skip(&value)?;
            },
            Event::SequenceStart(..) => {
                for _ in 0..segment.parse::<usize>().ok()? {
                    let (item, _) = events.next()?;
                    events.skip(&item)?;
                }
                (node, span) = events.next()?;
                key = None;
            }
            _ => return None,
        }
        if matches!(node, Event::MappingEnd | Event::SequenceEnd) {
            return None;
        }
    }
    // A block mapping or list starts at its first entry, on the line after its key (or
    // further down, after comments); the key is where a reader looks for the node.
    let start = match (&node, key) {
        (Event::MappingStart(..) | Event::SequenceStart(..), Some(key)) => key.start,
        _ => span.start,
    };
    Some((start.line(), start.col() + 1))
}

/// The events of a YAML text with their spans, ending at the first syntax error.
struct Events<'a>(Parser<'a, StrInput<'a>>);

impl<'a> Events<'a> {
    fn new(source: &'a str) -> Self {
        let mut options = Options::default();
        options.set_emit_comments(false);
        Events(Parser::new_from_str_with_options(source, options))
    }

    fn next(&mut self) -> Option<(Event<'a>, Span)> {
        self.0.next()?.ok()
    }

    /// Reads past the rest of the node that `first` starts.
    fn skip(&mut self, first: &Event) -> Option<()> {
        let mut depth = usize::from(matches!(first, Event::MappingStart(..) | Event::SequenceStart(..)));
        while depth > 0 {
            match self.next()?.0 {
                Event::MappingStart(..) | Event::SequenceStart(..) => depth += 1,
                Event::MappingEnd | Event::SequenceEnd => depth -= 1,
                _ => {}
            }
        }
        Some(())
    }
}

/// Builds a JSON pointer from segments.
pub fn pointer(segments: &[&str]) -> String {
    segments.iter().map(|s| format!("/{}", escape_pointer_segment(s))).collect()
}
