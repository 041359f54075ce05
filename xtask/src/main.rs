//! Project automation, reached as `cargo xtask <command>`: the `kube-apigen` command under
//! this repository's names, `codegen` and `api-diff`, with what this checkout needs.
//!
//! Without flags, `codegen` regenerates the runtime's meta types (`kube-apigen/src/apimachinery`,
//! [`kube_apigen_codegen::runtime`]) and every crate the repository commits, as its
//! `apigen.toml` lists them; with `--specs` and `--out`, the crate links to this checkout's
//! runtime (`kube-apigen/`), which no registry has yet.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kube_apigen_cli::Cli;
use kube_apigen_codegen::Runtime;
use kube_apigen_codegen::package::GENERATOR_VERSION;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|arg| arg == "--check");
    if args.first().is_some_and(|command| command == "codegen")
        && !args.iter().any(|arg| arg == "--specs")
        && let Err(code) = runtime_models(check)
    {
        return code;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repository_path("target"), PathBuf::from);
    let cli = Cli {
        program: "cargo xtask".to_owned(),
        generate: "codegen".to_owned(),
        diff: "api-diff".to_owned(),
        header: "cargo xtask codegen".to_owned(),
        config: repository_path("apigen.toml"),
        runtime: Runtime::Path { path: repository_path("kube-apigen"), version: GENERATOR_VERSION.to_owned() },
        // Printed files are remembered in the target folder, which cargo already keeps out
        // of version control and `cargo clean` empties.
        format_cache: Some(target.join("codegen-format")),
        diff_specs: repository_path("specs"),
    };
    cli.run(&args)
}

/// Writes or checks the runtime's meta types and its impls for k8s-openapi's, from the
/// `.proto` files of `specs/`.
fn runtime_models(check: bool) -> Result<(), ExitCode> {
    let (specs, command) = (repository_path("specs"), "cargo xtask codegen");
    let models = repository_path("kube-apigen/src/apimachinery");
    report(
        &models.display().to_string(),
        check,
        kube_apigen_codegen::runtime::generate(&specs, &models, check, command),
    )?;
    let checks = repository_path("kube-apigen-validation/src/k8s.rs");
    let impls = kube_apigen_codegen::runtime::generate_k8s_openapi(&specs, &checks, check, command);
    report(&checks.display().to_string(), check, impls)
}

fn report(
    what: &str,
    check: bool,
    outcome: kube_apigen_codegen::Result<kube_apigen_codegen::write::Changes>,
) -> Result<(), ExitCode> {
    match outcome {
        Ok(changes) if check && !changes.is_empty() => {
            eprintln!("{what} is not up to date; run `cargo xtask codegen`");
            Err(ExitCode::FAILURE)
        }
        Ok(changes) => {
            let verb = if check { "differ" } else { "written" };
            println!("{what}: {} files {verb}, {} unchanged", changes.changed.len(), changes.unchanged.len());
            Ok(())
        }
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::FAILURE)
        }
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
