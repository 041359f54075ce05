//! How lists and maps of an object merge and are owned: the values of the Kubernetes
//! schema extensions `x-kubernetes-list-type` (with `-list-map-keys`),
//! `x-kubernetes-map-type` and `x-kubernetes-patch-strategy`, and the patch formats a
//! PATCH request may use ([`PatchType`]), and the query options of JSON-level servers
//! ([`DYNAMIC_OPTIONS`]). The generator reads specs into these, and servers merge patches
//! by them.

use std::fmt;

/// `x-kubernetes-list-type`, with `x-kubernetes-list-map-keys` for maps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ListType {
    /// The list is one value: replaced as a whole, owned as a whole.
    Atomic,
    /// Scalars without duplicates, merged as a union.
    Set,
    /// Objects identified by the values of these fields.
    Map(Vec<String>),
}

impl ListType {
    /// The list type named `name` (`atomic`, `set` or `map`, the last with its keys).
    pub fn parse(name: &str, map_keys: Vec<String>) -> Result<ListType, String> {
        match name {
            "atomic" => Ok(ListType::Atomic),
            "set" => Ok(ListType::Set),
            "map" => Ok(ListType::Map(map_keys)),
            other => Err(format!("unsupported list type {other:?}; expected atomic, set or map")),
        }
    }
}

/// `x-kubernetes-map-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapType {
    /// The object is one value: replaced and owned as a whole.
    Atomic,
    /// Each key is merged and owned on its own (the default).
    Granular,
}

impl MapType {
    /// The map type named `name` (`atomic` or `granular`).
    pub fn parse(name: &str) -> Result<MapType, String> {
        match name {
            "atomic" => Ok(MapType::Atomic),
            "granular" => Ok(MapType::Granular),
            other => Err(format!("unsupported map type {other:?}; expected atomic or granular")),
        }
    }
}

/// One entry of `x-kubernetes-patch-strategy` (a comma-separated list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PatchStrategy {
    /// A strategic merge patch merges the list (by the patch merge key, if any).
    Merge,
    /// A strategic merge patch replaces the value.
    Replace,
    /// A strategic merge patch drops the keys the patch does not name (unions).
    RetainKeys,
}

impl PatchStrategy {
    /// The strategies of a comma-separated list such as `merge,retainKeys`.
    pub fn parse_list(list: &str) -> Result<Vec<PatchStrategy>, String> {
        list.split(',')
            .map(str::trim)
            .map(|name| match name {
                "merge" => Ok(PatchStrategy::Merge),
                "replace" => Ok(PatchStrategy::Replace),
                "retainKeys" => Ok(PatchStrategy::RetainKeys),
                other => Err(format!("unsupported patch strategy {other:?}; expected merge, replace or retainKeys")),
            })
            .collect()
    }
}

impl fmt::Display for PatchStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PatchStrategy::Merge => "merge",
            PatchStrategy::Replace => "replace",
            PatchStrategy::RetainKeys => "retainKeys",
        })
    }
}

/// The patch formats of the API server, by Content-Type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PatchType {
    /// RFC 6902 JSON Patch, `application/json-patch+json`.
    Json,
    /// RFC 7386 JSON Merge Patch, `application/merge-patch+json`.
    Merge,
    /// Kubernetes' strategic merge patch, `application/strategic-merge-patch+json`.
    StrategicMerge,
    /// Server-side apply, `application/apply-patch+yaml` (the body may be JSON).
    Apply,
}

impl PatchType {
    /// All of them, in the order the API server lists them.
    pub const ALL: &'static [PatchType] =
        &[PatchType::Json, PatchType::Merge, PatchType::StrategicMerge, PatchType::Apply];

    /// The Content-Type a PATCH request of this type is sent with.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Json => "application/json-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::StrategicMerge => "application/strategic-merge-patch+json",
            PatchType::Apply => "application/apply-patch+yaml",
        }
    }

    /// The patch type of a Content-Type value (parameters such as `charset` ignored).
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        let media_type = content_type.split(';').next().unwrap_or("").trim();
        PatchType::ALL.iter().copied().find(|t| t.content_type().eq_ignore_ascii_case(media_type))
    }
}

/// The query parameters a JSON-level server reads (`dynamic::Options`, with the `server`
/// feature), by wire name and field: generated parameter types convert into it.
pub const DYNAMIC_OPTIONS: &[(&str, &str)] = &[
    ("labelSelector", "label_selector"),
    ("fieldSelector", "field_selector"),
    ("limit", "limit"),
    ("continue", "continue_"),
    ("resourceVersion", "resource_version"),
    ("resourceVersionMatch", "resource_version_match"),
    ("watch", "watch"),
    ("allowWatchBookmarks", "allow_watch_bookmarks"),
    ("sendInitialEvents", "send_initial_events"),
    ("timeoutSeconds", "timeout_seconds"),
    ("force", "force"),
    ("gracePeriodSeconds", "grace_period_seconds"),
    ("propagationPolicy", "propagation_policy"),
    ("orphanDependents", "orphan_dependents"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_are_errors() {
        assert_eq!(ListType::parse("map", vec!["name".into()]), Ok(ListType::Map(vec!["name".into()])));
        assert_eq!(
            ListType::parse("sets", Vec::new()),
            Err("unsupported list type \"sets\"; expected atomic, set or map".to_owned())
        );
        assert_eq!(MapType::parse("atomic"), Ok(MapType::Atomic));
        assert!(MapType::parse("Atomic").is_err());
        assert_eq!(
            PatchStrategy::parse_list("merge,retainKeys"),
            Ok(vec![PatchStrategy::Merge, PatchStrategy::RetainKeys])
        );
        assert_eq!(
            PatchStrategy::parse_list("merge,keep"),
            Err("unsupported patch strategy \"keep\"; expected merge, replace or retainKeys".to_owned())
        );
    }
}
