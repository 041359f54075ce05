//! The reviews of `authorization.k8s.io/v1`, answered by the server's authorizer and never
//! stored, as kube-apiserver answers them (`kubectl auth can-i` sends them):
//!
//! - `SelfSubjectAccessReview`: may the caller do this?
//! - `SubjectAccessReview`: may this user (or these groups) do this?
//! - `LocalSubjectAccessReview`: the same, within the namespace of the request;
//! - `SelfSubjectRulesReview`: what may the caller do in a namespace
//!   ([`kube_apigen::http::Authorizer::rules_for`]; `kubectl auth can-i --list`);
//!
//! and `authentication.k8s.io/v1`'s `SelfSubjectReview`: who is the caller (`kubectl auth
//! whoami`).
//!
//! An access review asks about exactly one of `spec.resourceAttributes` and
//! `spec.nonResourceAttributes`; its answer is `status.allowed`, `status.denied` (when an
//! authorizer refused outright) and `status.reason`.

use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use kube_apigen::Status;
use kube_apigen::field::{ErrorList, FieldError, Path};
use kube_apigen::http::{Attributes, Authorizer, Decision, UserInfo};
use serde_json::{Value, json};

use crate::StoreConfig;
use crate::strategy::{Answer, Strategy, WriteContext};

/// The API group of the access and rules reviews.
pub const GROUP: &str = "authorization.k8s.io";
/// The API group of `SelfSubjectReview`.
pub const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";

/// The server's authorizer, known once the server is built (it may read the store the
/// reviews are registered in).
pub(crate) type SharedAuthorizer = Arc<OnceLock<Arc<dyn Authorizer>>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    SelfSubject,
    Subject,
    Local,
    Rules,
    Whoami,
}

/// The strategy of one review resource.
struct Review {
    kind: Kind,
    authorizer: SharedAuthorizer,
}

/// Registers the strategy of every review `config`'s catalog serves (and no strategy was
/// registered for); they answer with the authorizer set into the result later.
pub(crate) fn register(config: &mut StoreConfig) -> SharedAuthorizer {
    let authorizer = SharedAuthorizer::default();
    let kinds = [
        (GROUP, "selfsubjectaccessreviews", Kind::SelfSubject),
        (GROUP, "subjectaccessreviews", Kind::Subject),
        (GROUP, "localsubjectaccessreviews", Kind::Local),
        (GROUP, "selfsubjectrulesreviews", Kind::Rules),
        (AUTHENTICATION_GROUP, "selfsubjectreviews", Kind::Whoami),
    ];
    for (group, plural, kind) in kinds {
        if !config.strategies.keys().any(|&(g, p)| g == group && p == plural) {
            // A catalog without the resource: nothing to answer.
            let _ = config.strategy(group, plural, Review { kind, authorizer: Arc::clone(&authorizer) });
        }
    }
    authorizer
}

impl Strategy for Review {
    fn validate(&self, _: &WriteContext<'_>, object: &Value) -> ErrorList {
        let spec = Path::ROOT.field("spec");
        let mut errors = ErrorList::new();
        if matches!(self.kind, Kind::Rules | Kind::Whoami) {
            return errors;
        }
        let resource = object.pointer("/spec/resourceAttributes").filter(|v| !v.is_null());
        let non_resource = object.pointer("/spec/nonResourceAttributes").filter(|v| !v.is_null());
        match (resource, non_resource) {
            (Some(_), Some(value)) => errors.push(FieldError::invalid(
                &spec.field("nonResourceAttributes"),
                value.clone(),
                "cannot be specified in combination with resourceAttributes",
            )),
            (None, None) => errors.push(FieldError::invalid(
                &spec.field("resourceAttributes"),
                Value::Null,
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            )),
            _ => {}
        }
        if self.kind == Kind::Local
            && let Some(value) = non_resource
        {
            errors.push(FieldError::invalid(
                &spec.field("nonResourceAttributes"),
                value.clone(),
                "disallowed on this kind of request",
            ));
        }
        let has = |field: &str| object.pointer(field).is_some_and(|v| !v.is_null() && v != "" && v != &json!([]));
        if matches!(self.kind, Kind::Subject | Kind::Local) && !has("/spec/user") && !has("/spec/groups") {
            let user = object.pointer("/spec/user").cloned().unwrap_or(json!(""));
            errors.push(FieldError::invalid(
                &spec.field("user"),
                user,
                "at least one of user or group must be specified",
            ));
        }
        errors
    }

    fn answer(&self) -> Option<&dyn Answer> {
        Some(self)
    }
}

