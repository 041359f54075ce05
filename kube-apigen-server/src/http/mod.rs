//! HTTP handling for generated routers: everything between an axum request and a typed
//! call into a server's trait implementation.
//!
//! Generated handlers are thin: they extract the state and the path parameters, and hand
//! the request to [`serve`] with a closure that decodes the query ([`Call::query`]),
//! checks the options ([`Call::check_options`]), decodes and validates the body
//! ([`Call::body`], [`Call::validate`]), calls the server and encodes its answer
//! ([`Call::reply`], [`Call::watch`]). [`serve`] does the rest the way the Kubernetes API
//! server does it: authentication (401), authorization (403, [`Authorizer`]), output negotiation (406), the body size limit
//! (413), `Status` bodies for every error (JSON or YAML), `Warning` headers, and a 500
//! `Status` instead of a dropped connection when a handler panics. Around every route,
//! [`drain_unread_body`] reads what a handler left of a body, so that the connection
//! carries the next request.
//!
//! ```ignore
//! fn create_namespaced_horizontal_pod_autoscaler<S: HorizontalPodAutoscalerApi>(
//!     State(state): State<kube_apigen::http::ApiState<S>>,
//!     PathParams(path): PathParams<NamespacePath>,
//!     request: Request,
//! ) -> impl Future<Output = Response> + Send {
//!     kube_apigen::http::serve(request, &state.config, &HORIZONTAL_POD_AUTOSCALER, async move |mut call| {
//!         let params = CreateParams::from_query(call.query())?;
//!         call.check_options("CreateOptions", params.validate())?;
//!         let body: HorizontalPodAutoscaler = call.body()?;
//!         call.validate(&body, None)?;
//!         match state.api.create(call.context(), path, params, body).await? {
//!             OkCreatedOrAccepted::Ok(value) => call.reply(StatusCode::OK, &value),
//!             OkCreatedOrAccepted::Created(value) => call.reply(StatusCode::CREATED, &value),
//!             OkCreatedOrAccepted::Accepted(value) => call.reply(StatusCode::ACCEPTED, &value),
//!         }
//!     })
//! }
//! ```

pub(crate) mod accept;
mod authz;
mod call;
mod decode;
mod drain;
mod errors;
mod impersonate;
mod negotiate;
mod patch;
mod protobuf;
mod query;
mod table;
mod warning;
pub mod watch;
mod yaml;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::http::{Extensions, HeaderMap};

use kube_apigen_core::{ResourceInfo, Status};

pub use authz::{
    Admitted, AlwaysAllow, Attributes, Authorization, Authorizer, Chain, Decision, NonResourceRule, ResourceRule,
    Rules, admit, forbidden, guard,
};
pub use axum::http::StatusCode;
pub use call::{Call, Reply, serve};
pub use drain::{MAX_DRAINED_BYTES, drain_unread_body};
pub use errors::{PathParams, status_errors};
pub use kube_apigen_core::schema::PatchType;
pub use patch::Patch;
pub use query::{Query, parse_bool, parse_int};
pub use table::{AGE, TableConvertor};
pub use yaml::documents as yaml_documents;

/// The state every generated router carries: the server's implementation and the HTTP
/// configuration. Cloning it clones two `Arc`s, whatever `S` is.
pub struct ApiState<S> {
    /// The server's implementation of the generated traits.
    pub api: Arc<S>,
    /// How requests are handled.
    pub config: Arc<Config>,
}

impl<S> ApiState<S> {
    /// `api` with the default [`Config`] (anonymous access, 3 MiB bodies).
    pub fn new(api: S) -> Self {
        ApiState { api: Arc::new(api), config: Arc::new(Config::default()) }
    }

    /// `api` with the given configuration.
    pub fn with_config(api: S, config: Config) -> Self {
        ApiState { api: Arc::new(api), config: Arc::new(config) }
    }
}

impl<S> Clone for ApiState<S> {
    fn clone(&self) -> Self {
        ApiState { api: Arc::clone(&self.api), config: Arc::clone(&self.config) }
    }
}

impl<S> std::fmt::Debug for ApiState<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiState").field("config", &self.config).finish_non_exhaustive()
    }
}

/// The API server's default limit on a request body it decodes: 3 MiB
/// (`--max-resource-write-bytes`, `MaxRequestBodyBytes = 3 * 1024 * 1024`).
pub const DEFAULT_MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// How [`serve`] treats requests.
#[derive(Clone)]
pub struct Config {
    /// Largest request body accepted; larger ones are answered 413 `RequestEntityTooLarge`
    /// `Request entity too large: limit is <max_body_bytes>`.
    pub max_body_bytes: usize,
    /// Who is calling. The default, [`Anonymous`], lets everyone in.
    pub authenticator: Arc<dyn Authenticator>,
    /// What the caller may do. The default, [`AlwaysAllow`], allows everything.
    pub authorizer: Arc<dyn Authorizer>,
    /// Resources whose `Table`s need code, by (group, plural); the others print the
    /// columns of their spec.
    pub tables: BTreeMap<(&'static str, &'static str), Arc<dyn TableConvertor>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            authenticator: Arc::new(Anonymous),
            authorizer: Arc::new(AlwaysAllow),
            tables: BTreeMap::new(),
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config").field("max_body_bytes", &self.max_body_bytes).finish_non_exhaustive()
    }
}

