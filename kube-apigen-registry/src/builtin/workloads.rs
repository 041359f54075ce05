//! Pods and the workload kinds of `apps/v1` that hold a pod template: the defaults the
//! API server sets in code (its specs state few of them), the status a new pod starts
//! with, and the `kubectl get` columns.

use std::sync::Arc;

use kube_apigen::Quantity;
use kube_apigen::field::{ErrorList, FieldError, Path};
use kube_apigen::go::fmt::quote;
use kube_apigen::http::{AGE, TableConvertor};
use kube_apigen::resource::Column;
use serde_json::{Map, Value, json};

use super::{set_if_unset, text_column};
use crate::object::top_mut;
use crate::selector::label_selector_selects;
use crate::strategy::{Strategy, WriteContext};

/// The strategy of core/v1 `pods`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pods;

impl Pods {
    /// The defaults of a pod, beyond those of every pod template: requests default to
    /// limits, service links are on, and on the host's network each port is a host port.
    fn set_defaults(object: &mut Value) {
        let spec = top_mut(object, "spec");
        set_pod_spec_defaults(spec);
        set_if_unset(spec, "enableServiceLinks", json!(true));
        let host_network = spec.get("hostNetwork") == Some(&json!(true));
        for container in containers_mut(spec) {
            for port in items_mut(container, "ports").filter(|_| host_network) {
                if port.get("hostPort").and_then(Value::as_i64).unwrap_or_default() == 0
                    && let Some(number) = port.get("containerPort").cloned()
                {
                    port.insert("hostPort".to_owned(), number);
                }
            }
            let Some(resources) = container.get_mut("resources").and_then(Value::as_object_mut) else {
                continue;
            };
            let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
                continue;
            };
            if let Some(requests) = object_entry(resources, "requests") {
                for (resource, limit) in limits {
                    requests.entry(resource).or_insert(limit);
                }
            }
        }
    }
}

impl Strategy for Pods {
    fn prepare_for_create(&self, _: &WriteContext<'_>, object: &mut Value) {
        Self::set_defaults(object);
        let qos_class = qos_class(object.get("spec").unwrap_or(&Value::Null));
        let status = top_mut(object, "status");
        status.insert("phase".to_owned(), json!("Pending"));
        status.insert("qosClass".to_owned(), json!(qos_class));
    }

    fn prepare_for_update(&self, _: &WriteContext<'_>, new: &mut Value, _: &Value) {
        Self::set_defaults(new);
    }

    fn table(&self) -> Option<Arc<dyn TableConvertor>> {
        Some(Arc::new(PodTable))
    }
}

/// The strategy of the `apps/v1` workloads holding a pod template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workloads {
    /// `deployments`.
    Deployments,
    /// `replicasets`.
    ReplicaSets,
}

impl Workloads {
    /// One replica and the pod template's defaults; a deployment's rollout too.
    fn set_defaults(self, object: &mut Value) {
        let spec = top_mut(object, "spec");
        set_if_unset(spec, "replicas", json!(1));
        if let Some(template) = object_entry(spec, "template")
            && let Some(pod_spec) = object_entry(template, "spec")
        {
            set_pod_spec_defaults(pod_spec);
        }
        if self != Workloads::Deployments {
            return;
        }
        if let Some(strategy) = object_entry(spec, "strategy") {
            set_if_unset(strategy, "type", json!("RollingUpdate"));
            if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate")
                && let Some(rolling) = object_entry(strategy, "rollingUpdate")
            {
                set_if_unset(rolling, "maxUnavailable", json!("25%"));
                set_if_unset(rolling, "maxSurge", json!("25%"));
            }
        }
        set_if_unset(spec, "revisionHistoryLimit", json!(10));
        set_if_unset(spec, "progressDeadlineSeconds", json!(600));
    }
}

impl Strategy for Workloads {
    fn prepare_for_create(&self, _: &WriteContext<'_>, object: &mut Value) {
        self.set_defaults(object);
    }

    fn prepare_for_update(&self, _: &WriteContext<'_>, new: &mut Value, _: &Value) {
        self.set_defaults(new);
    }

    fn validate(&self, _: &WriteContext<'_>, object: &Value) -> ErrorList {
        workload_errors(object)
    }

