//! CEL rules from `x-kubernetes-validations`, checked as the Kubernetes API server checks
//! them for a custom resource.
//!
//! A rule is described by a [`CelRuleSpec`] (the fields of a Kubernetes `ValidationRule`,
//! constructible in a `const`), compiled once into a [`CelRule`], and checked against a
//! node's JSON with [`check_rules_typed`] (or [`CelRule::check`]), which pushes a
//! [`FieldError`] per failed rule:
//!
//! ```text
//! spec: Invalid value: "object": failed rule: self.maxReplicas >= self.minReplicas
//! ```
//!
//! [`CelRule::new`] never fails: a rule that does not compile is reported by every check
//! as an internal error naming it. The generator calls [`CelRuleSpec::compile`] first, to
//! reject such rules when it runs rather than when a request arrives, and translates
//! what it can of the rule's tree ([`CelRule::expression`]) to Rust.
//!
//! Generated code holds each rule in a `static` [`LazyRule`], compiled on first use, and
//! checks the rules of a typed node through a [`Node`], one statement per rule translated
//! to Rust and one per run of rules left to the interpreter:
//!
//! ```
//! use kube_apigen_validation::cel::{CelRuleSpec, LazyRule, Node};
//! use kube_apigen_core::field::{ErrorList, Path};
//!
//! #[derive(serde::Serialize)]
//! struct Spec {
//!     #[serde(rename = "maxReplicas")]
//!     max_replicas: i32,
//!     #[serde(rename = "minReplicas", skip_serializing_if = "Option::is_none")]
//!     min_replicas: Option<i32>,
//! }
//!
//! static RULE_0: LazyRule = LazyRule::new(
//!     CelRuleSpec::new("!has(self.minReplicas) || self.maxReplicas >= self.minReplicas")
//!         .with_message("maxReplicas must be greater than or equal to minReplicas")
//!         .with_field_path(".maxReplicas"),
//! );
//! static RULES_1: [LazyRule; 1] = [LazyRule::new(CelRuleSpec::new("self.maxReplicas % 2 == 0"))];
//!
//! // The generator's translation of rule 0.
//! fn rule_0(value: &Spec) -> Option<bool> {
//!     Some(value.min_replicas.is_none() || value.max_replicas >= value.min_replicas?)
//! }
//!
//! let value = Spec { max_replicas: 3, min_replicas: Some(5) };
//! let (root, mut errors) = (Path::ROOT, ErrorList::new());
//! let path = root.field("spec");
//! let node = Node::new(&value, &path, "object");
//! node.translated(&RULE_0, rule_0(&value), &mut errors);
//! node.interpreted(&RULES_1, None, &mut errors);
//! assert_eq!(errors[0].to_string(), "spec.maxReplicas: Invalid value: \"object\": maxReplicas must be greater than or equal to minReplicas");
//! assert_eq!(errors[1].to_string(), "spec: Invalid value: \"object\": failed rule: self.maxReplicas % 2 == 0");
//! ```
//!
//! # What a check guarantees, as in Kubernetes
//! - `self` is the value of the node the rule sits on, `oldSelf` its previous value on
//!   update. Rules that mention `oldSelf` (transition rules) are only evaluated when an
//!   old value is given. Null values are not validated.
//! - JSON objects are CEL maps with only the fields present, so `has(self.x)` tells
//!   whether an optional field was set and `self.x` on an absent field is the evaluation
//!   error `no such key: x`. Numbers without a fraction are `int` (int64), others
//!   `double`; strings, bools, lists and null map to their CEL counterparts.
//! - A false result gives an error at the node (or at `fieldPath` below it) of the type
//!   named by `reason` (`FieldValueInvalid` by default), with the evaluated
//!   `messageExpression`, else `message`, else `failed rule: <rule>` as its detail. The
//!   bad value is the node's schema type (`"object"`, `"string"`, `"integer"`, ...), as
//!   Kubernetes shows it.
//! - An evaluation error gives `Invalid value: "<type>": <error> evaluating rule: <rule
//!   or message>`, with cel-go's and the Kubernetes libraries' texts, or, for a call no
//!   overload accepts, `'no such overload': call arguments did not match a supported
//!   operator, function or macro signature for rule: <rule or message>`.
//! - Rules can call the CEL standard library, its strings extension and the Kubernetes
//!   libraries (lists, regex, sets, quantity, URL, IP and CIDR, format, semver), listed
//!   with their differences in the `lib` submodule.
//!
//! # Where it differs from Kubernetes
//! - No type checking against the schema: a wrong field name or type, such as
//!   `quantity(self.replicas)` on an integer or `quantity('1') == 1`, is found when the
//!   rule runs, as 'no such overload' or a false comparison, not when it is compiled
//!   ([`CelRuleSpec::compile`] does catch syntax errors, unknown variables and unknown
//!   functions).
//! - Missing: the cost budget, `optionalOldSelf`, two-variable comprehensions
//!   (`all(k, v, ...)`, `transformList`, ...), escaping of property names that are not
//!   CEL identifiers (`x-foo` as `self.x__dash__foo`: use `self['x-foo']`),
//!   `date-time`/`duration` formatted strings as timestamps and durations (they stay
//!   strings), set and map list equality ignoring order.

