//! The order in which the API server lists groups and versions, and so which version of a
//! group is preferred.
//!
//! kube-apiserver's aggregator sorts `/apis` by each group-version's priority: groups by
//! their group priority (highest first, ties by name), the versions of a group by their
//! version priority (highest first, ties by [`compare_kube_aware_versions`]). The first
//! version of a group is its `preferredVersion`. Built-in group-versions have fixed
//! priorities (the tables in kube-apiserver's `aggregator.go` and
//! `DefaultGenericAPIServicePriorities`); every custom resource group-version is registered
//! with group priority 1000 and version priority 100, so custom groups follow the built-in
//! ones in alphabetical order and their versions are in kube-aware order (GA, then beta,
//! then alpha, newest first).

use std::cmp::Ordering;

/// `(group, version, group priority, version priority)` of the built-in group-versions.
const BUILT_IN: &[(&str, &str, u32, u32)] = &[
    ("", "v1", 18000, 1),
    ("apps", "v1", 17800, 15),
    ("events.k8s.io", "v1", 17750, 15),
    ("events.k8s.io", "v1beta1", 17750, 5),
    ("authentication.k8s.io", "v1", 17700, 15),
    ("authentication.k8s.io", "v1beta1", 17700, 9),
    ("authentication.k8s.io", "v1alpha1", 17700, 1),
    ("authorization.k8s.io", "v1", 17600, 15),
    ("autoscaling", "v2", 17500, 30),
    ("autoscaling", "v1", 17500, 15),
    ("autoscaling", "v2beta1", 17500, 9),
    ("autoscaling", "v2beta2", 17500, 1),
    ("batch", "v1", 17400, 15),
    ("batch", "v1beta1", 17400, 9),
    ("batch", "v2alpha1", 17400, 9),
    ("certificates.k8s.io", "v1", 17300, 15),
    ("certificates.k8s.io", "v1beta1", 17300, 9),
    ("certificates.k8s.io", "v1alpha1", 17300, 1),
    ("networking.k8s.io", "v1", 17200, 15),
    ("networking.k8s.io", "v1beta1", 17200, 9),
    ("networking.k8s.io", "v1alpha1", 17200, 1),
    ("policy", "v1", 17100, 15),
    ("policy", "v1beta1", 17100, 9),
    ("rbac.authorization.k8s.io", "v1", 17000, 15),
    ("storage.k8s.io", "v1", 16800, 15),
    ("storage.k8s.io", "v1beta1", 16800, 9),
    ("storage.k8s.io", "v1alpha1", 16800, 1),
    ("admissionregistration.k8s.io", "v1", 16700, 15),
    ("admissionregistration.k8s.io", "v1beta1", 16700, 12),
    ("admissionregistration.k8s.io", "v1alpha1", 16700, 9),
    ("apiextensions.k8s.io", "v1", 16700, 15),
    ("scheduling.k8s.io", "v1", 16600, 15),
    ("coordination.k8s.io", "v1", 16500, 15),
    ("node.k8s.io", "v1", 16300, 15),
    ("node.k8s.io", "v1beta1", 16300, 9),
    ("node.k8s.io", "v1alpha1", 16300, 1),
    ("discovery.k8s.io", "v1", 16200, 15),
    ("discovery.k8s.io", "v1beta1", 16200, 12),
    ("resource.k8s.io", "v1beta2", 16200, 15),
    ("resource.k8s.io", "v1beta1", 16200, 9),
    ("resource.k8s.io", "v1alpha3", 16200, 1),
    ("flowcontrol.apiserver.k8s.io", "v1", 16100, 21),
    ("flowcontrol.apiserver.k8s.io", "v1beta3", 16100, 18),
    ("flowcontrol.apiserver.k8s.io", "v1beta2", 16100, 15),
    ("flowcontrol.apiserver.k8s.io", "v1beta1", 16100, 12),
    ("flowcontrol.apiserver.k8s.io", "v1alpha1", 16100, 9),
    ("internal.apiserver.k8s.io", "v1alpha1", 16000, 9),
    ("storagemigration.k8s.io", "v1alpha1", 15800, 9),
];

