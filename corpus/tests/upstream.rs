//! The upstream corpus: every Kubernetes OpenAPI v3 document and every CustomResourceDefinition
//! of `specs-upstream`, unmodified, generated alone, all documents together, all CRDs together,
//! and everything together; every output must build clippy-clean, and realistic objects of
//! each CRD's kind must round-trip through the generated types (`objects/`).
//!
//! Runs only when `KUBE_APIGEN_UPSTREAM` names the `specs-upstream` folder, e.g.
//! `KUBE_APIGEN_UPSTREAM=../shared/specs-upstream cargo test -p corpus` (relative to the
//! repository root); otherwise it says SKIPPED and passes.
//!
//! The outputs are members of one scratch workspace in `target/corpus/work`, checked by a
//! single `cargo clippy` with the target folder `target/corpus/target` (a folder of its own:
//! the outer `cargo test` holds the lock of `target/debug` while tests run). It is one
//! `#[test]` on purpose: test runners that give each test a process of its own (nextest)
//! would otherwise generate and run cargo once per test. Its checks are the functions below;
//! all of them run, and the failure lists every problem of every check.
//!
//! The objects are run through the generated types within that same cargo call: the
//! `objects` member's build script (`objects/build.rs`) does it, with the crate of all CRDs
//! as a build dependency (which cargo builds, where it only checks members), and reports
//! what it finds as compile errors of that member. That build dependency is the one full
//! build of the generated code and of `support`'s dependencies in the test.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use corpus::{BuildReport, CRDS, KUBERNETES_V3, PROTOS, Scratch, UPSTREAM_ENV};

/// The member generated from all documents together.
const ALL: &str = "all";
/// The hand-written member stating compile-time facts about [`ALL`] (`facts/lib.rs`).
const FACTS: &str = "facts";
/// The member generated from all CRDs together (also the name of its spec folder).
const ALL_CRDS: &str = "crds";
/// The member generated from all documents and all CRDs in one folder (also its name).
const MIXED: &str = "mixed";
/// The hand-written member whose build script round-trips the objects of `objects/`
/// through the types of [`ALL_CRDS`].
const OBJECTS: &str = "objects";

/// The resources each document defines, by document stem.
const EXPECTED_RESOURCES: &[(&str, &[&str])] = &[
    ("apis__apiextensions.k8s.io__v1", &["CustomResourceDefinition"]),
    ("apis__autoscaling__v1", &["HorizontalPodAutoscaler"]),
    ("apis__autoscaling__v2", &["HorizontalPodAutoscaler"]),
    ("apis__certificates.k8s.io__v1", &["CertificateSigningRequest"]),
    ("apis__coordination.k8s.io__v1", &["Lease"]),
    ("apis__discovery.k8s.io__v1", &["EndpointSlice"]),
    ("apis__policy__v1", &["PodDisruptionBudget"]),
    ("apis__rbac.authorization.k8s.io__v1", &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]),
];

/// The resource each CRD defines, by file stem.
const EXPECTED_CRD_RESOURCES: &[(&str, &[&str])] = &[
    ("cert-manager.io_certificates", &["Certificate"]),
    ("monitoring.coreos.com_probes", &["Probe"]),
    ("monitoring.coreos.com_servicemonitors", &["ServiceMonitor"]),
];

/// The build script of [`OBJECTS`], which checks the objects (`objects/*.yaml`, copied
/// beside it when the test runs).
const OBJECTS_BUILD: &str = include_str!("../objects/build.rs");

const DELETE_OPTIONS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

struct Output {
    /// The document stem (`apis__policy__v1`), or [`ALL`], [`ALL_CRDS`], [`MIXED`]; also the
    /// member folder.
    name: String,
    summary: Result<kube_apigen_codegen::Summary, String>,
}

impl Output {
    fn summary(&self) -> Result<&kube_apigen_codegen::Summary, String> {
        self.summary.as_ref().map_err(|e| format!("{}: generation failed: {e}", self.name))
    }
}

struct Corpus {
    /// One output per document, generated alone.
    alone: Vec<Output>,
    all: Output,
    /// One output per CRD, generated alone.
    crds_alone: Vec<Output>,
    all_crds: Output,
    mixed: Output,
    /// The object files of `objects/`, by file name.
    objects: Vec<String>,
    build: BuildReport,
    scratch: Scratch,
}

