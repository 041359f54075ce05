//! The Swagger 2.0 document as gnostic's protobuf `openapi.v2.Document` (proto3): what
//! kube-openapi serves for `application/com.github.proto-openapi.spec.v2.v1.0+protobuf`,
//! and what kubectl 1.27 and 1.28 read. Field numbers are those of gnostic's
//! `OpenAPIv2.proto`; each JSON object becomes its message as gnostic's compiler reads it:
//! maps as lists of named entries, `x-` keys as vendor extensions and `default`, `enum` and
//! `example` values as `Any` messages holding their YAML text, alternatives (a parameter
//! in the body or not, a schema or `true`) as the `oneof` member they are.

use prost::encoding::{WireType, encode_key};
use serde_json::Value;

use kube_apigen_core::protobuf::{self, encode_bytes};

/// The document's message bytes.
pub(crate) fn document(swagger: &Value) -> Vec<u8> {
    let mut out = Message::default();
    out.string(1, &swagger["swagger"]);
    out.message(2, info(&swagger["info"]));
    out.string(3, &swagger["host"]);
    out.string(4, &swagger["basePath"]);
    out.strings(5, &swagger["schemes"]);
    out.strings(6, &swagger["consumes"]);
    out.strings(7, &swagger["produces"]);
    if let Some(paths) = swagger["paths"].as_object() {
        let mut message = Message::default();
        message.vendor_extensions(1, &swagger["paths"]);
        for (name, item) in paths.iter().filter(|(name, _)| !name.starts_with("x-")) {
            message.message(2, named(name, path_item(item)));
        }
        out.message(8, message);
    }
    if let Some(definitions) = swagger["definitions"].as_object() {
        let mut message = Message::default();
        for (name, value) in definitions {
            message.message(1, named(name, schema(value)));
        }
        out.message(9, message);
    }
    for requirement in swagger["security"].as_array().into_iter().flatten() {
        let mut message = Message::default();
        for (name, scopes) in requirement.as_object().into_iter().flatten() {
            let mut strings = Message::default();
            strings.strings(1, scopes);
            message.message(1, named(name, strings));
        }
        out.message(12, message);
    }
    if let Some(definitions) = swagger["securityDefinitions"].as_object() {
        let mut message = Message::default();
        for (name, definition) in definitions {
            message.message(1, named(name, security_definition(definition)));
        }
        out.message(13, message);
    }
    out.vendor_extensions(16, swagger);
    out.0
}

/// One message being written, as proto3 writes it: fields at their zero value left out.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn string(&mut self, number: u32, value: &Value) {
        if let Some(text) = value.as_str().filter(|text| !text.is_empty()) {
            protobuf::encode_string(number, text, &mut self.0);
        }
    }

    fn strings(&mut self, number: u32, values: &Value) {
        for value in values.as_array().into_iter().flatten().filter_map(Value::as_str) {
            protobuf::encode_string(number, value, &mut self.0);
        }
    }

    fn bool(&mut self, number: u32, value: &Value) {
        if value.as_bool() == Some(true) {
            protobuf::encode(number, &true, &mut self.0);
        }
    }

    fn int64(&mut self, number: u32, value: &Value) {
        if let Some(value) = value.as_i64().filter(|v| *v != 0) {
            protobuf::encode(number, &value, &mut self.0);
        }
    }

    fn double(&mut self, number: u32, value: &Value) {
        if let Some(value) = value.as_f64().filter(|v| *v != 0.0) {
            protobuf::encode(number, &value, &mut self.0);
        }
    }

    /// A set message field (or a `oneof` member), written even when empty.
    fn message(&mut self, number: u32, message: Message) {
        encode_key(number, WireType::LengthDelimited, &mut self.0);
        encode_bytes(&message.0, &mut self.0);
    }

    /// `Any` (`default`, `example`): the value's YAML text in field 2.
    fn any(&mut self, number: u32, value: &Value) {
        if !value.is_null() {
            self.message(number, any(value));
        }
    }

    fn anys(&mut self, number: u32, values: &Value) {
        for value in values.as_array().into_iter().flatten() {
            self.message(number, any(value));
        }
    }

    /// The `x-` keys of an object, each a `NamedAny`.
    fn vendor_extensions(&mut self, number: u32, object: &Value) {
        for (name, value) in object.as_object().into_iter().flatten().filter(|(name, _)| name.starts_with("x-")) {
            self.message(number, named(name, any(value)));
        }
    }

    /// The keywords a parameter, its items and a schema share, by their field numbers.
    fn keywords(&mut self, value: &Value, numbers: &[(&str, u32)]) {
        for (key, number) in numbers {
            let field = &value[*key];
            match *key {
                "required" | "allowEmptyValue" | "exclusiveMaximum" | "exclusiveMinimum" | "uniqueItems"
                | "readOnly" => self.bool(*number, field),
                "maximum" | "minimum" | "multipleOf" => self.double(*number, field),
                "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" => {
                    self.int64(*number, field)
                }
                "default" | "example" => self.any(*number, field),
                "enum" => self.anys(*number, field),
                "items" if field.is_object() => self.message(*number, primitives_items(field)),
                _ => self.string(*number, field),
            }
        }
    }
}

