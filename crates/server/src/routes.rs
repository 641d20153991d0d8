//! The HTTP routes. Each handler does blocking work (pipeline, disk reads) on tokio's blocking
//! pool and streams where the data is large.

use std::collections::HashMap;
use std::io::Read;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use futures_util::StreamExt;
use serde::Deserialize;

use crate::error::ApiError;
use crate::{AppState, MAX_INGEST_BODY};

/// All routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/lode/health", get(health))
        .route("/lode/search", get(search_get).post(search_post))
        .route(
            "/lode/ingest",
            post(ingest).layer(DefaultBodyLimit::max(MAX_INGEST_BODY)),
        )
        .route("/lode/roll", post(roll))
        .route("/lode/metrics", get(metrics))
}

/// Liveness and load: running and queued searches, reader-cache counters. Answered on the
/// reactor without waiting for any search slot.
async fn health(State(st): State<AppState>) -> Json<serde_json::Value> {
    let c = lode_search::cache::global().stats();
    Json(serde_json::json!({
        "status": "ok",
        "searches": {
            "running": st.limits.running(),
            "queued": st.limits.queued(),
            "max_concurrent": st.limits.max_running(),
            "max_queued": st.limits.max_queued(),
        },
        "bucket_cache": {
            "entries": c.entries,
            "bytes": c.bytes,
            "budget": c.budget,
            "hits": c.hits,
            "misses": c.misses,
            "evictions": c.evictions,
        },
    }))
}

/// Parameters of a search request (query string or form body).
#[derive(Debug, Deserialize)]
pub struct SearchParams {
    /// The SPL.
    #[serde(alias = "search")]
    pub q: String,
    /// Earliest time modifier.
    pub earliest: Option<String>,
    /// Latest time modifier.
    pub latest: Option<String>,
}

async fn search_get(
    State(st): State<AppState>,
    caller: Option<axum::Extension<crate::rest::Session>>,
    Query(p): Query<SearchParams>,
) -> Result<Response, ApiError> {
    search(st, caller.map(|c| c.0), p).await
}

async fn search_post(
    State(st): State<AppState>,
    caller: Option<axum::Extension<crate::rest::Session>>,
    Form(p): Form<SearchParams>,
) -> Result<Response, ApiError> {
    search(st, caller.map(|c| c.0), p).await
}

/// Waits for a search slot ([`crate::limits`]; 503 when the queue is full), runs the search on
/// the blocking pool holding the slot, and streams rows as JSON lines. Errors found before the
/// first row (syntax, unknown command) become a 400; a failure after rows were sent ends the
/// stream with an `{"error": …}` line. A client that goes away stops the search at its next
/// batch of rows. A user's search that runs past their `srchMaxTime` stops at its next batch of
/// rows, keeping what was sent, and ends with a `{"warning": …}` line.
///
/// `caller`: the user of a session or Basic credentials (searches their indexes only); `None`
/// for the local secret.
async fn search(
    st: AppState,
    caller: Option<crate::rest::Session>,
    p: SearchParams,
) -> Result<Response, ApiError> {
    if let Some(refusal) = refuse(&st, caller.as_ref(), &["search"], "search") {
        return Ok(refusal);
    }
    // Validate the syntax up front so that a bad search gets a proper status code.
    lode_spl::parse(&p.q)
        .map_err(|e| ApiError::BadRequest(format!("Error in search: {}", e.message)))?;
    let permit = st.limits.acquire().await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    let req = lode_search::run::SearchRequest {
        query: p.q,
        earliest: p.earliest,
        latest: p.latest,
        now: now_micros(),
        tz: lode_time::Zone::Utc,
        explain: false,
        force_scan: false,
    };
    tokio::task::spawn_blocking(move || {
        let _slot = permit;
        let opts = st.run_options(caller.as_ref());
        // The user's srchMaxTime: past it, the search stops at its next batch of rows.
        let deadline = caller
            .as_ref()
            .and_then(|s| crate::rest::max_time(&st, &s.roles))
            .map(|d| (std::time::Instant::now() + d, d.as_secs()));
        let mut timed_out = None;
        let result = lode_search::run::run_with(&st.index_root, &req, &opts, &mut |rows| {
            if let Some((at, secs)) = deadline {
                if std::time::Instant::now() >= at {
                    timed_out = Some(crate::rest::time_limit_message(secs));
                    return Err(lode_search::SearchError::User(TIME_LIMIT.into()));
                }
            }
            let mut buf = Vec::with_capacity(rows.len() * 256);
            for mut row in rows {
                let obj = crate::format::row_json(&mut row);
                // Serialising a map of strings cannot fail.
                let _ = serde_json::to_writer(&mut buf, &obj);
                buf.push(b'\n');
            }
            tx.blocking_send(Bytes::from(buf))
                .map_err(|_| lode_search::SearchError::User("client went away".into()))
        });
        let last = match (result, timed_out) {
            (_, Some(w)) => Some(serde_json::json!({ "warning": w })),
            (Err(e), None) => Some(serde_json::json!({ "error": e.to_string() })),
            (Ok(_), None) => None,
        };
        if let Some(line) = last {
            let _ = tx.blocking_send(Bytes::from(line.to_string() + "\n"));
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, std::io::Error>(b), rx))
    });
    Ok((
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response())
}

