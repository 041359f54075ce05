//! A generic, JSON-level implementation path for generated resource traits.
//!
//! Every generated resource trait is implemented for [`Dynamic<S>`] whenever `S`
//! implements [`DynamicApi`]: the typed call is turned into one [`Request`] (verb,
//! resource, namespace, name, options, JSON body) and the JSON answer decoded back into
//! the typed result. A server written against [`DynamicApi`] — such as a storage-backed
//! reference server — serves every resource of the specs, including ones added later,
//! without code per resource.

use std::future::Future;

use futures::StreamExt;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::Value;

use axum::Router;

use crate::discovery::ApiCatalog;
use crate::http::watch::{Event, WatchStream};
use crate::http::{Config, Context, Patch};
use kube_apigen_core::ResourceInfo;
use kube_apigen_core::Status;

pub use kube_apigen_core::Verb;

macro_rules! options {
    ($($wire:literal $field:ident: $ty:ty, $doc:literal;)*) => {
        /// The query options a JSON-level server reads
        /// ([`kube_apigen_core::schema::DYNAMIC_OPTIONS`], made from the same list); an
        /// operation sets the ones its spec lists (generated parameter types convert into
        /// it). `dryRun`, `fieldManager` and `fieldValidation` are in the request's
        /// [`Context`], decoded once.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct Options {
            $(
                #[doc = $doc]
                #[serde(rename = $wire)]
                pub $field: Option<$ty>,
            )*
        }
    };
}

kube_apigen_core::with_dynamic_options!(options);

/// One operation on one resource, at the JSON level.
#[derive(Debug)]
pub struct Request {
    /// What the request does.
    pub verb: Verb,
    /// The resource it addresses.
    pub resource: &'static ResourceInfo,
    /// `status`, `approval`, `scale`, ...
    pub subresource: Option<&'static str>,
    /// `None` for cluster-scoped resources and for lists and watches across namespaces.
    pub namespace: Option<String>,
    /// The object's name, from the path; `None` for operations on a collection.
    pub name: Option<String>,
    /// The query options the operation takes.
    pub options: Options,
    /// The object for create and update, the `DeleteOptions` for deletes.
    pub body: Option<Value>,
    /// The decoded patch, for patches.
    pub patch: Option<Patch>,
}

/// The answer to a [`Request`].
pub enum Response {
    /// A status code and a JSON body: an object, a list or a `Status`.
    Object {
        /// The HTTP status code, e.g. 200 or 201.
        code: u16,
        /// The JSON body.
        body: Value,
    },
    /// The events of a watch.
    Watch(WatchStream<Value>),
}

/// A server that handles every operation of every resource at the JSON level.
pub trait DynamicApi: Send + Sync + 'static {
    /// Handles one request; an `Err` is answered with the `Status` it holds.
    fn handle(&self, context: Context, request: Request) -> impl Future<Output = Result<Response, Status>> + Send;
}

/// Implements every generated resource trait for a [`DynamicApi`].
pub struct Dynamic<S>(pub S);

/// A generated crate's API, as a JSON-level server `S` serves it: what is served, the
/// typed check of each kind, and the crate's router over `S`. Generated crates make one
/// with `server::api()` (feature `dynamic`); servers that take any generated crate, such
/// as a registry, take this.
pub struct ServedApi<S> {
    /// Every group-version with its resources and OpenAPI document, and `/version`.
    pub catalog: &'static ApiCatalog,
    /// The typed check of every kind, by group, version and kind.
    pub typed_checks: &'static [(&'static str, &'static str, &'static str, TypedCheck)],
    /// Every path of every resource, discovery and the OpenAPI documents, served by `S`.
    pub router: fn(Dynamic<S>, Config) -> Router,
}

impl<S> Clone for ServedApi<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for ServedApi<S> {}

impl<S> std::fmt::Debug for ServedApi<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedApi").field("typed_checks", &self.typed_checks.len()).finish_non_exhaustive()
    }
}

/// Decodes an object answer into the typed result, with its status code.
pub fn object<T: DeserializeOwned>(response: Response) -> Result<(u16, T), Status> {
    match response {
        Response::Object { code, body } => serde_json::from_value(body).map(|value| (code, value)).map_err(|e| {
            Status::internal_error(format!("the server answered with an object that does not decode: {e}"))
        }),
        Response::Watch(_) => Err(Status::internal_error("the server answered a watch to a request that is not one")),
    }
}

/// Decodes a watch answer into a stream of typed events; an event whose object does not
/// decode becomes an `ERROR` event.
pub fn watch<T: DeserializeOwned + Send + 'static>(response: Response) -> Result<WatchStream<T>, Status> {
    match response {
        Response::Watch(events) => Ok(Box::pin(events.map(|event| {
            let decode = |value: Value| serde_json::from_value::<T>(value);
            let failed = |e: serde_json::Error| {
                Event::Error(Status::internal_error(format!("watch event does not decode: {e}")))
            };
            match event {
                Event::Added(v) => decode(v).map(Event::Added).unwrap_or_else(failed),
                Event::Modified(v) => decode(v).map(Event::Modified).unwrap_or_else(failed),
                Event::Deleted(v) => decode(v).map(Event::Deleted).unwrap_or_else(failed),
                Event::Bookmark(v) => decode(v).map(Event::Bookmark).unwrap_or_else(failed),
                Event::Error(status) => Event::Error(status),
            }
        }))),
        Response::Object { .. } => Err(Status::internal_error("the server answered an object to a watch")),
    }
}

/// The JSON of a typed body.
pub fn to_json(value: &impl Serialize) -> Result<Value, Status> {
    serde_json::to_value(value).map_err(|e| Status::internal_error(format!("cannot encode the request body: {e}")))
}

/// What a [`TypedCheck`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The object as its model encodes it (fields the model does not know are dropped).
    pub object: Value,
    /// Every field error; empty when the object is valid.
    pub errors: Vec<kube_apigen_core::field::FieldError>,
}

/// Decodes a JSON object (and the stored one, on updates) into its generated model and
/// validates it; `Err` is the decoder's message when the object does not decode. Generated
/// crates list one per kind in `server::TYPED_CHECKS`, for servers working with JSON.
pub type TypedCheck = fn(new: &Value, old: Option<&Value>) -> Result<Checked, String>;

/// The [`TypedCheck`] of the generated model `T`.
pub fn typed<T>(new: &Value, old: Option<&Value>) -> Result<Checked, String>
where
    T: DeserializeOwned + Serialize + kube_apigen_validation::Validate,
{
    let decoded: T = serde_json::from_value(new.clone()).map_err(|e| e.to_string())?;
    let old: Option<T> = old.and_then(|old| serde_json::from_value(old.clone()).ok());
    let errors = match &old {
        Some(old) => decoded.validate_update(old),
        None => decoded.validate(),
    };
    let object = serde_json::to_value(&decoded).map_err(|e| e.to_string())?;
    Ok(Checked { object, errors })
}