fn any(value: &Value) -> Message {
    let mut message = Message::default();
    let yaml = serde_saphyr::to_string(value).unwrap_or_else(|_| value.to_string());
    protobuf::encode_string(2, &yaml, &mut message.0);
    message
}

/// A `Named…` entry: the name in field 1, the value in field 2.
fn named(name: &str, value: Message) -> Message {
    let mut message = Message::default();
    protobuf::encode_string(1, name, &mut message.0);
    message.message(2, value);
    message
}

fn info(value: &Value) -> Message {
    let mut message = Message::default();
    message.keywords(value, &[("title", 1), ("version", 2), ("description", 3), ("termsOfService", 4)]);
    message.vendor_extensions(7, value);
    message
}

fn path_item(item: &Value) -> Message {
    let mut message = Message::default();
    message.string(1, &item["$ref"]);
    for (method, number) in
        [("get", 2), ("put", 3), ("post", 4), ("delete", 5), ("options", 6), ("head", 7), ("patch", 8)]
    {
        if item[method].is_object() {
            message.message(number, operation(&item[method]));
        }
    }
    for parameter in item["parameters"].as_array().into_iter().flatten() {
        message.message(9, parameters_item(parameter));
    }
    message.vendor_extensions(10, item);
    message
}

fn operation(op: &Value) -> Message {
    let mut message = Message::default();
    message.strings(1, &op["tags"]);
    message.keywords(op, &[("summary", 2), ("description", 3), ("operationId", 5)]);
    message.strings(6, &op["produces"]);
    message.strings(7, &op["consumes"]);
    for parameter in op["parameters"].as_array().into_iter().flatten() {
        message.message(8, parameters_item(parameter));
    }
    if let Some(responses) = op["responses"].as_object() {
        let mut codes = Message::default();
        for (code, response) in responses.iter().filter(|(code, _)| !code.starts_with("x-")) {
            codes.message(1, named(code, response_value(response)));
        }
        codes.vendor_extensions(2, &op["responses"]);
        message.message(9, codes);
    }
    message.strings(10, &op["schemes"]);
    message.bool(11, &op["deprecated"]);
    message.vendor_extensions(13, op);
    message
}

/// `ParametersItem`: a parameter, or a reference to one.
fn parameters_item(parameter: &Value) -> Message {
    let mut item = Message::default();
    if parameter["$ref"].is_string() {
        item.message(2, json_reference(parameter));
        return item;
    }
    let mut oneof = Message::default();
    if parameter["in"] == "body" {
        let mut body = Message::default();
        body.keywords(parameter, &[("description", 1), ("name", 2), ("in", 3), ("required", 4)]);
        if parameter["schema"].is_object() {
            body.message(5, schema(&parameter["schema"]));
        }
        body.vendor_extensions(6, parameter);
        oneof.message(1, body);
    } else {
        let (member, numbers, vendor): (u32, &[(&str, u32)], u32) = match parameter["in"].as_str() {
            Some("header") => (1, PATH_OR_HEADER, 22),
            Some("formData") => (2, QUERY_OR_FORM, 23),
            Some("path") => (4, PATH_OR_HEADER, 22),
            _ => (3, QUERY_OR_FORM, 23),
        };
        let mut sub = Message::default();
        sub.keywords(parameter, numbers);
        sub.vendor_extensions(vendor, parameter);
        let mut non_body = Message::default();
        non_body.message(member, sub);
        oneof.message(2, non_body);
    }
    item.message(1, oneof);
    item
}

const QUERY_OR_FORM: &[(&str, u32)] = &[
    ("required", 1),
    ("in", 2),
    ("description", 3),
    ("name", 4),
    ("allowEmptyValue", 5),
    ("type", 6),
    ("format", 7),
    ("items", 8),
    ("collectionFormat", 9),
    ("default", 10),
    ("maximum", 11),
    ("exclusiveMaximum", 12),
    ("minimum", 13),
    ("exclusiveMinimum", 14),
    ("maxLength", 15),
    ("minLength", 16),
    ("pattern", 17),
    ("maxItems", 18),
    ("minItems", 19),
    ("uniqueItems", 20),
    ("enum", 21),
    ("multipleOf", 22),
];

const PATH_OR_HEADER: &[(&str, u32)] = &[
    ("required", 1),
    ("in", 2),
    ("description", 3),
    ("name", 4),
    ("type", 5),
    ("format", 6),
    ("items", 7),
    ("collectionFormat", 8),
    ("default", 9),
    ("maximum", 10),
    ("exclusiveMaximum", 11),
    ("minimum", 12),
    ("exclusiveMinimum", 13),
    ("maxLength", 14),
    ("minLength", 15),
    ("pattern", 16),
    ("maxItems", 17),
    ("minItems", 18),
    ("uniqueItems", 19),
    ("enum", 20),
    ("multipleOf", 21),
];

