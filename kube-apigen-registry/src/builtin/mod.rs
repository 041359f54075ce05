//! The strategies of the built-in kinds whose API server code does more than their specs
//! say, registered by [`crate::Server::builder`] when the API serves them:
//!
//! - **namespaces**: a create gets the `kubernetes` finalizer in `spec.finalizers`, the
//!   `Active` phase and the label `kubernetes.io/metadata.name` holding its name; only the `finalize` subresource changes `spec.finalizers`; a
//!   delete marks the namespace `Terminating` while `spec.finalizers` holds it (the
//!   store's collector empties it, then removes the finalizer); `default`, `kube-system`
//!   and `kube-public` may not be deleted.
//! - **configmaps**: `kubectl get` shows how many keys `data` and `binaryData` hold.
//! - **secrets**: `stringData` is written into `data` (base64) and never stored; `type`
//!   is `Opaque` when unset; `kubectl get` shows the type and how many keys `data` holds.
//! - **endpointslices** (`discovery.k8s.io`): `kubectl get` shows the address type and
//!   the first three ports and addresses, as the API server prints them.
//! - **services**: `type` is `ClusterIP`, `sessionAffinity` `None`, each port's
//!   `protocol` `TCP` and its `targetPort` its `port` when unset, as the API server
//!   defaults them. No cluster IP or node port is allocated.
//! - **pods**, and the pod templates of **deployments** and **replica sets** (`apps/v1`):
//!   the defaults the API server sets in code (policies, grace period, scheduler, image
//!   pull policy by tag, probe timings, volume modes; a pod's requests from its limits);
//!   a new pod is `Pending` with its QoS class; workloads get one replica, deployments
//!   a rolling update of 25% and 25%, a history of 10 and a deadline of 600 s; a
//!   workload's selector is checked against its template and may not change;
//!   `kubectl get` shows the columns the API server prints. No kubelet runs the pods and
//!   no controller makes a deployment's replica sets.

use std::sync::Arc;

use base64::Engine;
use kube_apigen::Status;
use kube_apigen::http::{AGE, TableConvertor};
use kube_apigen::resource::Column;
use serde_json::{Map, Value, json};

use crate::object::{meta_str, top_mut};
use crate::store::NAMESPACE_FINALIZER;
use crate::strategy::{Strategy, WriteContext};

mod workloads;

pub use workloads::{Pods, Workloads};

/// The label every namespace carries with its name, to be selected by it.
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The namespaces kube-apiserver refuses to delete.
const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The strategy of core/v1 `namespaces`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Namespaces;

impl Namespaces {
    /// Sets the name label. A name still to be generated (`generateName`) gets none.
    fn label_name(object: &mut Value) {
        let name = meta_str(object, "name").to_owned();
        if !name.is_empty() {
            let metadata = top_mut(object, "metadata");
            let labels = metadata.entry("labels").or_insert_with(|| json!({}));
            if let Some(labels) = labels.as_object_mut() {
                labels.insert(NAMESPACE_NAME_LABEL.to_owned(), json!(name));
            }
        }
    }
}

impl Strategy for Namespaces {
    fn prepare_for_create(&self, _: &WriteContext<'_>, object: &mut Value) {
        let spec = top_mut(object, "spec");
        let finalizers = spec.entry("finalizers").or_insert_with(|| json!([]));
        if let Some(list) = finalizers.as_array_mut()
            && !list.iter().any(|f| f.as_str() == Some(NAMESPACE_FINALIZER))
        {
            list.push(json!(NAMESPACE_FINALIZER));
        }
        top_mut(object, "status").insert("phase".to_owned(), json!("Active"));
        Self::label_name(object);
    }

    fn prepare_for_update(&self, context: &WriteContext<'_>, new: &mut Value, old: &Value) {
        Self::label_name(new);
        if context.subresource != Some("finalize") {
            let kept = old.pointer("/spec/finalizers").cloned();
            let spec = top_mut(new, "spec");
            match kept {
                Some(finalizers) => spec.insert("finalizers".to_owned(), finalizers),
                None => spec.remove("finalizers"),
            };
        }
    }

    fn subresources(&self) -> &[&'static str] {
        &["finalize"]
    }

    fn update_subresource(&self, _subresource: &str, old: &Value, body: &Value) -> Value {
        let mut new = old.clone();
        let finalizers = body.pointer("/spec/finalizers").cloned();
        let spec = top_mut(&mut new, "spec");
        match finalizers {
            Some(finalizers) => spec.insert("finalizers".to_owned(), finalizers),
            None => spec.remove("finalizers"),
        };
        new
    }

    fn admit_delete(&self, object: &Value) -> Result<(), Status> {
        let name = meta_str(object, "name");
        if IMMORTAL_NAMESPACES.contains(&name) {
            return Err(Status::forbidden("", "namespaces", name, "this namespace may not be deleted"));
        }
        Ok(())
    }

    fn holds_deletion(&self, object: &Value) -> bool {
        object.pointer("/spec/finalizers").and_then(Value::as_array).is_some_and(|f| !f.is_empty())
    }

    fn prepare_for_deletion(&self, object: &mut Value) {
        top_mut(object, "status").insert("phase".to_owned(), json!("Terminating"));
    }
}

/// The strategy of core/v1 `secrets`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Secrets;

impl Secrets {
    /// Writes `stringData` into `data`, and `type` when unset.
    fn normalize(object: &mut Value) {
        let Some(root) = object.as_object_mut() else {
            return;
        };
        if let Some(Value::Object(strings)) = root.remove("stringData") {
            let data = root.entry("data").or_insert_with(|| json!({}));
            if !data.is_object() {
                *data = json!({});
            }
            if let Some(data) = data.as_object_mut() {
                for (key, value) in strings {
                    let text = value.as_str().unwrap_or_default();
                    data.insert(key, json!(base64::engine::general_purpose::STANDARD.encode(text)));
                }
            }
        }
        set_if_unset(root, "type", json!("Opaque"));
    }
}

