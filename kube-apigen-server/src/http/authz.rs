//! Authorization: what a request asks to do ([`Attributes`], read from its method, path
//! and query as the API server's `RequestInfoFactory` reads them), who decides
//! ([`Authorizer`]), and the gate that authenticates and authorizes every request
//! before anything else ([`admit`], [`guard`]).

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{Method, Uri};
use axum::middleware::{Next, from_fn};
use futures::future::BoxFuture;

use super::call::status_response;
use super::negotiate;
use super::query::{Query, parse_bool};
use super::{Authenticator, Config, UserInfo, accept};
use crate::auth::effective_user;
use kube_apigen_core::go::fmt::quote;
use kube_apigen_core::{Status, Verb};

/// What a request asks to do, as Kubernetes' authorizers see it (`authorizer.Attributes`).
///
/// A resource request (`/api/v1/...`, `/apis/<group>/<version>/...` with at least a
/// resource) has a resource, and maybe a namespace, a name and a subresource; any other
/// request is a non-resource request, known by its path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// Who asks: the authenticated user, or `system:anonymous`.
    pub user: UserInfo,
    /// The verb: for resource requests `get`, `list`, `watch`, `create`, `update`,
    /// `patch`, `delete`, `deletecollection` (or another a client names); for
    /// non-resource requests the HTTP method in lower case (`get`, `post`, ...).
    pub verb: String,
    /// Whether the request addresses a resource (rather than a path).
    pub resource_request: bool,
    /// The request's path.
    pub path: String,
    /// The API group; empty for the core group.
    pub api_group: String,
    /// The API version.
    pub api_version: String,
    /// The resource, by its plural: `horizontalpodautoscalers`.
    pub resource: String,
    /// The subresource: `status`, `scale`, ...; empty for the object itself.
    pub subresource: String,
    /// The namespace; empty for cluster-scoped resources and requests across namespaces.
    pub namespace: String,
    /// The object's name; empty for collections (a list or watch with a
    /// `metadata.name=<name>` field selector names it, as in the API server).
    pub name: String,
}

impl Attributes {
    /// The attributes of a request with `method` on `uri` by `user`, as the API server's
    /// `RequestInfoFactory` reads them: `/api/<version>/...` (the core group) and
    /// `/apis/<group>/<version>/...` are resource requests when they name a resource;
    /// `/namespaces/<ns>/<resource>` sets the namespace (`/namespaces/<ns>` alone, and
    /// its `status` and `finalize`, are the namespace itself); a `/watch/` segment after
    /// the version makes the verb `watch`; a `GET` without a name is `list`, or `watch`
    /// with `watch=true`; a `DELETE` without a name is `deletecollection`.
    pub fn of_request(user: UserInfo, method: &Method, uri: &Uri) -> Self {
        let path = uri.path();
        let mut attributes = Attributes { user, path: path.to_owned(), ..Default::default() };
        let parts: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
        let method_verb = || method.as_str().to_ascii_lowercase();
        let mut rest: &[&str] = match parts.as_slice() {
            ["api", version, rest @ ..] if !rest.is_empty() => {
                attributes.api_version = (*version).to_owned();
                rest
            }
            ["apis", group, version, rest @ ..] if !rest.is_empty() => {
                attributes.api_group = (*group).to_owned();
                attributes.api_version = (*version).to_owned();
                rest
            }
            _ => {
                attributes.verb = method_verb();
                return attributes;
            }
        };
        attributes.resource_request = true;
        if rest[0] == "watch" || rest[0] == "proxy" {
            if rest.len() < 2 {
                // The API server cannot place such a request; it authorizes it as a path.
                attributes = Attributes { user: attributes.user, path: attributes.path, ..Default::default() };
                attributes.verb = method_verb();
                return attributes;
            }
            attributes.verb = rest[0].to_owned();
            rest = &rest[1..];
        } else {
            attributes.verb = match *method {
                Method::POST => Verb::Create.as_str(),
                Method::GET | Method::HEAD => Verb::Get.as_str(),
                Method::PUT => Verb::Update.as_str(),
                Method::PATCH => Verb::Patch.as_str(),
                Method::DELETE => Verb::Delete.as_str(),
                _ => "",
            }
            .to_owned();
        }
        if rest[0] == "namespaces"
            && let Some(namespace) = rest.get(1)
        {
            attributes.namespace = (*namespace).to_owned();
            if rest.len() > 2 && rest[2] != "status" && rest[2] != "finalize" {
                rest = &rest[2..];
            }
        }
        attributes.resource = rest[0].to_owned();
        if let Some(name) = rest.get(1) {
            attributes.name = (*name).to_owned();
        }
        if let Some(subresource) = rest.get(2).filter(|_| attributes.verb != "proxy") {
            attributes.subresource = (*subresource).to_owned();
        }
        let query = Query::parse(uri.query().unwrap_or(""));
        if attributes.name.is_empty() && attributes.verb == Verb::Get.as_str() {
            let watch = query.get("watch").is_some_and(parse_bool);
            attributes.verb = if watch { Verb::Watch } else { Verb::List }.as_str().to_owned();
            if let Some(name) = query.get("fieldSelector").and_then(exact_name) {
                attributes.name = name.to_owned();
            }
        }
        if attributes.name.is_empty() && attributes.verb == Verb::Delete.as_str() {
            attributes.verb = Verb::DeleteCollection.as_str().to_owned();
        }
        attributes
    }

