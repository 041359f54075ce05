//! Strategic merge patch (`application/strategic-merge-patch+json`), as the API server
//! applies it to built-in kinds (apimachinery's `strategicpatch.StrategicMergeMapPatch`
//! with `MergeParallelList` and `IgnoreUnmatchedNulls`), with the patch metadata read from
//! the OpenAPI schema instead of Go struct tags:
//!
//! - Objects merge key by key; `null` deletes a key; a key absent from the original takes
//!   the patch value (its `null` fields and directives dropped; an object that is itself a
//!   `$patch` directive is not set, as the API server). An object field with
//!   `x-kubernetes-patch-strategy: replace` **or `x-kubernetes-map-type: atomic`** is
//!   replaced (the API server only looks at the strategy).
//! - Lists: with `x-kubernetes-patch-strategy` containing `merge`, items merge by
//!   `x-kubernetes-patch-merge-key` (lists of scalars: union). **Without a patch strategy,
//!   `x-kubernetes-list-type: map` merges by all the `x-kubernetes-list-map-keys` and
//!   `set` is a union** (an extension: the API server replaces such lists, e.g. a CSR's
//!   `status.conditions`). Anything else (`atomic`, no metadata) is replaced.
//! - Order of merged lists: items named in the patch in patch order, the others where they
//!   were relative to them, so new items come first (as the API server does).
//! - Directives: `$patch: replace` (an object or a list item: the rest of the patch
//!   replaces), `$patch: delete` (an object becomes `{}`; a list item deletes the items
//!   with its keys), `$patch: merge` (the default, accepted and dropped; the API server
//!   refuses it), `$retainKeys` (clears the other keys; every key the patch sets must be
//!   listed, else 400), `$deleteFromPrimitiveList/<field>` (removes values from a list of
//!   scalars), `$setElementOrder/<field>` (merges `<field>` and orders the result: listed
//!   items in the listed order; the patch list must follow that order, else 400).
//! - Errors: a body that is not an object is 400 (`json: cannot unmarshal array into Go
//!   value of type map[string]interface {}`); malformed directives 400 as the API server
//!   (`invalid patch format of retainKeys`, `... of primitive list`, `... of setElementOrder
//!   list`); merging into a field the schema does not declare 400 `unable to find api field
//!   in struct HorizontalPodAutoscalerSpec for the json field "foo"` (only reached when
//!   both sides hold an object or a list there); missing merge keys 400 `map: map[...]
//!   does not contain declared merge key: type`; lists of lists 422. Where this module
//!   answers 400, the API server passes the error on as a 500: a bad request here never
//!   gets a server error.

use kube_apigen_core::go::fmt as gofmt;
use serde_json::{Map, Value};

use super::PatchError;
use super::schema::{ListType, ObjectSchema, PatchStrategy, SchemaKind};

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Applies a strategic merge patch to `original`, by the rules of the module docs. With no schema, objects merge and lists are
/// replaced, as for a kind without patch metadata.
pub fn strategic_merge(original: &Value, patch: &Value, schema: Option<&ObjectSchema>) -> Result<Value, PatchError> {
    let patch = match patch {
        Value::Object(patch) => patch.clone(),
        // `encoding/json` leaves the map nil: nothing to merge.
        Value::Null => return Ok(original.clone()),
        other => {
            return Err(PatchError::BadRequest(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                gofmt::json_kind(other)
            )));
        }
    };
    let original = original.as_object().cloned().unwrap_or_default();
    let meta = Meta { schema: schema.cloned() };
    merge_map(original, patch, &meta).map(Value::Object)
}

/// Where in the schema a merge is (Go's `LookupPatchMeta`): `None` when unknown.
#[derive(Clone, Default)]
struct Meta {
    schema: Option<ObjectSchema>,
}

/// The patch metadata of one field (Go's `PatchMeta`).
#[derive(Default)]
struct FieldMeta {
    strategies: Vec<PatchStrategy>,
    merge_key: Option<String>,
    list_type: Option<ListType>,
    atomic_map: bool,
}

/// How a list field merges.
enum ListPlan {
    Replace,
    /// Merge, items identified by these keys (none: a list of scalars).
    Merge(Vec<String>),
}

impl FieldMeta {
    fn of(field: &ObjectSchema) -> FieldMeta {
        FieldMeta {
            strategies: field.patch_strategies(),
            merge_key: field.patch_merge_key(),
            list_type: field.list_type(),
            atomic_map: field.is_atomic_map(),
        }
    }

