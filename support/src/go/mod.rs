//! Go's standard library where Kubernetes' behaviour is Go's: each function here answers
//! as the Go function it names does, and the differential tests
//! (`tests/tests/go_exact.rs`) compare it with Go itself.

pub mod base64;
#[cfg(feature = "server")]
pub mod csv;
pub mod fmt;
#[cfg(feature = "validation")]
pub mod net;
#[cfg(feature = "validation")]
pub mod regexp;
#[cfg(feature = "server")]
pub mod strconv;
#[cfg(feature = "validation")]
pub mod time;
#[cfg(feature = "validation")]
pub mod url;
