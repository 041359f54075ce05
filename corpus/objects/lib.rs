//! Realistic objects of the upstream CRDs' kinds, checked against the types generated from
//! the CRDs by this crate's build script (`build.rs`, which says how). This library only
//! carries the result: one `compile_error!` per problem the build script found. The corpus
//! test builds (and lints) this crate beside the generated ones; it is never run.

include!(concat!(env!("OUT_DIR"), "/problems.rs"));
