//! The `kube-apigen` command, as a library: its two commands, `generate` and `diff`, with
//! their flags, messages and exit codes, for the binary and for a repository's own
//! `xtask`, which names them its own way ([`Cli`]).
//!
//! Exit codes: 0 on success; 1 when generation fails (a spec error: nothing is written),
//! when `--check` finds files that are not up to date, or when `diff` finds a breaking
//! change the allow-list does not accept; 2 on usage errors (and spec errors of `diff`).
//!
//! Linking this crate makes mimalloc the program's allocator: the generator allocates and
//! frees token streams and JSON values by the hundred thousand, and a release build
//! regenerates a CRD's crate in about four fifths of the time it takes with the system
//! allocator (BENCHMARKS.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kube_apigen_codegen::{Apimachinery, Config, GitReference, Membership, Options, Publish, Runtime, config};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How a program presents the commands: its name, the names of the two commands, and what
/// it takes when a flag is not given.
#[derive(Debug, Clone)]
pub struct Cli {
    /// `kube-apigen`, `cargo xtask`.
    pub program: String,
    /// `generate`, `codegen`.
    pub generate: String,
    /// `diff`, `api-diff`.
    pub diff: String,
    /// The command generated files name in their header.
    pub header: String,
    /// The configuration read when neither `--config` nor `--specs` and `--out` are given.
    pub config: PathBuf,
    /// The runtime of crates generated with `--specs` and `--out` and no runtime flag.
    pub runtime: Runtime,
    /// Where printed files are remembered between runs ([`Options::format_cache`]).
    pub format_cache: Option<PathBuf>,
    /// The specs `diff` compares when `--specs` is not given.
    pub diff_specs: PathBuf,
}

