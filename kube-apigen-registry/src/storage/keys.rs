//! Where objects live: kube-apiserver's etcd key layout.
//!
//! `<prefix>/<group>/<resource>/<namespace>/<name>` for namespaced objects,
//! `<prefix>/<group>/<resource>/<name>` for cluster-scoped ones; the core group (empty)
//! has no segment. Every prefix the store ranges over ends with `/`, so that the
//! namespace `a` does not take in the namespace `ab`.

use kube_apigen::ResourceInfo;

/// The keys of a store under one prefix (`--etcd-prefix`, `/registry` by default).
#[derive(Clone, Debug)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    /// The keys under `prefix` (`/registry`; trailing slashes are dropped).
    pub fn new(prefix: &str) -> Self {
        Keys { prefix: prefix.trim_end_matches('/').to_owned() }
    }

    /// The prefix of every key of the store.
    pub fn root(&self) -> String {
        format!("{}/", self.prefix)
    }

    /// The prefix of every object of `resource`.
    pub fn resource(&self, resource: &ResourceInfo) -> String {
        self.group_resource(resource.group, resource.plural)
    }

    /// The prefix of every object of the resource `plural` of `group`.
    pub fn group_resource(&self, group: &str, plural: &str) -> String {
        if group.is_empty() {
            format!("{}/{plural}/", self.prefix)
        } else {
            format!("{}/{group}/{plural}/", self.prefix)
        }
    }

    /// The prefix of the objects a list or watch covers: those of `namespace` when the
    /// resource is namespaced and one is given, else all of the resource.
    pub fn collection(&self, resource: &ResourceInfo, namespace: Option<&str>) -> String {
        let mut prefix = self.resource(resource);
        if let Some(namespace) = namespace.filter(|_| resource.is_namespaced()) {
            prefix.push_str(namespace);
            prefix.push('/');
        }
        prefix
    }

    /// The key of the object `name` (in `namespace` when the resource is namespaced).
    pub fn object(&self, resource: &ResourceInfo, namespace: Option<&str>, name: &str) -> String {
        let mut key = self.resource(resource);
        if resource.is_namespaced() {
            key.push_str(namespace.unwrap_or(""));
            key.push('/');
        }
        key.push_str(name);
        key
    }
}

/// The first key after every key starting with `prefix` (etcd's `range_end` of a prefix).
pub fn prefix_end(prefix: &str) -> Vec<u8> {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return end;
        }
    }
    // Every byte was 0xff: no end, the range runs to the last key (etcd's "\0").
    vec![0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_ends() {
        assert_eq!(prefix_end("/registry/a/"), b"/registry/a0".to_vec());
        assert_eq!(prefix_end(""), vec![0]);
    }
}
