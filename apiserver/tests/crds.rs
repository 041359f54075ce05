//! CustomResourceDefinitions (`apiextensions.k8s.io/v1`) on the reference server, in
//! process with kube-rs: CRUD, list and watch of the definitions, the status the API
//! server's controllers give them, kube-apiserver's 422 for definitions it refuses (word
//! for word), and the kinds they define, served once established: CRUD, list, watch,
//! `status`, discovery and `/openapi/v3`, until the definition is deleted.

mod harness;

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
    ResourceExt, WatchEvent, WatchParams,
};
use kube::runtime::watcher::{self, Event};
use kube_apigen_registry::Server;
use serde_json::{Value, json};

fn server() -> Server {
    apiserver::builder().build().expect("the reference server builds")
}

/// A definition of `widgets.example.com` (namespaced, `v1` stored), as a user writes it:
/// without `singular` or `listKind`, which the server defaults.
fn widget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": "widgets.example.com" },
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": { "plural": "widgets", "kind": "Widget", "shortNames": ["wd"] },
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "subresources": { "status": {} },
                "schema": { "openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "size": { "type": "integer", "minimum": 1 },
                                "mode": {
                                    "type": "string",
                                    "default": "Fast",
                                    "x-kubernetes-validations": [{ "rule": "self == oldSelf", "message": "mode is immutable" }]
                                }
                            },
                            "x-kubernetes-validations": [{ "rule": "self.size <= 10", "message": "at most 10" }]
                        },
                        "status": { "type": "object", "x-kubernetes-preserve-unknown-fields": true }
                    }
                }}
            }]
        }
    })
}

fn crd(value: Value) -> CustomResourceDefinition {
    serde_json::from_value(value).expect("a CustomResourceDefinition")
}