    fn replaces_map(&self) -> bool {
        self.strategies.contains(&PatchStrategy::Replace) || self.atomic_map
    }

    fn list_plan(&self) -> ListPlan {
        if self.strategies.contains(&PatchStrategy::Merge) {
            return ListPlan::Merge(self.merge_key.iter().cloned().collect());
        }
        match &self.list_type {
            Some(ListType::Map(keys)) if !keys.is_empty() => ListPlan::Merge(keys.clone()),
            Some(ListType::Set) => ListPlan::Merge(Vec::new()),
            _ => ListPlan::Replace,
        }
    }

    fn keys(&self) -> Vec<String> {
        match self.list_plan() {
            ListPlan::Merge(keys) => keys,
            ListPlan::Replace => self.merge_key.iter().cloned().collect(),
        }
    }
}

impl Meta {
    /// The schema and metadata of the object-valued field `key`.
    fn lookup_struct(&self, key: &str) -> Result<(Meta, FieldMeta), PatchError> {
        let Some(schema) = &self.schema else {
            return Ok((Meta::default(), FieldMeta::default()));
        };
        match schema.kind() {
            SchemaKind::Struct => {
                if let Some(field) = property_fold(schema, key) {
                    let meta = FieldMeta::of(&field);
                    return Ok((Meta { schema: Some(field) }, meta));
                }
                if let Some(value) = schema.additional_properties() {
                    return Ok((Meta { schema: Some(value) }, FieldMeta::default()));
                }
                Err(PatchError::Internal(format!(
                    "unable to find api field in struct {} for the json field {}",
                    schema.type_name(),
                    gofmt::quote(key)
                )))
            }
            SchemaKind::Map | SchemaKind::Any => {
                Ok((Meta { schema: schema.additional_properties() }, FieldMeta::default()))
            }
            SchemaKind::Array => Err(not_a_struct("slice")),
            SchemaKind::Scalar => Err(not_a_struct(go_kind(schema))),
        }
    }

    /// The element schema and the field's metadata of the list-valued field `key`.
    fn lookup_slice(&self, key: &str) -> Result<(Meta, FieldMeta), PatchError> {
        let (field, meta) = self.lookup_struct(key)?;
        let Some(schema) = field.schema else {
            return Ok((Meta::default(), meta));
        };
        match schema.kind() {
            SchemaKind::Array | SchemaKind::Any => Ok((Meta { schema: schema.items() }, meta)),
            _ => Err(PatchError::Internal("expected slice or array type, but got: struct".to_owned())),
        }
    }

    fn name(&self) -> String {
        match &self.schema {
            Some(schema) if !schema.type_name().is_empty() => schema.type_name().to_owned(),
            _ => "struct".to_owned(),
        }
    }
}

/// A property by its exact name, or else case-insensitively (as Go's JSON field lookup).
fn property_fold(schema: &ObjectSchema, key: &str) -> Option<ObjectSchema> {
    schema.property(key).or_else(|| {
        let lower = key.to_ascii_lowercase();
        if lower == key { None } else { schema.property(&lower) }
    })
}

fn not_a_struct(kind: &str) -> PatchError {
    PatchError::Internal(format!("merging an object in json but data type is not map or struct, instead is: {kind}"))
}

fn go_kind(schema: &ObjectSchema) -> &'static str {
    match schema.scalar_type() {
        ("integer", "int32") => "int32",
        ("integer", "int64") => "int64",
        ("integer", _) => "int",
        ("number", _) => "float64",
        ("boolean", _) => "bool",
        ("string", _) => "string",
        _ => "struct",
    }
}

fn no_merge_key(item: &Map<String, Value>, key: &str) -> PatchError {
    PatchError::Internal(format!(
        "map: {} does not contain declared merge key: {key}",
        gofmt::v(&Value::Object(item.clone()))
    ))
}

fn bad_arg_type(expected: &str, actual: &Value) -> PatchError {
    // `%s` of `reflect.TypeOf(actual)`, a nil `Type` for a nil value.
    let actual = gofmt::type_name(actual).unwrap_or("%!s(<nil>)");
    PatchError::Internal(format!("expected a {expected}, but received a {actual}"))
}

fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> PatchError {
    PatchError::Internal(format!(
        "unknown patch type: {} in map: {}",
        gofmt::s(directive),
        gofmt::v(&Value::Object(map.clone()))
    ))
}

