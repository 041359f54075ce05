//! CEL rules from `x-kubernetes-validations`.
//!
//! A rule is described by a [`CelRuleSpec`] (the fields of a Kubernetes `ValidationRule`,
//! constructible in a `const`), compiled once into a [`CelRule`], and checked against
//! every object with [`CelRule::check`], which pushes a [`FieldError`] as the Kubernetes
//! API server does for a custom resource:
//!
//! ```text
//! spec: Invalid value: "object": failed rule: self.maxReplicas >= self.minReplicas
//! ```
//!
//! Generated code holds the compiled rules of a schema node in a
//! `static RULES: LazyLock<[CelRule; N]>` built with [`CelRule::new`], which never fails:
//! a rule that does not compile is reported by every check as an internal error naming
//! it. The generator calls [`CelRuleSpec::compile`] first, to reject such rules when it
//! runs rather than when a request arrives.
//!
//! # Semantics, as in Kubernetes
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
//!   or message>`, or, for a call no overload accepts, `'no such overload': call
//!   arguments did not match a supported operator, function or macro signature for rule:
//!   <rule or message>`.
//!
//! # Libraries
//! The environment is the CEL standard library of the `cel` crate (macros `has`, `all`,
//! `exists`, `exists_one`, `map`, `filter`; `size`, `contains`, `startsWith`, `endsWith`,
//! `matches`, conversions, `duration`, `timestamp`, optionals with `.?` syntax), the
//! crate's strings extension (`charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`,
//! `upperAscii`, `replace`, `split`, `substring`, `trim`, `join`, `format`,
//! `strings.quote`, and also `reverse`, which Kubernetes' version 2 lacks), plus the
//! Kubernetes libraries written here (all of them, whatever Kubernetes version
//! introduced them):
//! - lists: `isSorted()`, `sum()`, `min()`, `max()`, `indexOf(x)`, `lastIndexOf(x)`;
//! - regex: `find(re)`, `findAll(re)`, `findAll(re, n)`;
//! - sets: `sets.contains(a, b)`, `sets.equivalent(a, b)`, `sets.intersects(a, b)`;
//! - quantity: `quantity(s)`, `isQuantity(s)`, and on a `kubernetes.Quantity`
//!   `isInteger()`, `asInteger()`, `asApproximateFloat()`, `sign()` (also `sign(q)`),
//!   `add(q | int)`, `sub(q | int)`, `isLessThan(q)`, `isGreaterThan(q)`, `compareTo(q)`;
//! - URL: `url(s)`, `isURL(s)`, and on a `kubernetes.URL` `getScheme()`, `getHost()`,
//!   `getHostname()`, `getPort()`, `getEscapedPath()`, `getQuery()` (a
//!   `map(string, list(string))`), read as Go's `net/url` reads them;
//! - IP: `ip(s)`, `isIP(s)`, `ip.isCanonical(s)`, `string(ip)`, and on a `net.IP`
//!   `family()`, `isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`,
//!   `isLinkLocalUnicast()`, `isGlobalUnicast()`;
//! - CIDR: `cidr(s)`, `isCIDR(s)`, `string(cidr)`, and on a `net.CIDR`
//!   `containsIP(ip | string)`, `containsCIDR(cidr | string)`, `ip()`, `masked()`,
//!   `prefixLength()` (`containsCIDR` as fixed in Kubernetes 1.33: any contained subnet);
//! - format: `format.dns1123Label()`, `format.dns1123Subdomain()`,
//!   `format.dns1035Label()`, `format.qualifiedName()`, `format.dns1123LabelPrefix()`,
//!   `format.dns1123SubdomainPrefix()`, `format.dns1035LabelPrefix()`,
//!   `format.labelValue()`, `format.uri()`, `format.uuid()`, `format.byte()`,
//!   `format.date()`, `format.datetime()`, `format.named(s)` (an optional), and on a
//!   `kubernetes.NamedFormat` `validate(s)`: `optional.none()` or `optional.of` the
//!   API server's error messages;
//! - semver: `semver(s)`, `semver(s, normalize)`, `isSemver(s)`,
//!   `isSemver(s, normalize)`, and on a `kubernetes.Semver` `major()`, `minor()`,
//!   `patch()`, `isLessThan(v)`, `isGreaterThan(v)`, `compareTo(v)`.
//!
//! The values of those libraries are opaque CEL values of the types Kubernetes names
//! (`type(ip('::1')) == net.IP`); `==` and `!=` compare quantities by amount
//! (`quantity('1') == quantity('1000m')`), semantic versions by precedence, the others
//! by value (`cidr('10.0.0.1/8') != cidr('10.0.0.0/8')`). As in Kubernetes, `<` and the
//! like are not defined on them (a rule using them fails with 'no such overload'). Their
//! evaluation errors have the API server's texts (`quantities must match the regular
//! expression ...`, `URL parse error during conversion from string: parse "x": invalid
//! URI for request`, `IP Address "x" parse error during conversion from string:
//! ParseAddr("x"): unable to parse IP`, ...), as have the messages of `validate`.
//! Quantities keep the API server's representation, which `isInteger()` depends on
//! (`quantity('1000m').isInteger()` and `quantity('1.5Gi').isInteger()` are false there
//! too); see the `quantity` submodule.
//!
//! Missing, compared with the Kubernetes API server: the image and authz libraries, and
//! the newest quantity methods (`mul`, `div`, `divInt`); two-variable comprehensions
//! (`all(k, v, ...)`, `transformList`, ...); type checking against the schema (there is
//! no static typing: a wrong field name or type, such as `quantity(self.replicas)` on an
//! integer or `quantity('1') == 1`, is found when the rule runs, as 'no such overload'
//! or a false comparison, not when it is compiled; [`CelRuleSpec::compile`] does catch
//! syntax errors, unknown variables and unknown functions); the cost budget;
//! `optionalOldSelf`; escaping of property names that are not CEL identifiers (`x-foo`
//! as `self.x__dash__foo`: use `self['x-foo']`); `date-time`/`duration` formatted
//! strings as timestamps and durations (they stay strings); set and map list equality
//! ignoring order. Smaller differences in the libraries: `quantity('+')`, `'-'` and
//! `'.'` are invalid here (Go reads them as zero, against the documented grammar, see
//! [`crate::Quantity::validate`]); `add`/`sub` of quantities more than 4096 decimal
//! digits apart in scale fail instead of computing a number of that many digits; URL
//! parts and query values whose escapes decode to bytes that are not UTF-8 hold U+FFFD
//! instead of those bytes; a bracketed URL host must be an IPv6 address, as in Go
//! 1.24.8/1.25.2 and later (older API servers accept any host there).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex};

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt, DYN_TYPE, INT_TYPE, LIST_TYPE,
    STRING_TYPE,
};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::{Context, Env, ExecutionError, Program, Value as CelValue};
use serde_json::Value;

