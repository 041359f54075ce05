//! The rules: what each kind of change is called, why it matters, and how severe it is
//! where it happens. Kubernetes' own rules ("Changing the API" in the Kubernetes
//! community documentation) decide the severities: a change is compatible when every
//! request that worked before still works and every client reading objects still
//! understands them; validation of spec fields may neither loosen nor tighten, status
//! may tighten; alpha versions promise nothing. Validation ratcheting (custom resources,
//! on by default since Kubernetes 1.30) lets stored objects keep an invalid value that an
//! update leaves alone, which makes a tightened custom resource schema a review matter.

use std::fmt;

/// How much a change breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Requests that worked fail, or clients misread objects.
    Breaking,
    /// Compatible on the wire, but a person has to decide (a new value in a closed enum,
    /// a newly deprecated version, a tightened custom resource schema).
    Review,
    /// Every request that worked still works, and every client still understands objects.
    Compatible,
}

impl Severity {
    /// Every severity, the most severe first.
    pub const ALL: [Severity; 3] = [Severity::Breaking, Severity::Review, Severity::Compatible];

    /// The name reports use (`breaking`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Breaking => "breaking",
            Severity::Review => "review",
            Severity::Compatible => "compatible",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The version bump a change asks of the generated crate, by Cargo's SemVer rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Semver {
    /// The public API and its behaviour are unchanged.
    #[default]
    None,
    /// Behaviour only: what `validate()` accepts, defaults, discovery data.
    Patch,
    /// Additions: new types, new trait methods with default bodies.
    Minor,
    /// Removals and retyped items; also a new `pub` field of a struct whose fields are
    /// all `pub`, since struct literals must then name it.
    Major,
}

impl Semver {
    /// The name reports use (`minor`).
    pub fn name(self) -> &'static str {
        match self {
            Semver::None => "none",
            Semver::Patch => "patch",
            Semver::Minor => "minor",
            Semver::Major => "major",
        }
    }
}

macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident = $id:literal: $reason:literal,)*) => {
        /// A kind of change. Each has a kebab-case id (what reports and allow-lists name)
        /// and a one-line reason saying why it matters.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(
                #[doc = concat!("`", $id, "`: ", $reason, ".")]
                #[doc = ""]
                $(#[$doc])*
                $name,
            )*
        }

        impl Rule {
            /// Every rule, in order.
            pub const ALL: &[Rule] = &[$(Rule::$name),*];

            /// The kebab-case id.
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$name => $id,)*
                }
            }

            /// Why the change matters, in one line.
            pub fn reason(self) -> &'static str {
                match self {
                    $(Rule::$name => $reason,)*
                }
            }
        }
    };
}

