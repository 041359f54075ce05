//! The CEL fast path: rules translated to Rust when the crate is generated.
//!
//! Checking a rule with the interpreter (`support::cel`) costs a JSON copy of the node, a
//! second copy as CEL values, and a walk of the rule's tree, on every request. Most rules
//! Kubernetes specs carry are small boolean expressions over the node's own fields; this
//! module translates those, when every part of them is in the subset below and every field
//! they read is known from the typed IR, into a Rust function over the typed node:
//!
//! ```text
//! !has(self.minReplicas) || self.maxReplicas >= self.minReplicas
//! fn rule_0(value: &super::HorizontalPodAutoscalerSpec) -> Option<bool> {
//!     Some(value.min_replicas.is_none() || i64::from(value.max_replicas) >= i64::from(value.min_replicas?))
//! }
//! ```
//!
//! # Exactness
//! The result must always be the interpreter's, run on the node's JSON (`to_json`). The
//! translation returns `Option<bool>` (or `bool` when nothing in it can fail): `Some(b)`
//! only when the interpreter gives `b`, and `None`, "cannot decide", whenever the
//! interpreter would give an evaluation error (reading an absent optional field is
//! `no such key`), or might: the generated code then runs the interpreter for that rule,
//! so errors keep their exact text. Every fallible step is a `?`; since Rust's `||`,
//! `&&` and `if` short-circuit left to right as CEL's do, `true || <error>` is `true` in
//! both, while `false || <error>` is `None`. CEL also absorbs errors on the left
//! (`<error> || true` is `true`) and inside `exists`/`all`; the translation gives `None`
//! there, which the interpreter then decides: less often fast, never different.
//!
//! Types are known statically, so no CEL type error can occur in translated code: any
//! construct whose operand types are not the ones below is left to the interpreter, as
//! are transition rules (`oldSelf`) and rules that do not compile.
//!
//! # Subset
//! - `self`, comprehension variables, `self.f` on typed structs (a required field is
//!   always present in the JSON; an optional one is `Some` or gives `None`), `has(x.f)`;
//! - `bool`, `int` and `string` literals; `-` on an int literal;
//! - `!`, `&&`, `||`, `c ? a : b` (branches both bool, int or string);
//! - `==`, `!=`, `<`, `<=`, `>`, `>=` on two ints (`int32`/`int64` fields, sizes,
//!   literals) or two strings (string fields, string enums by `as_str()`, quantities by
//!   their text, literals);
//! - `x in ['a', 'b']`: a string in a list literal of string literals;
//! - `size(x)` and `x.size()`: strings (code points), lists, byte strings (their base64
//!   text), and `filter` results;
//! - `string(s)` on a string; `s.startsWith(t)`, `s.endsWith(t)`;
//! - `list.exists(x, p)`, `list.all(x, p)`, `list.filter(x, p).size()`, over typed lists
//!   and list literals of bools.

use std::cell::Cell;
use std::sync::LazyLock;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::paths::{named, rust_type};
use crate::ir::{Api, CelRule, FieldType, SupportType, Ty, TypeId, TypeKind};

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Runs `f` (an emission) with the fast path off: every rule is left to the interpreter,
/// as before this module existed. Tests build both variants of a crate and compare them.
pub fn interpreter_only<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            ENABLED.set(self.0);
        }
    }
    let _restore = Restore(ENABLED.replace(false));
    f()
}

/// The environment the interpreter compiles rules in has the standard macros and no
/// others (its extensions add functions only), so this parse gives its tree.
static ENV: LazyLock<cel::Env> = LazyLock::new(cel::Env::stdlib);

/// A rule translated to a function `fn(value: &T) -> Option<bool>` (or `-> bool` when not
/// `fallible`) over the typed node.
#[derive(Debug, Clone)]
pub struct Transpiled {
    /// `T`: the node's type, or `str` and `[T]` for `String` and `Vec<T>` (callers'
    /// references coerce).
    pub param: TokenStream,
    /// A `bool` expression over `value`; uses `?` when `fallible`.
    pub body: TokenStream,
    /// Whether some step can fail (then the function returns `Option<bool>`).
    pub fallible: bool,
    /// Whether `body` reads `value` at all.
    pub uses_self: bool,
}

