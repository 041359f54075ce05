//! A kube-rs controller tested on the in-process server, as a controller author would
//! write one: a kind of its own (kube-derive's `CustomResource`), its definition installed
//! at run time from `Greeting::crd()`, a `kube::runtime::Controller` that owns a
//! ConfigMap per Greeting, keeps a finalizer and records events.k8s.io/v1 Events with
//! kube-runtime's `Recorder`, and the lifecycle it relies on (owned objects
//! garbage-collected, namespaces emptied when deleted).
//!
//! Nothing here is the project's own type: the controller speaks k8s-openapi and its
//! derived kind, and the server is the reference server built in the test.

mod harness;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, ResourceExt};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::watcher;
use kube::{CustomResource, CustomResourceExt, Resource};
use kube_apigen_registry::Server;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::mpsc;

use harness::eventually;

/// A greeting the controller publishes as a ConfigMap.
#[derive(CustomResource, Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Greeting", namespaced, status = "GreetingStatus")]
pub struct GreetingSpec {
    /// The text to publish.
    message: String,
}

/// What the controller reports.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GreetingStatus {
    /// The ConfigMap holding the message.
    config_map: Option<String>,
}

/// The finalizer the controller keeps on every Greeting.
const CLEANUP: &str = "example.com/cleanup";

/// The finalizer the test puts on a ConfigMap to hold a namespace while it terminates.
const HOLD: &str = "example.com/hold";

/// The field manager of the controller's writes.
const MANAGER: &str = "greeting-controller";

struct Context {
    client: kube::Client,
    /// Publishes events.k8s.io/v1 Events about the Greetings.
    recorder: Recorder,
    /// Tells the test whose cleanup ran.
    cleaned: mpsc::UnboundedSender<String>,
}

/// Publishes the greeting as `greeting-<name>`, owned by the Greeting, and says so in its
/// status; on deletion, reports the cleanup.
async fn reconcile(greeting: Arc<Greeting>, context: Arc<Context>) -> Result<Action, finalizer::Error<kube::Error>> {
    let namespace = greeting.namespace().expect("Greetings are namespaced");
    let greetings: Api<Greeting> = Api::namespaced(context.client.clone(), &namespace);
    let config_maps: Api<ConfigMap> = Api::namespaced(context.client.clone(), &namespace);
    finalizer(&greetings.clone(), CLEANUP, greeting, |event| async move {
        match event {
            finalizer::Event::Apply(greeting) => {
                let name = format!("greeting-{}", greeting.name_any());
                let owned = ConfigMap {
                    metadata: kube::api::ObjectMeta {
                        name: Some(name.clone()),
                        owner_references: greeting.controller_owner_ref(&()).map(|owner| vec![owner]),
                        ..Default::default()
                    },
                    data: Some(BTreeMap::from([("message".to_owned(), greeting.spec.message.clone())])),
                    ..Default::default()
                };
                let apply = PatchParams::apply(MANAGER).force();
                config_maps.patch(&name, &apply, &Patch::Apply(owned)).await?;
                let status = json!({"status": {"configMap": name}});
                greetings.patch_status(&greeting.name_any(), &PatchParams::default(), &Patch::Merge(status)).await?;
                let published = Event {
                    type_: EventType::Normal,
                    reason: "Published".to_owned(),
                    note: Some(format!("published as {name}")),
                    action: "Publish".to_owned(),
                    secondary: None,
                };
                context.recorder.publish(&published, &greeting.object_ref(&())).await?;
                Ok(Action::await_change())
            }
            finalizer::Event::Cleanup(greeting) => {
                context.cleaned.send(greeting.name_any()).expect("the test listens");
                Ok(Action::await_change())
            }
        }
    })
    .await
}

/// Says what failed (a failing test shows it) and tries again soon.
fn retry_soon(greeting: Arc<Greeting>, error: &finalizer::Error<kube::Error>, _: Arc<Context>) -> Action {
    eprintln!("reconciling Greeting {} failed: {error}", greeting.name_any());
    Action::requeue(Duration::from_millis(50))
}

