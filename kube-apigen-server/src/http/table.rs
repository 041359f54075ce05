//! Server-side printing: `meta.k8s.io` `Table` and `PartialObjectMetadata` conversions of
//! response objects, as the API server makes them for `kubectl get`.

use serde::Serialize;
use serde_json::{Map, Value};

use super::Query;
use super::negotiate::Transform;
use kube_apigen_core::ResourceInfo;
use kube_apigen_core::resource::Column;
use kube_apigen_core::{ListMeta, Status, status::reason};

/// `ObjectMeta`'s documentation of `name`, the description of the `Name` column.
pub(crate) const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// `ObjectMeta`'s documentation of `creationTimestamp`, the description of the default
/// `Age` column.
pub(crate) const CREATION_TIMESTAMP_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// The `Age` column: the API server prints it for custom resources that declare no
/// columns, and its built-in kinds end with it.
pub const AGE: Column = Column {
    name: "Age",
    type_: "date",
    format: "",
    description: CREATION_TIMESTAMP_DESCRIPTION,
    priority: 0,
    json_path: ".metadata.creationTimestamp",
};

/// The `includeObject` table option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum IncludeObject {
    None,
    #[default]
    Metadata,
    Object,
}

impl IncludeObject {
    /// From the query, or 400 as the API server's `ValidateTableOptions` answers.
    pub(crate) fn from_query(query: &Query<'_>) -> Result<Self, Status> {
        match query.get("includeObject").unwrap_or("") {
            "" | "Metadata" => Ok(IncludeObject::Metadata),
            "None" => Ok(IncludeObject::None),
            "Object" => Ok(IncludeObject::Object),
            other => Err(Status::bad_request(format!(
                "Unable to convert to Table as requested: includeObject: Invalid value: {}: must be 'Metadata', 'Object', 'None', or empty",
                kube_apigen_core::go::fmt::quote(other)
            ))),
        }
    }
}

/// Prints the objects of one resource as the rows of a `Table` when its columns need
/// code (the API server's `TableConvertor`); resources without one print the columns
/// their spec declares ([`ResourceInfo::columns`]). Register one per resource in
/// [`super::Config::tables`].
pub trait TableConvertor: Send + Sync + 'static {
    /// The columns after `Name`. A column with a `json_path` is printed from that path,
    /// as a spec's columns are (a `date` as an age such as `5m`); the others are
    /// [`TableConvertor::cells`].
    fn columns(&self) -> &[Column];

    /// The cells of `object` for the columns without a `json_path`, in their order.
    fn cells(&self, object: &Value) -> Vec<Value>;
}

/// Options of a Table conversion.
#[derive(Clone, Copy)]
pub(crate) struct TableOptions<'a> {
    /// The resource's own convertor, if it has one.
    pub(crate) convertor: Option<&'a dyn TableConvertor>,
    pub(crate) include_object: IncludeObject,
    /// Leave out `columnDefinitions` (watch events after the first).
    pub(crate) no_headers: bool,
    /// Now, in milliseconds since the epoch, for `date` columns.
    pub(crate) now_millis: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ColumnDefinition<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    type_: &'a str,
    format: &'a str,
    description: &'a str,
    priority: i32,
}

#[derive(Serialize)]
pub(crate) struct Row {
    cells: Vec<Value>,
    object: RowObject,
}

/// A row's `object`: `null` (`includeObject=None`), the object's metadata, or the object.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum RowObject {
    Partial(PartialObjectMetadata),
    Full(Value),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Table<'a> {
    kind: &'static str,
    api_version: String,
    metadata: ListMeta,
    column_definitions: Option<Vec<ColumnDefinition<'a>>>,
    rows: Vec<Row>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PartialObjectMetadata {
    kind: &'static str,
    api_version: String,
    metadata: Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PartialObjectMetadataList {
    kind: &'static str,
    api_version: String,
    metadata: ListMeta,
    items: Vec<PartialObjectMetadata>,
}

/// Whether a serialized response is a `Status`, which is never converted.
pub(crate) fn is_status(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("Status")
}

/// Whether a serialized response is a list of `resource`: an `items` array, and a list
/// kind (or none).
pub(crate) fn is_list(value: &Value, resource: &ResourceInfo) -> bool {
    let kind = value.get("kind").and_then(Value::as_str);
    value.get("items").is_some_and(Value::is_array)
        && kind.is_none_or(|kind| kind == resource.list_kind || kind.ends_with("List"))
}

fn metadata(value: &Value) -> Option<&Map<String, Value>> {
    value.get("metadata").and_then(Value::as_object)
}

fn meta_str(value: &Value, field: &str) -> Option<String> {
    metadata(value).and_then(|m| m.get(field)).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned)
}

