//! The patch-relevant view of the OpenAPI v3 documents a server publishes.
//!
//! [`SchemaCatalog::from_documents`] parses every group-version document a server serves
//! once and indexes each component schema carrying
//! `x-kubernetes-group-version-kind` under that group, version and kind. An
//! [`ObjectSchema`] is a handle on one node of a parsed document: the root of a kind, or
//! (through [`ObjectSchema::field`] and [`ObjectSchema::items`]) the schema of one field or
//! list element, with the field's own extensions (`x-kubernetes-list-type`,
//! `-list-map-keys`, `-patch-strategy`, `-patch-merge-key`, `-map-type`) in front of those
//! of the schema it refers to. `$ref` and `allOf: [{$ref}]` are followed when asked, by
//! index into the document's node table, so recursive schemas (`JSONSchemaProps`) cost
//! nothing.
//!
//! The extension values are read into `kube_apigen_core::schema`'s types with its parsers, the
//! ones the generator checked the specs with, so a served document holds no unknown
//! value; were one there, it would count as the default (atomic list, granular map, no
//! strategy).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub use kube_apigen_core::schema::{ListType, MapType, PatchStrategy};
use serde_json::Value;

/// Every kind of every group-version of a catalog, by `(group, version, kind)`.
#[derive(Clone, Debug, Default)]
pub struct SchemaCatalog {
    kinds: HashMap<(String, String, String), ObjectSchema>,
}

impl SchemaCatalog {
    /// Parses `(group, version, OpenAPI v3 JSON text)` documents (one that is not valid
    /// JSON contributes nothing).
    pub fn from_documents<'a>(documents: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> Self {
        let mut kinds = HashMap::new();
        for (group, version, text) in documents {
            let Ok(document) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let graph = Arc::new(Graph::parse(&document));
            for (node, gvks) in &graph.kinds {
                for (g, v, k) in gvks {
                    // A shared type (DeleteOptions, WatchEvent) lists the kinds of many
                    // groups; only this document's group-version is its to describe.
                    if g != group || v != version {
                        continue;
                    }
                    let key = (g.clone(), v.clone(), k.clone());
                    let gvk = Arc::new(key.clone());
                    kinds.entry(key).or_insert_with(|| ObjectSchema {
                        graph: graph.clone(),
                        node: *node,
                        gvk: Some(gvk),
                    });
                }
            }
        }
        SchemaCatalog { kinds }
    }

    /// The schema of a kind, e.g. `("autoscaling", "v2", "HorizontalPodAutoscaler")`; the
    /// core group is `""`.
    pub fn schema(&self, group: &str, version: &str, kind: &str) -> Option<&ObjectSchema> {
        self.kinds.get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
    }

    /// How many kinds are indexed.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether no kind is indexed.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
}

/// What a schema node describes, once references are followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaKind {
    /// An object with declared properties (a Go struct).
    Struct,
    /// An object of arbitrary keys with one value schema (`additionalProperties`).
    Map,
    /// A list (`type: array`).
    Array,
    /// A string, number, integer, boolean, or `x-kubernetes-int-or-string`.
    Scalar,
    /// Anything: free-form objects, `x-kubernetes-preserve-unknown-fields`, unknown refs.
    Any,
}

/// A resolved view of one node of a schema (see the module docs). Cheap to clone.
#[derive(Clone)]
pub struct ObjectSchema {
    graph: Arc<Graph>,
    node: usize,
    gvk: Option<Arc<Gvk>>,
}

impl std::fmt::Debug for ObjectSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectSchema")
            .field("name", &self.name())
            .field("kind", &self.kind())
            .field("gvk", &self.gvk)
            .finish()
    }
}

impl ObjectSchema {
    fn at(&self, node: usize) -> ObjectSchema {
        ObjectSchema { graph: self.graph.clone(), node, gvk: None }
    }

    /// The nodes this one stands for: itself, then what it refers to (`$ref`, single
    /// `allOf`), in order. Multi-part `allOf` nodes end the chain.
    fn chain(&self) -> impl Iterator<Item = &Node> {
        let graph = &*self.graph;
        let mut next = Some(self.node);
        let mut steps = 0;
        std::iter::from_fn(move || {
            let id = next?;
            steps += 1;
            let node = &graph.nodes[id];
            next = match node.shape {
                Shape::Ref(target) if steps < 64 => Some(target),
                _ => None,
            };
            Some(node)
        })
    }