    /// The resource with its subresource, as RBAC rules name it: `pods/log`.
    pub fn resource_and_subresource(&self) -> String {
        if self.subresource.is_empty() {
            self.resource.clone()
        } else {
            format!("{}/{}", self.resource, self.subresource)
        }
    }
}

/// The name a field selector requires exactly, when it is one `metadata.name=<name>` (or
/// `==`) term and the name is a valid path segment.
fn exact_name(selector: &str) -> Option<&str> {
    let name = selector.strip_prefix("metadata.name")?;
    let name = name.strip_prefix("==").or_else(|| name.strip_prefix('='))?;
    let invalid = name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '%', ',', '\\', '!', '='])
        || name.contains(char::is_whitespace);
    (!invalid).then_some(name)
}

/// What an [`Authorizer`] decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The request may proceed; later authorizers are not asked.
    Allow,
    /// The request is refused; later authorizers are not asked.
    Deny,
    /// This authorizer has no say; the next one decides, and the request is refused when
    /// none allows it.
    NoOpinion,
}

/// A [`Decision`], with why (the API server appends a non-empty reason to its 403
/// message: `... in the namespace "team-a": RBAC: role.rbac.authorization.k8s.io "x" not
/// found`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authorization {
    /// The decision.
    pub decision: Decision,
    /// Why; may be empty.
    pub reason: String,
}

impl Authorization {
    /// Allowed, for `reason`.
    pub fn allow(reason: impl Into<String>) -> Self {
        Authorization { decision: Decision::Allow, reason: reason.into() }
    }

    /// Denied, for `reason`.
    pub fn deny(reason: impl Into<String>) -> Self {
        Authorization { decision: Decision::Deny, reason: reason.into() }
    }

    /// No opinion, for `reason` (often empty).
    pub fn no_opinion(reason: impl Into<String>) -> Self {
        Authorization { decision: Decision::NoOpinion, reason: reason.into() }
    }
}

/// Decides whether a request may proceed, from its [`Attributes`]; asked after
/// authentication, before anything else is read (`authorizer.Authorizer`).
///
/// Implement it for a policy of your own; `kube-apigen-registry` implements RBAC with it.
/// Several are asked in order with [`Chain`].
pub trait Authorizer: Send + Sync + 'static {
    /// The decision on `attributes`.
    fn authorize<'a>(&'a self, attributes: &'a Attributes) -> BoxFuture<'a, Authorization>;

    /// What `user` may do in `namespace` (`""`: cluster-wide rules only), as far as this
    /// authorizer can tell (`authorizer.RuleResolver`; what a `SelfSubjectRulesReview`
    /// answers). By default nothing, and incomplete.
    fn rules_for<'a>(&'a self, user: &'a UserInfo, namespace: &'a str) -> BoxFuture<'a, Rules> {
        let _ = (user, namespace);
        Box::pin(std::future::ready(Rules { incomplete: true, ..Rules::default() }))
    }
}

