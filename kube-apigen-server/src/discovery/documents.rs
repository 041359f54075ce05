//! The discovery documents, rendered once from an [`ApiCatalog`] in the API server's JSON
//! shapes and field order (`metav1.APIGroupList`, `APIGroup`, `APIResourceList`,
//! `APIVersions`, `version.Info`, kube-openapi's `OpenAPIV3Discovery`), and the aggregated
//! ones (see `aggregated`).

use std::collections::{BTreeMap, HashMap};

use axum::body::Bytes;
use base64::Engine as _;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::aggregated::{Aggregated, Flavor};
use super::openapi::{openapi_hash, server_relative_url};
use super::order::{compare_groups, compare_versions};
use super::swagger::SwaggerV2;
use super::{ApiCatalog, GroupVersionInfo, VersionInfo};
use kube_apigen_core::ResourceInfo;

/// Everything the discovery routes serve, rendered once.
pub(crate) struct Documents {
    /// `/version`.
    pub version: Bytes,
    /// The versions of the core group, preferred first; empty when it is not served.
    pub core_versions: Vec<&'static str>,
    /// `/apis`.
    pub group_list: Bytes,
    /// `/apis` and `/api` as aggregated discovery (`APIGroupDiscoveryList`); the latter
    /// lists nothing when the core group is not served.
    pub aggregated_apis: Aggregated,
    pub aggregated_api: Aggregated,
    /// `/apis/{group}` by group.
    pub groups: HashMap<&'static str, Bytes>,
    /// `/apis/{group}/{version}` and `/api/{version}` by `(group, version)`.
    pub resource_lists: HashMap<(&'static str, &'static str), Bytes>,
    /// `/openapi/v3` and its hash.
    pub openapi_paths: Bytes,
    pub openapi_paths_hash: String,
    /// Group-version documents by path below `/openapi/v3/` (`apis/G/V`, `api/v1`), with
    /// their hash.
    pub openapi: HashMap<String, (&'static str, String)>,
    /// `/openapi/v2`, JSON and protobuf.
    pub swagger: SwaggerV2,
}

/// `version.Info`, as `GET /version` answers it (indented, like the API server).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VersionJson<'a> {
    major: &'a str,
    minor: &'a str,
    git_version: &'a str,
    git_commit: &'a str,
    git_tree_state: &'a str,
    build_date: &'a str,
    go_version: &'a str,
    compiler: &'a str,
    platform: String,
}

/// `metav1.GroupVersionForDiscovery`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupVersionJson<'a> {
    group_version: String,
    version: &'a str,
}

/// `metav1.APIGroup`; `kind` and `apiVersion` only when it is a document of its own.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiGroupJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    name: &'a str,
    versions: Vec<GroupVersionJson<'a>>,
    preferred_version: GroupVersionJson<'a>,
}

/// `metav1.APIGroupList`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiGroupListJson<'a> {
    kind: &'static str,
    api_version: &'static str,
    groups: Vec<ApiGroupJson<'a>>,
}

/// `metav1.APIResource`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResourceJson<'a> {
    name: String,
    singular_name: &'a str,
    namespaced: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    group: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    version: &'a str,
    kind: &'a str,
    verbs: &'a [&'a str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    short_names: &'a [&'a str],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    categories: &'a [&'a str],
    #[serde(skip_serializing_if = "Option::is_none")]
    storage_version_hash: Option<String>,
}

/// `metav1.APIResourceList`. The legacy core group's list has no `apiVersion`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiResourceListJson<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'static str>,
    group_version: String,
    resources: Vec<ApiResourceJson<'a>>,
}

/// `metav1.ServerAddressByClientCIDR`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerAddressJson<'a> {
    #[serde(rename = "clientCIDR")]
    client_cidr: &'static str,
    server_address: &'a str,
}

/// `metav1.APIVersions`, the answer to `/api`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiVersionsJson<'a> {
    kind: &'static str,
    versions: &'a [&'a str],
    #[serde(rename = "serverAddressByClientCIDRs")]
    server_address_by_client_cidrs: Vec<ServerAddressJson<'a>>,
}

