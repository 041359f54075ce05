//! Compiling a rule: its expressions parsed in the environment every rule runs in, their
//! references checked, its `fieldPath` rendered and its `reason` read.

use std::sync::{Arc, LazyLock};

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Context, Env, Program};

use super::{CelRuleSpec, SUPPORTED_REASONS, field_path, lib};

pub(super) const SELF: &str = "self";
pub(super) const OLD_SELF: &str = "oldSelf";

/// The environment every rule is compiled and run in.
pub(super) static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    if let Err(err) = lib::register(&mut env) {
        // Only a clash between the libraries, fixed in `lib`, gets here.
        unreachable!("CEL environment: {err}");
    }
    Arc::new(env)
});

/// What a rule compiles to.
pub(super) struct Compiled {
    /// `None` for an empty rule, which Kubernetes skips.
    pub(super) program: Option<Program>,
    pub(super) message_program: Option<Program>,
    pub(super) report: Report,
}

/// How a false rule is reported, read from its spec without compiling any CEL.
pub(super) struct Report {
    pub(super) reason: Reason,
    /// `fieldPath` as Kubernetes renders it (`spec.replicas`, `labels[app]`).
    pub(super) field_path: Option<Box<str>>,
}

impl Report {
    /// Reads `fieldPath` and `reason`, or says which is invalid and why.
    pub(super) fn read(spec: &CelRuleSpec<'_>) -> Result<Report, (&'static str, String)> {
        let field_path = match spec.field_path {
            Some(path) if !path.is_empty() => {
                Some(field_path::render(path).map_err(|err| ("invalid fieldPath", err))?.into_boxed_str())
            }
            _ => None,
        };
        let reason = Reason::parse(spec.reason).map_err(|err| ("invalid reason", err))?;
        Ok(Report { reason, field_path })
    }
}

/// The type of error a false rule gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reason {
    Invalid,
    Forbidden,
    Required,
    Duplicate,
}

impl Reason {
    /// A rule's `reason`: `FieldValueInvalid` when absent or empty.
    fn parse(reason: Option<&str>) -> Result<Reason, String> {
        match reason {
            None | Some("") | Some("FieldValueInvalid") => Ok(Reason::Invalid),
            Some("FieldValueForbidden") => Ok(Reason::Forbidden),
            Some("FieldValueRequired") => Ok(Reason::Required),
            Some("FieldValueDuplicate") => Ok(Reason::Duplicate),
            Some(other) => {
                let supported: Vec<String> = SUPPORTED_REASONS.iter().map(|r| format!("{r:?}")).collect();
                Err(format!("Unsupported value: {other:?}: supported values: {}", supported.join(", ")))
            }
        }
    }
}

pub(super) fn compile(spec: &CelRuleSpec<'_>) -> Result<Compiled, String> {
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
    let report = Report::read(spec).map_err(|(what, err)| fail(what, err))?;
    Ok(Compiled { program, message_program, report })
}

fn compile_expression(source: &str) -> Result<Program, String> {
    let program = ENV.compile(source).map_err(|err| err.to_string())?;
    let mut scope = vec![SELF, OLD_SELF];
    check_references(program.expression(), &mut scope)?;
    Ok(program)
}

/// Whether the rule reads `oldSelf`, so is only evaluated on update.
pub(super) fn is_transition_rule(spec: &CelRuleSpec<'_>, compiled: &Result<Compiled, String>) -> bool {
    match compiled {
        Ok(Compiled { program: Some(program), .. }) => program.references().has_variable(OLD_SELF),
        // Without a tree to tell, a rule mentioning it is taken for one.
        _ => spec.rule.contains(OLD_SELF),
    }
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
