//! `Accept` negotiation as the API server does it (`negotiation.NegotiateMediaTypeOptions`).

use super::accept::{self, MediaRange, MostPreferred};

/// Serialization of a response body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Yaml,
    /// Kubernetes' protobuf encoding (`kube_apigen_core::protobuf`).
    Protobuf,
}

impl Format {
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Yaml => "application/yaml",
            Format::Protobuf => kube_apigen_core::protobuf::CONTENT_TYPE,
        }
    }
}

/// The media types a response can be sent as, in the API server's order, for 406 messages.
pub(crate) const ACCEPTED: &[&str] =
    &["application/json", "application/yaml", kube_apigen_core::protobuf::CONTENT_TYPE];
/// The media types a watch can be streamed as.
pub(crate) const ACCEPTED_STREAM: &[&str] = &["application/json", kube_apigen_core::protobuf::CONTENT_TYPE];

/// A conversion the client asked for with `;as=<Kind>;g=meta.k8s.io;v=<version>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transform {
    None,
    /// `meta.k8s.io/<version>` `Table`.
    Table(&'static str),
    /// `meta.k8s.io/<version>` `PartialObjectMetadata`, for single objects.
    Partial(&'static str),
    /// `meta.k8s.io/<version>` `PartialObjectMetadataList`, for lists.
    PartialList(&'static str),
}

/// What a response is sent as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Output {
    pub(crate) format: Format,
    pub(crate) transform: Transform,
}

/// The serialization a range admits first, in the API server's order, if this server has it.
fn format_of(range: &MediaRange<'_>) -> Option<Format> {
    [Format::Json, Format::Yaml, Format::Protobuf].into_iter().find(|format| range.admits(format.content_type()))
}

/// The format and conversion a range asks for, if this server can answer so: Tables and
/// partial metadata only as JSON or YAML (the API server has no protobuf Table either).
fn output_of(range: &MediaRange<'_>) -> Option<Output> {
    let format = format_of(range)?;
    let transform = transform_of(range)?;
    (format != Format::Protobuf || transform == Transform::None).then_some(Output { format, transform })
}

/// The conversion a range asks for; `None` when it asks for one this server cannot do
/// (any of `g`, `v` and `as` asks for one), which makes the range unacceptable (the next
/// one is tried).
fn transform_of(range: &MediaRange<'_>) -> Option<Transform> {
    let Some(conversion) = range.conversion() else {
        return Some(Transform::None);
    };
    if conversion.group != "meta.k8s.io" {
        return None;
    }
    let version = match &*conversion.version {
        "v1" => "v1",
        "v1beta1" => "v1beta1",
        _ => return None,
    };
    match &*conversion.kind {
        "Table" => Some(Transform::Table(version)),
        "PartialObjectMetadata" => Some(Transform::Partial(version)),
        "PartialObjectMetadataList" => Some(Transform::PartialList(version)),
        _ => None,
    }
}

/// What `Accept` (as [`accept::header`] reads it) asks a response to be sent as, read in
/// one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Negotiated {
    /// The most preferred acceptable range's output, or `None` (406) when there is none.
    pub(crate) output: Option<Output>,
    /// The format to send a `Status` in: the most preferred acceptable serialization,
    /// conversions ignored (a Status is never converted); JSON when nothing is acceptable.
    pub(crate) error_format: Format,
}

pub(crate) fn negotiate(accept: &str) -> Negotiated {
    let (mut output, mut error_format) = (MostPreferred::new(), MostPreferred::new());
    for range in accept::ranges(accept) {
        output.offer(&range, output_of);
        error_format.offer(&range, format_of);
    }
    Negotiated { output: output.into_inner(), error_format: error_format.into_inner().unwrap_or(Format::Json) }
}