    /// The node that carries the structure (the end of the reference chain).
    fn target(&self) -> &Node {
        self.chain().last().expect("a chain has at least one node")
    }

    fn extension<T>(&self, get: &dyn Fn(&Ext) -> Option<T>) -> Option<T> {
        for node in self.chain() {
            if let Some(found) = get(&node.ext) {
                return Some(found);
            }
            if let Shape::AllOf(parts) = &node.shape {
                for part in parts {
                    if let Some(found) = self.at(*part).extension(get) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// The `(group, version, kind)` this schema was found under, for the roots
    /// [`SchemaCatalog::schema`] returns; `None` for fields.
    pub fn group_version_kind(&self) -> Option<(&str, &str, &str)> {
        self.gvk.as_deref().map(|(g, v, k)| (g.as_str(), v.as_str(), k.as_str()))
    }

    /// The component name the node refers to or is, e.g.
    /// `io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec`; `None` for inline schemas.
    pub fn name(&self) -> Option<&str> {
        self.chain().filter_map(|node| node.name.as_deref()).last()
    }

    /// The Go type name as the API server's errors print it: the last segment of
    /// [`ObjectSchema::name`] (`HorizontalPodAutoscalerSpec`), or `""`.
    pub fn type_name(&self) -> &str {
        self.name().map(|name| name.rsplit('.').next().unwrap_or(name)).unwrap_or("")
    }

    /// What the node describes, at the end of its reference chain (an `allOf` of several
    /// schemas counts as a struct).
    pub fn kind(&self) -> SchemaKind {
        match &self.target().shape {
            Shape::Struct { .. } => SchemaKind::Struct,
            Shape::Map(_) => SchemaKind::Map,
            Shape::Array(_) => SchemaKind::Array,
            Shape::Scalar(_) => SchemaKind::Scalar,
            Shape::AllOf(_) => SchemaKind::Struct,
            Shape::Any | Shape::Ref(_) => SchemaKind::Any,
        }
    }

    /// The `type` and `format` of a scalar (`("integer", "int32")`), empty when unknown.
    pub fn scalar_type(&self) -> (&str, &str) {
        match &self.target().shape {
            Shape::Scalar(scalar) => (scalar.0.as_str(), scalar.1.as_str()),
            _ => ("", ""),
        }
    }

    /// A declared property of a struct.
    pub fn property(&self, name: &str) -> Option<ObjectSchema> {
        self.property_in(self.node, name, 0)
    }

    fn property_in(&self, node: usize, name: &str, depth: usize) -> Option<ObjectSchema> {
        if depth > 64 {
            return None;
        }
        let view = self.at(node);
        match &view.target().shape {
            Shape::Struct { properties, .. } => properties.get(name).map(|id| self.at(*id)),
            Shape::AllOf(parts) => parts.iter().find_map(|part| self.property_in(*part, name, depth + 1)),
            _ => None,
        }
    }

    /// The value schema of a map (`additionalProperties`), or of the undeclared keys of a
    /// struct that also has `additionalProperties`.
    pub fn additional_properties(&self) -> Option<ObjectSchema> {
        match &self.target().shape {
            Shape::Map(value) => Some(self.at(*value)),
            Shape::Struct { additional: Some(value), .. } => Some(self.at(*value)),
            Shape::Any => Some(self.clone()),
            _ => None,
        }
    }

    /// The schema of the value under `key` of an object: its declared property, or the
    /// map's value schema.
    pub fn field(&self, key: &str) -> Option<ObjectSchema> {
        self.property(key).or_else(|| self.additional_properties())
    }

    /// The element schema of an array (an `Any` node for free-form values).
    pub fn items(&self) -> Option<ObjectSchema> {
        match &self.target().shape {
            Shape::Array(Some(items)) => Some(self.at(*items)),
            Shape::Array(None) | Shape::Any => Some(self.at(self.graph.any)),
            _ => None,
        }
    }

    /// `x-kubernetes-list-type`, with `x-kubernetes-list-map-keys` for maps.
    pub fn list_type(&self) -> Option<ListType> {
        let list_type = self.extension(&|ext| ext.list_type.clone())?;
        Some(ListType::parse(&list_type, self.list_map_keys()).unwrap_or(ListType::Atomic))
    }

    /// `x-kubernetes-list-map-keys`, empty when absent.
    pub fn list_map_keys(&self) -> Vec<String> {
        self.extension(&|ext| ext.list_map_keys.clone()).unwrap_or_default()
    }

    /// `x-kubernetes-patch-strategy`, split on commas; empty when absent.
    pub fn patch_strategies(&self) -> Vec<PatchStrategy> {
        let Some(raw) = self.extension(&|ext| ext.patch_strategy.clone()) else {
            return Vec::new();
        };
        raw.split(',').filter_map(|name| PatchStrategy::parse_list(name).ok()).flatten().collect()
    }

    /// `x-kubernetes-patch-merge-key`.
    pub fn patch_merge_key(&self) -> Option<String> {
        self.extension(&|ext| ext.patch_merge_key.clone())
    }

    /// `x-kubernetes-map-type`.
    pub fn map_type(&self) -> Option<MapType> {
        self.extension(&|ext| ext.map_type.clone()).map(|name| MapType::parse(&name).unwrap_or(MapType::Granular))
    }

    /// Whether the field declares `default: {}`: in the API server's Go types such fields
    /// are non-pointer structs, present (empty) in every object.
    pub fn has_empty_object_default(&self) -> bool {
        self.graph.nodes[self.node].ext.empty_object_default
    }

    /// The `default` of the field, or of the schema it refers to.
    pub fn default_value(&self) -> Option<Value> {
        self.extension(&|ext| ext.default.clone())
    }

    /// The list semantics server-side apply uses (the rules of the API server's schema
    /// conversion): `x-kubernetes-list-type` when set; otherwise a `merge` patch strategy
    /// makes a map keyed by the patch merge key, or a set without one; otherwise atomic.
    pub fn apply_list_type(&self) -> ListType {
        if let Some(list_type) = self.list_type() {
            return match list_type {
                ListType::Map(keys) if keys.is_empty() => ListType::Atomic,
                other => other,
            };
        }
        if self.patch_strategies().contains(&PatchStrategy::Merge) {
            return match self.patch_merge_key() {
                Some(key) => ListType::Map(vec![key]),
                None => ListType::Set,
            };
        }
        ListType::Atomic
    }

    /// Whether server-side apply treats this object as one value.
    pub fn is_atomic_map(&self) -> bool {
        self.map_type() == Some(MapType::Atomic)
    }
}

/// `(group, version, kind)`.
type Gvk = (String, String, String);

/// One parsed document: a node table, component names, and the kinds.
#[derive(Debug)]
struct Graph {
    nodes: Vec<Node>,
    /// A shared free-form node, for arrays without `items`.
    any: usize,
    kinds: Vec<(usize, Vec<Gvk>)>,
}

#[derive(Debug, Default)]
struct Node {
    name: Option<String>,
    ext: Ext,
    shape: Shape,
}

#[derive(Debug, Default)]
struct Ext {
    list_type: Option<String>,
    list_map_keys: Option<Vec<String>>,
    patch_strategy: Option<String>,
    patch_merge_key: Option<String>,
    map_type: Option<String>,
    empty_object_default: bool,
    default: Option<Value>,
}

#[derive(Debug, Default)]
enum Shape {
    Struct {
        properties: BTreeMap<String, usize>,
        additional: Option<usize>,
    },
    Map(usize),
    Array(Option<usize>),
    Scalar((String, String)),
    Ref(usize),
    AllOf(Vec<usize>),
    #[default]
    Any,
}

const REF_PREFIX: &str = "#/components/schemas/";

impl Graph {
    fn parse(document: &Value) -> Graph {
        let empty = serde_json::Map::new();
        let schemas = document.pointer("/components/schemas").and_then(Value::as_object).unwrap_or(&empty);
        let mut graph = Graph { nodes: Vec::new(), any: 0, kinds: Vec::new() };
        graph.nodes.push(Node::default());
        let mut by_name = HashMap::new();
        for name in schemas.keys() {
            by_name.insert(name.as_str(), graph.nodes.len());
            graph.nodes.push(Node { name: Some(name.clone()), ..Node::default() });
        }
        for (name, schema) in schemas {
            let id = by_name[name.as_str()];
            let (ext, shape) = graph.convert(schema, &by_name);
            graph.nodes[id].ext = ext;
            graph.nodes[id].shape = shape;
            let gvks = gvks(schema);
            if !gvks.is_empty() {
                graph.kinds.push((id, gvks));
            }
        }
        graph
    }

    fn add(&mut self, schema: &Value, by_name: &HashMap<&str, usize>) -> usize {
        let (ext, shape) = self.convert(schema, by_name);
        self.nodes.push(Node { name: None, ext, shape });
        self.nodes.len() - 1
    }

    fn convert(&mut self, schema: &Value, by_name: &HashMap<&str, usize>) -> (Ext, Shape) {
        let ext = Ext::of(schema);
        let Some(object) = schema.as_object() else {
            return (ext, Shape::Any);
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let target = reference.strip_prefix(REF_PREFIX).and_then(|name| by_name.get(name));
            return (ext, target.map_or(Shape::Any, |id| Shape::Ref(*id)));
        }
        if let Some(parts) = object.get("allOf").and_then(Value::as_array) {
            let has_own_structure = object.contains_key("properties")
                || object.contains_key("items")
                || object.contains_key("additionalProperties");
            if !has_own_structure {
                let ids: Vec<usize> = parts.iter().map(|part| self.add(part, by_name)).collect();
                return match ids.as_slice() {
                    [] => (ext, Shape::Any),
                    [only] => (ext, Shape::Ref(*only)),
                    _ => (ext, Shape::AllOf(ids)),
                };
            }
        }
        let declared_type = object.get("type").and_then(Value::as_str).unwrap_or("");
        if object.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true) {
            return (ext, Shape::Scalar(("int-or-string".to_owned(), String::new())));
        }
        match declared_type {
            "array" => {
                let items = object.get("items").map(|items| self.add(items, by_name));
                (ext, Shape::Array(items))
            }
            "string" | "integer" | "number" | "boolean" => {
                let format = object.get("format").and_then(Value::as_str).unwrap_or("");
                (ext, Shape::Scalar((declared_type.to_owned(), format.to_owned())))
            }
            _ => {
                let properties = object.get("properties").and_then(Value::as_object);
                let additional = match object.get("additionalProperties") {
                    Some(Value::Object(value)) => Some(self.add(&Value::Object(value.clone()), by_name)),
                    Some(Value::Bool(true)) => Some(self.add(&Value::Object(Default::default()), by_name)),
                    _ => None,
                };
                match (properties, additional) {
                    (Some(properties), additional) => {
                        let properties =
                            properties.iter().map(|(name, schema)| (name.clone(), self.add(schema, by_name))).collect();
                        (ext, Shape::Struct { properties, additional })
                    }
                    (None, Some(value)) => (ext, Shape::Map(value)),
                    (None, None) => (ext, Shape::Any),
                }
            }
        }
    }
}

impl Ext {
    fn of(schema: &Value) -> Ext {
        let text = |key: &str| schema.get(key).and_then(Value::as_str).map(str::to_owned);
        Ext {
            list_type: text("x-kubernetes-list-type"),
            list_map_keys: schema
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|keys| keys.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
            patch_strategy: text("x-kubernetes-patch-strategy"),
            patch_merge_key: text("x-kubernetes-patch-merge-key"),
            map_type: text("x-kubernetes-map-type"),
            empty_object_default: matches!(schema.get("default"), Some(Value::Object(d)) if d.is_empty()),
            default: schema.get("default").cloned(),
        }
    }
}

fn gvks(schema: &Value) -> Vec<Gvk> {
    let Some(list) = schema.get("x-kubernetes-group-version-kind").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|entry| {
            let field = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
            Some((field("group").unwrap_or_default(), field("version")?, field("kind")?))
        })
        .collect()
}
