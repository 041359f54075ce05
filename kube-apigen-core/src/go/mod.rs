//! Go's standard library where Kubernetes' behaviour is Go's: each function here answers
//! as the Go function it names does, and the differential tests (`tests/tests/go_exact.rs`
//! in kube-apigen's repository) compare it with Go itself. The validation and HTTP layers
//! have the functions only they use (`kube_apigen_validation::go`, `kube_apigen_server::go`).

pub mod base64;
pub mod fmt;
