//! Our generator side by side with kopium on the upstream CRDs; prints a Markdown report.
//!
//! ```text
//! KUBE_APIGEN_UPSTREAM=../shared/specs-upstream cargo run --release -p corpus --bin crd_tools \
//!     [-- --rounds N] [--build] [--kopium-arg ARG]...
//! ```
//!
//! Cases: each CRD of `specs-upstream/crds/` alone, then all of them together.
//!
//! - generation: interleaved rounds (one warm-up, then `--rounds`, default 11); in each
//!   round every case runs both tools, which go first in turn. Ours is `kube_apigen_codegen::generate`
//!   in this (release) process, as the `bench` binary measures it, on a folder of copies of
//!   the case's CRDs, into a fresh output folder per run. Kopium is a process per CRD,
//!   `kopium -f FILE` (plus any `--kopium-arg`), its standard output written to a file; it
//!   takes one CRD per run, so "all together" is one run per CRD, one after the other, and
//!   its time is their sum. Kopium's times include starting a process: the
//!   `kopium --version` row measures that alone. Ours also regenerates: the same call
//!   into one output folder per case, with a format cache (as `cargo xtask codegen` runs
//!   it), so after the warm-up every file is reused instead of formatted.
//! - `--build`: each tool's output of each case once, as a crate of its own in
//!   `target/corpus/crd-tools/` with this workspace's lock file, built with `cargo build`
//!   (dev profile) into the workspace's `target/`. Ours is the crate the generator writes;
//!   kopium's output is one module per CRD of a crate that depends on kube (`derive`),
//!   k8s-openapi (`latest`, and `schemars`, without which the `JsonSchema` derives of
//!   `kopium -A` fail on `Condition` and `IntOrString`), schemars, serde and serde_json, at
//!   the versions this workspace pins. A first build compiles the dependencies; the time shown is a second build after
//!   `cargo clean -p` of that crate alone.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use corpus::{median, spec_files};

struct Args {
    rounds: usize,
    build: bool,
    kopium_args: Vec<String>,
}

const USAGE: &str = "usage: crd_tools [--rounds N] [--build] [--kopium-arg ARG]...";