/// The field a `$deleteFromPrimitiveList/<field>` or `$setElementOrder/<field>` key names.
fn extract_key(key: &str, prefix: &str) -> Result<String, PatchError> {
    match key.split_once('/') {
        Some((head, field)) if head == prefix => Ok(field.to_owned()),
        _ if prefix == DELETE_FROM_PRIMITIVE_LIST => {
            Err(PatchError::BadRequest("invalid patch format of primitive list".to_owned()))
        }
        _ => Err(PatchError::BadRequest("invalid patch format of setElementOrder list".to_owned())),
    }
}

fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    meta: &Meta,
) -> Result<Map<String, Value>, PatchError> {
    if let Some(directive) = patch.get(DIRECTIVE).cloned() {
        match directive.as_str() {
            Some("replace") => {
                patch.remove(DIRECTIVE);
                return Ok(clean_map(patch));
            }
            Some("delete") => return Ok(Map::new()),
            // The default, spelled out: accepted (the API server only knows replace and
            // delete in maps).
            Some("merge") => {
                patch.remove(DIRECTIVE);
            }
            _ => return Err(bad_patch_type(&directive, &patch)),
        }
    }
    apply_retain_keys(&mut original, &mut patch)?;
    merge_ordered_lists(&mut original, &mut patch, meta)?;

    let keys: Vec<String> = patch.keys().cloned().collect();
    for key in keys {
        let Some(patch_value) = patch.remove(&key) else {
            continue;
        };
        let (field, delete_list) = if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            (extract_key(&key, DELETE_FROM_PRIMITIVE_LIST)?, true)
        } else {
            (key, false)
        };
        if patch_value.is_null() {
            original.remove(&field);
            continue;
        }
        let same_shape = match original.get(&field) {
            None => false,
            Some(existing) => shape(existing) == shape(&patch_value),
        };
        if !same_shape {
            if !delete_list {
                insert_clean(&mut original, field, patch_value);
            }
            continue;
        }
        let existing = original.remove(&field).unwrap_or(Value::Null);
        match (existing, patch_value) {
            (Value::Object(existing), Value::Object(patch_value)) => {
                let (child, field_meta) = meta.lookup_struct(&field)?;
                let merged = if field_meta.replaces_map() {
                    clean_map(patch_value)
                } else {
                    merge_map(existing, patch_value, &child)?
                };
                original.insert(field, Value::Object(merged));
            }
            (Value::Array(existing), Value::Array(patch_value)) => {
                let (element, field_meta) = meta.lookup_slice(&field)?;
                let merged = merge_list_field(existing, patch_value, &element, &field_meta, delete_list)?;
                original.insert(field, Value::Array(merged));
            }
            (_, patch_value) => insert_clean(&mut original, field, patch_value),
        }
    }
    Ok(original)
}

#[derive(PartialEq, Eq)]
enum ValueShape {
    Object,
    Array,
    Scalar,
}

fn shape(value: &Value) -> ValueShape {
    match value {
        Value::Object(_) => ValueShape::Object,
        Value::Array(_) => ValueShape::Array,
        _ => ValueShape::Scalar,
    }
}

/// `$retainKeys: [...]`: keys of `original` not listed are cleared; every key the patch
/// sets must be listed.
fn apply_retain_keys(original: &mut Map<String, Value>, patch: &mut Map<String, Value>) -> Result<(), PatchError> {
    let Some(retain) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let bad = || PatchError::BadRequest("invalid patch format of retainKeys".to_owned());
    let Value::Array(retain) = retain else {
        return Err(bad());
    };
    let listed = |key: &str| retain.iter().any(|k| k.as_str() == Some(key));
    for (key, value) in patch.iter() {
        if value.is_null() || key.starts_with(DELETE_FROM_PRIMITIVE_LIST) || key.starts_with(SET_ELEMENT_ORDER) {
            continue;
        }
        if !listed(key) {
            return Err(bad());
        }
    }
    original.retain(|key, _| listed(key));
    Ok(())
}