impl Cli {
    /// The installed command: `kube-apigen generate` and `kube-apigen diff`, reading
    /// `apigen.toml` and remembering printed files in cargo's target folder
    /// (`$CARGO_TARGET_DIR`, else `target/` when there is one).
    pub fn kube_apigen() -> Self {
        let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).or_else(|| {
            let target = PathBuf::from("target");
            target.is_dir().then_some(target)
        });
        Cli {
            program: "kube-apigen".to_owned(),
            generate: "generate".to_owned(),
            diff: "diff".to_owned(),
            header: "kube-apigen generate".to_owned(),
            config: PathBuf::from(config::FILE_NAME),
            runtime: Runtime::default(),
            format_cache: target.map(|target| target.join("kube-apigen-format")),
            diff_specs: PathBuf::from("specs"),
        }
    }

    /// Runs the command line `args` (without the program's name).
    pub fn run(&self, args: &[String]) -> ExitCode {
        match args.first().map(String::as_str) {
            Some(command) if command == self.generate => match self.parse_generate(&args[1..]) {
                Ok(runs) => {
                    let failed = runs.iter().map(generate).filter(|code| *code != ExitCode::SUCCESS).count();
                    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
                }
                Err(Refused::Usage(message)) => self.usage_error(&message),
                Err(Refused::Config(error)) => {
                    eprintln!("error: {error}");
                    eprintln!("nothing was written");
                    ExitCode::FAILURE
                }
            },
            Some(command) if command == self.diff => match self.parse_diff(&args[1..]) {
                Ok(options) => diff(&options),
                Err(message) => self.usage_error(&message),
            },
            Some("-h" | "--help") => {
                println!("{}", self.usage());
                ExitCode::SUCCESS
            }
            Some("-V" | "--version") => {
                println!("{} {}", self.program, kube_apigen_codegen::package::GENERATOR_VERSION);
                ExitCode::SUCCESS
            }
            Some(other) => self.usage_error(&format!("unknown command `{other}`")),
            None => self.usage_error("no command given"),
        }
    }

    fn usage_error(&self, message: &str) -> ExitCode {
        eprintln!("error: {message}\n\n{}", self.usage());
        ExitCode::from(2)
    }

    /// The text of `--help`.
    pub fn usage(&self) -> String {
        let (program, generate, diff) = (&self.program, &self.generate, &self.diff);
        let config = self.config.display();
        format!(
            "\
usage: {program} {generate} [--check] [--config FILE]
       {program} {generate} [--check] --specs DIR --out DIR [CRATE OPTIONS] [RUNTIME OPTIONS]
       {program} {diff} --base REVISION|DIR [--specs DIR] [--format text|markdown|json] [--allow FILE]
       {program} --help | --version

{generate}: generates the Rust crate of the API specs in a folder (OpenAPI v3 documents
and CustomResourceDefinitions, JSON or YAML, and .proto files) into an output folder.
Without --specs and --out, generates every crate the configuration lists ({config}).

  --check                write nothing; exit 1 listing the files that are not up to date
  --config FILE          the configuration: [[crate]] tables with specs, out and the options below
  --specs DIR            read the specs from DIR
  --out DIR              write the generated crate to DIR (new, empty or generated before)

crate options (with --specs and --out; default: named after DIR, 0.1.0, not published):
  --name NAME            the package name
  --version VERSION      the package version
  --edition EDITION      the Rust edition (default 2024)
  --license SPDX         the license expression
  --description TEXT     the package description
  --publish              may be published to any registry
  --registry NAME        may be published to this registry only (repeatable)
  --workspace MODE       detect (default), member or standalone: whether the crate is a
                         member of the Cargo workspace around it
  --apimachinery FROM    runtime (default) or k8s-openapi: whose ObjectMeta, Time, Quantity,
                         ... the models use (k8s-openapi's make them kube-rs resources)

runtime options (where the crate takes kube-apigen from; default: version {version}):
  --runtime-version VERSION   the version requirement
  --runtime-path DIR          a local folder holding the kube-apigen crate
  --runtime-git URL           a git repository, with --runtime-branch, --runtime-tag or --runtime-rev

{diff}: reports what the API in --specs (default {specs}) changes against --base, by
Kubernetes' compatibility rules: each change breaking, to review or compatible, with its
effect on the generated crate. Exit status 0 when nothing breaks (or the allow-list
accepts every breaking change), 1 when something breaks, 2 on usage or spec errors.

  --base REVISION|DIR  a folder, or a git revision whose copy of the --specs folder is
                       read from git (the work tree and the index are left alone)
  --specs DIR          the specs to check
  --format FORMAT      text (default), markdown (a pull-request comment) or json
  --allow FILE         accepted breaking changes: [[allow]] entries with rule, path,
                       reason and optionally group, version, kind",
            version = kube_apigen_codegen::package::GENERATOR_VERSION,
            specs = self.diff_specs.display(),
        )
    }

    fn parse_generate(&self, args: &[String]) -> Result<Vec<Options>, Refused> {
        let mut flags = Flags::new(args);
        let (mut check, mut config_file, mut specs, mut out) = (false, None, None, None);
        let mut crate_flags = Vec::new();
        while let Some(flag) = flags.next() {
            match flag {
                "--check" => check = true,
                "--config" => config_file = Some(PathBuf::from(flags.value(flag, "a file")?)),
                "--specs" => specs = Some(PathBuf::from(flags.value(flag, "a folder")?)),
                "--out" => out = Some(PathBuf::from(flags.value(flag, "a folder")?)),
                "--publish" => crate_flags.push((flag, String::new())),
                other if CRATE_FLAGS.contains(&other) => {
                    crate_flags.push((other, flags.value(other, "a value")?.to_owned()))
                }
                other => return Err(format!("unknown option `{other}`").into()),
            }
        }
        let mut runs = match (specs, out) {
            (Some(specs), Some(out)) => {
                if config_file.is_some() {
                    return Err("--config and --specs/--out exclude each other".to_owned().into());
                }
                let mut options = Options::new(specs, out);
                options.runtime = self.runtime.clone();
                apply_crate_flags(&mut options, &crate_flags)?;
                vec![options]
            }
            (None, None) => {
                if let Some((flag, _)) = crate_flags.first() {
                    return Err(
                        format!("{flag} goes with --specs and --out; set it in the configuration instead").into()
                    );
                }
                let file = config_file.unwrap_or_else(|| self.config.clone());
                if !file.is_file() {
                    return Err(format!(
                        "no configuration at {}: give --config FILE, or --specs DIR and --out DIR",
                        file.display()
                    )
                    .into());
                }
                Config::read(&file).map_err(Refused::Config)?.crates
            }
            _ => return Err("--specs and --out go together".to_owned().into()),
        };
        for options in &mut runs {
            options.check = check;
            options.command = self.header.clone();
            options.format_cache = self.format_cache.clone();
        }
        Ok(runs)
    }

    fn parse_diff(&self, args: &[String]) -> Result<Diff, String> {
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
        Ok(Diff {
            base: base.ok_or("--base is required")?,
            specs: specs.unwrap_or_else(|| self.diff_specs.clone()),
            format,
            allow,
        })
    }
}

