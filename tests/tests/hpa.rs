//! `autoscaling/v2` HorizontalPodAutoscaler: the fixtures decode into the generated types,
//! carry the expected content, and re-encode to equal JSON.

mod common;

use common::{assert_json_eq, decode, fixture, fixture_text, round_trip, time};
use generated::api::autoscaling::v2::{
    HPAScalingPolicyType, HPAScalingRulesSelectPolicy, HorizontalPodAutoscaler,
    HorizontalPodAutoscalerConditionStatus as CondStatus, HorizontalPodAutoscalerConditionType as CondType,
    HorizontalPodAutoscalerList, MetricSpec, MetricSpecType, MetricStatus, MetricStatusType, MetricTargetType,
};
use kube_apigen::{Quantity, Resource, Scope};

fn q(text: &str) -> Option<Quantity> {
    Some(Quantity::from(text))
}

#[test]
fn hpa_fixture_round_trips_to_equal_json() {
    let input = fixture("hpa.json");
    let (hpa, output) = round_trip::<HorizontalPodAutoscaler>("hpa.json", &input);
    assert_json_eq("hpa.json re-encoded", &input, &output);

    // A second pass changes nothing: decoding our own output gives the same value.
    let again: HorizontalPodAutoscaler = decode("re-encoded hpa.json", &output.to_string());
    assert_eq!(again, hpa);
}