fn parse_args() -> Result<Args, String> {
    let mut args = Args { rounds: 11, build: false, kopium_args: Vec::new() };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        match arg.as_str() {
            "--rounds" => {
                args.rounds = given
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--rounds needs a positive number")?
            }
            "--build" => args.build = true,
            "--kopium-arg" => args.kopium_args.push(given.next().ok_or("--kopium-arg needs a value")?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// One CRD alone, or all of them.
struct Case {
    name: String,
    files: Vec<PathBuf>,
    /// A folder holding copies of `files`, for our generator.
    specs: PathBuf,
}

/// The wall times of one tool on one case, or why it failed.
type Times = Result<Vec<Duration>, String>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args().map_err(|message| format!("{message}\n{USAGE}"))?;
    let upstream = corpus::upstream_dir()?.ok_or_else(|| {
        format!("{} is not set: name the specs-upstream folder, e.g. ../shared/specs-upstream", corpus::UPSTREAM_ENV)
    })?;
    let crds = spec_files(&upstream.join("crds"))
        .map_err(|e| format!("cannot list {}: {e}", upstream.join("crds").display()))?;
    if crds.is_empty() {
        return Err(format!("no CRD files in {}", upstream.join("crds").display()));
    }
    let kopium = find_kopium();
    if kopium.is_none() {
        eprintln!("note: kopium is neither on PATH nor in ~/.cargo/bin; measuring our generator only");
    }

    let temp = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let mut groups: Vec<(String, Vec<PathBuf>)> = crds.iter().map(|file| (stem(file), vec![file.clone()])).collect();
    if crds.len() > 1 {
        groups.push(("all".to_owned(), crds.clone()));
    }
    let mut cases = Vec::new();
    for (name, files) in groups {
        let specs = temp.path().join("specs").join(&name);
        fs::create_dir_all(&specs).map_err(|e| e.to_string())?;
        for file in &files {
            let copy = specs.join(file.file_name().unwrap_or_default());
            fs::copy(file, &copy).map_err(|e| format!("cannot copy {} to {}: {e}", file.display(), copy.display()))?;
        }
        cases.push(Case { name, files, specs });
    }

    let mut ours: Vec<Times> = cases.iter().map(|_| Ok(Vec::new())).collect();
    let mut theirs: Vec<Times> = cases.iter().map(|_| Ok(Vec::new())).collect();
    let mut regenerated: Vec<Times> = cases.iter().map(|_| Ok(Vec::new())).collect();
    let mut startup: Times = Ok(Vec::new());
    for round in 0..=args.rounds {
        for (i, case) in cases.iter().enumerate() {
            let out = temp.path().join("ours").join(format!("{}-{round}", case.name));
            let run_ours = |times: &mut Times| record(times, round, || generate(&case.specs, &out, None));
            let kopium_out = temp.path().join("kopium").join(format!("{}-{round}", case.name));
            let run_theirs = |times: &mut Times, kopium: &Path| {
                record(times, round, || run_kopium(kopium, &args.kopium_args, &case.files, &kopium_out))
            };
            if let Some(kopium) = &kopium {
                if (round + i) % 2 == 0 {
                    run_ours(&mut ours[i]);
                    run_theirs(&mut theirs[i], kopium);
                } else {
                    run_theirs(&mut theirs[i], kopium);
                    run_ours(&mut ours[i]);
                }
            } else {
                run_ours(&mut ours[i]);
            }
            let again = temp.path().join("regenerated").join(&case.name);
            let cache = temp.path().join("format-cache");
            record(&mut regenerated[i], round, || generate(&case.specs, &again, Some(&cache)));
        }
        if let Some(kopium) = &kopium {
            record(&mut startup, round, || timed(Command::new(kopium).arg("--version").stdout(Stdio::null())));
        }
    }

    println!("## Our generator and kopium on `specs-upstream/crds/`\n");
    println!("- {}", version(Path::new("rustc")));
    match &kopium {
        Some(kopium) => println!(
            "- {} ({}), run as `kopium {}-f FILE`",
            version(kopium),
            kopium.display(),
            args_label(&args.kopium_args)
        ),
        None => println!("- kopium: not found"),
    }
    println!("- load average (1 / 5 / 15 min) at end: {}\n", load());
    println!(
        "Wall time, 1 warm-up + {} interleaved rounds. Ours: `kube_apigen_codegen::generate` in process. Kopium: one process per CRD \
         (\"all\" is the sum of one run per CRD).\n",
        args.rounds
    );
    println!(
        "| case | CRDs | ours median | ours min | kopium median | kopium min | ours / kopium (median) | ours regenerating, median | regenerating / kopium | ours output | kopium output |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, case) in cases.iter().enumerate() {
        let ours_lines = lines(&temp.path().join("ours").join(format!("{}-{}", case.name, args.rounds)));
        let kopium_lines = lines(&temp.path().join("kopium").join(format!("{}-{}", case.name, args.rounds)));
        let ratio = |ours: &Times| match (ours, &theirs[i]) {
            (Ok(a), Ok(b)) if kopium.is_some() => format!("{:.1}", median(a).as_secs_f64() / median(b).as_secs_f64()),
            _ => String::new(),
        };
        let (ratio, regenerated_ratio) = (ratio(&ours[i]), ratio(&regenerated[i]));
        let (regenerated_median, _) = stats(&regenerated[i]);
        let (kopium_median, kopium_min) =
            if kopium.is_some() { stats(&theirs[i]) } else { ("not run".to_owned(), String::new()) };
        let (ours_median, ours_min) = stats(&ours[i]);
        println!(
            "| {} | {} | {ours_median} | {ours_min} | {kopium_median} | {kopium_min} | {ratio} | {regenerated_median} | \
             {regenerated_ratio} | {} | {} |",
            case.name,
            case.files.len(),
            lines_label(ours_lines, &ours[i]),
            lines_label(kopium_lines, &theirs[i]),
        );
    }
    if kopium.is_some() {
        let (startup_median, startup_min) = stats(&startup);
        println!("| `kopium --version` (process start only) | 0 | | | {startup_median} | {startup_min} | | | | | |");
    }

    if args.build {
        build_section(&cases, kopium.as_deref(), &args.kopium_args)?;
    }
    Ok(())
}

/// Runs `f` and adds its time to `times`, except in the warm-up round; after a failure the
/// tool is not run again for that case.
fn record(times: &mut Times, round: usize, f: impl FnOnce() -> Result<Duration, String>) {
    let Ok(list) = times else { return };
    match f() {
        Ok(elapsed) if round > 0 => list.push(elapsed),
        Ok(_) => {}
        Err(message) => *times = Err(message),
    }
}

/// Our generator, in process.
fn generate(specs: &Path, out: &Path, format_cache: Option<&Path>) -> Result<Duration, String> {
    let options = kube_apigen_codegen::Options {
        format_cache: format_cache.map(Path::to_path_buf),
        ..corpus::options(specs, out)
    };
    let started = Instant::now();
    match kube_apigen_codegen::generate(&options) {
        Ok(_) => Ok(started.elapsed()),
        Err(e) => {
            // The temporary folder says nothing: name the file only.
            let file = e.file.as_deref().and_then(Path::file_name).map(|f| format!("{}: ", f.to_string_lossy()));
            let at = e.pointer.as_deref().filter(|p| !p.is_empty()).map(|p| format!("at {p}: "));
            Err(format!("{}{}{}", file.unwrap_or_default(), at.unwrap_or_default(), e.message))
        }
    }
}

/// Kopium once per CRD, each writing `<out>/<stem>.rs`; the total wall time.
fn run_kopium(kopium: &Path, extra: &[String], files: &[PathBuf], out: &Path) -> Result<Duration, String> {
    fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let mut total = Duration::ZERO;
    for file in files {
        let target = out.join(format!("{}.rs", module_name(file)));
        let stdout = fs::File::create(&target).map_err(|e| format!("cannot create {}: {e}", target.display()))?;
        total += timed(Command::new(kopium).args(extra).arg("-f").arg(file).stdout(stdout))
            .map_err(|e| format!("{}: {e}", stem(file)))?;
    }
    Ok(total)
}

/// Runs a command to its end; its wall time, or the first line of its standard error.
fn timed(command: &mut Command) -> Result<Duration, String> {
    let started = Instant::now();
    let output = command
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "{}: {}",
            output.status,
            stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("no message")
        ));
    }
    Ok(elapsed)
}

