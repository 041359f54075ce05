//! The harness of `codegen/tests/it/cel_fast_path.rs`, built as its own binary against two
//! variants of each generated crate: `cel_fast_*` (CEL rules translated to Rust where they
//! can be) and `cel_interpreted_*` (every rule checked by the interpreter).
//!
//! For each kind of object it generates many JSON documents with a seeded RNG, varying what
//! the rules read, decodes each into both variants, and requires `validate()` and
//! `validate_update(old)` to give identical error lists. It also requires every rule to
//! have failed at least once (its message among the errors), so the objects reach the
//! failure path of each rule, and prints how often each error was seen.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::process::ExitCode;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use kube_apigen::Validate;
use kube_apigen::field::ErrorList;

/// Objects generated per kind.
const OBJECTS: usize = 3000;

/// SplitMix64: a small deterministic generator, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    fn int(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next() % (high - low + 1) as u64) as i64
    }
}

/// Sets `key` to `value` with probability `percent`.
fn maybe(
    object: &mut Map<String, Value>,
    rng: &mut Rng,
    percent: u64,
    key: &str,
    value: impl FnOnce(&mut Rng) -> Value,
) {
    if rng.chance(percent) {
        let value = value(rng);
        object.insert(key.to_owned(), value);
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Comparisons of one kind of object, with the errors seen.
struct Kind {
    name: &'static str,
    compared: usize,
    undecodable: usize,
    details: BTreeMap<String, usize>,
    mismatch: Option<String>,
}

impl Kind {
    fn new(name: &'static str) -> Self {
        Kind { name, compared: 0, undecodable: 0, details: BTreeMap::new(), mismatch: None }
    }

    /// Decodes `new` (and `old`) into both variants and compares their errors.
    fn compare<F, I>(&mut self, new: &Value, old: &Value)
    where
        F: DeserializeOwned + Validate + Debug,
        I: DeserializeOwned + Validate + Debug,
    {
        if self.mismatch.is_some() {
            return;
        }
        let decode = |value: &Value| {
            (serde_json::from_value::<F>(value.clone()).ok(), serde_json::from_value::<I>(value.clone()).ok())
        };
        let ((Some(fast), Some(interpreted)), (fast_old, interpreted_old)) = (decode(new), decode(old)) else {
            let (fast, interpreted) = decode(new);
            if fast.is_some() != interpreted.is_some() {
                self.mismatch = Some(format!("only one variant decodes {new}"));
            }
            self.undecodable += 1;
            return;
        };
        let mut check = |what: &str, fast: ErrorList, interpreted: ErrorList| {
            if fast != interpreted {
                self.mismatch = Some(format!(
                    "{what} of {new}\n(old: {old})\nfast path:\n{fast:#?}\ninterpreter:\n{interpreted:#?}"
                ));
            }
            for error in &fast {
                *self.details.entry(format!("{}: {}", without_indexes(&error.field), error.body())).or_default() += 1;
            }
        };
        check("validate()", fast.validate(), interpreted.validate());
        if let (Some(fast_old), Some(interpreted_old)) = (fast_old, interpreted_old) {
            check("validate_update()", fast.validate_update(&fast_old), interpreted.validate_update(&interpreted_old));
        }
        self.compared += 1;
    }

    /// Whether some error's text contains each of `expected`; prints the summary.
    fn report(&self, expected: &[&str]) -> bool {
        println!("{}: {} objects compared ({} undecodable)", self.name, self.compared, self.undecodable);
        for (detail, count) in &self.details {
            println!("  {count:>6}  {detail}");
        }
        if let Some(mismatch) = &self.mismatch {
            println!("MISMATCH in {}: {mismatch}", self.name);
            return false;
        }
        let missing: Vec<&&str> =
            expected.iter().filter(|text| !self.details.keys().any(|detail| detail.contains(**text))).collect();
        if !missing.is_empty() {
            println!("{}: no error containing {missing:?}; the objects do not reach every rule", self.name);
            return false;
        }
        true
    }
}

/// A field path with list indexes as `[*]`, to count errors by rule rather than by item.
fn without_indexes(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '[' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('*');
        }
    }
    out
}

// ---- autoscaling/v2 HorizontalPodAutoscaler ----

const QUANTITIES: &[&str] = &["1", "50m", "-50m", "0", "-0", "1e3", "-1e3", "1Ki", "+1", "0.1", "-0.1"];

fn metric_target(rng: &mut Rng) -> Value {
    let mut target = object(json!({"type": rng.pick(&["Utilization", "Value", "AverageValue", "", "Other"])}));
    maybe(&mut target, rng, 50, "averageUtilization", |rng| json!(rng.int(-1, 120)));
    maybe(&mut target, rng, 50, "value", |rng| json!(rng.pick(QUANTITIES)));
    maybe(&mut target, rng, 50, "averageValue", |rng| json!(rng.pick(QUANTITIES)));
    Value::Object(target)
}