fn list_meta(value: &Value, list: bool) -> ListMeta {
    ListMeta {
        self_link: None,
        resource_version: meta_str(value, "resourceVersion"),
        continue_: if list { meta_str(value, "continue") } else { None },
        remaining_item_count: if list {
            metadata(value).and_then(|m| m.get("remainingItemCount")).and_then(Value::as_i64)
        } else {
            None
        },
    }
}

fn partial(item: &Value, version: &str) -> PartialObjectMetadata {
    PartialObjectMetadata {
        kind: "PartialObjectMetadata",
        api_version: format!("meta.k8s.io/{version}"),
        metadata: item.get("metadata").cloned().unwrap_or_else(|| Value::Object(Map::new())),
    }
}

fn go_type(resource: &ResourceInfo, list: bool) -> String {
    let kind = if list { resource.list_kind } else { resource.kind };
    format!("*{}.{kind}", resource.version)
}

/// A converted response, serialized with its fields in the API server's order.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Converted<'a> {
    Unchanged(Value),
    Table(Table<'a>),
    Partial(PartialObjectMetadata),
    PartialList(PartialObjectMetadataList),
}

/// Converts a serialized response as `transform` asks. A `Status` passes through.
pub(crate) fn convert<'a>(
    value: Value,
    transform: Transform,
    resource: &'a ResourceInfo,
    options: TableOptions<'a>,
) -> Result<Converted<'a>, Status> {
    if is_status(&value) {
        return Ok(Converted::Unchanged(value));
    }
    let list = is_list(&value, resource);
    match transform {
        Transform::None => Ok(Converted::Unchanged(value)),
        Transform::Table(version) => Ok(Converted::Table(table(&value, list, version, resource, options))),
        Transform::Partial(version) => {
            if list {
                return Err(not_acceptable(format!(
                    "you requested PartialObjectMetadata, but the requested object is a list ({})",
                    go_type(resource, true)
                )));
            }
            Ok(Converted::Partial(partial(&value, version)))
        }
        Transform::PartialList(version) => {
            if !list {
                return Err(not_acceptable(format!(
                    "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                    go_type(resource, false)
                )));
            }
            let items = items(&value).iter().map(|item| partial(item, version)).collect();
            Ok(Converted::PartialList(PartialObjectMetadataList {
                kind: "PartialObjectMetadataList",
                api_version: format!("meta.k8s.io/{version}"),
                metadata: list_meta(&value, true),
                items,
            }))
        }
    }
}

fn not_acceptable(message: String) -> Status {
    Status::failure(406, reason::NOT_ACCEPTABLE, message)
}

fn items(value: &Value) -> &[Value] {
    value.get("items").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The columns after `Name`.
fn columns(resource: &ResourceInfo) -> &[Column] {
    if resource.columns.is_empty() { std::slice::from_ref(&AGE) } else { resource.columns }
}

fn table<'a>(
    value: &Value,
    list: bool,
    version: &str,
    resource: &'a ResourceInfo,
    options: TableOptions<'a>,
) -> Table<'a> {
    let columns = options.convertor.map_or_else(|| columns(resource), |convertor| convertor.columns());
    let column_definitions = (!options.no_headers).then(|| {
        let mut definitions = vec![ColumnDefinition {
            name: "Name",
            type_: "string",
            format: "name",
            description: NAME_DESCRIPTION,
            priority: 0,
        }];
        definitions.extend(columns.iter().map(|column| ColumnDefinition {
            name: column.name,
            type_: column.type_,
            format: column.format,
            description: column.description,
            priority: column.priority,
        }));
        definitions
    });
    let objects: &[Value] = if list { items(value) } else { std::slice::from_ref(value) };
    let rows = objects
        .iter()
        .map(|object| {
            let mut cells = Vec::with_capacity(columns.len() + 1);
            cells.push(Value::String(meta_str(object, "name").unwrap_or_default()));
            let mut computed =
                options.convertor.map(|convertor| convertor.cells(object)).unwrap_or_default().into_iter();
            cells.extend(columns.iter().map(|column| match column.json_path {
                "" => computed.next().unwrap_or(Value::Null),
                _ => cell(column, object, options.now_millis),
            }));
            let object = match options.include_object {
                IncludeObject::None => RowObject::Full(Value::Null),
                IncludeObject::Metadata => RowObject::Partial(partial(object, version)),
                IncludeObject::Object => RowObject::Full(object.clone()),
            };
            Row { cells, object }
        })
        .collect();
    let api_version = format!("meta.k8s.io/{version}");
    Table { kind: "Table", api_version, metadata: list_meta(value, list), column_definitions, rows }
}