/// Why `generate` does not run: a usage error (exit 2, with the usage), or a configuration
/// file it cannot take (exit 1, as a spec error).
enum Refused {
    Usage(String),
    Config(kube_apigen_codegen::Error),
}

impl From<String> for Refused {
    fn from(message: String) -> Self {
        Refused::Usage(message)
    }
}

/// The flags of `generate` that describe the crate made with `--specs` and `--out`, each
/// with a value (`--publish` has none).
const CRATE_FLAGS: &[&str] = &[
    "--name",
    "--version",
    "--edition",
    "--license",
    "--description",
    "--registry",
    "--workspace",
    "--apimachinery",
    "--runtime-version",
    "--runtime-path",
    "--runtime-git",
    "--runtime-branch",
    "--runtime-tag",
    "--runtime-rev",
];

fn apply_crate_flags(options: &mut Options, flags: &[(&str, String)]) -> Result<(), String> {
    let package = &mut options.package;
    let mut registries = Vec::new();
    let (mut runtime_version, mut path, mut git, mut reference) = (None, None, None, GitReference::DefaultBranch);
    for (flag, value) in flags {
        match *flag {
            "--name" => package.name = Some(value.clone()),
            "--version" => package.version = value.clone(),
            "--edition" => package.edition = value.clone(),
            "--license" => package.license = Some(value.clone()),
            "--description" => package.description = Some(value.clone()),
            "--publish" => package.publish = Publish::Anywhere,
            "--registry" => registries.push(value.clone()),
            "--workspace" => {
                options.membership = match value.as_str() {
                    "detect" => Membership::Detect,
                    "member" => Membership::Member,
                    "standalone" => Membership::Standalone,
                    other => {
                        return Err(format!("unknown workspace mode `{other}`; expected detect, member or standalone"));
                    }
                }
            }
            "--apimachinery" => {
                options.apimachinery = match value.as_str() {
                    "runtime" => Apimachinery::Runtime,
                    "k8s-openapi" => Apimachinery::K8sOpenapi,
                    other => return Err(format!("unknown apimachinery `{other}`; expected runtime or k8s-openapi")),
                }
            }
            "--runtime-version" => runtime_version = Some(value.clone()),
            "--runtime-path" => path = Some(PathBuf::from(value)),
            "--runtime-git" => git = Some(value.clone()),
            "--runtime-branch" => reference = GitReference::Branch(value.clone()),
            "--runtime-tag" => reference = GitReference::Tag(value.clone()),
            "--runtime-rev" => reference = GitReference::Rev(value.clone()),
            _ => unreachable!("CRATE_FLAGS lists every flag handled here"),
        }
    }
    if !registries.is_empty() {
        package.publish = Publish::Registries(registries);
    }
    let version = match (&runtime_version, &options.runtime) {
        (Some(version), _) => version.clone(),
        (None, Runtime::Registry { version } | Runtime::Path { version, .. } | Runtime::Git { version, .. }) => {
            version.clone()
        }
    };
    options.runtime = match (path, git) {
        (Some(_), Some(_)) => return Err("--runtime-path and --runtime-git exclude each other".to_owned()),
        (None, None) if reference != GitReference::DefaultBranch => {
            return Err("--runtime-branch, --runtime-tag and --runtime-rev go with --runtime-git".to_owned());
        }
        (Some(path), None) => Runtime::Path { path, version },
        (None, Some(url)) => Runtime::Git { url, reference, version },
        (None, None) if runtime_version.is_some() => Runtime::Registry { version },
        (None, None) => options.runtime.clone(),
    };
    Ok(())
}

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

/// Generates one crate and reports it: notes and a summary on stdout, errors and stale
/// files on stderr.
fn generate(options: &Options) -> ExitCode {
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
        eprintln!("{} is not up to date; run `{}`:", options.out.display(), options.command);
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

struct Diff {
    base: String,
    specs: PathBuf,
    format: Format,
    allow: Option<PathBuf>,
}

fn diff(options: &Diff) -> ExitCode {
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