rules! {
    VersionRemoved = "version-removed": "every client of the group/version gets 404 Not Found",
    /// A custom resource version still listed, but with `served: false`.
    VersionUnserved = "version-unserved": "the version is still defined but not served: its clients get 404 Not Found",
    KindRemoved = "kind-removed": "clients of the kind in this version get 404 Not Found",
    /// The same kind under another plural: every URL of the resource changes.
    ResourceRenamed = "resource-renamed": "the kind is served under another resource name, so every URL of it changes",
    VersionAdded = "version-added": "a new group/version",
    KindAdded = "kind-added": "a new kind",
    ScopeChanged = "scope-changed": "every URL of the resource changes, and objects move between namespaces and the cluster",
    StorageVersionChanged = "storage-version-changed": "objects stored in the old version stay so until migrated; the old version must stay served until then",
    VersionDeprecated = "version-deprecated": "clients get deprecation warnings and must plan a move to another version",
    VersionUndeprecated = "version-undeprecated": "the version is no longer deprecated",
    VerbRemoved = "verb-removed": "requests with this verb are refused",
    VerbAdded = "verb-added": "a new verb",
    SubresourceRemoved = "subresource-removed": "requests to the subresource get 404 Not Found",
    SubresourceAdded = "subresource-added": "a new subresource",
    ShortNameRemoved = "short-name-removed": "kubectl commands and scripts using the short name fail",
    ShortNameAdded = "short-name-added": "a new short name",
    CategoryRemoved = "category-removed": "`kubectl get <category>` no longer lists the resource",
    CategoryAdded = "category-added": "a new category",
    PrinterColumnRemoved = "printer-column-removed": "only the table kubectl prints changes",
    PrinterColumnAdded = "printer-column-added": "only the table kubectl prints changes",
    PrinterColumnChanged = "printer-column-changed": "only the table kubectl prints changes",
    QueryParameterRemoved = "query-parameter-removed": "requests using the parameter lose what it did",
    QueryParameterAdded = "query-parameter-added": "a new, optional query parameter",
    PatchTypeRemoved = "patch-type-removed": "patches of this content type get 415 Unsupported Media Type",
    PatchTypeAdded = "patch-type-added": "a new patch content type",
    FieldRemoved = "field-removed": "clients that set or read the field break, and stored values are dropped",
    FieldAdded = "field-added": "a new optional field; clients that do not know it keep working",
    RequiredFieldAdded = "required-field-added": "requests without the new field are rejected",
    FieldTypeChanged = "field-type-changed": "clients encode and decode the old type",
    FormatChanged = "format-changed": "clients parse the value by its format, and the server validates it",
    IntOrStringRemoved = "int-or-string-removed": "values of the other type are rejected, and clients reading them break",
    PreserveUnknownFieldsRemoved = "preserve-unknown-fields-removed": "fields the schema does not declare are now pruned from objects",
    PreserveUnknownFieldsAdded = "preserve-unknown-fields-added": "fields the schema does not declare are now kept, so readers may meet fields they do not know",
    FieldBecameRequired = "field-became-required": "requests without the field are rejected",
    FieldBecameOptional = "field-became-optional": "readers may now find the field missing",
    NullableRemoved = "nullable-removed": "null is no longer a valid value",
    NullableAdded = "nullable-added": "readers may now find null",
    EnumValueRemoved = "enum-value-removed": "requests with the value are rejected",
    EnumValueAdded = "enum-value-added": "clients that handle every value of a closed enum do not know the new one",
    EnumIntroduced = "enum-introduced": "values outside the new set are rejected",
    EnumLifted = "enum-lifted": "any value is accepted now; clients that handled every value meet new ones",
    MinimumTightened = "minimum-tightened": "values valid before are rejected",
    MinimumLoosened = "minimum-loosened": "readers may meet values they never saw",
    MaximumTightened = "maximum-tightened": "values valid before are rejected",
    MaximumLoosened = "maximum-loosened": "readers may meet values they never saw",
    MinLengthTightened = "min-length-tightened": "values valid before are rejected",
    MinLengthLoosened = "min-length-loosened": "readers may meet values they never saw",
    MaxLengthTightened = "max-length-tightened": "values valid before are rejected",
    MaxLengthLoosened = "max-length-loosened": "readers may meet values they never saw",
    MinItemsTightened = "min-items-tightened": "values valid before are rejected",
    MinItemsLoosened = "min-items-loosened": "readers may meet values they never saw",
    MaxItemsTightened = "max-items-tightened": "values valid before are rejected",
    MaxItemsLoosened = "max-items-loosened": "readers may meet values they never saw",
    MinPropertiesTightened = "min-properties-tightened": "values valid before are rejected",
    MinPropertiesLoosened = "min-properties-loosened": "readers may meet values they never saw",
    MaxPropertiesTightened = "max-properties-tightened": "values valid before are rejected",
    MaxPropertiesLoosened = "max-properties-loosened": "readers may meet values they never saw",
    PatternAdded = "pattern-added": "values valid before are rejected",
    PatternRemoved = "pattern-removed": "readers may meet values they never saw",
    PatternChanged = "pattern-changed": "values valid before may be rejected, and readers may meet values they never saw",
    UniqueItemsAdded = "unique-items-added": "lists with repeated items are rejected",
    UniqueItemsRemoved = "unique-items-removed": "readers may meet repeated items",
    CelRuleAdded = "cel-rule-added": "objects valid before may be rejected",
    CelRuleRemoved = "cel-rule-removed": "readers may meet objects the rule used to keep out",
    CelRuleChanged = "cel-rule-changed": "objects valid before may be rejected, and readers may meet objects the rule kept out",
    CelMessageChanged = "cel-message-changed": "only the error a failing object gets changes",
    DefaultAdded = "default-added": "objects without the field now read with the default, which must mean what absence meant",
    DefaultChanged = "default-changed": "objects without the field read with another value, so mean something else",
    DefaultRemoved = "default-removed": "objects without the field no longer read with the default",
    ListTypeChanged = "list-type-changed": "the list type decides how server-side apply merges and owns the list, and which duplicates are rejected",
    ListMapKeysChanged = "list-map-keys-changed": "items are told apart by other fields: server-side apply merges them differently and duplicates are judged anew",
    MapTypeChanged = "map-type-changed": "the map type decides how server-side apply merges and owns the object",
    PatchStrategyChanged = "patch-strategy-changed": "the strategy decides how strategic merge patches (kubectl apply) merge the field",
    PatchMergeKeyChanged = "patch-merge-key-changed": "strategic merge patches (kubectl apply) match list items by the merge key",
    /// The wire format is the same, but the generated Rust type or field name is not.
    RustTypeChanged = "rust-type-changed": "the wire format is unchanged; only the generated Rust type differs",
}