impl Corpus {
    fn dir(&self, member: &str) -> PathBuf {
        self.scratch.member_dir(member)
    }
}

/// Writes to the real standard error, past the test harness's capture of `eprintln!`.
fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

type Check = fn(&Corpus) -> Vec<String>;

#[test]
fn upstream_corpus() {
    let upstream = match corpus::upstream_dir() {
        Ok(Some(dir)) => dir,
        Ok(None) => {
            say(&format!(
                "\n******** SKIPPED: set {UPSTREAM_ENV}=../shared/specs-upstream (relative to the repository root) \
                 to generate and build the upstream corpus ********\n"
            ));
            return;
        }
        Err(message) => panic!("{message}"),
    };
    let corpus = run(&upstream.join(KUBERNETES_V3), &upstream.join(CRDS), &upstream.join(PROTOS));
    let checks: &[(&str, Check)] = &[
        ("every document alone generates and builds clippy-clean", every_document_alone_builds_clippy_clean),
        ("all documents together generate and build clippy-clean", all_documents_together_build_clippy_clean),
        ("compile-time facts about the combined output hold (facts/lib.rs)", compile_time_facts_hold),
        ("a document alone has no merge notes", a_document_alone_has_no_merge_notes),
        ("merge notes name the schemas that differ between documents", merge_notes_name_the_differing_schemas),
        (
            "ObjectMeta is the runtime's; JSONSchemaProps holds itself through a Box",
            object_meta_is_one_type_and_props_are_boxed,
        ),
        ("every resource of every document gets a kube_apigen::Resource impl", every_resource_gets_a_resource_impl),
        ("every CRD alone generates and builds clippy-clean", every_crd_alone_builds_clippy_clean),
        ("all CRDs together generate and build clippy-clean", all_crds_together_build_clippy_clean),
        ("all CRDs and all documents together generate and build clippy-clean", mixed_builds_clippy_clean),
        ("CRDs add no merge notes, alone, together or beside the documents", crds_add_no_merge_notes),
        ("Kubernetes' proto files give every built-in resource a codec", upstream_protos_match_their_schemas),
        (
            "every CRD's resource gets a kube_apigen::Resource impl, alone and together",
            every_crd_resource_gets_a_resource_impl,
        ),
        ("realistic objects round-trip and validate as expected (objects/)", objects_round_trip_and_validate),
    ];
    let mut failed = Vec::new();
    for (name, check) in checks {
        let problems = check(&corpus);
        if problems.is_empty() {
            say(&format!("corpus: ok: {name}"));
        } else {
            say(&format!("corpus: FAILED: {name}"));
            failed.push(format!("==== {name}: {} problem(s)\n\n{}", problems.len(), problems.join("\n\n")));
        }
    }
    assert!(failed.is_empty(), "{} of {} corpus checks failed:\n\n{}", failed.len(), checks.len(), failed.join("\n\n"));
}

