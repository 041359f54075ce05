//! A report as text for the terminal, Markdown for a pull-request comment, and JSON.

use std::fmt::Write;

use serde_json::{Value, json};

use super::rules::{Semver, Severity};
use super::{Allowance, Change, Report, Summary};

/// `3 breaking (1 allowed), 2 to review, 5 compatible`.
fn counts(summary: &Summary) -> String {
    let allowed = if summary.allowed > 0 { format!(" ({} allowed)", summary.allowed) } else { String::new() };
    format!("{} breaking{allowed}, {} to review, {} compatible", summary.breaking, summary.review, summary.compatible)
}

/// What the changes ask of the generated crate's version.
fn bump(semver: Semver) -> &'static str {
    match semver {
        Semver::Major => "The generated crate needs a major version bump.",
        Semver::Minor => "The generated crate needs a minor version bump.",
        Semver::Patch => "The generated crate needs a patch release: its public API is unchanged.",
        Semver::None => "The generated crate does not change.",
    }
}

/// A value in a report: strings as they are (unless empty), anything else as JSON,
/// nothing as `—`.
fn shown(value: Option<&Value>) -> String {
    match value {
        None => "—".to_owned(),
        Some(Value::String(text)) if !text.is_empty() => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// A change's path as reports show it: the resource itself has none.
fn path(change: &Change) -> &str {
    if change.path.is_empty() { "(resource)" } else { &change.path }
}

/// `autoscaling/v2 HorizontalPodAutoscaler`.
fn resource(change: &Change) -> String {
    let api_version =
        if change.group.is_empty() { change.version.clone() } else { format!("{}/{}", change.group, change.version) };
    format!("{api_version} {}", change.kind)
}

/// The changes of one severity, grouped by resource in report order.
fn by_resource(changes: &[Change], severity: Severity) -> Vec<(String, Vec<&Change>)> {
    let mut groups: Vec<(String, Vec<&Change>)> = Vec::new();
    for change in changes.iter().filter(|c| c.severity == severity) {
        let name = resource(change);
        match groups.last_mut() {
            Some((last, members)) if *last == name => members.push(change),
            _ => groups.push((name, vec![change])),
        }
    }
    groups
}

fn allowance(entry: &Allowance) -> String {
    let mut narrowed = String::new();
    for (key, value) in [("group", &entry.group), ("version", &entry.version), ("kind", &entry.kind)] {
        if let Some(value) = value {
            let _ = write!(narrowed, " {key}={value}");
        }
    }
    format!("{}:{}: {} at {}{narrowed}", entry.file.display(), entry.line, entry.rule.id(), entry.path)
}

pub(super) fn text(report: &Report) -> String {
    let summary = report.summary();
    let mut out = String::new();
    if report.changes.is_empty() {
        let _ = writeln!(out, "No API changes between {} and {}.", report.base, report.specs);
    } else {
        let _ = writeln!(out, "API changes in {} against {}: {}", report.specs, report.base, counts(&summary));
        let _ = writeln!(out, "{}", bump(summary.semver));
    }
    for severity in Severity::ALL {
        for (name, changes) in by_resource(&report.changes, severity) {
            let _ = writeln!(out, "\n{severity}: {name}");
            for change in changes {
                let (old, new) = (shown(change.old.as_ref()), shown(change.new.as_ref()));
                let _ = writeln!(out, "  {} [{}] {old} → {new}", path(change), change.rule.id());
                let _ = writeln!(out, "    {}", change.message());
                if let Some(effect) = &change.rust.change {
                    let _ = writeln!(out, "    Rust ({}): {effect}", change.rust.semver.name());
                }
                if let Some(reason) = &change.allowed {
                    let _ = writeln!(out, "    allowed: {reason}");
                }
            }
        }
    }
    if !report.unmatched.is_empty() {
        let _ = writeln!(out, "\nAllow-list entries that match no breaking change (remove them):");
        for entry in &report.unmatched {
            let _ = writeln!(out, "  {}", allowance(entry));
        }
    }
    out
}

/// Text for a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// Inline code that survives backticks inside.
fn code(text: &str) -> String {
    if text.contains('`') { format!("`` {} ``", cell(text)) } else { format!("`{}`", cell(text)) }
}

pub(super) fn markdown(report: &Report) -> String {
    let summary = report.summary();
    let mut out = String::new();
    if report.changes.is_empty() {
        let _ = writeln!(out, "### API changes: none\n\n`{}` defines the same API as `{}`.", report.specs, report.base);
    } else {
        let _ = writeln!(out, "### API changes: {}\n", counts(&summary));
        let _ = writeln!(out, "`{}` compared with `{}`. {}\n", report.specs, report.base, bump(summary.semver));
        let _ = writeln!(out, "| severity | changes | allowed |\n|---|---:|---:|");
        let _ = writeln!(out, "| breaking | {} | {} |", summary.breaking, summary.allowed);
        let _ = writeln!(out, "| review | {} | |", summary.review);
        let _ = writeln!(out, "| compatible | {} | |", summary.compatible);
    }
    for severity in Severity::ALL {
        let groups = by_resource(&report.changes, severity);
        if groups.is_empty() {
            continue;
        }
        let total: usize = groups.iter().map(|(_, changes)| changes.len()).sum();
        // Compatible changes are folded: the decisions are above them.
        let folded = severity == Severity::Compatible;
        let title = match severity {
            Severity::Breaking => "Breaking",
            Severity::Review => "To review",
            Severity::Compatible => "Compatible",
        };
        if folded {
            let _ = writeln!(out, "\n<details><summary>{title} ({total})</summary>");
        } else {
            let _ = writeln!(out, "\n#### {title} ({total})");
        }
        for (name, changes) in groups {
            let _ = writeln!(out, "\n**{name}**\n");
            let _ = writeln!(out, "| path | rule | old → new | why | Rust |\n|---|---|---|---|---|");
            for change in changes {
                let mut why = cell(change.rule.reason());
                if let Some(note) = &change.note {
                    let _ = write!(why, "; _{}_", cell(note));
                }
                if let Some(reason) = &change.allowed {
                    let _ = write!(why, "; **allowed**: {}", cell(reason));
                }
                let rust = match &change.rust.change {
                    Some(effect) => format!("{}: {}", change.rust.semver.name(), cell(effect)),
                    None => String::new(),
                };
                let values = format!(
                    "{} → {}",
                    change.old.as_ref().map_or("—".to_owned(), |v| code(&shown(Some(v)))),
                    change.new.as_ref().map_or("—".to_owned(), |v| code(&shown(Some(v)))),
                );
                let _ =
                    writeln!(out, "| {} | `{}` | {values} | {why} | {rust} |", code(path(change)), change.rule.id());
            }
        }
        if folded {
            let _ = writeln!(out, "\n</details>");
        }
    }
    if !report.unmatched.is_empty() {
        let _ = writeln!(out, "\n#### Allow-list entries that match no breaking change\n");
        for entry in &report.unmatched {
            let _ = writeln!(out, "- {}", code(&allowance(entry)));
        }
    }
    out
}

pub(super) fn json(report: &Report) -> String {
    let summary = report.summary();
    let changes: Vec<Value> = report
        .changes
        .iter()
        .map(|change| {
            json!({
                "severity": change.severity.name(),
                "rule": change.rule.id(),
                "group": change.group,
                "version": change.version,
                "kind": change.kind,
                "path": change.path,
                "old": change.old,
                "new": change.new,
                "message": change.message(),
                "rust": {"semver": change.rust.semver.name(), "change": change.rust.change},
                "allowed": change.allowed,
            })
        })
        .collect();
    let unmatched: Vec<Value> = report
        .unmatched
        .iter()
        .map(|entry| {
            json!({
                "rule": entry.rule.id(),
                "path": entry.path,
                "group": entry.group,
                "version": entry.version,
                "kind": entry.kind,
                "reason": entry.reason,
                "file": entry.file.display().to_string(),
                "line": entry.line,
            })
        })
        .collect();
    let document = json!({
        "base": report.base,
        "specs": report.specs,
        "changes": changes,
        "summary": {
            "breaking": summary.breaking,
            "allowed": summary.allowed,
            "review": summary.review,
            "compatible": summary.compatible,
            "semver": summary.semver.name(),
        },
        "unmatchedAllowances": unmatched,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("JSON values serialize");
    text.push('\n');
    text
}
