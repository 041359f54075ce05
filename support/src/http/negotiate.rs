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

/// One media range of an `Accept` header, borrowed from it.
struct Clause<'a> {
    type_: &'a str,
    subtype: &'a str,
    q: f32,
    /// The parameters after the media range, `;`-separated, as sent.
    params: &'a str,
}

impl<'a> Clause<'a> {
    /// The values of the parameter `name` (matched without regard to case), unquoted.
    fn params(&self, name: &str) -> impl Iterator<Item = &'a str> {
        self.params.split(';').filter_map(move |param| {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().trim_matches('"'))
        })
    }

    /// The first value of the parameter `name`.
    fn param(&self, name: &str) -> Option<&'a str> {
        self.params(name).next()
    }

    /// Whether the media range is `type_/subtype`, compared without regard to case.
    fn is(&self, type_: &str, subtype: &str) -> bool {
        self.type_.eq_ignore_ascii_case(type_) && self.subtype.eq_ignore_ascii_case(subtype)
    }

    /// How specific the range is: exact types before `type/*` before `*/*`.
    fn specificity(&self) -> u8 {
        match (self.type_, self.subtype) {
            ("*", _) => 0,
            (_, "*") => 1,
            _ => 2,
        }
    }
}

/// The clauses of an `Accept` header, in the order given; `q=0` clauses are dropped.
fn clauses(accept: &str) -> impl Iterator<Item = Clause<'_>> {
    accept.split(',').filter_map(|part| {
        let (range, params) = part.split_once(';').unwrap_or((part, ""));
        let range = range.trim();
        if range.is_empty() {
            return None;
        }
        let (type_, subtype) = range.split_once('/').unwrap_or((range, "*"));
        let clause = Clause { type_: type_.trim(), subtype: subtype.trim(), q: 1.0, params };
        // The last `q` counts.
        let q = clause.params("q").last().map_or(1.0, |q| q.parse().unwrap_or(1.0));
        (q > 0.0).then_some(Clause { q, ..clause })
    })
}

/// The most preferred of the clauses offered to it that are acceptable: by `q`, then exact
/// types before `type/*` before `*/*`, otherwise the first offered.
struct MostPreferred<T> {
    best: Option<((f32, u8), T)>,
}

impl<T> MostPreferred<T> {
    fn new() -> Self {
        MostPreferred { best: None }
    }

    /// Considers `clause`, made into a `T` by `pick` (`None`: not acceptable).
    fn offer(&mut self, clause: &Clause<'_>, pick: impl FnOnce(&Clause<'_>) -> Option<T>) {
        let rank = (clause.q, clause.specificity());
        let better = self.best.as_ref().is_none_or(|((q, specificity), _)| {
            rank.0.total_cmp(q).then_with(|| rank.1.cmp(specificity)) == std::cmp::Ordering::Greater
        });
        if better && let Some(picked) = pick(clause) {
            self.best = Some((rank, picked));
        }
    }

    fn into_inner(self) -> Option<T> {
        self.best.map(|(_, picked)| picked)
    }
}