/// The rules an [`Authorizer`] grants a user ([`Authorizer::rules_for`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Rules on resources.
    pub resource_rules: Vec<ResourceRule>,
    /// Rules on paths.
    pub non_resource_rules: Vec<NonResourceRule>,
    /// Whether there may be more than these (an authorizer that cannot list its rules).
    pub incomplete: bool,
    /// Errors met on the way, e.g. a binding to a missing role.
    pub errors: Vec<String>,
}

/// Verbs on resources: a rule of [`Rules`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceRule {
    /// The verbs; `*` is every verb.
    pub verbs: Vec<String>,
    /// The API groups; `*` is every group.
    pub api_groups: Vec<String>,
    /// The resources (`resource/subresource`, `*/subresource`); `*` is every resource.
    pub resources: Vec<String>,
    /// When not empty, only the objects of these names.
    pub resource_names: Vec<String>,
}

/// Verbs on paths: a rule of [`Rules`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NonResourceRule {
    /// The verbs; `*` is every verb.
    pub verbs: Vec<String>,
    /// The paths; a trailing `*` is a prefix, `*` every path.
    pub non_resource_urls: Vec<String>,
}

/// Allows everything (`--authorization-mode=AlwaysAllow`, the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct AlwaysAllow;

impl Authorizer for AlwaysAllow {
    fn authorize<'a>(&'a self, _: &'a Attributes) -> BoxFuture<'a, Authorization> {
        Box::pin(std::future::ready(Authorization::allow("")))
    }

    fn rules_for<'a>(&'a self, _: &'a UserInfo, _: &'a str) -> BoxFuture<'a, Rules> {
        let all = || vec!["*".to_owned()];
        Box::pin(std::future::ready(Rules {
            resource_rules: vec![ResourceRule {
                verbs: all(),
                api_groups: all(),
                resources: all(),
                resource_names: vec![],
            }],
            non_resource_rules: vec![NonResourceRule { verbs: all(), non_resource_urls: all() }],
            incomplete: false,
            errors: vec![],
        }))
    }
}

/// Asks each authorizer in order; the first that allows or denies decides. Reasons of
/// those without an opinion are joined with `", "`, as the API server's union authorizer
/// joins them.
#[derive(Clone, Default)]
pub struct Chain(pub Vec<Arc<dyn Authorizer>>);

impl Authorizer for Chain {
    fn authorize<'a>(&'a self, attributes: &'a Attributes) -> BoxFuture<'a, Authorization> {
        Box::pin(async move {
            let mut reasons = Vec::new();
            for authorizer in &self.0 {
                let answer = authorizer.authorize(attributes).await;
                if answer.decision != Decision::NoOpinion {
                    return answer;
                }
                if !answer.reason.is_empty() {
                    reasons.push(answer.reason);
                }
            }
            Authorization::no_opinion(reasons.join(", "))
        })
    }

    /// Every authorizer's rules; incomplete when one's are.
    fn rules_for<'a>(&'a self, user: &'a UserInfo, namespace: &'a str) -> BoxFuture<'a, Rules> {
        Box::pin(async move {
            let mut all = Rules::default();
            for authorizer in &self.0 {
                let rules = authorizer.rules_for(user, namespace).await;
                all.resource_rules.extend(rules.resource_rules);
                all.non_resource_rules.extend(rules.non_resource_rules);
                all.incomplete |= rules.incomplete;
                all.errors.extend(rules.errors);
            }
            all
        })
    }
}

