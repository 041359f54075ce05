//! `Warning` response headers, recorded the way the API server's warning recorder does.

use axum::http::{HeaderMap, HeaderValue, header};

/// Total size of all `Warning` headers before they are truncated, as in the API server.
const TOTAL_LIMIT: usize = 4 * 1024;
/// Length, in characters, each warning is cut to once the total is exceeded.
const TRUNCATE_LENGTH: usize = 256;

/// The warnings of one request: deduplicated, in the order they were added.
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    texts: Vec<String>,
}

impl Warnings {
    pub(crate) fn add(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.texts.contains(&text) {
            self.texts.push(text);
        }
    }

    /// Appends one `Warning: 299 - "<text>"` header per warning. When they would exceed
    /// 4 KiB in total, each is cut to 256 characters instead, as the API server does.
    pub(crate) fn write(&self, headers: &mut HeaderMap) {
        if self.texts.is_empty() {
            return;
        }
        let full: Vec<String> = self.texts.iter().map(|text| header_value(text)).collect();
        let total: usize = full.iter().map(String::len).sum();
        let values = if total <= TOTAL_LIMIT {
            full
        } else {
            self.texts
                .iter()
                .map(|text| header_value(&text.chars().take(TRUNCATE_LENGTH).collect::<String>()))
                .collect()
        };
        for value in values {
            if let Ok(value) = HeaderValue::from_bytes(value.as_bytes()) {
                headers.append(header::WARNING, value);
            }
        }
    }
}

/// `299 - "<text>"`, with `"` and `\` escaped as apimachinery's `NewWarningHeader` does.
/// Control characters, which no header value may carry, become spaces (what Go's HTTP
/// server does to newlines in header values).
pub(crate) fn header_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str("299 - \"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_quotes() {
        assert_eq!(header_value(r#"unknown field "spec.foo""#), r#"299 - "unknown field \"spec.foo\"""#);
    }

    #[test]
    fn dedups_and_truncates() {
        let mut w = Warnings::default();
        w.add("a");
        w.add("a");
        w.add("b");
        let mut headers = HeaderMap::new();
        w.write(&mut headers);
        assert_eq!(headers.get_all(header::WARNING).iter().count(), 2);

        let mut w = Warnings::default();
        for i in 0..10 {
            w.add(format!("{i}{}", "x".repeat(1000)));
        }
        let mut headers = HeaderMap::new();
        w.write(&mut headers);
        let values: Vec<_> = headers.get_all(header::WARNING).iter().collect();
        assert_eq!(values.len(), 10);
        assert!(values.iter().all(|v| v.len() == 256 + 8));
    }
}
