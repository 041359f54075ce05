//! Label and field selectors on lists, table-driven: what each selects, and the exact
//! 400 each malformed one gets.

mod harness;

use harness::{Api, CSRS, HPAS, HPAS_ALL, csr, hpa, names, q};
use kube_apigen::axum::http::StatusCode;
use serde_json::json;

async fn seeded() -> Api {
    let api = Api::new();
    for (name, labels) in [
        ("a", json!({"app": "web", "tier": "front", "replicas": "3"})),
        ("b", json!({"app": "web", "tier": "back", "replicas": "10"})),
        ("c", json!({"app": "db", "env": ""})),
        ("d", json!({})),
    ] {
        api.create(HPAS, &hpa(name, labels)).await;
    }
    api.create("/apis/autoscaling/v2/namespaces/other/horizontalpodautoscalers", &hpa("e", json!({"app": "web"})))
        .await;
    api
}
harness::backend_tests! {
    async fn label_selectors_select() {
        let api = seeded().await;
        let cases: &[(&str, &[&str])] = &[
            ("", &["a", "b", "c", "d"]),
            ("app=web", &["a", "b"]),
            ("app==web", &["a", "b"]),
            ("app!=web", &["c", "d"]),
            ("app in (web,db)", &["a", "b", "c"]),
            ("app in (db)", &["c"]),
            ("app notin (web)", &["c", "d"]),
            ("tier", &["a", "b"]),
            ("!tier", &["c", "d"]),
            ("app=web,tier=front", &["a"]),
            ("app=web, tier!=front", &["b"]),
            ("env=", &["c"]),
            ("env in ()", &["c"]),
            ("replicas>5", &["b"]),
            ("replicas<5", &["a"]),
            ("app in (web),!env,tier notin (back)", &["a"]),
            ("  app = web  ", &["a", "b"]),
            ("app=nothing", &[]),
        ];
        for (selector, expected) in cases {
            let (status, list) = api.get(&format!("{HPAS}?labelSelector={}", q(selector))).await;
            assert_eq!(status, StatusCode::OK, "{selector:?}: {list}");
            assert_eq!(names(&list), *expected, "labelSelector {selector:?}");
        }
        let (_, all) = api.get(&format!("{HPAS_ALL}?labelSelector={}", q("app=web"))).await;
        assert_eq!(names(&all), vec!["a", "b", "e"]);
    }

    async fn malformed_label_selectors_are_400() {
        let api = seeded().await;
        let cases: &[(&str, &str)] = &[
            ("app in web", "unable to parse requirement: found 'web' expected: '('"),
            ("app in (web", "unable to parse requirement: found '', expected: ',' or ')'"),
            ("app=web,", "found '', expected: identifier after ','"),
            ("app=web tier=front", "found 'tier', expected: ',' or 'end of string'"),
            ("=web", "found '=', expected: !, identifier, or 'end of string'"),
            ("app ~ web", "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt"),
            ("app=(web)", "unable to parse requirement: found '(', expected: identifier"),
            ("!app=web", "found '=', expected: ',' or 'end of string'"),
            (
                "replicas>many",
                "unable to parse requirement: values[0]: Invalid value: \"many\": for 'Gt', 'Lt' operators, the value must be an integer",
            ),
            ("app=we b", "found 'b', expected: ',' or 'end of string'"),
            (
                "app=-web",
                "unable to parse requirement: values[0]: Invalid value: \"-web\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
            (
                "-app=web",
                "unable to parse requirement: Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ),
        ];
        for (selector, message) in cases {
            let (status, body) = api.get(&format!("{HPAS}?labelSelector={}", q(selector))).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{selector:?}: {body}");
            assert_eq!(
                body,
                json!({
                    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": message, "reason": "BadRequest", "code": 400
                }),
                "labelSelector {selector:?}"
            );
        }
    }

    async fn field_selectors_select() {
        let api = seeded().await;
        let cases: &[(&str, &str, &[&str])] = &[
            (HPAS, "metadata.name=a", &["a"]),
            (HPAS, "metadata.name==b", &["b"]),
            (HPAS, "metadata.name!=a", &["b", "c", "d"]),
            (HPAS, "metadata.name!=a,metadata.name!=b", &["c", "d"]),
            (HPAS, "metadata.namespace=default", &["a", "b", "c", "d"]),
            (HPAS_ALL, "metadata.namespace=other", &["e"]),
            (HPAS_ALL, "metadata.namespace!=default", &["e"]),
            (HPAS, "", &["a", "b", "c", "d"]),
        ];
        for (collection, selector, expected) in cases {
            let (status, list) = api.get(&format!("{collection}?fieldSelector={}", q(selector))).await;
            assert_eq!(status, StatusCode::OK, "{selector:?}: {list}");
            assert_eq!(names(&list), *expected, "fieldSelector {selector:?}");
        }
        // Labels and fields together.
        let (_, list) =
            api.get(&format!("{HPAS}?labelSelector={}&fieldSelector={}", q("app=web"), q("metadata.name!=a"))).await;
        assert_eq!(names(&list), vec!["b"]);
    }

    async fn csr_field_selectors_include_the_signer() {
        let api = Api::new();
        api.create(CSRS, &csr("one", "example.com/a")).await;
        api.create(CSRS, &csr("two", "example.com/b")).await;
        api.create(CSRS, &csr("three", "example.com/a")).await;
        let (_, list) = api.get(&format!("{CSRS}?fieldSelector={}", q("spec.signerName=example.com/a"))).await;
        assert_eq!(names(&list), vec!["one", "three"]);
        let (_, list) = api.get(&format!("{CSRS}?fieldSelector={}", q("spec.signerName!=example.com/a"))).await;
        assert_eq!(names(&list), vec!["two"]);
        let (status, body) = api.get(&format!("{CSRS}?fieldSelector={}", q("metadata.namespace=x"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["message"], "field label not supported: metadata.namespace");
    }

    async fn malformed_field_selectors_are_400() {
        let api = seeded().await;
        let cases: &[(&str, &str)] = &[
            (
                "spec.maxReplicas=3",
                "\"spec.maxReplicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
            ),
            ("metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
            ("metadata.name=a,bogus", "invalid selector: 'metadata.name=a,bogus'; can't understand 'bogus'"),
            ("metadata.name=a\\b", "invalid field selector: invalid escape sequence: \\b"),
        ];
        for (selector, message) in cases {
            let (status, body) = api.get(&format!("{HPAS}?fieldSelector={}", q(selector))).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{selector:?}: {body}");
            assert_eq!(body["message"], *message, "fieldSelector {selector:?}");
            assert_eq!(body["reason"], "BadRequest");
        }
        // Escaped separators are part of the value.
        let (status, list) = api.get(&format!("{HPAS}?fieldSelector={}", q("metadata.name=a\\,b"))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(names(&list), Vec::<String>::new());
    }
}