impl Rule {
    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|rule| rule.id() == id)
    }

    /// Whether the change can alter the Rust type of the field it is at.
    pub(super) fn retypes(self) -> bool {
        matches!(
            self,
            Rule::FieldTypeChanged
                | Rule::FormatChanged
                | Rule::IntOrStringRemoved
                | Rule::PreserveUnknownFieldsRemoved
                | Rule::PreserveUnknownFieldsAdded
                | Rule::EnumIntroduced
                | Rule::EnumLifted
                | Rule::FieldBecameRequired
                | Rule::FieldBecameOptional
        )
    }
}

/// A severity and why it is that one where the change happened, when the rule's reason
/// does not say it all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Verdict {
    pub severity: Severity,
    pub note: Option<String>,
}

impl Verdict {
    pub fn new(severity: Severity) -> Verdict {
        Verdict { severity, note: None }
    }

    pub fn noted(severity: Severity, note: impl Into<String>) -> Verdict {
        Verdict { severity, note: Some(note.into()) }
    }
}

/// Which way a validation change goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Direction {
    /// Fewer values are valid.
    Tighten,
    /// More values are valid.
    Loosen,
    /// Some values become valid and others invalid (a new pattern, a rewritten rule).
    Both,
}

/// Where a validation change is, which decides its severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    /// Under `status`, whose writers are the API's own controllers.
    pub status: bool,
    /// Whether validation ratcheting would let stored objects keep values the change makes invalid.
    pub ratcheting: Ratcheting,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ratcheting {
    /// A built-in API: Kubernetes ratchets only custom resources.
    BuiltIn,
    Applies,
    /// A custom resource, but Kubernetes does not ratchet this kind of check; why not.
    DoesNotApply(&'static str),
}

/// The severity of a validation change: spec validation may neither tighten nor loosen
/// (ratcheting makes a tightening of a custom resource a review matter); status may
/// tighten, since clients then see a subset of what they saw.
pub(super) fn validation(direction: Direction, place: Place) -> Verdict {
    const RATCHETED: &str = "validation ratcheting applies: stored objects keep updating while this field is left \
                             unchanged, but new values must pass";
    match (direction, place.status) {
        (Direction::Loosen, _) => Verdict::new(Severity::Review),
        (Direction::Tighten, true) => {
            Verdict::noted(Severity::Compatible, "status may tighten: clients see a subset of the values they saw")
        }
        (Direction::Both, true) => Verdict::noted(Severity::Review, "in status, which clients read"),
        (Direction::Tighten | Direction::Both, false) => match place.ratcheting {
            Ratcheting::BuiltIn => Verdict::new(Severity::Breaking),
            Ratcheting::Applies => Verdict::noted(Severity::Review, RATCHETED),
            Ratcheting::DoesNotApply(why) => Verdict::noted(Severity::Breaking, why),
        },
    }
}

/// Why ratcheting does not cover required fields, list types and metadata.
pub(super) const NOT_RATCHETED_REQUIRED: &str = "validation ratcheting does not cover `required`";
pub(super) const NOT_RATCHETED_LIST_TYPE: &str = "validation ratcheting does not cover list types and their keys";
pub(super) const NOT_RATCHETED_TRANSITION: &str =
    "a transition rule (it reads oldSelf): validation ratcheting does not cover it";
pub(super) const NOT_RATCHETED_METADATA: &str = "validation ratcheting does not cover metadata";

/// Whether a version is an alpha version (`v1alpha1`), which promises no compatibility.
pub(super) fn is_alpha(version: &str) -> bool {
    let Some(rest) = version.strip_prefix('v') else { return false };
    let major_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let Some(minor) = rest[major_end..].strip_prefix("alpha") else { return false };
    major_end > 0 && !minor.is_empty() && minor.chars().all(|c| c.is_ascii_digit())
}

/// An alpha version's change: compatible whatever it is, saying what it would be elsewhere.
pub(super) fn in_alpha(verdict: Verdict) -> Verdict {
    match verdict.severity {
        Severity::Compatible => verdict,
        severity => Verdict::noted(
            Severity::Compatible,
            format!("alpha version, exempt from compatibility (would be {severity} in a beta or GA version)"),
        ),
    }
}