fn metric(rng: &mut Rng) -> Value {
    let kinds = ["ContainerResource", "External", "Object", "Pods", "Resource", "", "Other"];
    let mut metric = object(json!({"type": rng.pick(&kinds)}));
    // Mostly the source the type names, sometimes none or others too.
    let named = match metric["type"].as_str() {
        Some("ContainerResource") => "containerResource",
        Some("External") => "external",
        Some("Object") => "object",
        Some("Pods") => "pods",
        _ => "resource",
    };
    for key in ["containerResource", "external", "object", "pods", "resource"] {
        let percent = if key == named { 80 } else { 15 };
        maybe(&mut metric, rng, percent, key, |rng| {
            let target = metric_target(rng);
            match key {
                "containerResource" => json!({"name": "cpu", "container": "app", "target": target}),
                "external" | "pods" => json!({"metric": {"name": "rps"}, "target": target}),
                "object" => json!({
                    "describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main"},
                    "metric": {"name": "rps"},
                    "target": target
                }),
                _ => json!({"name": "memory", "target": target}),
            }
        });
    }
    Value::Object(metric)
}

fn scaling_rules(rng: &mut Rng) -> Value {
    let mut rules = Map::new();
    maybe(&mut rules, rng, 50, "stabilizationWindowSeconds", |rng| json!(rng.int(0, 600)));
    maybe(&mut rules, rng, 40, "selectPolicy", |rng| json!(rng.pick(&["Max", "Min", "Disabled"])));
    maybe(
        &mut rules,
        rng,
        50,
        "policies",
        |rng| json!([{"type": "Pods", "value": rng.int(1, 4), "periodSeconds": 15}]),
    );
    maybe(&mut rules, rng, 70, "tolerance", |rng| json!(rng.pick(QUANTITIES)));
    Value::Object(rules)
}

fn hpa(rng: &mut Rng) -> Value {
    let mut spec = object(json!({
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "maxReplicas": rng.int(-1, 12)
    }));
    maybe(&mut spec, rng, 70, "minReplicas", |rng| json!(rng.int(-1, 12)));
    maybe(&mut spec, rng, 90, "metrics", |rng| Value::Array((0..rng.below(6)).map(|_| metric(rng)).collect()));
    maybe(&mut spec, rng, 80, "behavior", |rng| {
        let mut behavior = Map::new();
        maybe(&mut behavior, rng, 70, "scaleUp", scaling_rules);
        maybe(&mut behavior, rng, 70, "scaleDown", scaling_rules);
        Value::Object(behavior)
    });
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": spec
    })
}

// ---- certificates.k8s.io/v1 CertificateSigningRequest ----

fn csr(rng: &mut Rng) -> Value {
    let mut csr = object(json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "node-csr"},
        "spec": {"request": "aGVsbG8=", "signerName": "example.com/signer", "usages": ["client auth"]}
    }));
    maybe(&mut csr, rng, 90, "status", |rng| {
        let mut status = Map::new();
        maybe(&mut status, rng, 50, "certificate", |rng| json!(rng.pick(&["", "YQ==", "YWJj", "aGVsbG8gd29ybGQ="])));
        maybe(&mut status, rng, 80, "conditions", |rng| {
            let types = ["Approved", "Denied", "Failed", "Pending", ""];
            let statuses = ["True", "False", "Unknown", ""];
            let conditions =
                (0..rng.below(4)).map(|_| json!({"type": rng.pick(&types), "status": rng.pick(&statuses)})).collect();
            Value::Array(conditions)
        });
        Value::Object(status)
    });
    Value::Object(csr)
}

// ---- meta/v1 DeleteOptions ----

fn delete_options(rng: &mut Rng) -> Value {
    let mut options = Map::new();
    maybe(&mut options, rng, 50, "orphanDependents", |rng| json!(rng.chance(50)));
    maybe(&mut options, rng, 50, "propagationPolicy", |rng| {
        json!(rng.pick(&["Orphan", "Background", "Foreground", "Other"]))
    });
    maybe(&mut options, rng, 30, "gracePeriodSeconds", |rng| json!(rng.int(-1, 30)));
    Value::Object(options)
}

// ---- fixture.example.com/v1 Widget ----