fn run(v3: &Path, crds: &Path, protos: &Path) -> Corpus {
    let root = corpus::workspace_root().join("target").join("corpus");
    let mut scratch = Scratch::new(root.join("work")).expect("cannot create the scratch workspace");
    let started = Instant::now();
    let documents = corpus::spec_files(v3).expect("cannot list the upstream documents");
    assert!(!documents.is_empty(), "no documents in {}", v3.display());
    let crd_files = corpus::spec_files(crds).expect("cannot list the upstream CRDs");
    assert!(!crd_files.is_empty(), "no CRDs in {}", crds.display());
    let mut each_alone = |files: &[PathBuf]| -> Vec<Output> {
        files
            .iter()
            .map(|file| {
                let name = corpus::document_stem(file);
                let summary = scratch.generate_alone(&name, file);
                Output { name, summary }
            })
            .collect()
    };
    let alone = each_alone(&documents);
    let crds_alone = each_alone(&crd_files);
    // All documents together, with Kubernetes' generated.proto files beside them.
    let document_paths: Vec<&Path> = documents.iter().map(PathBuf::as_path).collect();
    let summary = scratch.generate_copies_with_protos(ALL, "v3", &document_paths, Some(protos));
    let all = Output { name: ALL.to_owned(), summary };
    let crd_paths: Vec<&Path> = crd_files.iter().map(PathBuf::as_path).collect();
    let all_crds =
        Output { name: ALL_CRDS.to_owned(), summary: scratch.generate_copies(ALL_CRDS, ALL_CRDS, &crd_paths) };
    let everything: Vec<&Path> = documents.iter().chain(&crd_files).map(PathBuf::as_path).collect();
    let mixed = Output { name: MIXED.to_owned(), summary: scratch.generate_copies(MIXED, MIXED, &everything) };

    let runtime = corpus::workspace_root().join("kube-apigen");
    let runtime = format!("kube-apigen = {{ path = {:?} }}", runtime.to_string_lossy().replace('\\', "/"));
    let facts_manifest = format!(
        "[package]\nname = \"{FACTS}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n{ALL} = {{ path = \"../{ALL}\" }}\n{runtime}\n"
    );
    scratch.add_crate(FACTS, &facts_manifest, include_str!("../facts/lib.rs")).expect("cannot write the facts crate");
    let objects = write_objects_crate(&mut scratch, &runtime);
    scratch.finish().expect("cannot write the scratch workspace");
    let generated = started.elapsed();
    let build = scratch.clippy(&root.join("target")).expect("cannot run cargo clippy");
    say(&format!(
        "corpus: generated {} outputs in {generated:.2?}; one `cargo clippy` over them (and {FACTS}, {OBJECTS}) took {:.2?}",
        alone.len() + crds_alone.len() + 3,
        build.elapsed
    ));
    Corpus { alone, all, crds_alone, all_crds, mixed, objects, build, scratch }
}

/// Writes the [`OBJECTS`] member: `objects/build.rs` and `objects/lib.rs`, and beside them
/// every object file of `objects/`, whose names it returns. The generated crate is a
/// build dependency: the build script runs the objects through it.
fn write_objects_crate(scratch: &mut Scratch, runtime: &str) -> Vec<String> {
    let manifest = format!(
        "[package]\nname = \"{OBJECTS}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [build-dependencies]\n{ALL_CRDS} = {{ path = \"../{ALL_CRDS}\" }}\n{runtime}\nserde = \"1\"\nserde_json = \"1\"\nserde-saphyr = \"2\"\n"
    );
    scratch.add_crate(OBJECTS, &manifest, include_str!("../objects/lib.rs")).expect("cannot write the objects crate");
    scratch.add_file(OBJECTS, "build.rs", OBJECTS_BUILD).expect("cannot write the objects crate");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("objects");
    let files = corpus::spec_files(&dir).expect("cannot list the objects");
    files
        .iter()
        .map(|file| {
            let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            scratch.add_file(OBJECTS, &name, &text).expect("cannot write the objects crate");
            name
        })
        .collect()
}

fn every_document_alone_builds_clippy_clean(corpus: &Corpus) -> Vec<String> {
    let mut problems = Vec::new();
    for output in &corpus.alone {
        match output.summary() {
            Err(problem) => problems.push(problem),
            Ok(_) => problems.extend(corpus.build.problems(&output.name).map(|p| format!("{}: {p}", output.name))),
        }
    }
    problems
}

fn all_documents_together_build_clippy_clean(corpus: &Corpus) -> Vec<String> {
    combined_builds_clippy_clean(corpus, &corpus.all, corpus.alone.len())
}

/// `facts/lib.rs` compiles only if `ObjectMeta` is one type in the resources of every
/// document, `JSONSchemaProps` is recursive through a `Box`, and every resource's
/// `kube_apigen::Resource` constants are right (checked in constant evaluation).
fn compile_time_facts_hold(corpus: &Corpus) -> Vec<String> {
    corpus.build.problems(FACTS).map(|p| format!("{FACTS}: {p}")).into_iter().collect()
}

fn a_document_alone_has_no_merge_notes(corpus: &Corpus) -> Vec<String> {
    corpus
        .alone
        .iter()
        .filter_map(|output| output.summary.as_ref().ok().map(|summary| (output, summary)))
        .filter(|(_, summary)| !summary.notes.is_empty())
        .map(|(output, summary)| format!("{}: unexpected notes: {:#?}", output.name, summary.notes))
        .collect()
}