use std::fmt;
use std::sync::OnceLock;

use cel::common::ast::IdedExpr;
use serde::Serialize;
use serde_json::Value;

#[cfg(doc)]
use kube_apigen_core::field::FieldError;
use kube_apigen_core::field::{ErrorList, Path};

mod check;
mod compile;
mod eval;
mod field_path;
mod lib;

pub use field_path::{FieldPathSegment, parse_field_path};

/// Longest detail a `messageExpression` may produce, in bytes
/// (`MaxEvaluatedMessageExpressionSizeBytes`); longer ones fall back to the message.
pub const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE: usize = 5 * 1024;

/// The `reason`s a rule may give, as in `apiextensions/v1` `FieldValueErrorReason`.
pub const SUPPORTED_REASONS: [&str; 4] =
    ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/// One entry of `x-kubernetes-validations`, as written in the spec. All fields borrow, so
/// generated code can write one in a `const` or `static` and the generator can build one
/// from the strings it parsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CelRuleSpec<'a> {
    /// The CEL expression; must evaluate to a bool.
    pub rule: &'a str,
    /// The detail when the rule is false.
    pub message: Option<&'a str>,
    /// A CEL expression evaluating to the detail when the rule is false; wins over
    /// `message` when it evaluates to a non-empty one-line string.
    pub message_expression: Option<&'a str>,
    /// Where to report a false rule, relative to the node: `.spec.replicas`,
    /// `.labels['app.kubernetes.io/name']`.
    pub field_path: Option<&'a str>,
    /// `FieldValueInvalid` (the default), `FieldValueForbidden`, `FieldValueRequired` or
    /// `FieldValueDuplicate`.
    pub reason: Option<&'a str>,
}

impl<'a> CelRuleSpec<'a> {
    /// A rule with no message, field path or reason.
    pub const fn new(rule: &'a str) -> Self {
        CelRuleSpec { rule, message: None, message_expression: None, field_path: None, reason: None }
    }

    /// The rule with `message`, the detail when it is false.
    pub const fn with_message(mut self, message: &'a str) -> Self {
        self.message = Some(message);
        self
    }

    /// The rule with `messageExpression`, evaluated for the detail when it is false.
    pub const fn with_message_expression(mut self, message_expression: &'a str) -> Self {
        self.message_expression = Some(message_expression);
        self
    }

    /// The rule with `fieldPath`, where a false rule is reported below the node.
    pub const fn with_field_path(mut self, field_path: &'a str) -> Self {
        self.field_path = Some(field_path);
        self
    }

    /// The rule with `reason`, the type of the error a false rule gives.
    pub const fn with_reason(mut self, reason: &'a str) -> Self {
        self.reason = Some(reason);
        self
    }

    /// Compiles the rule, or says why it can't be: a syntax error in `rule` or
    /// `messageExpression`, a reference to a variable other than `self`/`oldSelf` (or a
    /// comprehension's) or to an unknown function, a malformed `fieldPath`, an unknown
    /// `reason`. Each message names the rule.
    pub fn compile(&self) -> Result<CelRule, String> {
        let rule = CelRule::new(self);
        match rule.compiled {
            Ok(_) => Ok(rule),
            Err(err) => Err(err),
        }
    }
}

/// A compiled [`CelRuleSpec`]; cheap to check many times, from many threads.
pub struct CelRule {
    rule: Box<str>,
    message: Option<Box<str>>,
    uses_old_self: bool,
    compiled: Result<compile::Compiled, String>,
}

