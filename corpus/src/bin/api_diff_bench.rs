//! How long `cargo xtask api-diff` takes on the whole upstream corpus (every Kubernetes
//! document and every CRD in one folder) against itself with one change, next to
//! `cargo xtask codegen --check` on the same specs; prints a Markdown report.
//!
//! ```text
//! KUBE_APIGEN_UPSTREAM=../shared/specs-upstream cargo run --release -p corpus --bin api_diff_bench [-- --runs N]
//! ```
//!
//! The change: `minReplicas` removed from the autoscaling/v2 HorizontalPodAutoscalerSpec.
//! Each round, in this (release) process: the report (read both folders as generation
//! does, compare, apply no allow-list, render text, Markdown and JSON), then
//! `kube_apigen_codegen::generate` in check mode for the changed specs (read, build, emit and format
//! every file, compare with an empty output folder, write nothing). One warm-up round,
//! then the median of `--runs` rounds.

use std::fs;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use corpus::{CRDS, KUBERNETES_V3, median, spec_files};
use kube_apigen_codegen::diff::{Api, Report, Rule, Severity};
use serde_json::Value;

const SPEC: &str = "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn runs() -> Result<usize, String> {
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(11),
        (Some("--runs"), Some(n)) => n.parse().ok().filter(|&n| n > 0).ok_or("--runs needs a positive number".into()),
        _ => Err("usage: api_diff_bench [--runs N]".into()),
    }
}

/// Copies every upstream document and CRD into `dir`, then removes `minReplicas` from the
/// HorizontalPodAutoscaler of autoscaling/v2 there if `change` says so.
fn write_specs(upstream: &Path, dir: &Path, change: bool) -> Result<usize, String> {
    fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut files = spec_files(&upstream.join(KUBERNETES_V3)).map_err(|e| e.to_string())?;
    files.extend(spec_files(&upstream.join(CRDS)).map_err(|e| e.to_string())?);
    for file in &files {
        let copy = dir.join(file.file_name().ok_or("a file name")?);
        fs::copy(file, &copy).map_err(|e| format!("{}: {e}", file.display()))?;
        if change && corpus::document_stem(file) == "apis__autoscaling__v2" {
            let mut document: Value = serde_json::from_str(&fs::read_to_string(&copy).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
            let spec = document.pointer_mut(&format!("/components/schemas/{SPEC}")).ok_or("no HPA spec")?;
            spec["properties"].as_object_mut().ok_or("no properties")?.remove("minReplicas").ok_or("no minReplicas")?;
            fs::write(&copy, document.to_string()).map_err(|e| e.to_string())?;
        }
    }
    Ok(files.len())
}

/// The report, and how long reading, comparing and rendering took.
fn timed_report(base: &Path, specs: &Path) -> Result<(Report, [Duration; 3]), String> {
    let started = Instant::now();
    let old = Api::read(base).map_err(|e| e.to_string())?;
    let new = Api::read(specs).map_err(|e| e.to_string())?;
    let read = started.elapsed();
    let report = Report::new("base", "specs", &old, &new, None);
    let compared = started.elapsed();
    let rendered = report.text().len() + report.markdown().len() + report.json().len();
    assert!(rendered > 0);
    let total = started.elapsed();
    Ok((report, [read, compared - read, total - compared]))
}

fn run() -> Result<(), String> {
    let runs = runs()?;
    let upstream =
        corpus::upstream_dir()?.ok_or(format!("set {} to the specs-upstream folder", corpus::UPSTREAM_ENV))?;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (base, specs) = (tmp.path().join("base"), tmp.path().join("specs"));
    let files = write_specs(&upstream, &base, false)?;
    write_specs(&upstream, &specs, true)?;

    let (report, _) = timed_report(&base, &specs)?;
    let found: Vec<(Severity, Rule, &str)> =
        report.changes.iter().map(|c| (c.severity, c.rule, c.path.as_str())).collect();
    if found != [(Severity::Breaking, Rule::FieldRemoved, "spec.minReplicas")] {
        return Err(format!("the report should hold the one change made, not {found:?}"));
    }
    let check = kube_apigen_codegen::Options { check: true, ..corpus::options(&specs, &tmp.path().join("out")) };
    let mut times: [Vec<Duration>; 5] = Default::default();
    for round in 0..=runs {
        let (_, [read, compare, render]) = timed_report(&base, &specs)?;
        let started = Instant::now();
        let summary = kube_apigen_codegen::generate(&check).map_err(|e| e.to_string())?;
        let generate = started.elapsed();
        assert!(!summary.changes.changed.is_empty());
        if round > 0 {
            for (list, time) in times.iter_mut().zip([read, compare, render, read + compare + render, generate]) {
                list.push(time);
            }
        }
    }
    let load = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("{files} spec files, one change; {runs} rounds after a warm-up; load average at the end: {}\n", {
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" / ")
    });
    println!("| step | median | min | max |\n|---|---:|---:|---:|");
    let steps = [
        "read both folders (load, typed spec, IR)",
        "compare",
        "render text, Markdown and JSON",
        "**api-diff report, in all**",
        "`codegen --check` of the changed specs",
    ];
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    for (step, list) in steps.iter().zip(&times) {
        let (min, max) =
            (list.iter().min().copied().unwrap_or_default(), list.iter().max().copied().unwrap_or_default());
        println!("| {step} | {} | {} | {} |", ms(median(list)), ms(min), ms(max));
    }
    let ratio = |a: &[Duration], b: &[Duration]| median(a).as_secs_f64() / median(b).as_secs_f64();
    println!(
        "\ncompare / read: {:.3}; api-diff report / codegen --check: {:.2}",
        ratio(&times[1], &times[0]),
        ratio(&times[3], &times[4])
    );
    Ok(())
}
