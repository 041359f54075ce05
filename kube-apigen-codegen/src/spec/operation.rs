//! Operations as typed values: method, path, Kubernetes action and kind, parameters,
//! request body and responses.

use std::collections::BTreeMap;

use super::Loc;
use super::k8s::Gvk;
use super::schema::Schema;

#[derive(Clone, Debug)]
pub struct Operation {
    pub loc: Loc,
    pub method: HttpMethod,
    /// The path as in the spec, which is also axum 0.8's syntax (`/x/{name}`).
    pub path: String,
    /// `x-kubernetes-action`.
    pub action: Option<Action>,
    /// `x-kubernetes-group-version-kind`.
    pub gvk: Option<Gvk>,
    /// Path and query parameters: the path's, overridden by the operation's own.
    pub parameters: Vec<Parameter>,
    pub request_body: Option<RequestBody>,
    /// Status code → response body schema (`None` for responses without a body).
    /// `default` responses carry no status and are left out.
    pub responses: BTreeMap<u16, Option<Schema>>,
    pub description: Option<String>,
}

/// The HTTP method of an operation: its key in the path item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HttpMethod {
    /// `get`.
    Get,
    /// `put`.
    Put,
    /// `post`.
    Post,
    /// `delete`.
    Delete,
    /// `options`.
    Options,
    /// `head`.
    Head,
    /// `patch`.
    Patch,
    /// `trace`.
    Trace,
}

impl HttpMethod {
    /// Every method, by its name in a path item.
    pub const ALL: &[(&str, HttpMethod)] = &[
        ("get", HttpMethod::Get),
        ("put", HttpMethod::Put),
        ("post", HttpMethod::Post),
        ("delete", HttpMethod::Delete),
        ("options", HttpMethod::Options),
        ("head", HttpMethod::Head),
        ("patch", HttpMethod::Patch),
        ("trace", HttpMethod::Trace),
    ];

    /// The lower-case name, as in a path item and in axum's routing functions.
    pub fn name(self) -> &'static str {
        HttpMethod::ALL.iter().find(|(_, method)| *method == self).map(|(name, _)| *name).expect("listed")
    }
}

/// `x-kubernetes-action`: what the operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Get,
    List,
    Watch,
    WatchList,
    Post,
    Put,
    Patch,
    Delete,
    DeleteCollection,
    Connect,
}

impl Action {
    /// Every action, by its name.
    pub const ALL: &[(&str, Action)] = &[
        ("get", Action::Get),
        ("list", Action::List),
        ("watch", Action::Watch),
        ("watchlist", Action::WatchList),
        ("post", Action::Post),
        ("put", Action::Put),
        ("patch", Action::Patch),
        ("delete", Action::Delete),
        ("deletecollection", Action::DeleteCollection),
        ("connect", Action::Connect),
    ];
}

#[derive(Clone, Debug)]
pub struct Parameter {
    pub name: String,
    pub location: ParameterLocation,
    /// The parameter's schema (an empty one when it states none).
    pub schema: Schema,
    pub description: Option<String>,
}

/// Where a parameter is. Header parameters are read and checked, but not kept: no
/// Kubernetes operation has one, and servers see headers in the request context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParameterLocation {
    Path,
    Query,
}

#[derive(Clone, Debug)]
pub struct RequestBody {
    /// The media types of `content`, in the document's order.
    pub content_types: Vec<String>,
    /// The schema of the first media type that has one.
    pub schema: Option<Schema>,
}
