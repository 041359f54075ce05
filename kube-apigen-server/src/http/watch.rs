//! Watch streams: `application/json;stream=watch`, one `{"type":...,"object":...}` per line.

use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures::Stream;
use serde::Serialize;
use serde_json::Value;

use super::negotiate::{Format, Transform};
use super::table::{self, IncludeObject, TableConvertor, TableOptions};
use kube_apigen_core::protobuf::Payload;
use kube_apigen_core::{ResourceInfo, Status};

/// One change to a watched collection, as the API server's `watch.Event`.
// Objects are usually larger than a Status; the lint only sees an unknown `T`.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Event<T> {
    /// `ADDED`: an object was created, or exists when the watch starts.
    Added(T),
    /// `MODIFIED`: an object was changed.
    Modified(T),
    /// `DELETED`: an object was deleted; the event holds its last state.
    Deleted(T),
    /// Progress only: an object of the kind with nothing but `metadata.resourceVersion`
    /// (and annotations) set. Sent when the client asked `allowWatchBookmarks=true`.
    Bookmark(T),
    /// The watch cannot go on, e.g. 410 [`Status::too_old_resource_version`]; the stream
    /// should end after it.
    Error(Status),
}

impl<T> Event<T> {
    /// The event's `type` on the wire: `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Event::Added(_) => "ADDED",
            Event::Modified(_) => "MODIFIED",
            Event::Deleted(_) => "DELETED",
            Event::Bookmark(_) => "BOOKMARK",
            Event::Error(_) => "ERROR",
        }
    }

    /// The same event with its object converted.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Event<U> {
        match self {
            Event::Added(o) => Event::Added(f(o)),
            Event::Modified(o) => Event::Modified(f(o)),
            Event::Deleted(o) => Event::Deleted(f(o)),
            Event::Bookmark(o) => Event::Bookmark(f(o)),
            Event::Error(status) => Event::Error(status),
        }
    }
}

/// What a server's watch method returns: the events, until the server ends the stream.
pub type WatchStream<T> = Pin<Box<dyn Stream<Item = Event<T>> + Send>>;

/// The field selector of a watch of one object (`/watch/.../{name}`): `metadata.name=<name>`,
/// or the request's own selector when it requires exactly that name. Any other selector is
/// a 400, as the API server answers it.
pub fn one_object_selector(selector: Option<String>, name: &str) -> Result<String, Status> {
    match selector.filter(|s| !s.trim().is_empty()) {
        None => Ok(format!("metadata.name={name}")),
        Some(selector) if required_exact(&selector, "metadata.name").as_deref() == Some(name) => Ok(selector),
        Some(_) => Err(Status::bad_request("fieldSelector metadata.name doesn't match requested name")),
    }
}

/// The value a field selector requires `field` to equal (a `field=value` or
/// `field==value` term), with its escapes (`\,`, `\=`, `\\`) undone.
fn required_exact(selector: &str, field: &str) -> Option<String> {
    let mut terms = vec![String::new()];
    let mut chars = selector.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let term = terms.last_mut().expect("one term at least");
                term.push(c);
                term.extend(chars.next());
            }
            ',' => terms.push(String::new()),
            _ => terms.last_mut().expect("one term at least").push(c),
        }
    }
    terms.iter().find_map(|term| {
        let (key, value) =
            term.split_once("==").or_else(|| term.split_once('=').filter(|(key, _)| !key.ends_with('!')))?;
        (key.trim() == field).then(|| unescape(value.trim()))
    })
}

fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    out
}

/// The Content-Type of a JSON watch.
pub const CONTENT_TYPE: &str = "application/json;stream=watch";

#[derive(Serialize)]
struct WireEvent<'a, O: Serialize> {
    #[serde(rename = "type")]
    type_: &'a str,
    object: O,
}

