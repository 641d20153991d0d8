//! The warm-bucket reader cache under the server: a budget so small that it evicts on nearly
//! every open gives the same answers as no cache at all.

mod common;

use axum::http::StatusCode;
use common::{get, node_with_buckets, search_uri};
use lode_server::AppState;

const QUERIES: [&str; 6] = [
    "common | head 7",
    "word3 | stats count by host",
    "bucket2 word5",
    "line1* | stats count",
    "host2 NOT word1 | head 50",
    "word12 OR word11 | stats count by source",
];

async fn answers(app: &axum::Router) -> Vec<String> {
    let mut out = Vec::new();
    for q in QUERIES {
        let (status, body) = get(app, &search_uri(q)).await;
        assert_eq!(status, StatusCode::OK, "{q}: {body}");
        assert!(!body.contains("\"error\""), "{q}: {body}");
        out.push(body);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tiny_budget_evicts_and_answers_like_no_cache() {
    let (dir, node) = node_with_buckets(5, 400);
    let root = dir.path().join("var/lib/lode");
    let app = lode_server::app(AppState::new(node, root.clone()));
    let cache = lode_search::cache::global();

    cache.set_budget(0);
    let uncached = answers(&app).await;
    assert_eq!(cache.stats().entries, 0);

    // What the five readers weigh once every query ran: then room for one or two of them. (A
    // reopened reader can weigh half as much until a search decodes its columns — counted
    // stats read postings instead — so half of the full weight could still hold all five.)
    cache.set_budget(lode_search::cache::DEFAULT_BUDGET_BYTES);
    answers(&app).await;
    answers(&app).await;
    let full = cache.stats();
    assert_eq!(full.entries, 5, "{full:?}");
    cache.set_budget(full.bytes / 4);
    let before = cache.stats();
    for _ in 0..3 {
        assert_eq!(answers(&app).await, uncached);
    }
    let after = cache.stats();
    assert!(after.evictions > before.evictions, "{after:?}");
    assert!(after.hits > before.hits, "{after:?}");
    assert!(
        after.entries < 5 && after.bytes <= after.budget,
        "{after:?}"
    );

    // A roomy budget keeps every bucket and still answers alike.
    cache.set_budget(lode_search::cache::DEFAULT_BUDGET_BYTES);
    assert_eq!(answers(&app).await, uncached);
    assert_eq!(answers(&app).await, uncached);
    assert_eq!(cache.stats().entries, 5);
}