fn primitives_items(items: &Value) -> Message {
    let mut message = Message::default();
    message.keywords(
        items,
        &[
            ("type", 1),
            ("format", 2),
            ("items", 3),
            ("collectionFormat", 4),
            ("default", 5),
            ("maximum", 6),
            ("exclusiveMaximum", 7),
            ("minimum", 8),
            ("exclusiveMinimum", 9),
            ("maxLength", 10),
            ("minLength", 11),
            ("pattern", 12),
            ("maxItems", 13),
            ("minItems", 14),
            ("uniqueItems", 15),
            ("enum", 16),
            ("multipleOf", 17),
        ],
    );
    message.vendor_extensions(18, items);
    message
}

fn json_reference(value: &Value) -> Message {
    let mut message = Message::default();
    message.keywords(value, &[("$ref", 1), ("description", 2)]);
    message
}

/// `ResponseValue`: a response, or a reference to one.
fn response_value(response: &Value) -> Message {
    let mut value = Message::default();
    if response["$ref"].is_string() {
        value.message(2, json_reference(response));
        return value;
    }
    let mut message = Message::default();
    message.string(1, &response["description"]);
    if response["schema"].is_object() {
        let mut item = Message::default();
        item.message(1, schema(&response["schema"]));
        message.message(2, item);
    }
    message.vendor_extensions(5, response);
    value.message(1, message);
    value
}

fn schema(value: &Value) -> Message {
    let mut message = Message::default();
    message.keywords(
        value,
        &[
            ("$ref", 1),
            ("format", 2),
            ("title", 3),
            ("description", 4),
            ("default", 5),
            ("multipleOf", 6),
            ("maximum", 7),
            ("exclusiveMaximum", 8),
            ("minimum", 9),
            ("exclusiveMinimum", 10),
            ("maxLength", 11),
            ("minLength", 12),
            ("pattern", 13),
            ("maxItems", 14),
            ("minItems", 15),
            ("uniqueItems", 16),
            ("maxProperties", 17),
            ("minProperties", 18),
        ],
    );
    message.strings(19, &value["required"]);
    message.anys(20, &value["enum"]);
    match &value["additionalProperties"] {
        Value::Bool(allowed) => {
            let mut item = Message::default();
            protobuf::encode(2, allowed, &mut item.0);
            message.message(21, item);
        }
        additional @ Value::Object(_) => {
            let mut item = Message::default();
            item.message(1, schema(additional));
            message.message(21, item);
        }
        _ => {}
    }
    let types = match &value["type"] {
        Value::String(one) => vec![Value::String(one.clone())],
        Value::Array(many) => many.clone(),
        _ => Vec::new(),
    };
    if !types.is_empty() {
        let mut type_item = Message::default();
        type_item.strings(1, &Value::Array(types));
        message.message(22, type_item);
    }
    let items: Vec<&Value> = match &value["items"] {
        items @ Value::Object(_) => vec![items],
        Value::Array(many) => many.iter().collect(),
        _ => Vec::new(),
    };
    if !items.is_empty() {
        let mut items_item = Message::default();
        for item in items {
            items_item.message(1, schema(item));
        }
        message.message(23, items_item);
    }
    for part in value["allOf"].as_array().into_iter().flatten() {
        message.message(24, schema(part));
    }
    if let Some(properties) = value["properties"].as_object() {
        let mut named_schemas = Message::default();
        for (name, property) in properties {
            named_schemas.message(1, named(name, schema(property)));
        }
        message.message(25, named_schemas);
    }
    message.keywords(value, &[("discriminator", 26), ("readOnly", 27), ("example", 30)]);
    message.vendor_extensions(31, value);
    message
}

/// `SecurityDefinitionsItem`: the member its `type` (and OAuth2 `flow`) names.
fn security_definition(definition: &Value) -> Message {
    let (member, numbers, vendor): (u32, &[(&str, u32)], u32) =
        match (definition["type"].as_str(), definition["flow"].as_str()) {
            (Some("basic"), _) => (1, &[("type", 1), ("description", 2)], 3),
            (Some("oauth2"), Some("implicit")) => {
                (3, &[("type", 1), ("flow", 2), ("authorizationUrl", 4), ("description", 5)], 6)
            }
            (Some("oauth2"), Some("password")) => {
                (4, &[("type", 1), ("flow", 2), ("tokenUrl", 4), ("description", 5)], 6)
            }
            (Some("oauth2"), Some("application")) => {
                (5, &[("type", 1), ("flow", 2), ("tokenUrl", 4), ("description", 5)], 6)
            }
            (Some("oauth2"), _) => {
                (6, &[("type", 1), ("flow", 2), ("authorizationUrl", 4), ("tokenUrl", 5), ("description", 6)], 7)
            }
            _ => (2, &[("type", 1), ("name", 2), ("in", 3), ("description", 4)], 5),
        };
    let mut member_message = Message::default();
    member_message.keywords(definition, numbers);
    member_message.vendor_extensions(vendor, definition);
    let mut item = Message::default();
    item.message(member, member_message);
    item
}
