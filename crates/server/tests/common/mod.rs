//! Helpers of the server tests: a node over a temporary home with a few warm buckets, requests
//! through the router without a socket.
#![allow(dead_code)]

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use lode_node::{Home, Node};
use tower::ServiceExt;

/// A home with `buckets` warm buckets in `main`, each from one ingest of `lines` lines.
pub fn node_with_buckets(buckets: usize, lines: usize) -> (tempfile::TempDir, Arc<Node>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = Home::new(dir.path());
    home.ensure_layout().expect("layout");
    let node = Node::open(&home).expect("open node");
    for b in 0..buckets {
        let mut text = String::new();
        for i in 0..lines {
            text.push_str(&format!(
                "2024-01-0{} 10:{:02}:{:02} host{} sshd: bucket{b} line{i} user word{} common\n",
                b % 9 + 1,
                i / 60 % 60,
                i % 60,
                i % 4,
                i % 13
            ));
        }
        let meta = lode_ingest::SourceMeta {
            host: "test".into(),
            source: format!("test{b}.log"),
            sourcetype: "syslog".into(),
            index: "main".into(),
        };
        node.ingest(meta, &mut text.as_bytes(), &mut |_| {})
            .expect("ingest");
        node.roll(Some("main")).expect("roll");
    }
    (dir, Arc::new(node))
}

/// Sends `method uri` with `body` (and an `Authorization` header when given) to `app`; returns
/// the status and the body text.
pub async fn call(
    app: &axum::Router,
    method: &str,
    uri: &str,
    auth: Option<&str>,
    body: &str,
) -> (StatusCode, String) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    let resp = app
        .clone()
        .oneshot(req.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// The `Authorization` value of HTTP Basic auth.
pub fn basic(user: &str, pass: &str) -> String {
    use base64::Engine;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"))
    )
}

/// GETs `uri` from `app`; returns the status and the body text.
pub async fn get(app: &axum::Router, uri: &str) -> (StatusCode, String) {
    let resp = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
        .await
        .expect("response");
    let status = resp.status();
    let body = resp.into_body().collect().await.expect("body").to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// The search URI for `q` (spaces and pipes encoded).
pub fn search_uri(q: &str) -> String {
    let enc: String = q
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!("/lode/search?q={enc}")
}
