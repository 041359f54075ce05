//! End to end: the machine's `kubectl`, with its default flags (client-side validation on),
//! against the `apiserver` binary on a free loopback port.
//!
//! The test functions, one server each:
//!
//! - `kubectl_against_anonymous_server` (and `kubectl_against_an_etcd_backed_server`,
//!   the same steps against a server on an etcd of its own): discovery, explain, create,
//!   get (table, YAML, across namespaces, watch), client-side and server-side apply (with a field-manager
//!   conflict), the three patch types, replace (also with a stale resourceVersion),
//!   delete and delete --all, the 422 of an invalid object, and CSR approval (the
//!   protobuf-only `kubectl certificate approve`, then the JSON route through
//!   `kubectl patch --subresource=approval`);
//!   The same server also serves the Probe custom resource (`specs/` has its CRD):
//!   discovery with its short name and category, printer columns (`-o wide` too), explain,
//!   defaults, client-side apply (merge patches: a CRD has no strategic merge patch),
//!   server-side apply, a CEL rule's 422, merge patch and delete;
//! - `kubectl_releases_1_27_to_1_33`: every kubectl release beside the dispatcher
//!   (`kubectl.1.27` ... `kubectl.1.33`) creates, gets, applies, replaces and explains an
//!   HPA (1.27 and 1.28 read the protobuf `/openapi/v2` first) and approves and denies a CSR
//!   (1.32 and 1.33 send the approval as protobuf);
//! - `kubectl_against_token_file_server`: `--token-file` with the Kubernetes CSV format;
//!   no token is Unauthorized, a valid token works and is the CSR's `spec.username`;
//!   kubectl speaks HTTP/2 to the TLS server (the request logs show it);
//! - `kubectl_with_client_certificates`: `--client-ca-file`; a client certificate is the
//!   user of its CN in the groups of its O (`kubectl auth whoami`, a CSR's
//!   `spec.username`), one of another CA is Unauthorized;
//! - `kubectl_against_rbac_server`: `--authorization-mode RBAC` with three users (one in
//!   `system:masters`, one with a namespaced Role, one with nothing): the bootstrap policy,
//!   allowed and Forbidden requests with the API server's messages (resources, the
//!   cluster scope, paths, a binding to a missing role), `kubectl auth can-i` (with
//!   `--list`), `kubectl auth whoami`, `kubectl --as`, `view` and a role aggregated into
//!   it, and roles and bindings that would escalate refused;
//! - `kubectl_against_custom_resources`: the fixture crate's custom resources
//!   (`tests/fixture-specs/gizmos.crd.yaml`) served in process by the same store on a free
//!   loopback port: `kubectl scale` (a merge patch of the `scale` subresource; with
//!   `--current-replicas`, a GET and a PUT of the Scale), `get --raw .../scale`, a CEL rule
//!   rejecting a scale, and the `Warning` of deprecated versions.
//!
//! Each run gets its own kubeconfig and a fresh `--cache-dir` in a temporary directory.
//! Steps run in order and do not stop at the first failure: every failed step is listed
//! at the end, with its diagnosis when it is a known server problem (`KNOWN_FAILURES`),
//! and any failure fails the test. Nothing is skipped silently.
//!
//! Without `kubectl` on the PATH (or in `$KUBECTL`) the tests print
//! `SKIPPED: kubectl not found` and pass. `KUBECTL_E2E_LOG=1` prints every kubectl
//! command with its exit code and output, and the server's own output at the end.

mod harness;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use harness::process::ServerProcess;

/// Fixture files of these tests.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kubectl");

/// How long one kubectl command may take before it is killed and its step fails.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the server may take to print its `listening on` line.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the server may take to exit after SIGTERM.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a `kubectl get -w` may take to print an expected line.
const WATCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Steps known to fail because of a server or runtime problem, diagnosed, with the fix.
/// A listed step still fails the test; the note only says why. A listed step that
/// passes is reported so the entry can be removed.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

#[test]
fn kubectl_against_anonymous_server() {
    anonymous_server_scenario(&[], "anonymous server");
}

/// The same scenario against a server on an etcd of its own.
#[test]
fn kubectl_against_an_etcd_backed_server() {
    let Some(etcd) = harness::etcd::Etcd::start(1, "kubectl_against_an_etcd_backed_server") else { return };
    anonymous_server_scenario(&["--etcd-servers", &etcd.servers()], "anonymous server on etcd");
}

