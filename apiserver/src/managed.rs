//! Who a write is recorded for in `metadata.managedFields`.
//!
//! The entries themselves are written by the patch engine: [`crate::patch::apply`] for
//! server-side apply, [`crate::patch::record_subresource_update`] for every other write
//! (create, replace, non-apply patches), as the API server's `Update` operation.

/// The default field manager of a request without `fieldManager`: its `User-Agent` up to
/// the first `/`, printable characters only, at most 128 bytes (the API server's
/// `managerOrUserAgent` / `prefixFromUserAgent`). `kubectl/v1.32.0 (linux/amd64)` is
/// `kubectl`.
pub fn manager_from_user_agent(user_agent: &str) -> String {
    let prefix = user_agent.split('/').next().unwrap_or("");
    let mut out = String::new();
    for c in prefix.chars() {
        if c.is_control() {
            continue;
        }
        if out.len() + c.len_utf8() > 128 {
            break;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_prefix() {
        assert_eq!(manager_from_user_agent("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
        assert_eq!(manager_from_user_agent("curl/8.5.0"), "curl");
        assert_eq!(manager_from_user_agent("no-slash"), "no-slash");
        assert_eq!(manager_from_user_agent(""), "");
        assert_eq!(manager_from_user_agent(&"a".repeat(200)).len(), 128);
    }
}
