//! Errors that point at the spec text that caused them.

use std::fmt;
use std::path::PathBuf;

/// A problem in the input specs or while writing the output.
///
/// Spec problems name the file, the JSON pointer inside it and, where known,
/// the line and column, so that a user can jump straight to the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The spec file (as given on the command line), or the output path for write errors.
    pub file: Option<PathBuf>,
    /// JSON pointer of the offending node, e.g. `/components/schemas/Foo/properties/bar`.
    pub pointer: Option<String>,
    /// 1-based line and column.
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl Error {
    /// An error that names no file.
    pub fn new(message: impl Into<String>) -> Self {
        Error { file: None, pointer: None, position: None, message: message.into() }
    }

    /// An error in `file`.
    pub fn in_file(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error { file: Some(file.into()), ..Error::new(message) }
    }

    /// The error at the node `pointer` of its file.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// The error at a line and column of its file, when they are known.
    pub fn with_position(mut self, position: Option<(usize, usize)>) -> Self {
        self.position = position;
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some((line, column)) = self.position {
                write!(f, ":{line}:{column}")?;
            }
            f.write_str(": ")?;
        }
        if let Some(pointer) = &self.pointer {
            write!(f, "at {}: ", if pointer.is_empty() { "/" } else { pointer })?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A result whose error is an [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Escapes one JSON-pointer segment (RFC 6901).
pub fn escape_pointer_segment(segment: &str) -> String {
    let mut escaped = String::with_capacity(segment.len());
    push_pointer_segment(&mut escaped, segment);
    escaped
}

/// Appends one JSON-pointer segment, escaped, to `pointer`.
pub fn push_pointer_segment(pointer: &mut String, segment: &str) {
    if !segment.contains(['~', '/']) {
        pointer.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_segments_escape_tilde_then_slash() {
        assert_eq!(escape_pointer_segment("spec"), "spec");
        assert_eq!(escape_pointer_segment("a/b~c"), "a~1b~0c");
        // `~1` in a name is not a slash: the tilde is escaped, the `1` kept.
        assert_eq!(escape_pointer_segment("~1"), "~01");
        let mut pointer = "/paths".to_owned();
        push_pointer_segment(&mut pointer, "/apis/{name}");
        assert_eq!(pointer, "/paths~1apis~1{name}");
    }
}
