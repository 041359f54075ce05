//! Cost of generated validation of a realistic HorizontalPodAutoscaler, next to the cost of
//! decoding the same object from JSON.
//!
//! Two variants of one document (`tests/fixtures/validation/hpa.json`, five metrics, both
//! scaling directions, status with conditions):
//! - `hpa`: the real `autoscaling/v2` type from `generated`, whose schema carries CEL rules
//!   (the spec, every metric and target, each scaling direction); CEL works on a JSON copy
//!   of the node, so it allocates.
//! - `autoscaler`: `fixture_api`'s Autoscaler, the same shape and keyword rules without any
//!   CEL rule (`tests/fixture-specs/autoscaler.yaml`): the cost of the keyword checks and the
//!   object-meta conventions alone.
//!
//! - `hpa CEL interpreted`: the CEL rules of the HPA's 13 rule-bearing nodes checked by the
//!   interpreter (`kube_apigen::cel`), as generated code checks the rules it does not translate
//!   to Rust; all of this object's rules translate, so `hpa validate` never runs them.
//!   `hpa CEL interp. Node` is the same through `kube_apigen::cel::Node`.
//! - `rule true/false inline/Node`: the spec's rule translated to Rust, on the spec and on
//!   a copy that breaks it, checked the way generated code did before `kube_apigen::cel::Node`
//!   (inline) and through it.
//!
//! Method: every measurement is a batch of calls timed with `Instant`; the batches of all
//! workloads (decode and validate of each variant, and one JSON copy of the HPA spec as the
//! CEL path makes it) are interleaved round by round so
//! that they see the same machine load, and each reports the median over the rounds, in ns
//! per call. Heap allocations are counted by the counting global allocator below, over
//! calls made after a warm-up (which compiles the CEL programs and regexes once).
//!
//! `cargo bench -p api-tests --bench validate` measures; without `--bench` (as under
//! `cargo test --benches`) it runs each workload a few times as a smoke test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use fixture_api::api::fixture::v1::Autoscaler;
use generated::api::autoscaling::v2::{
    HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec, MetricSpec, MetricTarget,
};
use kube_apigen::Validate;
use kube_apigen::cel::{CelRule, CelRuleSpec, LazyRule, Node, check_rules_typed, to_json};
use kube_apigen::field::{ErrorList, FieldError, Path};
use serde::de::DeserializeOwned;

/// The system allocator, counting allocations (and reallocations) and their bytes.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size() as u64, Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        BYTES.fetch_add(layout.size() as u64, Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        BYTES.fetch_add(new_size as u64, Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and bytes allocated per call of `f`, over `calls` calls.
fn allocations_per_call(calls: u64, mut f: impl FnMut()) -> (f64, f64) {
    let (count, bytes) = (ALLOCATIONS.load(Relaxed), BYTES.load(Relaxed));
    for _ in 0..calls {
        f();
    }
    let count = ALLOCATIONS.load(Relaxed) - count;
    let bytes = BYTES.load(Relaxed) - bytes;
    (count as f64 / calls as f64, bytes as f64 / calls as f64)
}

/// ns per call of one batch of `calls` calls.
fn time_batch(calls: u32, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    start.elapsed().as_nanos() as f64 / f64::from(calls)
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    if samples.len().is_multiple_of(2) { (samples[mid - 1] + samples[mid]) / 2.0 } else { samples[mid] }
}

struct Workload<'a> {
    name: &'static str,
    run: Box<dyn FnMut() + 'a>,
    samples: Vec<f64>,
}

impl<'a> Workload<'a> {
    fn new(name: &'static str, run: impl FnMut() + 'a) -> Self {
        Workload { name, run: Box::new(run), samples: Vec::new() }
    }
}

fn decoder<T: DeserializeOwned>(text: &str) -> impl FnMut() + '_ {
    move || {
        let value: T = serde_json::from_str(black_box(text)).expect("fixture decodes");
        black_box(value);
    }
}

/// Checks one rule of `spec` with `check` into a new error list.
fn rule_checker<'a>(
    spec: &'a HorizontalPodAutoscalerSpec,
    check: impl Fn(&HorizontalPodAutoscalerSpec, &mut ErrorList) + 'a,
) -> impl FnMut() + 'a {
    move || {
        let mut errors = ErrorList::new();
        check(black_box(spec), &mut errors);
        black_box(errors);
    }
}

