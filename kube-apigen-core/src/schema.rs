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

/// Calls `$callback!` with the query parameters a JSON-level server reads, each as
/// `"wireName" field: Type, "doc";`: the one list [`DYNAMIC_OPTIONS`] and the server
/// layer's `dynamic::Options` are both made from.
#[doc(hidden)]
#[macro_export]
macro_rules! with_dynamic_options {
    ($callback:ident) => {
        $callback! {
            "labelSelector" label_selector: String, "`labelSelector`: only the objects whose labels match.";
            "fieldSelector" field_selector: String, "`fieldSelector`: only the objects whose fields match, e.g. `metadata.name=web`.";
            "limit" limit: i64, "`limit`: the most items a page of a list may hold.";
            "continue" continue_: String, "`continue`: the token of the next page, from the last page's `metadata.continue`.";
            "resourceVersion" resource_version: String, "`resourceVersion`: the version to read at or to watch from.";
            "resourceVersionMatch" resource_version_match: String, "`resourceVersionMatch`: how a list reads `resourceVersion`, `Exact` or `NotOlderThan`.";
            "watch" watch: bool, "`watch`: stream the changes instead of listing.";
            "allowWatchBookmarks" allow_watch_bookmarks: bool, "`allowWatchBookmarks`: the watch may send `BOOKMARK` events.";
            "sendInitialEvents" send_initial_events: bool, "`sendInitialEvents`: the watch starts with an `ADDED` event per current object, then a bookmark.";
            "timeoutSeconds" timeout_seconds: i64, "`timeoutSeconds`: how long a list or watch may last.";
            "force" force: bool, "`force`: a server-side apply takes over fields that other managers own.";
            "gracePeriodSeconds" grace_period_seconds: i64, "`gracePeriodSeconds`: how long a deleted object may take to go; 0 for at once.";
            "propagationPolicy" propagation_policy: String, "`propagationPolicy`: what becomes of dependents on delete: `Orphan`, `Background` or `Foreground`.";
            "orphanDependents" orphan_dependents: bool, "`orphanDependents`: whether dependents are orphaned on delete; superseded by `propagationPolicy`.";
        }
    };
}

macro_rules! option_names {
    ($($wire:literal $field:ident: $ty:ty, $doc:literal;)*) => {
        /// The query parameters a JSON-level server reads (`dynamic::Options`, with the
        /// `server` feature), by wire name and field: generated parameter types convert
        /// into it.
        pub const DYNAMIC_OPTIONS: &[(&str, &str)] = &[$(($wire, stringify!($field))),*];
    };
}

with_dynamic_options!(option_names);

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