/// The format and conversion of a watch stream, JSON or protobuf; `None` (406) when no
/// range accepts either.
pub(crate) fn negotiate_watch(accept: &str) -> Option<Output> {
    accept::most_preferred(accept, |range| output_of(range).filter(|output| output.format != Format::Yaml))
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: Output = Output { format: Format::Json, transform: Transform::None };

    fn negotiate_output(accept: &str) -> Option<Output> {
        negotiate(accept).output
    }

    fn error_format(accept: &str) -> Format {
        negotiate(accept).error_format
    }

    const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn kubectl_get_asks_for_a_table() {
        let out = negotiate_output(KUBECTL_GET).unwrap();
        assert_eq!(out, Output { format: Format::Json, transform: Transform::Table("v1") });
        assert_eq!(negotiate_watch(KUBECTL_GET).map(|o| o.transform), Some(Transform::Table("v1")));
    }

    #[test]
    fn plain_and_wildcards() {
        let no_header = axum::http::HeaderMap::new();
        let absent = accept::header(&no_header);
        assert_eq!(negotiate(absent), Negotiated { output: Some(JSON), error_format: Format::Json });
        assert_eq!(negotiate_watch(absent), Some(JSON));
        assert_eq!(negotiate_output("application/json, */*"), Some(JSON));
        assert_eq!(negotiate_output("*/*"), Some(JSON));
        assert_eq!(negotiate_output("application/yaml").unwrap().format, Format::Yaml);
        assert_eq!(negotiate_output("text/html"), None);
        assert_eq!(negotiate_output("application/vnd.kubernetes.protobuf, */*").unwrap().format, Format::Protobuf);
        assert_eq!(negotiate_output("application/yaml;q=0.5, application/json"), Some(JSON));
        assert_eq!(error_format("text/html"), Format::Json);
        assert_eq!(error_format("application/yaml"), Format::Yaml);
        assert_eq!(negotiate_watch("application/yaml"), None);
    }

    #[test]
    fn unknown_conversions_fall_through() {
        let out = negotiate_output("application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml").unwrap();
        assert_eq!(out, Output { format: Format::Yaml, transform: Transform::None });
        let out = negotiate_output("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io").unwrap();
        assert_eq!(out.transform, Transform::PartialList("v1"));
        let out = negotiate_output(r#"application/json;as="Table";v=v1;g="meta.k8s.io""#).unwrap();
        assert_eq!(out.transform, Transform::Table("v1"), "quoted values");
        // `g` or `v` without `as` asks for a conversion too (of no kind), as in the API server.
        let out = negotiate_output("application/json;g=meta.k8s.io;v=v1, application/yaml").unwrap();
        assert_eq!(out, Output { format: Format::Yaml, transform: Transform::None });
        assert_eq!(negotiate_output("application/json;v=v1"), None);
    }

    #[test]
    fn preference_by_q_then_specificity_then_order() {
        let format = |accept| negotiate_output(accept).map(|output| output.format);
        assert_eq!(format("application/json;q=0.5, application/yaml;q=0.9"), Some(Format::Yaml));
        assert_eq!(format("*/*, application/yaml"), Some(Format::Yaml), "exact before */*");
        assert_eq!(format("application/*, application/yaml"), Some(Format::Yaml), "exact before type/*");
        assert_eq!(format("application/yaml, application/json"), Some(Format::Yaml), "the first of equals");
        assert_eq!(format("Application/YAML;Q=0.9, application/json;q=0.8"), Some(Format::Yaml), "any case");
        assert_eq!(format("application/yaml;q=0, application/json;q=0.1"), Some(Format::Json), "q=0 is refused");
        assert_eq!(format("application/yaml;q=0.1;q=1, application/json;q=0.5"), Some(Format::Yaml), "the last q");
        assert_eq!(format("text/html;q=1, application/yaml;q=0.2"), Some(Format::Yaml), "unknown types skipped");
        assert_eq!(format("application/yaml;q=high, application/json;q=0.1"), Some(Format::Json), "malformed q: last");
        assert_eq!(format("application/yaml;q=high"), Some(Format::Yaml), "malformed q: no refusal");
        assert_eq!(
            error_format("application/json;as=Table;v=v9;g=meta.k8s.io;q=0.1, application/yaml;q=0.05"),
            Format::Json
        );
        assert_eq!(
            negotiate_output("application/json;as=Table;v=v9;g=meta.k8s.io;q=0.1, application/yaml;q=0.05")
                .map(|o| o.format),
            Some(Format::Yaml)
        );
        assert_eq!(
            negotiate_watch("application/yaml, application/vnd.kubernetes.protobuf;q=0.5").map(|o| o.format),
            Some(Format::Protobuf)
        );
    }
}
