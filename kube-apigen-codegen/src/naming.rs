//! Every Rust name the generator writes comes from here: identifiers from schema,
//! property and enum value names, and the names of nested types. Only the IR builders
//! (`build`) and the CRD expansion (`spec::crd`) call it; emitters print names the IR
//! holds (a test checks that no emitter imports this module).
//!
//! Nested types (objects and enums declared inside a schema) are named by one rule,
//! [`nested_type`]: the owner's name followed by the path to the type, in Pascal case.
//! The owner and the path depend on where the type is declared:
//! - in a CustomResourceDefinition, nested objects are owned by the kind, and their path
//!   is the property names leading to them, as few as make the name unique (items and
//!   map values take the singular of their property): `spec.prober` is `ProbeProber`;
//! - elsewhere, a type is owned by the named type around it, and its path is its
//!   property, with `Item` or `Value` for list items and map values:
//!   `HPAScalingRules.selectPolicy` is `HPAScalingRulesSelectPolicy`.

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

/// English singular of a plural property name, for the name of its items' type.
pub fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for suffix in ["sses", "shes", "ches", "xes", "uses"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            return format!("{stem}{}", &suffix[..suffix.len() - 2]);
        }
    }
    match name.strip_suffix('s') {
        Some(stem) if !stem.is_empty() && !name.ends_with("ss") && !name.ends_with("us") && !name.ends_with("is") => {
            stem.to_owned()
        }
        _ => name.to_owned(),
    }
}

/// The name of a type declared inside another: `owner` followed by the words of `path`.
pub fn nested_type(owner: &str, path: &[impl AsRef<str>]) -> String {
    let words: String = path.iter().map(|segment| pascal_case(segment.as_ref())).collect();
    format!("{owner}{words}")
}

/// The function giving a field's structural default (`default_path`).
pub fn default_function(field: &str) -> String {
    format!("default_{}", field.trim_end_matches('_'))
}

/// The Rust variant name of a success status code.
pub fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "NonAuthoritativeInformation",
        204 => "NoContent",
        205 => "ResetContent",
        206 => "PartialContent",
        _ => "Success",
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
    fn singulars() {
        for (plural, one) in [
            ("metricRelabelings", "metricRelabeling"),
            ("policies", "policy"),
            ("addresses", "address"),
            ("matches", "match"),
            ("statuses", "status"),
            ("status", "status"),
            ("tls", "tl"),
            ("static", "static"),
        ] {
            assert_eq!(singular(plural), one, "{plural}");
        }
    }

    #[test]
    fn nested_types_take_their_owner_and_path() {
        assert_eq!(nested_type("Probe", &["prober"]), "ProbeProber");
        assert_eq!(nested_type("ProbeSpec", &["scrapeProtocols", "Item"]), "ProbeSpecScrapeProtocolsItem");
        assert_eq!(nested_type("T", &["x-foo", "Value"]), "TXFooValue");
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