/// The 403 answer (Splunk's message shape) when `caller`, a user, holds none of `caps`; `None`
/// when they hold one, or for the local secret (`caller` `None`).
fn refuse(
    st: &AppState,
    caller: Option<&crate::rest::Session>,
    caps: &[&str],
    what: &str,
) -> Option<Response> {
    let s = caller?;
    let e = crate::rest::roles::rights(st.node.home(), &s.roles);
    (!e.has_any(caps)).then(|| crate::rest::roles::forbidden(s, what).into_response())
}

/// Why a search stopped at its user's `srchMaxTime`.
const TIME_LIMIT: &str = "time limit reached";

/// A `Read` over body chunks arriving from the async side.
struct ChannelReader {
    rx: std::sync::mpsc::Receiver<Bytes>,
    cur: Bytes,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.cur.is_empty() {
            match self.rx.recv() {
                Ok(b) => self.cur = b,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.cur.len());
        buf[..n].copy_from_slice(&self.cur[..n]);
        self.cur = self.cur.slice(n..);
        Ok(n)
    }
}

/// Streams the body through the ingestion pipeline into `index` (default `main`). A user (session
/// or Basic credentials) writes only into the indexes their roles allow
/// (`lode.writeIndexesAllowed`; else 403); the local secret anywhere.
async fn ingest(
    State(st): State<AppState>,
    caller: Option<axum::Extension<crate::rest::Session>>,
    Query(q): Query<HashMap<String, String>>,
    body: Body,
) -> Result<Response, ApiError> {
    let index = q.get("index").cloned().unwrap_or_else(|| "main".into());
    if let Some(axum::Extension(s)) = &caller {
        let e = crate::rest::roles::rights(st.node.home(), &s.roles);
        if !crate::rest::roles::write_access(&e).allows(&index) {
            return Ok(crate::rest::roles::write_forbidden(&s.user, &index).into_response());
        }
    }
    let source = q
        .get("source")
        .cloned()
        .unwrap_or_else(|| "http:lode".into());
    let host = q.get("host").cloned().unwrap_or_else(|| "lode".into());
    let sourcetype = q.get("sourcetype").cloned();
    if !st.node.has_index(&index) {
        return Err(ApiError::NotFound(format!(
            "index '{index}' does not exist"
        )));
    }
    // Bounded: a slow pipeline slows the client instead of buffering the body in memory.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Bytes>(8);
    let node = st.node.clone();
    let work = tokio::task::spawn_blocking(move || {
        let mut reader = ChannelReader {
            rx,
            cur: Bytes::new(),
        };
        let mut head = Vec::new();
        (&mut reader)
            .take(8192)
            .read_to_end(&mut head)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        let sourcetype =
            sourcetype.unwrap_or_else(|| lode_ingest::guess_sourcetype(&source, &head));
        let meta = lode_ingest::SourceMeta {
            host,
            source,
            sourcetype,
            index,
        };
        let mut all = std::io::Cursor::new(head).chain(reader);
        node.ingest(meta, &mut all, &mut |_| {})
            .map_err(ApiError::from)
    });
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk
            .map_err(|e| ApiError::BadRequest(format!("reading the request body failed: {e}")))?;
        let tx2 = tx.clone();
        // The channel is bounded and std: send from the blocking pool.
        let sent = tokio::task::spawn_blocking(move || tx2.send(chunk).is_ok())
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        if !sent {
            break;
        }
    }
    drop(tx);
    let report = work
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
    Ok(Json(serde_json::json!({
        "events": report.events,
        "bytes": report.bytes,
        "dropped": report.dropped,
        "truncated": report.truncated,
    }))
    .into_response())
}

/// Queue fill levels of every pipeline set, as Splunk's `metrics.log` names them
/// (`group=queue`, `ingest_pipe`, `name=parsingqueue|aggqueue|typingqueue|indexqueue`,
/// `current_size`, `max_size` and `largest_size` in messages, `blocked` = sends that waited).
///
/// A user needs `list_settings` (Splunk's capability for server introspection).
async fn metrics(
    State(st): State<AppState>,
    caller: Option<axum::Extension<crate::rest::Session>>,
) -> Response {
    if let Some(refusal) = refuse(
        &st,
        caller.as_ref().map(|c| &c.0),
        &["list_settings", "admin_all_objects"],
        "read server metrics",
    ) {
        return refusal;
    }
    let queues: Vec<serde_json::Value> = st
        .node
        .queue_metrics()
        .iter()
        .map(|m| {
            serde_json::json!({
                "group": "queue",
                "ingest_pipe": m.set,
                "name": m.name,
                "current_size": m.current_size,
                "max_size": m.max_size,
                "largest_size": m.largest_size,
                "blocked": m.blocked,
            })
        })
        .collect();
    Json(serde_json::json!({
        "pipeline_sets": st.node.pipeline_sets(),
        "queues": queues,
    }))
    .into_response()
}

/// Rolls hot buckets (of `index`, or all). A user needs `indexes_edit` (as Splunk's
/// `roll-hot-buckets`).
async fn roll(
    State(st): State<AppState>,
    caller: Option<axum::Extension<crate::rest::Session>>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    if let Some(refusal) = refuse(
        &st,
        caller.as_ref().map(|c| &c.0),
        &["indexes_edit", "edit_indexes", "admin_all_objects"],
        "roll hot buckets",
    ) {
        return Ok(refusal);
    }
    let node = st.node.clone();
    let index = q.get("index").cloned();
    tokio::task::spawn_blocking(move || node.roll(index.as_deref()))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
    Ok(Json(serde_json::json!({ "rolled": true })).into_response())
}

fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}