/// A reference server in process with the Greeting definition installed, the namespace
/// `greetings` created, and the controller running on it.
async fn setup() -> (Server, mpsc::UnboundedReceiver<String>, tokio::task::JoinHandle<()>) {
    let server = apiserver::builder().build().expect("the reference server builds");
    let definition = serde_json::to_value(Greeting::crd()).expect("the definition as JSON");
    server.store().install_crd(definition).await.expect("the definition is accepted");
    let client = server.client();
    let namespace = Namespace {
        metadata: kube::api::ObjectMeta { name: Some("greetings".to_owned()), ..Default::default() },
        ..Default::default()
    };
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("create the namespace");
    let (cleaned, cleanups) = mpsc::unbounded_channel();
    let recorder = Recorder::new(client.clone(), Reporter { controller: MANAGER.to_owned(), instance: None });
    let context = Arc::new(Context { client: client.clone(), recorder, cleaned });
    let controller = Controller::new(Api::<Greeting>::all(client.clone()), watcher::Config::default())
        .owns(Api::<ConfigMap>::all(client), watcher::Config::default())
        .run(reconcile, retry_soon, context)
        .for_each(|_| async {});
    (server, cleanups, tokio::spawn(controller))
}

fn greeting(name: &str, message: &str) -> Greeting {
    let mut greeting = Greeting::new(name, GreetingSpec { message: message.to_owned() });
    greeting.meta_mut().namespace = Some("greetings".to_owned());
    greeting
}

#[tokio::test]
async fn the_controller_publishes_updates_and_cleans_up_its_greetings() {
    let (server, mut cleanups, controller) = setup().await;
    let greetings: Api<Greeting> = Api::namespaced(server.client(), "greetings");
    let config_maps: Api<ConfigMap> = Api::namespaced(server.client(), "greetings");

    let created = greetings.create(&PostParams::default(), &greeting("hello", "Hello, world")).await.expect("create");
    let message = |expected: &'static str| {
        let config_maps = config_maps.clone();
        move || {
            let config_maps = config_maps.clone();
            async move {
                let config_map = config_maps.get_opt("greeting-hello").await.expect("get the ConfigMap")?;
                let data = config_map.data.clone().unwrap_or_default();
                (data.get("message").map(String::as_str) == Some(expected)).then_some(config_map)
            }
        }
    };
    let published = eventually("the published ConfigMap", message("Hello, world")).await;
    let owner = published.owner_references().first().cloned().expect("an owner");
    assert_eq!((owner.uid, owner.kind.as_str(), owner.controller), (created.uid().unwrap(), "Greeting", Some(true)));
    let reconciled = eventually("the status", || async {
        let greeting = greetings.get("hello").await.expect("get");
        greeting.status.as_ref()?.config_map.as_ref()?;
        Some(greeting)
    })
    .await;
    assert_eq!(reconciled.finalizers(), [CLEANUP]);
    assert_eq!(reconciled.status.and_then(|s| s.config_map).as_deref(), Some("greeting-hello"));
    let events: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(server.client(), "greetings");
    let recorded = eventually("the recorded event", || async {
        let items = events.list(&Default::default()).await.expect("list the events").items;
        items.into_iter().find(|event| event.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("hello"))
    })
    .await;
    assert_eq!(
        (recorded.reason.as_deref(), recorded.action.as_deref(), recorded.reporting_controller.as_deref()),
        (Some("Published"), Some("Publish"), Some(MANAGER)),
        "{recorded:?}"
    );

    let edit = json!({"spec": {"message": "Hello again"}});
    greetings.patch("hello", &PatchParams::default(), &Patch::Merge(edit)).await.expect("edit the greeting");
    eventually("the ConfigMap following the edit", message("Hello again")).await;

    greetings.delete("hello", &DeleteParams::default()).await.expect("delete");
    let cleanup = tokio::time::timeout(Duration::from_secs(10), cleanups.recv()).await;
    assert_eq!(cleanup.expect("the cleanup within 10 s").as_deref(), Some("hello"));
    eventually("the Greeting's deletion", || async {
        greetings.get_opt("hello").await.expect("get").is_none().then_some(())
    })
    .await;
    eventually("the ConfigMap's garbage collection", || async {
        config_maps.get_opt("greeting-hello").await.expect("get").is_none().then_some(())
    })
    .await;
    controller.abort();
}