fn merge_notes_name_the_differing_schemas(corpus: &Corpus) -> Vec<String> {
    let notes = match corpus.all.summary() {
        Ok(summary) => &summary.notes,
        Err(problem) => return vec![problem],
    };
    let shown = format!("{notes:#?}");
    let mut problems = Vec::new();
    let mut expect = |ok: bool, problem: String| {
        if !ok {
            problems.push(problem);
        }
    };

    // DeleteOptions gained a field in the 1.33-era documents, and WatchEvent differs in its
    // descriptions and x-kubernetes-group-version-kind lists, but both are the runtime's
    // (kube_apigen::apimachinery) whatever the documents say: no notes on them.
    for name in [DELETE_OPTIONS, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"] {
        expect(
            !notes.iter().any(|n| n.contains(name)),
            format!("a note names {name}, which the runtime defines: {shown}"),
        );
    }
    // Status (which the runtime writes by hand) differs only in descriptions and in its
    // x-kubernetes-group-version-kind list: the one summary note, no note of its own.
    let status = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
    let summaries: Vec<&String> = notes.iter().filter(|n| n.contains("only in descriptions or extensions")).collect();
    expect(
        summaries.as_slice()
            == [&format!(
                "1 schema differs between documents only in descriptions or extensions; the first document's version is used: {status}"
            )],
        format!("expected one summary note, on {status}: {shown}"),
    );
    expect(
        !notes.iter().any(|n| n.starts_with(&format!("schema {status} "))),
        format!("{status} has a note of its own: {shown}"),
    );
    let merge_notes = notes.iter().filter(|n| !is_protobuf_note(n)).count();
    expect(merge_notes == 1, format!("expected exactly this one merge note: {shown}"));
    problems
}

fn is_protobuf_note(note: &str) -> bool {
    note.contains(" of message ") || note.contains("has no protobuf codec")
}

/// Kubernetes' generated.proto files (1.33) fit the documents (1.31 to 1.33): every message
/// field that is a property has a fitting type, so every resource of a group with a proto
/// file gets a codec; the fields newer than a document are noted and skipped.
fn upstream_protos_match_their_schemas(corpus: &Corpus) -> Vec<String> {
    let notes = match corpus.all.summary() {
        Ok(summary) => &summary.notes,
        Err(problem) => return vec![problem],
    };
    let mut protobuf_notes: Vec<&str> = notes.iter().map(String::as_str).filter(|n| is_protobuf_note(n)).collect();
    protobuf_notes.sort_unstable();
    let expected = [
        "field `preferredHolder` (7) of message k8s.io.api.coordination.v1.LeaseSpec is not a property of io.k8s.api.coordination.v1.LeaseSpec: decoding skips it",
        "field `strategy` (6) of message k8s.io.api.coordination.v1.LeaseSpec is not a property of io.k8s.api.coordination.v1.LeaseSpec: decoding skips it",
        "field `tolerance` (4) of message k8s.io.api.autoscaling.v2.HPAScalingRules is not a property of io.k8s.api.autoscaling.v2.HPAScalingRules: decoding skips it",
    ];
    let mut problems = Vec::new();
    if protobuf_notes != expected {
        problems.push(format!("unexpected protobuf notes: {protobuf_notes:#?}"));
    }
    let files = match corpus::rust_files(&corpus.dir(ALL).join("src")) {
        Ok(files) => files,
        Err(e) => return vec![format!("{ALL}: cannot read the output: {e}")],
    };
    let text: String = files.iter().map(|(_, text)| text.as_str()).collect();
    for kind in [
        "HorizontalPodAutoscaler",
        "CertificateSigningRequest",
        "Lease",
        "EndpointSlice",
        "PodDisruptionBudget",
        "ClusterRole",
        "HorizontalPodAutoscalerList",
    ] {
        if !text.contains(&format!("impl protobuf::Message for {kind} ")) {
            problems.push(format!("{kind} has no protobuf codec"));
        }
    }
    // apiextensions.k8s.io has no proto file here: its types have no codec.
    if text.contains("impl protobuf::Message for CustomResourceDefinition ") {
        problems.push("CustomResourceDefinition has a codec without a message".to_owned());
    }
    problems
}