use crate::validation::{ErrorList, ErrorType, FieldError, Path};

mod format;
mod net;
mod quantity;
mod semver;
#[cfg(test)]
mod tests;
mod url;

/// Longest detail a `messageExpression` may produce, in bytes
/// (`MaxEvaluatedMessageExpressionSizeBytes`); longer ones fall back to the message.
pub const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE: usize = 5 * 1024;

/// The `reason`s a rule may give, as in `apiextensions/v1` `FieldValueErrorReason`.
pub const SUPPORTED_REASONS: [&str; 4] =
    ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/// One entry of `x-kubernetes-validations`, as written in the spec. All fields borrow, so
/// generated code can write one in a `const` and the generator can build one from the
/// strings it parsed.
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

    pub const fn with_message(mut self, message: &'a str) -> Self {
        self.message = Some(message);
        self
    }

    pub const fn with_message_expression(mut self, message_expression: &'a str) -> Self {
        self.message_expression = Some(message_expression);
        self
    }

    pub const fn with_field_path(mut self, field_path: &'a str) -> Self {
        self.field_path = Some(field_path);
        self
    }

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
    compiled: Result<Compiled, String>,
}

struct Compiled {
    /// `None` for an empty rule, which Kubernetes skips.
    program: Option<Program>,
    message_program: Option<Program>,
    /// `fieldPath` as Kubernetes renders it (`spec.replicas`, `labels[app]`).
    field_path: Option<Box<str>>,
    reason: Reason,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Invalid,
    Forbidden,
    Required,
    Duplicate,
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
        let compiled = compile(spec);
        let uses_old_self = match &compiled {
            Ok(Compiled { program: Some(program), .. }) => uses_variable(program, OLD_SELF),
            _ => spec.rule.contains(OLD_SELF),
        };
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
        check_rules_typed(std::slice::from_ref(self), path, schema_type, self_value, old_self, errors);
    }

    /// Evaluates the rule alone: `Ok(true)` when it holds or is skipped (a transition rule
    /// without `old_self`, a null value, an empty rule), `Ok(false)` when it fails, the
    /// error text otherwise. For tests and tools; validation uses [`check`](Self::check).
    pub fn evaluate(&self, self_value: &Value, old_self: Option<&Value>) -> Result<bool, String> {
        let compiled = self.compiled.as_ref().map_err(Clone::clone)?;
        let Some(program) = &compiled.program else {
            return Ok(true);
        };
        let old_self = old_self.filter(|old| !old.is_null());
        if self_value.is_null() || (self.uses_old_self && old_self.is_none()) {
            return Ok(true);
        }
        let activation = Activation::new(self_value, old_self);
        match program.execute(&activation.context()) {
            Ok(CelValue::Bool(holds)) => Ok(holds),
            Ok(other) => Err(not_bool(&other)),
            Err(err) => Err(eval_error_text(&err).unwrap_or_else(|| err.to_string())),
        }
    }

    fn error_string(&self) -> &str {
        match &self.message {
            Some(message) if !message.is_empty() => message.trim(),
            _ => self.rule.trim(),
        }
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
    // Kubernetes validates only non-null values, and treats a null old value as none.
    if self_value.is_null() || rules.is_empty() {
        return;
    }
    let old_self = old_self.filter(|old| !old.is_null());
    let evaluated = |rule: &CelRule| {
        matches!(rule.compiled, Ok(Compiled { program: Some(_), .. })) && !(rule.uses_old_self && old_self.is_none())
    };
    // Built only when some rule runs: `self` converted once for all of them.
    let activation = rules.iter().any(evaluated).then(|| Activation::new(self_value, old_self));
    let context = activation.as_ref().map(Activation::context);
    for rule in rules {
        let compiled = match &rule.compiled {
            Ok(compiled) => compiled,
            Err(err) => {
                errors.push(FieldError::new(path, ErrorType::Internal, None, format!("rule compile error: {err}")));
                continue;
            }
        };
        let (Some(program), Some(context)) = (&compiled.program, &context) else {
            continue;
        };
        if !evaluated(rule) {
            continue;
        }
        let bad_value = || Some(Value::String(schema_type.to_owned()));
        match program.execute(context) {
            Ok(CelValue::Bool(true)) => {}
            Ok(CelValue::Bool(false)) => {
                let detail = compiled
                    .message_program
                    .as_ref()
                    .and_then(|program| evaluate_message(program, context))
                    .unwrap_or_else(|| match &rule.message {
                        Some(message) if !message.is_empty() => message.trim().to_owned(),
                        _ => format!("failed rule: {}", rule.rule.trim()),
                    });
                let (error_type, value, detail) = match compiled.reason {
                    Reason::Invalid => (ErrorType::Invalid, bad_value(), detail),
                    Reason::Forbidden => (ErrorType::Forbidden, None, detail),
                    Reason::Required => (ErrorType::Required, None, detail),
                    // `field.Duplicate` has a value and no detail.
                    Reason::Duplicate => (ErrorType::Duplicate, bad_value(), String::new()),
                };
                let error = FieldError::new(path, error_type, value, detail);
                errors.push(match &compiled.field_path {
                    Some(field_path) => error.at_child(field_path),
                    None => error,
                });
            }
            Ok(other) => errors.push(FieldError::new(
                path,
                ErrorType::Invalid,
                bad_value(),
                format!("{} evaluating rule: {}", not_bool(&other), rule.error_string()),
            )),
            Err(err) => {
                let detail = match eval_error_text(&err) {
                    Some(text) => format!("{text} evaluating rule: {}", rule.error_string()),
                    None => format!(
                        "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        rule.error_string()
                    ),
                };
                errors.push(FieldError::new(path, ErrorType::Invalid, bad_value(), detail));
            }
        }
    }
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

/// The parts of a `fieldPath`: `.name` steps into a field, `['key']` into a map entry (or
/// a field whose name is no identifier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldPathSegment {
    Field(String),
    Key(String),
}