    fn validate_update(&self, _: &WriteContext<'_>, new: &Value, old: &Value) -> ErrorList {
        workload_update_errors(new, old)
    }

    fn table(&self) -> Option<Arc<dyn TableConvertor>> {
        Some(Arc::new(*self))
    }
}

/// What the API server checks of a workload's selector and template beyond the specs:
/// the selector is not empty and selects the template's labels, and the template's pods
/// restart always and have no deadline. (Deployments and replica sets share the
/// wording, `for deployment` included.)
fn workload_errors(object: &Value) -> ErrorList {
    let mut errors = ErrorList::new();
    let spec = Path::ROOT.field("spec");
    let template = spec.field("template");
    let selector = object.pointer("/spec/selector").filter(|selector| selector.is_object());
    if let Some(selector) = selector {
        let labels = selector.get("matchLabels").and_then(Value::as_object).map_or(0, Map::len);
        let expressions = selector.get("matchExpressions").and_then(Value::as_array).map_or(0, Vec::len);
        if labels + expressions == 0 {
            errors.push(FieldError::invalid_shown(
                &spec.field("selector"),
                go_label_selector(selector),
                "empty selector is invalid for deployment",
            ));
        } else {
            let labels = object.pointer("/spec/template/metadata/labels").and_then(Value::as_object);
            if !label_selector_selects(selector, labels) {
                let shown = go_string_map(object.pointer("/spec/template/metadata/labels"));
                errors.push(FieldError::invalid_shown(
                    &template.field("metadata").field("labels"),
                    shown,
                    "`selector` does not match template `labels`",
                ));
            }
        }
    }
    let pod_spec = template.field("spec");
    let restart_policy =
        object.pointer("/spec/template/spec/restartPolicy").and_then(Value::as_str).unwrap_or_default();
    if restart_policy != "Always" {
        errors.push(FieldError::not_supported(&pod_spec.field("restartPolicy"), restart_policy, &["Always"]));
    }
    if let Some(deadline) =
        object.pointer("/spec/template/spec/activeDeadlineSeconds").filter(|deadline| !deadline.is_null())
    {
        errors.push(FieldError::invalid(
            &pod_spec.field("activeDeadlineSeconds"),
            deadline.clone(),
            "activeDeadlineSeconds in ReplicaSet is not Supported",
        ));
    }
    errors
}

/// [`workload_errors`], and `apps/v1`'s immutable selector.
fn workload_update_errors(new: &Value, old: &Value) -> ErrorList {
    let mut errors = workload_errors(new);
    let selector = |object: &Value| object.pointer("/spec/selector").filter(|selector| !selector.is_null()).cloned();
    let new_selector = selector(new);
    if new_selector != selector(old) {
        let shown = new_selector.as_ref().map_or_else(|| quote("null"), go_label_selector);
        errors.push(FieldError::invalid_shown(
            &Path::ROOT.field("spec").field("selector"),
            shown,
            "field is immutable",
        ));
    }
    errors
}

/// A `map[string]string` as Go's `%#v` prints it: keys sorted, `(nil)` when unset.
fn go_string_map(map: Option<&Value>) -> String {
    match map.and_then(Value::as_object) {
        None => "map[string]string(nil)".to_owned(),
        Some(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_key(|(key, _)| *key);
            let entries: Vec<String> = entries
                .iter()
                .map(|(key, value)| format!("{}:{}", quote(key), quote(value.as_str().unwrap_or_default())))
                .collect();
            format!("map[string]string{{{}}}", entries.join(", "))
        }
    }
}

/// A `metav1.LabelSelector` as Go's `%#v` prints it.
fn go_label_selector(selector: &Value) -> String {
    let expressions = match selector.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
        Some(expressions) => {
            let printed: Vec<String> = expressions
                .iter()
                .map(|expression| {
                    let text = |field: &str| quote(expression.get(field).and_then(Value::as_str).unwrap_or_default());
                    let values = match expression.get("values").and_then(Value::as_array) {
                        None => "[]string(nil)".to_owned(),
                        Some(values) => {
                            let values: Vec<String> =
                                values.iter().map(|v| quote(v.as_str().unwrap_or_default())).collect();
                            format!("[]string{{{}}}", values.join(", "))
                        }
                    };
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{values}}}",
                        text("key"),
                        text("operator")
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", printed.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{expressions}}}",
        go_string_map(selector.get("matchLabels"))
    )
}

