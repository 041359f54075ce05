//! Impersonation: `Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid` and
//! `Impersonate-Extra-<key>` (`kubectl --as`, `--as-group`, `--as-uid`), each allowed only
//! when the caller may `impersonate` it, as the API server's impersonation filter does.

use axum::http::HeaderMap;

use super::UserInfo;
use super::authz::{Attributes, Authorizer, Decision, forbidden};
use crate::auth::{ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP};
use crate::go::url::query_unescape;
use kube_apigen_core::Status;
use kube_apigen_core::go::fmt::quote;

const USER: &str = "impersonate-user";
const GROUP: &str = "impersonate-group";
const UID: &str = "impersonate-uid";
const EXTRA_PREFIX: &str = "impersonate-extra-";
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// One thing a request asks to act as (the API server's `ObjectReference` of it).
#[derive(Debug)]
enum Request {
    User(String),
    ServiceAccount { namespace: String, name: String },
    Group(String),
    Extra { key: String, value: String },
    Uid(String),
}

impl Request {
    /// What `requestor` must be allowed to do for this: `impersonate` the resource
    /// (`users`, `serviceaccounts`, `groups`, `userextras/<key>`, `uids`) named so.
    fn attributes(&self, requestor: &UserInfo) -> Attributes {
        let mut attributes = Attributes {
            user: requestor.clone(),
            verb: "impersonate".to_owned(),
            resource_request: true,
            ..Default::default()
        };
        let (resource, name) = match self {
            Request::User(name) => ("users", name),
            Request::ServiceAccount { namespace, name } => {
                attributes.namespace = namespace.clone();
                ("serviceaccounts", name)
            }
            Request::Group(name) => ("groups", name),
            Request::Extra { key, value } => {
                attributes.api_group = "authentication.k8s.io".to_owned();
                attributes.api_version = "v1".to_owned();
                attributes.subresource = key.clone();
                ("userextras", value)
            }
            Request::Uid(uid) => {
                attributes.api_group = "authentication.k8s.io".to_owned();
                attributes.api_version = "v1".to_owned();
                ("uids", uid)
            }
        };
        attributes.resource = resource.to_owned();
        attributes.name = name.clone();
        attributes
    }

    /// Go's `%v` of the `ObjectReference` (kind, namespace, name, uid, apiVersion,
    /// resourceVersion, fieldPath), as the API server's error shows it.
    fn go_value(&self) -> String {
        let (kind, namespace, name, api_version, field_path) = match self {
            Request::User(name) => ("User", "", name.as_str(), "", ""),
            Request::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            Request::Group(name) => ("Group", "", name.as_str(), "", ""),
            Request::Extra { key, value } => {
                ("UserExtra", "", value.as_str(), "authentication.k8s.io/v1", key.as_str())
            }
            Request::Uid(uid) => ("UID", "", uid.as_str(), "authentication.k8s.io/v1", ""),
        };
        format!("{{{kind} {namespace} {name}  {api_version}  {field_path}}}")
    }
}

/// The user a request acts as: `requestor` itself without impersonation headers, or the
/// user they name once `authorizer` allows each (403 [`forbidden`] for the first it does
/// not; 500 for groups, extras or a UID without a user, as the API server answers, in
/// the words of its plain-text 500 for `request_uri`).
pub(crate) async fn impersonate(
    headers: &HeaderMap,
    request_uri: &str,
    requestor: UserInfo,
    authorizer: &dyn Authorizer,
) -> Result<UserInfo, Status> {
    let requests = requests(headers).map_err(|error| {
        let message = format!("Internal Server Error: {}: {error}", quote(request_uri));
        Status::failure(500, kube_apigen_core::status::reason::INTERNAL_ERROR, message)
    })?;
    if requests.is_empty() {
        return Ok(requestor);
    }
    let groups_given = headers.contains_key(GROUP);
    let mut user = UserInfo::default();
    for request in &requests {
        let attributes = request.attributes(&requestor);
        let answer = authorizer.authorize(&attributes).await;
        if answer.decision != Decision::Allow {
            return Err(forbidden(&attributes, &answer.reason));
        }
        match request {
            Request::User(name) => user.username = name.clone(),
            Request::ServiceAccount { namespace, name } => {
                user.username = format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}");
                if !groups_given {
                    user.groups =
                        vec!["system:serviceaccounts".to_owned(), format!("system:serviceaccounts:{namespace}")];
                }
            }
            Request::Group(group) => user.groups.push(group.clone()),
            Request::Extra { key, value } => user.extra.entry(key.clone()).or_default().push(value.clone()),
            Request::Uid(uid) => user.uid = uid.clone(),
        }
    }
    // The impersonated user is authenticated, unless they are anonymous, or a group says
    // otherwise.
    let (implied, unless) = if user.username == ANONYMOUS_USER {
        (UNAUTHENTICATED_GROUP, &[UNAUTHENTICATED_GROUP][..])
    } else {
        (AUTHENTICATED_GROUP, &[AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP][..])
    };
    if !user.groups.iter().any(|group| unless.contains(&group.as_str())) {
        user.groups.push(implied.to_owned());
    }
    Ok(user)
}