/// Parses a rule's `fieldPath` as Kubernetes does (`ValidFieldPath`, without the schema):
/// a sequence of `.name` and `['quoted key']`, the key with `\\`, `\'` and the C escapes.
///
/// Errors are reported at the node's path plus the rendered field path, as Kubernetes
/// does: `.spec.replicas` gives `<node>.spec.replicas`, `.labels['app']` gives
/// `<node>.labels[app]`. Without the schema, `['x']` always renders as a map key
/// (`[x]`); Kubernetes renders it as a field (`.x`) when the object has `properties`, so
/// the generator should rewrite such steps to `.x` (it knows the schema, and should also
/// check that each step names a field, as Kubernetes does when a CRD is created).
pub fn parse_field_path(path: &str) -> Result<Vec<FieldPathSegment>, String> {
    let mut segments = Vec::new();
    let mut rest = path;
    while let Some(c) = rest.chars().next() {
        match c {
            '.' => {
                let name_end = rest[1..].find(['.', '[', ']']).map_or(rest.len(), |i| i + 1);
                let name = &rest[1..name_end];
                if name.is_empty() {
                    return Err("unexpected end of JSON path".to_owned());
                }
                segments.push(FieldPathSegment::Field(name.to_owned()));
                rest = &rest[name_end..];
            }
            '[' => {
                let quoted = &rest[1..];
                if !quoted.starts_with('\'') {
                    let token_end = quoted.find(['.', '[', ']']).unwrap_or(quoted.len());
                    return Err(format!("expected single quoted string but got {}", &quoted[..token_end]));
                }
                let (key, after) = unquote(&quoted[1..])?;
                if !after.starts_with(']') {
                    return Err(match after.chars().next() {
                        None => "unexpected end of JSON path".to_owned(),
                        Some(c) => format!("expected ] but got {c}"),
                    });
                }
                segments.push(FieldPathSegment::Key(key));
                rest = &after[1..];
            }
            _ => {
                let token_end = rest.find(['.', '[', ']']).unwrap_or(rest.len()).max(1);
                return Err(format!("expected [ or . but got: {}", &rest[..token_end]));
            }
        }
    }
    Ok(segments)
}

