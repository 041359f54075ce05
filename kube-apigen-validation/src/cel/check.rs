//! Checking the rules of a node and building the errors they give.

use serde_json::Value;

use super::compile::{Compiled, Reason, Report};
use super::eval::{Activation, eval_error_text, evaluate_message, not_bool};
use super::{CelRule, CelRuleSpec};
use kube_apigen_core::field::{ErrorList, ErrorType, FieldError, Path};

/// Checks `rules` against the node `self_value` at `path` (and `old_self`, its value
/// before an update), converting the node to CEL once for all of them; `schema_type` is
/// shown as the bad value.
pub(super) fn check<'r>(
    rules: impl Iterator<Item = &'r CelRule> + Clone,
    path: &Path<'_>,
    schema_type: &str,
    self_value: &Value,
    old_self: Option<&Value>,
    errors: &mut ErrorList,
) {
    // Kubernetes validates only non-null values, and treats a null old value as none.
    if self_value.is_null() {
        return;
    }
    let old_self = old_self.filter(|old| !old.is_null());
    let evaluated = |rule: &CelRule| rule.runs(old_self.is_some());
    // Built only when some rule runs: `self` converted once for all of them.
    let activation = rules.clone().any(evaluated).then(|| Activation::new(self_value, old_self));
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
        match program.execute(context) {
            Ok(cel::Value::Bool(true)) => {}
            Ok(cel::Value::Bool(false)) => {
                let detail = compiled
                    .message_program
                    .as_ref()
                    .and_then(|program| evaluate_message(program, context))
                    .unwrap_or_else(|| static_detail(&rule.rule, rule.message.as_deref()));
                errors.push(false_rule_error(path, schema_type, &compiled.report, detail));
            }
            Ok(other) => errors.push(FieldError::invalid(
                path,
                schema_type,
                format!("{} evaluating rule: {}", not_bool(&other), rule_or_message(rule)),
            )),
            Err(err) => {
                let detail = match eval_error_text(&err) {
                    Some(text) => format!("{text} evaluating rule: {}", rule_or_message(rule)),
                    None => format!(
                        "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        rule_or_message(rule)
                    ),
                };
                errors.push(FieldError::invalid(path, schema_type, detail));
            }
        }
    }
}

impl CelRule {
    /// Whether checking the rule evaluates it, given whether there is an old value: not
    /// when it did not compile, is empty, or is a transition rule without an old value.
    pub(super) fn runs(&self, has_old: bool) -> bool {
        matches!(self.compiled, Ok(Compiled { program: Some(_), .. })) && (has_old || !self.uses_old_self)
    }
}

/// The error of a rule found false by its translation, built from its spec and
/// `report` (`None` when the spec's is invalid), or `None` when that takes the compiled
/// rule: to evaluate a `messageExpression`, or to report an invalid `reason` or
/// `fieldPath`.
pub(super) fn translated_failure(
    spec: &CelRuleSpec<'_>,
    report: Option<&Report>,
    path: &Path<'_>,
    schema_type: &str,
) -> Option<FieldError> {
    let report = report?;
    // `Duplicate` shows no detail, so its message expression is never evaluated.
    if report.reason != Reason::Duplicate && spec.message_expression.is_some_and(|source| !source.trim().is_empty()) {
        return None;
    }
    Some(false_rule_error(path, schema_type, report, static_detail(spec.rule, spec.message)))
}

/// The error of a rule that evaluated to false, at `path` plus its rendered `fieldPath`:
/// of the type its `reason` names, with the schema type as the bad value (`Forbidden` and
/// `Required` show none) and `detail` (`Duplicate` has none, as `field.Duplicate`).
fn false_rule_error(path: &Path<'_>, schema_type: &str, report: &Report, detail: String) -> FieldError {
    let error = match report.reason {
        Reason::Invalid => FieldError::invalid(path, schema_type, detail),
        Reason::Forbidden => FieldError::forbidden(path, detail),
        Reason::Required => FieldError::required(path, detail),
        Reason::Duplicate => FieldError::duplicate(path, schema_type),
    };
    match &report.field_path {
        Some(field_path) => error.at_child(field_path),
        None => error,
    }
}

/// The detail of a false rule that no `messageExpression` words: its message, else
/// `failed rule: <rule>`.
fn static_detail(rule: &str, message: Option<&str>) -> String {
    match message {
        Some(message) if !message.is_empty() => message.trim().to_owned(),
        _ => format!("failed rule: {}", rule.trim()),
    }
}

/// How evaluation errors name a rule: by its message, else its source.
fn rule_or_message(rule: &CelRule) -> &str {
    match &rule.message {
        Some(message) if !message.is_empty() => message.trim(),
        _ => rule.rule.trim(),
    }
}