/// kube-openapi's `OpenAPIV3DiscoveryGroupVersion`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OpenApiPathJson {
    #[serde(rename = "serverRelativeURL")]
    server_relative_url: String,
}

/// kube-openapi's `OpenAPIV3Discovery`.
#[derive(Serialize)]
struct OpenApiPathsJson {
    paths: BTreeMap<String, OpenApiPathJson>,
}

fn to_bytes(value: &impl Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).expect("discovery documents serialize"))
}

/// `group/version`, or `version` for the core group.
pub(crate) fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() { version.to_owned() } else { format!("{group}/{version}") }
}

/// The path of a group-version below `/openapi/v3/` and `/`: `apis/G/V` or `api/V`.
pub(crate) fn group_version_path(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

/// apiserver's `discovery.StorageVersionHash`: the first 8 bytes of the SHA-256 of
/// `group/version/kind`, in standard base64.
pub fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    let digest = Sha256::digest(format!("{group}/{version}/{kind}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&digest[..8])
}

/// Go's `GOOS/GOARCH` for the running machine, e.g. `linux/amd64`.
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64",
        "loongarch64" => "loong64",
        other => other,
    };
    format!("{}/{arch}", std::env::consts::OS)
}

fn version_json(version: &VersionInfo) -> Bytes {
    let info = VersionJson {
        major: version.major,
        minor: version.minor,
        git_version: version.git_version,
        git_commit: "",
        git_tree_state: "",
        // What a Go binary built without version stamps reports.
        build_date: "1970-01-01T00:00:00Z",
        go_version: "",
        compiler: "rustc",
        platform: platform(),
    };
    Bytes::from(serde_json::to_vec_pretty(&info).expect("version serializes"))
}

/// A resource's entries: its own, then one per subresource (`horizontalpodautoscalers/status`).
fn resource_json(gv: &GroupVersionInfo, resource: &'static ResourceInfo) -> Vec<ApiResourceJson<'static>> {
    let mut entries = vec![ApiResourceJson {
        name: resource.plural.to_owned(),
        singular_name: resource.singular,
        namespaced: resource.is_namespaced(),
        group: "",
        version: "",
        kind: resource.kind,
        verbs: resource.verbs,
        short_names: resource.short_names,
        categories: resource.categories,
        storage_version_hash: Some(storage_version_hash(gv.group, gv.version, resource.kind)),
    }];
    for sub in resource.subresources {
        // Another kind's group and version are listed only when they are not the resource's.
        let (group, version, kind) = match sub.kind {
            Some(other) if (other.group, other.version) != (resource.group, resource.version) => {
                (other.group, other.version, other.kind)
            }
            Some(other) => ("", "", other.kind),
            None => ("", "", resource.kind),
        };
        entries.push(ApiResourceJson {
            name: format!("{}/{}", resource.plural, sub.name),
            singular_name: "",
            namespaced: resource.is_namespaced(),
            group,
            version,
            kind,
            verbs: sub.verbs,
            short_names: &[],
            categories: &[],
            storage_version_hash: None,
        });
    }
    entries
}

fn resource_list_json(gv: &'static GroupVersionInfo) -> Bytes {
    to_bytes(&ApiResourceListJson {
        kind: "APIResourceList",
        api_version: (!gv.group.is_empty()).then_some("v1"),
        group_version: group_version(gv.group, gv.version),
        resources: gv.resources.iter().flat_map(|resource| resource_json(gv, resource)).collect(),
    })
}

fn api_group_json(group: &'static str, versions: &[&'static str], standalone: bool) -> ApiGroupJson<'static> {
    let entry = |version: &'static str| GroupVersionJson { group_version: group_version(group, version), version };
    ApiGroupJson {
        kind: standalone.then_some("APIGroup"),
        api_version: standalone.then_some("v1"),
        name: group,
        versions: versions.iter().map(|version| entry(version)).collect(),
        preferred_version: entry(versions[0]),
    }
}