/// The body of a single-quoted string up to its closing quote, unescaped, and what follows.
fn unquote(s: &str) -> Result<(String, &str), String> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Ok((out, &s[i + 1..])),
            '\\' => {
                let escaped = match chars.next().map(|(_, c)| c) {
                    Some('a') => '\u{7}',
                    Some('b') => '\u{8}',
                    Some('f') => '\u{c}',
                    Some('n') => '\n',
                    Some('r') => '\r',
                    Some('t') => '\t',
                    Some('v') => '\u{b}',
                    Some('\'') => '\'',
                    Some('\\') => '\\',
                    Some(other) => {
                        return Err(format!("invalid string literal: invalid escape char \\{other}"));
                    }
                    None => return Err("unexpected end of JSON path".to_owned()),
                };
                out.push(escaped);
            }
            c => out.push(c),
        }
    }
    Err("unexpected end of JSON path".to_owned())
}

/// Renders parsed segments as Kubernetes' `field.Path` does: `spec.labels[app]`.
fn render_field_path(segments: &[FieldPathSegment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            FieldPathSegment::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            FieldPathSegment::Key(key) => {
                out.push('[');
                out.push_str(key);
                out.push(']');
            }
        }
    }
    out
}

// ---- Compilation ----

const SELF: &str = "self";
const OLD_SELF: &str = "oldSelf";

/// The environment every rule is compiled and run in.
static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    let declared = env
        .add_extension(cel::extensions::strings)
        .and_then(|()| env.add_extension(k8s_lists))
        .and_then(|()| env.add_extension(k8s_regex))
        .and_then(|()| env.add_extension(k8s_sets))
        .and_then(|()| quantity::library(&mut env))
        .and_then(|()| url::library(&mut env))
        .and_then(|()| net::library(&mut env))
        .and_then(|()| format::library(&mut env))
        .and_then(|()| semver::library(&mut env));
    if let Err(err) = declared {
        // Only a clash between the libraries above, fixed in this file, gets here.
        unreachable!("CEL environment: {err}");
    }
    Arc::new(env)
});

fn compile(spec: &CelRuleSpec<'_>) -> Result<Compiled, String> {
    let rule_name = spec.rule.trim();
    let fail = |what: &str, err: String| format!("{what} for rule {rule_name:?}: {err}");
    let program = if rule_name.is_empty() {
        None
    } else {
        Some(compile_expression(spec.rule).map_err(|err| fail("compilation failed", err))?)
    };
    let message_program = match spec.message_expression {
        Some(source) if !source.trim().is_empty() => {
            Some(compile_expression(source).map_err(|err| fail("messageExpression compilation failed", err))?)
        }
        _ => None,
    };
    let field_path = match spec.field_path {
        Some(path) if !path.is_empty() => Some(
            render_field_path(&parse_field_path(path).map_err(|err| fail("invalid fieldPath", err))?).into_boxed_str(),
        ),
        _ => None,
    };
    let reason = match spec.reason {
        None | Some("") | Some("FieldValueInvalid") => Reason::Invalid,
        Some("FieldValueForbidden") => Reason::Forbidden,
        Some("FieldValueRequired") => Reason::Required,
        Some("FieldValueDuplicate") => Reason::Duplicate,
        Some(other) => {
            let supported: Vec<String> = SUPPORTED_REASONS.iter().map(|r| format!("{r:?}")).collect();
            return Err(fail(
                "invalid reason",
                format!("Unsupported value: {other:?}: supported values: {}", supported.join(", ")),
            ));
        }
    };
    Ok(Compiled { program, message_program, field_path, reason })
}

