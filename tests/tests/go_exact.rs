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

const TIME: &str = "0123456789-+:.,TtZz é";

#[test]
fn time_and_micro_time_layouts() {
    let Some(mut go) = Go::start("time_and_micro_time_layouts") else { return };
    let mut inputs = vec![
        "2024-01-02T03:04:05Z",
        "2024-01-02t03:04:05Z",
        "2024-01-02T03:04:05z",
        "2024-01-02T3:04:05Z",
        "2024-01-02T03:4:05Z",
        "2024-01-02T03:04:05,5Z",
        "2024-01-02T03:04:05.Z",
        "2024-01-02T03:04:05.1234567891234Z",
        "2024-01-02T03:04:05.123456Z",
        "2024-01-02T03:04:05.+12345Z",
        "2024-01-02T03:04:05.-12345Z",
        "2024-01-02T03:04:05.-00000Z",
        "2024-01-02T03:04:05+24:00",
        "2024-01-02T03:04:05-00:60",
        "2024-01-02T03:04:05+0100",
        "2024-02-29T03:04:05Z",
        "2023-02-29T03:04:05Z",
        "2024-13-01T03:04:05Z",
        "2024-01-02T24:00:00Z",
        "2024-01-02T23:59:60Z",
        "0000-01-01T00:00:00+01:00",
        "9999-12-31T23:59:59-01:00",
        "2024-01-02T03:04:05Zx",
        "2024-01-02T03:04:05Zé",
        "2024-01-02",
        "",
    ];
    let seeds = [
        "2024-01-02T03:04:05Z",
        "2024-02-29T23:59:59.999999+05:30",
        "0000-01-01T00:00:00.000000-24:00",
        "9999-12-31T23:59:59,123456789Z",
        "2023-02-28T7:04:05.123456Z",
    ];
    let generated = mutations(&seeds, TIME, 6000);
    inputs.extend(generated.iter().map(String::as_str));
    let inputs = one_each(inputs);

    // Go 1.19 read offsets with `atoi` (a sign inside, any value: `+-1:99`), took a
    // fraction for missing seconds (`03:04:,5Z`) and named another part of the input in
    // its errors; Kubernetes' Go (1.20 and later) refuses those inputs, as the Rust side
    // does.
    let older = go_minor(&go) < 20;
    let errors = if older { Errors::Presence } else { Errors::Exact };
    let (inputs, offsets_before_1_20): (Vec<_>, Vec<_>) =
        inputs.into_iter().partition(|args| !older || !read_differently_before_go_1_20(&args[0]));
    for args in &offsets_before_1_20 {
        assert!(args[0].parse::<support::Time>().is_err(), "{args:?}");
    }

    // Go answers seconds since the epoch and the nanoseconds within that second.
    let instant = |t: jiff::Timestamp| {
        let nanos = t.as_nanosecond();
        json!(format!("{}.{:09}", nanos.div_euclid(1_000_000_000), nanos.rem_euclid(1_000_000_000)))
    };
    // jiff, under Time and MicroTime, ends at 9999-12-30T22:00:00Z, where Go goes on for
    // two hours: the times after that are refused (a documented difference).
    let beyond_jiff = |answer: &Result<serde_json::Value, String>| {
        answer.as_ref().is_ok_and(|v| {
            let seconds: i64 = v.as_str().unwrap().split('.').next().unwrap().parse().unwrap();
            seconds > jiff::Timestamp::MAX.as_second()
        })
    };
    let answers = go.ask("time.rfc3339", &inputs);
    let (inputs, late): (Vec<_>, Vec<_>) =
        inputs.into_iter().zip(answers).partition(|(_, answer)| !beyond_jiff(answer));
    let inputs: Vec<_> = inputs.into_iter().map(|(args, _)| args).collect();
    for (args, _) in &late {
        assert!(args[0].parse::<support::Time>().is_err(), "{args:?}");
    }
    go.agree("time.rfc3339", &inputs, errors, |args| {
        args[0].parse::<support::Time>().map(|t| instant(t.0)).map_err(|e| e.to_string())
    });
    go.agree("time.micro", &inputs, errors, |args| {
        args[0].parse::<support::MicroTime>().map(|t| instant(t.0)).map_err(|e| e.to_string())
    });
}

/// Whether Go 1.19 accepts the text where later Go refuses it: a fraction in place of the
/// seconds, or a `±hh:mm` offset with a sign inside or out of range.
fn read_differently_before_go_1_20(text: &str) -> bool {
    let fraction_for_seconds =
        text.as_bytes().windows(3).any(|w| w[0] == b':' && matches!(w[1], b'.' | b',') && w[2].is_ascii_digit());
    if fraction_for_seconds {
        return true;
    }
    let Some(zone) = text.len().checked_sub(6).and_then(|at| text.get(at..)).map(str::as_bytes) else {
        return false;
    };
    let two = |part: &[u8]| -> Option<i32> {
        part.iter().all(u8::is_ascii_digit).then(|| std::str::from_utf8(part).unwrap().parse().unwrap())
    };
    matches!(zone[0], b'+' | b'-')
        && zone[3] == b':'
        && match (two(&zone[1..3]), two(&zone[4..6])) {
            (Some(hours), Some(minutes)) => hours > 24 || minutes > 60,
            _ => zone[1..3].iter().chain(&zone[4..6]).all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-')),
        }
}

#[test]
fn time_and_micro_time_written_in_utc() {
    let Some(mut go) = Go::start("time_and_micro_time_written_in_utc") else { return };
    let mut rng = fastrand::Rng::with_seed(3339);
    let instants: Vec<(i64, i32)> = (0..3000)
        .map(|_| (rng.i64(-62_167_219_200..=253_402_207_200), rng.i32(0..1_000_000_000)))
        .chain([(0, 0), (-62_167_219_200, 0), (253_402_207_199, 999_999_999)])
        .collect();
    let inputs: Vec<Vec<String>> = instants.iter().map(|(s, n)| vec![s.to_string(), n.to_string()]).collect();
    go.agree("time.format", &inputs, Errors::Exact, |args| {
        let t = jiff::Timestamp::new(args[0].parse().unwrap(), args[1].parse().unwrap()).unwrap();
        Ok(json!([support::Time(t).to_string(), support::MicroTime(t).to_string()]))
    });
}

/// The minor version of the Go that answers (19 for Debian 12's go1.19.8).
fn go_minor(go: &Go) -> u32 {
    go.version.strip_prefix("go1.").and_then(|v| v.split('.').next()).and_then(|m| m.parse().ok()).unwrap_or(0)
}
