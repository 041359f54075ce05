//! Label and field selectors, parsed and matched as the API server does.
//!
//! Label selectors follow apimachinery's `labels.Parse` grammar: comma-separated
//! requirements, all of which must hold:
//!
//! ```text
//! <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUE {"," VALUE} ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//! ```
//!
//! `key` alone means the label exists, `!key` that it does not; `notin` and `!=` also hold
//! when the label is absent; `>`/`<` compare integers. Parse errors carry apimachinery's
//! wording (`unable to parse requirement: found '', expected: identifier`).
//!
//! Field selectors (`fields.ParseSelector`) are comma-separated `field=value`,
//! `field==value` and `field!=value` terms (`\,`, `\=` and `\\` escape). Which fields a
//! resource can be selected by is its strategy's [`SelectableFields`]
//! ([`crate::Strategy::selectable_fields`]): `metadata.name` and `metadata.namespace` by
//! default, as the API server's `DefaultMetaV1FieldSelectorConversion`.

use std::collections::BTreeSet;

use kube_apigen::field::{FieldError, Path};
use kube_apigen::meta::{is_qualified_name, is_valid_label_value};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// Label selectors.
// ---------------------------------------------------------------------------------------

/// A parsed label selector; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The label key (`app`, `example.com/tier`).
    pub key: String,
    /// How the label's value is compared with `values`.
    pub operator: Operator,
    /// Sorted and deduplicated, as apimachinery's `sets.String` keeps them.
    pub values: Vec<String>,
}

/// The operators of `k8s.io/apimachinery/pkg/selection`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `key in (a,b)`: the label is `a` or `b`.
    In,
    /// `key notin (a,b)`: the label is absent, or neither `a` nor `b`.
    NotIn,
    /// `key=a`: the label is `a`.
    Equals,
    /// `key==a`: as `key=a`.
    DoubleEquals,
    /// `key!=a`: the label is absent, or not `a`.
    NotEquals,
    /// `key`: the label is present.
    Exists,
    /// `!key`: the label is absent.
    DoesNotExist,
    /// `key>1`: the label is an integer greater than 1.
    GreaterThan,
    /// `key<1`: the label is an integer less than 1.
    LessThan,
}

impl LabelSelector {
    /// Parses `selector`; an empty or all-blank string is the empty selector.
    pub fn parse(selector: &str) -> Result<Self, String> {
        let mut parser = Parser { items: lex(selector), position: 0 };
        let mut requirements = parser.parse()?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(LabelSelector { requirements })
    }

    /// Whether the selector has no requirement, and so matches everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether an object with `labels` (its `metadata.labels`, if any) is selected.
    pub fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

impl Requirement {
    fn has_value(&self, value: &str) -> bool {
        self.values.iter().any(|v| v == value)
    }

    fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        let value = labels.and_then(|l| l.get(&self.key)).map(|v| v.as_str().unwrap_or(""));
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => value.is_some_and(|v| self.has_value(v)),
            Operator::NotIn | Operator::NotEquals => value.is_none_or(|v| !self.has_value(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let Some(actual) = value.and_then(|v| v.parse::<i64>().ok()) else {
                    return false;
                };
                let Some(bound) = self.values.first().and_then(|v| v.parse::<i64>().ok()) else {
                    return false;
                };
                if self.operator == Operator::GreaterThan { actual > bound } else { actual < bound }
            }
        }
    }