/// `$setElementOrder/<field>`: merges `<field>` of the patch (if any) into the original
/// list, then orders the result: the listed items in the listed order, the others (only in
/// the original) where they were relative to the listed ones.
fn merge_ordered_lists(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    meta: &Meta,
) -> Result<(), PatchError> {
    let directives: Vec<String> = patch.keys().filter(|key| key.starts_with(SET_ELEMENT_ORDER)).cloned().collect();
    for key in directives {
        let order = patch.remove(&key).unwrap_or(Value::Null);
        let Value::Array(order) = order else {
            return Err(bad_arg_type("[]interface {}", &order));
        };
        let field = extract_key(&key, SET_ELEMENT_ORDER)?;
        let list_of = |value: Option<&Value>| -> Result<Option<Vec<Value>>, PatchError> {
            match value {
                None => Ok(None),
                Some(Value::Array(items)) => Ok(Some(items.clone())),
                Some(other) => Err(bad_arg_type("[]interface {}", other)),
            }
        };
        let original_list = list_of(original.get(&field))?;
        let patch_list = list_of(patch.get(&field))?;
        let (element, field_meta) = meta.lookup_slice(&field)?;
        let keys = field_meta.keys();
        validate_order(patch_list.as_deref().unwrap_or(&[]), &order, &keys)?;
        let merged = match (&original_list, &patch_list) {
            (Some(existing), None) => existing.clone(),
            (None, Some(patch_items)) => clean_list(patch_items.clone()),
            (Some(existing), Some(patch_items)) => {
                merge_list_field(existing.clone(), patch_items.clone(), &element, &field_meta, false)?
            }
            (None, None) => continue,
        };
        element_kind(&[original_list.as_deref().unwrap_or(&[]), patch_list.as_deref().unwrap_or(&[])])?;
        let (in_order, server_only) = partition(&merged, &order, &keys)?;
        let server_order = original_list.unwrap_or_default();
        let ordered = normalize_order(in_order, server_only, &order, &server_order, &keys);
        original.insert(field.clone(), Value::Array(ordered));
        patch.remove(&field);
    }
    Ok(())
}

/// The items of the patch list, deletions aside, must appear in the `$setElementOrder`
/// list in the same relative order.
fn validate_order(patch_list: &[Value], order: &[Value], keys: &[String]) -> Result<(), PatchError> {
    if order.is_empty() || patch_list.is_empty() {
        return Ok(());
    }
    let mut kept = Vec::new();
    for item in patch_list {
        if keys.is_empty() {
            kept.push(item);
            continue;
        }
        let Value::Object(map) = item else {
            return Err(bad_arg_type("map[string]interface {}", item));
        };
        if map.get(DIRECTIVE).and_then(Value::as_str) != Some("delete") {
            kept.push(item);
        }
    }
    let (mut p, mut o) = (0, 0);
    while p < kept.len() && o < order.len() {
        if matches!(kept[p], Value::Object(map) if map.contains_key(DIRECTIVE)) {
            p += 1;
            continue;
        }
        if same_item(kept[p], &order[o], keys)? {
            p += 1;
        }
        o += 1;
    }
    if p < kept.len() && o >= order.len() {
        return Err(PatchError::Internal(format!(
            "the order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}",
            gofmt::v(&Value::Array(patch_list.to_vec())),
            gofmt::v(&Value::Array(order.to_vec()))
        )));
    }
    Ok(())
}

