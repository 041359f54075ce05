//! Kubernetes' schema extensions (`x-kubernetes-*`), and the few this project adds for
//! what Kubernetes' OpenAPI documents do not carry (a resource's short names, printer
//! columns, name rule, ...). Every value is checked where it is read (`super::reader`).

use kube_apigen_core::schema::{ListType, MapType, PatchStrategy};
use kube_apigen_validation::meta::NameRule;
use serde_json::Value;

/// The Kubernetes extensions of one schema.
#[derive(Clone, Debug, Default)]
pub struct Extensions {
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-list-type` with `x-kubernetes-list-map-keys`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<MapType>,
    /// `x-kubernetes-patch-strategy`.
    pub patch_strategy: Vec<PatchStrategy>,
    /// `x-kubernetes-patch-merge-key`.
    pub patch_merge_key: Option<String>,
    /// `x-kubernetes-validations`: CEL rules, each compiled once.
    pub validations: Vec<ValidationRule>,
    /// `x-kubernetes-group-version-kind`.
    pub gvks: Vec<Gvk>,
    /// What a resource schema says of its resource.
    pub resource: ResourceExtensions,
}

/// One entry of `x-kubernetes-validations`.
#[derive(Clone, Debug)]
pub struct ValidationRule {
    pub text: RuleText,
    /// The rule as the runtime compiles it (the generator reads its tree, and whether it
    /// is a transition rule, from here).
    pub compiled: std::sync::Arc<kube_apigen_validation::cel::CelRule>,
}

/// A CEL rule as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleText {
    /// `rule`: the CEL expression.
    pub rule: String,
    /// `message`: the error of a false rule.
    pub message: Option<String>,
    /// `messageExpression`: a CEL expression giving the error.
    pub message_expression: Option<String>,
    /// `fieldPath`: the field the error names, below the rule's node.
    pub field_path: Option<String>,
    /// `reason`: the error's type (`FieldValueInvalid`, ...).
    pub reason: Option<String>,
}

impl RuleText {
    /// The rule in the runtime's terms.
    pub fn spec(&self) -> kube_apigen_validation::cel::CelRuleSpec<'_> {
        kube_apigen_validation::cel::CelRuleSpec {
            rule: &self.rule,
            message: self.message.as_deref(),
            message_expression: self.message_expression.as_deref(),
            field_path: self.field_path.as_deref(),
            reason: self.reason.as_deref(),
        }
    }
}

/// A group, version and kind (`x-kubernetes-group-version-kind`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gvk {
    /// The API group; empty for the core group.
    pub group: String,
    /// The version (`v2`).
    pub version: String,
    /// The kind (`HorizontalPodAutoscaler`).
    pub kind: String,
}

impl Gvk {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }
}

/// The extensions of a resource schema: discovery names, printing, naming rules and the
/// facts of a custom resource version. Unset ones take Kubernetes' values for its
/// built-in kinds, or the defaults.
#[derive(Clone, Debug, Default)]
pub struct ResourceExtensions {
    /// `x-kubernetes-singular`.
    pub singular: Option<String>,
    /// `x-kubernetes-short-names`.
    pub short_names: Option<Vec<String>>,
    /// `x-kubernetes-categories`.
    pub categories: Option<Vec<String>>,
    /// `x-kubernetes-printer-columns`, written like a CRD's `additionalPrinterColumns`.
    pub printer_columns: Option<Vec<PrinterColumn>>,
    /// `x-kubernetes-scale`: the scale subresource's paths.
    pub scale: Option<ScalePaths>,
    /// `x-kubernetes-storage-version`.
    pub storage_version: Option<bool>,
    /// `x-kubernetes-deprecation-warning`.
    pub deprecation_warning: Option<String>,
    /// `x-kubernetes-name-rule`: `dns1123-subdomain`, `dns1123-label` or `path-segment`.
    pub name_rule: Option<NameRule>,
}

/// A column of a resource's Table, in the shape of a CRD's `additionalPrinterColumns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The column's heading.
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    pub type_: String,
    /// A format of the type (`int32`, `date-time`, ...); empty for none.
    pub format: String,
    /// What the column shows; empty for none.
    pub description: String,
    /// 0 for the columns shown by default; higher only with `-o wide`.
    pub priority: i32,
    /// The JSON path of the value in the object (`.spec.replicas`).
    pub json_path: String,
}

/// Where a resource keeps what its `scale` subresource shows: JSON paths such as `.spec.replicas`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    /// `specReplicasPath`: where the desired number of replicas is.
    pub spec_replicas: String,
    /// `statusReplicasPath`: where the observed number of replicas is.
    pub status_replicas: String,
    /// `labelSelectorPath`: where the replicas' label selector is, as a string.
    pub label_selector: Option<String>,
}

/// `info.x-kubernetes-release`: the Kubernetes release the specs follow, which the
/// server reports at `/version` (kubectl picks its binary by the minor).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Release {
    /// The major version (`1`).
    pub major: String,
    /// The minor version (`33`).
    pub minor: String,
}

/// The values of `x-kubernetes-name-rule`.
pub const NAME_RULES: &[(&str, NameRule)] = &[
    ("dns1123-subdomain", NameRule::Dns1123Subdomain),
    ("dns1123-label", NameRule::Dns1123Label),
    ("path-segment", NameRule::PathSegment),
];

/// The column types of `additionalPrinterColumns`.
pub const COLUMN_TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];

/// The column formats of `additionalPrinterColumns`.
pub const COLUMN_FORMATS: &[&str] = &["int32", "int64", "float", "double", "byte", "date", "date-time", "password"];