fn widget(rng: &mut Rng) -> Value {
    let owners = ["ops", "root", "x", "ünï", "abcdefghij"];
    let owner = rng.pick(&owners);
    let mut spec = object(json!({
        "owner": owner,
        "tier": rng.pick(&["Bronze", "Silver", "Gold", "Gold", "", "Platinum"]),
        "selectors": ["a"],
        "matchLabels": {"app": "demo"},
        "payload": "aGVsbG8=",
        "template": {"image": "nginx"},
        "replicas": rng.int(0, 12),
        "class": rng.pick(&["standard", "premium"])
    }));
    maybe(&mut spec, rng, 60, "surge", |rng| json!(rng.int(-1, 6)));
    maybe(&mut spec, rng, 50, "code", |rng| json!(rng.pick(&["ABC-1", "", "abc"])));
    maybe(&mut spec, rng, 60, "mode", |rng| json!(rng.pick(&["Fast", "Slow", "Slow", "Turbo"])));
    maybe(&mut spec, rng, 60, "aliases", |rng| {
        let names = [owner, "x", "y", "ops"];
        let mut aliases: Vec<&str> = (0..rng.below(4)).map(|_| rng.pick(&names)).collect();
        aliases.dedup();
        json!(aliases)
    });
    maybe(&mut spec, rng, 60, "zones", |rng| {
        json!((0..rng.int(1, 4)).map(|_| rng.pick(&["za", "zb", "a", "zé"])).collect::<Vec<_>>())
    });
    maybe(&mut spec, rng, 60, "items", |rng| {
        let items: Vec<Value> = ["a", "b", "c"][..rng.int(1, 3) as usize]
            .iter()
            .map(|name| {
                let mut item = object(json!({"name": name}));
                maybe(&mut item, rng, 70, "limits", |rng| {
                    let mut limits = Map::new();
                    maybe(&mut limits, rng, 70, "cpu", |rng| json!(rng.pick(&["250m", "2", "m"])));
                    maybe(&mut limits, rng, 60, "memory", |rng| json!(rng.pick(&["64Mi", ""])));
                    Value::Object(limits)
                });
                maybe(&mut item, rng, 30, "serial", |rng| json!(rng.pick(&["s-1", "s-2"])));
                Value::Object(item)
            })
            .collect();
        Value::Array(items)
    });
    if rng.chance(30) {
        spec["matchLabels"]["app.kubernetes.io/name"] = json!(rng.pick(&["", "shop"]));
    }
    maybe(&mut spec, rng, 40, "budget", |rng| json!(rng.pick(&[5000, 1234, -3000])));
    maybe(&mut spec, rng, 30, "quotas", |rng| json!({"cpu": rng.int(0, 150), "memory": 1}));
    json!({
        "apiVersion": "fixture.example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": spec
    })
}

// ---- cel.v1 Thing (constructs.yaml) ----

fn part(rng: &mut Rng) -> Value {
    let mut part = object(json!({"weight": rng.pick(&[0, 1, 2, 3, 13])}));
    maybe(&mut part, rng, 60, "label", |rng| json!(rng.pick(&["", "a", "abc"])));
    Value::Object(part)
}

fn thing(rng: &mut Rng, depth: usize) -> Value {
    let names = ["a", "ab", "root", "ünïc", "abcde", "", "x"];
    let mut fields = object(json!({
        "name": rng.pick(&names),
        "count": rng.int(-5, 5),
        "type": rng.pick(&["A", "B", "C", "", "D"])
    }));
    maybe(&mut fields, rng, 60, "nick", |rng| json!(rng.pick(&["n", "nick", "x!", "zz", "", "ab", "abcdef", "xx"])));
    maybe(&mut fields, rng, 50, "big", |rng| json!(rng.pick(&[-10, -4, 0, 3, 7, 12])));
    maybe(&mut fields, rng, 50, "flag", |rng| json!(rng.chance(50)));
    maybe(&mut fields, rng, 50, "mode", |rng| json!(rng.pick(&["Fast", "Slow", "Other"])));
    maybe(&mut fields, rng, 40, "qty", |rng| json!(rng.pick(&["1", "-1", "10Mi", "-0.5", "123456", "1e3"])));
    maybe(&mut fields, rng, 40, "data", |rng| json!(rng.pick(&["", "YQ==", "YWJj", "YWJjZGVmZ2hpams=", "aGVsbG8="])));
    maybe(&mut fields, rng, 60, "tags", |rng| {
        json!((0..rng.below(5)).map(|_| rng.pick(&["", "a", "ab", "x", "ünïc", "b"])).collect::<Vec<_>>())
    });
    maybe(&mut fields, rng, 60, "parts", |rng| Value::Array((0..rng.below(4)).map(|_| part(rng)).collect()));
    maybe(&mut fields, rng, 50, "part", part);
    if depth < 2 {
        maybe(&mut fields, rng, 40, "next", |rng| thing(rng, depth + 1));
    }
    maybe(&mut fields, rng, 20, "ratio", |_| json!(0.5));
    maybe(&mut fields, rng, 30, "labels", |rng| {
        let mut labels = Map::new();
        labels.insert(rng.pick(&["x", "y"]).to_owned(), json!("1"));
        Value::Object(labels)
    });
    Value::Object(fields)
}

