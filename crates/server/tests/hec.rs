//! The HTTP Event Collector through its router: every authentication form and error code of
//! SPLUNK.md §1.9 that a request can provoke, batches accepted or refused whole, gzip, the raw
//! endpoint's line breaking, indexer acknowledgement, and the events found by search afterwards.

mod common;

use std::io::Write;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use lode_node::hec::{HecConfig, HecToken};
use lode_node::{Home, Node};
use lode_server::hec::{router, HecState};
use lode_server::AppState;
use serde_json::Value;
use tower::ServiceExt;

const PLAIN: &str = "00000000-0000-4000-8000-000000000001";
const ACKED: &str = "00000000-0000-4000-8000-000000000002";
const DISABLED: &str = "00000000-0000-4000-8000-000000000003";
const QUERY: &str = "00000000-0000-4000-8000-000000000004";
const MAINONLY: &str = "00000000-0000-4000-8000-000000000005";
const CHANNEL: &str = "11111111-2222-4333-8444-555555555555";

struct Hec {
    _dir: tempfile::TempDir,
    home: Home,
    state: HecState,
    hec: axum::Router,
    api: axum::Router,
}

fn token(name: &str, secret: &str) -> HecToken {
    HecToken {
        token: secret.into(),
        ..HecToken::new(name)
    }
}

fn setup() -> Hec {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path());
    let mut cfg = HecConfig::default();
    cfg.add(token("plain", PLAIN)).unwrap();
    cfg.add(HecToken {
        use_ack: true,
        ..token("acked", ACKED)
    })
    .unwrap();
    cfg.add(HecToken {
        disabled: true,
        ..token("off", DISABLED)
    })
    .unwrap();
    cfg.add(HecToken {
        allow_query_string_auth: true,
        ..token("query", QUERY)
    })
    .unwrap();
    cfg.add(HecToken {
        indexes: vec!["main".into()],
        sourcetype: Some("app_events".into()),
        ..token("mainonly", MAINONLY)
    })
    .unwrap();
    cfg.save(&home).unwrap();
    let node = Arc::new(Node::open(&home).unwrap());
    let state = HecState::new(node.clone(), "lode-test:8088".into()).unwrap();
    let hec = router(state.clone());
    let api = lode_server::app(AppState::new(node, home.index_root()));
    Hec {
        _dir: dir,
        home,
        state,
        hec,
        api,
    }
}

/// Sends a request; returns the status and the JSON body.
async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: impl Into<Body>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = app
        .clone()
        .oneshot(req.body(body.into()).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, v)
}

fn splunk(tok: &str) -> String {
    format!("Splunk {tok}")
}

async fn post_event(h: &Hec, tok: &str, body: &str) -> (StatusCode, Value) {
    let auth = splunk(tok);
    send(
        &h.hec,
        "POST",
        "/services/collector/event",
        &[("authorization", &auth)],
        body.to_string(),
    )
    .await
}

fn code(v: &Value) -> i64 {
    v["code"].as_i64().unwrap_or(-1)
}

/// The rows of `q`, searched through the API.
async fn search(h: &Hec, q: &str) -> Vec<Value> {
    let (status, body) = common::get(&h.api, &common::search_uri(q)).await;
    assert_eq!(status, StatusCode::OK, "{q}: {body}");
    body.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("error").is_none())
        .collect()
}