#[tokio::test]
async fn deleting_the_namespace_runs_the_cleanup_and_empties_it() {
    let (server, mut cleanups, controller) = setup().await;
    let greetings: Api<Greeting> = Api::namespaced(server.client(), "greetings");
    let config_maps: Api<ConfigMap> = Api::namespaced(server.client(), "greetings");
    let namespaces: Api<Namespace> = Api::all(server.client());
    greetings.create(&PostParams::default(), &greeting("bye", "Goodbye")).await.expect("create");
    eventually("the published ConfigMap", || async { config_maps.get_opt("greeting-bye").await.expect("get") }).await;
    // A ConfigMap whose finalizer the test holds keeps the namespace terminating until
    // the test lets it go.
    let held = ConfigMap {
        metadata: kube::api::ObjectMeta {
            name: Some("held".to_owned()),
            finalizers: Some(vec![HOLD.to_owned()]),
            ..Default::default()
        },
        ..Default::default()
    };
    config_maps.create(&PostParams::default(), &held).await.expect("create the held ConfigMap");

    namespaces.delete("greetings", &DeleteParams::default()).await.expect("delete the namespace");
    let terminating = namespaces.get("greetings").await.expect("the namespace waits for its content");
    let phase = terminating.status.and_then(|status| status.phase);
    assert_eq!(phase.as_deref(), Some("Terminating"));
    let late = ConfigMap {
        metadata: kube::api::ObjectMeta { name: Some("late".to_owned()), ..Default::default() },
        ..Default::default()
    };
    let refused = config_maps.create(&PostParams::default(), &late).await;
    let Err(kube::Error::Api(status)) = refused else { panic!("a create in a terminating namespace") };
    assert_eq!(
        (status.code, status.reason.as_str(), status.message.as_str()),
        (
            403,
            "Forbidden",
            "configmaps \"late\" is forbidden: unable to create new content in namespace greetings because it is being terminated"
        )
    );

    let cleanup = tokio::time::timeout(Duration::from_secs(10), cleanups.recv()).await;
    assert_eq!(cleanup.expect("the cleanup within 10 s").as_deref(), Some("bye"));
    eventually("the Greeting's deletion", || async {
        greetings.get_opt("bye").await.expect("get").is_none().then_some(())
    })
    .await;
    // What is left shows in the namespace's conditions, in kube-controller-manager's words.
    let remaining = || async {
        let namespace = namespaces.get("greetings").await.expect("the held ConfigMap keeps the namespace");
        let conditions = namespace.status?.conditions?;
        let said = |type_: &str| {
            conditions
                .iter()
                .find(|c| c.type_ == type_)
                .map(|c| (c.status.clone(), c.reason.clone(), c.message.clone()))
        };
        let held = (said("NamespaceContentRemaining")?, said("NamespaceFinalizersRemaining")?);
        (held.0.1.as_deref() == Some("SomeResourcesRemain")
            && held.0.2.as_deref().is_some_and(|m| !m.contains("greetings")))
        .then_some(held)
    };
    let (content, finalizers) = eventually("the conditions of what is left", remaining).await;
    assert_eq!(
        (content.0.as_str(), content.2.as_deref()),
        ("True", Some("Some resources are remaining: configmaps. has 1 resource instances"))
    );
    assert_eq!(
        (finalizers.0.as_str(), finalizers.1.as_deref(), finalizers.2.as_deref()),
        (
            "True",
            Some("SomeFinalizersRemain"),
            Some("Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances")
        )
    );
    let release = json!({"metadata": {"finalizers": null}});
    config_maps.patch("held", &PatchParams::default(), &Patch::Merge(release)).await.expect("release the ConfigMap");
    eventually("the namespace's deletion", || async {
        namespaces.get_opt("greetings").await.expect("get").is_none().then_some(())
    })
    .await;
    assert!(config_maps.get_opt("greeting-bye").await.expect("get").is_none(), "the ConfigMap went with its namespace");
    let missing = greetings.create(&PostParams::default(), &greeting("again", "Hello")).await;
    let Err(kube::Error::Api(status)) = missing else { panic!("a create in a missing namespace") };
    assert_eq!((status.code, status.message.as_str()), (404, "namespaces \"greetings\" not found"));
    controller.abort();
}