impl fmt::Debug for CelRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CelRule")
            .field("rule", &self.rule)
            .field("message", &self.message)
            .field("transition", &self.uses_old_self)
            .field("compile_error", &self.compile_error())
            .finish()
    }
}

impl CelRule {
    /// Compiles `spec`. Never fails: a rule that does not compile is kept with its error,
    /// which [`compile_error`](Self::compile_error) returns and every check reports as an
    /// internal error.
    pub fn new(spec: &CelRuleSpec<'_>) -> CelRule {
        let compiled = compile::compile(spec);
        let uses_old_self = compile::is_transition_rule(spec, &compiled);
        CelRule { rule: spec.rule.into(), message: spec.message.map(Into::into), uses_old_self, compiled }
    }

    /// The rule's source.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// Why the rule did not compile, if it didn't.
    pub fn compile_error(&self) -> Option<&str> {
        self.compiled.as_ref().err().map(String::as_str)
    }

    /// Whether the rule mentions `oldSelf`, so is only evaluated on update.
    pub fn is_transition_rule(&self) -> bool {
        self.uses_old_self
    }

    /// The rule's parsed expression: the `cel` crate's tree, with the macros (`has`,
    /// `all`, `exists`, ...) expanded into comprehensions. `None` when the rule did not
    /// compile or is empty.
    pub fn expression(&self) -> Option<&IdedExpr> {
        self.compiled.as_ref().ok()?.program.as_ref().map(cel::Program::expression)
    }

    /// Checks the rule against `self_value` (and `old_self`, the value before an update),
    /// the node at `path`, pushing at most one error. The bad value shown for errors is
    /// the JSON type of `self_value` in schema terms (see [`schema_type_of`]); use
    /// [`check_typed`](Self::check_typed) when the schema's `type` is known.
    pub fn check(&self, path: &Path<'_>, self_value: &Value, old_self: Option<&Value>, errors: &mut ErrorList) {
        self.check_typed(path, schema_type_of(self_value), self_value, old_self, errors);
    }

    /// [`check`](Self::check) with the schema `type` of the node (`object`, `string`,
    /// `integer`, ...; empty for `x-kubernetes-int-or-string`), shown as the bad value.
    pub fn check_typed(
        &self,
        path: &Path<'_>,
        schema_type: &str,
        self_value: &Value,
        old_self: Option<&Value>,
        errors: &mut ErrorList,
    ) {
        check::check(std::iter::once(self), path, schema_type, self_value, old_self, errors);
    }

    /// Evaluates the rule alone: `Ok(true)` when it holds or is skipped (a transition rule
    /// without `old_self`, a null value, an empty rule), `Ok(false)` when it fails, the
    /// error text otherwise. For tests and tools; validation uses [`check`](Self::check).
    pub fn evaluate(&self, self_value: &Value, old_self: Option<&Value>) -> Result<bool, String> {
        eval::evaluate(self, self_value, old_self)
    }
}

/// A rule compiled on first use, for a `static` in generated code:
///
/// ```
/// # use kube_apigen_validation::cel::{CelRuleSpec, LazyRule};
/// static RULE_0: LazyRule = LazyRule::new(CelRuleSpec::new("self.size() > 0").with_message("must not be empty"));
/// assert!(RULE_0.get().compile_error().is_none());
/// ```
pub struct LazyRule {
    spec: CelRuleSpec<'static>,
    compiled: OnceLock<CelRule>,
    /// How the rule is reported false, read on the first failure of its translation,
    /// which needs nothing compiled; `None` when the spec's is invalid.
    report: OnceLock<Option<compile::Report>>,
}

impl LazyRule {
    /// `spec`, compiled when first needed.
    pub const fn new(spec: CelRuleSpec<'static>) -> Self {
        LazyRule { spec, compiled: OnceLock::new(), report: OnceLock::new() }
    }

    /// The rule as written.
    pub fn spec(&self) -> &CelRuleSpec<'static> {
        &self.spec
    }

    /// The compiled rule, compiled by the first call.
    pub fn get(&self) -> &CelRule {
        self.compiled.get_or_init(|| CelRule::new(&self.spec))
    }

    fn report(&self) -> Option<&compile::Report> {
        self.report.get_or_init(|| compile::Report::read(&self.spec).ok()).as_ref()
    }
}

impl fmt::Debug for LazyRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyRule").field("spec", &self.spec).field("compiled", &self.compiled.get()).finish()
    }
}