/// Encodes events of one watch, converting their objects as the client asked; in a
/// Table watch only the first event carries `columnDefinitions`, as in the API server.
pub(crate) struct Encoder {
    pub(crate) format: Format,
    pub(crate) transform: Transform,
    pub(crate) resource: &'static ResourceInfo,
    pub(crate) table: Option<Arc<dyn TableConvertor>>,
    pub(crate) include_object: IncludeObject,
    pub(crate) sent_headers: bool,
}

impl Encoder {
    /// One line (or protobuf frame) of the stream, or the ERROR event to end it with when
    /// the object cannot be encoded.
    pub(crate) fn encode<T: Payload>(&mut self, event: &Event<T>) -> Result<Bytes, Bytes> {
        let type_ = event.type_name();
        if self.format == Format::Protobuf {
            let frame = match event {
                Event::Error(status) => super::protobuf::watch_frame(type_, status, self.resource),
                Event::Added(o) | Event::Modified(o) | Event::Deleted(o) | Event::Bookmark(o) => {
                    super::protobuf::watch_frame(type_, o, self.resource)
                }
            };
            return frame.map_err(|status| error_event(&status, self.format));
        }
        let encoded = match event {
            Event::Error(status) => serde_json::to_vec(&WireEvent { type_, object: status }),
            Event::Added(o) | Event::Modified(o) | Event::Deleted(o) | Event::Bookmark(o) => {
                if self.transform == Transform::None {
                    serde_json::to_vec(&WireEvent { type_, object: o })
                } else {
                    let options = TableOptions {
                        convertor: self.table.as_deref(),
                        include_object: self.include_object,
                        no_headers: self.sent_headers,
                        now_millis: jiff::Timestamp::now().as_millisecond(),
                    };
                    let converted = serde_json::to_value(o)
                        .map_err(|e| Status::internal_error(format!("unable to encode watch object: {e}")))
                        .and_then(|value| table::convert(value, self.transform, self.resource, options));
                    match converted {
                        Ok(object) => {
                            self.sent_headers = true;
                            serde_json::to_vec(&WireEvent { type_, object })
                        }
                        Err(status) => return Err(error_event(&status, self.format)),
                    }
                }
            }
        };
        match encoded {
            Ok(mut line) => {
                line.push(b'\n');
                Ok(Bytes::from(line))
            }
            Err(e) => {
                Err(error_event(&Status::internal_error(format!("unable to encode watch object: {e}")), self.format))
            }
        }
    }
}

/// An `ERROR` event carrying `status`: a line, or a protobuf frame.
pub(crate) fn error_event(status: &Status, format: Format) -> Bytes {
    if format == Format::Protobuf {
        let object = kube_apigen_core::protobuf::encode_envelope(
            "v1",
            "Status",
            &kube_apigen_core::protobuf::encode_message(status),
        );
        return Bytes::from(kube_apigen_core::protobuf::watch_frame("ERROR", &object));
    }
    let mut line = serde_json::to_vec(&WireEvent { type_: "ERROR", object: status })
        .unwrap_or_else(|_| serde_json::to_vec(&Value::Null).unwrap_or_default());
    line.push(b'\n');
    Bytes::from(line)
}

#[cfg(test)]
mod tests {
    use super::one_object_selector;

    #[test]
    fn a_watch_of_one_object_selects_its_name() {
        assert_eq!(one_object_selector(None, "web").unwrap(), "metadata.name=web");
        assert_eq!(one_object_selector(Some(" ".into()), "web").unwrap(), "metadata.name=web");
        for agreeing in ["metadata.name=web", "metadata.name==web", "status.phase=X,metadata.name=web"] {
            assert_eq!(one_object_selector(Some(agreeing.into()), "web").unwrap(), agreeing);
        }
        assert_eq!(one_object_selector(Some(r"metadata.name=a\,b".into()), "a,b").unwrap(), r"metadata.name=a\,b");
        for contradicting in ["status.phase=X", "metadata.name=other", "metadata.name!=web"] {
            let error = one_object_selector(Some(contradicting.into()), "web").unwrap_err();
            assert_eq!(
                (error.code, error.message.as_deref()),
                (Some(400), Some("fieldSelector metadata.name doesn't match requested name"))
            );
        }
    }
}