/// The impersonation headers, in the API server's order: the user, the groups, the
/// extras, the UID.
fn requests(headers: &HeaderMap) -> Result<Vec<Request>, String> {
    let text = |value: &axum::http::HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned();
    let mut requests = Vec::new();
    let user = headers.get(USER).map(text).filter(|user| !user.is_empty());
    if let Some(user) = &user {
        let service_account = user
            .strip_prefix(SERVICE_ACCOUNT_PREFIX)
            .and_then(|rest| rest.split_once(':'))
            .filter(|(namespace, name)| !namespace.is_empty() && !name.is_empty() && !name.contains(':'));
        requests.push(match service_account {
            Some((namespace, name)) => {
                Request::ServiceAccount { namespace: namespace.to_owned(), name: name.to_owned() }
            }
            None => Request::User(user.clone()),
        });
    }
    requests.extend(headers.get_all(GROUP).iter().map(|group| Request::Group(text(group))));
    for (name, value) in headers {
        if let Some(key) = name.as_str().strip_prefix(EXTRA_PREFIX) {
            // Keys are percent-encoded, as a path segment (`+` is itself).
            let key =
                query_unescape(&key.replace('+', "%2B")).map(|k| k.into_owned()).unwrap_or_else(|_| key.to_owned());
            requests.push(Request::Extra { key, value: text(value) });
        }
    }
    if let Some(uid) = headers.get(UID).map(text).filter(|uid| !uid.is_empty()) {
        requests.push(Request::Uid(uid));
    }
    if user.is_none() && !requests.is_empty() {
        let shown: Vec<String> = requests.iter().map(Request::go_value).collect();
        return Err(format!("requested [{}] without impersonating a user", shown.join(" ")));
    }
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{AlwaysAllow, Authorization};
    use futures::future::BoxFuture;

    /// Allows everything but impersonating groups.
    struct NoGroups;

    impl Authorizer for NoGroups {
        fn authorize<'a>(&'a self, attributes: &'a Attributes) -> BoxFuture<'a, Authorization> {
            let allowed = attributes.resource != "groups";
            Box::pin(std::future::ready(if allowed { Authorization::allow("") } else { Authorization::no_opinion("") }))
        }
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, value.parse().unwrap());
        }
        headers
    }

    fn alice() -> UserInfo {
        UserInfo { username: "alice".into(), groups: vec!["system:authenticated".into()], ..Default::default() }
    }

    #[tokio::test]
    async fn users_groups_extras_and_service_accounts() {
        let none = impersonate(&HeaderMap::new(), "/", alice(), &AlwaysAllow).await.unwrap();
        assert_eq!(none, alice());
        let as_bob = headers(&[
            ("impersonate-user", "bob"),
            ("impersonate-group", "devs"),
            ("impersonate-extra-scopes%2Fx", "a"),
            ("impersonate-uid", "42"),
        ]);
        let bob = impersonate(&as_bob, "/", alice(), &AlwaysAllow).await.unwrap();
        assert_eq!(bob.username, "bob");
        assert_eq!(bob.groups, ["devs", "system:authenticated"]);
        assert_eq!(bob.extra.get("scopes/x"), Some(&vec!["a".to_owned()]));
        assert_eq!(bob.uid, "42");
        let sa = impersonate(
            &headers(&[("impersonate-user", "system:serviceaccount:team-a:deployer")]),
            "/",
            alice(),
            &AlwaysAllow,
        )
        .await
        .unwrap();
        assert_eq!(sa.groups, ["system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"]);
    }

    #[tokio::test]
    async fn each_is_authorized_and_a_user_is_required() {
        let status = impersonate(
            &headers(&[("impersonate-user", "bob"), ("impersonate-group", "devs")]),
            "/",
            alice(),
            &NoGroups,
        )
        .await
        .unwrap_err();
        assert_eq!(
            status.message.as_deref(),
            Some(
                r#"groups "devs" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope"#
            )
        );
        let status = impersonate(&headers(&[("impersonate-group", "devs")]), "/apis?x=1", alice(), &AlwaysAllow)
            .await
            .unwrap_err();
        assert_eq!(status.code(), 500);
        assert_eq!(
            status.message.as_deref(),
            Some(r#"Internal Server Error: "/apis?x=1": requested [{Group  devs    }] without impersonating a user"#)
        );
    }
}