fn validator<T: Validate>(object: &T) -> impl FnMut() + '_ {
    move || {
        let errors = black_box(object).validate();
        black_box(errors);
    }
}

/// The CEL rules `specs/autoscaling_v2.yaml` puts on the nodes of an HPA spec, by node.
const SPEC_RULES: [CelRuleSpec<'static>; 1] =
    [CelRuleSpec::new("!has(self.minReplicas) || self.maxReplicas >= self.minReplicas")
        .with_message("maxReplicas must be greater than or equal to minReplicas")
        .with_field_path(".maxReplicas")];
const METRIC_RULES: [CelRuleSpec<'static>; 2] = [
    CelRuleSpec::new(
        "!(self.type in ['ContainerResource', 'External', 'Object', 'Pods', 'Resource']) || \
         (self.type == 'ContainerResource' ? has(self.containerResource) : \
         self.type == 'External' ? has(self.external) : self.type == 'Object' ? has(self.object) : \
         self.type == 'Pods' ? has(self.pods) : has(self.resource))",
    )
    .with_message("the source field named by type must be set"),
    CelRuleSpec::new(
        "[has(self.containerResource), has(self.external), has(self.object), has(self.pods), \
         has(self.resource)].filter(x, x).size() <= 1",
    )
    .with_message("only the source field named by type may be set"),
];
const TARGET_RULES: [CelRuleSpec<'static>; 2] = [
    CelRuleSpec::new("self.type != 'Utilization' || has(self.averageUtilization)")
        .with_message("averageUtilization must be set when type is Utilization")
        .with_field_path(".averageUtilization"),
    CelRuleSpec::new("self.type != 'Value' || has(self.value)")
        .with_message("value must be set when type is Value")
        .with_field_path(".value"),
];
const SCALING_RULES: [CelRuleSpec<'static>; 1] =
    [CelRuleSpec::new("!has(self.tolerance) || !string(self.tolerance).startsWith('-')")
        .with_message("tolerance must be greater than or equal to zero")
        .with_field_path(".tolerance")];

/// A node of an HPA spec that carries CEL rules.
enum RuleNode<'a> {
    Spec(&'a HorizontalPodAutoscalerSpec),
    Metric(&'a MetricSpec),
    Target(&'a MetricTarget),
    Scaling(&'a HPAScalingRules),
}

/// Calls `visit` with each of `spec`'s rule-bearing nodes and its path.
fn for_each_rule_node(spec: &HorizontalPodAutoscalerSpec, visit: &mut dyn FnMut(&Path<'_>, RuleNode<'_>)) {
    let path = Path::ROOT.field("spec");
    visit(&path, RuleNode::Spec(spec));
    let metrics = path.field("metrics");
    for (index, metric) in spec.metrics.iter().flatten().enumerate() {
        let path = metrics.index(index);
        visit(&path, RuleNode::Metric(metric));
        if let Some(target) = metric_target(metric) {
            visit(&path.field("target"), RuleNode::Target(target));
        }
    }
    let behavior = path.field("behavior");
    for (name, rules) in spec.behavior.iter().flat_map(|b| [("scaleUp", &b.scale_up), ("scaleDown", &b.scale_down)]) {
        if let Some(rules) = rules {
            visit(&behavior.field(name), RuleNode::Scaling(rules));
        }
    }
}

/// The target of whichever source a metric sets.
fn metric_target(metric: &MetricSpec) -> Option<&MetricTarget> {
    metric
        .container_resource
        .as_ref()
        .map(|s| &s.target)
        .or(metric.external.as_ref().map(|s| &s.target))
        .or(metric.object.as_ref().map(|s| &s.target))
        .or(metric.pods.as_ref().map(|s| &s.target))
        .or(metric.resource.as_ref().map(|s| &s.target))
}

/// The rules of each kind of node, compiled as `CelRule`s or held as `LazyRule`s.
struct HpaRules<R> {
    spec: [R; 1],
    metric: [R; 2],
    target: [R; 2],
    scaling: [R; 1],
}

impl<R> HpaRules<R> {
    fn new(rule: impl Fn(CelRuleSpec<'static>) -> R) -> Self {
        HpaRules {
            spec: SPEC_RULES.map(&rule),
            metric: METRIC_RULES.map(&rule),
            target: TARGET_RULES.map(&rule),
            scaling: SCALING_RULES.map(&rule),
        }
    }
}

impl HpaRules<CelRule> {
    /// Checks every rule of `spec`'s nodes with the interpreter as generated code did
    /// before `Node`: one JSON copy per node, `check_rules_typed` on all its rules.
    fn check(&self, spec: &HorizontalPodAutoscalerSpec) -> ErrorList {
        let mut errors = ErrorList::new();
        for_each_rule_node(spec, &mut |path, node| match node {
            RuleNode::Spec(value) => check_rules_typed(&self.spec, path, "object", &to_json(value), None, &mut errors),
            RuleNode::Metric(value) => {
                check_rules_typed(&self.metric, path, "object", &to_json(value), None, &mut errors)
            }
            RuleNode::Target(value) => {
                check_rules_typed(&self.target, path, "object", &to_json(value), None, &mut errors)
            }
            RuleNode::Scaling(value) => {
                check_rules_typed(&self.scaling, path, "object", &to_json(value), None, &mut errors)
            }
        });
        errors
    }
}

impl HpaRules<LazyRule> {
    /// The same through `Node::interpreted`, as generated code checks rules the generator
    /// does not translate.
    fn check(&self, spec: &HorizontalPodAutoscalerSpec) -> ErrorList {
        let mut errors = ErrorList::new();
        for_each_rule_node(spec, &mut |path, node| match node {
            RuleNode::Spec(value) => Node::new(value, path, "object").interpreted(&self.spec, None, &mut errors),
            RuleNode::Metric(value) => Node::new(value, path, "object").interpreted(&self.metric, None, &mut errors),
            RuleNode::Target(value) => Node::new(value, path, "object").interpreted(&self.target, None, &mut errors),
            RuleNode::Scaling(value) => Node::new(value, path, "object").interpreted(&self.scaling, None, &mut errors),
        });
        errors
    }
}

/// The spec's rule as the generator translates it to Rust.
fn spec_rule_0(value: &HorizontalPodAutoscalerSpec) -> Option<bool> {
    Some(value.min_replicas.is_none() || i64::from(value.max_replicas) >= i64::from(value.min_replicas?))
}

/// The spec's translated rule checked as generated code checked it before `Node`: a
/// three-arm match, the error built in place, the interpreter on `None`.
fn spec_rule_inline(value: &HorizontalPodAutoscalerSpec, rules: &[CelRule; 1], errors: &mut ErrorList) {
    let path = Path::ROOT.field("spec");
    match spec_rule_0(value) {
        Some(true) => {}
        Some(false) => errors.push(
            FieldError::invalid(&path, "object", "maxReplicas must be greater than or equal to minReplicas")
                .at_child("maxReplicas"),
        ),
        None => check_rules_typed(rules, &path, "object", &to_json(value), None, errors),
    }
}

/// The same through `Node::translated`.
fn spec_rule_node(value: &HorizontalPodAutoscalerSpec, rule: &LazyRule, errors: &mut ErrorList) {
    let path = Path::ROOT.field("spec");
    Node::new(value, &path, "object").translated(rule, spec_rule_0(value), errors);
}

fn main() {
    let measure = std::env::args().any(|arg| arg == "--bench");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/validation/hpa.json");
    let text = std::fs::read_to_string(path).expect("reading hpa.json");
    let hpa: HorizontalPodAutoscaler = serde_json::from_str(&text).expect("hpa.json decodes");
    let autoscaler: Autoscaler = serde_json::from_str(&text).expect("hpa.json decodes as an Autoscaler");
    // Both are valid: the benchmark measures the path without errors.
    assert_eq!(hpa.validate(), Vec::new());
    assert_eq!(autoscaler.validate(), Vec::new());
    let compiled_rules = HpaRules::new(|spec| CelRule::new(&spec));
    let lazy_rules = HpaRules::new(LazyRule::new);
    assert_eq!(compiled_rules.check(&hpa.spec), Vec::new());
    assert_eq!(lazy_rules.check(&hpa.spec), Vec::new());
    // A spec whose rule fails, to time the failure path of a translated rule.
    let mut shrunk = hpa.spec.clone();
    shrunk.min_replicas = Some(shrunk.max_replicas + 1);
    let mut inline_errors = ErrorList::new();
    spec_rule_inline(&shrunk, &compiled_rules.spec, &mut inline_errors);
    let mut node_errors = ErrorList::new();
    spec_rule_node(&shrunk, &lazy_rules.spec[0], &mut node_errors);
    assert_eq!((inline_errors.len(), &inline_errors), (1, &node_errors));

    let (rounds, calls) = if measure { (41, 2_000) } else { (3, 10) };
    let inline = |spec: &HorizontalPodAutoscalerSpec, errors: &mut ErrorList| {
        spec_rule_inline(spec, &compiled_rules.spec, errors);
    };
    let node = |spec: &HorizontalPodAutoscalerSpec, errors: &mut ErrorList| {
        spec_rule_node(spec, &lazy_rules.spec[0], errors);
    };
    let mut workloads = [
        Workload::new("hpa decode", decoder::<HorizontalPodAutoscaler>(&text)),
        Workload::new("hpa validate", validator(&hpa)),
        Workload::new("autoscaler decode", decoder::<Autoscaler>(&text)),
        Workload::new("autoscaler validate", validator(&autoscaler)),
        // What the CEL path pays before any rule runs: the JSON copy of one node (here the
        // spec, the largest; the generated code makes one per CEL-bearing node).
        Workload::new("hpa spec to_json", || {
            black_box(kube_apigen::cel::to_json(black_box(&hpa.spec)));
        }),
        // The same 13 nodes' rules as the interpreter checks them, for rules the generator
        // does not translate.
        Workload::new("hpa CEL interpreted", || {
            black_box(compiled_rules.check(black_box(&hpa.spec)));
        }),
        Workload::new("hpa CEL interp. Node", || {
            black_box(lazy_rules.check(black_box(&hpa.spec)));
        }),
        // One translated rule, passing and failing, as generated code checked it before
        // `Node` and through `Node`.
        Workload::new("rule true inline", rule_checker(&hpa.spec, inline)),
        Workload::new("rule true Node", rule_checker(&hpa.spec, node)),
        Workload::new("rule false inline", rule_checker(&shrunk, inline)),
        Workload::new("rule false Node", rule_checker(&shrunk, node)),
    ];
    // Warm-up: compiles CEL programs and regexes, fills caches.
    for workload in &mut workloads {
        time_batch(calls, &mut workload.run);
    }
    for _ in 0..rounds {
        for workload in &mut workloads {
            let sample = time_batch(calls, &mut workload.run);
            workload.samples.push(sample);
        }
    }
    let mut medians = [0.0; 11];
    for (median_ns, workload) in medians.iter_mut().zip(&mut workloads) {
        *median_ns = median(&mut workload.samples);
    }
    let alloc_calls = if measure { 1_000 } else { 10 };
    let allocations: Vec<(f64, f64)> =
        workloads.iter_mut().map(|w| allocations_per_call(alloc_calls, &mut w.run)).collect();

    println!(
        "validate bench: {} rounds x {calls} calls, medians, {} bytes of JSON{}",
        rounds,
        text.len(),
        if measure { "" } else { " (smoke run: pass --bench to measure)" }
    );
    println!("{:<22} {:>12} {:>14} {:>16}", "workload", "ns/op", "allocs/op", "bytes alloc/op");
    for ((workload, ns), (count, bytes)) in workloads.iter().zip(medians).zip(&allocations) {
        println!("{:<22} {ns:>12.0} {count:>14.1} {bytes:>16.0}", workload.name);
    }
    println!(
        "validate / decode: hpa (with CEL) {:.1}%, autoscaler (no CEL) {:.1}%",
        100.0 * medians[1] / medians[0],
        100.0 * medians[3] / medians[2]
    );
}
