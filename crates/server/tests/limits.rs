//! Search admission through the HTTP API: a full queue answers 503 in Splunk's words, queued
//! searches run once a slot frees, and health answers while every slot is busy.

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{get, node_with_buckets, search_uri};
use http_body_util::BodyExt;
use lode_server::limits::SearchLimiter;
use lode_server::AppState;
use tower::ServiceExt;

fn state(
    node: Arc<lode_node::Node>,
    dir: &std::path::Path,
    running: usize,
    queued: usize,
) -> AppState {
    let mut st = AppState::new(node, dir.join("var/lib/lode"));
    st.limits = Arc::new(SearchLimiter::new(running, queued));
    st
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_queue_gets_503_and_health_still_answers() {
    let (dir, node) = node_with_buckets(2, 200);
    let st = state(node, dir.path(), 1, 1);
    let app = lode_server::app(st.clone());
    // Every slot busy.
    let held = st.limits.acquire().await.unwrap();
    // One search waits in the queue…
    let waiting = {
        let app = app.clone();
        tokio::spawn(async move { get(&app, &search_uri("common | head 3")).await })
    };
    while st.limits.queued() == 0 {
        tokio::task::yield_now().await;
    }
    // …so the next is refused.
    let (status, body) = get(&app, &search_uri("common | head 3")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        body.contains("maximum number of concurrent historical searches"),
        "{body}"
    );
    // Health is answered meanwhile and reports the load.
    let (status, body) = get(&app, "/lode/health").await;
    assert_eq!(status, StatusCode::OK);
    let h: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(h["searches"]["running"], 1);
    assert_eq!(h["searches"]["queued"], 1);
    // The queued search runs once the slot frees, with its rows.
    drop(held);
    let (status, body) = waiting.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.lines().count(), 3, "{body}");
    assert_eq!((st.limits.running(), st.limits.queued()), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_while_a_search_runs() {
    let (dir, node) = node_with_buckets(4, 5000);
    let st = state(node, dir.path(), 1, 4);
    let app = lode_server::app(st.clone());
    // A search streaming 20,000 rows whose body is not read yet: once its channel is full it
    // holds the only slot, mid-run.
    let resp = app
        .clone()
        .oneshot(
            Request::get(search_uri("common"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(st.limits.running(), 1);
    // A second search queues behind it.
    let second = {
        let app = app.clone();
        tokio::spawn(async move { get(&app, &search_uri("word3 | stats count")).await })
    };
    while st.limits.queued() == 0 {
        tokio::task::yield_now().await;
    }
    // Health answers on the reactor meanwhile.
    let (status, body) = get(&app, "/lode/health").await;
    assert_eq!(status, StatusCode::OK);
    let h: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (
            h["searches"]["running"].as_u64(),
            h["searches"]["queued"].as_u64()
        ),
        (Some(1), Some(1))
    );
    // Reading the first body lets it finish; then the queued one runs.
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(
        body.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        20_000
    );
    let (status, body) = second.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(
        body.contains("\"count\":\"1540\"") || body.contains("\"count\":1540"),
        "{body}"
    );
}
