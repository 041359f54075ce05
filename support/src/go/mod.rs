//! Go's standard library where Kubernetes' behaviour is Go's: each function here answers
//! as the Go function it names does, and the differential tests
//! (`tests/tests/go_exact.rs`) compare it with Go itself.

pub mod base64;
pub mod csv;
pub mod fmt;
pub mod net;
pub mod regexp;
pub mod strconv;
pub mod time;
pub mod url;