fn compile_expression(source: &str) -> Result<Program, String> {
    let program = ENV.compile(source).map_err(|err| err.to_string())?;
    let mut scope = vec![SELF, OLD_SELF];
    check_references(program.expression(), &mut scope)?;
    Ok(program)
}

fn uses_variable(program: &Program, name: &str) -> bool {
    program.references().has_variable(name)
}

/// Rejects references the rule can never resolve: identifiers other than the variables in
/// `scope` and type names, and functions the environment doesn't declare.
fn check_references<'e>(expr: &'e IdedExpr, scope: &mut Vec<&'e str>) -> Result<(), String> {
    match &expr.expr {
        Expr::Unspecified | Expr::Literal(_) => Ok(()),
        Expr::Ident(name) => {
            if scope.contains(&name.as_str()) || ENV.types().find_type(name).is_some() {
                Ok(())
            } else {
                Err(format!("undeclared reference to '{name}'"))
            }
        }
        Expr::Select(select) => {
            // A qualified type name, `net.IP`, when its root is no variable.
            if !select.test
                && let Some(name) = qualified_name(expr, scope)
                && ENV.types().find_type(&name).is_some()
            {
                return Ok(());
            }
            check_references(&select.operand, scope)
        }
        Expr::List(list) => list.elements.iter().try_for_each(|e| check_references(e, scope)),
        Expr::Map(map) => map.entries.iter().try_for_each(|entry| match &entry.expr {
            EntryExpr::MapEntry(entry) => {
                check_references(&entry.key, scope)?;
                check_references(&entry.value, scope)
            }
            EntryExpr::StructField(field) => check_references(&field.value, scope),
        }),
        Expr::Struct(st) => st.entries.iter().try_for_each(|entry| match &entry.expr {
            EntryExpr::MapEntry(entry) => {
                check_references(&entry.key, scope)?;
                check_references(&entry.value, scope)
            }
            EntryExpr::StructField(field) => check_references(&field.value, scope),
        }),
        Expr::Comprehension(comp) => {
            check_references(&comp.iter_range, scope)?;
            check_references(&comp.accu_init, scope)?;
            let depth = scope.len();
            scope.push(&comp.iter_var);
            if let Some(var) = &comp.iter_var2 {
                scope.push(var);
            }
            scope.push(&comp.accu_var);
            let inner = check_references(&comp.loop_cond, scope)
                .and_then(|()| check_references(&comp.loop_step, scope))
                .and_then(|()| check_references(&comp.result, scope));
            scope.truncate(depth);
            inner
        }
        Expr::Call(call) => {
            let name = call.func_name.as_str();
            let operator = name.starts_with(['_', '!', '-', '@']);
            if let Some(target) = &call.target {
                // `ns.f(x)`: a namespaced function such as `sets.contains`, when `ns` is
                // no variable.
                if let Some(qualified) = qualified_name(target, scope)
                    && is_declared_function(&format!("{qualified}.{name}"))
                {
                } else {
                    check_references(target, scope)?;
                    if !operator && !is_declared_function(name) {
                        return Err(format!("undeclared reference to '{name}'"));
                    }
                }
            } else if !operator && !is_declared_function(name) {
                return Err(format!("undeclared reference to '{name}'"));
            }
            call.args.iter().try_for_each(|arg| check_references(arg, scope))
        }
    }
}

/// `a.b.c` when `expr` spells it and `a` is no variable in scope.
fn qualified_name(expr: &IdedExpr, scope: &[&str]) -> Option<String> {
    match &expr.expr {
        Expr::Ident(name) if !scope.contains(&name.as_str()) => Some(name.clone()),
        Expr::Select(select) if !select.test => {
            qualified_name(&select.operand, scope).map(|q| format!("{q}.{}", select.field))
        }
        _ => None,
    }
}

/// Whether the environment declares a function (global or member) of that name. The
/// crate offers no direct query: a context refuses to add a function over a declared one.
fn is_declared_function(name: &str) -> bool {
    let mut probe = Context::with_env(Arc::clone(&ENV));
    probe.add_function(name, || true).is_err()
}

// ---- Evaluation ----

/// `self` and `oldSelf` as CEL values, built once per node for all its rules and lent to
/// each evaluation without copying.
struct Activation<'v> {
    self_value: Box<dyn Val + 'v>,
    old_self: Option<Box<dyn Val + 'v>>,
}