/// Decides who sent a request, from its headers and what its connection knows.
///
/// `Ok(None)` lets the request in anonymously, `Ok(Some(user))` as `user`; `Err(status)`
/// answers it with `status`. The API server answers every failed authentication with
/// [`authentication_failed`] (401, message `Unauthorized`), whatever went wrong, so as not
/// to tell an attacker which part was wrong.
pub trait Authenticator: Send + Sync + 'static {
    /// The user the request names, `None` for anonymous, or the answer to a failure.
    /// `extensions` are the request's: what the server put there about the connection
    /// (its TLS client certificates, as `axum::extract::ConnectInfo`) is read from them.
    fn authenticate(&self, headers: &HeaderMap, extensions: &Extensions) -> Result<Option<UserInfo>, Status>;
}

/// Lets everyone in, anonymously: every caller is an anonymous administrator.
#[derive(Clone, Copy, Debug, Default)]
pub struct Anonymous;

impl Authenticator for Anonymous {
    fn authenticate(&self, _headers: &HeaderMap, _extensions: &Extensions) -> Result<Option<UserInfo>, Status> {
        Ok(None)
    }
}

/// Several authenticators, asked in order as kube-apiserver's union of them: the first
/// that names a user decides. `Ok(None)` from one means it found no credentials of its
/// kind, and the next is asked; when none names a user, the first failure answers the
/// request, and without one it is anonymous. A client certificate from an unknown CA
/// beside a good token is thus the token's user.
pub struct Union(pub Vec<Arc<dyn Authenticator>>);

impl Authenticator for Union {
    fn authenticate(&self, headers: &HeaderMap, extensions: &Extensions) -> Result<Option<UserInfo>, Status> {
        let mut failure = None;
        for authenticator in &self.0 {
            match authenticator.authenticate(headers, extensions) {
                Ok(Some(user)) => return Ok(Some(user)),
                Ok(None) => {}
                Err(status) => {
                    failure.get_or_insert(status);
                }
            }
        }
        failure.map_or(Ok(None), Err)
    }
}

/// What the API server answers when authentication fails: 401 `Unauthorized` with the
/// message `Unauthorized`.
pub fn authentication_failed() -> Status {
    Status::unauthorized("Unauthorized")
}

/// An authenticated user, as Kubernetes' `user.Info` describes one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    /// The user's name, e.g. `alice` or `system:anonymous`.
    pub username: String,
    /// The user's unique ID; may be empty.
    pub uid: String,
    /// The groups the user belongs to, e.g. `system:authenticated`.
    pub groups: Vec<String>,
    /// Further attributes of the user, by name.
    pub extra: BTreeMap<String, Vec<String>>,
}

/// How to treat unknown and duplicate fields in a request body: the `fieldValidation`
/// query parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them and say so in a `Warning: 299 - "unknown field \"spec.foo\""` header
    /// each. The API server's default when the parameter is absent or empty.
    #[default]
    Warn,
    /// Answer 400 `BadRequest` `... strict decoding error: unknown field "spec.foo"`.
    Strict,
}

impl FieldValidation {
    /// The values the API server accepts for `fieldValidation`, in the order its
    /// `NotSupported` error lists them: `"", "Ignore", "Strict", "Warn"`. Generated option
    /// validation uses them; any other value is a 422 before a body is decoded.
    pub const SUPPORTED: &'static [&'static str] = &["", "Ignore", "Strict", "Warn"];

    /// The directive for the parameter's value: absent or empty is [`FieldValidation::Warn`]
    /// (the API server's `fieldValidation("")`); the three names are case-sensitive. An
    /// unsupported value, which option validation rejects first, is treated as
    /// [`FieldValidation::Strict`] so that nothing is silently dropped.
    pub fn from_param(value: Option<&str>) -> Self {
        match value {
            None | Some("") | Some("Warn") => FieldValidation::Warn,
            Some("Ignore") => FieldValidation::Ignore,
            Some(_) => FieldValidation::Strict,
        }
    }

    /// The parameter value naming this directive.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldValidation::Ignore => "Ignore",
            FieldValidation::Warn => "Warn",
            FieldValidation::Strict => "Strict",
        }
    }
}

/// What a server's trait methods learn about a request besides its typed parameters.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The authenticated user; `None` for anonymous requests.
    pub user: Option<UserInfo>,
    /// `dryRun=All`: validate and answer as usual, but persist nothing.
    pub dry_run: bool,
    /// The `fieldManager` query parameter.
    pub field_manager: Option<String>,
    /// The `fieldValidation` directive ([`FieldValidation::from_param`]).
    pub field_validation: FieldValidation,
    /// All request headers, shared with the request being handled.
    pub headers: Arc<HeaderMap>,
}

/// The Status a default trait method answers for an operation the server does not
/// implement: 405 `MethodNotAllowed` `<verb> is not supported on resources of kind
/// "<plural>.<group>"`, as the API server's `NewMethodNotSupported`. `verb` is the
/// API server's name for it: `create`, `get`, `list`, `update`, `patch`, `delete`,
/// `deletecollection`, `watch`.
pub fn not_implemented(resource: &ResourceInfo, verb: &str) -> Status {
    Status::method_not_allowed(resource.group, resource.plural, verb)
}
