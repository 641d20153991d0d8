//! Search jobs as the web app uses them: results stream in while a job runs (`results_preview`
//! and `events` serve what it has while `isDone` is false), and a finished job's entry carries
//! the inspector's keys (`performance`, `buckets`, `explain`, `remoteSearch`, `reportSearch`).

mod common;

use common::{basic, call};

use axum::http::StatusCode;
use lode_node::users::Users;
use lode_server::rest::RestState;
use lode_server::AppState;

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The app router over `buckets` buckets of `lines` lines, and ann's credentials.
fn app(buckets: usize, lines: usize) -> (tempfile::TempDir, AppState, axum::Router, String) {
    let (dir, node) = common::node_with_buckets(buckets, lines);
    let home = lode_node::Home::new(dir.path());
    let mut users = Users::default();
    users.add("ann", "ann-password", &["user"]).unwrap();
    users.save(&home).unwrap();
    let state = AppState::new(node, home.index_root());
    let rest = RestState::new(state.clone(), 8089);
    let app = lode_server::web::router(lode_server::api(state.clone(), rest));
    (dir, state, app, basic("ann", "ann-password"))
}

async fn create(app: &axum::Router, auth: &str, search: &str) -> String {
    let body = format!("search={}&output_mode=json", url_escape(search));
    let (s, b) = call(app, "POST", "/services/search/jobs", Some(auth), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    json(&b)["sid"].as_str().unwrap().to_string()
}

fn url_escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn status(app: &axum::Router, auth: &str, sid: &str) -> serde_json::Value {
    let (s, b) = call(
        app,
        "GET",
        &format!("/services/search/jobs/{sid}?output_mode=json"),
        Some(auth),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    json(&b)["entry"][0]["content"].clone()
}

async fn rows(app: &axum::Router, auth: &str, sid: &str, part: &str) -> (StatusCode, usize) {
    let (s, b) = call(
        app,
        "GET",
        &format!("/services/search/jobs/{sid}/{part}?output_mode=json&count=0"),
        Some(auth),
        "",
    )
    .await;
    if s != StatusCode::OK {
        return (s, 0);
    }
    (s, json(&b)["results"].as_array().map_or(0, Vec::len))
}

async fn control(app: &axum::Router, auth: &str, sid: &str, action: &str) {
    let (s, b) = call(
        app,
        "POST",
        &format!("/services/search/jobs/{sid}/control"),
        Some(auth),
        &format!("action={action}"),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
}

async fn wait_done(app: &axum::Router, auth: &str, sid: &str) -> serde_json::Value {
    for _ in 0..3000 {
        let c = status(app, auth, sid).await;
        if c["isDone"] == true {
            return c;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("job {sid} did not finish");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_preview_streams_rows_while_the_job_runs() {
    let (_dir, state, app, ann) = app(3, 300);
    // Hold every search slot so the job waits (queued) until it is paused: deterministic.
    let mut held = Vec::new();
    for _ in 0..state.limits.max_running() {
        held.push(state.limits.acquire().await.unwrap());
    }
    let sid = create(&app, &ann, "sshd").await;
    assert_eq!(status(&app, &ann, &sid).await["dispatchState"], "QUEUED");
    control(&app, &ann, &sid, "pause").await;
    drop(held);
    // A paused job writes the batch in hand, then waits: rows are there, the job is not done.
    let mut preview = 0;
    for _ in 0..3000 {
        preview = rows(&app, &ann, &sid, "results_preview").await.1;
        if preview > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        preview > 0,
        "results_preview served nothing while the job ran"
    );
    let c = status(&app, &ann, &sid).await;
    assert_eq!(c["isDone"], false);
    assert_eq!(c["dispatchState"], "PAUSED");
    assert!(c["resultCount"].as_u64().unwrap() > 0);
    assert!(c["eventCount"].as_u64().unwrap() > 0, "{c}");
    assert!(rows(&app, &ann, &sid, "events").await.1 > 0);
    // `results` waits for the end, as Splunk's does.
    assert_eq!(
        rows(&app, &ann, &sid, "results").await.0,
        StatusCode::NO_CONTENT
    );
    assert!(c.get("performance").is_none(), "phases only once done");

    control(&app, &ann, &sid, "unpause").await;
    let c = wait_done(&app, &ann, &sid).await;
    assert_eq!(c["resultCount"], 900);
    assert_eq!(rows(&app, &ann, &sid, "results").await.1, 900);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_job_carries_phases_buckets_explain_and_split() {
    let (_dir, _state, app, ann) = app(2, 50);
    let sid = create(&app, &ann, "sshd | stats count by host | sort -count").await;
    let c = wait_done(&app, &ann, &sid).await;
    let perf = c["performance"].as_object().expect("performance");
    for key in [
        "dispatch.evaluate",
        "dispatch.plan",
        "dispatch.fetch",
        "command.search",
        "dispatch.writeResults",
    ] {
        let p = &perf[key];
        assert!(p["duration_secs"].as_f64().unwrap() >= 0.0, "{key}: {p}");
        assert!(p["invocations"].is_u64(), "{key}: {p}");
    }
    assert_eq!(c["buckets"]["total"], 2, "{c}");
    assert_eq!(c["buckets"]["events_matched"], 100);
    let explain = c["explain"].as_str().unwrap();
    assert!(explain.contains("term query:"), "{explain}");
    assert!(explain.contains("order: batch"), "{explain}");
    assert_eq!(c["remoteSearch"], "search sshd | stats count by host");
    assert_eq!(c["reportSearch"], "stats count by host | sort -count");

    // An event search runs all next to the data.
    let sid = create(&app, &ann, "sshd | head 3").await;
    let c = wait_done(&app, &ann, &sid).await;
    assert_eq!(c["remoteSearch"], "search sshd | head 3");
    assert_eq!(c["reportSearch"], "");

    // The XML entry has the performance dict too.
    let (s, b) = call(
        &app,
        "GET",
        &format!("/services/search/jobs/{sid}"),
        Some(&ann),
        "",
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(b.contains("<s:key name=\"performance\">"), "{b}");
    assert!(b.contains("<s:key name=\"dispatch.fetch\">"), "{b}");
}
