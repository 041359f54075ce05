//! Project automation, reached as `cargo xtask <command>`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask codegen [--check] [--specs DIR] [--out DIR]

Generates the Rust crate for the API specs in DIR (default: specs/) into the output
folder (default: generated/).

  --check       write nothing; exit 1 listing the files that are not up to date
  --specs DIR   read OpenAPI v3 documents (JSON or YAML) from DIR
  --out DIR     write the generated crate to DIR (it builds on its own)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("codegen") => match parse_codegen(&args[1..]) {
            Ok(options) => codegen(&options),
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

fn parse_codegen(args: &[String]) -> Result<codegen::Options, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut options = codegen::Options { specs: root.join("specs"), out: root.join("generated"), check: false };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().map(PathBuf::from).ok_or(format!("{flag} needs a folder"));
        match arg.as_str() {
            "--check" => options.check = true,
            "--specs" => options.specs = value("--specs")?,
            "--out" => options.out = value("--out")?,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(options)
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
