//! `/services/data/indexes`: the indexes with their sizes and time ranges (`service.indexes` in
//! the SDKs), and creating one while running (admin role; kept in
//! `etc/system/local/indexes.conf`).

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use super::atom::{self, DictValue};
use super::{authenticate, error, now_iso, param, params, RestState};
use crate::format::format_time;

/// What an index holds.
struct IndexInfo {
    name: String,
    events: u64,
    raw_bytes: u64,
    disk_bytes: u64,
    buckets: usize,
    min_time: Option<i64>,
    max_time: Option<i64>,
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

fn info(st: &RestState, name: &str) -> IndexInfo {
    let dir = st.app.index_root.join(name);
    let buckets = lode_store::list_buckets(&dir).unwrap_or_default();
    let mut i = IndexInfo {
        name: name.to_string(),
        events: 0,
        raw_bytes: 0,
        disk_bytes: dir_bytes(&dir),
        buckets: buckets.len(),
        min_time: None,
        max_time: None,
    };
    for b in &buckets {
        if let Ok(r) = lode_store::open_bucket(b) {
            let m = r.meta();
            i.events += m.event_count;
            i.raw_bytes += m.raw_bytes;
            if m.event_count > 0 {
                i.min_time = Some(i.min_time.map_or(m.min_time, |t| t.min(m.min_time)));
                i.max_time = Some(i.max_time.map_or(m.max_time, |t| t.max(m.max_time)));
            }
        }
    }
    i
}

fn content(i: &IndexInfo) -> Vec<(&'static str, String)> {
    let t = |us: Option<i64>| us.map(|u| format_time(u as f64 / 1e6)).unwrap_or_default();
    vec![
        ("totalEventCount", i.events.to_string()),
        (
            "currentDBSizeMB",
            (i.disk_bytes / (1024 * 1024)).to_string(),
        ),
        ("totalRawSizeMB", (i.raw_bytes / (1024 * 1024)).to_string()),
        ("minTime", t(i.min_time)),
        ("maxTime", t(i.max_time)),
        ("numBuckets", i.buckets.to_string()),
        ("datatype", "event".into()),
        ("disabled", "0".into()),
        ("homePath", format!("$LODE_HOME/var/lib/lode/{}", i.name)),
    ]
}

fn answer(p: &[(String, String)], infos: &[IndexInfo], status: StatusCode) -> Response {
    if param(p, "output_mode") == Some("json") {
        let entries: Vec<serde_json::Value> = infos
            .iter()
            .map(|i| {
                let c: serde_json::Map<String, serde_json::Value> = content(i)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.into()))
                    .collect();
                serde_json::json!({"name": i.name, "id": format!("/services/data/indexes/{}", i.name),
                                   "author": "nobody", "content": c})
            })
            .collect();
        let body = serde_json::json!({"origin": "/services/data/indexes", "updated": now_iso(),
            "entry": entries, "paging": {"total": infos.len(), "perPage": 30, "offset": 0}, "messages": []});
        return (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    let entries: Vec<atom::Entry> = infos
        .iter()
        .map(|i| atom::Entry {
            title: i.name.clone(),
            path: format!("/services/data/indexes/{}", i.name),
            author: "nobody".into(),
            updated: now_iso(),
            content: content(i)
                .into_iter()
                .map(|(k, v)| (k.to_string(), DictValue::Text(v)))
                .collect(),
        })
        .collect();
    (
        status,
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::feed("indexes", "/services/data/indexes", &now_iso(), &entries),
    )
        .into_response()
}

/// `GET` lists the indexes; `POST name=…` creates one (admin).
pub async fn collection(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    method: Method,
    body: Bytes,
) -> Response {
    let s = match authenticate(&st, &headers) {
        Ok(s) => s,
        Err(f) => return f.into_response(),
    };
    let p = params(q.as_deref(), &body);
    if method == Method::GET {
        let st2 = st.clone();
        let infos = tokio::task::spawn_blocking(move || {
            st2.app
                .node
                .index_names()
                .iter()
                .map(|n| info(&st2, n))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        return answer(&p, &infos, StatusCode::OK);
    }
    if !s.roles.iter().any(|r| r == "admin") {
        return error(
            StatusCode::FORBIDDEN,
            "ERROR",
            "You do not have the capability to create indexes",
        );
    }
    let Some(name) = param(&p, "name").map(str::to_string) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "Argument \"name\" is required",
        );
    };
    let node = st.app.node.clone();
    let n = name.clone();
    let res = tokio::task::spawn_blocking(move || node.create_index(&n)).await;
    match res {
        Ok(Ok(())) => answer(&p, &[info(&st, &name)], StatusCode::CREATED),
        Ok(Err(e)) => {
            let status = if e.to_string().contains("exists already") {
                StatusCode::CONFLICT
            } else {
                StatusCode::BAD_REQUEST
            };
            error(status, "ERROR", &e.to_string())
        }
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
    }
}

/// `GET` one index.
pub async fn one(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Response {
    if let Err(f) = authenticate(&st, &headers) {
        return f.into_response();
    }
    let name = path.get("name").cloned().unwrap_or_default();
    if !st.app.node.has_index(&name) {
        return error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id={name}"),
        );
    }
    let p = params(q.as_deref(), b"");
    let st2 = st.clone();
    let i = tokio::task::spawn_blocking(move || info(&st2, &name)).await;
    match i {
        Ok(i) => answer(&p, &[i], StatusCode::OK),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
    }
}