async fn count(h: &Hec, q: &str) -> u64 {
    let rows = search(h, &format!("{q} | stats count")).await;
    rows.iter()
        .find_map(|r| {
            r["count"]
                .as_str()
                .and_then(|c| c.parse().ok())
                .or(r["count"].as_u64())
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_forms_and_their_errors() {
    let h = setup();
    let ok = r#"{"event":"auth check"}"#;
    let uri = "/services/collector/event";
    type Case<'a> = (Vec<(&'a str, String)>, &'a str, StatusCode, i64);
    let cases: Vec<Case> = vec![
        (vec![], uri, StatusCode::UNAUTHORIZED, 2),
        (
            vec![("authorization", "Bearer x".into())],
            uri,
            StatusCode::UNAUTHORIZED,
            3,
        ),
        (
            vec![("authorization", "Splunk nope".into())],
            uri,
            StatusCode::FORBIDDEN,
            4,
        ),
        (
            vec![("authorization", splunk(DISABLED))],
            uri,
            StatusCode::FORBIDDEN,
            1,
        ),
        (
            vec![],
            "/services/collector/event?token=00000000-0000-4000-8000-000000000001",
            StatusCode::BAD_REQUEST,
            16,
        ),
        (
            vec![],
            "/services/collector/event?token=bogus",
            StatusCode::FORBIDDEN,
            4,
        ),
        (
            vec![],
            "/services/collector/event?token=00000000-0000-4000-8000-000000000004",
            StatusCode::OK,
            0,
        ),
        (
            vec![("authorization", splunk(PLAIN))],
            uri,
            StatusCode::OK,
            0,
        ),
        (
            vec![(
                "authorization",
                format!("Basic {}", base64_of(&format!("anyone:{PLAIN}"))),
            )],
            "/services/collector",
            StatusCode::OK,
            0,
        ),
    ];
    for (headers, uri, status, c) in cases {
        let hs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (s, v) = send(&h.hec, "POST", uri, &hs, ok.to_string()).await;
        assert_eq!((s, code(&v)), (status, c), "{uri} {headers:?}: {v}");
    }
    assert_eq!(count(&h, "auth check").await, 3);
}

fn base64_of(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_accepted_or_refused_whole() {
    let h = setup();
    let good = r#"{"event":"batch one","time":1700000000.25,"host":"web01","source":"app.log","fields":{"env":"prod"}}
{"event":{"msg":"batch two","n":2},"time":"1700000001"}"#;
    let (s, v) = post_event(&h, PLAIN, good).await;
    assert_eq!(
        (s, v.clone()),
        (
            StatusCode::OK,
            serde_json::json!({"text":"Success","code":0})
        )
    );

    // The second object is cut short: nothing of this batch is indexed.
    let bad = r#"{"event":"batch three"}{"event":"batch four""#;
    let (s, v) = post_event(&h, PLAIN, bad).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(code(&v), 6);
    assert_eq!(v["invalid-event-number"], 1);
    let (s, v) = post_event(&h, PLAIN, "").await;
    assert_eq!((s, code(&v)), (StatusCode::BAD_REQUEST, 5));
    let (s, v) = post_event(&h, PLAIN, r#"{"event":"batch five"}{"time":1}"#).await;
    assert_eq!(
        (code(&v), v["invalid-event-number"].as_i64()),
        (12, Some(1)),
        "{s}"
    );
    let (_, v) = post_event(&h, PLAIN, r#"{"event":""}"#).await;
    assert_eq!(code(&v), 13);
    let (_, v) = post_event(&h, PLAIN, r#"{"event":"batch six","index":"nosuch"}"#).await;
    assert_eq!(code(&v), 7);
    let (_, v) = post_event(
        &h,
        MAINONLY,
        r#"{"event":"batch seven","index":"_internal"}"#,
    )
    .await;
    assert_eq!(code(&v), 7);
    let (_, v) = post_event(
        &h,
        PLAIN,
        r#"{"event":"batch eight","fields":{"a":{"b":1}}}"#,
    )
    .await;
    assert_eq!(code(&v), 15);

    assert_eq!(count(&h, "batch").await, 2);
    let rows = search(&h, "batch one | table _time host source sourcetype env").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["host"], "web01");
    assert_eq!(r["source"], "app.log");
    assert_eq!(r["sourcetype"], "httpevent");
    assert_eq!(r["env"], "prod", "{r}");
    assert!(r["_time"].as_str().unwrap().contains("2023-11-14"), "{r}");
    // An object event is JSON text, extracted at search time.
    let rows = search(&h, "\"batch two\" | table host source sourcetype n").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["n"], "2");
    assert_eq!(rows[0]["host"], "lode-test:8088");
    assert_eq!(rows[0]["source"], "http:plain");
    assert_eq!(rows[0]["sourcetype"], "_json");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gzip_any_content_type_and_raw_line_breaking() {
    let h = setup();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(br#"{"event":"zipped one"}{"event":"zipped two"}"#)
        .unwrap();
    let body = gz.finish().unwrap();
    let auth = splunk(PLAIN);
    let (s, v) = send(
        &h.hec,
        "POST",
        "/services/collector/event/1.0",
        &[
            ("authorization", &auth),
            ("content-encoding", "gzip"),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        body,
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::OK, 0), "{v}");
    let (s, v) = send(
        &h.hec,
        "POST",
        "/services/collector/event",
        &[("authorization", &auth), ("content-encoding", "gzip")],
        b"not gzip".to_vec(),
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::BAD_REQUEST, 6));
    assert_eq!(count(&h, "zipped").await, 2);

    // auto_extract_timestamp: events without `time` take it from their text.
    let (s, v) = send(
        &h.hec,
        "POST",
        "/services/collector/event?auto_extract_timestamp=true",
        &[("authorization", &auth)],
        r#"{"event":"2025-05-06 07:08:09 autotime one"}{"event":"autotime two 2025-05-06 07:08:09","time":1600000000}"#.to_string(),
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::OK, 0), "{v}");
    let rows = search(&h, "autotime | sort _raw | table _time").await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows[0]["_time"]
            .as_str()
            .unwrap()
            .starts_with("2025-05-06T07:08:09"),
        "{rows:?}"
    );
    assert!(
        rows[1]["_time"].as_str().unwrap().starts_with("2020-09-13"),
        "{rows:?}"
    );

    let raw = "2024-03-01 10:00:00 rawline first\n2024-03-01 10:00:01 rawline second\n\
               2024-03-01 10:00:02 rawline third";
    let (s, v) = send(
        &h.hec,
        "POST",
        "/services/collector/raw?sourcetype=myapp&host=rawhost&source=raw.log",
        &[("authorization", &auth)],
        raw.to_string(),
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::OK, 0), "{v}");
    let rows = search(&h, "rawline | table _time host source sourcetype").await;
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows
        .iter()
        .all(|r| r["host"] == "rawhost" && r["sourcetype"] == "myapp"));
    assert!(
        rows[0]["_time"].as_str().unwrap().starts_with("2024-03-01"),
        "{rows:?}"
    );
    let (s, v) = send(
        &h.hec,
        "POST",
        "/services/collector/raw",
        &[("authorization", &auth)],
        " \n ".to_string(),
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::BAD_REQUEST, 5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledgement_turns_true_once_durable() {
    let h = setup();
    let auth = splunk(ACKED);
    let event = r#"{"event":"acked event"}"#;
    let (s, v) = post_event(&h, ACKED, event).await;
    assert_eq!((s, code(&v)), (StatusCode::BAD_REQUEST, 10));
    let (_, v) = send(
        &h.hec,
        "POST",
        "/services/collector/event?channel=not-a-guid",
        &[("authorization", &auth)],
        event.to_string(),
    )
    .await;
    assert_eq!(code(&v), 11);
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (s, v) = send(
            &h.hec,
            "POST",
            "/services/collector/event",
            &[
                ("authorization", &auth),
                ("x-splunk-request-channel", CHANNEL),
            ],
            event.to_string(),
        )
        .await;
        assert_eq!((s, code(&v)), (StatusCode::OK, 0), "{v}");
        ids.push(v["ackId"].as_u64().unwrap());
    }
    assert_eq!(ids, vec![0, 1]);
    let ack_uri = format!("/services/collector/ack?channel={CHANNEL}");
    // Poll as clients do until both are durable (each write takes one fsync).
    let mut seen = std::collections::HashSet::new();
    for _ in 0..500 {
        let (s, v) = send(
            &h.hec,
            "POST",
            &ack_uri,
            &[("authorization", &auth)],
            r#"{"acks":[0,1]}"#,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        for (k, done) in v["acks"].as_object().unwrap() {
            if done == true {
                seen.insert(k.clone());
            }
        }
        if seen.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(seen.len(), 2);
    // Acknowledged means searchable now.
    assert_eq!(count(&h, "acked event").await, 2);
    // Reported true once, then forgotten.
    let (_, v) = send(
        &h.hec,
        "POST",
        &ack_uri,
        &[("authorization", &auth)],
        r#"{"acks":[0]}"#,
    )
    .await;
    assert_eq!(v, serde_json::json!({"acks":{"0":false}}));
    let (s, v) = send(&h.hec, "POST", &ack_uri, &[("authorization", &auth)], "{}").await;
    assert_eq!((s, code(&v)), (StatusCode::BAD_REQUEST, 6));
    let plain = splunk(PLAIN);
    let (s, v) = send(
        &h.hec,
        "POST",
        &ack_uri,
        &[("authorization", &plain)],
        r#"{"acks":[0]}"#,
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::BAD_REQUEST, 14));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_not_found_limits_and_token_reload() {
    let h = setup();
    for uri in [
        "/services/collector/health",
        "/services/collector/health/1.0",
    ] {
        let (s, v) = send(&h.hec, "GET", uri, &[], Body::empty()).await;
        assert_eq!(
            (s, v),
            (
                StatusCode::OK,
                serde_json::json!({"text":"HEC is healthy","code":17})
            )
        );
    }
    let (s, v) = send(&h.hec, "GET", "/services/nope", &[], Body::empty()).await;
    assert_eq!((s, code(&v)), (StatusCode::NOT_FOUND, 404));

    // A new token and a smaller body limit are picked up from the file.
    let mut cfg = HecConfig::load(&h.home).unwrap();
    cfg.settings.max_content_length = 64;
    cfg.add(token("late", "00000000-0000-4000-8000-0000000000ff"))
        .unwrap();
    cfg.save(&h.home).unwrap();
    h.state.reload();
    let (s, v) = post_event(
        &h,
        "00000000-0000-4000-8000-0000000000ff",
        r#"{"event":"late"}"#,
    )
    .await;
    assert_eq!((s, code(&v)), (StatusCode::OK, 0), "{v}");
    let big = format!(r#"{{"event":"{}"}}"#, "x".repeat(100));
    let (s, v) = post_event(&h, PLAIN, &big).await;
    assert_eq!((s, code(&v)), (StatusCode::PAYLOAD_TOO_LARGE, 413), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metric_events_are_searchable_measurements() {
    let h = setup();
    // OpenTelemetry's multi-metric form and the single-metric form, in one batch.
    let body = r#"{"time":1700000000,"event":"metric","host":"m1","fields":{"metric_name:cpu.idle":90,"metric_name:mem.used":"512.5","region":"eu"}}
{"time":1700000010,"event":"metric","host":"m2","fields":{"metric_name":"cpu.idle","_value":70,"region":"us"}}"#;
    let (s, v) = post_event(&h, PLAIN, body).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(count(&h, "index=main metric_name=cpu.idle").await, 2);
    let rows = search(
        &h,
        "index=main metric_name=* | stats sum(_value) as total by metric_name",
    )
    .await;
    let totals: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["metric_name"].as_str().unwrap().to_string(),
                r["total"]
                    .as_str()
                    .map(|t| t.parse().unwrap())
                    .or(r["total"].as_f64())
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        totals,
        vec![
            ("cpu.idle".to_string(), 160.0),
            ("mem.used".to_string(), 512.5)
        ]
    );
    assert_eq!(count(&h, "index=main region=us").await, 1);
    // An invalid measurement refuses the batch: nothing of it is kept.
    let bad = r#"{"event":"metric","fields":{"metric_name:disk":1}}
{"event":"metric","fields":{"metric_name:disk":"full"}}"#;
    let (s, v) = post_event(&h, PLAIN, bad).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!((code(&v), v["invalid-event-number"].as_i64()), (6, Some(1)));
    assert_eq!(count(&h, "index=main metric_name=disk").await, 0);
}
