//! The one description of an API resource: its identity, how discovery lists it, and
//! how it is printed. Generated code writes one [`ResourceInfo`] `static` per resource and
//! implements [`Resource`] for its model; servers, discovery and clients all read it.

/// Whether objects of a resource live in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// Implemented by every generated type that is a top-level resource of its API.
pub trait Resource {
    const INFO: &'static ResourceInfo;
}

/// A resource: identity, discovery entry and printing.
///
/// Write `static`s as `ResourceInfo { kind: "Widget", plural: "widgets", ..ResourceInfo::EMPTY }`
/// so that fields added later keep their defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    /// API group; empty for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    /// Lower-case plural, as in URL paths.
    pub plural: &'static str,
    pub singular: &'static str,
    pub scope: Scope,
    /// The kind of the list type returned by list operations.
    pub list_kind: &'static str,
    /// Discovery verbs (`create`, `get`, `list`, ...), sorted.
    pub verbs: &'static [&'static str],
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    /// `status`, `scale` and the like, in discovery's order.
    pub subresources: &'static [SubresourceInfo],
    /// Table columns after `Name` (a custom resource's `additionalPrinterColumns`). Empty
    /// means the API server's default for custom resources: an `Age` column.
    pub columns: &'static [Column],
    /// The `scale` subresource, when the resource has one: where the object keeps what
    /// an `autoscaling/v1` Scale shows.
    pub scale: Option<ScalePaths>,
    /// Set on a deprecated version: the `Warning` every response carries.
    pub deprecation_warning: Option<&'static str>,
    /// Whether objects are stored in this version: a custom resource's storage version;
    /// built-in resources are stored as they are served here.
    pub storage_version: bool,
}

impl ResourceInfo {
    /// Every field empty: the base of struct update syntax in `static`s.
    pub const EMPTY: ResourceInfo = ResourceInfo {
        group: "",
        version: "",
        kind: "",
        plural: "",
        singular: "",
        scope: Scope::Namespaced,
        list_kind: "",
        verbs: &[],
        short_names: &[],
        categories: &[],
        subresources: &[],
        columns: &[],
        scale: None,
        deprecation_warning: None,
        storage_version: true,
    };

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.to_owned() } else { format!("{}/{}", self.group, self.version) }
    }

    pub fn is_namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }

    /// The subresource of that name, if the resource has it.
    pub fn subresource(&self, name: &str) -> Option<&'static SubresourceInfo> {
        self.subresources.iter().find(|sub| sub.name == name)
    }
}

/// A subresource as discovery lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubresourceInfo {
    /// `status`, `scale`, `approval`.
    pub name: &'static str,
    pub verbs: &'static [&'static str],
    /// The kind it takes and returns, when not the resource's own: `scale` speaks
    /// `autoscaling/v1` `Scale`.
    pub kind: Option<KindInfo>,
}

/// A group, version and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
}

/// Where a resource keeps the fields of its `scale` subresource, as the simple JSON paths
/// of a CRD's `subresources.scale` (`.spec.replicas`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    /// The wanted replica count: `spec.replicas` of the Scale.
    pub spec_replicas: &'static str,
    /// The observed replica count: `status.replicas` of the Scale.
    pub status_replicas: &'static str,
    /// A label selector in its string form: `status.selector` of the Scale.
    pub label_selector: Option<&'static str>,
}

/// One column of a `meta.k8s.io/v1` Table, as a CRD's `additionalPrinterColumns` entry
/// describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: &'static str,
    /// E.g. `name`, `int32`; usually empty.
    pub format: &'static str,
    pub description: &'static str,
    /// 0 for the default view, higher for `-o wide`.
    pub priority: i32,
    /// A simple JSONPath into the object: `.status.replicas`, `.spec.ports[0].port`,
    /// `.status.conditions[?(@.type=="Ready")].status`; `{...}` braces are tolerated.
    pub json_path: &'static str,
}
