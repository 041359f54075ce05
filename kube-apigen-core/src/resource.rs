//! The one description of an API resource: its identity, how discovery lists it, and
//! how it is printed. Generated code writes one [`ResourceInfo`] `static` per resource and
//! implements [`Resource`] for its model; servers, discovery and clients all read it.

/// Whether objects of a resource live in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Objects live in a namespace (`Pod`, `ConfigMap`).
    Namespaced,
    /// Objects belong to the cluster, outside any namespace (`Node`, `Namespace`).
    Cluster,
}

/// Implemented by every generated type that is a top-level resource of its API.
pub trait Resource {
    /// The resource's description, a `static` written by the generator.
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
    /// API version, e.g. `v1` or `v1beta1`.
    pub version: &'static str,
    /// The kind of its objects, e.g. `Deployment`.
    pub kind: &'static str,
    /// Lower-case plural, as in URL paths.
    pub plural: &'static str,
    /// Lower-case singular, as discovery lists it.
    pub singular: &'static str,
    /// Whether objects live in a namespace.
    pub scope: Scope,
    /// The kind of the list type returned by list operations.
    pub list_kind: &'static str,
    /// Discovery verbs (`create`, `get`, `list`, ...), sorted.
    pub verbs: &'static [&'static str],
    /// Abbreviations clients accept for the plural, e.g. `deploy`.
    pub short_names: &'static [&'static str],
    /// Categories it is listed under, e.g. `all` for `kubectl get all`.
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

    /// Whether objects live in a namespace ([`Scope::Namespaced`]).
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
    /// Discovery verbs of the subresource, e.g. `get`, `patch`, `update`.
    pub verbs: &'static [&'static str],
    /// The kind it takes and returns, when not the resource's own: `scale` speaks
    /// `autoscaling/v1` `Scale`.
    pub kind: Option<KindInfo>,
}

/// A group, version and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    /// API group; empty for the core group.
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
    /// Kind.
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
    /// The column's header, e.g. `Ready`.
    pub name: &'static str,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: &'static str,
    /// E.g. `name`, `int32`; usually empty.
    pub format: &'static str,
    /// What the column shows, given in the Table's column definitions.
    pub description: &'static str,
    /// 0 for the default view, higher for `-o wide`.
    pub priority: i32,
    /// A simple JSONPath into the object: `.status.replicas`, `.spec.ports[0].port`,
    /// `.status.conditions[?(@.type=="Ready")].status`; `{...}` braces are tolerated.
    pub json_path: &'static str,
}

/// What a request does, in the terms of Kubernetes authorization verbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verb {
    /// `create`: a new object.
    Create,
    /// `get`: one object, or a subresource of it.
    Get,
    /// `update`: an object replaced as a whole.
    Update,
    /// `patch`: an object changed by a patch.
    Patch,
    /// `delete`: one object removed.
    Delete,
    /// `list`: the objects of a collection.
    List,
    /// `deletecollection`: the objects of a collection removed.
    DeleteCollection,
    /// `watch`: the changes to a collection or one object, as a stream.
    Watch,
}

impl Verb {
    /// The verb as Kubernetes writes it (discovery, authorization, RBAC rules, metrics,
    /// 405 messages): `create`, `get`, ..., `deletecollection`, `watch`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Create => "create",
            Verb::Get => "get",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::List => "list",
            Verb::DeleteCollection => "deletecollection",
            Verb::Watch => "watch",
        }
    }
}
