//! The identity of an API resource, shared by servers, discovery and clients.

/// Whether objects of a resource live in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// Implemented by every generated type that is a top-level resource of its API.
pub trait Resource {
    /// API group; empty for the core group.
    const GROUP: &'static str;
    const VERSION: &'static str;
    /// `group/version`, or just `version` for the core group.
    const API_VERSION: &'static str;
    const KIND: &'static str;
    /// The lower-case plural used in URL paths.
    const PLURAL: &'static str;
    const SCOPE: Scope;
    /// Kind of the list type returned by list operations.
    const LIST_KIND: &'static str;
}
