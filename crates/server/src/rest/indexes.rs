//! `/services/data/indexes`: the indexes with their sizes and time ranges (`service.indexes` in
//! the SDKs), and creating one while running (`indexes_edit` capability; kept in
//! `etc/system/local/indexes.conf`). A user sees only the indexes their roles may search.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};

use super::listing::{self, Item, Value};
use super::roles::{forbidden, index_access, rights};
use super::{error, param, params, RestState, Session};
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

/// What the listing needs of one bucket: events, raw bytes, time range (µs).
#[derive(Clone, Copy)]
struct BucketSums {
    events: u64,
    raw_bytes: u64,
    min_time: i64,
    max_time: i64,
}

/// The sums of warm buckets, by directory. Warm buckets never change, so each is opened once per
/// process, not on every listing; entries of buckets gone (frozen, quarantined) are dropped when
/// their index is listed. Hot buckets are still read each time (their counts move).
fn warm_cache() -> &'static Mutex<HashMap<PathBuf, BucketSums>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, BucketSums>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

fn sums(b: &lode_store::BucketInfo) -> Option<BucketSums> {
    let warm = b.kind == lode_store::BucketKind::Warm;
    if warm {
        let cache = warm_cache().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = cache.get(&b.path) {
            return Some(*s);
        }
    }
    let reader = lode_store::open_bucket(b).ok()?;
    let m = reader.meta();
    let s = BucketSums {
        events: m.event_count,
        raw_bytes: m.raw_bytes,
        min_time: m.min_time,
        max_time: m.max_time,
    };
    if warm {
        warm_cache()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(b.path.clone(), s);
    }
    Some(s)
}

fn info(st: &RestState, name: &str) -> IndexInfo {
    let dir = st.app.index_root.join(name);
    let buckets = lode_store::list_buckets(&dir).unwrap_or_default();
    warm_cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|p, _| !p.starts_with(&dir) || buckets.iter().any(|b| &b.path == p));
    let mut i = IndexInfo {
        name: name.to_string(),
        events: 0,
        raw_bytes: 0,
        disk_bytes: dir_bytes(&dir),
        buckets: buckets.len(),
        min_time: None,
        max_time: None,
    };
    for m in buckets.iter().filter_map(sums) {
        i.events += m.events;
        i.raw_bytes += m.raw_bytes;
        if m.events > 0 {
            i.min_time = Some(i.min_time.map_or(m.min_time, |t| t.min(m.min_time)));
            i.max_time = Some(i.max_time.map_or(m.max_time, |t| t.max(m.max_time)));
        }
    }
    i
}

fn item(i: &IndexInfo) -> Item {
    let t = |us: Option<i64>| us.map(|u| format_time(u as f64 / 1e6)).unwrap_or_default();
    Item {
        name: i.name.clone(),
        path: format!("/{}", i.name),
        author: "nobody".into(),
        acl: listing::Acl::System("search"),
        content: vec![
            ("totalEventCount", Value::Num(i.events)),
            ("currentDBSizeMB", Value::Num(i.disk_bytes / (1024 * 1024))),
            ("totalRawSizeMB", Value::Num(i.raw_bytes / (1024 * 1024))),
            ("minTime", t(i.min_time).into()),
            ("maxTime", t(i.max_time).into()),
            ("numBuckets", Value::Num(i.buckets as u64)),
            ("datatype", "event".into()),
            ("disabled", Value::Bool(false)),
            (
                "homePath",
                format!("$LODE_HOME/var/lib/lode/{}", i.name).into(),
            ),
        ],
    }
}

fn answer(p: &[(String, String)], infos: &[IndexInfo], status: StatusCode) -> Response {
    let items: Vec<Item> = infos.iter().map(item).collect();
    listing::answer(p, "indexes", "/services/data/indexes", &items, status)
}

/// `GET` lists the indexes; `POST name=…` creates one (admin).
pub async fn collection(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let p = params(q.as_deref(), &body);
    let e = rights(st.app.node.home(), &s.roles);
    if method == Method::GET {
        // Only the indexes the caller may search.
        let access = index_access(&e);
        let st2 = st.clone();
        let infos = tokio::task::spawn_blocking(move || {
            st2.app
                .node
                .index_names()
                .iter()
                .filter(|n| access.allows(n))
                .map(|n| info(&st2, n))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        return answer(&p, &infos, StatusCode::OK);
    }
    if !e.has_any(&["indexes_edit", "edit_indexes", "admin_all_objects"]) {
        return forbidden(&s, "create indexes").into_response();
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
    s: Session,
) -> Response {
    let name = path.get("name").cloned().unwrap_or_default();
    let access = index_access(&rights(st.app.node.home(), &s.roles));
    if !st.app.node.has_index(&name) || !access.allows(&name) {
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