/// The defaults of every pod spec, a pod's own or a template's: its policies, its
/// containers', their probes' and its volumes'.
fn set_pod_spec_defaults(spec: &mut Map<String, Value>) {
    for (field, default) in [
        ("dnsPolicy", json!("ClusterFirst")),
        ("restartPolicy", json!("Always")),
        ("securityContext", json!({})),
        ("terminationGracePeriodSeconds", json!(30)),
        ("schedulerName", json!("default-scheduler")),
    ] {
        set_if_unset(spec, field, default);
    }
    for container in containers_mut(spec) {
        set_container_defaults(container);
    }
    for volume in items_mut(spec, "volumes") {
        set_volume_defaults(volume);
    }
}

fn set_container_defaults(container: &mut Map<String, Value>) {
    let pull_policy = if image_tag(container.get("image").and_then(Value::as_str).unwrap_or_default()) == "latest" {
        "Always"
    } else {
        "IfNotPresent"
    };
    set_if_unset(container, "imagePullPolicy", json!(pull_policy));
    set_if_unset(container, "terminationMessagePath", json!("/dev/termination-log"));
    set_if_unset(container, "terminationMessagePolicy", json!("File"));
    for port in items_mut(container, "ports") {
        set_if_unset(port, "protocol", json!("TCP"));
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let Some(probe) = container.get_mut(probe).and_then(Value::as_object_mut) else {
            continue;
        };
        // Go's fields are plain numbers: zero is unset.
        for (field, default) in
            [("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)]
        {
            if probe.get(field).and_then(Value::as_i64).unwrap_or_default() == 0 {
                probe.insert(field.to_owned(), json!(default));
            }
        }
        if let Some(get) = probe.get_mut("httpGet").and_then(Value::as_object_mut) {
            set_if_unset(get, "path", json!("/"));
            set_if_unset(get, "scheme", json!("HTTP"));
        }
    }
    for env in items_mut(container, "env") {
        if let Some(field_ref) =
            env.get_mut("valueFrom").and_then(|from| from.get_mut("fieldRef")).and_then(Value::as_object_mut)
        {
            set_if_unset(field_ref, "apiVersion", json!("v1"));
        }
    }
}

/// A volume without a source (no field besides its name) is an empty directory; the
/// files of configMap and secret volumes get mode 0644.
fn set_volume_defaults(volume: &mut Map<String, Value>) {
    if !volume.keys().any(|field| field != "name") {
        volume.insert("emptyDir".to_owned(), json!({}));
    }
    for source in ["configMap", "secret"] {
        if let Some(source) = volume.get_mut(source).and_then(Value::as_object_mut) {
            // 0644, written in decimal as JSON has no octal.
            set_if_unset(source, "defaultMode", json!(420));
        }
    }
}

/// The tag of an image reference as the kubelet reads it: `latest` when the reference
/// names neither a tag nor a digest, empty when it names only a digest.
fn image_tag(image: &str) -> &str {
    let (name, digest) = match image.split_once('@') {
        Some((name, _)) => (name, true),
        None => (image, false),
    };
    let last_component = name.rsplit('/').next().unwrap_or(name);
    match last_component.split_once(':') {
        Some((_, tag)) => tag,
        None if digest => "",
        None => "latest",
    }
}

/// The quality of service class of a pod, from the CPU and memory its containers request
/// and are limited to: `Guaranteed` when every container is limited in both and requests
/// what it is limited to, `BestEffort` when none requests or is limited in either,
/// `Burstable` otherwise.
fn qos_class(spec: &Value) -> &'static str {
    const RESOURCES: [&str; 2] = ["cpu", "memory"];
    let containers = ["containers", "initContainers"]
        .into_iter()
        .flat_map(|field| spec.get(field).and_then(Value::as_array).into_iter().flatten());
    let (mut any_set, mut guaranteed) = (false, true);
    for container in containers {
        let quantity = |kind: &str, resource: &str| {
            container
                .pointer(&format!("/resources/{kind}/{resource}"))
                .and_then(Value::as_str)
                .map(|text| Quantity(text.to_owned()))
                .filter(|quantity| quantity.amount().is_ok_and(|amount| !amount.is_zero()))
        };
        for resource in RESOURCES {
            let (request, limit) = (quantity("requests", resource), quantity("limits", resource));
            any_set |= request.is_some() || limit.is_some();
            guaranteed &= limit.is_some() && request.as_ref().is_none_or(|request| Some(request) == limit.as_ref());
        }
    }
    match (any_set, guaranteed) {
        (false, _) => "BestEffort",
        (true, true) => "Guaranteed",
        (true, false) => "Burstable",
    }
}

/// The object in `field`, made when missing or null; `None` when it holds something else
/// (which validation reports).
fn object_entry<'a>(object: &'a mut Map<String, Value>, field: &str) -> Option<&'a mut Map<String, Value>> {
    set_if_unset(object, field, json!({}));
    object.get_mut(field).and_then(Value::as_object_mut)
}