fn main() -> ExitCode {
    let mut rng = Rng(0x5EED_CE1);
    let mut hpas = Kind::new("HorizontalPodAutoscaler");
    let mut csrs = Kind::new("CertificateSigningRequest");
    let mut deletes = Kind::new("DeleteOptions");
    let mut widgets = Kind::new("Widget");
    let mut things = Kind::new("Thing");
    for _ in 0..OBJECTS {
        let (new, old) = (hpa(&mut rng), hpa(&mut rng));
        hpas.compare::<
            cel_fast_specs::api::autoscaling::v2::HorizontalPodAutoscaler,
            cel_interpreted_specs::api::autoscaling::v2::HorizontalPodAutoscaler,
        >(&new, &old);
        let (new, old) = (csr(&mut rng), csr(&mut rng));
        csrs.compare::<
            cel_fast_specs::api::certificates::v1::CertificateSigningRequest,
            cel_interpreted_specs::api::certificates::v1::CertificateSigningRequest,
        >(&new, &old);
        let (new, old) = (delete_options(&mut rng), delete_options(&mut rng));
        deletes.compare::<
            cel_fast_specs::apimachinery::pkg::apis::meta::v1::DeleteOptions,
            cel_interpreted_specs::apimachinery::pkg::apis::meta::v1::DeleteOptions,
        >(&new, &old);
        let (new, old) = (widget(&mut rng), widget(&mut rng));
        widgets
            .compare::<cel_fast_fixture::api::fixture::v1::Widget, cel_interpreted_fixture::api::fixture::v1::Widget>(
                &new, &old,
            );
        let (new, old) = (thing(&mut rng, 0), thing(&mut rng, 0));
        things.compare::<cel_fast_constructs::api::cel::v1::Thing, cel_interpreted_constructs::api::cel::v1::Thing>(
            &new, &old,
        );
    }
    let results = [
        hpas.report(&[
            "maxReplicas must be greater than or equal to minReplicas",
            "the source field named by type must be set",
            "only the source field named by type may be set",
            "averageUtilization must be set when type is Utilization",
            "value must be set when type is Value",
            "averageValue must be set when type is AverageValue",
            "tolerance must be greater than or equal to zero",
        ]),
        csrs.report(&[
            "Approved and Denied conditions are mutually exclusive",
            "certificate may only be set once the request has an Approved condition",
            "Approved, Denied and Failed conditions must have status True",
        ]),
        deletes.report(&["orphanDependents and propagationPolicy cannot both be set"]),
        widgets.report(&[
            "spec.surge: Invalid value: \"object\": surge must be below replicas",
            "spec.code: Required value: tier Gold needs a code",
            "spec.mode: Forbidden: Slow mode allows at most 2 replicas",
            "spec.aliases: Duplicate value: \"object\"",
            "spec.owner: Invalid value: \"string\": owner may not be root",
            "a millicore cpu limit needs a memory limit",
            "no such key: cpu evaluating rule: a millicore cpu limit needs a memory limit",
            "failed rule: self.all(z, z.startsWith('z'))",
            "the name label may not be empty",
            "class is immutable",
        ]),
        things.report(&[
            "name: Invalid value: \"string\": name is not root",
            "name has at most 4 code points",
            "nick: Invalid value: \"string\": failed rule: self.startsWith('n') || self.endsWith('!')",
            "count: Forbidden: count is at least -3",
            "big is not 7",
            "qty is short",
            "data is not empty",
            "tags are not empty",
            "tags.[count]: Invalid value: \"array\": failed rule: self.size() <= 3",
            "part: Invalid value: \"object\": unlucky part",
            "big: Invalid value: \"object\": big is at least count",
            "Forbidden: count's sign follows type",
            "no label x",
            "type C needs an even count",
            "name is shorter than nick",
            "no such key: nick evaluating rule: name is shorter than nick",
            "parts: Required value: need a heavy labelled part among",
            "parts: Required value: failed rule: has(self.parts) && self.parts.exists",
            "Duplicate value: \"object\"",
            "[qty]: Invalid value: \"object\": qty is not negative",
            "failed rule: !has(self.data) || size(self.data) <= 8",
            "flag or fast",
            "no such key: flag evaluating rule: flag or fast",
            "a part weighs count",
            "parts are labelled",
            "at most one heavy part",
            "name sorts before nick",
            "nick: Invalid value: \"object\": nick cannot be removed",
            "name is no tag",
            "not too negative",
            "a tag as long as name",
            "the name in use is not xx",
            "tags differ",
            "next.type: Invalid value: \"object\": next has another type",
            "label fits weight",
            "a large literal",
            "count is positive",
            "no such key: big evaluating rule: big is at most 100",
        ]),
    ];
    if results.iter().all(|ok| *ok) { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
