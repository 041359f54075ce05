//! Go's standard library as the HTTP layer needs it: each function answers as the Go
//! function it names does (see `kube_apigen_core::go`).

pub mod csv;
pub mod strconv;
pub mod url;