/// `(type, status, reason, message)` of each condition.
fn conditions(crd: &CustomResourceDefinition) -> Vec<(String, String, String, String)> {
    let status = crd.status.as_ref().expect("a status");
    status
        .conditions
        .iter()
        .flatten()
        .map(|c| {
            (
                c.type_.clone(),
                c.status.clone(),
                c.reason.clone().unwrap_or_default(),
                c.message.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_created_definition_is_established_with_its_names_defaulted_and_accepted() {
    let server = server();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let created = crds.create(&PostParams::default(), &crd(widget_crd())).await.expect("create");

    let names = &created.spec.names;
    assert_eq!((names.singular.as_deref(), names.list_kind.as_deref()), (Some("widget"), Some("WidgetList")));
    assert_eq!(created.spec.conversion.as_ref().map(|c| c.strategy.as_str()), Some("None"));
    let status = created.status.as_ref().expect("a status in the create's answer");
    assert_eq!(status.accepted_names.as_ref(), Some(names), "the names are accepted as requested");
    assert_eq!(status.stored_versions.as_deref(), Some(&["v1".to_owned()][..]));
    let expected = [
        ("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        ("Established", "True", "InitialNamesAccepted", "the initial names have been accepted"),
    ]
    .map(|(a, b, c, d)| (a.to_owned(), b.to_owned(), c.to_owned(), d.to_owned()));
    assert_eq!(conditions(&created), expected);

    assert_eq!(crds.get("widgets.example.com").await.expect("get"), created);
    let listed = crds.list(&ListParams::default()).await.expect("list");
    assert_eq!(listed.items.iter().map(ResourceExt::name_any).collect::<Vec<_>>(), ["widgets.example.com"]);
}

#[tokio::test]
async fn a_new_storage_version_joins_the_stored_versions_and_the_names_stay_fixed() {
    let server = server();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let created = crds.create(&PostParams::default(), &crd(widget_crd())).await.expect("create");
    let established_at = created.status.as_ref().and_then(|s| s.conditions.as_ref()).map(|c| c[1].clone());

    let mut next = created.clone();
    let mut v2 = next.spec.versions[0].clone();
    v2.name = "v2".to_owned();
    next.spec.versions[0].storage = false;
    next.spec.versions.push(v2);
    let updated = crds.replace("widgets.example.com", &PostParams::default(), &next).await.expect("replace");
    let status = updated.status.as_ref().expect("a status");
    assert_eq!(status.stored_versions.as_deref(), Some(&["v1".to_owned(), "v2".to_owned()][..]));
    assert_eq!(
        status.conditions.as_ref().map(|c| c[1].clone()),
        established_at,
        "a condition that stays true keeps its transition time"
    );

    let mut renamed = updated.clone();
    renamed.spec.names.kind = "Gadget".to_owned();
    renamed.spec.names.list_kind = Some("GadgetList".to_owned());
    let error = crds.replace("widgets.example.com", &PostParams::default(), &renamed).await.expect_err("immutable");
    let kube::Error::Api(status) = error else { panic!("expected an API error, got {error:?}") };
    assert_eq!(
        (status.code, status.message.as_str()),
        (
            422,
            r#"CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.names.kind: Invalid value: "Gadget": field is immutable"#
        )
    );
}

#[tokio::test]
async fn watching_definitions_sees_creates_and_deletes() {
    let server = server();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let mut events = watcher::watcher(crds.clone(), watcher::Config::default()).boxed();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(10), events.try_next())
            .await
            .expect("a watcher event within 10 s")
            .expect("no watcher error")
            .expect("the watcher goes on")
    };
    assert!(matches!(next().await, Event::Init));
    assert!(matches!(next().await, Event::InitDone));
    crds.create(&PostParams::default(), &crd(widget_crd())).await.expect("create");
    match next().await {
        Event::Apply(object) => assert_eq!(object.name_any(), "widgets.example.com"),
        other => panic!("expected the created definition, got {other:?}"),
    }
    crds.delete("widgets.example.com", &DeleteParams::default()).await.expect("delete");
    match next().await {
        Event::Delete(object) => assert_eq!(object.name_any(), "widgets.example.com"),
        other => panic!("expected the deletion, got {other:?}"),
    }
    assert!(crds.get_opt("widgets.example.com").await.expect("get").is_none());
}

/// The message of the answer to creating `definition`, which must be a 422 that stores
/// nothing.
async fn refused(definition: Value) -> String {
    let server = server();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let name = definition["metadata"]["name"].as_str().unwrap_or_default().to_owned();
    let error = crds.create(&PostParams::default(), &crd(definition)).await.expect_err("refused");
    assert!(crds.get_opt(&name).await.expect("get").is_none(), "nothing is stored");
    let kube::Error::Api(status) = error else { panic!("expected an API error, got {error:?}") };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"), "{status:?}");
    status.message
}

#[tokio::test]
async fn a_name_other_than_plural_dot_group_is_refused() {
    let mut definition = widget_crd();
    definition["metadata"]["name"] = json!("gadgets.example.com");
    let message = refused(definition).await;
    assert_eq!(
        message,
        r#"CustomResourceDefinition.apiextensions.k8s.io "gadgets.example.com" is invalid: metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group"#
    );
}

#[tokio::test]
async fn two_storage_versions_are_refused() {
    let mut definition = widget_crd();
    let mut v2 = definition["spec"]["versions"][0].clone();
    v2["name"] = json!("v2");
    definition["spec"]["versions"].as_array_mut().expect("versions").push(v2);
    let message = refused(definition).await;
    let prefix = r#"CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.versions: Invalid value: "#;
    assert!(message.starts_with(prefix), "{message}");
    assert!(message.ends_with(": must have exactly one version marked as storage version"), "{message}");
}

#[tokio::test]
async fn a_schema_that_is_not_structural_is_refused_with_every_cause() {
    let mut definition = widget_crd();
    let schema = &mut definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    schema["properties"]["spec"]["properties"]["size"] = json!({ "minimum": 1 });
    schema["properties"]["spec"]["properties"]["tags"] = json!({ "type": "array", "items": {} });
    let message = refused(definition).await;
    assert_eq!(
        message,
        "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: [\
         spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields, \
         spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items.type: Required value: must not be empty for specified array items]"
    );
}

#[tokio::test]
async fn a_cel_rule_that_does_not_compile_is_refused() {
    let mut definition = widget_crd();
    definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{ "rule": "self.size <=" }]);
    let message = refused(definition).await;
    let field =
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ";
    assert!(message.contains(field), "{message}");
    assert!(message.contains(": compilation failed: "), "{message}");
}

fn widgets(client: kube::Client, namespace: &str) -> Api<DynamicObject> {
    let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("example.com", "v1", "Widget"), "widgets");
    Api::namespaced_with(client, namespace, &resource)
}

fn widget(name: &str, size: i64) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": { "name": name },
        "spec": { "size": size }
    }))
    .expect("a Widget")
}