impl<'v> Activation<'v> {
    fn new(self_value: &'v Value, old_self: Option<&'v Value>) -> Self {
        Activation { self_value: to_cel(self_value), old_self: old_self.map(to_cel) }
    }

    fn context(&self) -> Context<'_, '_> {
        let mut context = Context::with_env(Arc::clone(&ENV));
        context.set_variable_resolver(self);
        context
    }
}

impl VariableResolver for Activation<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        match variable {
            SELF => Some(CowVal::Borrowed(self.self_value.as_ref())),
            OLD_SELF => self.old_self.as_deref().map(CowVal::Borrowed),
            _ => None,
        }
    }
}

/// A JSON value as a CEL value, borrowing its strings.
fn to_cel(value: &Value) -> Box<dyn Val + '_> {
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Box::new(CelInt::from(i))
            } else if let Some(u) = n.as_u64() {
                // Above int64: Kubernetes would not have decoded it as an integer.
                Box::new(CelUInt::from(u))
            } else {
                Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN)))
            }
        }
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Array(items) => Box::new(CelList::from(items.iter().map(to_cel).collect::<Vec<_>>())),
        Value::Object(fields) => Box::new(CelMap::from(
            fields.iter().map(|(k, v)| (CelMapKey::from(k.as_str()), to_cel(v))).collect::<HashMap<_, _>>(),
        )),
    }
}

/// The detail a `messageExpression` gives, or `None` to fall back to the message: when it
/// fails, is no string, or is empty, multi-line or too long once trimmed.
fn evaluate_message(program: &Program, context: &Context<'_, '_>) -> Option<String> {
    let CelValue::String(message) = program.execute(context).ok()? else {
        return None;
    };
    let message = message.trim();
    if message.is_empty() || message.len() > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE || message.contains('\n') {
        return None;
    }
    Some(message.to_owned())
}

fn not_bool(value: &CelValue) -> String {
    format!("rule evaluated to {}, not a bool", value.type_of())
}

/// cel-go's text for an evaluation error, which Kubernetes shows; `None` for the
/// "no such overload" family, which Kubernetes words differently.
fn eval_error_text(err: &ExecutionError) -> Option<String> {
    #[allow(deprecated)]
    Some(match err {
        ExecutionError::NoSuchOverload(_)
        | ExecutionError::UnsupportedBinaryOperator(..)
        | ExecutionError::UnsupportedUnaryOperator(..)
        | ExecutionError::ValuesNotComparable(..)
        | ExecutionError::UnexpectedType { .. }
        | ExecutionError::UnsupportedTargetType { .. }
        | ExecutionError::NotSupportedAsMethod { .. } => return None,
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::Overflow(..) => "integer overflow".to_owned(),
        ExecutionError::IndexOutOfBounds(index) => match index {
            CelValue::Int(i) => format!("index out of range: {i}"),
            CelValue::UInt(i) => format!("index out of range: {i}"),
            other => format!("index out of range: {other:?}"),
        },
        ExecutionError::UndeclaredReference(name) => format!("undeclared reference to '{name}'"),
        // Kubernetes' libraries word their errors alone (see `k8s_error`).
        ExecutionError::FunctionError { function, message } if function.is_empty() => message.clone(),
        ExecutionError::FunctionError { function, message } => format!("{function}: {message}"),
        other => lower_first(&other.to_string()),
    })
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

// ---- Kubernetes libraries ----

type Args<'b, 'v> = Vec<CowVal<'b, 'v>>;
type Returns<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

/// An evaluation error shown as `message` alone, as the Kubernetes libraries' errors are
/// (`quantities must match the regular expression ...`), not prefixed with a function.
fn k8s_error(message: impl fmt::Display) -> ExecutionError {
    ExecutionError::function_error("", message)
}

fn args<'b, 'v, const N: usize>(args: Args<'b, 'v>) -> Result<[CowVal<'b, 'v>; N], ExecutionError> {
    args.try_into().map_err(|args: Vec<_>| ExecutionError::invalid_argument_count(N, args.len()))
}

fn elements<'a, 'v>(function: &str, list: &'a (dyn Val + 'v)) -> Result<Vec<&'a (dyn Val + 'v)>, ExecutionError> {
    let iterable =
        list.as_iterable().ok_or_else(|| ExecutionError::function_error(function, "receiver is not a list"))?;
    let mut items = iterable.iter();
    let mut out = Vec::new();
    while let Some(item) = items.next() {
        out.push(item);
    }
    Ok(out)
}