fn object_meta_is_one_type_and_props_are_boxed(corpus: &Corpus) -> Vec<String> {
    let files = match corpus::rust_files(&corpus.dir(ALL).join("src")) {
        Ok(files) => files,
        Err(e) => return vec![format!("{ALL}: cannot read the output: {e}")],
    };
    let mut problems = Vec::new();
    // Every document defines ObjectMeta; the crate has none of its own, and re-exports the
    // runtime's where the module path says.
    let object_meta: Vec<&PathBuf> =
        files.iter().filter(|(_, text)| text.contains("pub struct ObjectMeta ")).map(|(path, _)| path).collect();
    if !object_meta.is_empty() {
        problems.push(format!("ObjectMeta is the runtime's, yet these files define one: {object_meta:?}"));
    }
    let meta_module = files.iter().find(|(path, _)| path.ends_with("apimachinery/pkg/apis/meta/v1/mod.rs"));
    if !meta_module.is_some_and(|(_, text)| text.contains("pub use kube_apigen::apimachinery::pkg::apis::meta::v1::{"))
    {
        problems.push("apimachinery/pkg/apis/meta/v1/mod.rs does not re-export the runtime's meta types".to_owned());
    }
    let props = files
        .iter()
        .find(|(path, _)| path.ends_with("apiextensions_apiserver/pkg/apis/apiextensions/v1/json_schema_props.rs"));
    match props {
        Some((_, text)) if text.contains("Box<JSONSchemaProps>") => {}
        Some((path, _)) => problems.push(format!("{}: JSONSchemaProps holds itself without a Box", path.display())),
        None => problems.push("no json_schema_props.rs in the combined output".to_owned()),
    }
    problems
}

fn every_resource_gets_a_resource_impl(corpus: &Corpus) -> Vec<String> {
    let expected_total = (corpus.alone.len() == EXPECTED_RESOURCES.len()).then_some(11);
    resource_impls_match(corpus, &corpus.alone, ALL, EXPECTED_RESOURCES, expected_total)
}

/// Each output generated alone has the `kube_apigen::Resource` impls `expected` names for it
/// (at least one, for a file `expected` does not name), and the output of them all together
/// (`combined`) has as many as they have together (and `expected_total`, if given).
fn resource_impls_match(
    corpus: &Corpus,
    alone: &[Output],
    combined: &str,
    expected: &[(&str, &[&str])],
    expected_total: Option<usize>,
) -> Vec<String> {
    let expected: BTreeMap<&str, &[&str]> = expected.iter().copied().collect();
    let mut problems = Vec::new();
    let mut total = 0;
    for output in alone {
        let Ok(summary) = output.summary.as_ref() else { continue };
        let impls = match corpus::resource_impls(&corpus.dir(&output.name)) {
            Ok(impls) => impls,
            Err(e) => {
                problems.push(format!("{}: cannot read the output: {e}", output.name));
                continue;
            }
        };
        if impls.len() != summary.resources {
            problems.push(format!("{}: {} resources, but impls for {impls:?}", output.name, summary.resources));
        }
        match expected.get(output.name.as_str()) {
            Some(kinds) if impls != *kinds => {
                problems.push(format!("{}: impls for {impls:?}, expected {kinds:?}", output.name))
            }
            None if impls.is_empty() => problems.push(format!("{}: no resource impls", output.name)),
            _ => {}
        }
        total += impls.len();
    }
    match corpus::resource_impls(&corpus.dir(combined)) {
        Ok(all) if all.len() != total => {
            problems.push(format!("{combined}: {} resource impls, the files alone have {total}: {all:?}", all.len()));
        }
        Ok(all) if expected_total.is_some_and(|n| all.len() != n) => {
            problems
                .push(format!("{combined}: expected {expected_total:?} resource impls, found {}: {all:?}", all.len()));
        }
        Ok(_) => {}
        Err(e) => problems.push(format!("{combined}: cannot read the output: {e}")),
    }
    problems
}

fn every_crd_alone_builds_clippy_clean(corpus: &Corpus) -> Vec<String> {
    let mut problems = Vec::new();
    for output in &corpus.crds_alone {
        match output.summary() {
            Err(problem) => problems.push(problem),
            Ok(_) => problems.extend(corpus.build.problems(&output.name).map(|p| format!("{}: {p}", output.name))),
        }
    }
    problems
}