    /// apimachinery's `NewRequirement` checks: a valid key, the number of values the
    /// operator takes, integers for `gt`/`lt`, valid label values.
    fn new(key: String, operator: Operator, values: Vec<String>) -> Result<Self, String> {
        let mut errors = Vec::new();
        let key_errors = is_qualified_name(&key);
        if !key_errors.is_empty() {
            errors.push(FieldError::invalid(&Path::ROOT.field("key"), key.as_str(), key_errors.join("; ")));
        }
        let values_path = Path::ROOT.field("values");
        match operator {
            Operator::In | Operator::NotIn if values.is_empty() => errors.push(FieldError::invalid(
                &values_path,
                values.clone(),
                "for 'in', 'notin' operators, values set can't be empty",
            )),
            Operator::Equals | Operator::DoubleEquals | Operator::NotEquals if values.len() != 1 => {
                errors.push(FieldError::invalid(
                    &values_path,
                    values.clone(),
                    "exact-match compatibility requires one single value",
                ))
            }
            Operator::Exists | Operator::DoesNotExist if !values.is_empty() => errors.push(FieldError::invalid(
                &values_path,
                values.clone(),
                "values set must be empty for exists and does not exist",
            )),
            Operator::GreaterThan | Operator::LessThan => {
                if values.len() != 1 {
                    errors.push(FieldError::invalid(
                        &values_path,
                        values.clone(),
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    ));
                }
                for (i, value) in values.iter().enumerate() {
                    if value.parse::<i64>().is_err() {
                        errors.push(FieldError::invalid(
                            &values_path.index(i),
                            value.as_str(),
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        ));
                    }
                }
            }
            _ => {}
        }
        for (i, value) in values.iter().enumerate() {
            let value_errors = is_valid_label_value(value);
            if !value_errors.is_empty() {
                errors.push(FieldError::invalid(&values_path.index(i), value.as_str(), value_errors.join("; ")));
            }
        }
        match errors.len() {
            0 => Ok(Requirement { key, operator, values }),
            1 => Err(errors[0].to_string()),
            _ => Err(format!("[{}]", errors.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn keyword(literal: &str) -> Option<Token> {
    Some(match literal {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// The tokens of a selector, ending with [`Token::End`].
fn lex(selector: &str) -> Vec<(Token, String)> {
    let chars: Vec<char> = selector.chars().collect();
    let mut items = Vec::new();
    let mut i = 0;
    loop {
        while i < chars.len() && is_blank(chars[i]) {
            i += 1;
        }
        if i >= chars.len() {
            items.push((Token::End, String::new()));
            return items;
        }
        if is_special(chars[i]) {
            // The longest run of special characters that is an operator.
            let mut buffer = String::new();
            let mut last: Option<(Token, String)> = None;
            while i < chars.len() && is_special(chars[i]) {
                buffer.push(chars[i]);
                if let Some(token) = keyword(&buffer) {
                    last = Some((token, buffer.clone()));
                    i += 1;
                } else if last.is_some() {
                    break;
                } else {
                    i += 1;
                }
            }
            match last {
                Some(item) => items.push(item),
                None => items.push((Token::Error, format!("error expected: keyword found '{buffer}'"))),
            }
        } else {
            let start = i;
            while i < chars.len() && !is_special(chars[i]) && !is_blank(chars[i]) {
                i += 1;
            }
            let literal: String = chars[start..i].iter().collect();
            let token = match keyword(&literal) {
                Some(token @ (Token::In | Token::NotIn)) => token,
                _ => Token::Identifier,
            };
            items.push((token, literal));
        }
    }
}

struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

/// Whether `in`/`notin` are operators (after a key) or plain values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

impl Parser {
    fn item(&self, index: usize, context: Context) -> (Token, String) {
        let (token, literal) = self.items.get(index).cloned().unwrap_or((Token::End, String::new()));
        match token {
            Token::In | Token::NotIn if context == Context::Values => (Token::Identifier, literal),
            token => (token, literal),
        }
    }

    fn lookahead(&self, context: Context) -> (Token, String) {
        self.item(self.position, context)
    }

    fn consume(&mut self, context: Context) -> (Token, String) {
        let item = self.item(self.position, context);
        self.position = (self.position + 1).min(self.items.len());
        item
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead(Context::Values);
            match token {
                Token::Identifier | Token::DoesNotExist => {
                    let requirement = self.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(requirement);
                    let (token, literal) = self.consume(Context::Values);
                    match token {
                        Token::End => return Ok(requirements),
                        Token::Comma => {
                            let (next, next_literal) = self.lookahead(Context::Values);
                            if next != Token::Identifier && next != Token::DoesNotExist {
                                return Err(format!("found '{next_literal}', expected: identifier after ','"));
                            }
                        }
                        _ => {
                            return Err(format!("found '{literal}', expected: ',' or 'end of string'"));
                        }
                    }
                }
                Token::End => return Ok(requirements),
                _ => {
                    return Err(format!("found '{literal}', expected: !, identifier, or 'end of string'"));
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, operator) = self.key_and_operator()?;
        if let Some(operator @ (Operator::Exists | Operator::DoesNotExist)) = operator {
            return Requirement::new(key, operator, Vec::new());
        }
        let operator = self.operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.values()?,
            _ => self.exact_value()?,
        };
        Requirement::new(key, operator, values.into_iter().collect())
    }

    fn key_and_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let mut operator = None;
        let (mut token, mut literal) = self.consume(Context::Values);
        if token == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (token, literal) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        let key_errors = is_qualified_name(&literal);
        if !key_errors.is_empty() {
            return Err(FieldError::invalid(&Path::ROOT, literal.as_str(), key_errors.join("; ")).body());
        }
        let (next, _) = self.lookahead(Context::Values);
        if (next == Token::End || next == Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((literal, operator))
    }

    fn operator(&mut self) -> Result<Operator, String> {
        let (token, literal) = self.consume(Context::KeyAndOperator);
        Ok(match token {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => {
                return Err(format!("found '{literal}', expected: in, notin, =, ==, !=, gt, lt"));
            }
        })
    }

    fn values(&mut self) -> Result<BTreeSet<String>, String> {
        let (token, literal) = self.consume(Context::Values);
        if token != Token::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead(Context::Values);
        match token {
            Token::Identifier | Token::Comma => {
                let values = self.identifiers()?;
                let (token, _) = self.consume(Context::Values);
                if token != Token::ClosedPar {
                    return Err(format!("found '{literal}', expected: ')'"));
                }
                Ok(values)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(format!("found '{literal}', expected: ',', ')' or identifier")),
        }
    }

    fn identifiers(&mut self) -> Result<BTreeSet<String>, String> {
        let mut values = BTreeSet::new();
        loop {
            let (token, literal) = self.consume(Context::Values);
            match token {
                Token::Identifier => {
                    values.insert(literal);
                    let (next, next_literal) = self.lookahead(Context::Values);
                    match next {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(values),
                        _ => return Err(format!("found '{next_literal}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if values.is_empty() {
                        values.insert(String::new());
                    }
                    let (next, _) = self.lookahead(Context::Values);
                    if next == Token::ClosedPar {
                        values.insert(String::new());
                        return Ok(values);
                    }
                    if next == Token::Comma {
                        values.insert(String::new());
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
    }

    fn exact_value(&mut self) -> Result<BTreeSet<String>, String> {
        let (token, _) = self.lookahead(Context::Values);
        if token == Token::End || token == Token::Comma {
            return Ok(BTreeSet::from([String::new()]));
        }
        let (token, literal) = self.consume(Context::Values);
        if token == Token::Identifier {
            Ok(BTreeSet::from([literal]))
        } else {
            Err(format!("found '{literal}', expected: identifier"))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Field selectors.
// ---------------------------------------------------------------------------------------

/// One `field=value` / `field!=value` term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldTerm {
    /// The field, as the resource's [`SelectableFields`] name it (`metadata.name`).
    pub field: String,
    /// The value compared with, unescaped.
    pub value: String,
    /// `!=`.
    pub negated: bool,
}

/// A parsed field selector; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

/// How a resource's unknown field selectors are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownField {
    /// `"<field>" is not a known field selector: only "metadata.name", "metadata.namespace"`
    /// (`runtime.DefaultMetaV1FieldSelectorConversion`).
    Default,
    /// `field label not supported: <field>` (the conversion functions of built-in groups
    /// such as `certificates.k8s.io`).
    NotSupported,
}

/// The fields a resource can be selected by: (field, JSON pointer into the object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectableFields {
    /// `(field, pointer)` pairs: `("spec.signerName", "/spec/signerName")`.
    pub fields: &'static [(&'static str, &'static str)],
    /// How a selector naming another field is refused.
    pub unknown: UnknownField,
}

impl Default for SelectableFields {
    /// `metadata.name` and `metadata.namespace`, as every resource has them.
    fn default() -> Self {
        SelectableFields {
            fields: &[("metadata.name", "/metadata/name"), ("metadata.namespace", "/metadata/namespace")],
            unknown: UnknownField::Default,
        }
    }
}

impl FieldSelector {
    /// Parses `selector` (`fields.ParseSelector`) and checks its fields against `fields`.
    pub fn parse(selector: &str, fields: &SelectableFields) -> Result<Self, String> {
        let mut terms = Vec::new();
        for part in split_terms(selector) {
            if part.is_empty() {
                continue;
            }
            let Some((field, op, value)) = split_term(&part) else {
                return Err(format!("invalid selector: '{selector}'; can't understand '{part}'"));
            };
            let value = unescape(value)?;
            terms.push(FieldTerm { field: field.to_owned(), value, negated: op == "!=" });
        }
        for term in &terms {
            if !fields.fields.iter().any(|(name, _)| *name == term.field) {
                return Err(match fields.unknown {
                    UnknownField::Default => format!(
                        "\"{}\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
                        term.field
                    ),
                    UnknownField::NotSupported => {
                        format!("field label not supported: {}", term.field)
                    }
                });
            }
        }
        Ok(FieldSelector { terms })
    }

    /// Whether the selector has no term, and so matches everything.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The terms, in the order given.
    pub fn terms(&self) -> &[FieldTerm] {
        &self.terms
    }

    /// Whether `object` is selected; a missing field has the value `""`.
    pub fn matches(&self, object: &Value, fields: &SelectableFields) -> bool {
        self.terms.iter().all(|term| {
            let pointer =
                fields.fields.iter().find(|(name, _)| *name == term.field).map(|(_, pointer)| *pointer).unwrap_or("");
            let actual = match object.pointer(pointer) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            (actual == term.value) != term.negated
        })
    }

    /// The value an `=`/`==` term requires of `field`, if any.
    pub fn requires_exact(&self, field: &str) -> Option<&str> {
        self.terms.iter().find(|t| t.field == field && !t.negated).map(|t| t.value.as_str())
    }
}

/// Splits on commas not escaped with a backslash.
fn split_terms(selector: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut current = String::new();
    let mut escaped = false;
    for c in selector.chars() {
        if escaped {
            current.push(c);
            escaped = false;
        } else if c == '\\' {
            current.push(c);
            escaped = true;
        } else if c == ',' {
            terms.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    terms.push(current);
    terms
}

/// The first unescaped `!=`, `==` or `=` of `term`.
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    let mut escaped = false;
    for (i, c) in term.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
            continue;
        }
        let rest = &term[i..];
        for op in ["!=", "==", "="] {
            if rest.starts_with(op) {
                return Some((&term[..i], op, &term[i + op.len()..]));
            }
        }
    }
    None
}

fn unescape(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | ',' | '=')) => out.push(e),
                Some(e) => {
                    return Err(format!("invalid field selector: invalid escape sequence: \\{e}"));
                }
                None => return Err("invalid field selector: invalid escape sequence: \\".into()),
            },
            ',' | '=' => {
                return Err(format!("invalid field selector: unescaped character '{c}'"));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Whether a `metav1.LabelSelector` (`matchLabels`, `matchExpressions`) selects an object
/// with `labels`; an empty selector selects everything.
pub(crate) fn label_selector_selects(selector: &Value, labels: Option<&serde_json::Map<String, Value>>) -> bool {
    let label = |key: &str| labels.and_then(|labels| labels.get(key)).and_then(Value::as_str);
    let match_labels = selector.get("matchLabels").and_then(Value::as_object);
    let labels_match = match_labels.into_iter().flatten().all(|(key, value)| label(key) == value.as_str());
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    let expressions_match = expressions.into_iter().flatten().all(|expression| {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        match expression.get("operator").and_then(Value::as_str).unwrap_or("") {
            "In" => label(key).is_some_and(|v| values.contains(&v)),
            "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
            "Exists" => label(key).is_some(),
            "DoesNotExist" => label(key).is_none(),
            _ => false,
        }
    });
    labels_match && expressions_match
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_match_labels_and_expressions() {
        let labels = json!({ "a": "1", "b": "2" });
        let labels = labels.as_object();
        assert!(label_selector_selects(&json!({}), labels));
        assert!(label_selector_selects(&json!({ "matchLabels": { "a": "1" } }), labels));
        assert!(!label_selector_selects(&json!({ "matchLabels": { "a": "2" } }), labels));
        assert!(label_selector_selects(
            &json!({ "matchExpressions": [{ "key": "b", "operator": "In", "values": ["2", "3"] }] }),
            labels
        ));
        assert!(!label_selector_selects(
            &json!({ "matchExpressions": [{ "key": "c", "operator": "Exists" }] }),
            labels
        ));
        assert!(label_selector_selects(
            &json!({ "matchExpressions": [{ "key": "c", "operator": "NotIn", "values": ["1"] }] }),
            labels
        ));
    }

    fn labels(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn lexes_operators_greedily() {
        let tokens: Vec<Token> = lex("a!=b,!c,d in (x)").into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            tokens,
            vec![
                Token::Identifier,
                Token::NotEquals,
                Token::Identifier,
                Token::Comma,
                Token::DoesNotExist,
                Token::Identifier,
                Token::Comma,
                Token::Identifier,
                Token::In,
                Token::OpenPar,
                Token::Identifier,
                Token::ClosedPar,
                Token::End,
            ]
        );
    }

    #[test]
    fn in_is_a_value_inside_parentheses() {
        let selector = LabelSelector::parse("x in (in,notin)").unwrap();
        assert_eq!(selector.requirements()[0].values, vec!["in", "notin"]);
        assert!(selector.matches(Some(&labels(json!({"x": "in"})))));
    }

    #[test]
    fn empty_values_are_allowed() {
        let selector = LabelSelector::parse("x in (,a)").unwrap();
        assert_eq!(selector.requirements()[0].values, vec!["", "a"]);
        assert!(LabelSelector::parse("x=").unwrap().matches(Some(&labels(json!({"x": ""})))));
    }
}
