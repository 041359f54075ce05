//! Go's standard library as the validation layer needs it: each function answers as the
//! Go function it names does (see `kube_apigen_core::go`).

pub mod net;
pub mod regexp;
pub mod time;
