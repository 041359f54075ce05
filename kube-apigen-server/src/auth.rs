//! Static bearer tokens, in the API server's `--token-auth-file` format.
//!
//! The file is read as the API server reads it: CSV records as Go's `encoding/csv` reads
//! them ([`crate::go::csv`]), `token,user,uid[,"group1,group2"]`, at least three
//! columns, a fourth listing groups split on `,` (quoted when there are several); fields
//! are taken as written, without trimming. A record with an empty token is skipped with a
//! warning, and a repeated token takes the later record, also with a warning. A request
//! authenticates with `Authorization: Bearer <token>`; the user gets the file's groups plus
//! `system:authenticated`, as the API server's authenticator chain adds it. Any request
//! without a known token is answered 401 `Unauthorized`.

use std::collections::HashMap;
use std::path::Path;

use crate::http::{Authenticator, UserInfo, authentication_failed};
use axum::http::{Extensions, HeaderMap, header};
use kube_apigen_core::Status;

/// The group every authenticated user belongs to.
pub const AUTHENTICATED_GROUP: &str = "system:authenticated";
/// The user name of anonymous requests.
pub const ANONYMOUS_USER: &str = "system:anonymous";
/// The group of anonymous requests.
pub const UNAUTHENTICATED_GROUP: &str = "system:unauthenticated";

/// Users by token.
#[derive(Clone, Debug, Default)]
pub struct TokenFile {
    users: HashMap<String, UserInfo>,
    warnings: Vec<String>,
}

impl TokenFile {
    /// Reads and parses a token file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read token file {}: {e}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses the CSV text of a token file; `name` names it in messages, as the API
    /// server's do (`token file 'tokens.csv' must have at least 3 columns ...`).
    pub fn parse(text: &str, name: &str) -> Result<Self, String> {
        let records = crate::go::csv::read_all(text)?;
        let mut file = TokenFile::default();
        for (index, record) in records.into_iter().enumerate() {
            let number = index + 1;
            if record.len() < 3 {
                return Err(format!(
                    "token file '{name}' must have at least 3 columns (token, user name, user uid), found {}",
                    record.len()
                ));
            }
            let mut record = record.into_iter();
            let (token, username, uid) = (record.next().unwrap(), record.next().unwrap(), record.next().unwrap());
            if token.is_empty() {
                file.warnings
                    .push(format!("empty token has been found in token file '{name}', record number '{number}'"));
                continue;
            }
            if file.users.contains_key(&token) {
                file.warnings
                    .push(format!("duplicate token has been found in token file '{name}', record number '{number}'"));
            }
            let groups = record.next().map(|groups| groups.split(',').map(str::to_owned).collect()).unwrap_or_default();
            let groups = with_authenticated_group(groups);
            file.users.insert(token, UserInfo { username, uid, groups, extra: Default::default() });
        }
        Ok(file)
    }

    /// How many tokens the file holds.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// Whether the file holds no token.
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The user of `token`, if known.
    pub fn user(&self, token: &str) -> Option<&UserInfo> {
        self.users.get(token)
    }

    /// What the API server would log about the file: skipped and repeated tokens.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl Authenticator for TokenFile {
    fn authenticate(&self, headers: &HeaderMap, _extensions: &Extensions) -> Result<Option<UserInfo>, Status> {
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token)
            .ok_or_else(authentication_failed)?;
        self.user(token).cloned().map(Some).ok_or_else(authentication_failed)
    }
}

/// The token of an `Authorization: Bearer <token>` value, as the API server's bearer
/// authenticator reads it: the header trimmed, split on single spaces, the scheme
/// case-insensitive and the token the second part, which must not be empty (so
/// `Bearer  abc`, with two spaces, carries no token, and `Bearer abc def` carries `abc`).
fn bearer_token(value: &str) -> Option<&str> {
    let mut parts = value.trim().splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// `groups` with `system:authenticated` added unless there, as the API server's
/// authenticator chain adds it to every user it authenticates.
pub fn with_authenticated_group(mut groups: Vec<String>) -> Vec<String> {
    if !groups.iter().any(|g| g == AUTHENTICATED_GROUP) {
        groups.push(AUTHENTICATED_GROUP.to_owned());
    }
    groups
}

/// The user a request acts as: the authenticated one, or `system:anonymous` in the group
/// `system:unauthenticated`.
pub fn effective_user(user: Option<&UserInfo>) -> UserInfo {
    user.cloned().unwrap_or_else(|| UserInfo {
        username: ANONYMOUS_USER.to_owned(),
        uid: String::new(),
        groups: vec![UNAUTHENTICATED_GROUP.to_owned()],
        extra: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records_as_the_api_server_does() {
        let text =
            "t1,alice,uid-alice,\"devs,testers\"\n\nt2,bob,uid-bob\nt3, carol ,,system:masters\n,dave,4\nt2,bob2,5,\n";
        let file = TokenFile::parse(text, "tokens.csv").unwrap();
        assert_eq!(file.len(), 3);
        let alice = file.user("t1").unwrap();
        assert_eq!(alice.username, "alice");
        assert_eq!(alice.groups, vec!["devs", "testers", "system:authenticated"]);
        assert_eq!(file.user("t3").unwrap().username, " carol ", "fields are not trimmed");
        assert_eq!(file.user("t3").unwrap().uid, "");
        // The later record of a token wins; an empty fourth column is one empty group.
        let bob = file.user("t2").unwrap();
        assert_eq!(
            (bob.username.as_str(), bob.groups.clone()),
            ("bob2", vec![String::new(), "system:authenticated".into()])
        );
        assert_eq!(
            file.warnings(),
            [
                "empty token has been found in token file 'tokens.csv', record number '4'",
                "duplicate token has been found in token file 'tokens.csv', record number '5'",
            ]
        );
    }

    #[test]
    fn rejects_short_records_and_bad_csv() {
        assert_eq!(
            TokenFile::parse("t1,alice\n", "f").unwrap_err(),
            "token file 'f' must have at least 3 columns (token, user name, user uid), found 2"
        );
        assert_eq!(
            TokenFile::parse("t1,al\"ice,1\n", "f").unwrap_err(),
            "parse error on line 1, column 6: bare \" in non-quoted-field"
        );
    }

    #[test]
    fn bearer_tokens_as_the_api_server_splits_them() {
        assert_eq!(bearer_token("bearer abc"), Some("abc"));
        assert_eq!(bearer_token(" Bearer abc "), Some("abc"));
        assert_eq!(bearer_token("Bearer abc def"), Some("abc"));
        assert_eq!(bearer_token("Bearer  abc"), None);
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