/// The CEL rules of one node of a typed object, checked one statement at a time, in the
/// order of the node's rules: [`translated`](Self::translated) for a rule the generator
/// translated to Rust, [`interpreted`](Self::interpreted) for a run of rules left to the
/// interpreter.
///
/// A node is only references, so a rule whose translation passes costs its translation
/// and one comparison: no JSON copy, no state to drop. The interpreter works on a JSON
/// copy of the node, made by each statement that runs it.
pub struct Node<'a, T: ?Sized> {
    value: &'a T,
    path: &'a Path<'a>,
    schema_type: &'a str,
}

// Derived, these would require `T: Clone`.
impl<T: ?Sized> Clone for Node<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Node<'_, T> {}

impl<'a, T: Serialize + ?Sized> Node<'a, T> {
    /// The node `value` at `path`, whose schema `type` (`object`, `string`, `integer`,
    /// ...; empty for `x-kubernetes-int-or-string`) errors show as the bad value.
    #[inline]
    pub fn new(value: &'a T, path: &'a Path<'a>, schema_type: &'a str) -> Self {
        Node { value, path, schema_type }
    }

    /// Checks `rule` given what its translation to Rust returned: `Some(true)` (or `true`)
    /// passes; `Some(false)` (or `false`) pushes the error the interpreter would, without
    /// compiling the rule unless a `messageExpression` has to be evaluated; `None` (the
    /// translation cannot decide, as on an evaluation error) asks the interpreter.
    ///
    /// Translated rules are never transition rules and always compile: the generator
    /// translates no others.
    #[inline]
    pub fn translated(self, rule: &LazyRule, outcome: impl Into<Option<bool>>, errors: &mut ErrorList) {
        let outcome = outcome.into();
        // Inlined into generated code, this comparison is all a passing rule costs.
        if outcome != Some(true) {
            self.not_passed(rule, outcome, errors);
        }
    }

    /// [`translated`](Self::translated) for a rule its translation found false or could
    /// not decide.
    #[cold]
    #[inline(never)]
    fn not_passed(self, rule: &LazyRule, outcome: Option<bool>, errors: &mut ErrorList) {
        let error = match outcome {
            Some(false) => check::translated_failure(&rule.spec, rule.report(), self.path, self.schema_type),
            _ => None,
        };
        match error {
            Some(error) => errors.push(error),
            None => self.interpret(std::slice::from_ref(rule), None, errors),
        }
    }

    /// Checks `rules` with the interpreter, `old` being the node's value before an update
    /// (for transition rules). When no rule would be evaluated (transition rules without
    /// `old`), no JSON copy is made.
    pub fn interpreted(self, rules: &[LazyRule], old: Option<&T>, errors: &mut ErrorList) {
        if rules.iter().map(LazyRule::get).all(|rule| rule.compile_error().is_none() && !rule.runs(old.is_some())) {
            return;
        }
        self.interpret(rules, old, errors);
    }

    fn interpret(self, rules: &[LazyRule], old: Option<&T>, errors: &mut ErrorList) {
        let rules = rules.iter().map(LazyRule::get);
        let old = old.filter(|_| rules.clone().any(CelRule::is_transition_rule)).map(to_json);
        check::check(rules, self.path, self.schema_type, &to_json(self.value), old.as_ref(), errors);
    }
}

/// Checks all `rules` of one node, converting the node's value to CEL once. The same as
/// calling [`CelRule::check`] on each.
pub fn check_rules(
    rules: &[CelRule],
    path: &Path<'_>,
    self_value: &Value,
    old_self: Option<&Value>,
    errors: &mut ErrorList,
) {
    check_rules_typed(rules, path, schema_type_of(self_value), self_value, old_self, errors);
}

/// [`check_rules`] with the node's schema `type`, as [`CelRule::check_typed`].
pub fn check_rules_typed(
    rules: &[CelRule],
    path: &Path<'_>,
    schema_type: &str,
    self_value: &Value,
    old_self: Option<&Value>,
    errors: &mut ErrorList,
) {
    check::check(rules.iter(), path, schema_type, self_value, old_self, errors);
}

/// The schema `type` a JSON value has: `object`, `array`, `string`, `boolean`, `integer`
/// (a number without a fraction), `number` or `null`.
pub fn schema_type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A model's wire JSON, the value CEL rules see as `self`. A model that cannot be
/// encoded (it always can) is seen as `null`, which no rule validates.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
