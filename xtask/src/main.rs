//! Project automation, reached as `cargo xtask <command>`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask codegen [--check] [--specs DIR --out DIR]

Generates the Rust crate for the API specs in DIR into the output folder. Without
--specs and --out, regenerates every crate this repository commits: generated/ from
specs/, and the test fixture crate tests/fixture-api/ from tests/fixture-specs/.

  --check       write nothing; exit 1 listing the files that are not up to date
  --specs DIR   read OpenAPI v3 documents (JSON or YAML) from DIR
  --out DIR     write the generated crate to DIR (it builds on its own)";

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

fn parse_codegen(args: &[String]) -> Result<Vec<codegen::Options>, String> {
    let (mut check, mut specs, mut out) = (false, None, None);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().map(PathBuf::from).ok_or(format!("{flag} needs a folder"));
        match arg.as_str() {
            "--check" => check = true,
            "--specs" => specs = Some(value("--specs")?),
            "--out" => out = Some(value("--out")?),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    match (specs, out) {
        (Some(specs), Some(out)) => Ok(vec![codegen::Options { specs, out, check }]),
        (None, None) => {
            // Relative paths keep messages short and the same on every machine.
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace");
            let relative = |path: &str| {
                let absolute = root.join(path);
                std::env::current_dir()
                    .ok()
                    .and_then(|cwd| absolute.strip_prefix(&cwd).ok().map(Path::to_path_buf))
                    .unwrap_or(absolute)
            };
            Ok(COMMITTED_OUTPUTS
                .iter()
                .map(|(specs, out)| codegen::Options { specs: relative(specs), out: relative(out), check })
                .collect())
        }
        _ => Err("--specs and --out go together".to_owned()),
    }
}

fn codegen(options: &codegen::Options) -> ExitCode {
    let summary = match codegen::generate(options) {
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
