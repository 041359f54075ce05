//! Evaluating compiled programs: `self` and `oldSelf` as CEL values, and the API server's
//! wording of what an evaluation gives other than a bool.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::types::{CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::{Context, ExecutionError, Program, Value as CelValue};
use serde_json::Value;

use super::CelRule;
use super::MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE;
use super::compile::{Compiled, ENV, OLD_SELF, SELF};

/// [`CelRule::evaluate`].
pub(super) fn evaluate(rule: &CelRule, self_value: &Value, old_self: Option<&Value>) -> Result<bool, String> {
    let compiled: &Compiled = rule.compiled.as_ref().map_err(Clone::clone)?;
    let Some(program) = &compiled.program else {
        return Ok(true);
    };
    let old_self = old_self.filter(|old| !old.is_null());
    if self_value.is_null() || (rule.uses_old_self && old_self.is_none()) {
        return Ok(true);
    }
    let activation = Activation::new(self_value, old_self);
    match program.execute(&activation.context()) {
        Ok(CelValue::Bool(holds)) => Ok(holds),
        Ok(other) => Err(not_bool(&other)),
        Err(err) => Err(eval_error_text(&err).unwrap_or_else(|| err.to_string())),
    }
}

/// `self` and `oldSelf` as CEL values, built once per node for all its rules and lent to
/// each evaluation without copying.
pub(super) struct Activation<'v> {
    self_value: Box<dyn Val + 'v>,
    old_self: Option<Box<dyn Val + 'v>>,
}

impl<'v> Activation<'v> {
    pub(super) fn new(self_value: &'v Value, old_self: Option<&'v Value>) -> Self {
        Activation { self_value: to_cel(self_value), old_self: old_self.map(to_cel) }
    }

    pub(super) fn context(&self) -> Context<'_, '_> {
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
pub(super) fn evaluate_message(program: &Program, context: &Context<'_, '_>) -> Option<String> {
    let CelValue::String(message) = program.execute(context).ok()? else {
        return None;
    };
    let message = message.trim();
    if message.is_empty() || message.len() > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE || message.contains('\n') {
        return None;
    }
    Some(message.to_owned())
}

pub(super) fn not_bool(value: &CelValue) -> String {
    format!("rule evaluated to {}, not a bool", value.type_of())
}

/// cel-go's text for an evaluation error, which Kubernetes shows; `None` for the
/// "no such overload" family, which Kubernetes words differently.
pub(super) fn eval_error_text(err: &ExecutionError) -> Option<String> {
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