/// Whether two items have the same merge key values (the same value, for scalars).
fn same_item(left: &Value, right: &Value, keys: &[String]) -> Result<bool, PatchError> {
    if keys.is_empty() {
        return Ok(left == right);
    }
    let Value::Object(left) = left else {
        return Err(bad_arg_type("map[string]interface {}", left));
    };
    let Value::Object(right) = right else {
        return Err(bad_arg_type("map[string]interface {}", right));
    };
    for key in keys {
        let l = left.get(key).ok_or_else(|| no_merge_key(left, key))?;
        let r = right.get(key).ok_or_else(|| no_merge_key(right, key))?;
        if l != r {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Where an item is in `list`, by merge key values (by value for scalars).
fn index_of(list: &[Value], item: &Value, keys: &[String]) -> Option<usize> {
    list.iter().position(|candidate| {
        if keys.is_empty() {
            return candidate == item;
        }
        keys.iter().all(|key| {
            let l = candidate.get(key);
            l.is_some() && l == item.get(key)
        })
    })
}

/// Splits `merged` into the items present in `by` and the others.
fn partition(merged: &[Value], by: &[Value], keys: &[String]) -> Result<(Vec<Value>, Vec<Value>), PatchError> {
    let (mut present, mut others) = (Vec::new(), Vec::new());
    for item in merged {
        if !keys.is_empty() {
            let Value::Object(map) = item else {
                return Err(bad_arg_type("map[string]interface {}", item));
            };
            if let Some(key) = keys.iter().find(|key| !map.contains_key(*key)) {
                return Err(no_merge_key(map, key));
            }
        }
        if index_of(by, item, keys).is_some() {
            present.push(item.clone());
        } else {
            others.push(item.clone());
        }
    }
    Ok((present, others))
}

/// Orders the patch items by `patch_order` and the server-only items by `server_order`,
/// then interleaves them: a server-only item goes before a patch item only when it came
/// before it in `server_order` (so new items come first, as the API server does).
fn normalize_order(
    mut patch_items: Vec<Value>,
    mut server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    keys: &[String],
) -> Vec<Value> {
    patch_items.sort_by_key(|item| index_of(patch_order, item, keys).unwrap_or(usize::MAX));
    server_only.sort_by_key(|item| index_of(server_order, item, keys).unwrap_or(usize::MAX));
    let mut out = Vec::with_capacity(patch_items.len() + server_only.len());
    let mut left = server_only.into_iter().peekable();
    let mut right = patch_items.into_iter().peekable();
    loop {
        match (left.peek(), right.peek()) {
            (Some(l), Some(r)) => {
                let li = index_of(server_order, l, keys);
                let ri = index_of(server_order, r, keys);
                let take_left = matches!((li, ri), (Some(li), Some(ri)) if li < ri);
                out.extend(if take_left { left.next() } else { right.next() });
            }
            (Some(_), None) => out.extend(left.next()),
            (None, Some(_)) => out.extend(right.next()),
            (None, None) => break,
        }
    }
    out
}

/// Go's `mergeSliceHandler`: merge lists merge, delete lists delete, others are replaced.
fn merge_list_field(
    original: Vec<Value>,
    patch: Vec<Value>,
    element: &Meta,
    field: &FieldMeta,
    delete_list: bool,
) -> Result<Vec<Value>, PatchError> {
    match field.list_plan() {
        ListPlan::Merge(keys) => merge_list(original, patch, element, &keys, delete_list),
        ListPlan::Replace if delete_list => merge_list(original, patch, element, &field.keys(), true),
        ListPlan::Replace => Ok(clean_list(patch)),
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum ElementKind {
    Map,
    /// Elements of this Go type (`None`: nil).
    Other(Option<&'static str>),
}

/// The common element type of some lists (Go's `sliceElementType`); `None` when empty.
fn element_kind(lists: &[&[Value]]) -> Result<Option<ElementKind>, PatchError> {
    let mut seen: Option<Option<&'static str>> = None;
    for item in lists.iter().flat_map(|list| list.iter()) {
        let kind = gofmt::type_name(item);
        match seen {
            None => {
                if item.is_array() {
                    return Err(PatchError::Unprocessable("lists of lists are not supported".to_owned()));
                }
                seen = Some(kind);
            }
            Some(previous) if previous != kind => {
                let all: Vec<String> = lists.iter().map(|list| gofmt::v(&Value::Array(list.to_vec()))).collect();
                return Err(PatchError::Internal(format!("list element types are not identical: [{}]", all.join(" "))));
            }
            Some(_) => {}
        }
    }
    Ok(seen
        .map(|kind| if kind == Some("map[string]interface {}") { ElementKind::Map } else { ElementKind::Other(kind) }))
}

/// Go's `mergeSlice`.
fn merge_list(
    original: Vec<Value>,
    patch: Vec<Value>,
    element: &Meta,
    keys: &[String],
    delete_list: bool,
) -> Result<Vec<Value>, PatchError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let Some(kind) = element_kind(&[&original, &patch])? else {
        return Ok(original);
    };
    if kind != ElementKind::Map {
        if delete_list {
            return Ok(original.into_iter().filter(|item| !patch.contains(item)).collect());
        }
        let mut merged: Vec<Value> = Vec::with_capacity(original.len() + patch.len());
        for item in original.iter().chain(patch.iter()) {
            if !merged.contains(item) {
                merged.push(item.clone());
            }
        }
        let (in_patch, server_only) = partition(&merged, &patch, &[])?;
        return Ok(normalize_order(in_patch, server_only, &patch, &original, &[]));
    }
    if keys.is_empty() {
        return Err(PatchError::Internal(format!("cannot merge lists without merge key for {}", element.name())));
    }
    let (original, patch) = apply_list_directives(original, patch, keys)?;
    let mut merged = original.clone();
    for item in &patch {
        let Value::Object(patch_item) = item else {
            return Err(bad_arg_type("map[string]interface {}", item));
        };
        if let Some(key) = keys.iter().find(|key| !patch_item.contains_key(*key)) {
            return Err(no_merge_key(patch_item, key));
        }
        let found = find_by_keys(&merged, patch_item, keys)?;
        match found {
            Some(index) => {
                let existing = std::mem::take(&mut merged[index]);
                let Value::Object(existing) = existing else {
                    return Err(bad_arg_type("map[string]interface {}", &existing));
                };
                merged[index] = Value::Object(merge_map(existing, patch_item.clone(), element)?);
            }
            None => {
                if let Some(clean) = remove_directives(discard_nulls(item.clone())) {
                    merged.push(clean);
                }
            }
        }
    }
    let (in_patch, server_only) = partition(&merged, &patch, keys)?;
    Ok(normalize_order(in_patch, server_only, &patch, &original, keys))
}

/// The `$patch` items of a merging list of maps: `delete` removes the items with the same
/// keys from the original, `replace` makes the other patch items the whole list, `merge`
/// (the default, spelled out) is dropped from the item. Returns the original and the patch
/// without them.
fn apply_list_directives(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    keys: &[String],
) -> Result<(Vec<Value>, Vec<Value>), PatchError> {
    let mut plain = Vec::with_capacity(patch.len());
    let mut replace = false;
    for item in patch {
        let Value::Object(mut map) = item else {
            return Err(bad_arg_type("map[string]interface {}", &item));
        };
        let Some(directive) = map.get(DIRECTIVE).cloned() else {
            plain.push(Value::Object(map));
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                if let Some(key) = keys.iter().find(|key| !map.contains_key(*key)) {
                    return Err(no_merge_key(&map, key));
                }
                let mut kept = Vec::with_capacity(original.len());
                for candidate in original {
                    let Value::Object(candidate_map) = &candidate else {
                        return Err(PatchError::Internal(format!("value for key {} is not a map", kept.len())));
                    };
                    if !keys.iter().all(|key| candidate_map.get(key) == map.get(key)) {
                        kept.push(candidate);
                    }
                }
                original = kept;
            }
            Some("replace") => replace = true,
            Some("merge") => {
                map.remove(DIRECTIVE);
                plain.push(Value::Object(map));
            }
            _ => return Err(bad_patch_type(&directive, &map)),
        }
    }
    if replace {
        return Ok((clean_list(plain), Vec::new()));
    }
    Ok((original, plain))
}

fn find_by_keys(list: &[Value], item: &Map<String, Value>, keys: &[String]) -> Result<Option<usize>, PatchError> {
    for (index, candidate) in list.iter().enumerate() {
        let Value::Object(candidate) = candidate else {
            return Err(PatchError::Internal(format!("value for key {index} is not a map")));
        };
        if keys.iter().all(|key| candidate.get(key).is_some() && candidate.get(key) == item.get(key)) {
            return Ok(Some(index));
        }
    }
    Ok(None)
}

/// Sets `key` to a value taken from the patch as a whole: without `null` fields and
/// without directives (a map that is itself a directive is not kept).
fn insert_clean(map: &mut Map<String, Value>, key: String, value: Value) {
    match remove_directives(discard_nulls(value)) {
        Some(value) => {
            map.insert(key, value);
        }
        None => {
            map.remove(&key);
        }
    }
}

fn clean_map(map: Map<String, Value>) -> Map<String, Value> {
    match remove_directives(discard_nulls(Value::Object(map))) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

fn clean_list(items: Vec<Value>) -> Vec<Value> {
    items.into_iter().filter_map(|item| remove_directives(discard_nulls(item))).collect()
}

/// Go's `discardNullValuesFromPatch`: `null` fields of maps are dropped, at any depth.
fn discard_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, discard_nulls(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(discard_nulls).collect()),
        other => other,
    }
}

/// Go's `removeDirectives`: a map with `$patch` is dropped, at any depth. Also drops the
/// `$retainKeys`, `$setElementOrder/..` and `$deleteFromPrimitiveList/..` keys of such
/// values (the API server leaves them to its struct decoding, which ignores them).
fn remove_directives(value: Value) -> Option<Value> {
    match value {
        Value::Object(map) => {
            if map.contains_key(DIRECTIVE) {
                return None;
            }
            Some(Value::Object(
                map.into_iter()
                    .filter(|(key, _)| {
                        key != RETAIN_KEYS
                            && !key.starts_with(SET_ELEMENT_ORDER)
                            && !key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
                    })
                    .filter_map(|(key, v)| remove_directives(v).map(|v| (key, v)))
                    .collect(),
            ))
        }
        Value::Array(items) => Some(Value::Array(items.into_iter().filter_map(remove_directives).collect())),
        other => Some(other),
    }
}
