//! Benchmarks of the generator and of building what it writes; prints a Markdown report.
//!
//! ```text
//! KUBE_APIGEN_UPSTREAM=../shared/specs-upstream cargo run --release -p corpus --bin bench [-- --runs N] [--no-from-scratch]
//! ```
//!
//! - codegen: `kube_apigen_codegen::generate` in this (release) process, for `specs/` and for all
//!   upstream Kubernetes documents together, each run into a fresh output folder (so every
//!   file is formatted and written); one warm-up run, then the median of `--runs` runs.
//! - build, crate only: `cargo build --offline` (dev profile) of the crate generated from
//!   `specs/` (the content of `generated/`) and of the all-documents crate, each a member of
//!   a scratch workspace in `target/corpus/bench/`, dependencies already built; before each
//!   run `cargo clean -p <crate>` removes that crate's artifacts only; the crates take turns;
//!   median of `--runs`.
//! - build, from scratch: the same `cargo build`, once per crate, with an empty target
//!   folder, so the dependencies (serde, serde_json, support and its dependencies) are
//!   compiled too.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use corpus::{KUBERNETES_V3, Scratch, median};

struct Args {
    runs: usize,
    from_scratch: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { runs: 5, from_scratch: true };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        match arg.as_str() {
            "--runs" => {
                args.runs = given
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive number")?
            }
            "--no-from-scratch" => args.from_scratch = false,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}\nusage: bench [--runs N] [--no-from-scratch]");
            return ExitCode::from(2);
        }
    };
    let root = corpus::workspace_root();
    let upstream = match corpus::upstream_dir() {
        Ok(dir) => dir.map(|d| d.join(KUBERNETES_V3)),
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    if upstream.is_none() {
        eprintln!("note: {} is not set; measuring specs/ only", corpus::UPSTREAM_ENV);
    }
    let mut inputs = vec![("specs", root.join("specs"))];
    inputs.extend(upstream.map(|dir| ("all", dir)));

    println!("## Machine\n");
    println!("- {}", machine());
    println!("- {}", tool_version("rustc"));
    println!("- {}", tool_version("cargo"));
    println!("- load average (1 / 5 / 15 min) at start: {}\n", load());

    println!(
        "## Codegen wall time (release, in process, fresh output folder per run; 1 warm-up + median of {})\n",
        args.runs
    );
    println!("| input | documents | types | operations | resources | files | lines | median | min | max |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut failed = false;
    for (name, specs) in &inputs {
        match codegen_times(specs, args.runs) {
            Ok((summary, files, lines, times)) => println!(
                "| {} | {} | {} | {} | {} | {files} | {lines} | {} | {} | {} |",
                specs_label(&root, specs),
                summary.documents,
                summary.types,
                summary.operations,
                summary.resources,
                ms(median(&times)),
                ms(*times.iter().min().unwrap()),
                ms(*times.iter().max().unwrap()),
            ),
            Err(message) => {
                println!("| {name} | failed: {message} |");
                failed = true;
            }
        }
    }

    let bench = root.join("target").join("corpus").join("bench");
    let target = bench.join("target");
    let mut scratch = match Scratch::new(bench.join("work")) {
        Ok(scratch) => scratch,
        Err(e) => {
            eprintln!("error: cannot create the scratch workspace: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (name, specs) in &inputs {
        if let Err(message) = scratch.generate(name, specs) {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    }
    if let Err(e) = scratch.finish() {
        eprintln!("error: cannot write the scratch workspace: {e}");
        return ExitCode::FAILURE;
    }

    println!("\n## `cargo build` (dev profile) of the generated crate\n");
    println!("| crate | build | runs | median | min | max |");
    println!("|---|---|---|---|---|---|");
    if args.from_scratch {
        for (name, specs) in &inputs {
            let label = specs_label(&root, specs);
            let _ = fs::remove_dir_all(&target);
            match cargo_build(&scratch, &target, &[name]) {
                Ok(time) => println!(
                    "| {label} | from scratch: empty target folder, dependencies included | 1 | {} | | |",
                    secs(time)
                ),
                Err(message) => {
                    println!("| {label} | from scratch | failed | | | |");
                    eprintln!("{message}");
                    failed = true;
                }
            }
        }
    }
    let names: Vec<&str> = inputs.iter().map(|(name, _)| *name).collect();
    match crate_only_times(&scratch, &target, &names, args.runs) {
        Ok(times) => {
            for ((name, specs), times) in inputs.iter().zip(times) {
                println!(
                    "| {} | crate only: `cargo clean -p {name}`, dependencies already built | {} | {} | {} | {} |",
                    specs_label(&root, specs),
                    args.runs,
                    secs(median(&times)),
                    secs(*times.iter().min().unwrap()),
                    secs(*times.iter().max().unwrap()),
                );
            }
        }
        Err(message) => {
            println!("| crate only | failed | | | | |");
            eprintln!("{message}");
            failed = true;
        }
    }
    println!("\nload average (1 / 5 / 15 min) at end: {}", load());
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Runs the generator `runs` times (after one warm-up) into fresh folders.
fn codegen_times(
    specs: &Path,
    runs: usize,
) -> Result<(kube_apigen_codegen::Summary, usize, usize, Vec<Duration>), String> {
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for run in 0..=runs {
        let out = temp.path().join(format!("run-{run}"));
        let options = corpus::options(specs, &out);
        let started = Instant::now();
        let summary = kube_apigen_codegen::generate(&options).map_err(|e| e.to_string())?;
        let elapsed = started.elapsed();
        if run > 0 {
            times.push(elapsed);
        }
        last = Some((summary, out));
    }
    let (summary, out) = last.expect("at least one run");
    let files = summary.changes.changed.len();
    let lines = corpus::rust_files(&out.join("src"))
        .map_err(|e| e.to_string())?
        .iter()
        .map(|(_, text)| text.lines().count())
        .sum();
    Ok((summary, files, lines, times))
}

/// `cargo build` of some members; its wall time.
fn cargo_build(scratch: &Scratch, target: &Path, members: &[&str]) -> Result<Duration, String> {
    let mut command = scratch.cargo(target);
    command.args(["build", "--offline", "--quiet"]);
    for member in members {
        command.args(["-p", member]);
    }
    timed(&mut command)
}

/// Rebuilds each member alone `runs` times, dependencies already built. The members take
/// turns (one run of each, then the next round), so that they share the machine's load.
fn crate_only_times(
    scratch: &Scratch,
    target: &Path,
    members: &[&str],
    runs: usize,
) -> Result<Vec<Vec<Duration>>, String> {
    cargo_build(scratch, target, members)?; // dependencies
    let mut times = vec![Vec::with_capacity(runs); members.len()];
    for _ in 0..runs {
        for (member, times) in members.iter().zip(&mut times) {
            let mut clean = scratch.cargo(target);
            clean.args(["clean", "--offline", "--quiet", "-p", member]);
            timed(&mut clean)?;
            times.push(cargo_build(scratch, target, &[member])?);
        }
    }
    Ok(times)
}

fn timed(command: &mut Command) -> Result<Duration, String> {
    let started = Instant::now();
    let output = command.stdin(Stdio::null()).output().map_err(|e| format!("cannot run {command:?}: {e}"))?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        return Err(format!("{command:?} failed:\n{}", corpus::tail(&String::from_utf8_lossy(&output.stderr), 40)));
    }
    Ok(elapsed)
}

/// `specs/` or `specs-upstream/kubernetes/v3/` (all together).
fn specs_label(root: &Path, specs: &Path) -> String {
    if specs == root.join("specs") {
        "`specs/`".to_owned()
    } else {
        format!("`specs-upstream/{KUBERNETES_V3}/` (all together)")
    }
}

/// The load averages (1, 5, 15 minutes): the machine is shared, so say how busy it was.
fn load() -> String {
    let loads = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let loads: Vec<&str> = loads.split_whitespace().take(3).collect();
    if loads.is_empty() { "unknown".to_owned() } else { loads.join(" / ") }
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let memory = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| info.lines().next().map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_owned()))
        .and_then(|kib| kib.parse::<u64>().ok())
        .map(|kib| format!(", {} GiB RAM", kib / 1024 / 1024))
        .unwrap_or_default();
    format!("{cores} cores available ({cpu}){memory}, {}", std::env::consts::OS)
}

fn tool_version(tool: &str) -> String {
    let program: PathBuf = if tool == "cargo" {
        std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| "cargo".into())
    } else {
        tool.into()
    };
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| format!("{tool}: unknown version"))
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn secs(duration: Duration) -> String {
    format!("{:.2} s", duration.as_secs_f64())
}
