//! `cargo xtask api-diff` over real upstream history: the same upstream APIs at two
//! releases (`history/<api>/<release>/` of the `specs-upstream` folder), each pair's text
//! report an insta snapshot (`snapshots/`).
//!
//! Runs only when `KUBE_APIGEN_UPSTREAM` names the `specs-upstream` folder; otherwise it
//! says SKIPPED and passes. It reads eight documents and compares four pairs: well under
//! a second.
//!
//! The snapshots were checked against what changed upstream between the releases:
//!
//! - Probe v0.60.0 → v0.72.0: the optional `spec` fields `keepDroppedTargets`,
//!   `scrapeClass` and `scrapeProtocols`; `keepequal`, `KeepEqual`, `dropequal` and
//!   `DropEqual` added to the three relabel `action` enums (review: a closed enum grows);
//!   `spec.prober.scheme` from a free string to the enum `http`, `https` (review:
//!   tightened, but ratcheted). The generated enums gain variants and
//!   `ProbeProber::scheme` becomes an enum: a major version of the crate.
//! - Probe v0.72.0 → v0.93.0: the status subresource (review: writes to the resource
//!   itself ignore status from then on) and `status` with it; nine optional `spec` fields
//!   and the nested `oauth2`, `prober` and `tlsConfig` ones; `HTTP`, `HTTPS` added to
//!   `prober.scheme`, `PrometheusText1.0.0` to `scrapeProtocols[*]`; `minimum: 0` on six
//!   limits and the three relabel `modulus` fields, `minLength: 1` on `prober.url`,
//!   patterns on `prober.proxyUrl` and `oauth2.tokenUrl` (which loses its `minLength`),
//!   all review since ratcheting covers them; the patterns of the three `sourceLabels[*]`
//!   removed; `default: ""` on the twelve secret and config map key selector `name`s;
//!   `x-kubernetes-list-type: atomic` on `targets.ingress.selector.matchExpressions` and
//!   its `values` (compatible: what an unmarked list is). The query parameters of the
//!   new status operations are not listed apart from the subresource.
//! - apiextensions.k8s.io/v1 1.27 → 1.30: `selectableFields` of a version; `fieldPath`,
//!   `reason` and `optionalOldSelf` of CEL rules (reported once, where
//!   `JSONSchemaProps` first occurs: the schema is recursive); `x-kubernetes-list-type`
//!   on seventeen lists of the CRD and of `ObjectMeta`, each what the list already was
//!   (unmarked, or `finalizers` and `ownerReferences` already merged by their patch
//!   strategy); `default: {}` dropped from `lastTransitionTime`, `dependencies[*]`,
//!   `enum[*]` and `metadata.creationTimestamp` (compatible: a zero value in a built-in
//!   API). Nothing breaks.
//! - autoscaling/v2 1.23 → 1.31: `metadata.clusterName` removed (breaking; it was never
//!   set by any server, and Kubernetes dropped it); `sendInitialEvents` added to list,
//!   watch and delete collection; the four patch types added to `patch` and
//!   `patch/status` (1.23 declared only `application/json`); the `LabelSelector` list
//!   types; `default: {}` dropped from `lastTransitionTime` and `creationTimestamp`. The
//!   report also finds what a field-by-field reading of the change lists misses:
//!   `LabelSelectorRequirement.key` lost its `x-kubernetes-patch-strategy: merge` and
//!   merge key, meaningless on a string (compatible). `Quantity` becoming
//!   `oneOf: [string, number]` is no change of what it is.
//!
//! Not compared, by design: schemas no resource reaches (`DeleteOptions`, `WatchEvent`,
//! the group/version lists of their `x-kubernetes-group-version-kind`), and descriptions.

use std::path::Path;

use corpus::{HISTORY, UPSTREAM_ENV};
use kube_apigen_codegen::diff::{Api, Report};

/// The pairs: the API's folder, the older release, the newer one.
const PAIRS: &[(&str, &str, &str)] = &[
    ("monitoring.coreos.com_probes", "v0.60.0", "v0.72.0"),
    ("monitoring.coreos.com_probes", "v0.72.0", "v0.93.0"),
    ("apiextensions.k8s.io-v1", "1.27", "1.30-era"),
    ("autoscaling-v2", "1.23", "1.31-era"),
];

#[test]
fn upstream_history_reports() {
    let upstream = match corpus::upstream_dir() {
        Ok(Some(dir)) => dir.join(HISTORY),
        Ok(None) => {
            eprintln!(
                "\n******** SKIPPED: set {UPSTREAM_ENV}=../shared/specs-upstream (relative to the repository root) \
                 to compare the upstream API history ********\n"
            );
            return;
        }
        Err(message) => panic!("{message}"),
    };
    let read = |api: &str, release: &str| {
        Api::read(&upstream.join(api).join(release)).unwrap_or_else(|e| panic!("{api} {release}: {e}"))
    };
    for (api, old, new) in PAIRS {
        let label = |release: &str| Path::new(HISTORY).join(api).join(release).display().to_string();
        let report = Report::new(&label(old), &label(new), &read(api, old), &read(api, new), None);
        insta::assert_snapshot!(format!("{api}-{old}-{new}"), report.text());
    }
}