/// A problem found in an extension's value: where inside it (a JSON pointer relative to
/// the value, empty for the value itself) and what.
#[derive(Debug, PartialEq, Eq)]
pub struct Problem {
    pub at: String,
    pub message: String,
}

impl Problem {
    /// A problem with the value itself.
    pub fn here(message: impl Into<String>) -> Problem {
        Problem { at: String::new(), message: message.into() }
    }

    /// A problem with the member or item `segment` of the value.
    fn inside(segment: impl std::fmt::Display, problem: Problem) -> Problem {
        Problem { at: format!("/{segment}{}", problem.at), ..problem }
    }
}

/// An extension's value, or what is wrong with it.
pub type Checked<T> = Result<T, Problem>;

/// A DNS-1035 label, as Kubernetes requires of a resource's names (plural, singular,
/// short names, categories).
pub fn dns1035_label(value: &Value, what: &str) -> Checked<String> {
    let name = value.as_str().ok_or_else(|| Problem::here(format!("a {what} must be a string")))?;
    let mut chars = name.chars();
    let valid = name.len() <= 63
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-');
    if valid {
        Ok(name.to_owned())
    } else {
        Err(Problem::here(format!(
            "{what} {name:?} must be a DNS-1035 label: at most 63 lower case letters, digits or '-', starting with a letter and ending with a letter or digit"
        )))
    }
}

/// A list of DNS-1035 labels.
pub fn dns1035_labels(value: &Value, what: &str) -> Checked<Vec<String>> {
    let items = value.as_array().ok_or_else(|| Problem::here(format!("must be a list of {what}s")))?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| dns1035_label(item, what).map_err(|p| Problem::inside(index, p)))
        .collect()
}

/// `x-kubernetes-printer-columns` (or a CRD version's `additionalPrinterColumns`).
pub fn printer_columns(value: &Value) -> Checked<Vec<PrinterColumn>> {
    let items = value.as_array().ok_or_else(|| Problem::here("must be a list of columns"))?;
    items.iter().enumerate().map(|(index, item)| printer_column(item).map_err(|p| Problem::inside(index, p))).collect()
}

fn printer_column(value: &Value) -> Checked<PrinterColumn> {
    let Value::Object(column) = value else { return Err(Problem::here("a printer column must be an object")) };
    let text = |key: &str| -> Checked<Option<String>> {
        match column.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(Problem::inside(key, Problem::here(format!("`{key}` must be a string")))),
        }
    };
    let needed = |key: &str| -> Checked<String> {
        text(key)?.filter(|t| !t.is_empty()).ok_or_else(|| Problem::here(format!("a printer column needs a `{key}`")))
    };
    let one_of = |key: &str, value: String, allowed: &[&str]| -> Checked<String> {
        if allowed.contains(&value.as_str()) {
            Ok(value)
        } else {
            let message = format!("unsupported {key} {value:?}; expected one of {}", allowed.join(", "));
            Err(Problem::inside(key, Problem::here(message)))
        }
    };
    let priority = match column.get("priority") {
        None => 0,
        Some(value) => value.as_i64().and_then(|p| i32::try_from(p).ok()).filter(|p| *p >= 0).ok_or_else(|| {
            Problem::inside("priority", Problem::here("`priority` must be a non-negative 32-bit integer"))
        })?,
    };
    Ok(PrinterColumn {
        name: needed("name")?,
        type_: one_of("type", needed("type")?, COLUMN_TYPES)?,
        format: match text("format")? {
            Some(format) if !format.is_empty() => one_of("format", format, COLUMN_FORMATS)?,
            _ => String::new(),
        },
        description: text("description")?.unwrap_or_default(),
        priority,
        json_path: needed("jsonPath")?,
    })
}

/// `x-kubernetes-scale` (or a CRD version's `subresources.scale`).
pub fn scale_paths(value: &Value) -> Checked<ScalePaths> {
    let path = |key: &str| -> Checked<Option<String>> {
        match value.get(key) {
            None => Ok(None),
            Some(Value::String(path)) if path.starts_with('.') => Ok(Some(path.clone())),
            Some(_) => {
                Err(Problem::inside(key, Problem::here(format!("`{key}` must be a JSON path such as .spec.replicas"))))
            }
        }
    };
    let needed = |key: &str| -> Checked<String> {
        path(key)?.ok_or_else(|| Problem::here(format!("`{key}` must be a JSON path such as .spec.replicas")))
    };
    if !value.is_object() {
        return Err(Problem::here("the scale subresource must be an object"));
    }
    Ok(ScalePaths {
        spec_replicas: needed("specReplicasPath")?,
        status_replicas: needed("statusReplicasPath")?,
        label_selector: path("labelSelectorPath")?,
    })
}

/// `x-kubernetes-name-rule`.
pub fn name_rule(value: &Value) -> Checked<NameRule> {
    let name = value.as_str().unwrap_or_default();
    NAME_RULES.iter().find(|(known, _)| *known == name).map(|(_, rule)| *rule).ok_or_else(|| {
        let known: Vec<&str> = NAME_RULES.iter().map(|(known, _)| *known).collect();
        Problem::here(format!("unknown name rule {value}; expected one of {}", known.join(", ")))
    })
}

/// `info.x-kubernetes-release`: `major.minor`.
pub fn release(value: &Value) -> Checked<Release> {
    let parts = value.as_str().and_then(|text| text.split_once('.'));
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    match parts {
        Some((major, minor)) if digits(major) && digits(minor) => {
            Ok(Release { major: major.to_owned(), minor: minor.to_owned() })
        }
        _ => Err(Problem::here(format!("unsupported release {value}; expected major.minor, such as \"1.33\""))),
    }
}