fn anonymous_server_scenario(server_args: &[&str], label: &'static str) {
    let Some(kubectl_bin) = harness::find_kubectl() else { return };
    let started = Instant::now();
    let dir = TempDir::new("anonymous");
    let mut server = ServerProcess::start(server_args);
    let k = Kubectl::new(&kubectl_bin, &dir, &server.url, None);
    let mut report = Report::new(label);

    report.step("version: kubectl talks to the server", || {
        let out = k.run(&["version"]).ok()?;
        out.stdout_has("Server Version: v1.")?;
        // A kubectl dispatcher picks its binary by the server's minor version.
        let server = out.stdout.lines().find_map(|l| l.strip_prefix("Server Version: "));
        let client = out.stdout.lines().find_map(|l| l.strip_prefix("Client Version: "));
        note(format!(
            "kubectl client {}, server {} (a kubectl dispatcher runs the server's minor)",
            client.unwrap_or("?"),
            server.unwrap_or("?")
        ));
        Ok(())
    });

    // Resource names: short names only when discovery lists them (the specs decide).
    let mut names = Names::full();
    report.step("api-resources lists both resources", || {
        let out = k.run(&["api-resources"]).ok()?;
        let hpa = api_resource(&out, "horizontalpodautoscalers", "autoscaling/v2", true, "HorizontalPodAutoscaler")?;
        let csr = api_resource(
            &out,
            "certificatesigningrequests",
            "certificates.k8s.io/v1",
            false,
            "CertificateSigningRequest",
        )?;
        // Short names must be the Kubernetes ones if the spec declares any.
        if !hpa.is_empty() {
            ensure(hpa.iter().any(|s| s == "hpa"), &out, "HPA short names lack `hpa`")?;
            names.hpa = "hpa";
        }
        if !csr.is_empty() {
            ensure(csr.iter().any(|s| s == "csr"), &out, "CSR short names lack `csr`")?;
            names.csr = "csr";
        }
        if names.hpa != "hpa" || names.csr != "csr" {
            note(format!(
                "discovery lists no short names (HPA {hpa:?}, CSR {csr:?}): the specs declare none, \
                 so the steps use `{}` and `{}`",
                names.hpa, names.csr
            ));
        }
        Ok(())
    });
    let Names { hpa, csr } = names;

    report.step("explain hpa.spec", || {
        let out = k.run(&["explain", &format!("{hpa}.spec")]).ok()?;
        out.stdout_line_matches(&["GROUP:", "autoscaling"])?;
        out.stdout_line_matches(&["KIND:", "HorizontalPodAutoscaler"])?;
        out.stdout_line_matches(&["VERSION:", "v2"])?;
        out.stdout_line_matches(&["FIELD:", "spec", "<HorizontalPodAutoscalerSpec>"])?;
        out.stdout_line_matches(&["maxReplicas", "<integer>", "-required-"])?;
        out.stdout_line_matches(&["minReplicas", "<integer>"])?;
        out.stdout_line_matches(&["scaleTargetRef", "<CrossVersionObjectReference>", "-required-"])?;
        out.stdout_line_matches(&["metrics", "<[]MetricSpec>"])?;
        Ok(())
    });

    report.step("explain certificatesigningrequest.spec", || {
        let out = k.run(&["explain", "certificatesigningrequest.spec"]).ok()?;
        out.stdout_line_matches(&["GROUP:", "certificates.k8s.io"])?;
        out.stdout_line_matches(&["KIND:", "CertificateSigningRequest"])?;
        out.stdout_line_matches(&["FIELD:", "spec", "<CertificateSigningRequestSpec>"])?;
        out.stdout_line_matches(&["request", "<string>", "-required-"])?;
        out.stdout_line_matches(&["signerName", "<string>", "-required-"])?;
        out.stdout_line_matches(&["expirationSeconds", "<integer>"])?;
        out.stdout_line_matches(&["usages", "<[]string>"])?;
        Ok(())
    });

    report.step("create -f hpa.yaml", || {
        let out = k.run(&["create", "-f", &fixture("hpa.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web created\n")?;
        Ok(())
    });

    report.step("create -f csr.yaml (real PEM request)", || {
        let out = k.run(&["create", "-f", &fixture("csr.yaml")]).ok()?;
        out.stdout_is("certificatesigningrequest.certificates.k8s.io/e2e-client created\n")?;
        let request = k.jsonpath(&["get", csr, "e2e-client"], "{.spec.request}")?;
        let expected = fixture_field("csr.yaml", "request")?;
        ensure_eq(&request, &expected, "spec.request read back differs from the one sent")?;
        let signer = k.jsonpath(&["get", csr, "e2e-client"], "{.spec.signerName}")?;
        ensure_eq(&signer, "kubernetes.io/kube-apiserver-client", "spec.signerName")?;
        // The server sets the requestor: here no one authenticated.
        let username = k.jsonpath(&["get", csr, "e2e-client"], "{.spec.username}")?;
        ensure_eq(&username, "system:anonymous", "spec.username of an anonymous request")?;
        Ok(())
    });

    report.step("create of an existing object: AlreadyExists", || {
        let out = k.run(&["create", "-f", &fixture("hpa.yaml")]).fails()?;
        out.stderr_is(
            "Error from server (AlreadyExists): error when creating \"FIXTURE\": \
             horizontalpodautoscalers.autoscaling \"web\" already exists\n"
                .replace("FIXTURE", &fixture("hpa.yaml"))
                .as_str(),
        )?;
        Ok(())
    });

    report.step("get (table)", || {
        let out = k.run(&["get", hpa]).ok()?;
        let rows = out.rows();
        ensure(rows.first().is_some_and(|r| r.first() == Some(&"NAME")), &out, "no NAME header")?;
        ensure(rows.iter().skip(1).any(|r| r[0] == "web"), &out, "no row for web")?;
        let out = k.run(&["get", hpa, "web"]).ok()?;
        ensure(out.rows().iter().skip(1).any(|r| r[0] == "web"), &out, "no row for web")?;
        let out = k.run(&["get", csr]).ok()?;
        ensure(out.rows().iter().skip(1).any(|r| r[0] == "e2e-client"), &out, "no row for e2e-client")?;
        Ok(())
    });

    report.step("get of a missing object: NotFound", || {
        let out = k.run(&["get", hpa, "missing"]).fails()?;
        out.stderr_is("Error from server (NotFound): horizontalpodautoscalers.autoscaling \"missing\" not found\n")?;
        Ok(())
    });

    report.step("get -o yaml", || {
        let out = k.run(&["get", hpa, "web", "-o", "yaml"]).ok()?;
        for line in [
            "apiVersion: autoscaling/v2",
            "kind: HorizontalPodAutoscaler",
            "name: web",
            "namespace: default",
            "maxReplicas: 5",
            "minReplicas: 1",
            "averageUtilization: 80",
            "kind: Deployment",
        ] {
            out.stdout_has_line(line)?;
        }
        for key in ["resourceVersion:", "uid:", "creationTimestamp:"] {
            out.stdout_has_line_starting(key)?;
        }
        Ok(())
    });

    report.step("get -A", || {
        k.run(&["create", "namespace", "other"]).ok()?.stdout_is("namespace/other created\n")?;
        let out = k.run(&["create", "-n", "other", "-f", &fixture("hpa.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web created\n")?;
        let out = k.run(&["get", hpa, "-A"]).ok()?;
        let rows = out.rows();
        ensure(
            rows.first().is_some_and(|r| r.starts_with(&["NAMESPACE", "NAME"])),
            &out,
            "header is not NAMESPACE NAME ...",
        )?;
        for ns in ["default", "other"] {
            ensure(rows.iter().skip(1).any(|r| r.starts_with(&[ns, "web"])), &out, &format!("no row for {ns}/web"))?;
        }
        let out = k.run(&["get", hpa, "-n", "other"]).ok()?;
        ensure(out.rows().len() == 2, &out, "namespace other should list exactly web")?;
        Ok(())
    });

    report.step("get -w sees later changes", || {
        let mut watch = k.background(&["get", hpa, "--watch", "--output-watch-events"])?;
        let is = |event: &'static str, name: &'static str| {
            move |row: &[&str]| row.len() >= 2 && row[0] == event && row[1] == name
        };
        watch.wait_for_row(is("ADDED", "web"), "the initial ADDED web")?;
        let out = k.run(&["label", hpa, "web", "watched=yes"]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web labeled\n")?;
        watch.wait_for_row(is("MODIFIED", "web"), "MODIFIED web (after kubectl label)")?;
        let manifest = read_fixture("hpa.yaml").replace("name: web\nspec", "name: web-watch\nspec");
        let out = k.run_stdin(&["create", "-f", "-"], &manifest).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web-watch created\n")?;
        watch.wait_for_row(is("ADDED", "web-watch"), "ADDED web-watch (after kubectl create)")?;
        watch.stop();
        Ok(())
    });

    report.step("apply -f: created, configured, unchanged", || {
        let out = k.run(&["apply", "-f", &fixture("hpa-apply.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/applied created\n")?;
        let out = k.run(&["apply", "-f", &fixture("hpa-apply-changed.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/applied configured\n")?;
        let max = k.jsonpath(&["get", hpa, "applied"], "{.spec.maxReplicas}")?;
        ensure_eq(&max, "4", "maxReplicas after the second apply")?;
        let stage = k.jsonpath(&["get", hpa, "applied"], "{.metadata.labels.stage}")?;
        ensure_eq(&stage, "two", "label stage after the second apply")?;
        let out = k.run(&["apply", "-f", &fixture("hpa-apply-changed.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/applied unchanged\n")?;
        Ok(())
    });

    report.step("apply --server-side", || {
        let out = k.run(&["apply", "--server-side", "-f", &fixture("hpa-ssa.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/ssa serverside-applied\n")?;
        let managers = k.jsonpath(&["get", hpa, "ssa"], "{.metadata.managedFields[*].manager}")?;
        ensure_eq(&managers, "kubectl", "managedFields managers after the first apply")?;
        let operations = k.jsonpath(&["get", hpa, "ssa"], "{.metadata.managedFields[*].operation}")?;
        ensure_eq(&operations, "Apply", "managedFields operations after the first apply")?;
        Ok(())
    });

    let apply_other = |force: bool| {
        let file = fixture("hpa-ssa-other.yaml");
        let mut args = vec!["apply", "--server-side", "--field-manager=other", "-f", file.as_str()];
        if force {
            args.push("--force-conflicts");
        }
        k.run(&args)
    };

    report.step("apply --server-side by another manager: conflict", || {
        let out = apply_other(false).fails()?;
        out.stderr_has("Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxReplicas")?;
        let max = k.jsonpath(&["get", hpa, "ssa"], "{.spec.maxReplicas}")?;
        ensure_eq(&max, "3", "maxReplicas after the refused apply")?;
        Ok(())
    });

    report.step("apply --server-side --force-conflicts", || {
        let out = apply_other(true).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/ssa serverside-applied\n")?;
        let max = k.jsonpath(&["get", hpa, "ssa"], "{.spec.maxReplicas}")?;
        ensure_eq(&max, "8", "maxReplicas after the forced apply")?;
        let managers = k.jsonpath(&["get", hpa, "ssa"], "{.metadata.managedFields[*].manager}")?;
        ensure(
            managers.split(' ').any(|m| m == "other"),
            &out,
            &format!("managedFields managers {managers:?} lack `other`"),
        )?;
        // kubectl still manages the fields it applied and nobody took from it.
        ensure(
            managers.split(' ').any(|m| m == "kubectl"),
            &out,
            &format!("managedFields managers {managers:?} lack `kubectl` (it still owns minReplicas)"),
        )?;
        Ok(())
    });

    report.step("patch --type=merge", || {
        let out = k.run(&["patch", hpa, "web", "--type=merge", "-p", r#"{"spec":{"maxReplicas":7}}"#]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web patched\n")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.maxReplicas}")?, "7", "maxReplicas")?;
        Ok(())
    });

    report.step("patch --type=json", || {
        let patch = r#"[{"op":"replace","path":"/spec/minReplicas","value":2}]"#;
        let out = k.run(&["patch", hpa, "web", "--type=json", "-p", patch]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web patched\n")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.minReplicas}")?, "2", "minReplicas")?;
        Ok(())
    });

    report.step("patch (strategic, the default type)", || {
        let patch = r#"{"metadata":{"labels":{"tier":"frontend"}},"spec":{"maxReplicas":9}}"#;
        let out = k.run(&["patch", hpa, "web", "-p", patch]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web patched\n")?;
        let labels = k.jsonpath(&["get", hpa, "web"], "{.metadata.labels}")?;
        ensure_eq(&labels, r#"{"tier":"frontend","watched":"yes"}"#, "labels")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.maxReplicas}")?, "9", "maxReplicas")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.minReplicas}")?, "2", "minReplicas")?;
        Ok(())
    });

    report.step("patch (strategic): lists merge by their patch merge key", || {
        // metadata.ownerReferences: x-kubernetes-patch-strategy merge, merge key uid. A
        // strategic merge patch adds the second owner; a JSON merge patch would replace the list.
        // The owners exist: the garbage collector deletes the dependents of missing ones.
        let mut expected = Vec::new();
        for name in ["owner-a", "owner-b"] {
            let manifest = read_fixture("hpa.yaml").replace("name: web\nspec", &format!("name: {name}\nspec"));
            k.run_stdin(&["create", "-f", "-"], &manifest).ok()?;
            let uid = k.jsonpath(&["get", hpa, name], "{.metadata.uid}")?;
            let owner = format!(
                r#"{{"metadata":{{"ownerReferences":[{{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","name":"{name}","uid":"{uid}"}}]}}}}"#
            );
            let out = k.run(&["patch", hpa, "web", "-p", &owner]).ok()?;
            out.stdout_is("horizontalpodautoscaler.autoscaling/web patched\n")?;
            expected.push(uid);
        }
        // Both owners, in whatever order (apimachinery puts the patch's items first).
        let uids = k.jsonpath(&["get", hpa, "web"], "{.metadata.ownerReferences[*].uid}")?;
        let mut sorted: Vec<&str> = uids.split(' ').collect();
        sorted.sort_unstable();
        expected.sort_unstable();
        ensure_eq(&sorted.join(" "), &expected.join(" "), "ownerReferences uids after two strategic patches")?;
        // Deleting the owners with --cascade=orphan keeps web, without owners.
        k.run(&["delete", hpa, "owner-a", "owner-b", "--cascade=orphan"]).ok()?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.metadata.ownerReferences}")?, "", "ownerReferences after orphaning")?;
        Ok(())
    });

    report.step("replace -f", || {
        let out = k.run(&["replace", "-f", &fixture("hpa-replace.yaml")]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web replaced\n")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.maxReplicas}")?, "10", "maxReplicas")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.metadata.labels}")?, "", "labels")?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.metrics}")?, "", "metrics")?;
        Ok(())
    });

    report.step("replace -f with a stale resourceVersion: Conflict", || {
        let current = k.run(&["get", hpa, "web", "-o", "yaml"]).ok()?;
        ensure(current.stdout.contains("maxReplicas: 10"), &current, "unexpected web")?;
        k.run(&["patch", hpa, "web", "--type=merge", "-p", r#"{"spec":{"maxReplicas":11}}"#]).ok()?;
        let stale = current.stdout.replace("maxReplicas: 10", "maxReplicas: 12");
        let out = k.run_stdin(&["replace", "-f", "-"], &stale).fails()?;
        out.stderr_is(
            "Error from server (Conflict): error when replacing \"STDIN\": Operation cannot be fulfilled \
             on horizontalpodautoscalers.autoscaling \"web\": the object has been modified; please apply \
             your changes to the latest version and try again\n",
        )?;
        ensure_eq(&k.jsonpath(&["get", hpa, "web"], "{.spec.maxReplicas}")?, "11", "maxReplicas")?;
        Ok(())
    });

    report.step("create of an invalid object: 422 with its field causes", || {
        let out = k.run(&["create", "-f", &fixture("hpa-invalid.yaml")]).fails()?;
        out.stderr_is(
            "The HorizontalPodAutoscaler \"bad\" is invalid: spec.minReplicas: Invalid value: 0: \
             must be greater than or equal to 1\n",
        )?;
        let out = k.run(&["get", hpa, "bad"]).fails()?;
        out.stderr_has("(NotFound)")?;
        Ok(())
    });

    report.step("delete waits until the object is gone", || {
        let out = k.run(&["delete", hpa, "web"]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling \"web\" deleted\n")?;
        let out = k.run(&["get", hpa, "web"]).fails()?;
        out.stderr_is("Error from server (NotFound): horizontalpodautoscalers.autoscaling \"web\" not found\n")?;
        Ok(())
    });

    report.step("delete --all", || {
        let out = k.run(&["delete", hpa, "--all"]).ok()?;
        let mut deleted: Vec<&str> = out.stdout.lines().collect();
        deleted.sort_unstable();
        ensure_eq(
            &deleted.join("\n"),
            "horizontalpodautoscaler.autoscaling \"applied\" deleted\n\
             horizontalpodautoscaler.autoscaling \"ssa\" deleted\n\
             horizontalpodautoscaler.autoscaling \"web-watch\" deleted",
            "deleted objects",
        )?;
        let out = k.run(&["get", hpa]).ok()?;
        out.stdout_is("")?;
        out.stderr_is("No resources found in default namespace.\n")?;
        let out = k.run(&["get", hpa, "-A"]).ok()?;
        ensure(out.rows().len() == 2, &out, "only other/web should be left")?;
        Ok(())
    });

    let approval = r#"{"status":{"conditions":[{"type":"Approved","status":"True","reason":"Test","message":"ok"}]}}"#;

    report.step("certificate approve (protobuf)", || {
        // kubectl 1.32 and later PUT .../approval as application/vnd.kubernetes.protobuf only.
        let out = k.run(&["certificate", "approve", "e2e-client"]).ok()?;
        out.stdout_is("certificatesigningrequest.certificates.k8s.io/e2e-client approved\n")?;
        let types = k.jsonpath(&["get", csr, "e2e-client"], "{.status.conditions[*].type}")?;
        ensure_eq(&types, "Approved", "condition types after approve")?;
        Ok(())
    });

    report.step("patch --subresource=approval (JSON route)", || {
        let out =
            k.run(&["patch", csr, "e2e-client", "--subresource=approval", "--type=merge", "-p", approval]).ok()?;
        out.stdout_is("certificatesigningrequest.certificates.k8s.io/e2e-client patched\n")?;
        let types = k.jsonpath(&["get", csr, "e2e-client"], "{.status.conditions[*].type}")?;
        ensure_eq(&types, "Approved", "condition types")?;
        let reason = k.jsonpath(&["get", csr, "e2e-client"], "{.status.conditions[0].reason}")?;
        ensure_eq(&reason, "Test", "condition reason")?;
        Ok(())
    });

    report.step("get csr shows Approved", || {
        let out = k.run(&["get", csr]).ok()?;
        ensure(
            out.rows().iter().any(|r| r.first() == Some(&"e2e-client") && r.contains(&"Approved")),
            &out,
            "the e2e-client row does not show Approved",
        )?;
        Ok(())
    });

    report.step("delete csr", || {
        let out = k.run(&["delete", csr, "e2e-client"]).ok()?;
        out.stdout_is("certificatesigningrequest.certificates.k8s.io \"e2e-client\" deleted\n")?;
        let out = k.run(&["get", csr]).ok()?;
        out.stderr_is("No resources found\n")?;
        Ok(())
    });

    probe_steps(&k, &mut report);
    core_steps(&k, &mut report);

    report.step("SIGTERM shuts the server down", || shut_down(&mut server));
    report.finish(started, &server);
}

/// core/v1 kinds as kubectl sends them (its `create namespace`, `create configmap`, ...
/// send protobuf), and the namespace lifecycle.
fn core_steps(k: &Kubectl, report: &mut Report) {
    report.step("create namespace, configmap, secret and service account (protobuf)", || {
        k.run(&["create", "namespace", "team-a"]).ok()?.stdout_is("namespace/team-a created\n")?;
        let out = k.run(&["create", "configmap", "web", "-n", "team-a", "--from-literal=color=blue"]).ok()?;
        out.stdout_is("configmap/web created\n")?;
        let out =
            k.run(&["create", "secret", "generic", "db", "-n", "team-a", "--from-literal=password=s3cret"]).ok()?;
        out.stdout_is("secret/db created\n")?;
        k.run(&["create", "serviceaccount", "bot", "-n", "team-a"]).ok()?.stdout_is("serviceaccount/bot created\n")?;
        let color = k.jsonpath(&["get", "configmap", "web", "-n", "team-a"], "{.data.color}")?;
        ensure_eq(&color, "blue", "the ConfigMap's data")?;
        let secret = k.jsonpath(&["get", "secret", "db", "-n", "team-a"], "{.type} {.data.password}")?;
        ensure_eq(&secret, "Opaque czNjcmV0", "the Secret's type and data")?;
        let fields = r"{.status.phase} {.spec.finalizers} {.metadata.labels.kubernetes\.io/metadata\.name}";
        let namespace = k.jsonpath(&["get", "namespace", "team-a"], fields)?;
        ensure_eq(&namespace, r#"Active ["kubernetes"] team-a"#, "the namespace's phase, finalizers and name label")?;
        let out = k.run(&["get", "sa", "-n", "team-a", "-o", "name"]).ok()?;
        out.stdout_is("serviceaccount/bot\n")?;
        Ok(())
    });

    report.step("get namespace, configmap and secret print kube's columns", || {
        let out = k.run(&["get", "namespace", "team-a"]).ok()?;
        let rows = out.rows();
        ensure(rows.first().is_some_and(|h| h[..] == ["NAME", "STATUS", "AGE"]), &out, "namespace columns")?;
        ensure(rows.get(1).is_some_and(|r| r[..2] == ["team-a", "Active"]), &out, "the namespace row")?;
        let out = k.run(&["get", "configmap", "web", "-n", "team-a"]).ok()?;
        let rows = out.rows();
        ensure(rows.first().is_some_and(|h| h[..] == ["NAME", "DATA", "AGE"]), &out, "configmap columns")?;
        ensure(rows.get(1).is_some_and(|r| r[..2] == ["web", "1"]), &out, "the configmap row")?;
        // The age as kubectl shows it (`5s`), not the timestamp.
        ensure(rows.get(1).is_some_and(|r| r[2].ends_with('s') && !r[2].contains(':')), &out, "the configmap age")?;
        let out = k.run(&["get", "secret", "db", "-n", "team-a"]).ok()?;
        let rows = out.rows();
        ensure(rows.first().is_some_and(|h| h[..] == ["NAME", "TYPE", "DATA", "AGE"]), &out, "secret columns")?;
        ensure(rows.get(1).is_some_and(|r| r[..3] == ["db", "Opaque", "1"]), &out, "the secret row")?;
        ensure(rows.get(1).is_some_and(|r| r[3].ends_with('s') && !r[3].contains(':')), &out, "the secret age")?;
        Ok(())
    });
    report.step("get endpointslices prints the first three ports and addresses", || {
        let manifest = "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: web-1\n  namespace: team-a\naddressType: IPv4\nports:\n- port: 80\n- name: https\nendpoints:\n- addresses: [10.0.0.1, 10.0.0.2]\n- addresses: [10.0.0.3]\n- addresses: [10.0.0.4]\n";
        let out = k.run_stdin(&["create", "-f", "-"], manifest).ok()?;
        out.stdout_is("endpointslice.discovery.k8s.io/web-1 created\n")?;
        let out = k.run(&["get", "endpointslices", "-n", "team-a"]).ok()?;
        let rows = out.rows();
        let header = ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"];
        ensure(rows.first().is_some_and(|h| h[..] == header), &out, "endpointslice columns")?;
        let row = ["web-1", "IPv4", "80,https", "10.0.0.1,10.0.0.2,10.0.0.3", "+", "1", "more..."];
        ensure(rows.get(1).is_some_and(|r| r.len() == 8 && r[..7] == row), &out, "the endpointslice row")?;
        ensure(rows.get(1).is_some_and(|r| r[7].ends_with('s') && !r[7].contains(':')), &out, "the slice's age")?;
        Ok(())
    });

    report.step("run a pod and create a deployment (protobuf): the API server's defaults", || {
        let out = k.run(&["run", "web", "-n", "team-a", "--image=nginx:1.27", "--port=80"]).ok()?;
        out.stdout_is("pod/web created\n")?;
        let fields = "{.status.phase} {.status.qosClass} {.spec.restartPolicy} {.spec.dnsPolicy} \
                      {.spec.containers[0].imagePullPolicy} {.spec.containers[0].ports[0].protocol}";
        let pod = k.jsonpath(&["get", "pod", "web", "-n", "team-a"], fields)?;
        ensure_eq(&pod, "Pending BestEffort Always ClusterFirst IfNotPresent TCP", "the pod's defaults")?;
        let out = k.run(&["get", "pods", "-n", "team-a"]).ok()?;
        let rows = out.rows();
        ensure(
            rows.first().is_some_and(|h| h[..] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
            &out,
            "pod columns",
        )?;
        ensure(rows.get(1).is_some_and(|r| r[..4] == ["web", "0/1", "Pending", "0"]), &out, "the pod row")?;
        let out = k.run(&["create", "deployment", "api", "-n", "team-a", "--image=nginx", "--replicas=2"]).ok()?;
        out.stdout_is("deployment.apps/api created\n")?;
        let fields = "{.spec.replicas} {.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} \
                      {.spec.revisionHistoryLimit} {.spec.template.spec.containers[0].imagePullPolicy}";
        let deployment = k.jsonpath(&["get", "deployment", "api", "-n", "team-a"], fields)?;
        ensure_eq(&deployment, "2 RollingUpdate 25% 10 Always", "the deployment's defaults")?;
        let out = k.run(&["get", "deployments", "-n", "team-a", "-o", "wide"]).ok()?;
        let rows = out.rows();
        let header = ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"];
        ensure(rows.first().is_some_and(|h| h[..] == header), &out, "deployment columns")?;
        let row = |r: &Vec<&str>| r[..4] == ["api", "0/2", "0", "0"] && r[5..] == ["nginx", "nginx", "app=api"];
        ensure(rows.get(1).is_some_and(row), &out, "the deployment row")?;
        Ok(())
    });

    report.step("a create in a missing namespace: NotFound", || {
        let out = k.run(&["create", "configmap", "stray", "-n", "nowhere"]).fails()?;
        out.stderr_is("error: failed to create configmap: namespaces \"nowhere\" not found\n")?;
        Ok(())
    });

    report.step("delete namespace: everything in it goes with it", || {
        k.run(&["delete", "namespace", "team-a"]).ok()?.stdout_is("namespace \"team-a\" deleted\n")?;
        let out = k.run(&["get", "namespace", "team-a"]).fails()?;
        out.stderr_is("Error from server (NotFound): namespaces \"team-a\" not found\n")?;
        let out = k.run(&["get", "configmaps,secrets,pods,deployments", "-n", "team-a"]).ok()?;
        out.stderr_is("No resources found in team-a namespace.\n")?;
        Ok(())
    });

    report.step("the default namespace may not be deleted", || {
        let out = k.run(&["delete", "namespace", "default"]).fails()?;
        out.stderr_is(
            "Error from server (Forbidden): namespaces \"default\" is forbidden: this namespace may not be deleted\n",
        )?;
        Ok(())
    });
}

/// The Probe custom resource (`specs/monitoring.coreos.com_probes.yaml`) through kubectl.
fn probe_steps(k: &Kubectl, report: &mut Report) {
    report.step("api-resources lists the Probe with its short name and category", || {
        let out = k.run(&["api-resources", "-o", "wide"]).ok()?;
        let rows = out.rows();
        let Some(row) = rows.iter().find(|r| r.first() == Some(&"probes")) else {
            return Err(format!("no row for probes\n{}", out.show()));
        };
        // NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES
        let expected = [
            "probes",
            "prb",
            "monitoring.coreos.com/v1",
            "true",
            "Probe",
            "create,delete,deletecollection,get,list,patch,update,watch",
            "prometheus-operator",
        ];
        ensure(row.as_slice() == expected, &out, &format!("the probes row should be {expected:?}"))
    });

    report.step("explain probe.spec", || {
        let out = k.run(&["explain", "probe.spec"]).ok()?;
        out.stdout_line_matches(&["GROUP:", "monitoring.coreos.com"])?;
        out.stdout_line_matches(&["KIND:", "Probe"])?;
        out.stdout_line_matches(&["VERSION:", "v1"])?;
        out.stdout_line_matches(&["FIELD:", "spec", "<ProbeSpec>"])?;
        out.stdout_line_matches(&["prober", "<ProbeProber>"])?;
        out.stdout_line_matches(&["targets", "<ProbeTargets>"])?;
        out.stdout_line_matches(&["module", "<string>"])?;
        Ok(())
    });

    report.step("create -f probe.yaml", || {
        let out = k.run(&["create", "-f", &fixture("probe.yaml")]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com/blackbox-http created\n")
    });

    let prober = "blackbox-exporter.monitoring.svc:9115";
    report.step("get probes / prb: the printer columns", || {
        for name in ["probes", "prb"] {
            let out = k.run(&["get", name]).ok()?;
            let rows = out.rows();
            ensure(
                rows.first().is_some_and(|r| r == &["NAME", "PROBER", "MODULE", "AGE"]),
                &out,
                "the header should be NAME PROBER MODULE AGE (INTERVAL has priority 1)",
            )?;
            ensure(
                rows.len() == 2 && rows[1].len() == 4 && rows[1][..3] == ["blackbox-http", prober, "http_2xx"],
                &out,
                "one row: blackbox-http, its prober and module, an age",
            )?;
        }
        Ok(())
    });

    let wide_row = |expected_interval: &str| -> StepResult {
        let out = k.run(&["get", "prb", "-o", "wide"]).ok()?;
        let rows = out.rows();
        ensure(
            rows.first().is_some_and(|r| r == &["NAME", "PROBER", "MODULE", "INTERVAL", "AGE"]),
            &out,
            "the wide header should add INTERVAL",
        )?;
        ensure(
            rows.len() == 2 && rows[1][..4] == ["blackbox-http", prober, "http_2xx", expected_interval],
            &out,
            &format!("the wide row should show interval {expected_interval}"),
        )
    };
    report.step("get prb -o wide: the priority-1 column", || wide_row("30s"));

    report.step("get prometheus-operator (the category)", || {
        let out = k.run(&["get", "prometheus-operator"]).ok()?;
        ensure(
            out.rows().iter().skip(1).any(|r| r.first() == Some(&"blackbox-http")),
            &out,
            "the category lists blackbox-http",
        )
    });

    report.step("get -o yaml", || {
        let out = k.run(&["get", "probe", "blackbox-http", "-o", "yaml"]).ok()?;
        for line in [
            "apiVersion: monitoring.coreos.com/v1",
            "kind: Probe",
            "name: blackbox-http",
            "namespace: default",
            "module: http_2xx",
            "interval: 30s",
            "path: /probe",
            "url: blackbox-exporter.monitoring.svc:9115",
        ] {
            out.stdout_has_line(line)?;
        }
        Ok(())
    });

    report.step("defaults of the CRD are applied on create", || {
        // probe.yaml without `prober.path` (default /probe) and with a relabeling without
        // `action` (default replace).
        let manifest = read_fixture("probe.yaml")
            .replace("name: blackbox-http\n", "name: defaulted\n")
            .replace("    path: /probe\n", "")
            .replace("    action: drop\n", "");
        ensure(!manifest.contains("path:") && !manifest.contains("action:"), &Out::note(&manifest), "the manifest")?;
        let out = k.run_stdin(&["create", "-f", "-"], &manifest).ok()?;
        out.stdout_is("probe.monitoring.coreos.com/defaulted created\n")?;
        ensure_eq(&k.jsonpath(&["get", "probe", "defaulted"], "{.spec.prober.path}")?, "/probe", "spec.prober.path")?;
        ensure_eq(
            &k.jsonpath(&["get", "probe", "defaulted"], "{.spec.metricRelabelings[0].action}")?,
            "replace",
            "spec.metricRelabelings[0].action",
        )?;
        let out = k.run(&["delete", "probe", "defaulted"]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com \"defaulted\" deleted\n")
    });

    report.step("apply -f probe-changed.yaml (merge patch, no strategic merge for a CRD)", || {
        let out = k.run(&["apply", "-f", &fixture("probe-changed.yaml")]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com/blackbox-http configured\n")?;
        // Created by `create`: kubectl warns that the annotation is missing, then adds it.
        out.stderr_has("missing the kubectl.kubernetes.io/last-applied-configuration annotation")?;
        wide_row("60s")?;
        let targets = k.jsonpath(&["get", "prb", "blackbox-http"], "{.spec.targets.staticConfig.static[*]}")?;
        ensure_eq(
            &targets,
            "https://example.com https://example.org/healthz https://example.net/status",
            "targets after the apply",
        )?;
        let out = k.run(&["apply", "-f", &fixture("probe-changed.yaml")]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com/blackbox-http unchanged\n")
    });

    report.step("patch without --type: strategic merge patch is refused for a CRD", || {
        let out = k.run(&["patch", "prb", "blackbox-http", "-p", r#"{"spec":{"module":"x"}}"#]).fails()?;
        out.stderr_is(
            "error: application/strategic-merge-patch+json is not supported by monitoring.coreos.com/v1, \
             Kind=Probe: the body of the request was in an unknown format - accepted media types include: \
             application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n",
        )
    });

    report.step("apply --server-side (taking over from client-side apply)", || {
        let file = fixture("probe.yaml");
        let out = k.run(&["apply", "--server-side", "-f", &file]).fails()?;
        out.stderr_has(
            "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using monitoring.coreos.com/v1:",
        )?;
        out.stderr_has("- .spec.interval")?;
        let out = k.run(&["apply", "--server-side", "--force-conflicts", "-f", &file]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com/blackbox-http serverside-applied\n")?;
        wide_row("30s")?;
        let managers =
            k.jsonpath(&["get", "prb", "blackbox-http"], "{.metadata.managedFields[*].manager}")?;
        ensure(
            managers.split(' ').any(|m| m == "kubectl"),
            &Out::note(&managers),
            "kubectl (the server-side applier) manages fields",
        )
    });

    report.step("create of a probe breaking a CEL rule: 422", || {
        // Targets with neither staticConfig nor ingress.
        let manifest = read_fixture("probe.yaml").replace("name: blackbox-http\n", "name: bad\n");
        let start = manifest.find("  targets:\n").ok_or("probe.yaml has no targets")?;
        let end = manifest.find("  metricRelabelings:").ok_or("probe.yaml has no metricRelabelings")?;
        let manifest = format!("{}  targets: {{}}\n{}", &manifest[..start], &manifest[end..]);
        let out = k.run_stdin(&["create", "-f", "-"], &manifest).fails()?;
        out.stderr_is(
            "The Probe \"bad\" is invalid: spec.targets: Invalid value: \"object\": targets must set \
             staticConfig or ingress\n",
        )?;
        let out = k.run(&["get", "probe", "bad"]).fails()?;
        out.stderr_has("(NotFound)")
    });

    report.step("patch --type=merge", || {
        let patch = r#"{"spec":{"module":"http_post_2xx"}}"#;
        let out = k.run(&["patch", "probe", "blackbox-http", "--type=merge", "-p", patch]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com/blackbox-http patched\n")?;
        let module = k.jsonpath(&["get", "prb", "blackbox-http"], "{.spec.module}")?;
        ensure_eq(&module, "http_post_2xx", "spec.module")
    });

    report.step("delete -f probe.yaml", || {
        let out = k.run(&["delete", "-f", &fixture("probe.yaml")]).ok()?;
        out.stdout_is("probe.monitoring.coreos.com \"blackbox-http\" deleted\n")?;
        let out = k.run(&["get", "prb"]).ok()?;
        out.stderr_is("No resources found in default namespace.\n")
    });
}

#[test]
fn kubectl_against_custom_resources() {
    let Some(kubectl_bin) = harness::find_kubectl() else { return };
    let started = Instant::now();
    let dir = TempDir::new("custom");
    let server = InProcessServer::start_fixture();
    let k = Kubectl::new(&kubectl_bin, &dir, &server.url, None);
    let mut report = Report::new("custom resources (fixture crate, in process)");
    let scale_path = "/apis/crd.example.com/v1/namespaces/default/gizmos/tool/scale";
    let replicas = || k.jsonpath(&["get", "gizmo", "tool"], "{.spec.replicas}");

    report.step("create -f gizmo.yaml", || {
        let out = k.run(&["create", "-f", &fixture("gizmo.yaml")]).ok()?;
        out.stdout_is("gizmo.crd.example.com/tool created\n")?;
        let out = k.run(&["get", "gz"]).ok()?;
        let rows = out.rows();
        ensure(
            rows.first().is_some_and(|r| r == &["NAME", "REPLICAS", "MODE", "AGE"]),
            &out,
            "the header should be NAME REPLICAS MODE AGE",
        )?;
        ensure(rows.len() == 2 && rows[1][..3] == ["tool", "1", "Always"], &out, "the row of tool")
    });

    report.step("scale --replicas=3: a merge patch of the scale subresource", || {
        // kubectl 1.32: GET of the object, then PATCH .../scale with
        // `Content-Type: application/merge-patch+json`, body `{"spec":{"replicas":3}}`.
        let out = k.run(&["scale", "gizmo", "tool", "--replicas=3"]).ok()?;
        out.stdout_is("gizmo.crd.example.com/tool scaled\n")?;
        ensure_eq(&replicas()?, "3", "spec.replicas")?;
        let expected = format!("PATCH {scale_path} application/merge-patch+json -> 200");
        server.ensure_request(&expected)
    });

    report.step("get --raw .../scale: the autoscaling/v1 Scale", || {
        let out = k.run(&["get", "--raw", scale_path]).ok()?;
        let scale: serde_json::Value =
            serde_json::from_str(&out.stdout).map_err(|e| format!("not JSON ({e})\n{}", out.show()))?;
        ensure(
            scale["apiVersion"] == "autoscaling/v1"
                && scale["kind"] == "Scale"
                && scale["metadata"]["name"] == "tool"
                && scale["metadata"]["namespace"] == "default"
                && scale["spec"]["replicas"] == 3
                && scale["status"]["replicas"] == 0,
            &out,
            "a Scale of tool with spec.replicas 3 and status.replicas 0",
        )
    });

    report.step("scale --current-replicas=3 --replicas=4: a GET and a PUT of the Scale", || {
        // With a precondition kubectl GETs the Scale and PUTs it back with the new
        // replicas (its resourceVersion set: a precondition too), as JSON but without a
        // Content-Type header (the API server then decodes its first media type, JSON).
        let out = k.run(&["scale", "gizmo", "tool", "--current-replicas=3", "--replicas=4"]).ok()?;
        out.stdout_is("gizmo.crd.example.com/tool scaled\n")?;
        ensure_eq(&replicas()?, "4", "spec.replicas")?;
        server.ensure_request(&format!("GET {scale_path}  -> 200"))?;
        server.ensure_request(&format!("PUT {scale_path}  -> 200"))
    });

    report.step("scale with a wrong --current-replicas: precondition failed", || {
        let out = k.run(&["scale", "gizmo", "tool", "--current-replicas=1", "--replicas=2"]).fails()?;
        out.stderr_has("Expected replicas to be 1, was 4")?;
        ensure_eq(&replicas()?, "4", "spec.replicas")
    });

    report.step("scale above maxReplicas: the CEL rule's 422", || {
        let out = k.run(&["scale", "gizmo", "tool", "--replicas=9"]).fails()?;
        out.stderr_is(
            "The Gizmo \"tool\" is invalid: spec.replicas: Invalid value: \"object\": replicas must \
             not exceed maxReplicas\n",
        )?;
        ensure_eq(&replicas()?, "4", "spec.replicas")
    });

    report.step("a deprecated version: kubectl prints the Warning", || {
        let out = k.run(&["get", "gizmos.v1beta1.crd.example.com"]).ok()?;
        out.stderr_has("Warning: crd.example.com/v1beta1 Gizmo is deprecated\n")?;
        ensure(out.rows().iter().any(|r| r.first() == Some(&"tool")), &out, "the list has tool")?;
        // Written through v1, read through v1beta1: in v1beta1.
        let version = k.jsonpath(&["get", "gizmos.v1beta1.crd.example.com", "tool"], "{.apiVersion}")?;
        ensure_eq(&version, "crd.example.com/v1beta1", "apiVersion through v1beta1")?;
        let out = k.run(&["get", "knobs"]).ok()?;
        out.stderr_has("Warning: crd.example.com/v1alpha1 Knob is going away; use a Gizmo\n")
    });

    report.step("the server stops", || server.stop());
    report.finish(started, &server);
}

/// The kubectl releases a dispatcher keeps beside itself (`kubectl.1.27` ... `kubectl.1.33`)
/// each create, get, apply, replace and explain an HPA (1.27 and 1.28 read `/openapi/v2`
/// first, as protobuf) and approve and deny a CSR (1.32 and 1.33 send the approval as
/// protobuf), against one server.
#[test]
fn kubectl_releases_1_27_to_1_33() {
    let Some(kubectl_bin) = harness::find_kubectl() else { return };
    let releases = kubectl_releases(&kubectl_bin);
    if releases.is_empty() {
        eprintln!(
            "\n==================================================\n\
             SKIPPED: no kubectl.1.27 ... kubectl.1.33 beside {}\n\
             ==================================================\n",
            kubectl_bin.display()
        );
        return;
    }
    let started = Instant::now();
    let dir = TempDir::new("releases");
    let server = ServerProcess::start(&[]);
    let mut report = Report::new("kubectl releases");
    let fixture = |name: &str| std::fs::read_to_string(Path::new(FIXTURES).join(name)).expect("a fixture");
    for (release, bin) in &releases {
        let k = Kubectl::new(bin, &dir, &server.url, None);
        let name = format!("web-{}", release.replace('.', "-"));
        let hpa = |file: &str| fixture(file).replace("name: web", &format!("name: {name}"));
        report.step(&format!("{release}: create"), || {
            let out = k.run_stdin(&["create", "-f", "-"], &hpa("hpa.yaml")).ok()?;
            out.stdout_is(&format!("horizontalpodautoscaler.autoscaling/{name} created\n"))
        });
        report.step(&format!("{release}: get"), || {
            let out = k.run(&["get", "horizontalpodautoscalers", &name]).ok()?;
            ensure(out.rows().iter().any(|r| r.first() == Some(&name.as_str())), &out, "no row for the HPA")
        });
        report.step(&format!("{release}: apply"), || {
            let changed = hpa("hpa.yaml").replace("maxReplicas: 5", "maxReplicas: 7");
            let out = k.run_stdin(&["apply", "-f", "-"], &changed).ok()?;
            out.stdout_is(&format!("horizontalpodautoscaler.autoscaling/{name} configured\n"))?;
            ensure_eq(
                &k.jsonpath(&["get", "horizontalpodautoscalers", &name], "{.spec.maxReplicas}")?,
                "7",
                "maxReplicas",
            )
        });
        report.step(&format!("{release}: replace"), || {
            let out = k.run_stdin(&["replace", "-f", "-"], &hpa("hpa-replace.yaml")).ok()?;
            out.stdout_is(&format!("horizontalpodautoscaler.autoscaling/{name} replaced\n"))?;
            ensure_eq(
                &k.jsonpath(&["get", "horizontalpodautoscalers", &name], "{.spec.maxReplicas}")?,
                "10",
                "maxReplicas",
            )
        });
        report.step(&format!("{release}: explain"), || {
            let out = k.run(&["explain", "horizontalpodautoscalers.spec"]).ok()?;
            out.stdout_line_matches(&["maxReplicas", "<integer>", "-required-"])
        });
        for (verb, done, condition) in [("approve", "approved", "Approved"), ("deny", "denied", "Denied")] {
            let csr_name = format!("{verb}-{}", release.replace('.', "-"));
            report.step(&format!("{release}: certificate {verb}"), || {
                let csr = fixture("csr.yaml").replace("name: e2e-client", &format!("name: {csr_name}"));
                k.run_stdin(&["create", "-f", "-"], &csr).ok()?;
                let out = k.run(&["certificate", verb, &csr_name]).ok()?;
                out.stdout_is(&format!("certificatesigningrequest.certificates.k8s.io/{csr_name} {done}\n"))?;
                let types =
                    k.jsonpath(&["get", "certificatesigningrequests", &csr_name], "{.status.conditions[*].type}")?;
                ensure_eq(&types, condition, "condition types")
            });
        }
    }
    report.finish(started, &server);
}

/// The `kubectl.1.NN` binaries (1.27 to 1.33) in the folder of the kubectl `bin` resolves
/// to, by release; a loud line for each one missing.
fn kubectl_releases(bin: &Path) -> Vec<(String, PathBuf)> {
    let resolved = if bin.components().count() > 1 {
        Some(bin.to_path_buf())
    } else {
        std::env::var_os("PATH")
            .and_then(|path| std::env::split_paths(&path).map(|dir| dir.join(bin)).find(|p| p.is_file()))
    };
    let Some(dir) =
        resolved.and_then(|p| std::fs::canonicalize(p).ok()).and_then(|p| p.parent().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    (27..=33)
        .filter_map(|minor| {
            let release = format!("1.{minor}");
            let path = dir.join(format!("kubectl.{release}"));
            if path.is_file() {
                Some((release, path))
            } else {
                eprintln!("SKIPPED: kubectl {release} ({} does not exist)", path.display());
                None
            }
        })
        .collect()
}

#[test]
fn kubectl_against_token_file_server() {
    if cfg!(not(feature = "tls-self-signed")) {
        eprintln!("SKIPPED: kubectl against a token-file server needs the `tls-self-signed` feature");
        return;
    }
    let Some(kubectl_bin) = harness::find_kubectl() else { return };
    let started = Instant::now();
    let dir = TempDir::new("token");
    let tokens = fixture("tokens.csv");
    // kubectl sends a kubeconfig's token only over TLS. `--v 1`: request logs.
    let mut server = ServerProcess::start(&["--token-file", &tokens, "--tls-self-signed", "--v", "1"]);
    let (anonymous_dir, stranger_dir, alice_dir) = (dir.sub("anonymous"), dir.sub("stranger"), dir.sub("alice"));
    let anonymous = Kubectl::new(&kubectl_bin, &anonymous_dir, &server.url, None);
    let stranger = Kubectl::new(&kubectl_bin, &stranger_dir, &server.url, Some("wrong-token"));
    let alice = Kubectl::new(&kubectl_bin, &alice_dir, &server.url, Some("e2e-token-alice"));
    let mut report = Report::new("token-file server");

    report.step("no token: Unauthorized", || {
        // Over TLS, kubectl answers a 401 to a user without credentials by asking for a
        // username (basic auth); with no terminal it stops at EOF. Full resource names:
        // discovery itself is refused without a token.
        let out = anonymous.run(&["get", "horizontalpodautoscalers"]).fails()?;
        out.stdout_has("Please enter Username")?;
        Ok(())
    });

    report.step("unknown token: Unauthorized", || {
        // Discovery is authenticated too: kubectl stops there, with its words for a 401.
        let out = stranger.run(&["get", "horizontalpodautoscalers"]).fails()?;
        out.stderr_has(
            "error: You must be logged in to the server (the server has asked for the client to provide credentials)",
        )?;
        Ok(())
    });

    report.step("valid token: kubectl works", || {
        let out = alice.run(&["get", "horizontalpodautoscalers"]).ok()?;
        out.stderr_is("No resources found in default namespace.\n")?;
        Ok(())
    });

    report.step("valid token: the CSR's spec.username is the token's user", || {
        let out = alice.run(&["create", "-f", &fixture("csr.yaml")]).ok()?;
        out.stdout_is("certificatesigningrequest.certificates.k8s.io/e2e-client created\n")?;
        let get = ["get", "certificatesigningrequests", "e2e-client"];
        ensure_eq(&alice.jsonpath(&get, "{.spec.username}")?, "alice", "spec.username")?;
        ensure_eq(&alice.jsonpath(&get, "{.spec.uid}")?, "uid-alice", "spec.uid")?;
        let groups = alice.jsonpath(&get, "{.spec.groups}")?;
        for group in ["devs", "testers", "system:authenticated"] {
            ensure(
                groups.contains(&format!("\"{group}\"")),
                &Out::note(&groups),
                &format!("spec.groups {groups} lack {group}"),
            )?;
        }
        Ok(())
    });

    report.step("kubectl spoke HTTP/2 (ALPN h2), as alice", || {
        let output = server.output_tail(100_000);
        let kubectl =
            |line: &&str| line.contains("kube_apigen_registry::request") && line.contains("user_agent=\"kubectl");
        let Some(line) = output.lines().find(kubectl) else {
            return Err(format!("no request log of kubectl in the server's output:\n{}", indent(&output)));
        };
        let http2 = output.lines().filter(kubectl).all(|l| l.contains("version=HTTP/2.0"));
        ensure(http2 && output.contains("user=\"alice\""), &Out::note(line), "kubectl's requests over HTTP/2")
    });

    report.step("SIGTERM shuts the server down", || shut_down(&mut server));
    report.finish(started, &server);
}

#[test]
fn kubectl_with_client_certificates() {
    if cfg!(not(feature = "tls-self-signed")) {
        eprintln!("SKIPPED: kubectl with client certificates needs the `tls-self-signed` feature");
        return;
    }
    let Some(kubectl_bin) = harness::find_kubectl() else { return };
    let started = Instant::now();
    let dir = TempDir::new("certificates");
    let (clients, other) =
        (harness::certificates::Ca::new(&dir.path, "clients"), harness::certificates::Ca::new(&dir.path, "other"));
    let client_ca = clients.certificate_file.to_str().unwrap().to_owned();
    let mut server = ServerProcess::start(&["--tls-self-signed", "--client-ca-file", &client_ca]);
    let (alice_dir, stranger_dir) = (dir.sub("alice"), dir.sub("stranger"));
    let alice =
        Kubectl::with_certificate(&kubectl_bin, &alice_dir, &server.url, &clients.client("alice", Some("devs")));
    let stranger = Kubectl::with_certificate(&kubectl_bin, &stranger_dir, &server.url, &other.client("alice", None));
    let mut report = Report::new("client certificates");

    report.step("kubectl auth whoami: the certificate's CN and O", || {
        let out = alice.run(&["auth", "whoami"]).ok()?;
        out.stdout_is("ATTRIBUTE   VALUE\nUsername    alice\nGroups      [devs system:authenticated]\n")
    });

    report.step("the user a CSR records", || {
        let out = alice.run(&["create", "-f", &fixture("csr.yaml")]).ok()?;
        out.stdout_is("certificatesigningrequest.certificates.k8s.io/e2e-client created\n")?;
        let username = alice.jsonpath(&["get", "csr", "e2e-client"], "{.spec.username}")?;
        ensure_eq(&username, "alice", "spec.username")
    });

    report.step("a certificate of another CA: Unauthorized", || {
        let out = stranger.run(&["auth", "whoami"]).fails()?;
        out.stderr_is("error: You must be logged in to the server (Unauthorized)\n")
    });

    report.step("SIGTERM shuts the server down", || shut_down(&mut server));
    report.finish(started, &server);
}

#[test]
fn kubectl_against_rbac_server() {
    if cfg!(not(feature = "tls-self-signed")) {
        eprintln!("SKIPPED: kubectl against an RBAC server needs the `tls-self-signed` feature");
        return;
    }
    let Some(kubectl_bin) = harness::find_kubectl() else { return };
    let started = Instant::now();
    let dir = TempDir::new("rbac");
    let tokens = fixture("rbac-tokens.csv");
    let mut server =
        ServerProcess::start(&["--token-file", &tokens, "--authorization-mode", "RBAC", "--tls-self-signed"]);
    let (admin_dir, alice_dir, bob_dir) = (dir.sub("admin"), dir.sub("alice"), dir.sub("bob"));
    // admin is in system:masters, alice has a Role in team-a, bob nothing (at first).
    let admin = Kubectl::new(&kubectl_bin, &admin_dir, &server.url, Some("admin-token"));
    let alice = Kubectl::new(&kubectl_bin, &alice_dir, &server.url, Some("alice-token"));
    let bob = Kubectl::new(&kubectl_bin, &bob_dir, &server.url, Some("bob-token"));
    let mut report = Report::new("RBAC server");
    let forbidden = |user: &str, verb: &str, resource: &str, group: &str, scope: &str| {
        format!(
            "{resource}{} is forbidden: User \"{user}\" cannot {verb} resource \"{resource}\" in API group \"{group}\" {scope}",
            if group.is_empty() { String::new() } else { format!(".{group}") }
        )
    };

    report.step("bootstrap policy: cluster-admin bound to system:masters", || {
        let get = ["get", "clusterrolebindings", "cluster-admin"];
        ensure_eq(&admin.jsonpath(&get, "{.subjects[0].name}")?, "system:masters", "subject")?;
        let roles = admin.run(&["get", "clusterroles", "-o", "name"]).ok()?;
        for role in [
            "cluster-admin",
            "admin",
            "edit",
            "view",
            "system:discovery",
            "system:basic-user",
            "system:public-info-viewer",
        ] {
            roles.stdout_has_line(&format!("clusterrole.rbac.authorization.k8s.io/{role}"))?;
        }
        Ok(())
    });

    report.step("admin creates a Role and its RoleBinding", || {
        let out = admin.run(&["apply", "-f", &fixture("rbac-team-a.yaml")]).ok()?;
        out.stdout_is(
            "namespace/team-a created\nrole.rbac.authorization.k8s.io/hpa-writer created\nrolebinding.rbac.authorization.k8s.io/alice-hpa-writer created\n",
        )
    });

    report.step("alice: create and list in team-a", || {
        let out = alice.run(&["create", "-f", &fixture("hpa.yaml"), "-n", "team-a"]).ok()?;
        out.stdout_is("horizontalpodautoscaler.autoscaling/web created\n")?;
        ensure_eq(&alice.jsonpath(&["get", "hpa", "-n", "team-a"], "{.items[*].metadata.name}")?, "web", "names")
    });

    report.step("alice: list in another namespace is Forbidden", || {
        let out = alice.run(&["get", "hpa", "-n", "default"]).fails()?;
        let message =
            forbidden("alice", "list", "horizontalpodautoscalers", "autoscaling", "in the namespace \"default\"");
        out.stderr_is(&format!("Error from server (Forbidden): {message}\n"))
    });

    report.step("alice: delete, a verb the Role lacks, is Forbidden and names the object", || {
        let out = alice.run(&["delete", "hpa", "web", "-n", "team-a"]).fails()?;
        out.stderr_is(
            "Error from server (Forbidden): horizontalpodautoscalers.autoscaling \"web\" is forbidden: User \"alice\" \
             cannot delete resource \"horizontalpodautoscalers\" in API group \"autoscaling\" in the namespace \"team-a\"\n",
        )
    });

    report.step("alice: a cluster-scoped list is Forbidden at the cluster scope", || {
        let out = alice.run(&["get", "certificatesigningrequests"]).fails()?;
        let message =
            forbidden("alice", "list", "certificatesigningrequests", "certificates.k8s.io", "at the cluster scope");
        out.stderr_is(&format!("Error from server (Forbidden): {message}\n"))
    });

    report.step("kubectl auth can-i: SelfSubjectAccessReviews", || {
        alice.run(&["auth", "can-i", "create", "hpa", "-n", "team-a"]).ok()?.stdout_is("yes\n")?;
        alice.run(&["auth", "can-i", "delete", "hpa", "-n", "team-a"]).fails()?.stdout_is("no\n")?;
        alice.run(&["auth", "can-i", "list", "hpa"]).fails()?.stdout_is("no\n")?;
        alice.run(&["auth", "can-i", "get", "/healthz"]).ok()?.stdout_is("yes\n")?;
        bob.run(&["auth", "can-i", "get", "/metrics"]).fails()?.stdout_is("no\n")?;
        admin.run(&["auth", "can-i", "*", "*"]).ok()?.stdout_is("yes\n")
    });

    report.step("kubectl auth can-i --list: a SelfSubjectRulesReview", || {
        let out = alice.run(&["auth", "can-i", "--list", "-n", "team-a"]).ok()?;
        out.stdout_line_matches(&[
            "horizontalpodautoscalers.autoscaling",
            "[]",
            "[]",
            "[get",
            "list",
            "watch",
            "create]",
        ])?;
        out.stdout_line_matches(&["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"])?;
        out.stdout_line_matches(&["[/healthz]", "[]", "[get]"])
    });

    report.step("kubectl auth whoami: a SelfSubjectReview", || {
        let out = alice.run(&["auth", "whoami"]).ok()?;
        out.stdout_is(
            "ATTRIBUTE   VALUE\nUsername    alice\nUID         uid-alice\nGroups      [system:authenticated]\n",
        )
    });

    report.step("kubectl --as: impersonation, each header authorized", || {
        let out = alice.run(&["get", "hpa", "-n", "team-a", "--as", "bob"]).fails()?;
        out.stderr_is(
            "Error from server (Forbidden): users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" \
             in API group \"\" at the cluster scope\n",
        )?;
        ensure_eq(&admin.jsonpath(&["get", "hpa", "-n", "team-a", "--as", "alice"], "{.items[*].metadata.name}")?, "web", "names")?;
        admin.run(&["auth", "can-i", "delete", "hpa", "-n", "team-a", "--as", "alice"]).fails()?.stdout_is("no\n")?;
        let out = admin.run(&["auth", "whoami", "--as", "alice", "--as-group", "devs"]).ok()?;
        out.stdout_is("ATTRIBUTE   VALUE\nUsername    alice\nGroups      [devs system:authenticated]\n")
    });

    report.step("bob: nothing in team-a", || {
        let out = bob.run(&["get", "hpa", "-n", "team-a"]).fails()?;
        let message =
            forbidden("bob", "list", "horizontalpodautoscalers", "autoscaling", "in the namespace \"team-a\"");
        out.stderr_is(&format!("Error from server (Forbidden): {message}\n"))
    });

    report.step("bob: /healthz is public, /metrics is Forbidden as a path", || {
        bob.run(&["get", "--raw", "/healthz"]).ok()?.stdout_is("ok")?;
        let out = bob.run(&["get", "--raw", "/metrics"]).fails()?;
        out.stderr_is("Error from server (Forbidden): forbidden: User \"bob\" cannot get path \"/metrics\"\n")
    });

    report.step("a binding to a missing Role grants nothing and is the reason", || {
        admin.run(&["create", "rolebinding", "bob-ghost", "--role=ghost", "--user=bob", "-n", "team-a"]).ok()?;
        let out = bob.run(&["get", "hpa", "-n", "team-a"]).fails()?;
        let message =
            forbidden("bob", "list", "horizontalpodautoscalers", "autoscaling", "in the namespace \"team-a\"");
        out.stderr_is(&format!(
            "Error from server (Forbidden): {message}: RBAC: role.rbac.authorization.k8s.io \"ghost\" not found\n"
        ))?;
        admin.run(&["delete", "rolebinding", "bob-ghost", "-n", "team-a"]).ok().map(drop)
    });

    report.step("bob with view in team-a reads HPAs there, not Probes", || {
        admin.run(&["create", "rolebinding", "bob-view", "--clusterrole=view", "--user=bob", "-n", "team-a"]).ok()?;
        ensure_eq(&bob.jsonpath(&["get", "hpa", "-n", "team-a"], "{.items[*].metadata.name}")?, "web", "names")?;
        let out = bob.run(&["get", "hpa", "-n", "default"]).fails()?;
        out.stderr_has("cannot list resource \"horizontalpodautoscalers\" in API group \"autoscaling\" in the namespace \"default\"")?;
        let out = bob.run(&["get", "probes", "-n", "team-a"]).fails()?;
        let message = forbidden("bob", "list", "probes", "monitoring.coreos.com", "in the namespace \"team-a\"");
        out.stderr_is(&format!("Error from server (Forbidden): {message}\n"))
    });

    report.step("a ClusterRole labelled aggregate-to-view extends view, and edit and admin through it", || {
        admin.run(&["apply", "-f", &fixture("rbac-probe-viewer.yaml")]).ok()?;
        let out = bob.run(&["get", "probes", "-n", "team-a"]).ok()?;
        out.stderr_is("No resources found in team-a namespace.\n")?;
        for role in ["view", "edit", "admin"] {
            let resources = admin.jsonpath(&["get", "clusterrole", role], "{.rules[*].resources}")?;
            ensure(resources.contains("\"probes\""), &Out::note(&resources), &format!("{role}'s stored rules"))?;
        }
        Ok(())
    });

    report.step("escalation: roles and bindings granting more than their writer holds are Forbidden", || {
        let writer = ["create", "role", "rbac-writer", "--verb=create", "-n", "team-a"];
        let resources = "--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io";
        admin.run(&[&writer[..], &[resources]].concat()).ok()?;
        admin.run(&["create", "rolebinding", "alice-rbac", "--role=rbac-writer", "--user=alice", "-n", "team-a"]).ok()?;
        let out = alice
            .run(&["create", "role", "deleter", "--verb=get,delete", "--resource=horizontalpodautoscalers", "-n", "team-a"])
            .fails()?;
        out.stderr_is(
            "Error from server (Forbidden): roles.rbac.authorization.k8s.io \"deleter\" is forbidden: user \"alice\" \
             (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n\
             {APIGroups:[\"autoscaling\"], Resources:[\"horizontalpodautoscalers\"], Verbs:[\"delete\"]}\n",
        )?;
        alice.run(&["create", "role", "reader", "--verb=get,list", "--resource=horizontalpodautoscalers", "-n", "team-a"]).ok()?;
        alice.run(&["create", "rolebinding", "bob-reader", "--role=reader", "--user=bob", "-n", "team-a"]).ok()?;
        let out = alice.run(&["create", "rolebinding", "bob-edit", "--clusterrole=edit", "--user=bob", "-n", "team-a"]).fails()?;
        out.stderr_has(
            "rolebindings.rbac.authorization.k8s.io \"bob-edit\" is forbidden: user \"alice\" (groups=[\"system:authenticated\"]) \
             is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"bindings\"], \
             Verbs:[\"get\" \"list\" \"watch\"]}\n",
        )?;
        // `edit` holds `view`'s rules by aggregation: a resource's verbs compacted into one rule.
        out.stderr_has(
            "\n{APIGroups:[\"\"], Resources:[\"configmaps\"], \
             Verbs:[\"create\" \"delete\" \"deletecollection\" \"patch\" \"update\" \"get\" \"list\" \"watch\"]}\n",
        )
    });

    report.step("SIGTERM shuts the server down", || shut_down(&mut server));
    report.finish(started, &server);
}

// ---------------------------------------------------------------------------------------
// Steps and the final report
// ---------------------------------------------------------------------------------------

/// The resource names the steps use: the short names when discovery has them.
struct Names {
    hpa: &'static str,
    csr: &'static str,
}

impl Names {
    fn full() -> Self {
        Names { hpa: "horizontalpodautoscalers", csr: "certificatesigningrequests" }
    }
}

/// Outcome of the steps of one test function.
struct Report {
    test: &'static str,
    passed: Vec<String>,
    failed: Vec<(String, String)>,
}

type StepResult = Result<(), String>;

impl Report {
    fn new(test: &'static str) -> Self {
        Report { test, passed: Vec::new(), failed: Vec::new() }
    }

    /// Runs one step; a failure is recorded, and the next steps still run.
    fn step(&mut self, name: &str, f: impl FnOnce() -> StepResult) {
        let started = Instant::now();
        log(format!("=== step: {name}"));
        let result = f();
        let took = started.elapsed();
        match result {
            Ok(()) => {
                log(format!("--- ok: {name} ({took:.1?})"));
                self.passed.push(name.to_owned());
            }
            Err(why) => {
                eprintln!("--- FAILED: {name} ({took:.1?})\n{}", indent(&why));
                self.failed.push((name.to_owned(), why));
            }
        }
    }

    /// Prints the summary; fails the test if any step failed.
    fn finish(self, started: Instant, server: &dyn ServerOutput) {
        let total = self.passed.len() + self.failed.len();
        let mut summary = format!(
            "kubectl e2e ({}): {} steps, {} passed, {} failed, {:.1?}\n",
            self.test,
            total,
            self.passed.len(),
            self.failed.len(),
            started.elapsed()
        );
        for name in &self.passed {
            summary += &format!("  ok      {name}\n");
            if let Some((_, why)) = KNOWN_FAILURES.iter().find(|(step, _)| step == name) {
                summary += &format!("          (listed in KNOWN_FAILURES but passes now: {why})\n");
            }
        }
        for (name, _) in &self.failed {
            summary += &format!("  FAILED  {name}\n");
            if let Some((_, why)) = KNOWN_FAILURES.iter().find(|(step, _)| step == name) {
                summary += &format!("          known failure: {why}\n");
            }
        }
        let notes = NOTES.with_borrow_mut(std::mem::take);
        for line in notes {
            summary += &format!("  note: {line}\n");
        }
        eprintln!("{summary}");
        if logging() || !self.failed.is_empty() {
            eprintln!("server output (last 200 lines):\n{}", indent(&server.output_tail(200)));
        }
        if !self.failed.is_empty() {
            let names: Vec<&str> = self.failed.iter().map(|(n, _)| n.as_str()).collect();
            panic!("{} of {total} kubectl steps failed: {names:?}", self.failed.len());
        }
    }
}

thread_local! {
    /// Notes of the test running on this thread (each test function has its own thread).
    static NOTES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Something worth saying in the summary that is not a failure.
fn note(text: String) {
    log(format!("note: {text}"));
    NOTES.with_borrow_mut(|notes| notes.push(text));
}

fn logging() -> bool {
    std::env::var_os("KUBECTL_E2E_LOG").is_some_and(|v| !v.is_empty() && v != "0")
}

fn log(text: String) {
    if logging() {
        eprintln!("{text}");
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

fn ensure(condition: bool, out: &Out, what: &str) -> StepResult {
    if condition { Ok(()) } else { Err(format!("{what}\n{}", out.show())) }
}

fn ensure_eq(actual: &str, expected: &str, what: &str) -> StepResult {
    if actual == expected { Ok(()) } else { Err(format!("{what}: expected {expected:?}, got {actual:?}")) }
}

/// Checks the `kubectl api-resources` row of `name`; returns its short names.
fn api_resource(out: &Out, name: &str, api_version: &str, namespaced: bool, kind: &str) -> Result<Vec<String>, String> {
    let rows = out.rows();
    let Some(row) = rows.iter().find(|r| r.first() == Some(&name)) else {
        return Err(format!("no row for {name}\n{}", out.show()));
    };
    // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
    let n = row.len();
    let expected = [api_version, if namespaced { "true" } else { "false" }, kind];
    if n < 4 || row[n - 3..] != expected {
        return Err(format!("row of {name} is {row:?}, expected to end with {expected:?}\n{}", out.show()));
    }
    Ok(row[1..n - 3].iter().flat_map(|s| s.split(',')).map(str::to_owned).collect())
}

// ---------------------------------------------------------------------------------------
// kubectl
// ---------------------------------------------------------------------------------------

/// kubectl with its own kubeconfig and a fresh cache directory.
struct Kubectl {
    bin: PathBuf,
    kubeconfig: PathBuf,
    cache_dir: PathBuf,
    dir: PathBuf,
}

impl Kubectl {
    /// Writes a kubeconfig for `url` (with `token` as the user's bearer token, if any)
    /// into `dir`. kubectl sends a kubeconfig's credentials only over TLS (client-go's
    /// clientcmd reads them only when the transport is TLS); for an `https://` server, whose
    /// certificate these tests do not know, the kubeconfig skips its verification.
    fn new(bin: &Path, dir: &TempDir, url: &str, token: Option<&str>) -> Self {
        let user = match token {
            Some(token) => format!("  user:\n    token: {token}\n"),
            None => "  user: {}\n".to_owned(),
        };
        Self::with_user(bin, dir, url, &user)
    }

    /// As [`Kubectl::new`], the user presenting `client`'s certificate.
    fn with_certificate(bin: &Path, dir: &TempDir, url: &str, client: &harness::certificates::Client) -> Self {
        let (certificate, key) = (client.certificate_file.display(), client.key_file.display());
        let user = format!("  user:\n    client-certificate: {certificate}\n    client-key: {key}\n");
        Self::with_user(bin, dir, url, &user)
    }

    /// A kubeconfig whose user entry is `user` (YAML, indented under the list item).
    fn with_user(bin: &Path, dir: &TempDir, url: &str, user: &str) -> Self {
        let kubeconfig = dir.path.join("kubeconfig");
        let tls = if url.starts_with("https://") { "    insecure-skip-tls-verify: true\n" } else { "" };
        let config = format!(
            "apiVersion: v1\n\
             kind: Config\n\
             clusters:\n\
             - name: e2e\n  cluster:\n    server: {url}\n{tls}\
             users:\n\
             - name: e2e\n{user}\
             contexts:\n\
             - name: e2e\n  context:\n    cluster: e2e\n    user: e2e\n    namespace: default\n\
             current-context: e2e\n"
        );
        std::fs::write(&kubeconfig, config).expect("write kubeconfig");
        let cache_dir = dir.path.join("cache");
        Kubectl { bin: bin.to_owned(), kubeconfig, cache_dir, dir: dir.path.clone() }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.bin);
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(&self.cache_dir)
            .args(args)
            .current_dir(&self.dir)
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn run(&self, args: &[&str]) -> Out {
        self.run_with(args, None)
    }

    /// Runs with `stdin` as standard input (for `-f -`).
    fn run_stdin(&self, args: &[&str], stdin: &str) -> Out {
        self.run_with(args, Some(stdin))
    }

    fn run_with(&self, args: &[&str], stdin: Option<&str>) -> Out {
        let shown = format!("kubectl {}", shell_words(args));
        let started = Instant::now();
        let mut command = self.command(args);
        if stdin.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => panic!("cannot run {}: {error}", self.bin.display()),
        };
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            let input = input.to_owned();
            thread::spawn(move || {
                let _ = pipe.write_all(input.as_bytes());
            });
        }
        let stdout = drain(child.stdout.take().unwrap());
        let stderr = drain(child.stderr.take().unwrap());
        let mut timed_out = false;
        let status = loop {
            match child.try_wait().expect("wait for kubectl") {
                Some(status) => break Some(status),
                None if started.elapsed() > COMMAND_TIMEOUT => {
                    timed_out = true;
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                None => thread::sleep(Duration::from_millis(5)),
            }
        };
        let out = Out {
            command: shown,
            code: status.and_then(|s| s.code()),
            timed_out,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
            took: started.elapsed(),
        };
        log(out.show());
        out
    }

    /// `get ... -o jsonpath=<template>`, which must succeed; its stdout.
    fn jsonpath(&self, get: &[&str], template: &str) -> Result<String, String> {
        let output = format!("jsonpath={template}");
        let args: Vec<&str> = get.iter().copied().chain(["-o", output.as_str()]).collect();
        Ok(self.run(&args).ok()?.stdout)
    }

    /// Starts a long-running kubectl (a watch), collecting its output.
    fn background(&self, args: &[&str]) -> Result<Background, String> {
        let shown = format!("kubectl {}", shell_words(args));
        log(format!("$ {shown} &"));
        let mut child = self.command(args).spawn().map_err(|e| format!("{shown}: {e}"))?;
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        collect_into(child.stdout.take().unwrap(), Arc::clone(&stdout));
        collect_into(child.stderr.take().unwrap(), Arc::clone(&stderr));
        Ok(Background { child, command: shown, stdout, stderr })
    }
}

/// A finished kubectl command.
struct Out {
    command: String,
    /// `None` when killed (timeout) or ended by a signal.
    code: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Out {
    /// A pseudo-output for messages about values that did not come from one command.
    fn note(value: &str) -> Out {
        Out {
            command: "(value)".to_owned(),
            code: Some(0),
            timed_out: false,
            stdout: value.to_owned(),
            stderr: String::new(),
            took: Duration::ZERO,
        }
    }

    fn show(&self) -> String {
        let status = if self.timed_out {
            format!("killed after {COMMAND_TIMEOUT:?} (timeout)")
        } else {
            match self.code {
                Some(code) => format!("exit {code}"),
                None => "killed by a signal".to_owned(),
            }
        };
        let mut text = format!("$ {}\n[{status}, {:.0?}]\n", self.command, self.took);
        if !self.stdout.is_empty() {
            text += &format!("stdout:\n{}", indent(&self.stdout));
        }
        if !self.stderr.is_empty() {
            text += &format!("stderr:\n{}", indent(&self.stderr));
        }
        text
    }

    /// The command must have exited 0.
    fn ok(self) -> Result<Out, String> {
        if self.code == Some(0) { Ok(self) } else { Err(format!("expected success\n{}", self.show())) }
    }

    /// The command must have exited non-zero (not by a timeout).
    fn fails(self) -> Result<Out, String> {
        match self.code {
            Some(code) if code != 0 => Ok(self),
            _ => Err(format!("expected a failure exit code\n{}", self.show())),
        }
    }

    fn stdout_is(&self, expected: &str) -> StepResult {
        ensure(self.stdout == expected, self, &format!("stdout should be {expected:?}"))
    }

    fn stderr_is(&self, expected: &str) -> StepResult {
        ensure(self.stderr == expected, self, &format!("stderr should be {expected:?}"))
    }

    fn stdout_has(&self, needle: &str) -> StepResult {
        ensure(self.stdout.contains(needle), self, &format!("stdout should contain {needle:?}"))
    }

    fn stderr_has(&self, needle: &str) -> StepResult {
        ensure(self.stderr.contains(needle), self, &format!("stderr should contain {needle:?}"))
    }

    /// Some line of stdout, trimmed, is `line`.
    fn stdout_has_line(&self, line: &str) -> StepResult {
        let found = self.stdout.lines().any(|l| l.trim() == line);
        ensure(found, self, &format!("stdout should have the line {line:?}"))
    }

    /// Some line of stdout, trimmed, starts with `prefix`.
    fn stdout_has_line_starting(&self, prefix: &str) -> StepResult {
        let found = self.stdout.lines().any(|l| l.trim().starts_with(prefix));
        ensure(found, self, &format!("stdout should have a line starting with {prefix:?}"))
    }

    /// Some line of stdout consists of exactly these whitespace-separated words.
    fn stdout_line_matches(&self, words: &[&str]) -> StepResult {
        let found = self.stdout.lines().any(|l| l.split_whitespace().eq(words.iter().copied()));
        ensure(found, self, &format!("stdout should have a line of the words {words:?}"))
    }

    /// Stdout as whitespace-separated words per line (a table).
    fn rows(&self) -> Vec<Vec<&str>> {
        self.stdout.lines().map(|l| l.split_whitespace().collect()).filter(|r: &Vec<_>| !r.is_empty()).collect()
    }
}

/// A kubectl running in the background; killed (by PID) when stopped or dropped.
struct Background {
    child: Child,
    command: String,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

impl Background {
    /// Waits until some line of stdout, as words, satisfies `row`.
    fn wait_for_row(&mut self, row: impl Fn(&[&str]) -> bool, what: &str) -> StepResult {
        let started = Instant::now();
        loop {
            let found = {
                let stdout = self.stdout.lock().unwrap();
                stdout.lines().any(|l| row(&l.split_whitespace().collect::<Vec<_>>()))
            };
            if found {
                log(format!("  (watch printed {what} after {:.0?})", started.elapsed()));
                return Ok(());
            }
            let exited = self.child.try_wait().ok().flatten();
            if exited.is_some() || started.elapsed() > WATCH_TIMEOUT {
                let how = match exited {
                    Some(status) => format!("the watch exited ({status})"),
                    None => format!("not within {WATCH_TIMEOUT:?}"),
                };
                return Err(format!("{} did not print {what}: {how}\n{}", self.command, self.show()));
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn show(&self) -> String {
        let mut text = format!("$ {} &\nstdout:\n{}", self.command, indent(&self.stdout.lock().unwrap()));
        let stderr = self.stderr.lock().unwrap();
        if !stderr.is_empty() {
            text += &format!("stderr:\n{}", indent(&stderr));
        }
        text
    }

    fn stop(mut self) {
        self.kill();
        log(self.show());
    }

    fn kill(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.kill();
    }
}

fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_=./:,@".contains(c)) {
                (*a).to_owned()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads a pipe to its end on a thread.
fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Appends what a pipe yields to `into`, as it comes, on a thread.
fn collect_into(mut pipe: impl Read + Send + 'static, into: Arc<Mutex<String>>) {
    thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => into.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..n])),
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------

/// SIGTERM to the apiserver binary; it must exit within the harness's grace period.
fn shut_down(server: &mut ServerProcess) -> StepResult {
    if let Some(status) = server.exited() {
        return Err(format!("the server had already exited ({status})"));
    }
    let started = Instant::now();
    match server.terminate() {
        Some(status) => {
            log(format!("apiserver exited after SIGTERM in {:.0?}: {status}", started.elapsed()));
            Ok(())
        }
        None => Err(format!("the server did not exit within {:.0?} of SIGTERM", started.elapsed())),
    }
}

/// What the final report shows of a server.
trait ServerOutput {
    /// The last `lines` lines of its output.
    fn output_tail(&self, lines: usize) -> String;
}

impl ServerOutput for ServerProcess {
    fn output_tail(&self, lines: usize) -> String {
        let output = self.stderr.lock().unwrap();
        let all: Vec<&str> = output.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

struct InProcessServer {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
    shutdown: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    thread: Mutex<Option<thread::JoinHandle<std::io::Result<()>>>>,
}

impl InProcessServer {
    fn start_fixture() -> InProcessServer {
        use kube_apigen::axum::extract::Request;
        use kube_apigen::axum::middleware::{Next, from_fn};
        use kube_apigen_registry::Server;

        let requests = Arc::new(Mutex::new(Vec::new()));
        let request_log = Arc::clone(&requests);
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let (ready, listening) = mpsc::channel();
        let thread = thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let _ = ready.send(listener.local_addr()?);
                let server = Server::builder(fixture_api::server::api()).build().expect("the fixture server builds");
                let store = server.store().clone();
                let app = server.router().layer(from_fn(move |request: Request, next: Next| {
                    let log = Arc::clone(&request_log);
                    async move {
                        let content_type = request
                            .headers()
                            .get("content-type")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .to_owned();
                        let line = format!("{} {} {content_type}", request.method(), request.uri().path());
                        let response = next.run(request).await;
                        log.lock().unwrap().push(format!("{line} -> {}", response.status().as_u16()));
                        response
                    }
                }));
                kube_apigen_registry::server::serve_router(listener, app, store, async move {
                    let _ = stop.await;
                })
                .await
            })
        });
        let address = listening
            .recv_timeout(STARTUP_TIMEOUT)
            .unwrap_or_else(|e| panic!("the in-process server did not start: {e}"));
        let url = format!("http://{address}");
        log(format!("in-process fixture server listening on {url}"));
        InProcessServer { url, requests, shutdown: Mutex::new(Some(shutdown)), thread: Mutex::new(Some(thread)) }
    }

    /// Some request answered so far is `line` (`METHOD PATH CONTENT-TYPE -> CODE`).
    fn ensure_request(&self, line: &str) -> StepResult {
        let requests = self.requests.lock().unwrap();
        if requests.iter().any(|r| r == line) {
            return Ok(());
        }
        Err(format!(
            "the server got no request {line:?}; the last ones:\n{}",
            indent(&requests[requests.len().saturating_sub(20)..].join("\n"))
        ))
    }

    /// Stops the server; it must be done within `SHUTDOWN_TIMEOUT`.
    fn stop(&self) -> StepResult {
        if let Some(shutdown) = self.shutdown.lock().unwrap().take() {
            let _ = shutdown.send(());
        }
        let Some(thread) = self.thread.lock().unwrap().take() else {
            return Err("the server was already stopped".to_owned());
        };
        let started = Instant::now();
        while !thread.is_finished() {
            if started.elapsed() > SHUTDOWN_TIMEOUT {
                return Err(format!("the server did not stop within {SHUTDOWN_TIMEOUT:?}"));
            }
            thread::sleep(Duration::from_millis(10));
        }
        match thread.join() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(format!("the server failed: {error}")),
            Err(_) => Err("the server thread panicked".to_owned()),
        }
    }
}

impl ServerOutput for InProcessServer {
    fn output_tail(&self, lines: usize) -> String {
        let requests = self.requests.lock().unwrap();
        requests[requests.len().saturating_sub(lines)..].join("\n")
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = thread.join();
        }
    }
}

// ---------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn read_fixture(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap_or_else(|e| panic!("read fixture {name}: {e}"))
}

/// The value of the first `<key>: <value>` line of a fixture.
fn fixture_field(name: &str, key: &str) -> Result<String, String> {
    let prefix = format!("{key}: ");
    read_fixture(name)
        .lines()
        .find_map(|l| l.trim().strip_prefix(&prefix).map(str::to_owned))
        .ok_or_else(|| format!("fixture {name} has no {key}"))
}

/// A directory under the system's temporary directory, removed when dropped.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("kubectl-e2e-{}-{label}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir { path }
    }

    /// A subdirectory, with the lifetime of `self` (removed with it).
    fn sub(&self, name: &str) -> TempDir {
        let path = self.path.join(name);
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir { path }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