impl Transpiled {
    /// The function item `fn name(value: &T) -> ...`.
    pub fn function(&self, name: &Ident) -> TokenStream {
        let binding = if self.uses_self { quote!(value) } else { quote!(_) };
        let (param, body) = (&self.param, &self.body);
        if self.fallible {
            quote!(fn #name(#binding: &#param) -> Option<bool> { Some(#body) })
        } else {
            quote!(fn #name(#binding: &#param) -> bool { #body })
        }
    }
}

/// Translates `rule` at a node of type `self_ty`, or `None` when any part of it is outside
/// the subset (then the interpreter checks it). Type paths are written as seen from
/// `module`.
pub fn transpile(api: &Api, rule: &CelRule, self_ty: &FieldType, module: &[String]) -> Option<Transpiled> {
    if rule.rule.contains("oldSelf") {
        return None;
    }
    let program = ENV.compile(&rule.rule).ok()?;
    let mut translator = Translator { api, labels: 0, scopes: Vec::new() };
    let self_value = translator.self_value(self_ty)?;
    translator.scopes.push(Binding { name: "self".to_owned(), value: self_value });
    let value = translator.expr(program.expression())?;
    let Kind::Bool = value.kind else { return None };
    // Folded constants may have dropped every read of `self`.
    let uses_self = mentions(&value.code.tokens, "value");
    Some(Transpiled {
        param: param_type(api, self_ty, module),
        body: value.code.tokens,
        fallible: value.code.fallible,
        uses_self,
    })
}

/// The Rust type `value` is passed as to a rule function at a node of type `ty`: `str`
/// and slices rather than `String` and `Vec` (callers' references coerce).
fn param_type(api: &Api, ty: &FieldType, module: &[String]) -> TokenStream {
    match resolve(api, &ty.ty) {
        Ty::String => quote!(str),
        Ty::Vec(item) => {
            let item = rust_type(api, &item.ty, module);
            quote!([#item])
        }
        Ty::Named(id) => named(api, *id, module),
        other => rust_type(api, other, module),
    }
}

/// The CEL checks of one node, when at least one of its rules translates; `None` leaves
/// the node to the interpreter entirely (the caller's code).
///
/// Rules run in their order. A translated rule calls its function: `true` does nothing,
/// `false` pushes the error the interpreter would (for a `messageExpression`, it asks the
/// interpreter, which evaluates the message), `None` asks the interpreter. Runs of
/// untranslated rules are checked together by the interpreter, as before. The node's JSON
/// copy is made at most once, and only when the interpreter is asked.
pub(super) fn node(
    api: &Api,
    rules: &[CelRule],
    self_ty: &FieldType,
    schema_type: &str,
    module: &[String],
    old: Option<&TokenStream>,
    compiled_rule: impl Fn(&CelRule) -> TokenStream,
) -> Option<TokenStream> {
    if !ENABLED.get() {
        return None;
    }
    // Rules that do not translate go to the interpreter whether they compile or not.
    let translated: Vec<Option<Transpiled>> =
        rules.iter().map(|rule| transpile(api, rule, self_ty, module).filter(|_| compiles(rule))).collect();
    if translated.iter().all(Option::is_none) {
        return None;
    }
    let json = quote!(json.get_or_insert_with(|| support::cel::to_json(value)));
    let mut needs_json = false;
    let mut items = Vec::new();
    let mut index = 0;
    while index < rules.len() {
        let Some(transpiled) = &translated[index] else {
            // A run of rules the interpreter checks, with one conversion of the node.
            let start = index;
            while index < rules.len() && translated[index].is_none() {
                index += 1;
            }
            let run = &rules[start..index];
            let name = format_ident!("RULES_{start}");
            let count = Literal::usize_unsuffixed(run.len());
            let specs = run.iter().map(&compiled_rule);
            let old = match old {
                Some(old) if run.iter().any(|rule| rule.rule.contains("oldSelf")) => {
                    quote!(#old.map(support::cel::to_json).as_ref())
                }
                _ => quote!(None),
            };
            needs_json = true;
            items.push(quote! {
                static #name: std::sync::LazyLock<[support::cel::CelRule; #count]> =
                    std::sync::LazyLock::new(|| [#(#specs),*]);
                support::cel::check_rules_typed(&*#name, &path, #schema_type, #json, #old, errors);
            });
            continue;
        };
        let rule = &rules[index];
        let function = format_ident!("rule_{index}");
        let compiled = format_ident!("RULE_{index}");
        let message_from_interpreter = rule.message_expression.as_deref().is_some_and(|m| !m.trim().is_empty())
            && reason(rule) != Reason::Duplicate;
        let fallback = quote! {
            support::cel::check_rules_typed(std::slice::from_ref(&*#compiled), &path, #schema_type, #json, None, errors);
        };
        let failure = if message_from_interpreter { fallback.clone() } else { failure(rule, schema_type) };
        let spec = compiled_rule(rule);
        let needs_static = transpiled.fallible || message_from_interpreter;
        needs_json |= needs_static;
        let compiled_static = needs_static.then(|| {
            quote!(static #compiled: std::sync::LazyLock<support::cel::CelRule> = std::sync::LazyLock::new(|| #spec);)
        });
        let function_item = transpiled.function(&function);
        let check = if transpiled.fallible {
            quote! {
                match #function(value) {
                    Some(true) => {}
                    Some(false) => { #failure }
                    None => { #fallback }
                }
            }
        } else {
            quote! {
                if !#function(value) {
                    #failure
                }
            }
        };
        items.push(quote! { #function_item #compiled_static #check });
        index += 1;
    }
    let json_cell = needs_json.then(|| quote!(let mut json = None;));
    Some(quote! { #json_cell #(#items)* })
}

/// Whether the interpreter compiles the rule; one it does not is reported by it at every
/// check (the generator rejects such rules before emitting anything).
fn compiles(rule: &CelRule) -> bool {
    support::cel::CelRuleSpec {
        rule: &rule.rule,
        message: rule.message.as_deref(),
        message_expression: rule.message_expression.as_deref(),
        field_path: rule.field_path.as_deref(),
        reason: rule.reason.as_deref(),
    }
    .compile()
    .is_ok()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Invalid,
    Forbidden,
    Required,
    Duplicate,
}

/// The `reason` of a rule that compiles.
fn reason(rule: &CelRule) -> Reason {
    match rule.reason.as_deref() {
        Some("FieldValueForbidden") => Reason::Forbidden,
        Some("FieldValueRequired") => Reason::Required,
        Some("FieldValueDuplicate") => Reason::Duplicate,
        _ => Reason::Invalid,
    }
}

/// The statements pushing the error of a false rule, as `support::cel` builds it: the
/// type from `reason`, the schema type as the bad value (for `Invalid` and `Duplicate`),
/// the message (else `failed rule: <rule>`) as the detail, at `path` plus `fieldPath`.
fn failure(rule: &CelRule, schema_type: &str) -> TokenStream {
    let detail = match &rule.message {
        Some(message) if !message.is_empty() => message.trim().to_owned(),
        _ => format!("failed rule: {}", rule.rule.trim()),
    };
    let error = match reason(rule) {
        Reason::Invalid => quote!(support::validation::FieldError::invalid(&path, #schema_type, #detail)),
        Reason::Forbidden => quote! {
            support::validation::FieldError::new(&path, support::validation::ErrorType::Forbidden, None, #detail)
        },
        Reason::Required => quote!(support::validation::FieldError::required(&path, #detail)),
        Reason::Duplicate => quote!(support::validation::FieldError::duplicate(&path, #schema_type)),
    };
    match rule.field_path.as_deref().filter(|p| !p.is_empty()).map(render_field_path) {
        Some(field_path) => quote!(errors.push(#error.at_child(#field_path));),
        None => quote!(errors.push(#error);),
    }
}

/// A rule's `fieldPath` as Kubernetes renders it below the node: `spec.replicas`,
/// `labels[app]`. Rules that compile have a valid one.
fn render_field_path(path: &str) -> String {
    let mut out = String::new();
    for segment in support::cel::parse_field_path(path).unwrap_or_default() {
        match segment {
            support::cel::FieldPathSegment::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&name);
            }
            support::cel::FieldPathSegment::Key(key) => {
                out.push('[');
                out.push_str(&key);
                out.push(']');
            }
        }
    }
    out
}

// ---- Translation ----

/// How tightly an expression binds, to parenthesize it only where Rust needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// `if` expressions and blocks: parenthesized as any operand.
    Block,
    Or,
    And,
    Compare,
    Unary,
    Atom,
}

/// A Rust expression. Constants are never fallible.
#[derive(Clone, Debug)]
struct Code {
    tokens: TokenStream,
    prec: Prec,
    /// Whether evaluating it may stop with `?`.
    fallible: bool,
    /// Its value, for bool constants (`has` on a required field).
    constant: Option<bool>,
    /// A simpler expression for its negation (`is_none()` for `is_some()`, `!=` for `==`),
    /// with its precedence.
    negation: Option<(TokenStream, Prec)>,
    /// An `if` expression, which can follow an `else` directly.
    is_if: bool,
}

impl Code {
    fn new(tokens: TokenStream, prec: Prec, fallible: bool) -> Code {
        Code { tokens, prec, fallible, constant: None, negation: None, is_if: false }
    }

    fn constant(value: bool) -> Code {
        Code { constant: Some(value), ..Code::new(quote!(#value), Prec::Atom, false) }
    }

    /// The tokens, parenthesized unless they bind at least as tightly as `min`.
    fn operand(&self, min: Prec) -> TokenStream {
        let tokens = &self.tokens;
        if self.prec >= min { tokens.clone() } else { quote!((#tokens)) }
    }
}

/// What a translated expression is, in CEL and in Rust.
#[derive(Clone, Debug)]
enum Kind {
    /// `bool`.
    Bool,
    /// `i64`.
    Int,
    /// `&str`.
    Str,
    /// A value or reference of `support::Bytes` (read through `.0`).
    Bytes,
    /// A value or reference of a struct (read through `.field`).
    Struct(TypeId),
    /// A list of items of that type: a reference to it (`&Vec<T>` or `&[T]`), or a place
    /// (`value.items`) when `place`.
    List { item: Box<FieldType>, place: bool },
    /// The number of items a `filter` kept (`i64`); only `size()` reads it.
    Filtered,
    /// A list literal of string literals; only `in` reads it.
    Strings(Vec<String>),
    /// A list literal of bools, each element's code; comprehensions read it.
    Bools(Vec<Code>),
}

#[derive(Clone, Debug)]
struct Value {
    kind: Kind,
    code: Code,
}

impl Value {
    fn new(kind: Kind, code: Code) -> Value {
        Value { kind, code }
    }
}

/// A CEL variable in scope: `self` or a comprehension's.
struct Binding {
    name: String,
    value: Value,
}

struct Translator<'a> {
    api: &'a Api,
    /// Loop labels used so far, to name nested ones apart.
    labels: usize,
    scopes: Vec<Binding>,
}

/// How a typed position is reached in Rust.
enum Access {
    /// A place or value of the type: `value.replicas`, `value.min_replicas?`.
    Place(TokenStream, bool),
    /// A reference to it: `value`, `item`, `value.target.as_ref()?`.
    Ref(TokenStream, bool),
}

/// The type behind aliases and support re-exports.
fn resolve<'t>(api: &'t Api, ty: &'t Ty) -> &'t Ty {
    match ty {
        Ty::Named(id) => match &api.types[*id].kind {
            TypeKind::Alias(target) => resolve(api, &target.ty),
            _ => ty,
        },
        _ => ty,
    }
}

fn support_type(api: &Api, ty: &Ty) -> Option<SupportType> {
    match resolve(api, ty) {
        Ty::Support(support) => Some(*support),
        Ty::Named(id) => match api.types[*id].kind {
            TypeKind::Support(support) => Some(support),
            _ => None,
        },
        _ => None,
    }
}

impl Translator<'_> {
    /// `self` at a node of type `ty`, passed as `value: &param_type(ty)`.
    fn self_value(&self, ty: &FieldType) -> Option<Value> {
        match resolve(self.api, &ty.ty) {
            Ty::String => Some(Value::new(Kind::Str, Code::new(quote!(value), Prec::Atom, false))),
            Ty::Vec(item) => Some(Value::new(
                Kind::List { item: item.clone(), place: false },
                Code::new(quote!(value), Prec::Atom, false),
            )),
            _ => self.typed(ty, Access::Ref(quote!(value), false)),
        }
    }

    /// The value of a position of type `ty`, reached by `access`.
    fn typed(&self, ty: &FieldType, access: Access) -> Option<Value> {
        let (tokens, by_ref, fallible) = match access {
            Access::Place(tokens, fallible) => (tokens, false, fallible),
            Access::Ref(tokens, fallible) => (tokens, true, fallible),
        };
        // Scalars are copied out of a reference; everything else is read by method or
        // field, which dereferences by itself.
        let scalar =
            |tokens: &TokenStream| if by_ref { (quote!(*#tokens), Prec::Unary) } else { (tokens.clone(), Prec::Atom) };
        if let Some(support) = support_type(self.api, &ty.ty) {
            return match support {
                SupportType::Quantity => {
                    Some(Value::new(Kind::Str, Code::new(quote!(#tokens.0.as_str()), Prec::Atom, fallible)))
                }
                SupportType::Bytes => Some(Value::new(Kind::Bytes, Code::new(tokens, Prec::Atom, fallible))),
                _ => None,
            };
        }
        Some(match resolve(self.api, &ty.ty) {
            Ty::Bool => {
                let (tokens, prec) = scalar(&tokens);
                Value::new(Kind::Bool, Code::new(tokens, prec, fallible))
            }
            Ty::I32 => {
                let (tokens, _) = scalar(&tokens);
                Value::new(Kind::Int, Code::new(quote!(i64::from(#tokens)), Prec::Atom, fallible))
            }
            Ty::I64 => {
                let (tokens, prec) = scalar(&tokens);
                Value::new(Kind::Int, Code::new(tokens, prec, fallible))
            }
            Ty::String => Value::new(Kind::Str, Code::new(quote!(#tokens.as_str()), Prec::Atom, fallible)),
            Ty::Vec(item) => {
                Value::new(Kind::List { item: item.clone(), place: !by_ref }, Code::new(tokens, Prec::Atom, fallible))
            }
            Ty::Named(id) => match &self.api.types[*id].kind {
                TypeKind::Enum(_) => Value::new(Kind::Str, Code::new(quote!(#tokens.as_str()), Prec::Atom, fallible)),
                TypeKind::Struct(_) => Value::new(Kind::Struct(*id), Code::new(tokens, Prec::Atom, fallible)),
                _ => return None,
            },
            _ => return None,
        })
    }

    fn expr(&mut self, expr: &IdedExpr) -> Option<Value> {
        match &expr.expr {
            Expr::Literal(literal) => literal_value(literal),
            Expr::Ident(name) => {
                let binding = self.scopes.iter().rev().find(|b| &b.name == name)?;
                Some(binding.value.clone())
            }
            Expr::Select(select) => {
                let operand = self.expr(&select.operand)?;
                let Kind::Struct(id) = operand.kind else { return None };
                let TypeKind::Struct(s) = &self.api.types[id].kind else { return None };
                let field = s.fields.iter().find(|f| f.wire_name == select.field)?;
                let rust = format_ident!("{}", field.rust_name);
                let base = operand.code.tokens;
                let fallible = operand.code.fallible;
                if select.test {
                    // A required field is always in the JSON the interpreter sees; an optional
                    // one when it is `Some`.
                    return Some(Value::new(
                        Kind::Bool,
                        match (field.required, fallible) {
                            (true, false) => Code::constant(true),
                            // The operand must still be read: it fails when absent.
                            (true, true) => Code::new(quote!({ let _ = &#base.#rust; true }), Prec::Block, true),
                            (false, _) => Code {
                                negation: Some((quote!(#base.#rust.is_none()), Prec::Atom)),
                                ..Code::new(quote!(#base.#rust.is_some()), Prec::Atom, fallible)
                            },
                        },
                    ));
                }
                let scalar = matches!(resolve(self.api, &field.ty.ty), Ty::Bool | Ty::I32 | Ty::I64);
                let access = match (field.required, field.boxed) {
                    // Only structs are boxed (to break cycles); fields and methods see through.
                    (true, _) => Access::Place(quote!(#base.#rust), fallible),
                    (false, false) if scalar => Access::Place(quote!(#base.#rust?), true),
                    (false, false) => Access::Ref(quote!(#base.#rust.as_ref()?), true),
                    (false, true) => Access::Ref(quote!(#base.#rust.as_deref()?), true),
                };
                if field.boxed && !matches!(resolve(self.api, &field.ty.ty), Ty::Named(_)) {
                    return None;
                }
                self.typed(&field.ty, access)
            }
            Expr::List(list) => {
                if !list.optional_indices.is_empty() || list.elements.is_empty() {
                    return None;
                }
                let elements = list.elements.iter().map(|e| self.expr(e)).collect::<Option<Vec<_>>>()?;
                if elements.iter().all(|e| matches!(e.kind, Kind::Bool)) {
                    let fallible = elements.iter().any(|e| e.code.fallible);
                    let codes = elements.into_iter().map(|e| e.code).collect();
                    return Some(Value::new(Kind::Bools(codes), Code::new(TokenStream::new(), Prec::Atom, fallible)));
                }
                let strings = list
                    .elements
                    .iter()
                    .map(|e| match &e.expr {
                        Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_owned()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(Value::new(Kind::Strings(strings), Code::new(TokenStream::new(), Prec::Atom, false)))
            }
            Expr::Call(call) => self.call(call),
            Expr::Comprehension(comprehension) => self.comprehension(comprehension),
            _ => None,
        }
    }

    fn call(&mut self, call: &CallExpr) -> Option<Value> {
        let name = call.func_name.as_str();
        match (call.target.as_deref(), call.args.as_slice()) {
            (None, [operand]) if name == operators::LOGICAL_NOT => {
                let operand = self.expr(operand)?;
                let Kind::Bool = operand.kind else { return None };
                Some(Value::new(Kind::Bool, not(operand.code)))
            }
            (None, [operand]) if name == operators::NEGATE => match &operand.expr {
                Expr::Literal(LiteralValue::Int(i)) => {
                    let negated = i.inner().checked_neg()?;
                    Some(Value::new(Kind::Int, int_literal(negated)))
                }
                _ => None,
            },
            (None, [left, right]) if name == operators::LOGICAL_OR || name == operators::LOGICAL_AND => {
                let (left, right) = (self.expr(left)?, self.expr(right)?);
                let (Kind::Bool, Kind::Bool) = (&left.kind, &right.kind) else { return None };
                let or = name == operators::LOGICAL_OR;
                Some(Value::new(Kind::Bool, logical(or, left.code, right.code)))
            }
            (None, [condition, then, otherwise]) if name == operators::CONDITIONAL => {
                let condition = self.expr(condition)?;
                let (then, otherwise) = (self.expr(then)?, self.expr(otherwise)?);
                let Kind::Bool = condition.kind else { return None };
                let kind = match (&then.kind, &otherwise.kind) {
                    (Kind::Bool, Kind::Bool) => Kind::Bool,
                    (Kind::Int, Kind::Int) => Kind::Int,
                    (Kind::Str, Kind::Str) => Kind::Str,
                    _ => return None,
                };
                Some(Value::new(kind, conditional(condition.code, then.code, otherwise.code)))
            }
            (None, [left, right]) if comparison(name).is_some() => {
                let (left, right) = (self.expr(left)?, self.expr(right)?);
                match (&left.kind, &right.kind) {
                    (Kind::Int, Kind::Int) | (Kind::Str, Kind::Str) => {}
                    _ => return None,
                }
                let (operator, negated) = comparison(name)?;
                let fallible = left.code.fallible || right.code.fallible;
                let (l, r) = (left.code.operand(Prec::Unary), right.code.operand(Prec::Unary));
                Some(Value::new(
                    Kind::Bool,
                    Code {
                        negation: Some((quote!(#l #negated #r), Prec::Compare)),
                        ..Code::new(quote!(#l #operator #r), Prec::Compare, fallible)
                    },
                ))
            }
            (None, [needle, list]) if name == operators::IN => {
                let (needle, list) = (self.expr(needle)?, self.expr(list)?);
                let (Kind::Str, Kind::Strings(strings)) = (&needle.kind, &list.kind) else { return None };
                let tokens = needle.code.tokens;
                let test = quote!(matches!(#tokens, #(#strings)|*));
                Some(Value::new(
                    Kind::Bool,
                    Code {
                        negation: Some((quote!(!#test), Prec::Unary)),
                        ..Code::new(test, Prec::Atom, needle.code.fallible)
                    },
                ))
            }
            (None, [operand]) | (Some(operand), []) if name == "size" => {
                let operand = self.expr(operand)?;
                size(operand)
            }
            (None, [operand]) if name == "string" => {
                let operand = self.expr(operand)?;
                matches!(operand.kind, Kind::Str).then_some(operand)
            }
            (Some(target), [argument]) if name == "startsWith" || name == "endsWith" => {
                let (target, argument) = (self.expr(target)?, self.expr(argument)?);
                let (Kind::Str, Kind::Str) = (&target.kind, &argument.kind) else { return None };
                let method = if name == "startsWith" { quote!(starts_with) } else { quote!(ends_with) };
                let fallible = target.code.fallible || argument.code.fallible;
                let (target, argument) = (target.code.operand(Prec::Atom), argument.code.tokens);
                Some(Value::new(Kind::Bool, Code::new(quote!(#target.#method(#argument)), Prec::Atom, fallible)))
            }
            _ => None,
        }
    }

    /// `exists`, `all` and `filter`, recognized by the shapes their macros expand to.
    fn comprehension(&mut self, comprehension: &ComprehensionExpr) -> Option<Value> {
        let ComprehensionExpr { iter_range, iter_var, iter_var2, accu_var, accu_init, loop_cond, loop_step, result } =
            comprehension;
        if iter_var2.is_some() || !is_ident(result, accu_var) || iter_var == accu_var {
            return None;
        }
        let shape = match (&accu_init.expr, &loop_step.expr) {
            (Expr::Literal(LiteralValue::Boolean(init)), Expr::Call(step)) => {
                let (fold, fold_cond) = match *init.inner() {
                    // exists: `@not_strictly_false(!@result)`, `@result || p`
                    false => (
                        operators::LOGICAL_OR,
                        call_of(loop_cond, operators::NOT_STRICTLY_FALSE)
                            .and_then(|arg| call_of(arg, operators::LOGICAL_NOT)),
                    ),
                    // all: `@not_strictly_false(@result)`, `@result && p`
                    true => (operators::LOGICAL_AND, call_of(loop_cond, operators::NOT_STRICTLY_FALSE)),
                };
                match (fold_cond, step.target.as_deref(), step.args.as_slice()) {
                    (Some(cond), None, [accu, predicate])
                        if step.func_name == fold && is_ident(cond, accu_var) && is_ident(accu, accu_var) =>
                    {
                        (if *init.inner() { Shape::All } else { Shape::Exists }, predicate)
                    }
                    _ => return None,
                }
            }
            // filter: `true`, `p ? @result + [x] : @result`
            (Expr::List(init), Expr::Call(step))
                if init.elements.is_empty()
                    && matches!(loop_cond.expr, Expr::Literal(LiteralValue::Boolean(ref b)) if *b.inner()) =>
            {
                match (step.func_name.as_str(), step.target.as_deref(), step.args.as_slice()) {
                    (operators::CONDITIONAL, None, [predicate, append, otherwise])
                        if is_ident(otherwise, accu_var) && is_append_of(append, accu_var, iter_var) =>
                    {
                        (Shape::Filter, predicate)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let (shape, predicate) = shape;
        let range = self.expr(iter_range)?;
        let item = format_ident!("item{}", self.scopes.len());
        let (iterated, element) = match range.kind {
            Kind::List { item: item_ty, place } => {
                let tokens = &range.code.tokens;
                let iterated = if place { quote!(&#tokens) } else { tokens.clone() };
                (iterated, self.typed(&item_ty, Access::Ref(quote!(#item), false))?)
            }
            Kind::Bools(codes) => {
                let codes = codes.iter().map(|c| &c.tokens);
                (quote!([#(#codes),*]), Value::new(Kind::Bool, Code::new(quote!(#item), Prec::Atom, false)))
            }
            _ => return None,
        };
        self.scopes.push(Binding { name: iter_var.clone(), value: element });
        let predicate = self.expr(predicate);
        self.scopes.pop();
        let predicate = predicate?;
        let Kind::Bool = predicate.kind else { return None };
        let pattern = if mentions(&predicate.code.tokens, &item.to_string()) { quote!(#item) } else { quote!(_) };
        let fallible = range.code.fallible || predicate.code.fallible;
        let n = self.labels;
        self.labels += 1;
        let label = syn::Lifetime::new(&format!("'l{n}"), proc_macro2::Span::call_site());
        let (bind, found) = condition_of(&predicate.code, &format_ident!("found{n}"));
        Some(match shape {
            Shape::Exists => Value::new(
                Kind::Bool,
                Code::new(
                    quote!(#label: { for #pattern in #iterated { #bind if #found { break #label true; } } false }),
                    Prec::Block,
                    fallible,
                ),
            ),
            Shape::All => {
                let (bind, failed) = condition_of(&not(predicate.code.clone()), &format_ident!("failed{n}"));
                Value::new(
                    Kind::Bool,
                    Code::new(
                        quote!(#label: { for #pattern in #iterated { #bind if #failed { break #label false; } } true }),
                        Prec::Block,
                        fallible,
                    ),
                )
            }
            Shape::Filter => {
                let count = format_ident!("count{n}");
                Value::new(
                    Kind::Filtered,
                    Code::new(
                        quote!({ let mut #count = 0i64; for #pattern in #iterated { #bind if #found { #count += 1; } } #count }),
                        Prec::Block,
                        fallible,
                    ),
                )
            }
        })
    }
}

enum Shape {
    Exists,
    All,
    Filter,
}

fn is_ident(expr: &IdedExpr, name: &str) -> bool {
    matches!(&expr.expr, Expr::Ident(n) if n == name)
}

/// The argument of a one-argument global call of `function`.
fn call_of<'e>(expr: &'e IdedExpr, function: &str) -> Option<&'e IdedExpr> {
    match &expr.expr {
        Expr::Call(call) if call.func_name == function && call.target.is_none() => match call.args.as_slice() {
            [arg] => Some(arg),
            _ => None,
        },
        _ => None,
    }
}

/// `@result + [x]`.
fn is_append_of(expr: &IdedExpr, accu: &str, var: &str) -> bool {
    match &expr.expr {
        Expr::Call(call) if call.func_name == operators::ADD && call.target.is_none() => match call.args.as_slice() {
            [left, IdedExpr { expr: Expr::List(list), .. }] => {
                is_ident(left, accu)
                    && list.optional_indices.is_empty()
                    && matches!(list.elements.as_slice(), [element] if is_ident(element, var))
            }
            _ => false,
        },
        _ => false,
    }
}

fn literal_value(literal: &LiteralValue) -> Option<Value> {
    match literal {
        LiteralValue::Boolean(b) => Some(Value::new(Kind::Bool, Code::constant(*b.inner()))),
        LiteralValue::Int(i) => Some(Value::new(Kind::Int, int_literal(*i.inner()))),
        LiteralValue::String(s) => {
            let s = s.inner();
            Some(Value::new(Kind::Str, Code::new(quote!(#s), Prec::Atom, false)))
        }
        _ => None,
    }
}

fn int_literal(i: i64) -> Code {
    // Unsuffixed literals take the other operand's type, `i64`, except beside another
    // literal, where they would default to `i32`: only those that fit it stay unsuffixed.
    let literal = if i32::try_from(i).is_ok() { Literal::i64_unsuffixed(i) } else { Literal::i64_suffixed(i) };
    Code::new(quote!(#literal), if i < 0 { Prec::Unary } else { Prec::Atom }, false)
}

/// The Rust operator of a CEL comparison, and that of its negation.
fn comparison(function: &str) -> Option<(TokenStream, TokenStream)> {
    Some(match function {
        operators::EQUALS => (quote!(==), quote!(!=)),
        operators::NOT_EQUALS => (quote!(!=), quote!(==)),
        operators::LESS => (quote!(<), quote!(>=)),
        operators::LESS_EQUALS => (quote!(<=), quote!(>)),
        operators::GREATER => (quote!(>), quote!(<=)),
        operators::GREATER_EQUALS => (quote!(>=), quote!(<)),
        _ => return None,
    })
}

/// `!operand`.
fn not(operand: Code) -> Code {
    if let Some(value) = operand.constant {
        return Code::constant(!value);
    }
    let original = Some((operand.tokens.clone(), operand.prec));
    match operand.negation {
        Some((tokens, prec)) => Code { negation: original, ..Code::new(tokens, prec, operand.fallible) },
        None => {
            let tokens = operand.operand(Prec::Unary);
            Code { negation: original, ..Code::new(quote!(!#tokens), Prec::Unary, operand.fallible) }
        }
    }
}

/// `left || right` (`or`) or `left && right`, folding constants where CEL's result does
/// not depend on the other side: `true || x` and `x || true` are `true` (the interpreter
/// absorbs an error of `x` in both), `false || x` is `x`, and likewise for `&&`.
fn logical(or: bool, left: Code, right: Code) -> Code {
    let absorbing = or;
    match (left.constant, right.constant) {
        (Some(l), _) if l == absorbing => Code::constant(absorbing),
        (Some(_), _) => right,
        (_, Some(r)) if r == absorbing => Code::constant(absorbing),
        (_, Some(_)) => left,
        _ => {
            let prec = if or { Prec::Or } else { Prec::And };
            let (l, r) = (left.operand(prec), right.operand(prec));
            let operator = if or { quote!(||) } else { quote!(&&) };
            Code::new(quote!(#l #operator #r), prec, left.fallible || right.fallible)
        }
    }
}

/// `condition ? then : otherwise`, as an `if`.
fn conditional(condition: Code, then: Code, otherwise: Code) -> Code {
    // Constants never fail.
    match (condition.constant, then.constant, otherwise.constant) {
        (Some(true), ..) => return then,
        (Some(false), ..) => return otherwise,
        // `c ? true : false` is `c`, as Rust style wants it.
        (None, Some(true), Some(false)) => return condition,
        (None, Some(false), Some(true)) => return not(condition),
        (None, Some(value), Some(_)) if !condition.fallible => return Code::constant(value),
        (None, Some(value), Some(_)) => {
            let tokens = &condition.tokens;
            return Code::new(quote!({ let _ = #tokens; #value }), Prec::Block, true);
        }
        _ => {}
    }
    let fallible = condition.fallible || then.fallible || otherwise.fallible;
    let (bind, c) = condition_of(&condition, &format_ident!("condition"));
    let t = &then.tokens;
    let o = &otherwise.tokens;
    let tokens = if otherwise.is_if { quote!(if #c { #t } else #o) } else { quote!(if #c { #t } else { #o }) };
    if bind.is_empty() {
        Code { is_if: true, ..Code::new(tokens, Prec::Block, fallible) }
    } else {
        Code::new(quote!({ #bind #tokens }), Prec::Block, fallible)
    }
}

/// An `if` condition: `code`, or `name` bound to it first when it is a block (a loop),
/// which Rust style keeps out of conditions.
fn condition_of(code: &Code, name: &Ident) -> (TokenStream, TokenStream) {
    if code.prec == Prec::Block {
        let tokens = &code.tokens;
        (quote!(let #name = #tokens;), quote!(#name))
    } else {
        (TokenStream::new(), code.tokens.clone())
    }
}

/// Whether `tokens` use the identifier `name`.
fn mentions(tokens: &TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => mentions(&group.stream(), name),
        _ => false,
    })
}

/// `size(x)`: code points of a string, items of a list or of a filter's result, and for a
/// byte string the length of its base64 text, which is what the interpreter sees.
fn size(operand: Value) -> Option<Value> {
    let Code { tokens, fallible, .. } = &operand.code;
    let code = match &operand.kind {
        Kind::Str => Code::new(quote!((#tokens.chars().count() as i64)), Prec::Atom, *fallible),
        Kind::List { .. } => Code::new(quote!((#tokens.len() as i64)), Prec::Atom, *fallible),
        Kind::Bytes => Code::new(quote!(((#tokens.0.len().div_ceil(3) * 4) as i64)), Prec::Atom, *fallible),
        Kind::Filtered => operand.code.clone(),
        _ => return None,
    };
    Some(Value::new(Kind::Int, code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{EnumVariant, Field, StringEnum, Struct, TypeDef};

    const THING: TypeId = 0;
    const KIND: TypeId = 1;
    const PART: TypeId = 2;

    fn field(wire: &str, rust: &str, ty: Ty, required: bool) -> Field {
        Field {
            wire_name: wire.to_owned(),
            rust_name: rust.to_owned(),
            ty: FieldType::plain(ty),
            required,
            must_be_present: false,
            boxed: false,
            doc: None,
        }
    }

    fn type_def(name: &str, kind: TypeKind) -> TypeDef {
        TypeDef {
            schema_name: format!("io.k8s.api.demo.v1.{name}"),
            module: vec!["api".to_owned(), "demo".to_owned(), "v1".to_owned()],
            file: name.to_lowercase(),
            name: name.to_owned(),
            doc: None,
            source: 0,
            kind,
        }
    }

    /// `Thing` with a field of every kind the translation reads (and some it does not),
    /// a string enum `Kind`, and `Part`, a small struct in lists.
    fn api() -> Api {
        let thing = Struct {
            fields: vec![
                field("name", "name", Ty::String, true),
                field("nick", "nick", Ty::String, false),
                field("count", "count", Ty::I32, true),
                field("big", "big", Ty::I64, false),
                field("flag", "flag", Ty::Bool, false),
                field("type", "type_", Ty::Named(KIND), true),
                field("mode", "mode", Ty::Named(KIND), false),
                field("qty", "qty", Ty::Support(SupportType::Quantity), false),
                field("data", "data", Ty::Support(SupportType::Bytes), false),
                field("when", "when", Ty::Support(SupportType::Time), false),
                field("tags", "tags", Ty::Vec(Box::new(FieldType::plain(Ty::String))), false),
                field("names", "names", Ty::Vec(Box::new(FieldType::plain(Ty::String))), true),
                field("parts", "parts", Ty::Vec(Box::new(FieldType::plain(Ty::Named(PART)))), false),
                field("part", "part", Ty::Named(PART), false),
                Field { boxed: true, ..field("next", "next", Ty::Named(THING), false) },
                field("ratio", "ratio", Ty::F64, false),
                field("labels", "labels", Ty::Map(Box::new(FieldType::plain(Ty::String))), false),
                field("any", "any", Ty::Value, false),
            ],
            ..Struct::default()
        };
        let kind = StringEnum {
            variants: ["A", "B"]
                .iter()
                .map(|v| EnumVariant { value: (*v).to_owned(), rust_name: (*v).to_owned() })
                .collect(),
            other_variant: "Other".to_owned(),
        };
        let part = Struct {
            fields: vec![field("weight", "weight", Ty::I32, true), field("label", "label", Ty::String, false)],
            ..Struct::default()
        };
        Api {
            types: vec![
                type_def("Thing", TypeKind::Struct(thing)),
                type_def("Kind", TypeKind::Enum(kind)),
                type_def("Part", TypeKind::Struct(part)),
            ],
            ..Api::default()
        }
    }

    fn rule(text: &str) -> CelRule {
        CelRule { rule: text.to_owned(), message: None, message_expression: None, field_path: None, reason: None }
    }

    fn compact(tokens: &TokenStream) -> String {
        tokens.to_string().chars().filter(|c| !c.is_whitespace()).collect()
    }

    /// The translation of `text` on a `Thing` (or on `self_ty`), whitespace removed, and
    /// whether it is fallible.
    fn on(self_ty: Ty, text: &str) -> Option<(String, bool)> {
        let api = api();
        let module = api.types[THING].module.clone();
        transpile(&api, &rule(text), &FieldType::plain(self_ty), &module).map(|t| (compact(&t.body), t.fallible))
    }

    #[track_caller]
    fn translates(text: &str, expected: &str, fallible: bool) {
        translates_on(Ty::Named(THING), text, expected, fallible);
    }

    #[track_caller]
    fn translates_on(self_ty: Ty, text: &str, expected: &str, fallible: bool) {
        let expected: String = expected.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(on(self_ty, text), Some((expected, fallible)), "{text}");
    }

    #[track_caller]
    fn interpreted(text: &str) {
        assert_eq!(on(Ty::Named(THING), text), None, "{text} should be left to the interpreter");
    }

    #[test]
    fn has_tests_presence_of_optional_fields() {
        translates("has(self.nick)", "value.nick.is_some()", false);
        translates("!has(self.nick)", "value.nick.is_none()", false);
        // Required fields are always in the JSON the interpreter sees.
        translates("has(self.name)", "true", false);
        translates("!has(self.name) || self.count > 0", "i64::from(value.count) > 0", false);
        // The operand is read first: `self.part` fails when absent.
        translates("has(self.part.weight)", "{ let _ = &value.part.as_ref()?.weight; true }", true);
        translates("has(self.part.label)", "value.part.as_ref()?.label.is_some()", true);
    }

    #[test]
    fn fields_are_read_by_type() {
        translates("self.count >= 0", "i64::from(value.count) >= 0", false);
        translates("self.big < 10", "value.big? < 10", true);
        translates("self.flag", "value.flag?", true);
        translates("self.name == 'x'", r#"value.name.as_str() == "x""#, false);
        translates("self.name < self.nick", "value.name.as_str() < value.nick.as_ref()?.as_str()", true);
        translates("self.type != 'A'", r#"value.type_.as_str() != "A""#, false);
        translates("self.mode == 'B'", r#"value.mode.as_ref()?.as_str() == "B""#, true);
        translates("self.part.weight > 1", "i64::from(value.part.as_ref()?.weight) > 1", true);
        translates("self.next.count > 1", "i64::from(value.next.as_deref()?.count) > 1", true);
        translates("self.count > -1", "i64::from(value.count) > -1", false);
        translates("self.big < 10000000000", "value.big? < 10000000000i64", true);
    }

    #[test]
    fn logic_keeps_cel_grouping_and_short_circuits() {
        translates(
            "(has(self.nick) || has(self.big)) && self.count > 1",
            "(value.nick.is_some() || value.big.is_some()) && i64::from(value.count) > 1",
            false,
        );
        translates(
            "has(self.nick) || has(self.big) && has(self.flag)",
            "value.nick.is_some() || value.big.is_some() && value.flag.is_some()",
            false,
        );
        translates("!(self.count > 1)", "i64::from(value.count) <= 1", false);
        translates("!(has(self.nick) && has(self.big))", "!(value.nick.is_some() && value.big.is_some())", false);
        translates("!!has(self.nick)", "value.nick.is_some()", false);
        // Constants decide where CEL's result does not depend on the other side, errors
        // of that side included.
        translates("self.big > 1 || true", "true", false);
        translates("self.big > 1 && true", "value.big? > 1", true);
        translates("false || self.big > 1", "value.big? > 1", true);
    }

    #[test]
    fn conditionals_chain_as_else_if() {
        translates(
            "self.type == 'A' ? has(self.nick) : self.type == 'B' ? has(self.big) : has(self.flag)",
            r#"if value.type_.as_str() == "A" { value.nick.is_some() }
               else if value.type_.as_str() == "B" { value.big.is_some() }
               else { value.flag.is_some() }"#,
            false,
        );
        translates(
            "(self.count > 0 ? self.name : self.nick) == 'a'",
            r#"(if i64::from(value.count) > 0 { value.name.as_str() } else { value.nick.as_ref()?.as_str() }) == "a""#,
            true,
        );
        translates("true ? self.count > 0 : self.big > 0", "i64::from(value.count) > 0", false);
        translates("self.count > 0 ? true : false", "i64::from(value.count) > 0", false);
        translates("self.count > 0 ? false : true", "i64::from(value.count) <= 0", false);
        translates("self.count > 0 ? true : true", "true", false);
        // The condition is still evaluated, for its errors.
        translates("self.big > 0 ? false : false", "{ let _ = value.big? > 0; false }", true);
    }

    #[test]
    fn in_tests_string_list_literals() {
        translates("self.type in ['A', 'B']", r#"matches!(value.type_.as_str(), "A" | "B")"#, false);
        translates("!(self.name in ['a'])", r#"!matches!(value.name.as_str(), "a")"#, false);
        translates("self.nick in ['a']", r#"matches!(value.nick.as_ref()?.as_str(), "a")"#, true);
    }

    #[test]
    fn size_counts_code_points_items_and_base64() {
        translates("size(self.name) > 2", "(value.name.as_str().chars().count() as i64) > 2", false);
        translates("self.name.size() > 2", "(value.name.as_str().chars().count() as i64) > 2", false);
        translates("size(self.names) == 0", "(value.names.len() as i64) == 0", false);
        translates("self.tags.size() == 0", "(value.tags.as_ref()?.len() as i64) == 0", true);
        translates("size(self.data) == 0", "((value.data.as_ref()?.0.len().div_ceil(3) * 4) as i64) == 0", true);
    }

    #[test]
    fn strings_functions() {
        translates(
            "!has(self.qty) || !string(self.qty).startsWith('-')",
            r#"value.qty.is_none() || !value.qty.as_ref()?.0.as_str().starts_with("-")"#,
            true,
        );
        translates("self.name.endsWith(self.type)", "value.name.as_str().ends_with(value.type_.as_str())", false);
    }

    #[test]
    fn comprehensions_loop_with_early_exit() {
        translates(
            "self.parts.exists(p, p.weight > 1)",
            "'l0: { for item1 in value.parts.as_ref()? { if i64::from(item1.weight) > 1 { break 'l0 true; } } false }",
            true,
        );
        translates(
            "self.names.all(n, n != self.name)",
            "'l0: { for item1 in &value.names { if item1.as_str() == value.name.as_str() { break 'l0 false; } } true }",
            false,
        );
        translates(
            "[has(self.nick), has(self.big)].filter(x, x).size() <= 1",
            "({ let mut count0 = 0i64; for item1 in [value.nick.is_some(), value.big.is_some()] { if item1 { count0 += 1; } } count0 }) <= 1",
            false,
        );
        translates(
            "self.names.filter(n, n == 'a').size() == 1",
            r#"({ let mut count0 = 0i64; for item1 in &value.names { if item1.as_str() == "a" { count0 += 1; } } count0 }) == 1"#,
            false,
        );
        // A variable the predicate does not read is not bound; nested loops get their own
        // labels and names.
        translates(
            "self.names.exists(n, has(self.nick))",
            "'l0: { for _ in &value.names { if value.nick.is_some() { break 'l0 true; } } false }",
            false,
        );
        translates(
            "self.names.exists(a, self.names.exists(b, a < b))",
            "'l1: { for item1 in &value.names {
                let found1 = 'l0: { for item2 in &value.names { if item1.as_str() < item2.as_str() { break 'l0 true; } } false };
                if found1 { break 'l1 true; }
            } false }",
            false,
        );
    }

    #[test]
    fn self_of_other_types() {
        translates_on(Ty::String, "self != 'root'", r#"value != "root""#, false);
        translates_on(Ty::String, "size(self) <= 3", "(value.chars().count() as i64) <= 3", false);
        translates_on(Ty::I32, "self >= 0", "i64::from(*value) >= 0", false);
        translates_on(Ty::I64, "self >= 0", "*value >= 0", false);
        translates_on(Ty::Named(KIND), "self == 'A'", r#"value.as_str() == "A""#, false);
        translates_on(
            Ty::Support(SupportType::Quantity),
            "self.startsWith('1')",
            r#"value.0.as_str().starts_with("1")"#,
            false,
        );
        translates_on(
            Ty::Vec(Box::new(FieldType::plain(Ty::String))),
            "self.all(z, z.startsWith('z'))",
            r#"'l0: { for item1 in value { if !item1.as_str().starts_with("z") { break 'l0 false; } } true }"#,
            false,
        );
    }

    #[test]
    fn everything_else_is_left_to_the_interpreter() {
        for text in [
            "self == oldSelf",
            "!has(oldSelf.nick) || has(self.nick)",
            "self.unknown == 1",
            "has(self.unknown)",
            "self.ratio > 0.5",
            "self.count % 2 == 0",
            "self.count + 1 > 2",
            "-self.count < 1",
            "self.count == 'a'",
            "self.name == 1",
            "self.flag == true",
            "self.count > 1u",
            "'a' in self.labels",
            "has(self.labels.x)",
            "self.labels.x == 'a'",
            "self.any.x == 1",
            "self.when < 'x'",
            "self.tags[0] == 'a'",
            "self.tags.map(t, t).size() > 0",
            "self.tags.exists_one(t, t == 'a')",
            "[1, 2].exists(x, x > 1)",
            "self.name in []",
            "self.name in [self.nick]",
            "self.name.matches('^a')",
            "self.name.contains('a')",
            "int(self.name) > 1",
            "size(self.labels) > 0",
            "self.count",
            "self.name",
            "self.tags.exists(t, t)",
            "self.type in ['A', 1]",
            "has(self.count.x)",
        ] {
            interpreted(text);
        }
    }

    /// The field path appended to a failed rule's errors renders as the interpreter's.
    #[test]
    fn field_paths_render_as_the_interpreter_does() {
        use support::validation::{ErrorList, Path};
        let root = Path::ROOT;
        let node = root.field("spec");
        for field_path in [".a", ".a.b", "['x.y']", ".labels['app.kubernetes.io/name']", ".a['b'].c", "['it\\'s']"] {
            let spec = support::cel::CelRuleSpec::new("false").with_field_path(field_path);
            let mut errors = ErrorList::new();
            spec.compile().expect("compiles").check(&node, &serde_json::json!({}), None, &mut errors);
            assert_eq!(errors[0].field, format!("spec.{}", render_field_path(field_path)), "{field_path}");
        }
    }

    /// The failure code builds the interpreter's error: reason, bad value and detail.
    #[test]
    fn failures_are_the_interpreters_errors() {
        let with = |message: Option<&str>, reason: Option<&str>| CelRule {
            message: message.map(str::to_owned),
            reason: reason.map(str::to_owned),
            ..rule(" self.x ")
        };
        for (rule, expected) in [
            (with(None, None), r#"FieldError::invalid(&path, "object", "failed rule: self.x")"#),
            (with(Some(""), None), r#"FieldError::invalid(&path, "object", "failed rule: self.x")"#),
            (with(Some(" m "), Some("FieldValueInvalid")), r#"FieldError::invalid(&path, "object", "m")"#),
            (
                with(Some("m"), Some("FieldValueForbidden")),
                r#"FieldError::new(&path, support::validation::ErrorType::Forbidden, None, "m")"#,
            ),
            (with(Some("m"), Some("FieldValueRequired")), r#"FieldError::required(&path, "m")"#),
            (with(Some("m"), Some("FieldValueDuplicate")), r#"FieldError::duplicate(&path, "object")"#),
        ] {
            let code = compact(&failure(&rule, "object"));
            let expected: String = expected.chars().filter(|c| !c.is_whitespace()).collect();
            assert!(code.contains(&expected), "{rule:?}: {code}");
        }
    }

    #[test]
    fn node_checks_only_what_needs_the_interpreter() {
        let api = api();
        let module = api.types[THING].module.clone();
        let self_ty = FieldType::plain(Ty::Named(THING));
        let emit = |rules: &[CelRule]| {
            node(&api, rules, &self_ty, "object", &module, None, |rule| {
                let text = &rule.rule;
                quote!(compiled(#text))
            })
            .map(|tokens| compact(&tokens))
        };
        // Nothing translates: the caller's code.
        assert_eq!(emit(&[rule("self.count % 2 == 0")]), None);
        // Infallible: no JSON, no compiled rule.
        let code = emit(&[rule("self.count > 0")]).expect("translates");
        assert!(!code.contains("json") && !code.contains("compiled"), "{code}");
        // Fallible: the interpreter on `None`, through one lazily made JSON copy.
        let code = emit(&[rule("self.big > 0")]).expect("translates");
        assert!(code.starts_with("letmutjson=None;"), "{code}");
        assert!(code.contains("None=>{support::cel::check_rules_typed(std::slice::from_ref(&*RULE_0)"), "{code}");
        // Mixed: rules keep their order; untranslated runs are checked together.
        let code = emit(&[
            rule("self.count > 0"),
            rule("self.count % 2 == 0"),
            rule("self.count % 3 == 0"),
            rule("self.count < 9"),
        ])
        .expect("translates");
        let (first, run, last) =
            (code.find("fnrule_0").unwrap(), code.find("staticRULES_1").unwrap(), code.find("fnrule_3").unwrap());
        assert!(first < run && run < last, "{code}");
        assert!(code.contains("[support::cel::CelRule;2]"), "{code}");
        // A message expression is evaluated by the interpreter, on failure only.
        let code = emit(&[CelRule {
            message_expression: Some("'n: ' + string(self.count)".to_owned()),
            ..rule("self.count > 0")
        }])
        .expect("translates");
        assert!(code.contains("if!rule_0(value){support::cel::check_rules_typed"), "{code}");
        // Switched off, nothing translates.
        assert_eq!(interpreter_only(|| emit(&[rule("self.count > 0")])), None);
    }
}