/// `/api`: the core group's versions, with the address the client reached the server at
/// (the request's `Host`) for every client network, as the API server reports its own.
pub(crate) fn api_versions_json(versions: &[&'static str], host: Option<&str>) -> Bytes {
    to_bytes(&ApiVersionsJson {
        kind: "APIVersions",
        versions,
        server_address_by_client_cidrs: host
            .map(|host| ServerAddressJson { client_cidr: "0.0.0.0/0", server_address: host })
            .into_iter()
            .collect(),
    })
}

impl Documents {
    pub(crate) fn new(catalog: &'static ApiCatalog) -> Self {
        // Group-versions in catalog order, the first of duplicates winning.
        let mut gvs: Vec<&'static GroupVersionInfo> = Vec::new();
        for gv in catalog.groups {
            if !gvs.iter().any(|seen| seen.group == gv.group && seen.version == gv.version) {
                gvs.push(gv);
            }
        }

        let mut names: Vec<&'static str> = Vec::new();
        for gv in &gvs {
            if !names.contains(&gv.group) {
                names.push(gv.group);
            }
        }
        names.sort_by(|a, b| compare_groups(a, b));
        // The group-versions of a group, preferred first.
        let group_versions_of = |group: &'static str| {
            let mut versions: Vec<&'static GroupVersionInfo> =
                gvs.iter().copied().filter(|gv| gv.group == group).collect();
            versions.sort_by(|a, b| compare_versions(group, a.version, b.version));
            versions
        };
        let versions_of = |group: &'static str| -> Vec<&'static str> {
            group_versions_of(group).iter().map(|gv| gv.version).collect()
        };

        let mut group_list = Vec::new();
        let mut groups = HashMap::new();
        let mut core_versions = Vec::new();
        for &name in &names {
            let versions = versions_of(name);
            if name.is_empty() {
                core_versions = versions;
                continue;
            }
            groups.insert(name, to_bytes(&api_group_json(name, &versions, true)));
            group_list.push(api_group_json(name, &versions, false));
        }

        let flavor = Flavor::of(&catalog.version);
        let (core, apis): (Vec<_>, Vec<_>) =
            names.iter().map(|&name| (name, group_versions_of(name))).partition(|(name, _)| name.is_empty());

        let resource_lists = gvs.iter().map(|gv| ((gv.group, gv.version), resource_list_json(gv))).collect();

        let openapi: HashMap<String, (&'static str, String)> = gvs
            .iter()
            .filter(|gv| !gv.openapi.is_empty())
            .map(|gv| {
                let path = group_version_path(gv.group, gv.version);
                (path, (gv.openapi, openapi_hash(gv.openapi.as_bytes())))
            })
            .collect();
        let paths = OpenApiPathsJson {
            paths: openapi
                .iter()
                .map(|(path, (_, hash))| {
                    let url = server_relative_url(path, hash);
                    (path.clone(), OpenApiPathJson { server_relative_url: url })
                })
                .collect(),
        };
        let openapi_paths = to_bytes(&paths);
        let openapi_paths_hash = openapi_hash(&openapi_paths);

        Documents {
            swagger: SwaggerV2::new(catalog, &gvs),
            version: version_json(&catalog.version),
            core_versions,
            group_list: to_bytes(&ApiGroupListJson { kind: "APIGroupList", api_version: "v1", groups: group_list }),
            aggregated_apis: Aggregated::new(&apis, flavor),
            aggregated_api: Aggregated::new(&core, flavor),
            groups,
            resource_lists,
            openapi_paths,
            openapi_paths_hash,
            openapi,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_version_hash_matches_the_api_server() {
        // `kubectl get --raw /apis/apps/v1` on a real cluster lists deployments with this.
        assert_eq!(storage_version_hash("apps", "v1", "Deployment"), "8aSe+NMegvE=");
    }
}
