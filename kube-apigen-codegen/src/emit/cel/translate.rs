//! Translating a CEL rule to a Rust function over the typed node.
//!
//! # Exactness
//! The translation returns `Option<bool>` (or `bool` when nothing in it can fail): `Some(b)`
//! only when the interpreter gives `b` on the node's JSON, and `None` whenever the
//! interpreter would give an evaluation error (reading an absent optional field is
//! `no such key`), or might. Every fallible step is a `?`; since Rust's `||`, `&&` and `if`
//! short-circuit left to right as CEL's do, `true || <error>` is `true` in both, while
//! `false || <error>` is `None`. CEL also absorbs errors on the left (`<error> || true` is
//! `true`) and inside `exists`/`all`; the translation gives `None` there, which the
//! interpreter then decides: less often fast, never different.
//!
//! Types are known statically, so no CEL type error can occur in translated code: any
//! construct whose operand types are not the ones below is left to the interpreter, as
//! are transition rules (`oldSelf`).
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

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Api, CelRule, FieldType, Presence, RuntimeType, Ty, TypeId, TypeKind};

/// A rule translated to a function `fn(value: &T) -> Option<bool>` (or `-> bool` when not
/// `fallible`) over the typed node.
#[derive(Debug, Clone)]
pub struct Transpiled {
    /// A `bool` expression over `value`; uses `?` when `fallible`.
    pub body: TokenStream,
    /// Whether some step can fail (then the function returns `Option<bool>`).
    pub fallible: bool,
    /// Whether `body` reads `value` at all.
    pub uses_self: bool,
}

impl Transpiled {
    /// The function item `fn name(value: &param) -> ...`.
    pub fn function(&self, name: &Ident, param: &TokenStream) -> TokenStream {
        let binding = if self.uses_self { quote!(value) } else { quote!(_) };
        let body = &self.body;
        if self.fallible {
            quote!(fn #name(#binding: &#param) -> Option<bool> { Some(#body) })
        } else {
            quote!(fn #name(#binding: &#param) -> bool { #body })
        }
    }
}

/// Translates `rule` at a node of type `self_ty`, or `None` when any part of it is outside
/// the subset (then the interpreter checks it).
pub fn transpile(api: &Api, rule: &CelRule, self_ty: &FieldType) -> Option<Transpiled> {
    if rule.transition {
        return None;
    }
    let expression = rule.compiled.expression()?;
    let mut translator = Translator { api, labels: 0, scopes: Vec::new() };
    let self_value = translator.self_value(self_ty)?;
    translator.scopes.push(Binding { name: "self".to_owned(), value: self_value });
    let value = translator.expr(expression)?;
    let Kind::Bool = value.kind else { return None };
    // Folded constants may have dropped every read of `self`.
    let uses_self = mentions(&value.code.tokens, "value");
    Some(Transpiled { body: value.code.tokens, fallible: value.code.fallible, uses_self })
}

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
    /// A value or reference of `kube_apigen::Bytes` (read through `.0`).
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

impl Translator<'_> {
    /// `self` at a node of type `ty`, passed as `value: &param_type(ty)`.
    fn self_value(&self, ty: &FieldType) -> Option<Value> {
        match self.api.resolve(&ty.ty) {
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
        if let Some(runtime) = self.api.runtime_type(&ty.ty) {
            return match runtime {
                RuntimeType::Quantity => {
                    Some(Value::new(Kind::Str, Code::new(quote!(#tokens.0.as_str()), Prec::Atom, fallible)))
                }
                RuntimeType::Bytes => Some(Value::new(Kind::Bytes, Code::new(tokens, Prec::Atom, fallible))),
                _ => None,
            };
        }
        Some(match self.api.resolve(&ty.ty) {
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
            Ty::Named(id) => match &self.api.ty(*id).kind {
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
                let TypeKind::Struct(s) = &self.api.ty(id).kind else { return None };
                let field = s.fields.iter().find(|f| f.wire_name == select.field)?;
                let rust = format_ident!("{}", field.rust_name);
                let base = operand.code.tokens;
                let fallible = operand.code.fallible;
                if select.test {
                    // A required field is always in the JSON the interpreter sees; an optional
                    // one when it is `Some`.
                    return Some(Value::new(
                        Kind::Bool,
                        match (field.presence == Presence::Required, fallible) {
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
                let scalar = matches!(self.api.resolve(&field.ty.ty), Ty::Bool | Ty::I32 | Ty::I64);
                let access = match (field.presence == Presence::Required, field.boxed) {
                    // Only structs are boxed (to break cycles); fields and methods see through.
                    (true, _) => Access::Place(quote!(#base.#rust), fallible),
                    (false, false) if scalar => Access::Place(quote!(#base.#rust?), true),
                    (false, false) => Access::Ref(quote!(#base.#rust.as_ref()?), true),
                    (false, true) => Access::Ref(quote!(#base.#rust.as_deref()?), true),
                };
                if field.boxed && !matches!(self.api.resolve(&field.ty.ty), Ty::Named(_)) {
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
