//! Links `kube-apigen` as a position-dependent executable on Linux. A generation takes
//! milliseconds, and a position-independent build first applies its relocations, one per
//! pointer in its read-only data (vtables, string tables, about 60,000), touching those
//! pages as it goes: `--help` took 2.5–2.8 ms with them, 1.5–1.6 ms without (`perf stat`,
//! BENCHMARKS.md).
//! Address randomization, what a position-independent executable is for, protects
//! nothing in a tool that reads the developer's own specs.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