/// The output of several files together: generated from all of them, and clippy-clean.
fn combined_builds_clippy_clean(corpus: &Corpus, output: &Output, files: usize) -> Vec<String> {
    let summary = match output.summary() {
        Ok(summary) => summary,
        Err(problem) => return vec![problem],
    };
    let mut problems = Vec::new();
    if summary.documents != files {
        problems.push(format!("{}: {} documents, expected {files}", output.name, summary.documents));
    }
    problems.extend(corpus.build.problems(&output.name).map(|p| format!("{}: {p}", output.name)));
    problems
}

fn all_crds_together_build_clippy_clean(corpus: &Corpus) -> Vec<String> {
    combined_builds_clippy_clean(corpus, &corpus.all_crds, corpus.crds_alone.len())
}

fn mixed_builds_clippy_clean(corpus: &Corpus) -> Vec<String> {
    combined_builds_clippy_clean(corpus, &corpus.mixed, corpus.alone.len() + corpus.crds_alone.len())
}

/// A CRD brings its own schemas and the metadata schemas every CRD shares, which are the
/// same in every CRD and in the documents: CRDs alone and together have no merge notes,
/// and the documents with the CRDs have just the notes of the documents alone (which
/// name the documents by their folder, here [`MIXED`]).
fn crds_add_no_merge_notes(corpus: &Corpus) -> Vec<String> {
    let mut problems: Vec<String> = corpus
        .crds_alone
        .iter()
        .chain([&corpus.all_crds])
        .filter_map(|output| output.summary.as_ref().ok().map(|summary| (output, summary)))
        .filter(|(_, summary)| !summary.notes.is_empty())
        .map(|(output, summary)| format!("{}: unexpected notes: {:#?}", output.name, summary.notes))
        .collect();
    if let (Ok(all), Ok(mixed)) = (&corpus.all.summary, &corpus.mixed.summary) {
        let folder = KUBERNETES_V3.rsplit('/').next().unwrap_or(KUBERNETES_V3);
        // The proto files are beside the documents in ALL only.
        let expected: Vec<String> = all
            .notes
            .iter()
            .filter(|note| !is_protobuf_note(note))
            .map(|note| note.replace(&format!("{folder}/"), &format!("{MIXED}/")))
            .collect();
        if mixed.notes != expected {
            problems.push(format!("{MIXED}: notes {:#?}, expected those of {ALL}: {expected:#?}", mixed.notes));
        }
    }
    problems
}

fn every_crd_resource_gets_a_resource_impl(corpus: &Corpus) -> Vec<String> {
    let expected_total = (corpus.crds_alone.len() == EXPECTED_CRD_RESOURCES.len()).then_some(3);
    let mut problems =
        resource_impls_match(corpus, &corpus.crds_alone, ALL_CRDS, EXPECTED_CRD_RESOURCES, expected_total);
    // The mixed output has every resource of the documents and of the CRDs.
    let everything: Vec<&Output> = corpus.alone.iter().chain(&corpus.crds_alone).collect();
    let total: usize = everything.iter().filter_map(|o| o.summary.as_ref().ok()).map(|s| s.resources).sum();
    match corpus::resource_impls(&corpus.dir(MIXED)) {
        Ok(impls) if impls.len() != total => {
            problems.push(format!("{MIXED}: {} resource impls, the files alone have {total}: {impls:?}", impls.len()));
        }
        Ok(_) => {}
        Err(e) => problems.push(format!("{MIXED}: cannot read the output: {e}")),
    }
    problems
}

/// `objects/build.rs` checks each object of `objects/` (see there) and turns every problem
/// into a compile error of the [`OBJECTS`] member; every object file must be one it checks.
fn objects_round_trip_and_validate(corpus: &Corpus) -> Vec<String> {
    let mut problems: Vec<String> = corpus
        .objects
        .iter()
        .filter(|name| !OBJECTS_BUILD.contains(&format!("include_str!({name:?})")))
        .map(|name| format!("objects/{name} is not checked by objects/build.rs"))
        .collect();
    if corpus.objects.is_empty() {
        problems.push("no objects in objects/".to_owned());
    }
    problems.extend(corpus.build.problems(OBJECTS).map(|p| format!("{OBJECTS}: {p}")));
    problems
}