/// `kopium` on PATH, else in `~/.cargo/bin`.
fn find_kopium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")));
    std::env::split_paths(&path).chain(home.map(|h| h.join("bin"))).map(|dir| dir.join("kopium")).find(|p| p.is_file())
}

fn build_section(cases: &[Case], kopium: Option<&Path>, kopium_args: &[String]) -> Result<(), String> {
    let root = corpus::workspace_root();
    let work = root.join("target").join("corpus").join("crd-tools");
    let target = root.join("target");
    let lock = fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let manifest = kopium_manifest(&fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default());
    let _ = fs::remove_dir_all(&work);

    println!("\n## `cargo build` (dev profile) of each output\n");
    println!("Crates in `{}`, target folder `{}`.\n", work.display(), target.display());
    println!("| case | tool | builds | crate-only build | warnings | first error |");
    println!("|---|---|---|---|---|---|");
    for case in cases {
        let dir = work.join(format!("ours-{}", case.name));
        let verdict = generate(&case.specs, &dir, None).map_err(|e| format!("error: {e}")).and_then(|_| {
            fs::write(dir.join("Cargo.lock"), &lock).map_err(|e| e.to_string())?;
            let manifest = fs::read_to_string(dir.join("Cargo.toml")).map_err(|e| e.to_string())?;
            let package = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .unwrap_or_default()
                .trim_matches('"')
                .to_owned();
            Ok(build(&dir, &target, &package))
        });
        print_build(case, "ours", verdict);
        let Some(kopium) = kopium else { continue };
        let dir = work.join(format!("kopium-{}", case.name));
        let package = format!("kopium-{}", snake(&case.name).replace('_', "-"));
        let verdict = run_kopium(kopium, kopium_args, &case.files, &dir.join("src")).and_then(|_| {
            let modules: Vec<String> = case.files.iter().map(|f| format!("pub mod {};\n", module_name(f))).collect();
            let write = |name: &str, text: &str| fs::write(dir.join(name), text).map_err(|e| e.to_string());
            write("src/lib.rs", &modules.concat())?;
            write("Cargo.toml", &manifest.replace("{name}", &package))?;
            write("Cargo.lock", &lock)?;
            Ok(build(&dir, &target, &package))
        });
        print_build(case, "kopium", verdict);
    }
    Ok(())
}

/// What one crate's build said, or its first error.
type Built = Result<Build, String>;

struct Build {
    time: Duration,
    warnings: usize,
    /// Whether cargo waited for another cargo's lock on the target folder, which the time
    /// then includes.
    waited: bool,
}

