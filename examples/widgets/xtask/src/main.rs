//! `cargo xtask codegen [--check]`: generates the crates `apigen.toml` lists.

use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|arg| arg == "--check");
    let config = match kube_apigen_codegen::Config::read("apigen.toml".as_ref()) {
        Ok(config) => config,
        Err(error) => return failed(&error),
    };
    for mut options in config.crates {
        (options.check, options.command) = (check, "cargo xtask codegen".to_owned());
        match kube_apigen_codegen::generate(&options) {
            Ok(summary) if check && !summary.changes.is_empty() => {
                eprintln!("{} is not up to date; run `cargo xtask codegen`", options.out.display());
                return ExitCode::FAILURE;
            }
            Ok(summary) => println!("{}: {} files changed", options.out.display(), summary.changes.changed.len()),
            Err(error) => return failed(&error),
        }
    }
    ExitCode::SUCCESS
}

fn failed(error: &kube_apigen_codegen::Error) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::FAILURE
}