/// A server with the widget definition established.
async fn with_widgets() -> Server {
    let server = server();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.create(&PostParams::default(), &crd(widget_crd())).await.expect("create the definition");
    server
}

#[tokio::test]
async fn an_established_kind_is_served_with_crud_list_and_its_status_subresource() {
    let server = server();
    let before = widgets(server.client(), "default").list(&ListParams::default()).await.expect_err("no kind yet");
    assert!(matches!(&before, kube::Error::Api(status) if status.code == 404), "{before:?}");
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.create(&PostParams::default(), &crd(widget_crd())).await.expect("create the definition");

    let api = widgets(server.client(), "default");
    let created = api.create(&PostParams::default(), &widget("a", 3)).await.expect("create");
    assert!(created.uid().is_some() && created.resource_version().is_some(), "{created:?}");
    assert_eq!(created.namespace().as_deref(), Some("default"));
    assert_eq!(api.get("a").await.expect("get").data["spec"], json!({ "size": 3, "mode": "Fast" }), "defaulted");
    api.create(&PostParams::default(), &widget("b", 4)).await.expect("create b");
    let listed = api.list(&ListParams::default()).await.expect("list");
    assert_eq!(listed.items.iter().map(ResourceExt::name_any).collect::<Vec<_>>(), ["a", "b"]);
    let everywhere = widgets(server.client(), "other").list(&ListParams::default()).await.expect("list other");
    assert!(everywhere.items.is_empty(), "another namespace holds none");

    // The status subresource: writes to the object keep the stored status, writes to
    // /status change only the status.
    let patch = Patch::Merge(json!({ "status": { "ready": true } }));
    let status = api.patch_status("a", &PatchParams::default(), &patch).await.expect("patch status");
    assert_eq!(status.data["status"], json!({ "ready": true }));
    let mut next = status.clone();
    next.data["spec"] = json!({ "size": 5, "mode": "Fast" });
    next.data["status"] = json!({ "ready": false });
    let replaced = api.replace("a", &PostParams::default(), &next).await.expect("replace");
    assert_eq!(
        (replaced.data["spec"]["size"].clone(), replaced.data["status"].clone()),
        (json!(5), json!({ "ready": true }))
    );

    api.delete("b", &DeleteParams::default()).await.expect("delete");
    assert!(api.get_opt("b").await.expect("get").is_none());
}

#[tokio::test]
async fn discovery_and_openapi_list_the_kind_once_it_is_established() {
    let server = with_widgets().await;
    let discovery = kube::Discovery::new(server.client()).filter(&["example.com"]).run().await.expect("discovery");
    let (resource, capabilities) = discovery
        .groups()
        .flat_map(|group| group.recommended_resources())
        .find(|(resource, _)| resource.kind == "Widget")
        .expect("Widget in discovery");
    assert_eq!(
        (resource.group.as_str(), resource.version.as_str(), resource.plural.as_str()),
        ("example.com", "v1", "widgets")
    );
    assert_eq!(capabilities.scope, kube::discovery::Scope::Namespaced);
    assert!(capabilities.subresources.iter().any(|(sub, _)| sub.plural == "status"), "{capabilities:?}");

    let request = kube_apigen::axum::http::Request::get("/openapi/v3").body(Vec::new()).expect("a request");
    let index: Value = server.client().request(request).await.expect("/openapi/v3");
    let url = index["paths"]["apis/example.com/v1"]["serverRelativeURL"].as_str().expect("the group-version listed");
    let request = kube_apigen::axum::http::Request::get(url).body(Vec::new()).expect("a request");
    let document: Value = server.client().request(request).await.expect("the group-version document");
    let schema = &document["components"]["schemas"]["com.example.v1.Widget"];
    assert_eq!(
        schema["x-kubernetes-group-version-kind"],
        json!([{ "group": "example.com", "version": "v1", "kind": "Widget" }])
    );
    let size = &schema["properties"]["spec"]["properties"]["size"];
    assert_eq!((size["type"].as_str(), size["minimum"].as_f64()), (Some("integer"), Some(1.0)), "{size}");

    let request = kube_apigen::axum::http::Request::get("/openapi/v2").body(Vec::new()).expect("a request");
    let swagger: Value = server.client().request(request).await.expect("/openapi/v2");
    let definition = &swagger["definitions"]["com.example.v1.Widget"];
    assert_eq!(definition["x-kubernetes-group-version-kind"][0]["kind"], "Widget", "{definition}");
}

