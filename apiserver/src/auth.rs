//! Static bearer tokens, in the API server's `--token-auth-file` format.
//!
//! Each line is a CSV record `token,user,uid[,"group1,group2"]`: at least three columns,
//! a fourth listing groups (quoted when there are several). Blank lines are skipped. A
//! request authenticates with `Authorization: Bearer <token>`; the user gets the file's
//! groups plus `system:authenticated`, as the API server's authenticator chain adds it.
//! Any request without a known token is answered 401 `Unauthorized`.

use std::collections::HashMap;
use std::path::Path;

use support::Status;
use support::axum::http::{HeaderMap, header};
use support::http::{Authenticator, UserInfo, authentication_failed};

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
}

impl TokenFile {
    /// Reads and parses a token file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read token file {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("token file {}: {e}", path.display()))
    }

    /// Parses the CSV text of a token file.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut users = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record = parse_csv_line(line).map_err(|e| format!("line {}: {e}", number + 1))?;
            if record.len() < 3 {
                return Err(format!(
                    "line {}: a record needs at least 3 columns (token,user,uid), found {}",
                    number + 1,
                    record.len()
                ));
            }
            let token = record[0].trim().to_owned();
            if token.is_empty() {
                return Err(format!("line {}: empty token", number + 1));
            }
            let mut groups: Vec<String> = record
                .get(3)
                .map(|g| g.split(',').map(str::trim).filter(|g| !g.is_empty()).map(str::to_owned).collect())
                .unwrap_or_default();
            if !groups.iter().any(|g| g == AUTHENTICATED_GROUP) {
                groups.push(AUTHENTICATED_GROUP.to_owned());
            }
            let user = UserInfo {
                username: record[1].trim().to_owned(),
                uid: record[2].trim().to_owned(),
                groups,
                extra: Default::default(),
            };
            users.insert(token, user);
        }
        Ok(TokenFile { users })
    }

    pub fn len(&self) -> usize {
        self.users.len()
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The user of `token`, if known.
    pub fn user(&self, token: &str) -> Option<&UserInfo> {
        self.users.get(token)
    }
}

impl Authenticator for TokenFile {
    fn authenticate(&self, headers: &HeaderMap) -> Result<Option<UserInfo>, Status> {
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token)
            .ok_or_else(authentication_failed)?;
        self.user(token).cloned().map(Some).ok_or_else(authentication_failed)
    }
}

/// The token of an `Authorization: Bearer <token>` value (scheme case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let mut parts = value.trim().splitn(2, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
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

/// One CSV record: comma-separated fields, optionally double-quoted (`""` is a quote).
fn parse_csv_line(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    current.push('"');
                }
                '"' => quoted = false,
                c => current.push(c),
            }
            continue;
        }
        match c {
            '"' if at_start => {
                quoted = true;
                at_start = false;
            }
            ',' => {
                fields.push(std::mem::take(&mut current));
                at_start = true;
            }
            c => {
                current.push(c);
                at_start = false;
            }
        }
    }
    if quoted {
        return Err("unterminated quoted field".to_owned());
    }
    fields.push(current);
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records_with_and_without_groups() {
        let file =
            TokenFile::parse("t1,alice,uid-alice,\"devs,testers\"\n\nt2,bob,uid-bob\nt3,carol,,system:masters\n")
                .unwrap();
        assert_eq!(file.len(), 3);
        let alice = file.user("t1").unwrap();
        assert_eq!(alice.username, "alice");
        assert_eq!(alice.groups, vec!["devs", "testers", "system:authenticated"]);
        assert_eq!(file.user("t2").unwrap().groups, vec!["system:authenticated"]);
        assert_eq!(file.user("t3").unwrap().uid, "");
    }

    #[test]
    fn rejects_short_records() {
        assert!(TokenFile::parse("t1,alice\n").unwrap_err().contains("at least 3 columns"));
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("bearer abc"), Some("abc"));
        assert_eq!(bearer_token("Bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
