//! A rule's `fieldPath`: parsed as Kubernetes parses it, rendered as its `field.Path`.

/// The parts of a `fieldPath`: `.name` steps into a field, `['key']` into a map entry (or
/// a field whose name is no identifier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldPathSegment {
    /// `.name`: the field of that name.
    Field(String),
    /// `['key']`: the map entry of that key, unescaped.
    Key(String),
}

/// Parses a rule's `fieldPath` as Kubernetes does (`ValidFieldPath`, without the schema):
/// a sequence of `.name` and `['quoted key']`, the key with `\\`, `\'` and the C escapes.
///
/// Errors are reported at the node's path plus the rendered field path, as Kubernetes
/// does: `.spec.replicas` gives `<node>.spec.replicas`, `.labels['app']` gives
/// `<node>.labels[app]`. Without the schema, `['x']` always renders as a map key
/// (`[x]`); Kubernetes renders it as a field (`.x`) when the object has `properties`, so
/// the generator should rewrite such steps to `.x` (it knows the schema, and should also
/// check that each step names a field, as Kubernetes does when a CRD is created).
pub fn parse_field_path(path: &str) -> Result<Vec<FieldPathSegment>, String> {
    let mut segments = Vec::new();
    let mut rest = path;
    while let Some(c) = rest.chars().next() {
        match c {
            '.' => {
                let name_end = rest[1..].find(['.', '[', ']']).map_or(rest.len(), |i| i + 1);
                let name = &rest[1..name_end];
                if name.is_empty() {
                    return Err("unexpected end of JSON path".to_owned());
                }
                segments.push(FieldPathSegment::Field(name.to_owned()));
                rest = &rest[name_end..];
            }
            '[' => {
                let quoted = &rest[1..];
                if !quoted.starts_with('\'') {
                    let token_end = quoted.find(['.', '[', ']']).unwrap_or(quoted.len());
                    return Err(format!("expected single quoted string but got {}", &quoted[..token_end]));
                }
                let (key, after) = unquote(&quoted[1..])?;
                if !after.starts_with(']') {
                    return Err(match after.chars().next() {
                        None => "unexpected end of JSON path".to_owned(),
                        Some(c) => format!("expected ] but got {c}"),
                    });
                }
                segments.push(FieldPathSegment::Key(key));
                rest = &after[1..];
            }
            _ => {
                let token_end = rest.find(['.', '[', ']']).unwrap_or(rest.len()).max(1);
                return Err(format!("expected [ or . but got: {}", &rest[..token_end]));
            }
        }
    }
    Ok(segments)
}

/// The body of a single-quoted string up to its closing quote, unescaped, and what follows.
fn unquote(s: &str) -> Result<(String, &str), String> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Ok((out, &s[i + 1..])),
            '\\' => {
                let escaped = match chars.next().map(|(_, c)| c) {
                    Some('a') => '\u{7}',
                    Some('b') => '\u{8}',
                    Some('f') => '\u{c}',
                    Some('n') => '\n',
                    Some('r') => '\r',
                    Some('t') => '\t',
                    Some('v') => '\u{b}',
                    Some('\'') => '\'',
                    Some('\\') => '\\',
                    Some(other) => {
                        return Err(format!("invalid string literal: invalid escape char \\{other}"));
                    }
                    None => return Err("unexpected end of JSON path".to_owned()),
                };
                out.push(escaped);
            }
            c => out.push(c),
        }
    }
    Err("unexpected end of JSON path".to_owned())
}

/// A `fieldPath` as Kubernetes' `field.Path` renders it below the node:
/// `.spec.labels['app']` gives `spec.labels[app]`.
pub(super) fn render(path: &str) -> Result<String, String> {
    let mut out = String::new();
    for segment in parse_field_path(path)? {
        match segment {
            FieldPathSegment::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&name);
            }
            FieldPathSegment::Key(key) => {
                out.push('[');
                out.push_str(&key);
                out.push(']');
            }
        }
    }
    Ok(out)
}
