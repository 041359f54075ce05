//! Project automation, reached as `cargo xtask <command>`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask codegen [--check] [--specs DIR --out DIR]
       cargo xtask api-diff --base REVISION|DIR [--specs DIR] [--format text|markdown|json] [--allow FILE]

codegen: generates the Rust crate for the API specs in DIR into the output folder.
Without --specs and --out, regenerates every crate this repository commits: generated/
from specs/, and the test fixture crate tests/fixture-api/ from tests/fixture-specs/.

  --check       write nothing; exit 1 listing the files that are not up to date
  --specs DIR   read OpenAPI v3 documents (JSON or YAML) from DIR
  --out DIR     write the generated crate to DIR (it builds on its own)

api-diff: reports what the API in --specs (default specs/) changes against --base, by
Kubernetes' compatibility rules: each change breaking, to review or compatible, with its
effect on the generated crate. Exit status 0 when nothing breaks (or the allow-list
accepts every breaking change), 1 when something breaks, 2 on usage or spec errors.

  --base REVISION|DIR  a folder, or a git revision whose copy of the --specs folder is
                       read from git (the work tree and the index are left alone)
  --specs DIR          the specs to check (default: specs/ of this repository)
  --format FORMAT      text (default), markdown (a pull-request comment) or json
  --allow FILE         accepted breaking changes: [[allow]] entries with rule, path,
                       reason and optionally group, version, kind";

/// Generating allocates and frees token streams and JSON values by the hundred thousand;
/// with mimalloc, a release build regenerates an up-to-date CRD's crate in about four
/// fifths of the time it takes with the system allocator (BENCHMARKS.md, "Generation in
/// the dev profile").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("codegen") => match parse_codegen(&args[1..]) {
            Ok(runs) => {
                let failed = runs.iter().map(codegen).filter(|code| *code != ExitCode::SUCCESS).count();
                if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
            }
            Err(message) => usage_error(&message),
        },
        Some("api-diff") => match parse_api_diff(&args[1..]) {
            Ok(options) => api_diff(&options),
            Err(message) => usage_error(&message),
        },
        Some("-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => usage_error(&format!("unknown command `{other}`")),
        None => usage_error("no command given"),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

/// The crates this repository commits, as (specs folder, output folder) from its root.
const COMMITTED_OUTPUTS: &[(&str, &str)] = &[("specs", "generated"), ("tests/fixture-specs", "tests/fixture-api")];

/// The arguments of a command: `--flag` and `--flag VALUE`.
struct Flags<'a> {
    args: std::slice::Iter<'a, String>,
}

impl<'a> Flags<'a> {
    fn new(args: &'a [String]) -> Flags<'a> {
        Flags { args: args.iter() }
    }

    fn next(&mut self) -> Option<&'a str> {
        self.args.next().map(String::as_str)
    }

    /// The value of `flag`, which names what it is (`a folder`).
    fn value(&mut self, flag: &str, what: &str) -> Result<&'a str, String> {
        self.next().ok_or(format!("{flag} needs {what}"))
    }
}

