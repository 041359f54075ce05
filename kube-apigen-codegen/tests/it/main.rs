//! Tests of the generator as its users see it: `kube_apigen_codegen::generate` and `cargo xtask codegen`
//! (the `kube-apigen` command under this repository's names).
//!
//! - `fixtures`: one small spec per mapping feature under `tests/fixtures/<feature>/`;
//!   the emitted crate of each is a snapshot (`snapshots/<feature>.snap`), and all of them
//!   are compiled together (see `compile`).
//! - `up_to_date`: the committed crates are what their specs generate; the embedded
//!   formatting policy and runtime version agree with the repository.
//! - `locality` and `determinism`: local and deterministic output.
//! - `emitted`: targeted checks of emitted code that snapshots show but do not guard.
//! - `bad_specs`, `check_mode`, `cli`: errors point at the spec text and leave the output
//!   alone; check mode writes nothing.
//! - `tidy`: layout rules of the generator itself.
//!
//! One test binary (rather than one per file) keeps linking cheap.

mod bad_specs;
mod cel_fast_path;
mod check_mode;
mod cli;
mod common;
mod compile;
mod determinism;
mod emitted;
mod fixtures;
mod locality;
mod protobuf;
mod tidy;
mod up_to_date;