/// The API server's 403 for a request it does not authorize, with `reason` appended
/// when not empty:
///
/// - `<resource>[.<group>] ["<name>"] is forbidden: User "<user>" cannot <verb> resource
///   "<resource>[/<subresource>]" in API group "<group>" in the namespace "<ns>"` (or
///   `at the cluster scope`);
/// - `forbidden: User "<user>" cannot <verb> path "<path>"`.
pub fn forbidden(attributes: &Attributes, reason: &str) -> Status {
    let user = quote(&attributes.user.username);
    let verb = &attributes.verb;
    let message = if !attributes.resource_request {
        format!("User {user} cannot {verb} path {}", quote(&attributes.path))
    } else {
        let resource = quote(&attributes.resource_and_subresource());
        let group = quote(&attributes.api_group);
        let scope = match attributes.namespace.as_str() {
            "" => "at the cluster scope".to_owned(),
            namespace => format!("in the namespace {}", quote(namespace)),
        };
        format!("User {user} cannot {verb} resource {resource} in API group {group} {scope}")
    };
    // Nothing in the message may read as HTML.
    let message = message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let detail = if reason.is_empty() { message } else { format!("{message}: {reason}") };
    Status::forbidden(&attributes.api_group, &attributes.resource, &attributes.name, detail)
}

/// Who a request was admitted as: the extension [`admit`] leaves on a request, so that
/// a request goes through the gate once however many routers it passes.
#[derive(Clone, Debug)]
pub struct Admitted {
    /// The authenticated user; `None` when anonymous.
    pub user: Option<UserInfo>,
}

/// Authenticates the request with `authenticator` (401; a panic is 500), applies its
/// impersonation headers, each authorized (`kubectl --as`; 403), and authorizes it with
/// `authorizer` as the user it acts as (403 [`forbidden`]), in the API server's order. The first call on
/// a request decides and records [`Admitted`] in its extensions; later calls answer the
/// same.
pub async fn admit(
    parts: &mut Parts,
    authenticator: &dyn Authenticator,
    authorizer: &dyn Authorizer,
) -> Result<Option<UserInfo>, Status> {
    if let Some(admitted) = parts.extensions.get::<Admitted>() {
        return Ok(admitted.user.clone());
    }
    let authenticated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        authenticator.authenticate(&parts.headers, &parts.extensions)
    }));
    let user = authenticated.map_err(|_| Status::internal_error(super::call::PANIC_MESSAGE))??;
    let request_uri = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let acting =
        super::impersonate::impersonate(&parts.headers, request_uri, effective_user(user.as_ref()), authorizer).await?;
    // Without impersonation, an anonymous request stays anonymous (`None`).
    let user = if user.is_none() && acting == effective_user(None) { None } else { Some(acting.clone()) };
    let attributes = Attributes::of_request(acting, &parts.method, &parts.uri);
    let answer = authorizer.authorize(&attributes).await;
    if answer.decision != Decision::Allow {
        return Err(forbidden(&attributes, &answer.reason));
    }
    parts.extensions.insert(Admitted { user: user.clone() });
    Ok(user)
}

