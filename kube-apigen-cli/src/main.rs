//! `kube-apigen`: `generate` and `diff` (see `--help`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    kube_apigen_cli::Cli::kube_apigen().run(&args)
}