/// Builds once (dependencies included, untimed), then again after `cargo clean -p <package>`.
fn build(dir: &Path, target: &Path, package: &str) -> Built {
    let cargo = || {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command.current_dir(dir).env("CARGO_TARGET_DIR", target).stdin(Stdio::null());
        command
    };
    let build = || {
        let started = Instant::now();
        let output =
            cargo().args(["build", "--message-format=short"]).output().map_err(|e| format!("cannot run cargo: {e}"))?;
        let time = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() {
            let first = stderr.lines().find(|l| l.starts_with("error") || l.contains(": error"));
            return Err(first.unwrap_or("cargo failed with no message").to_owned());
        }
        // Warnings of this crate only, not of `support` (a path dependency, so not capped).
        let warnings = stderr.lines().filter(|l| l.starts_with("src/") && l.contains(": warning")).count();
        Ok(Build { time, warnings, waited: stderr.contains("Blocking waiting for file lock") })
    };
    build()?;
    cargo().args(["clean", "--quiet", "-p", package]).output().map_err(|e| format!("cannot run cargo clean: {e}"))?;
    build().map_err(|e| format!("after `cargo clean -p`: {e}"))
}

/// A row of the build table; `Err` if the tool did not generate the crate.
fn print_build(case: &Case, tool: &str, verdict: Result<Built, String>) {
    let row = match verdict {
        Ok(Ok(Build { time, warnings, waited })) => {
            let waited = if waited { " (waited for another cargo's lock)" } else { "" };
            format!("yes | {}{waited} | {warnings} |", secs(time))
        }
        Ok(Err(error)) => format!("**no** | | | {}", cell(&error)),
        Err(message) => format!("not generated | | | {}", cell(&message)),
    };
    println!("| {} | {tool} | {row} |", case.name);
}

/// The scratch crate manifest for kopium's output, with the kube and k8s-openapi versions
/// of this workspace's `[workspace.dependencies]`; `{name}` stands for the package name.
fn kopium_manifest(workspace: &str) -> String {
    let pinned = |name: &str, fallback: &str| {
        let line = workspace.lines().find(|l| l.starts_with(&format!("{name} =")));
        let version = line.and_then(|l| l.split("version = \"").nth(1)).and_then(|v| v.split('"').next());
        version.unwrap_or(fallback).to_owned()
    };
    format!(
        "[package]\nname = \"{{name}}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n\
         kube = {{ version = \"{}\", default-features = false, features = [\"derive\"] }}\n\
         k8s-openapi = {{ version = \"{}\", features = [\"latest\", \"schemars\"] }}\n\
         schemars = \"1\"\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n\n\
         [workspace]\n",
        pinned("kube", "5"),
        pinned("k8s-openapi", "0.29"),
    )
}

/// `cert-manager.io_certificates.yaml` -> `cert-manager.io_certificates`.
fn stem(file: &Path) -> String {
    file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// `cert-manager.io_certificates.yaml` -> `cert_manager_io_certificates`.
fn module_name(file: &Path) -> String {
    snake(&stem(file))
}

/// `cert-manager.io_certificates` -> `cert_manager_io_certificates`.
fn snake(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// The lines of the `.rs` files under `dir`, if it exists.
fn lines(dir: &Path) -> Option<usize> {
    let files = corpus::rust_files(dir).ok()?;
    (!files.is_empty()).then(|| files.iter().map(|(_, text)| text.lines().count()).sum())
}

fn lines_label(lines: Option<usize>, times: &Times) -> String {
    match (lines, times) {
        (Some(n), Ok(_)) => format!("{n} lines"),
        _ => String::new(),
    }
}

/// Median and min, or the error in the first cell.
fn stats(times: &Times) -> (String, String) {
    match times {
        Ok(times) if !times.is_empty() => (ms(median(times)), ms(*times.iter().min().unwrap())),
        Ok(_) => ("no runs".to_owned(), String::new()),
        Err(message) => (format!("error: {}", cell(message)), String::new()),
    }
}

/// Text made safe for one Markdown table cell.
fn cell(text: &str) -> String {
    text.lines().next().unwrap_or_default().replace('|', "\\|")
}

fn args_label(args: &[String]) -> String {
    args.iter().map(|a| format!("{a} ")).collect()
}

fn version(program: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| format!("{}: unknown version", program.display()))
}

fn load() -> String {
    let loads = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    loads.split_whitespace().take(3).collect::<Vec<_>>().join(" / ")
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn secs(duration: Duration) -> String {
    format!("{:.2} s", duration.as_secs_f64())
}