/// The objects of the list in `field`.
fn items_mut<'a>(object: &'a mut Map<String, Value>, field: &str) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    object.get_mut(field).and_then(Value::as_array_mut).into_iter().flatten().filter_map(Value::as_object_mut)
}

/// The containers and init containers of a pod spec.
fn containers_mut(spec: &mut Map<String, Value>) -> impl Iterator<Item = &mut Map<String, Value>> {
    spec.iter_mut()
        .filter(|(field, _)| *field == "containers" || *field == "initContainers")
        .flat_map(|(_, list)| list.as_array_mut().into_iter().flatten())
        .filter_map(Value::as_object_mut)
}

/// `<none>`, as the API server prints a cell with nothing in it.
const NONE: &str = "<none>";

/// The `kubectl get pods` columns, as the API server prints them.
struct PodTable;

impl TableConvertor for PodTable {
    fn columns(&self) -> &[Column] {
        const COLUMNS: [Column; 8] = [
            text_column("Ready", "How many of the pod's containers are ready, of all.", ""),
            text_column("Status", "What the pod's containers are doing, in a word.", ""),
            text_column("Restarts", "How many times the pod's containers were restarted.", ""),
            AGE,
            Column { priority: 1, ..text_column("IP", "The pod's IP address.", "") },
            Column { priority: 1, ..text_column("Node", "The node the pod is bound to.", "") },
            Column { priority: 1, ..text_column("Nominated Node", "The node the scheduler has in mind.", "") },
            Column { priority: 1, ..text_column("Readiness Gates", "How many readiness gates are met, of all.", "") },
        ];
        &COLUMNS
    }

    fn cells(&self, pod: &Value) -> Vec<Value> {
        let text = |pointer: &str| pod.pointer(pointer).and_then(Value::as_str).filter(|text| !text.is_empty());
        let statuses =
            pod.pointer("/status/containerStatuses").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let containers = pod.pointer("/spec/containers").and_then(Value::as_array).map_or(0, Vec::len);
        let ready = statuses.iter().filter(|status| status.get("ready") == Some(&json!(true))).count();
        let restarts: i64 = statuses.iter().filter_map(|status| status.get("restartCount")?.as_i64()).sum();
        vec![
            json!(format!("{ready}/{containers}")),
            json!(pod_status(pod, statuses)),
            json!(restarts.to_string()),
            json!(text("/status/podIP").unwrap_or(NONE)),
            json!(text("/spec/nodeName").unwrap_or(NONE)),
            json!(text("/status/nominatedNodeName").unwrap_or(NONE)),
            // The specs' PodSpec has no readiness gates.
            json!(NONE),
        ]
    }
}