impl Strategy for Secrets {
    fn prepare_for_create(&self, _: &WriteContext<'_>, object: &mut Value) {
        Self::normalize(object);
    }

    fn prepare_for_update(&self, _: &WriteContext<'_>, new: &mut Value, _: &Value) {
        Self::normalize(new);
    }

    fn table(&self) -> Option<Arc<dyn TableConvertor>> {
        Some(Arc::new(DataTable { with_type: true, maps: &["data"] }))
    }
}

/// The strategy of core/v1 `configmaps`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConfigMaps;

impl Strategy for ConfigMaps {
    fn table(&self) -> Option<Arc<dyn TableConvertor>> {
        Some(Arc::new(DataTable { with_type: false, maps: &["data", "binaryData"] }))
    }
}

/// The `kubectl get` columns of a kind holding data by key, as the API server prints
/// them: `Data` counts the keys of `maps`; secrets show their `Type` first.
struct DataTable {
    with_type: bool,
    maps: &'static [&'static str],
}

/// A column of text after `Name`, printed from `json_path` or, when it is empty, by the
/// convertor.
pub(crate) const fn text_column(name: &'static str, description: &'static str, json_path: &'static str) -> Column {
    Column { name, type_: "string", format: "", description, priority: 0, json_path }
}

const TYPE_COLUMN: Column = text_column("Type", "What the data is for.", ".type");
const DATA_COLUMN: Column = text_column("Data", "How many keys the data holds.", "");

impl TableConvertor for DataTable {
    fn columns(&self) -> &[Column] {
        const WITH_TYPE: [Column; 3] = [TYPE_COLUMN, DATA_COLUMN, AGE];
        if self.with_type { &WITH_TYPE } else { &WITH_TYPE[1..] }
    }

    fn cells(&self, object: &Value) -> Vec<Value> {
        let keys: usize = self.maps.iter().filter_map(|map| object.get(map)?.as_object()).map(|map| map.len()).sum();
        vec![json!(keys)]
    }
}

/// The strategy of core/v1 `services`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Services;

impl Services {
    /// The API server's defaults of a service's spec.
    fn set_defaults(object: &mut Value) {
        let spec = top_mut(object, "spec");
        set_if_unset(spec, "type", json!("ClusterIP"));
        set_if_unset(spec, "sessionAffinity", json!("None"));
        for port in spec.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
            let Some(port) = port.as_object_mut() else {
                continue;
            };
            set_if_unset(port, "protocol", json!("TCP"));
            if port.get("targetPort").is_none_or(|target| target == &json!(0) || target == &json!(""))
                && let Some(number) = port.get("port").cloned()
            {
                port.insert("targetPort".to_owned(), number);
            }
        }
    }
}

impl Strategy for Services {
    fn prepare_for_create(&self, _: &WriteContext<'_>, object: &mut Value) {
        Self::set_defaults(object);
    }

    fn prepare_for_update(&self, _: &WriteContext<'_>, new: &mut Value, _: &Value) {
        Self::set_defaults(new);
    }
}

/// Sets `field` when it is missing, null or an empty string (Go's zero value of a
/// string, which its defaults replace); any other value stays.
fn set_if_unset(object: &mut Map<String, Value>, field: &str, default: Value) {
    match object.get_mut(field) {
        Some(value) if !value.is_null() && value != "" => {}
        Some(value) => *value = default,
        None => {
            object.insert(field.to_owned(), default);
        }
    }
}

/// The strategy of `discovery.k8s.io/v1` `endpointslices`.
#[derive(Clone, Copy, Debug, Default)]
pub struct EndpointSlices;

impl Strategy for EndpointSlices {
    fn table(&self) -> Option<Arc<dyn TableConvertor>> {
        Some(Arc::new(EndpointSliceTable))
    }
}

/// The `kubectl get` columns of endpoint slices.
struct EndpointSliceTable;

impl TableConvertor for EndpointSliceTable {
    fn columns(&self) -> &[Column] {
        const COLUMNS: [Column; 4] = [
            text_column("AddressType", "The kind of the addresses: IPv4, IPv6 or FQDN.", ".addressType"),
            text_column("Ports", "The first ports of the slice.", ""),
            text_column("Endpoints", "The first addresses of the slice's endpoints.", ""),
            AGE,
        ];
        &COLUMNS
    }

    fn cells(&self, object: &Value) -> Vec<Value> {
        let items = |field: &str| object.get(field).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // A port shows its number, else its name, else `*`.
        let ports =
            items("ports").iter().map(|port| match (port.get("port").and_then(Value::as_i64), port.get("name")) {
                (Some(number), _) => number.to_string(),
                (None, Some(Value::String(name))) => name.clone(),
                _ => "*".to_owned(),
            });
        let addresses = items("endpoints")
            .iter()
            .flat_map(|endpoint| endpoint.get("addresses").and_then(Value::as_array).into_iter().flatten())
            .map(|address| address.as_str().unwrap_or_default().to_owned());
        vec![json!(first_three(ports)), json!(first_three(addresses))]
    }
}

/// The first three of `items` joined with commas, `+ N more...` for the rest, `<unset>`
/// for none: the API server's printing of lists in a cell.
fn first_three(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.len() {
        0 => "<unset>".to_owned(),
        1..=3 => items.join(","),
        count => format!("{} + {} more...", items[..3].join(","), count - 3),
    }
}
