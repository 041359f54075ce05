//! Lists with `limit` and `continue` over consistent snapshots, and the
//! `resourceVersion`/`resourceVersionMatch` semantics of lists.

mod harness;

use harness::{Api, HPAS, hpa, names, q, rv};
use kube_apigen::axum::http::StatusCode;
use serde_json::{Value, json};

async fn seeded(count: usize) -> Api {
    let api = Api::new();
    for i in 0..count {
        api.create(HPAS, &hpa(&format!("hpa-{i:02}"), json!({"n": i.to_string()}))).await;
    }
    api
}

/// Every page of a list, following continue tokens.
async fn pages(api: &Api, first: &str) -> Vec<Value> {
    let mut pages = Vec::new();
    let (status, mut page) = api.get(first).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    loop {
        let token = page["metadata"]["continue"].as_str().map(str::to_owned);
        pages.push(page);
        let Some(token) = token else { return pages };
        let (status, next) = api.get(&format!("{HPAS}?limit=2&continue={}", q(&token))).await;
        assert_eq!(status, StatusCode::OK, "{next}");
        page = next;
    }
}
harness::backend_tests! {
    async fn continuing_reads_the_first_pages_snapshot_while_writes_happen() {
        let api = seeded(6).await;
        let (_, first) = api.get(&format!("{HPAS}?limit=2")).await;
        assert_eq!(names(&first), vec!["hpa-00", "hpa-01"]);
        let snapshot_rv = first["metadata"]["resourceVersion"].clone();
        // Writes after the first page: a delete, a new object, a change.
        api.delete(&format!("{HPAS}/hpa-03"), None).await;
        api.create(HPAS, &hpa("hpa-02a", json!({}))).await;
        api.merge_patch(&format!("{HPAS}/hpa-04"), &json!({"spec": {"maxReplicas": 9}})).await;
        let mut token = first["metadata"]["continue"].as_str().unwrap().to_owned();
        let mut rest = Vec::new();
        loop {
            let (status, page) = api.get(&format!("{HPAS}?limit=2&continue={}", q(&token))).await;
            assert_eq!(status, StatusCode::OK, "{page}");
            assert_eq!(page["metadata"]["resourceVersion"], snapshot_rv);
            for item in page["items"].as_array().unwrap() {
                rest.push((item["metadata"]["name"].as_str().unwrap().to_owned(), item["spec"]["maxReplicas"].clone()));
            }
            match page["metadata"]["continue"].as_str() {
                Some(next) => token = next.to_owned(),
                None => break,
            }
        }
        let expected: Vec<(String, Value)> =
            ["hpa-02", "hpa-03", "hpa-04", "hpa-05"].iter().map(|n| (n.to_string(), json!(3))).collect();
        assert_eq!(rest, expected, "the snapshot of the first page, not the current state");
        // A fresh list sees the writes.
        let (_, now) = api.get(HPAS).await;
        assert_eq!(names(&now), vec!["hpa-00", "hpa-01", "hpa-02", "hpa-02a", "hpa-04", "hpa-05"]);
    }

    async fn bad_continue_tokens_are_400() {
        let api = seeded(3).await;
        let (status, body) = api.get(&format!("{HPAS}?limit=2&continue=garbage")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(
            body["message"].as_str().unwrap().starts_with("invalid continue token: continue key is not valid: "),
            "{body}"
        );
        let (_, first) = api.get(&format!("{HPAS}?limit=2")).await;
        let token = first["metadata"]["continue"].as_str().unwrap();
        let (status, body) = api.get(&format!("{HPAS}?limit=2&continue={}&resourceVersion=3", q(token))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["message"], "specifying resource version is not allowed when using continue");
    }

    in_memory_only:

    async fn a_newer_resource_version_is_waited_for() {
        let api = std::sync::Arc::new(Api::with(|config| config.too_large_wait = std::time::Duration::from_secs(5), None));
        api.create(HPAS, &hpa("a", json!({}))).await;
        let writer = {
            let api = api.clone();
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                api.create(HPAS, &hpa("b", json!({}))).await;
            })
        };
        let (status, list) = api.get(&format!("{HPAS}?resourceVersion=2&resourceVersionMatch=NotOlderThan")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(names(&list), vec!["a", "b"]);
        writer.await.unwrap();
    }

    async fn expired_continue_tokens_are_410_with_an_inconsistent_token() {
        let api = Api::with(|config| config.history = 3, None);
        for i in 0..4 {
            api.create(HPAS, &hpa(&format!("hpa-{i}"), json!({}))).await;
        }
        let (_, first) = api.get(&format!("{HPAS}?limit=2")).await;
        let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
        for i in 0..4 {
            api.merge_patch(&format!("{HPAS}/hpa-{i}"), &json!({"spec": {"maxReplicas": 5}})).await;
        }
        let (status, body) = api.get(&format!("{HPAS}?limit=2&continue={}", q(&token))).await;
        assert_eq!(status, StatusCode::GONE);
        assert_eq!(body["reason"], "Expired");
        assert_eq!(body["code"], 410);
        assert_eq!(
            body["message"],
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
        );
        // The token in the Status continues at the current state.
        let inconsistent = body["metadata"]["continue"].as_str().unwrap();
        let (status, rest) = api.get(&format!("{HPAS}?limit=2&continue={}", q(inconsistent))).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(names(&rest), vec!["hpa-2", "hpa-3"]);
        assert_eq!(rest["items"][0]["spec"]["maxReplicas"], 5);
        assert_eq!(rest["metadata"]["resourceVersion"], "8");
    }

    async fn resource_version_match_exact_reads_the_past() {
        let api = seeded(2).await;
        let (_, changed) = api.merge_patch(&format!("{HPAS}/hpa-00"), &json!({"spec": {"maxReplicas": 8}})).await;
        api.delete(&format!("{HPAS}/hpa-01"), None).await;
        api.create(HPAS, &hpa("hpa-02", json!({}))).await;
        assert_eq!(rv(&changed), 3);

        let (status, at2) = api.get(&format!("{HPAS}?resourceVersion=2&resourceVersionMatch=Exact")).await;
        assert_eq!(status, StatusCode::OK, "{at2}");
        assert_eq!(names(&at2), vec!["hpa-00", "hpa-01"]);
        assert_eq!(at2["items"][0]["spec"]["maxReplicas"], 3);
        assert_eq!(at2["metadata"]["resourceVersion"], "2");
        let (_, at3) = api.get(&format!("{HPAS}?resourceVersion=3&resourceVersionMatch=Exact")).await;
        assert_eq!(names(&at3), vec!["hpa-00", "hpa-01"]);
        assert_eq!(at3["items"][0]["spec"]["maxReplicas"], 8);
        let (_, at0) = api.get(&format!("{HPAS}?resourceVersion=1&resourceVersionMatch=Exact")).await;
        assert_eq!(names(&at0), vec!["hpa-00"]);

        // NotOlderThan, "0" and no resourceVersion serve the current state.
        for query in ["resourceVersion=2&resourceVersionMatch=NotOlderThan", "resourceVersion=0", "resourceVersion=2", ""] {
            let (status, list) = api.get(&format!("{HPAS}?{query}")).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(names(&list), vec!["hpa-00", "hpa-02"], "{query}");
            assert_eq!(list["metadata"]["resourceVersion"], "5", "{query}");
        }
    }

    async fn pages_cover_the_list_with_remaining_counts() {
        let api = seeded(5).await;
        let pages = pages(&api, &format!("{HPAS}?limit=2")).await;
        assert_eq!(pages.len(), 3);
        let all: Vec<String> = pages.iter().flat_map(names).collect();
        assert_eq!(all, vec!["hpa-00", "hpa-01", "hpa-02", "hpa-03", "hpa-04"]);
        assert_eq!(pages[0]["metadata"]["remainingItemCount"], 3);
        assert_eq!(pages[1]["metadata"]["remainingItemCount"], 1);
        assert_eq!(pages[2]["metadata"].get("remainingItemCount"), None);
        assert_eq!(pages[2]["metadata"].get("continue"), None);
        for page in &pages {
            assert_eq!(page["metadata"]["resourceVersion"], "5");
        }
        // An exact fit has no continue token.
        let (_, whole) = api.get(&format!("{HPAS}?limit=5")).await;
        assert_eq!(whole["metadata"].get("continue"), None);
        // With a selector the remaining count is not given, as the API server does.
        let (_, filtered) = api.get(&format!("{HPAS}?limit=1&labelSelector={}", q("n in (1,3,4)"))).await;
        assert_eq!(names(&filtered), vec!["hpa-01"]);
        assert!(filtered["metadata"]["continue"].is_string());
        assert_eq!(filtered["metadata"].get("remainingItemCount"), None);
    }

    async fn too_old_and_too_new_resource_versions() {
        let api = Api::with(|config| config.history = 2, None);
        for i in 0..4 {
            api.create(HPAS, &hpa(&format!("hpa-{i}"), json!({}))).await;
        }
        let (status, body) = api.get(&format!("{HPAS}?resourceVersion=1&resourceVersionMatch=Exact")).await;
        assert_eq!(status, StatusCode::GONE);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "The resourceVersion for the provided list is too old.",
                "reason": "Expired", "code": 410
            })
        );
        let (status, body) = api.get(&format!("{HPAS}?resourceVersion=9&resourceVersionMatch=NotOlderThan")).await;
        assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
        assert_eq!(
            body,
            json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Timeout: Too large resource version: 9, current: 4",
                "reason": "Timeout",
                "details": {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}], "retryAfterSeconds": 1},
                "code": 504
            })
        );
        let (status, body) = api.get(&format!("{HPAS}?resourceVersion=abc")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["message"], "invalid resource version: \"abc\"");
    }
}
