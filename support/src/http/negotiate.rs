//! `Accept` negotiation as the API server does it (`negotiation.NegotiateMediaTypeOptions`).

/// Serialization of a response body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Yaml,
    /// Kubernetes' protobuf encoding (`crate::protobuf`).
    Protobuf,
}

impl Format {
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Yaml => "application/yaml",
            Format::Protobuf => crate::protobuf::CONTENT_TYPE,
        }
    }
}

/// The media types a response can be sent as, in the API server's order, for 406 messages.
pub(crate) const ACCEPTED: &[&str] = &["application/json", "application/yaml", crate::protobuf::CONTENT_TYPE];
/// The media types a watch can be streamed as.
pub(crate) const ACCEPTED_STREAM: &[&str] = &["application/json", crate::protobuf::CONTENT_TYPE];

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

impl Output {
    pub(crate) const JSON: Output = Output { format: Format::Json, transform: Transform::None };
}

struct Clause<'a> {
    type_: String,
    subtype: String,
    q: f32,
    params: Vec<(String, &'a str)>,
}

impl Clause<'_> {
    fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
}

/// The clauses of an `Accept` header, most preferred first: by `q`, then exact types
/// before `type/*` before `*/*`, otherwise in the order given. `q=0` clauses are dropped.
fn clauses(accept: &str) -> Vec<Clause<'_>> {
    let mut out: Vec<Clause<'_>> = Vec::new();
    for part in accept.split(',') {
        let mut pieces = part.split(';');
        let range = pieces.next().unwrap_or("").trim();
        if range.is_empty() {
            continue;
        }
        let (type_, subtype) = range.split_once('/').unwrap_or((range, "*"));
        let mut clause = Clause {
            type_: type_.trim().to_ascii_lowercase(),
            subtype: subtype.trim().to_ascii_lowercase(),
            q: 1.0,
            params: Vec::new(),
        };
        for param in pieces {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches('"');
            if key == "q" {
                clause.q = value.parse().unwrap_or(1.0);
            } else {
                clause.params.push((key, value));
            }
        }
        if clause.q > 0.0 {
            out.push(clause);
        }
    }
    let specificity = |c: &Clause<'_>| match (c.type_.as_str(), c.subtype.as_str()) {
        ("*", _) => 0,
        (_, "*") => 1,
        _ => 2,
    };
    out.sort_by(|a, b| b.q.total_cmp(&a.q).then_with(|| specificity(b).cmp(&specificity(a))));
    out
}

/// The serialization a clause names, if this server has it.
fn format_of(clause: &Clause<'_>) -> Option<Format> {
    match (clause.type_.as_str(), clause.subtype.as_str()) {
        ("application", "json") | ("application", "*") | ("*", "*") => Some(Format::Json),
        ("application", "yaml") => Some(Format::Yaml),
        ("application", "vnd.kubernetes.protobuf") => Some(Format::Protobuf),
        _ => None,
    }
}

/// The format and conversion a clause asks for, if this server can answer so: Tables and
/// partial metadata only as JSON or YAML (the API server has no protobuf Table either).
fn output_of(clause: &Clause<'_>) -> Option<Output> {
    let format = format_of(clause)?;
    let transform = transform_of(clause)?;
    (format != Format::Protobuf || transform == Transform::None).then_some(Output { format, transform })
}

/// The conversion a clause asks for; `None` when it asks for one this server cannot do,
/// which makes the clause unacceptable (the next one is tried).
fn transform_of(clause: &Clause<'_>) -> Option<Transform> {
    let Some(kind) = clause.param("as") else {
        return Some(Transform::None);
    };
    if clause.param("g") != Some("meta.k8s.io") {
        return None;
    }
    let version = match clause.param("v") {
        Some("v1") => "v1",
        Some("v1beta1") => "v1beta1",
        _ => return None,
    };
    match kind {
        "Table" => Some(Transform::Table(version)),
        "PartialObjectMetadata" => Some(Transform::Partial(version)),
        "PartialObjectMetadataList" => Some(Transform::PartialList(version)),
        _ => None,
    }
}

/// The first acceptable clause of `accept`, or `None` (406) when there is none. An
/// absent or empty header is JSON.
pub(crate) fn negotiate(accept: Option<&str>) -> Option<Output> {
    let accept = accept.unwrap_or("").trim();
    if accept.is_empty() {
        return Some(Output::JSON);
    }
    clauses(accept).iter().find_map(output_of)
}

/// The format to send a `Status` in: the first acceptable serialization, conversions
/// ignored (a Status is never converted); JSON when nothing is acceptable.
pub(crate) fn error_format(accept: Option<&str>) -> Format {
    clauses(accept.unwrap_or("")).iter().find_map(format_of).unwrap_or(Format::Json)
}

/// The format and conversion of a watch stream, JSON or protobuf; `None` (406) when no
/// clause accepts either.
pub(crate) fn negotiate_watch(accept: Option<&str>) -> Option<Output> {
    let accept = accept.unwrap_or("").trim();
    if accept.is_empty() {
        return Some(Output::JSON);
    }
    clauses(accept).iter().filter_map(output_of).find(|output| output.format != Format::Yaml)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn kubectl_get_asks_for_a_table() {
        let out = negotiate(Some(KUBECTL_GET)).unwrap();
        assert_eq!(out, Output { format: Format::Json, transform: Transform::Table("v1") });
        assert_eq!(negotiate_watch(Some(KUBECTL_GET)).map(|o| o.transform), Some(Transform::Table("v1")));
    }

    #[test]
    fn plain_and_wildcards() {
        assert_eq!(negotiate(None), Some(Output::JSON));
        assert_eq!(negotiate(Some("application/json, */*")), Some(Output::JSON));
        assert_eq!(negotiate(Some("*/*")), Some(Output::JSON));
        assert_eq!(negotiate(Some("application/yaml")).unwrap().format, Format::Yaml);
        assert_eq!(negotiate(Some("text/html")), None);
        assert_eq!(negotiate(Some("application/vnd.kubernetes.protobuf, */*")).unwrap().format, Format::Protobuf);
        assert_eq!(negotiate(Some("application/yaml;q=0.5, application/json")), Some(Output::JSON));
        assert_eq!(error_format(Some("text/html")), Format::Json);
        assert_eq!(error_format(Some("application/yaml")), Format::Yaml);
        assert_eq!(negotiate_watch(Some("application/yaml")), None);
    }

    #[test]
    fn unknown_conversions_fall_through() {
        let out = negotiate(Some("application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml")).unwrap();
        assert_eq!(out, Output { format: Format::Yaml, transform: Transform::None });
        let out = negotiate(Some("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")).unwrap();
        assert_eq!(out.transform, Transform::PartialList("v1"));
    }
}
