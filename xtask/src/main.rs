//! Project automation, reached as `cargo xtask <command>`: the `kube-apigen` command under
//! this repository's names, `codegen` and `api-diff`, with what this checkout needs.
//!
//! Without flags, `codegen` regenerates every crate the repository commits, as its
//! `apigen.toml` lists them; with `--specs` and `--out`, the crate links to this checkout's
//! runtime (`kube-apigen/`), which no registry has yet.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kube_apigen_cli::Cli;
use kube_apigen_codegen::Runtime;
use kube_apigen_codegen::package::GENERATOR_VERSION;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cli = Cli {
        program: "cargo xtask".to_owned(),
        generate: "codegen".to_owned(),
        diff: "api-diff".to_owned(),
        header: "cargo xtask codegen".to_owned(),
        config: repository_path("apigen.toml"),
        runtime: Runtime::Path { path: repository_path("kube-apigen"), version: GENERATOR_VERSION.to_owned() },
        diff_specs: repository_path("specs"),
    };
    cli.run(&args)
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