impl Answer for Review {
    fn create<'a>(
        &'a self,
        context: &'a WriteContext<'a>,
        namespace: Option<&'a str>,
        mut object: Value,
    ) -> BoxFuture<'a, Result<Value, Status>> {
        Box::pin(async move {
            let Some(authorizer) = self.authorizer.get() else {
                return Err(Status::internal_error("the server's authorizer is not set"));
            };
            let spec = object.get("spec").cloned().unwrap_or(Value::Null);
            if self.kind == Kind::Whoami {
                let user = context.user;
                // Every field of `UserInfo` is `omitempty`.
                let fields = [
                    ("username", (!user.username.is_empty()).then(|| json!(user.username))),
                    ("uid", (!user.uid.is_empty()).then(|| json!(user.uid))),
                    ("groups", (!user.groups.is_empty()).then(|| json!(user.groups))),
                    ("extra", (!user.extra.is_empty()).then(|| json!(user.extra))),
                ];
                let user_info: serde_json::Map<String, Value> =
                    fields.into_iter().filter_map(|(name, value)| Some((name.to_owned(), value?))).collect();
                object["status"] = json!({ "userInfo": user_info });
                return Ok(object);
            }
            if self.kind == Kind::Rules {
                let namespace = spec.get("namespace").and_then(Value::as_str).unwrap_or("");
                if namespace.is_empty() {
                    return Err(Status::bad_request("no namespace on request"));
                }
                object["status"] = rules_status(&**authorizer, context.user, namespace).await;
                return Ok(object);
            }
            let user = match self.kind {
                Kind::SelfSubject => context.user.clone(),
                _ => subject(&spec),
            };
            let mut attributes = Attributes { user, ..Default::default() };
            if let Some(resource) = spec.get("resourceAttributes").filter(|v| v.is_object()) {
                let field = |name: &str| resource.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
                attributes.resource_request = true;
                attributes.verb = field("verb");
                attributes.namespace = field("namespace");
                attributes.api_group = field("group");
                attributes.api_version = field("version");
                attributes.resource = field("resource");
                attributes.subresource = field("subresource");
                attributes.name = field("name");
                if self.kind == Kind::Local {
                    let namespace = namespace.unwrap_or("");
                    if attributes.namespace.is_empty() {
                        attributes.namespace = namespace.to_owned();
                        object["spec"]["resourceAttributes"]["namespace"] = json!(namespace);
                    } else if attributes.namespace != namespace {
                        return Err(Status::bad_request(format!(
                            "spec.resourceAttributes.namespace must match namespace: {namespace}"
                        )));
                    }
                }
            } else if let Some(path) = spec.get("nonResourceAttributes") {
                let field = |name: &str| path.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
                attributes.path = field("path");
                attributes.verb = field("verb");
            }
            let answer = authorizer.authorize(&attributes).await;
            let mut status = json!({ "allowed": answer.decision == Decision::Allow });
            if answer.decision == Decision::Deny {
                status["denied"] = json!(true);
            }
            if !answer.reason.is_empty() {
                status["reason"] = json!(answer.reason);
            }
            object["status"] = status;
            Ok(object)
        })
    }
}

/// The user a (Local)SubjectAccessReview asks about.
fn subject(spec: &Value) -> UserInfo {
    let strings = |value: Option<&Value>| -> Vec<String> {
        value.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
    };
    UserInfo {
        username: spec.get("user").and_then(Value::as_str).unwrap_or("").to_owned(),
        uid: spec.get("uid").and_then(Value::as_str).unwrap_or("").to_owned(),
        groups: strings(spec.get("groups")),
        extra: spec
            .get("extra")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(key, values)| (key.clone(), strings(Some(values))))
            .collect(),
    }
}

/// The status of a SelfSubjectRulesReview: the rules of `user` in `namespace`.
async fn rules_status(authorizer: &dyn Authorizer, user: &UserInfo, namespace: &str) -> Value {
    let rules = authorizer.rules_for(user, namespace).await;
    let resource_rules: Vec<Value> = rules
        .resource_rules
        .iter()
        .map(|rule| {
            json!({
                "verbs": rule.verbs,
                "apiGroups": rule.api_groups,
                "resources": rule.resources,
                "resourceNames": rule.resource_names,
            })
        })
        .collect();
    let non_resource_rules: Vec<Value> = rules
        .non_resource_rules
        .iter()
        .map(|rule| json!({ "verbs": rule.verbs, "nonResourceURLs": rule.non_resource_urls }))
        .collect();
    let mut status = json!({
        "resourceRules": resource_rules,
        "nonResourceRules": non_resource_rules,
        "incomplete": rules.incomplete,
    });
    match rules.errors.as_slice() {
        [] => {}
        [one] => status["evaluationError"] = json!(one),
        many => status["evaluationError"] = json!(format!("[{}]", many.join(", "))),
    }
    status
}