/// A pod's `Status` cell: `Terminating` once deleted, else the reason a container waits
/// or ended with, else the pod's reason or phase.
fn pod_status(pod: &Value, statuses: &[Value]) -> String {
    if pod.pointer("/metadata/deletionTimestamp").is_some_and(|time| !time.is_null()) {
        return "Terminating".to_owned();
    }
    let text = |value: &Value, pointer: &str| {
        value.pointer(pointer).and_then(Value::as_str).filter(|text| !text.is_empty()).map(str::to_owned)
    };
    let mut reason = text(pod, "/status/reason").or_else(|| text(pod, "/status/phase")).unwrap_or_default();
    for status in statuses.iter().rev() {
        if let Some(waiting) = text(status, "/state/waiting/reason") {
            reason = waiting;
        } else if let Some(terminated) = status.pointer("/state/terminated") {
            reason = text(terminated, "/reason").unwrap_or_else(|| {
                match terminated.get("signal").and_then(Value::as_i64).filter(|signal| *signal != 0) {
                    Some(signal) => format!("Signal:{signal}"),
                    None => {
                        format!("ExitCode:{}", terminated.get("exitCode").and_then(Value::as_i64).unwrap_or_default())
                    }
                }
            });
        }
    }
    reason
}

/// A column of whole numbers after `Name`, printed by the convertor.
const fn count_column(name: &'static str, description: &'static str) -> Column {
    Column { type_: "integer", ..text_column(name, description, "") }
}

const WIDE_COLUMNS: [Column; 3] = [
    Column { priority: 1, ..text_column("Containers", "The names of the template's containers.", "") },
    Column { priority: 1, ..text_column("Images", "The images of the template's containers.", "") },
    Column { priority: 1, ..text_column("Selector", "The labels of the pods the workload owns.", "") },
];

/// The `kubectl get` columns of a workload.
impl TableConvertor for Workloads {
    fn columns(&self) -> &[Column] {
        const DEPLOYMENT: [Column; 7] = [
            text_column("Ready", "How many replicas are ready, of those wanted.", ""),
            count_column("Up-to-date", "How many replicas run the current template."),
            count_column("Available", "How many replicas are available."),
            AGE,
            WIDE_COLUMNS[0],
            WIDE_COLUMNS[1],
            WIDE_COLUMNS[2],
        ];
        const REPLICA_SET: [Column; 7] = [
            count_column("Desired", "How many replicas are wanted."),
            count_column("Current", "How many replicas there are."),
            count_column("Ready", "How many replicas are ready."),
            AGE,
            WIDE_COLUMNS[0],
            WIDE_COLUMNS[1],
            WIDE_COLUMNS[2],
        ];
        match self {
            Workloads::Deployments => &DEPLOYMENT,
            Workloads::ReplicaSets => &REPLICA_SET,
        }
    }

    fn cells(&self, object: &Value) -> Vec<Value> {
        let count = |pointer: &str| object.pointer(pointer).and_then(Value::as_i64).unwrap_or_default();
        let containers = object
            .pointer("/spec/template/spec/containers")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let joined = |field: &str| {
            let values: Vec<&str> = containers.iter().filter_map(|container| container.get(field)?.as_str()).collect();
            values.join(",")
        };
        let mut cells = match self {
            Workloads::Deployments => vec![
                json!(format!("{}/{}", count("/status/readyReplicas"), count("/spec/replicas"))),
                json!(count("/status/updatedReplicas")),
                json!(count("/status/availableReplicas")),
            ],
            Workloads::ReplicaSets => {
                vec![
                    json!(count("/spec/replicas")),
                    json!(count("/status/replicas")),
                    json!(count("/status/readyReplicas")),
                ]
            }
        };
        cells.extend([
            json!(joined("name")),
            json!(joined("image")),
            json!(selector_text(object.pointer("/spec/selector"))),
        ]);
        cells
    }
}

