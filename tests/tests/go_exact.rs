//! Differential tests against Go's standard library: where Kubernetes' behaviour is Go's,
//! the project's reimplementation is asked the same questions as Go itself
//! (`tests/go-oracle/oracle.go`), hand-picked edge cases and thousands of generated
//! inputs per function, and must answer the same. Where Debian's Go is older than the
//! Go current Kubernetes is built with and the two differ, the difference is asserted
//! here on purpose.

mod go;

use go::{Errors, Go, mutations, one_each};
use serde_json::json;

const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_\r\n .";

#[test]
fn base64_decoding() {
    let Some(mut go) = Go::start("base64_decoding") else { return };
    let mut inputs = vec![
        "",
        "=",
        "==",
        "====",
        "aGVsbG9=",
        "aGVsbG8=",
        "aGVsbG8",
        "aGVsbA==",
        "aGVsbB==",
        "aGVsbA=",
        "aGVsbA",
        "aGVs\nbG8=",
        "aGVs\r\nbG8=\r\n",
        "\naGVsbG8=",
        "aGVsbG8=\n\n",
        "aGVsbA==\nYQ==",
        "aG=sbG8=",
        "aGVsbG8_",
        "aGVsbG8-",
        "YQ",
        "YR==",
        "YWI=",
        "YWJ=",
        "YWJj",
        " YWJj",
        "YWJj ",
        "YW\rJj",
    ];
    let seeds = ["aGVsbG8=", "aGVsbA==", "YWJj", "", "AAAA", "//+/", "aGVsbG8gd29ybGQ="];
    let generated = mutations(&seeds, BASE64, 5000);
    inputs.extend(generated.iter().map(String::as_str));
    go.agree("base64", &one_each(inputs), Errors::Presence, |args| {
        support::go::base64::decode(&args[0]).map(|bytes| json!(hex(&bytes))).map_err(|e| e.to_string())
    });
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