fn compare(a: &dyn Val, b: &dyn Val) -> Result<std::cmp::Ordering, ExecutionError> {
    match a.as_comparer() {
        Some(comparer) => comparer.compare(b),
        None => Err(ExecutionError::no_such_overload(
            "_<_",
            vec![a.get_type().name().to_owned(), b.get_type().name().to_owned()],
        )),
    }
}

/// Kubernetes' lists library: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`.
fn k8s_lists(env: &mut Env) -> Result<(), cel::DeclarationError> {
    env.add_member_overload("isSorted", "list_is_sorted", LIST_TYPE, vec![], is_sorted)?;
    env.add_member_overload("sum", "list_sum", LIST_TYPE, vec![], sum)?;
    env.add_member_overload("min", "list_min", LIST_TYPE, vec![], min)?;
    env.add_member_overload("max", "list_max", LIST_TYPE, vec![], max)?;
    env.add_member_overload("indexOf", "list_index_of", LIST_TYPE, vec![DYN_TYPE], index_of)?;
    env.add_member_overload("lastIndexOf", "list_last_index_of", LIST_TYPE, vec![DYN_TYPE], last_index_of)?;
    Ok(())
}

fn is_sorted<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list] = args(a)?;
    let items = elements("isSorted", list.as_ref())?;
    for pair in items.windows(2) {
        if compare(pair[0], pair[1])?.is_gt() {
            return Ok(CowVal::owned(CelBool::from(false)));
        }
    }
    Ok(CowVal::owned(CelBool::from(true)))
}

fn sum<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list] = args(a)?;
    let items = elements("sum", list.as_ref())?;
    let overflow = || ExecutionError::function_error("sum", "integer overflow");
    let Some(first) = items.first() else {
        return Ok(CowVal::owned(CelInt::from(0)));
    };
    if first.downcast_ref::<CelInt>().is_some() {
        let mut total: i64 = 0;
        for item in &items {
            let i = item.downcast_ref::<CelInt>().ok_or_else(|| mixed("sum", *item))?;
            total = total.checked_add(*i.inner()).ok_or_else(overflow)?;
        }
        Ok(CowVal::owned(CelInt::from(total)))
    } else if first.downcast_ref::<CelUInt>().is_some() {
        let mut total: u64 = 0;
        for item in &items {
            let u = item.downcast_ref::<CelUInt>().ok_or_else(|| mixed("sum", *item))?;
            total = total.checked_add(*u.inner()).ok_or_else(overflow)?;
        }
        Ok(CowVal::owned(CelUInt::from(total)))
    } else if first.downcast_ref::<CelDouble>().is_some() {
        let mut total = 0.0;
        for item in &items {
            let d = item.downcast_ref::<CelDouble>().ok_or_else(|| mixed("sum", *item))?;
            total += *d.inner();
        }
        Ok(CowVal::owned(CelDouble::from(total)))
    } else {
        Err(ExecutionError::no_such_member_overload("sum", vec![format!("list({})", first.get_type().name())]))
    }
}

fn mixed(function: &str, item: &dyn Val) -> ExecutionError {
    ExecutionError::function_error(function, format!("list mixes element types, found {}", item.get_type().name()))
}

fn extreme<'b, 'v>(function: &str, a: Args<'b, 'v>, wanted: std::cmp::Ordering) -> Returns<'b, 'v> {
    let [list] = args(a)?;
    let items = elements(function, list.as_ref())?;
    let mut best = *items
        .first()
        .ok_or_else(|| ExecutionError::function_error(function, format!("{function} called on empty list")))?;
    for item in &items[1..] {
        if compare(*item, best)? == wanted {
            best = *item;
        }
    }
    Ok(CowVal::Owned(best.clone_as_boxed()))
}

fn min<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    extreme("min", a, std::cmp::Ordering::Less)
}

fn max<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    extreme("max", a, std::cmp::Ordering::Greater)
}

fn index_of<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list, needle] = args(a)?;
    let items = elements("indexOf", list.as_ref())?;
    let found = items.iter().position(|item| item.equals(needle.as_ref()));
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

fn last_index_of<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list, needle] = args(a)?;
    let items = elements("lastIndexOf", list.as_ref())?;
    let found = items.iter().rposition(|item| item.equals(needle.as_ref()));
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

/// Kubernetes' regex library: `find`, `findAll`.
fn k8s_regex(env: &mut Env) -> Result<(), cel::DeclarationError> {
    env.add_member_overload("find", "string_find_string", STRING_TYPE, vec![STRING_TYPE], find)?;
    env.add_member_overload("findAll", "string_find_all_string", STRING_TYPE, vec![STRING_TYPE], find_all)?;
    env.add_member_overload(
        "findAll",
        "string_find_all_string_int",
        STRING_TYPE,
        vec![STRING_TYPE, INT_TYPE],
        find_all_n,
    )?;
    Ok(())
}