/// A label selector as the API server prints it: `key=value` for each label to match,
/// then each expression (`key in (a,b)`, `key notin (a)`, `key`, `!key`), comma-separated.
fn selector_text(selector: Option<&Value>) -> String {
    let Some(selector) = selector else {
        return NONE.to_owned();
    };
    let mut terms: Vec<String> = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
        .collect();
    for expression in selector.get("matchExpressions").and_then(Value::as_array).into_iter().flatten() {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        terms.push(match expression.get("operator").and_then(Value::as_str).unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "DoesNotExist" => format!("!{key}"),
            _ => key.to_owned(),
        });
    }
    if terms.is_empty() { NONE.to_owned() } else { terms.join(",") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_gets_the_defaults_the_api_server_sets_in_code() {
        let mut pod = json!({"spec": {
            "hostNetwork": true,
            "containers": [{
                "name": "web",
                "image": "nginx",
                "ports": [{"containerPort": 80}],
                "resources": {"limits": {"cpu": "1"}, "requests": {"memory": "1Gi"}},
                "readinessProbe": {"httpGet": {"port": 80}, "periodSeconds": 5},
                "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
            }],
            "volumes": [{"name": "scratch"}, {"name": "settings", "configMap": {"name": "web"}}],
            "restartPolicy": "Never",
        }});
        Pods::set_defaults(&mut pod);
        let expected = json!({"spec": {
            "hostNetwork": true,
            "containers": [{
                "name": "web",
                "image": "nginx",
                "imagePullPolicy": "Always",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "ports": [{"containerPort": 80, "hostPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1", "memory": "1Gi"}},
                "readinessProbe": {
                    "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
                    "periodSeconds": 5,
                    "timeoutSeconds": 1,
                    "successThreshold": 1,
                    "failureThreshold": 3,
                },
                "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName", "apiVersion": "v1"}}}],
            }],
            "volumes": [
                {"name": "scratch", "emptyDir": {}},
                {"name": "settings", "configMap": {"name": "web", "defaultMode": 420}},
            ],
            "restartPolicy": "Never",
            "dnsPolicy": "ClusterFirst",
            "securityContext": {},
            "terminationGracePeriodSeconds": 30,
            "schedulerName": "default-scheduler",
            "enableServiceLinks": true,
        }});
        assert_eq!(pod, expected);
        assert_eq!(qos_class(&pod["spec"]), "Burstable");
    }

    #[test]
    fn a_deployment_template_gets_the_pod_spec_defaults_but_not_the_pods() {
        let mut deployment = json!({"spec": {"template": {"spec": {"containers": [{
            "name": "web",
            "image": "nginx:1.27",
            "resources": {"limits": {"cpu": "1"}},
        }]}}}});
        Workloads::Deployments.set_defaults(&mut deployment);
        let expected = json!({"spec": {
            "replicas": 1,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
            "template": {"spec": {
                "containers": [{
                    "name": "web",
                    "image": "nginx:1.27",
                    "imagePullPolicy": "IfNotPresent",
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "resources": {"limits": {"cpu": "1"}},
                }],
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "securityContext": {},
                "terminationGracePeriodSeconds": 30,
                "schedulerName": "default-scheduler",
            }},
        }});
        assert_eq!(deployment, expected);
        let mut recreate = json!({"spec": {"strategy": {"type": "Recreate"}}});
        Workloads::Deployments.set_defaults(&mut recreate);
        assert_eq!(recreate["spec"]["strategy"], json!({"type": "Recreate"}));
    }

    #[test]
    fn an_image_without_tag_or_digest_is_latest() {
        assert_eq!(image_tag("nginx"), "latest");
        assert_eq!(image_tag("registry:5000/team/nginx"), "latest");
        assert_eq!(image_tag("registry:5000/team/nginx:1.27"), "1.27");
        assert_eq!(image_tag("nginx@sha256:abcd"), "");
        assert_eq!(image_tag("nginx:1.27@sha256:abcd"), "1.27");
    }

    #[test]
    fn the_qos_class_follows_requests_and_limits() {
        let pod = |resources: Value| json!({"containers": [{"name": "a", "resources": resources}]});
        assert_eq!(qos_class(&pod(json!({}))), "BestEffort");
        assert_eq!(qos_class(&pod(json!({"requests": {"cpu": "100m"}}))), "Burstable");
        assert_eq!(qos_class(&pod(json!({"limits": {"cpu": "1", "memory": "1Gi"}}))), "Guaranteed");
        assert_eq!(
            qos_class(&pod(
                json!({"requests": {"cpu": "1000m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}})
            )),
            "Guaranteed"
        );
        assert_eq!(
            qos_class(&pod(
                json!({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}})
            )),
            "Burstable"
        );
    }

    #[test]
    fn a_selector_prints_its_labels_then_its_expressions() {
        let selector = json!({
            "matchLabels": {"app": "web", "tier": "front"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["a", "b"]},
                {"key": "gone", "operator": "DoesNotExist"},
            ],
        });
        assert_eq!(selector_text(Some(&selector)), "app=web,tier=front,env in (a,b),!gone");
        assert_eq!(selector_text(None), "<none>");
    }
}