#[test]
fn hpa_fixture_metadata_decodes_to_expected_values() {
    let hpa: HorizontalPodAutoscaler = decode("hpa.json", &fixture_text("hpa.json"));
    assert_eq!(hpa.api_version.as_deref(), Some(HorizontalPodAutoscaler::INFO.api_version().as_str()));
    assert_eq!(hpa.kind.as_deref(), Some(HorizontalPodAutoscaler::INFO.kind));

    let meta = hpa.metadata.as_ref().expect("metadata");
    assert_eq!(meta.name.as_deref(), Some("keda-hpa-checkout"));
    assert_eq!(meta.namespace.as_deref(), Some("shop"));
    assert_eq!(meta.uid.as_deref(), Some("5d5f2508-ed76-40b2-8242-199dc1b5fee0"));
    assert_eq!(meta.resource_version.as_deref(), Some("48213977"));
    assert_eq!(meta.generation, Some(3));
    let created = meta.creation_timestamp.expect("creationTimestamp");
    assert_eq!(created.0.as_second(), 1_793_607_271, "2026-11-02T08:14:31Z");
    assert_eq!(created.0.subsec_nanosecond(), 0);

    let labels = meta.labels.as_ref().expect("labels");
    assert_eq!(labels.len(), 4);
    assert_eq!(labels["scaledobject.keda.sh/name"], "checkout");
    let annotations = meta.annotations.as_ref().expect("annotations");
    // An annotation whose value is the empty string is kept, not dropped.
    assert_eq!(annotations.get("autoscaling.keda.sh/paused-replicas").map(String::as_str), Some(""));
    assert_eq!(annotations["meta.helm.sh/release-name"], "checkout");

    let owners = meta.owner_references.as_ref().expect("ownerReferences");
    assert_eq!(owners.len(), 1);
    assert_eq!(owners[0].api_version, "keda.sh/v1alpha1");
    assert_eq!(owners[0].kind, "ScaledObject");
    assert_eq!(owners[0].name, "checkout");
    assert_eq!(owners[0].uid, "d708f5ba-1a43-4e14-bf85-4afdaad7ae9c");
    assert_eq!(owners[0].controller, Some(true));
    assert_eq!(owners[0].block_owner_deletion, Some(true));

    let managed = meta.managed_fields.as_ref().expect("managedFields");
    assert_eq!(managed.len(), 2);
    assert_eq!(managed[0].manager.as_deref(), Some("keda"));
    assert_eq!(managed[0].operation.as_deref(), Some("Update"));
    assert_eq!(managed[0].subresource, None);
    assert_eq!(managed[0].time, Some(time("2026-11-20T16:40:02Z")));
    assert_eq!(managed[1].subresource.as_deref(), Some("status"));
    assert_eq!(managed[1].fields_type.as_deref(), Some("FieldsV1"));
    // fieldsV1 is kept as raw JSON, including keys that are themselves JSON.
    let fields = managed[0].fields_v1.as_ref().expect("fieldsV1");
    assert!(
        fields
            .pointer("/f:metadata/f:ownerReferences")
            .and_then(|v| v.get(r#"k:{"uid":"d708f5ba-1a43-4e14-bf85-4afdaad7ae9c"}"#))
            .is_some_and(|v| v == &serde_json::json!({})),
        "fieldsV1 ownerReferences key missing: {fields}"
    );
    assert_eq!(fields.pointer("/f:spec/f:behavior/f:scaleUp/f:tolerance"), Some(&serde_json::json!({})));
}

/// The one source field that goes with the metric's type is set, and no other.
fn assert_single_source(index: usize, metric: &MetricSpec) {
    let set = [
        ("resource", metric.resource.is_some()),
        ("containerResource", metric.container_resource.is_some()),
        ("pods", metric.pods.is_some()),
        ("object", metric.object.is_some()),
        ("external", metric.external.is_some()),
    ];
    let names: Vec<&str> = set.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
    assert_eq!(names.len(), 1, "metrics[{index}] has sources {names:?}");
    let expected = match metric.type_ {
        MetricSpecType::Resource => "resource",
        MetricSpecType::ContainerResource => "containerResource",
        MetricSpecType::Pods => "pods",
        MetricSpecType::Object => "object",
        MetricSpecType::External => "external",
        MetricSpecType::Other(ref other) => panic!("metrics[{index}] has unknown type {other}"),
    };
    assert_eq!(names[0], expected, "metrics[{index}]");
}

#[test]
fn hpa_fixture_spec_decodes_all_five_metric_sources() {
    let hpa: HorizontalPodAutoscaler = decode("hpa.json", &fixture_text("hpa.json"));
    let spec = &hpa.spec;
    assert_eq!(spec.scale_target_ref.api_version.as_deref(), Some("apps/v1"));
    assert_eq!(spec.scale_target_ref.kind, "Deployment");
    assert_eq!(spec.scale_target_ref.name, "checkout");
    assert_eq!(spec.min_replicas, Some(2));
    assert_eq!(spec.max_replicas, 40);

    let metrics = spec.metrics.as_ref().expect("metrics");
    let types: Vec<&MetricSpecType> = metrics.iter().map(|m| &m.type_).collect();
    assert_eq!(
        types,
        [
            &MetricSpecType::Resource,
            &MetricSpecType::ContainerResource,
            &MetricSpecType::Pods,
            &MetricSpecType::Object,
            &MetricSpecType::External,
        ]
    );
    for (i, metric) in metrics.iter().enumerate() {
        assert!(metric.type_.is_known());
        assert_single_source(i, metric);
    }

    // Resource: Utilization target.
    let resource = metrics[0].resource.as_ref().unwrap();
    assert_eq!(resource.name, "cpu");
    assert_eq!(resource.target.type_, MetricTargetType::Utilization);
    assert_eq!(resource.target.average_utilization, Some(70));
    assert_eq!((&resource.target.value, &resource.target.average_value), (&None, &None));

    // ContainerResource: AverageValue target with a binary-suffix quantity.
    let container = metrics[1].container_resource.as_ref().unwrap();
    assert_eq!((container.name.as_str(), container.container.as_str()), ("memory", "app"));
    assert_eq!(container.target.type_, MetricTargetType::AverageValue);
    assert_eq!(container.target.average_value, q("512Mi"));
    assert_eq!(container.target.average_utilization, None);

    // Pods: matchLabels selector.
    let pods = metrics[2].pods.as_ref().unwrap();
    assert_eq!(pods.metric.name, "http_requests_per_second");
    let selector = pods.metric.selector.as_ref().expect("pods selector");
    assert_eq!(selector.match_labels.as_ref().unwrap()["verb"], "GET");
    assert_eq!(selector.match_expressions, None);
    assert_eq!(pods.target.type_, MetricTargetType::AverageValue);
    assert_eq!(pods.target.average_value, q("250"));

    // Object: Value target, matchExpressions selector (In with values, DoesNotExist without).
    let object = metrics[3].object.as_ref().unwrap();
    assert_eq!(object.described_object.kind, "Ingress");
    assert_eq!(object.described_object.api_version.as_deref(), Some("networking.k8s.io/v1"));
    assert_eq!(object.target.type_, MetricTargetType::Value);
    assert_eq!(object.target.value, q("10k"));
    let expressions = object.metric.selector.as_ref().unwrap().match_expressions.as_ref().unwrap();
    assert_eq!(expressions.len(), 2);
    assert_eq!((expressions[0].key.as_str(), expressions[0].operator.as_str()), ("path", "In"));
    assert_eq!(expressions[0].values.as_deref(), Some(&["/api/cart".to_owned(), "/api/checkout".to_owned()][..]));
    assert_eq!((expressions[1].operator.as_str(), &expressions[1].values), ("DoesNotExist", &None));

    // External.
    let external = metrics[4].external.as_ref().unwrap();
    assert_eq!(external.metric.name, "s0-rabbitmq-orders");
    assert_eq!(external.target.type_, MetricTargetType::AverageValue);
    assert_eq!(external.target.average_value, q("30"));

    // All three target types appear across the metrics.
    let target_types: Vec<&MetricTargetType> =
        [&resource.target, &container.target, &pods.target, &object.target, &external.target]
            .iter()
            .map(|t| &t.type_)
            .collect();
    for wanted in [MetricTargetType::Utilization, MetricTargetType::Value, MetricTargetType::AverageValue] {
        assert!(target_types.contains(&&wanted), "no {wanted} target");
    }
}

#[test]
fn hpa_fixture_behavior_decodes_policies() {
    let hpa: HorizontalPodAutoscaler = decode("hpa.json", &fixture_text("hpa.json"));
    let behavior = hpa.spec.behavior.as_ref().expect("behavior");

    let up = behavior.scale_up.as_ref().expect("scaleUp");
    assert_eq!(up.stabilization_window_seconds, Some(0), "an explicit 0 is kept, not dropped");
    assert_eq!(up.select_policy, Some(HPAScalingRulesSelectPolicy::Max));
    assert_eq!(up.tolerance, q("50m"));
    let policies: Vec<(HPAScalingPolicyType, i32, i32)> =
        up.policies.as_ref().unwrap().iter().map(|p| (p.type_.clone(), p.value, p.period_seconds)).collect();
    assert_eq!(policies, [(HPAScalingPolicyType::Pods, 4, 15), (HPAScalingPolicyType::Percent, 100, 15)]);

    let down = behavior.scale_down.as_ref().expect("scaleDown");
    assert_eq!(down.stabilization_window_seconds, Some(300));
    assert_eq!(down.select_policy, Some(HPAScalingRulesSelectPolicy::Min));
    assert_eq!(down.tolerance, None);
    let policies: Vec<(HPAScalingPolicyType, i32, i32)> =
        down.policies.as_ref().unwrap().iter().map(|p| (p.type_.clone(), p.value, p.period_seconds)).collect();
    assert_eq!(policies, [(HPAScalingPolicyType::Percent, 10, 60), (HPAScalingPolicyType::Pods, 2, 60)]);
}

fn status_type(metric: &MetricStatus) -> &MetricStatusType {
    &metric.type_
}

#[test]
fn hpa_fixture_status_decodes_metrics_and_conditions() {
    let hpa: HorizontalPodAutoscaler = decode("hpa.json", &fixture_text("hpa.json"));
    let status = hpa.status.as_ref().expect("status");
    assert_eq!(status.observed_generation, Some(3));
    assert_eq!(status.current_replicas, Some(6));
    assert_eq!(status.desired_replicas, 7);
    assert_eq!(status.last_scale_time.map(|t| t.0.as_second()), Some(1_795_977_667));

    let current = status.current_metrics.as_ref().expect("currentMetrics");
    let types: Vec<&MetricStatusType> = current.iter().map(status_type).collect();
    assert_eq!(
        types,
        [
            &MetricStatusType::Resource,
            &MetricStatusType::ContainerResource,
            &MetricStatusType::Pods,
            &MetricStatusType::Object,
            &MetricStatusType::External,
        ]
    );
    let cpu = &current[0].resource.as_ref().unwrap().current;
    assert_eq!((cpu.average_utilization, &cpu.average_value, &cpu.value), (Some(82), &q("412m"), &None));
    let memory = current[1].container_resource.as_ref().unwrap();
    assert_eq!(memory.container, "app");
    assert_eq!(memory.current.average_value, q("389619712"));
    assert_eq!(current[2].pods.as_ref().unwrap().current.average_value, q("231500m"));
    let object = current[3].object.as_ref().unwrap();
    assert_eq!(object.current.value, q("8734"));
    assert_eq!(object.described_object.name, "checkout");
    let external = &current[4].external.as_ref().unwrap().current;
    assert_eq!((&external.value, &external.average_value), (&q("197"), &q("28143m")));

    let conditions = status.conditions.as_ref().expect("conditions");
    let summary: Vec<(CondType, CondStatus, Option<&str>, Option<i64>)> = conditions
        .iter()
        .map(|c| (c.type_.clone(), c.status.clone(), c.reason.as_deref(), c.observed_generation))
        .collect();
    assert_eq!(
        summary,
        [
            (CondType::AbleToScale, CondStatus::True, Some("ScaleDownStabilized"), Some(3)),
            (CondType::ScalingActive, CondStatus::True, Some("ValidMetricFound"), Some(3)),
            (CondType::ScalingLimited, CondStatus::False, Some("DesiredWithinRange"), Some(3)),
        ]
    );
    assert_eq!(conditions[2].last_transition_time, Some(time("2026-11-29T18:41:07Z")));
    assert_eq!(conditions[2].message.as_deref(), Some("the desired count is within the acceptable range"));
}

#[test]
fn hpa_list_fixture_round_trips_to_equal_json() {
    let input = fixture("hpa-list.json");
    let (list, output) = round_trip::<HorizontalPodAutoscalerList>("hpa-list.json", &input);
    assert_json_eq("hpa-list.json re-encoded", &input, &output);

    assert_eq!(list.kind.as_deref(), Some(HorizontalPodAutoscaler::INFO.list_kind));
    assert_eq!(list.api_version.as_deref(), Some(HorizontalPodAutoscaler::INFO.api_version().as_str()));
    let meta = list.metadata.as_ref().expect("list metadata");
    assert_eq!(meta.resource_version.as_deref(), Some("48224310"));
    assert_eq!(
        meta.continue_.as_deref(),
        Some("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDgyMjQzMTAsInN0YXJ0Ijoic2hvcC93b3JrZXJcdTAwMDAifQ")
    );
    assert_eq!(meta.remaining_item_count, Some(17));

    // Items of a list response carry no apiVersion/kind, and none are added on output.
    assert_eq!(list.items.len(), 2);
    for item in &list.items {
        assert_eq!((&item.api_version, &item.kind), (&None, &None));
    }
    let names: Vec<Option<&str>> =
        list.items.iter().map(|i| i.metadata.as_ref().and_then(|m| m.name.as_deref())).collect();
    assert_eq!(names, [Some("web"), Some("worker")]);

    // The last-applied annotation is JSON inside a string, with a trailing newline; kept as is.
    let annotation = &list.items[0].metadata.as_ref().unwrap().annotations.as_ref().unwrap()["kubectl.kubernetes.io/last-applied-configuration"];
    assert!(annotation.ends_with("}}}\n"), "{annotation:?}");

    // The new HPA has desiredReplicas 0 (written, as Go always writes it) and no currentReplicas.
    let worker = list.items[1].status.as_ref().unwrap();
    assert_eq!((worker.desired_replicas, worker.current_replicas), (0, None));
    assert_eq!(worker.current_metrics, None);
    assert_eq!(output.pointer("/items/1/status/desiredReplicas"), Some(&serde_json::json!(0)));
}

#[test]
fn resource_identity_matches_the_wire() {
    assert_eq!(HorizontalPodAutoscaler::INFO.group, "autoscaling");
    assert_eq!(HorizontalPodAutoscaler::INFO.version, "v2");
    assert_eq!(HorizontalPodAutoscaler::INFO.api_version(), "autoscaling/v2");
    assert_eq!(HorizontalPodAutoscaler::INFO.kind, "HorizontalPodAutoscaler");
    assert_eq!(HorizontalPodAutoscaler::INFO.plural, "horizontalpodautoscalers");
    assert_eq!(HorizontalPodAutoscaler::INFO.scope, Scope::Namespaced);
    assert_eq!(HorizontalPodAutoscaler::INFO.list_kind, "HorizontalPodAutoscalerList");

    let input = fixture("hpa.json");
    assert_eq!(input["apiVersion"], HorizontalPodAutoscaler::INFO.api_version());
    assert_eq!(input["kind"], HorizontalPodAutoscaler::INFO.kind);
    let list = fixture("hpa-list.json");
    assert_eq!(list["kind"], HorizontalPodAutoscaler::INFO.list_kind);
}
