//! Kubernetes resource paths taken apart.

/// `/apis/{group}/{version}[/watch][/namespaces/{namespace}]/{plural}[/{name}[/{sub}]]`
/// (or `/api/{version}/...` for the core group).
pub struct ParsedPath<'p> {
    pub group: &'p str,
    pub version: &'p str,
    /// A deprecated `/watch/` path.
    pub watch: bool,
    pub namespaced: bool,
    pub plural: &'p str,
    /// An object's path (with `{name}`), not a collection's.
    pub item: bool,
    pub subresource: Option<&'p str>,
}

pub fn parse_path(path: &str) -> Option<ParsedPath<'_>> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, mut rest) = match segments.as_slice() {
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        ["api", version, rest @ ..] => ("", *version, rest),
        _ => return None,
    };
    let watch = rest.first() == Some(&"watch");
    if watch {
        rest = &rest[1..];
    }
    let namespaced = rest.len() >= 2 && rest[0] == "namespaces" && rest[1] == "{namespace}";
    if namespaced {
        rest = &rest[2..];
    }
    let parsed =
        |plural, item, subresource| ParsedPath { group, version, watch, namespaced, plural, item, subresource };
    match rest {
        [plural] => Some(parsed(plural, false, None)),
        [plural, "{name}"] => Some(parsed(plural, true, None)),
        [plural, "{name}", sub] => Some(parsed(plural, true, Some(sub))),
        _ => None,
    }
}