/// One cell, as the API server's custom resource table convertor computes it.
fn cell(column: &Column, object: &Value, now_millis: i64) -> Value {
    let Some(value) = find(column.json_path, object).filter(|v| !v.is_null()) else {
        return Value::Null;
    };
    match column.type_ {
        "string" => Value::String(match value {
            Value::String(s) => s.clone(),
            Value::Array(_) | Value::Object(_) => value.to_string(),
            other => other.to_string(),
        }),
        "integer" => match value {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).map_or(Value::Null, Value::from),
            _ => Value::Null,
        },
        "number" => match value {
            Value::Number(n) => n.as_f64().map_or(Value::Null, Value::from),
            _ => Value::Null,
        },
        "boolean" => match value {
            Value::Bool(b) => Value::Bool(*b),
            _ => Value::Null,
        },
        "date" => match value {
            Value::String(s) if s.is_empty() || s == "null" => Value::String("<unknown>".to_owned()),
            Value::String(s) => match s.parse::<jiff::Timestamp>() {
                Ok(t) => Value::String(human_duration(now_millis - t.as_millisecond())),
                Err(_) => Value::String("<invalid>".to_owned()),
            },
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

/// apimachinery's `duration.HumanDuration`, what `kubectl` shows as AGE: `45s`, `3m20s`,
/// `25m`, `5h10m`, `12h`, `3d4h`, `40d`, `2y100d`, `9y`.
pub(crate) fn human_duration(millis: i64) -> String {
    let seconds = millis / 1000;
    if seconds < -1 {
        return "<invalid>".to_owned();
    } else if seconds < 0 {
        return "0s".to_owned();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = millis / 60_000;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = millis / 3_600_000;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") }
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) }
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let days = (hours / 24) % 365;
        if days == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{days}d", hours / 24 / 365) }
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

/// One step of a simple JSONPath.
#[derive(Debug, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    Wildcard,
    Filter { path: Vec<Step>, equal: bool, literal: Value },
}

/// Parses the JSONPath subset printer columns use: `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`,
/// `[?(@.type=="Ready")]` (`==`/`!=` against a string, number or boolean), with optional
/// `{...}` braces and leading `$`. `None` for anything else.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let path = path.trim();
    let path = path.strip_prefix('{').and_then(|p| p.strip_suffix('}')).unwrap_or(path).trim();
    let path = path.strip_prefix('$').unwrap_or(path);
    let chars: Vec<char> = path.chars().collect();
    let (steps, rest) = parse_steps(&chars)?;
    rest.is_empty().then_some(steps)
}

fn parse_steps(mut chars: &[char]) -> Option<(Vec<Step>, &[char])> {
    let mut steps = Vec::new();
    loop {
        match chars.first() {
            Some('.') => {
                let mut name = String::new();
                let mut i = 1;
                while let Some(&c) = chars.get(i) {
                    match c {
                        '\\' => {
                            name.push(*chars.get(i + 1)?);
                            i += 2;
                        }
                        '.' | '[' | ' ' | '=' | '!' | ')' => break,
                        c => {
                            name.push(c);
                            i += 1;
                        }
                    }
                }
                if name.is_empty() {
                    return None;
                }
                steps.push(if name == "*" { Step::Wildcard } else { Step::Field(name) });
                chars = &chars[i..];
            }
            Some('[') => {
                let close = bracket_end(chars)?;
                let inner: String = chars[1..close].iter().collect();
                steps.push(parse_bracket(inner.trim())?);
                chars = &chars[close + 1..];
            }
            _ => return Some((steps, chars)),
        }
    }
}

/// The index of the `]` closing the bracket at `chars[0]`, skipping quoted text.
fn bracket_end(chars: &[char]) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut depth = 0;
    for (i, &c) in chars.iter().enumerate() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> Option<&str> {
    let s = s.trim();
    s.strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
}