/// `router` behind the gate: every request is admitted ([`admit`]) before any route sees
/// it, so that discovery, the OpenAPI documents and paths no route serves are
/// authenticated and authorized as resources are. Generated routers apply it; a server
/// that serves more paths beside one applies it around everything.
pub fn guard(router: Router, config: Arc<Config>) -> Router {
    router.layer(from_fn(move |request: Request, next: Next| {
        let config = Arc::clone(&config);
        async move {
            let (mut parts, body) = request.into_parts();
            match admit(&mut parts, &*config.authenticator, &*config.authorizer).await {
                Ok(_) => next.run(Request::from_parts(parts, body)).await,
                Err(status) => {
                    let format = negotiate::negotiate(accept::header(&parts.headers)).error_format;
                    status_response(&status, format)
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attributes(method: Method, uri: &str) -> Attributes {
        let user = UserInfo { username: "alice".into(), ..Default::default() };
        Attributes::of_request(user, &method, &uri.parse().unwrap())
    }

    fn summary(a: &Attributes) -> String {
        if !a.resource_request {
            return format!("{} path {}", a.verb, a.path);
        }
        format!(
            "{} {}/{} {} ns={} name={} sub={}",
            a.verb, a.api_group, a.api_version, a.resource, a.namespace, a.name, a.subresource
        )
    }

    #[test]
    fn verbs_and_resources_as_the_api_server_reads_them() {
        let cases = [
            (Method::GET, "/api/v1/namespaces/team-a/configmaps", "list /v1 configmaps ns=team-a name= sub="),
            (
                Method::GET,
                "/api/v1/namespaces/team-a/configmaps?watch=true",
                "watch /v1 configmaps ns=team-a name= sub=",
            ),
            (Method::GET, "/api/v1/namespaces/team-a/configmaps?watch=0", "list /v1 configmaps ns=team-a name= sub="),
            (Method::GET, "/api/v1/watch/namespaces/team-a/configmaps", "watch /v1 configmaps ns=team-a name= sub="),
            (
                Method::GET,
                "/api/v1/namespaces/team-a/configmaps?fieldSelector=metadata.name%3Dweb",
                "list /v1 configmaps ns=team-a name=web sub=",
            ),
            (
                Method::GET,
                "/apis/autoscaling/v2/horizontalpodautoscalers",
                "list autoscaling/v2 horizontalpodautoscalers ns= name= sub=",
            ),
            (
                Method::POST,
                "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers",
                "create autoscaling/v2 horizontalpodautoscalers ns=a name= sub=",
            ),
            (
                Method::DELETE,
                "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers",
                "deletecollection autoscaling/v2 horizontalpodautoscalers ns=a name= sub=",
            ),
            (
                Method::DELETE,
                "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers/web",
                "delete autoscaling/v2 horizontalpodautoscalers ns=a name=web sub=",
            ),
            (
                Method::PATCH,
                "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers/web/status",
                "patch autoscaling/v2 horizontalpodautoscalers ns=a name=web sub=status",
            ),
            (
                Method::PUT,
                "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval",
                "update certificates.k8s.io/v1 certificatesigningrequests ns= name=c sub=approval",
            ),
            (Method::GET, "/api/v1/namespaces/a", "get /v1 namespaces ns=a name=a sub="),
            (Method::PUT, "/api/v1/namespaces/a/finalize", "update /v1 namespaces ns=a name=a sub=finalize"),
            (Method::GET, "/apis/autoscaling/v2", "get path /apis/autoscaling/v2"),
            (Method::GET, "/api/v1", "get path /api/v1"),
            (Method::GET, "/apis", "get path /apis"),
            (Method::POST, "/healthz", "post path /healthz"),
            (Method::GET, "/openapi/v3/apis/autoscaling/v2", "get path /openapi/v3/apis/autoscaling/v2"),
        ];
        for (method, uri, expected) in cases {
            assert_eq!(summary(&attributes(method, uri)), expected, "{uri}");
        }
    }

    #[test]
    fn forbidden_messages_are_the_api_servers() {
        let status = forbidden(&attributes(Method::GET, "/api/v1/namespaces/team-a/configmaps"), "");
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-a""#
            )
        );
        let status = forbidden(
            &attributes(Method::PUT, "/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval"),
            "RBAC: nope",
        );
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"certificatesigningrequests.certificates.k8s.io "c" is forbidden: User "alice" cannot update resource "certificatesigningrequests/approval" in API group "certificates.k8s.io" at the cluster scope: RBAC: nope"#
            )
        );
        assert_eq!(status.code(), 403);
        let status = forbidden(&attributes(Method::GET, "/healthz/a&b"), "");
        assert_eq!(status.message.as_deref(), Some(r#"forbidden: User "alice" cannot get path "/healthz/a&amp;b""#));
    }
}