#[tokio::test]
async fn deleting_the_definition_deletes_its_objects_ends_its_watches_and_stops_serving_it() {
    let server = with_widgets().await;
    let api = widgets(server.client(), "default");
    api.create(&PostParams::default(), &widget("a", 3)).await.expect("create");
    let mut events = api.watch(&WatchParams::default(), "0").await.expect("watch").boxed();
    let first = tokio::time::timeout(Duration::from_secs(10), events.try_next()).await.expect("an event in time");
    assert!(matches!(first, Ok(Some(WatchEvent::Added(_)))), "{first:?}");

    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.delete("widgets.example.com", &DeleteParams::default()).await.expect("delete the definition");
    let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(10), events.collect::<Vec<_>>())
        .await
        .expect("the watch ends once the definition is gone");
    assert!(rest.iter().all(|event| matches!(event, Ok(WatchEvent::Deleted(_)))), "{rest:?}");

    let after = api.list(&ListParams::default()).await.expect_err("the kind is no longer served");
    assert!(matches!(&after, kube::Error::Api(status) if status.code == 404), "{after:?}");
    crds.create(&PostParams::default(), &crd(widget_crd())).await.expect("create the definition again");
    assert!(api.list(&ListParams::default()).await.expect("list").items.is_empty(), "its objects went with it");
}

/// kubectl applies a definition and an object of its kind from YAML, lists the kind by
/// its plural and short name, and finds it in `api-resources`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_applies_a_definition_then_its_objects() {
    let Some(kubectl) = harness::find_kubectl() else { return };
    let local = server().spawn_local().await.expect("a loopback port");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, local.kubeconfig()).expect("write the kubeconfig");
    let crd_file = dir.path().join("crd.yaml");
    std::fs::write(&crd_file, serde_json::to_string(&widget_crd()).expect("JSON")).expect("write the definition");
    let widget_file = dir.path().join("widget.yaml");
    let widget =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: small\n  namespace: default\nspec:\n  size: 2\n";
    std::fs::write(&widget_file, widget).expect("write the widget");
    let kubeconfig_arg = format!("--kubeconfig={}", kubeconfig.display());
    let cache_arg = format!("--cache-dir={}", dir.path().join("cache").display());
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&kubectl)
            .args([kubeconfig_arg.as_str(), cache_arg.as_str()])
            .args(args)
            .output()
            .expect("kubectl runs");
        assert!(out.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("UTF-8 output")
    };
    let applied = run(&["apply", "-f", &crd_file.display().to_string()]);
    assert_eq!(applied, "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n");
    let applied = run(&["apply", "-f", &widget_file.display().to_string()]);
    assert_eq!(applied, "widget.example.com/small created\n");
    let listed = run(&["get", "widgets"]);
    assert!(listed.starts_with("NAME    AGE\nsmall   "), "{listed}");
    assert_eq!(run(&["get", "wd", "-o", "name"]), "widget.example.com/small\n");
    let explained = run(&["explain", "widgets.spec"]);
    assert!(explained.contains("size\t<integer>"), "{explained}");
    let resources = run(&["api-resources", "--api-group=example.com", "--no-headers"]);
    let columns: Vec<&str> = resources.split_whitespace().collect();
    assert_eq!(columns, ["widgets", "wd", "example.com/v1", "true", "Widget"], "{resources}");
    local.stop().await.expect("a clean stop");
}

/// Two definitions in one YAML manifest, installed before the server serves, and one
/// more as JSON once it serves on a port.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definitions_install_from_yaml_before_start_and_from_json_after() {
    let server = server();
    let manifest = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: sprockets, kind: Sprocket}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";
    let installed = server.store().install_crds(manifest).await.expect("install");
    let names: Vec<&str> = installed.iter().filter_map(|d| d["metadata"]["name"].as_str()).collect();
    assert_eq!(names, ["gadgets.example.com", "sprockets.example.com"]);
    let refused = server.store().install_crds(manifest).await.expect_err("installed already");
    assert_eq!(refused.code(), 409);

    let local = server.spawn_local().await.expect("a loopback port");
    local.store().install_crd(widget_crd()).await.expect("install once serving");
    let gadgets = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("example.com", "v1", "Gadget"), "gadgets");
    let gadgets: Api<DynamicObject> = Api::all_with(local.client(), &gadgets);
    let gadget: DynamicObject = serde_json::from_value(
        json!({ "apiVersion": "example.com/v1", "kind": "Gadget", "metadata": { "name": "g" } }),
    )
    .expect("a Gadget");
    gadgets.create(&PostParams::default(), &gadget).await.expect("create a cluster-scoped object");
    widgets(local.client(), "default").create(&PostParams::default(), &widget("w", 1)).await.expect("create");
    local.stop().await.expect("a clean stop");
}