/// Group priority of custom resource (and other unknown) groups.
const CUSTOM_GROUP_PRIORITY: u32 = 1000;
/// Version priority of custom resource (and other unknown) group-versions.
const CUSTOM_VERSION_PRIORITY: u32 = 100;

/// Whether `group` is one of kube-apiserver's built-in groups (the core group `""`
/// included); every other group is served as custom resources are.
pub(crate) fn is_built_in(group: &str) -> bool {
    BUILT_IN.iter().any(|(g, ..)| *g == group)
}

/// The priority of a group among groups: higher is listed first.
pub(crate) fn group_priority(group: &str) -> u32 {
    BUILT_IN.iter().find(|(g, ..)| *g == group).map_or(CUSTOM_GROUP_PRIORITY, |&(_, _, priority, _)| priority)
}

/// The priority of a version within its group: higher is listed first. A version of a
/// built-in group missing from the table ranks below the known ones.
pub(crate) fn version_priority(group: &str, version: &str) -> u32 {
    if let Some(&(.., priority)) = BUILT_IN.iter().find(|(g, v, ..)| *g == group && *v == version) {
        return priority;
    }
    if is_built_in(group) { 0 } else { CUSTOM_VERSION_PRIORITY }
}

/// Orders groups as `/apis` lists them: highest group priority first, then by name.
pub(crate) fn compare_groups(a: &str, b: &str) -> Ordering {
    group_priority(b).cmp(&group_priority(a)).then_with(|| a.cmp(b))
}

/// Orders the versions of one group as discovery lists them: the preferred version first.
pub(crate) fn compare_versions(group: &str, a: &str, b: &str) -> Ordering {
    version_priority(group, b).cmp(&version_priority(group, a)).then_with(|| compare_kube_aware_versions(b, a))
}

/// A kube-like version (`v1`, `v2beta1`, `v1alpha3`): `(stability, major, minor)`, where
/// stability is 0 for alpha, 1 for beta and 2 for GA; GA versions have minor 0.
fn parse_kube_version(version: &str) -> Option<(u8, u64, u64)> {
    fn number(digits: &str) -> Option<u64> {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }
    // `^v([\d]+)(?:(alpha|beta)([\d]+))?$`
    let rest = version.strip_prefix('v')?;
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let major = number(&rest[..end])?;
    match &rest[end..] {
        "" => Some((2, major, 0)),
        tail => {
            let (stability, minor) = if let Some(minor) = tail.strip_prefix("beta") {
                (1, minor)
            } else if let Some(minor) = tail.strip_prefix("alpha") {
                (0, minor)
            } else {
                return None;
            };
            Some((stability, major, number(minor)?))
        }
    }
}

/// apimachinery's `CompareKubeAwareVersionStrings`: `Greater` when `a` ranks above `b`.
/// GA ranks above beta above alpha, then the higher major, then the higher minor
/// (`v2 > v1 > v1beta2 > v1beta1 > v1alpha1`); kube-like versions rank above other strings,
/// which rank in reverse lexical order (so that sorting by rank lists them alphabetically).
pub fn compare_kube_aware_versions(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse_kube_version(a), parse_kube_version(b)) {
        (None, None) => b.cmp(a),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => a.cmp(&b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_aware_order() {
        let mut versions = ["foo10", "v1alpha1", "v1", "foo1", "v11alpha2", "v1beta1", "v2", "v10beta3", "v1beta2"];
        versions.sort_by(|a, b| compare_kube_aware_versions(b, a));
        assert_eq!(versions, ["v2", "v1", "v10beta3", "v1beta2", "v1beta1", "v11alpha2", "v1alpha1", "foo1", "foo10"]);
    }

    #[test]
    fn priorities() {
        let mut versions = ["v1", "v2beta2", "v2", "v2beta1"];
        versions.sort_by(|a, b| compare_versions("autoscaling", a, b));
        assert_eq!(versions, ["v2", "v1", "v2beta1", "v2beta2"]);
        let mut groups = ["z.example.com", "a.example.com", "certificates.k8s.io", "autoscaling"];
        groups.sort_by(|a, b| compare_groups(a, b));
        assert_eq!(groups, ["autoscaling", "certificates.k8s.io", "a.example.com", "z.example.com"]);
    }
}
