//! Turning schema, property and enum value names into Rust identifiers.

/// Rust keywords (strict, reserved and weak ones that cannot be plain identifiers).
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro",
    "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct", "super",
    "trait", "true", "try", "type", "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while",
    "yield",
];

/// Appends `_` to keywords so the result is a plain identifier (`type` -> `type_`).
fn unkeyword(ident: String) -> String {
    if KEYWORDS.contains(&ident.as_str()) { ident + "_" } else { ident }
}

/// Splits a name into words at case changes and at any character that is not
/// alphanumeric. Upper-case runs stay together as acronyms, and a lone `s` after an
/// acronym is its plural (`externalIPs` -> `external`, `IPs`).
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if c.is_ascii_uppercase() => {
                // fooBar | FOOBar (the B starts a word when followed by lower case)
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase()
                        && next.is_some_and(|n| n.is_ascii_lowercase())
                        && !is_acronym_plural(&chars, i + 1))
            }
            _ => false,
        };
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether `chars[i]` is an `s` that pluralizes the acronym before it (`IPs`, `CIDRs`).
fn is_acronym_plural(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&'s') && chars.get(i + 1).is_none_or(|c| !c.is_ascii_lowercase())
}

/// `externalIPs` -> `external_ips`, `$ref` -> `ref_`, `x-foo` -> `x_foo`.
pub fn snake_case(name: &str) -> String {
    let joined = words(name).iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("_");
    let ident = match joined.chars().next() {
        None => "field".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{joined}"),
        Some(_) => joined,
    };
    unkeyword(ident)
}

/// `ScaleUp` from `scaleUp`, `DigitalSignature` from `digital signature`.
pub fn pascal_case(name: &str) -> String {
    let joined: String = words(name)
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars.map(|c| c.to_ascii_lowercase())).collect::<String>()
        })
        .collect();
    match joined.chars().next() {
        None => "Empty".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("V{joined}"),
        Some(_) => unkeyword(joined),
    }
}

/// A type name from the last segment of a schema name, keeping its casing
/// (`JSONSchemaProps` stays as it is); invalid characters split words.
pub fn type_name(segment: &str) -> String {
    let joined: String = segment
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect::<String>()
        })
        .collect();
    match joined.chars().next() {
        None => "Unnamed".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("T{joined}"),
        Some(_) => unkeyword(joined),
    }
}

/// Makes `candidate` unique among `taken` by appending `{separator}2`, `{separator}3`, ...
/// (no second separator after one that ends the candidate: `ref_` -> `ref_2`, not the
/// non-snake-case `ref__2`) and records it.
pub fn unique(candidate: String, taken: &mut std::collections::BTreeSet<String>, separator: &str) -> String {
    let mut name = candidate.clone();
    let separator = if candidate.ends_with(separator) { "" } else { separator };
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{candidate}{separator}{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_follows_kubernetes_names() {
        for (wire, rust) in [
            ("apiVersion", "api_version"),
            ("externalIPs", "external_ips"),
            ("podCIDRs", "pod_cidrs"),
            ("targetCPUUtilizationPercentage", "target_cpu_utilization_percentage"),
            ("$ref", "ref_"),
            ("$schema", "schema"),
            ("x-kubernetes-list-type", "x_kubernetes_list_type"),
            ("continue", "continue_"),
            ("type", "type_"),
            ("self", "self_"),
            ("3rdParty", "_3rd_party"),
            ("URL", "url"),
            ("hostIPC", "host_ipc"),
            ("v1beta1", "v1beta1"),
            ("apiextensions-apiserver", "apiextensions_apiserver"),
        ] {
            assert_eq!(snake_case(wire), rust, "{wire}");
        }
    }

    #[test]
    fn pascal_case_makes_variant_names() {
        for (value, rust) in [
            ("digital signature", "DigitalSignature"),
            ("s/mime", "SMime"),
            ("AverageValue", "AverageValue"),
            ("", "Empty"),
            ("1x", "V1x"),
            ("self", "Self_"),
        ] {
            assert_eq!(pascal_case(value), rust, "{value:?}");
        }
    }

    #[test]
    fn type_names_keep_their_casing() {
        assert_eq!(type_name("JSONSchemaProps"), "JSONSchemaProps");
        assert_eq!(type_name("foo-bar"), "FooBar");
        assert_eq!(type_name("Self"), "Self_");
    }

    #[test]
    fn unique_appends_counters() {
        let mut taken = Default::default();
        assert_eq!(unique("a".into(), &mut taken, "_"), "a");
        assert_eq!(unique("a".into(), &mut taken, "_"), "a_2");
        assert_eq!(unique("A".into(), &mut taken, ""), "A");
        assert_eq!(unique("A".into(), &mut taken, ""), "A2");
        assert_eq!(unique("ref_".into(), &mut taken, "_"), "ref_");
        assert_eq!(unique("ref_".into(), &mut taken, "_"), "ref_2");
    }
}