/// What `pick` makes of the most preferred clause of `accept` it accepts.
fn most_preferred<T>(accept: &str, pick: impl Fn(&Clause<'_>) -> Option<T>) -> Option<T> {
    let mut best = MostPreferred::new();
    for clause in clauses(accept) {
        best.offer(&clause, &pick);
    }
    best.into_inner()
}

/// The serialization a clause names, if this server has it.
fn format_of(clause: &Clause<'_>) -> Option<Format> {
    if clause.is("application", "json") || clause.is("application", "*") || clause.is("*", "*") {
        Some(Format::Json)
    } else if clause.is("application", "yaml") {
        Some(Format::Yaml)
    } else if clause.is("application", "vnd.kubernetes.protobuf") {
        Some(Format::Protobuf)
    } else {
        None
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

/// What `Accept` asks a response to be sent as, read in one pass without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Negotiated {
    /// The first acceptable clause's output, or `None` (406) when there is none. An
    /// absent or empty header is JSON.
    pub(crate) output: Option<Output>,
    /// The format to send a `Status` in: the first acceptable serialization, conversions
    /// ignored (a Status is never converted); JSON when nothing is acceptable.
    pub(crate) error_format: Format,
}

pub(crate) fn negotiate(accept: Option<&str>) -> Negotiated {
    let accept = accept.unwrap_or("").trim();
    if accept.is_empty() {
        return Negotiated { output: Some(Output::JSON), error_format: Format::Json };
    }
    let (mut output, mut error_format) = (MostPreferred::new(), MostPreferred::new());
    for clause in clauses(accept) {
        output.offer(&clause, output_of);
        error_format.offer(&clause, format_of);
    }
    Negotiated { output: output.into_inner(), error_format: error_format.into_inner().unwrap_or(Format::Json) }
}

/// The format and conversion of a watch stream, JSON or protobuf; `None` (406) when no
/// clause accepts either.
pub(crate) fn negotiate_watch(accept: Option<&str>) -> Option<Output> {
    let accept = accept.unwrap_or("").trim();
    if accept.is_empty() {
        return Some(Output::JSON);
    }
    most_preferred(accept, |clause| output_of(clause).filter(|output| output.format != Format::Yaml))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negotiate_output(accept: Option<&str>) -> Option<Output> {
        negotiate(accept).output
    }

    fn error_format(accept: Option<&str>) -> Format {
        negotiate(accept).error_format
    }

    const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    #[test]
    fn kubectl_get_asks_for_a_table() {
        let out = negotiate_output(Some(KUBECTL_GET)).unwrap();
        assert_eq!(out, Output { format: Format::Json, transform: Transform::Table("v1") });
        assert_eq!(negotiate_watch(Some(KUBECTL_GET)).map(|o| o.transform), Some(Transform::Table("v1")));
    }

    #[test]
    fn plain_and_wildcards() {
        assert_eq!(negotiate_output(None), Some(Output::JSON));
        assert_eq!(negotiate_output(Some("application/json, */*")), Some(Output::JSON));
        assert_eq!(negotiate_output(Some("*/*")), Some(Output::JSON));
        assert_eq!(negotiate_output(Some("application/yaml")).unwrap().format, Format::Yaml);
        assert_eq!(negotiate_output(Some("text/html")), None);
        assert_eq!(
            negotiate_output(Some("application/vnd.kubernetes.protobuf, */*")).unwrap().format,
            Format::Protobuf
        );
        assert_eq!(negotiate_output(Some("application/yaml;q=0.5, application/json")), Some(Output::JSON));
        assert_eq!(error_format(Some("text/html")), Format::Json);
        assert_eq!(error_format(Some("application/yaml")), Format::Yaml);
        assert_eq!(negotiate_watch(Some("application/yaml")), None);
    }

    #[test]
    fn unknown_conversions_fall_through() {
        let out = negotiate_output(Some("application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml")).unwrap();
        assert_eq!(out, Output { format: Format::Yaml, transform: Transform::None });
        let out = negotiate_output(Some("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")).unwrap();
        assert_eq!(out.transform, Transform::PartialList("v1"));
    }

    #[test]
    fn preference_by_q_then_specificity_then_order() {
        let format = |accept| negotiate_output(Some(accept)).map(|output| output.format);
        assert_eq!(format("application/json;q=0.5, application/yaml;q=0.9"), Some(Format::Yaml));
        assert_eq!(format("*/*, application/yaml"), Some(Format::Yaml), "exact before */*");
        assert_eq!(format("application/*, application/yaml"), Some(Format::Yaml), "exact before type/*");
        assert_eq!(format("application/yaml, application/json"), Some(Format::Yaml), "the first of equals");
        assert_eq!(format("Application/YAML;Q=0.9, application/json;q=0.8"), Some(Format::Yaml), "any case");
        assert_eq!(format("application/yaml;q=0, application/json;q=0.1"), Some(Format::Json), "q=0 is refused");
        assert_eq!(format("application/yaml;q=0.1;q=1, application/json;q=0.5"), Some(Format::Yaml), "the last q");
        assert_eq!(format("text/html;q=1, application/yaml;q=0.2"), Some(Format::Yaml), "unknown types skipped");
        assert_eq!(
            error_format(Some("application/json;as=Table;v=v9;g=meta.k8s.io;q=0.1, application/yaml;q=0.05")),
            Format::Json
        );
        assert_eq!(
            negotiate_output(Some("application/json;as=Table;v=v9;g=meta.k8s.io;q=0.1, application/yaml;q=0.05"))
                .map(|o| o.format),
            Some(Format::Yaml)
        );
        assert_eq!(
            negotiate_watch(Some("application/yaml, application/vnd.kubernetes.protobuf;q=0.5")).map(|o| o.format),
            Some(Format::Protobuf)
        );
    }
}