fn string_arg<'a>(function: &str, val: &'a dyn Val) -> Result<&'a str, ExecutionError> {
    <&str>::try_from(val).map_err(|_| {
        ExecutionError::function_error(function, format!("expected a string, got {}", val.get_type().name()))
    })
}

/// Regexes compiled by `find`/`findAll`, kept since rules repeat them on every request.
fn regex(function: &str, pattern: &str) -> Result<Arc<regex::Regex>, ExecutionError> {
    static CACHE: LazyLock<Mutex<HashMap<String, Arc<regex::Regex>>>> = LazyLock::new(Default::default);
    const MAX_CACHED: usize = 256;
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(re) = cache.get(pattern) {
        return Ok(Arc::clone(re));
    }
    let re =
        Arc::new(regex::Regex::new(pattern).map_err(|err| {
            ExecutionError::function_error(function, format!("'{pattern}' not a valid regex: {err}"))
        })?);
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), Arc::clone(&re));
    Ok(re)
}

fn find<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern] = args(a)?;
    let re = regex("find", string_arg("find", pattern.as_ref())?)?;
    let found = re.find(string_arg("find", haystack.as_ref())?).map_or("", |m| m.as_str());
    Ok(CowVal::owned(CelString::from(found.to_owned())))
}

fn find_all_limited<'b, 'v>(haystack: &dyn Val, pattern: &dyn Val, limit: Option<usize>) -> Returns<'b, 'v> {
    let re = regex("findAll", string_arg("findAll", pattern)?)?;
    let haystack = string_arg("findAll", haystack)?;
    let found: Vec<Box<dyn Val + 'v>> = re
        .find_iter(haystack)
        .take(limit.unwrap_or(usize::MAX))
        .map(|m| Box::new(CelString::from(m.as_str().to_owned())) as Box<dyn Val + 'v>)
        .collect();
    Ok(CowVal::owned(CelList::from(found)))
}

fn find_all<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern] = args(a)?;
    find_all_limited(haystack.as_ref(), pattern.as_ref(), None)
}

fn find_all_n<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern, n] = args(a)?;
    let n = *n
        .as_ref()
        .downcast_ref::<CelInt>()
        .ok_or_else(|| ExecutionError::function_error("findAll", "expected an int limit"))?
        .inner();
    // A negative limit means all matches, as in Go's `FindAllString`.
    let limit = usize::try_from(n).ok();
    find_all_limited(haystack.as_ref(), pattern.as_ref(), limit)
}

/// cel-go's sets library, which Kubernetes includes: `sets.contains`, `sets.equivalent`,
/// `sets.intersects`.
fn k8s_sets(env: &mut Env) -> Result<(), cel::DeclarationError> {
    env.add_overload("sets.contains", "list_sets_contains_list", vec![LIST_TYPE, LIST_TYPE], sets_contains)?;
    env.add_overload("sets.equivalent", "list_sets_equivalent_list", vec![LIST_TYPE, LIST_TYPE], sets_equivalent)?;
    env.add_overload("sets.intersects", "list_sets_intersects_list", vec![LIST_TYPE, LIST_TYPE], sets_intersects)?;
    Ok(())
}

fn contains_all(function: &str, outer: &dyn Val, inner: &dyn Val) -> Result<bool, ExecutionError> {
    let outer = elements(function, outer)?;
    let inner = elements(function, inner)?;
    Ok(inner.iter().all(|i| outer.iter().any(|o| o.equals(*i))))
}

fn sets_contains<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [outer, inner] = args(a)?;
    let holds = contains_all("sets.contains", outer.as_ref(), inner.as_ref())?;
    Ok(CowVal::owned(CelBool::from(holds)))
}

fn sets_equivalent<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [x, y] = args(a)?;
    let holds = contains_all("sets.equivalent", x.as_ref(), y.as_ref())?
        && contains_all("sets.equivalent", y.as_ref(), x.as_ref())?;
    Ok(CowVal::owned(CelBool::from(holds)))
}

fn sets_intersects<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [x, y] = args(a)?;
    let x = elements("sets.intersects", x.as_ref())?;
    let y = elements("sets.intersects", y.as_ref())?;
    let holds = x.iter().any(|a| y.iter().any(|b| a.equals(*b)));
    Ok(CowVal::owned(CelBool::from(holds)))
}

/// A model's wire JSON, the value CEL rules see as `self`. A model that cannot be
/// encoded (it always can) is seen as `null`, which no rule validates.
pub fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
