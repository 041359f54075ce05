//! Schemas as typed values: the OpenAPI keywords the generator understands, and the
//! Kubernetes extensions ([`super::k8s::Extensions`]).

use serde_json::{Number, Value};

use super::Loc;
use super::k8s::Extensions;

/// One schema (a named one, or one nested in another or in an operation).
#[derive(Clone, Debug)]
pub struct Schema {
    pub loc: Loc,
    pub description: Option<String>,
    /// `$ref`: the schema is the named one, whatever else it says.
    pub reference: Option<Reference>,
    /// `allOf` with its one schema (how Kubernetes wraps a `$ref` that has siblings).
    pub all_of: Option<Box<Schema>>,
    pub ty: Option<SchemaType>,
    /// `format`, checked to be one Kubernetes knows for the type.
    pub format: Option<String>,
    /// `properties`, in the document's order.
    pub properties: Vec<(String, Schema)>,
    /// `required`, each one of the properties.
    pub required: Vec<String>,
    pub items: Option<Box<Schema>>,
    pub additional_properties: Option<AdditionalProperties>,
    /// `enum`, without `null`; empty when the schema states none.
    pub enum_values: Vec<Value>,
    pub default: Option<Value>,
    pub nullable: bool,
    pub keywords: Keywords,
    pub k8s: Extensions,
}

/// A `$ref` to a named schema (`#/components/schemas/<name>`), checked to exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub name: String,
    /// Where the `$ref` is written.
    pub loc: Loc,
}

/// `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

/// `additionalProperties` other than `false`.
#[derive(Clone, Debug)]
pub enum AdditionalProperties {
    /// `true`: values of any shape.
    Any,
    Schema(Box<Schema>),
}

/// The validation keywords of one schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keywords {
    /// `minimum`, with `exclusiveMinimum`.
    pub minimum: Option<Bound>,
    /// `maximum`, with `exclusiveMaximum`.
    pub maximum: Option<Bound>,
    /// `minLength`, in characters.
    pub min_length: Option<u64>,
    /// `maxLength`, in characters.
    pub max_length: Option<u64>,
    /// `pattern`, checked to compile.
    pub pattern: Option<String>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
}

/// `minimum`/`maximum` with the exclusive form of either OpenAPI version
/// (`exclusiveMinimum: true` beside it, or `exclusiveMinimum: <bound>` alone).
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    /// As written: integers stay exact beyond 2^53.
    pub value: Number,
    /// Whether the bound itself is outside the range.
    pub exclusive: bool,
}

impl Schema {
    /// Whether the schema declares properties (an object with a Rust struct).
    pub fn has_properties(&self) -> bool {
        !self.properties.is_empty()
    }

    /// The values of a string enum, if the schema is one: every value a string.
    pub fn string_enum(&self) -> Option<Vec<&str>> {
        if !matches!(self.ty, None | Some(SchemaType::String)) || self.enum_values.is_empty() {
            return None;
        }
        self.enum_values.iter().map(Value::as_str).collect()
    }
}