/// A path of this repository, relative to the working directory when it is below it:
/// messages stay short and the same on every machine.
fn repository_path(path: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace");
    let absolute = root.join(path);
    std::env::current_dir()
        .ok()
        .and_then(|cwd| absolute.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or(absolute)
}

fn parse_codegen(args: &[String]) -> Result<Vec<kube_apigen_codegen::Options>, String> {
    let (mut check, mut specs, mut out) = (false, None, None);
    let mut flags = Flags::new(args);
    while let Some(flag) = flags.next() {
        match flag {
            "--check" => check = true,
            "--specs" => specs = Some(PathBuf::from(flags.value(flag, "a folder")?)),
            "--out" => out = Some(PathBuf::from(flags.value(flag, "a folder")?)),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    match (specs, out) {
        (Some(specs), Some(out)) => Ok(vec![codegen_options(specs, out, check)]),
        (None, None) => Ok(COMMITTED_OUTPUTS
            .iter()
            .map(|(specs, out)| codegen_options(repository_path(specs), repository_path(out), check))
            .collect()),
        _ => Err("--specs and --out go together".to_owned()),
    }
}

/// Formatting results are remembered in the target folder, which cargo already keeps out of
/// version control and `cargo clean` empties.
fn codegen_options(specs: PathBuf, out: PathBuf, check: bool) -> kube_apigen_codegen::Options {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repository_path("target"), PathBuf::from);
    kube_apigen_codegen::Options { specs, out, check, format_cache: Some(target.join("codegen-format")) }
}

fn codegen(options: &kube_apigen_codegen::Options) -> ExitCode {
    let summary = match kube_apigen_codegen::generate(options) {
        Ok(summary) => summary,
        Err(error) => {
            eprintln!("error: {error}");
            eprintln!("nothing was written");
            return ExitCode::FAILURE;
        }
    };
    for note in &summary.notes {
        println!("note: {note}");
    }
    let changes = &summary.changes;
    println!(
        "{} documents, {} schemas ({} types), {} operations, {} resources",
        summary.documents, summary.schemas, summary.types, summary.operations, summary.resources
    );
    if options.check {
        if changes.is_empty() {
            println!("{} is up to date ({} files)", options.out.display(), changes.unchanged.len());
            return ExitCode::SUCCESS;
        }
        eprintln!("{} is not up to date; run `cargo xtask codegen`:", options.out.display());
        for path in &changes.changed {
            eprintln!("  stale:   {}", path.display());
        }
        for path in &changes.removed {
            eprintln!("  extra:   {}", path.display());
        }
        return ExitCode::FAILURE;
    }
    println!(
        "{}: {} files written, {} unchanged, {} removed in {:.2?}",
        options.out.display(),
        changes.changed.len(),
        changes.unchanged.len(),
        changes.removed.len(),
        summary.elapsed
    );
    ExitCode::SUCCESS
}

#[derive(Clone, Copy)]
enum Format {
    Text,
    Markdown,
    Json,
}

struct ApiDiff {
    base: String,
    specs: PathBuf,
    format: Format,
    allow: Option<PathBuf>,
}

fn parse_api_diff(args: &[String]) -> Result<ApiDiff, String> {
    let (mut base, mut specs, mut format, mut allow) = (None, None, Format::Text, None);
    let mut flags = Flags::new(args);
    while let Some(flag) = flags.next() {
        match flag {
            "--base" => base = Some(flags.value(flag, "a git revision or a folder")?.to_owned()),
            "--specs" => specs = Some(PathBuf::from(flags.value(flag, "a folder")?)),
            "--format" => {
                format = match flags.value(flag, "a format")? {
                    "text" => Format::Text,
                    "markdown" => Format::Markdown,
                    "json" => Format::Json,
                    other => return Err(format!("unknown format `{other}`; expected text, markdown or json")),
                }
            }
            "--allow" => allow = Some(PathBuf::from(flags.value(flag, "a file")?)),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(ApiDiff {
        base: base.ok_or("--base is required")?,
        specs: specs.unwrap_or_else(|| repository_path("specs")),
        format,
        allow,
    })
}

fn api_diff(options: &ApiDiff) -> ExitCode {
    let spec_error = |side: &str, error: kube_apigen_codegen::Error| {
        eprintln!("error: {side}: {error}");
        ExitCode::from(2)
    };
    let allow = match options.allow.as_deref().map(kube_apigen_codegen::diff::AllowList::read).transpose() {
        Ok(allow) => allow,
        Err(error) => return spec_error("allow-list", error),
    };
    let base_folder = Path::new(&options.base);
    // A folder is read as it is; anything else names a git revision.
    let revision = if base_folder.is_dir() {
        None
    } else {
        match kube_apigen_codegen::diff::Revision::read(&options.specs, &options.base) {
            Ok(revision) => Some(revision),
            Err(error) => return spec_error(&format!("base {}", options.base), error),
        }
    };
    let base = match kube_apigen_codegen::diff::Api::read(revision.as_ref().map_or(base_folder, |r| r.specs())) {
        Ok(api) => api,
        Err(error) => return spec_error(&format!("base {}", options.base), error),
    };
    let specs = match kube_apigen_codegen::diff::Api::read(&options.specs) {
        Ok(api) => api,
        Err(error) => return spec_error(&options.specs.display().to_string(), error),
    };
    let specs_label = options.specs.display().to_string();
    let report = kube_apigen_codegen::diff::Report::new(&options.base, &specs_label, &base, &specs, allow.as_ref());
    print!(
        "{}",
        match options.format {
            Format::Text => report.text(),
            Format::Markdown => report.markdown(),
            Format::Json => report.json(),
        }
    );
    if report.breaks() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