/// The message and causes (`field: message`) of a 422.
fn invalid(error: kube::Error) -> String {
    let kube::Error::Api(status) = error else { panic!("expected an API error, got {error:?}") };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"), "{status:?}");
    status.message
}

#[tokio::test]
async fn custom_resources_are_pruned_defaulted_and_checked_with_the_schema() {
    let server = with_widgets().await;
    let api = widgets(server.client(), "default");
    let mut sent = widget("a", 3);
    sent.data["spec"]["color"] = json!("red");
    sent.data["extra"] = json!(true);
    let created = api.create(&PostParams::default(), &sent).await.expect("create");
    assert_eq!(created.data["spec"], json!({ "size": 3, "mode": "Fast" }), "unknown fields pruned, defaults set");
    assert!(created.data.get("extra").is_none(), "{created:?}");

    let error = api.create(&PostParams::default(), &widget("b", 0)).await.expect_err("below the minimum");
    assert_eq!(
        invalid(error),
        r#"Widget.example.com "b" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"#
    );
    let error = api.create(&PostParams::default(), &widget("b", 11)).await.expect_err("a CEL rule fails");
    assert_eq!(invalid(error), r#"Widget.example.com "b" is invalid: spec: Invalid value: "object": at most 10"#);

    let patch = Patch::Merge(json!({ "spec": { "mode": "Slow" } }));
    let error = api.patch("a", &PatchParams::default(), &patch).await.expect_err("a transition rule fails");
    assert_eq!(
        invalid(error),
        r#"Widget.example.com "a" is invalid: spec.mode: Invalid value: "string": mode is immutable"#
    );
}

#[tokio::test]
async fn strict_field_validation_names_the_unknown_fields() {
    let server = with_widgets().await;
    let mut sent = widget("a", 3);
    sent.data["spec"]["color"] = json!("red");
    let request = kube_apigen::axum::http::Request::post(
        "/apis/example.com/v1/namespaces/default/widgets?fieldValidation=Strict",
    )
    .header("content-type", "application/json")
    .body(serde_json::to_vec(&sent).expect("JSON"))
    .expect("a request");
    let error = server.client().request::<Value>(request).await.expect_err("strict");
    let kube::Error::Api(status) = error else { panic!("expected an API error, got {error:?}") };
    assert_eq!(
        (status.code, status.message.as_str()),
        (
            400,
            r#"Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.color""#
        )
    );

    let api = widgets(server.client(), "default");
    api.create(&PostParams::default(), &widget("a", 3)).await.expect("create");
    let params =
        PatchParams { field_validation: Some(kube::api::ValidationDirective::Strict), ..PatchParams::default() };
    let patch = Patch::Merge(json!({ "spec": { "color": "red" } }));
    let error = api.patch("a", &params, &patch).await.expect_err("strict patch");
    let kube::Error::Api(status) = error else { panic!("expected an API error, got {error:?}") };
    assert_eq!(status.code, 422, "{status:?}");
    assert!(status.message.ends_with(r#": strict decoding error: unknown field "spec.color""#), "{}", status.message);
}

#[tokio::test]
async fn a_scale_subresource_reads_and_writes_the_paths_the_definition_names() {
    let server = server();
    let mut definition = widget_crd();
    definition["spec"]["versions"][0]["subresources"]["scale"] =
        json!({ "specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size" });
    server.store().install_crd(definition).await.expect("install");
    let api = widgets(server.client(), "default");
    api.create(&PostParams::default(), &widget("a", 3)).await.expect("create");
    let scale = api.get_scale("a").await.expect("get scale");
    assert_eq!(scale.spec.and_then(|spec| spec.replicas), Some(3));
    let patch = Patch::Merge(json!({ "spec": { "replicas": 5 } }));
    api.patch_scale("a", &PatchParams::default(), &patch).await.expect("patch scale");
    assert_eq!(api.get("a").await.expect("get").data["spec"]["size"], 5);
}