fn parse_bracket(inner: &str) -> Option<Step> {
    if inner == "*" {
        return Some(Step::Wildcard);
    }
    if let Some(key) = unquote(inner) {
        return Some(Step::Field(key.to_owned()));
    }
    if let Ok(index) = inner.parse::<i64>() {
        return Some(Step::Index(index));
    }
    let condition = inner.strip_prefix("?(")?.strip_suffix(')')?.trim();
    let condition = condition.strip_prefix('@')?;
    let chars: Vec<char> = condition.chars().collect();
    let (path, rest) = parse_steps(&chars)?;
    let rest: String = rest.iter().collect();
    let rest = rest.trim();
    let (equal, literal) =
        if let Some(literal) = rest.strip_prefix("==") { (true, literal) } else { (false, rest.strip_prefix("!=")?) };
    let literal = match unquote(literal) {
        Some(s) => Value::String(s.to_owned()),
        None => serde_json::from_str(literal.trim()).ok()?,
    };
    Some(Step::Filter { path, equal, literal })
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// The first value `steps` lead to from `value`.
fn walk<'v>(steps: &[Step], value: &'v Value) -> Option<&'v Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(value);
    };
    match step {
        Step::Field(name) => walk(rest, value.as_object()?.get(name)?),
        Step::Index(index) => {
            let items = value.as_array()?;
            let index =
                if *index < 0 { items.len().checked_sub(index.unsigned_abs() as usize)? } else { *index as usize };
            walk(rest, items.get(index)?)
        }
        Step::Wildcard => match value {
            Value::Array(items) => items.iter().find_map(|item| walk(rest, item)),
            Value::Object(map) => map.values().find_map(|item| walk(rest, item)),
            _ => None,
        },
        Step::Filter { path, equal, literal } => value.as_array()?.iter().find_map(|item| {
            let matches = walk(path, item).is_some_and(|v| same(v, literal));
            if matches == *equal { walk(rest, item) } else { None }
        }),
    }
}

/// The value a column's JSONPath selects in `object`, if any.
pub(crate) fn find<'v>(json_path: &str, object: &'v Value) -> Option<&'v Value> {
    walk(&parse_path(json_path)?, object)
}

/// Converted responses have no protobuf message: Tables and partial metadata are sent as
/// JSON or YAML only.
impl kube_apigen_core::protobuf::Payload for Converted<'_> {
    const GO_TYPE: &'static str = "Table";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn human_durations() {
        let s = 1000;
        assert_eq!(human_duration(-5 * s), "<invalid>");
        assert_eq!(human_duration(-s), "0s");
        assert_eq!(human_duration(119 * s), "119s");
        assert_eq!(human_duration(200 * s), "3m20s");
        assert_eq!(human_duration(300 * s), "5m");
        assert_eq!(human_duration(25 * 60 * s), "25m");
        assert_eq!(human_duration((5 * 3600 + 600) * s), "5h10m");
        assert_eq!(human_duration(12 * 3600 * s), "12h");
        assert_eq!(human_duration((3 * 24 + 4) * 3600 * s), "3d4h");
        assert_eq!(human_duration(40 * 24 * 3600 * s), "40d");
        assert_eq!(human_duration((2 * 365 + 100) * 24 * 3600 * s), "2y100d");
        assert_eq!(human_duration(9 * 365 * 24 * 3600 * s), "9y");
    }

    #[test]
    fn json_paths() {
        let o = json!({
            "metadata": {"labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"ports": [{"port": 80}, {"port": 443}]},
            "status": {"conditions": [{"type": "Scheduled", "status": "True"}, {"type": "Ready", "status": "False"}]}
        });
        assert_eq!(find(".spec.ports[1].port", &o), Some(&json!(443)));
        assert_eq!(find("{.spec.ports[-1].port}", &o), Some(&json!(443)));
        assert_eq!(find(".spec.ports[*].port", &o), Some(&json!(80)));
        assert_eq!(find(r#".status.conditions[?(@.type=="Ready")].status"#, &o), Some(&json!("False")));
        assert_eq!(find(".status.conditions[?(@.type != 'Ready')].type", &o), Some(&json!("Scheduled")));
        assert_eq!(find(r".metadata.labels.app\.kubernetes\.io/name", &o), Some(&json!("web")));
        assert_eq!(find(".metadata.labels['app.kubernetes.io/name']", &o), Some(&json!("web")));
        assert_eq!(find(".spec.missing", &o), None);
        assert_eq!(find("not a path", &o), None);
    }
}
