//! Dashboards (`lode/dashboards`, a Lode endpoint): JSON documents, one file per dashboard under
//! the caller's app directory, `$LODE_HOME/etc/users/<user>/<app>/local/data/ui/views/<name>.json`
//! (beside where Splunk keeps its XML views), pretty-printed so that they can be edited by hand and
//! versioned. docs/API.md describes the document: `title`, `description`, `earliest`, `latest`,
//! `inputs` (`type` text|dropdown, `token`, `label`, `default`, `choices`) and `panels` (`title`,
//! `search` with `$token$`s or `saved`, the name of a saved search, `earliest`, `latest`, `viz`).
//!
//! `GET lode/dashboards` lists them (JSON feed: `entry[].name`, `entry[].content` = the
//! document); `GET|POST|DELETE lode/dashboards/{name}` reads, creates or replaces (the JSON
//! document as the request body), and deletes one.

use std::collections::HashMap;
use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::saved::{app_of, safe_name, user_app_local};
use super::{error, now_iso, RestState, Session};

/// Largest dashboard document, in bytes.
pub const MAX_DASHBOARD: usize = 1 << 20;

/// Adds the routes under `prefix` to `r`.
pub fn routes(r: Router<RestState>, prefix: &str) -> Router<RestState> {
    r.route(&format!("{prefix}/lode/dashboards"), get(collection))
        .route(&format!("{prefix}/lode/dashboards/"), get(collection))
        .route(
            &format!("{prefix}/lode/dashboards/{{name}}"),
            get(one).post(one).delete(one),
        )
}

fn dir(st: &RestState, user: &str, app: &str) -> PathBuf {
    user_app_local(st, user, app).join("data/ui/views")
}

fn json(status: StatusCode, v: serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
        .into_response()
}

fn feed(entries: Vec<(String, serde_json::Value)>, user: &str, app: &str) -> serde_json::Value {
    let base = format!("/servicesNS/{user}/{app}/lode/dashboards");
    let n = entries.len();
    let entry: Vec<serde_json::Value> = entries
        .into_iter()
        .map(|(name, content)| {
            serde_json::json!({"name": name, "id": format!("{base}/{name}"), "author": user,
                               "acl": {"app": app, "owner": user, "sharing": "user"},
                               "content": content})
        })
        .collect();
    serde_json::json!({"origin": base, "updated": now_iso(), "entry": entry,
                       "paging": {"total": n, "perPage": 0, "offset": 0}, "messages": []})
}

/// Checks a dashboard document: an object with a string `title`, `panels` each with a string
/// `search` or `saved` (a saved search's name), and `inputs` each with a word `token`. Returns what is wrong.
pub fn validate(doc: &serde_json::Value) -> Result<(), String> {
    let o = doc.as_object().ok_or("a dashboard is a JSON object")?;
    if !o.get("title").is_some_and(serde_json::Value::is_string) {
        return Err("a dashboard needs a string \"title\"".into());
    }
    let list = |k: &str| -> Result<Vec<serde_json::Value>, String> {
        match o.get(k) {
            None => Ok(Vec::new()),
            Some(serde_json::Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err(format!("\"{k}\" must be a list")),
        }
    };
    for (i, p) in list("panels")?.iter().enumerate() {
        let text = |k: &str| p.get(k).is_some_and(serde_json::Value::is_string);
        if !text("search") && !text("saved") {
            return Err(format!(
                "panel {} needs a string \"search\" or the name of a saved search in \"saved\"",
                i + 1
            ));
        }
    }
    for (i, inp) in list("inputs")?.iter().enumerate() {
        let ok = inp
            .get("token")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|t| {
                !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if !ok {
            return Err(format!(
                "input {} needs a \"token\" of letters, digits and _",
                i + 1
            ));
        }
    }
    Ok(())
}

async fn collection(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    s: Session,
) -> Response {
    let Some(app) = app_of(&path) else {
        return error(StatusCode::BAD_REQUEST, "ERROR", "invalid app name");
    };
    let mut entries = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir(&st, &s.user, &app)) {
        for e in rd.flatten() {
            let p = e.path();
            let Some(name) = p
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
            else {
                continue;
            };
            match std::fs::read(&p)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            {
                Some(doc) => entries.push((name.to_string(), doc)),
                None => tracing::warn!(file = %p.display(), "unreadable dashboard skipped"),
            }
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    json(StatusCode::OK, feed(entries, &s.user, &app))
}

async fn one(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let Some(app) = app_of(&path) else {
        return error(StatusCode::BAD_REQUEST, "ERROR", "invalid app name");
    };
    let name = path.get("name").cloned().unwrap_or_default();
    if !safe_name(&name) || name.contains('.') {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "a dashboard name is letters, digits, _ and - (at most 100)",
        );
    }
    let d = dir(&st, &s.user, &app);
    let file = d.join(format!("{name}.json"));
    let missing = || {
        error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id={name}"),
        )
    };
    match method {
        Method::POST => {
            if body.len() > MAX_DASHBOARD {
                return error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "ERROR",
                    "the dashboard is larger than 1 MiB",
                );
            }
            let doc: serde_json::Value = match serde_json::from_slice(&body) {
                Ok(d) => d,
                Err(e) => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "ERROR",
                        &format!("the body is not a JSON dashboard: {e}"),
                    )
                }
            };
            if let Err(e) = validate(&doc) {
                return error(StatusCode::BAD_REQUEST, "ERROR", &e);
            }
            let existed = file.exists();
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
            let tmp = d.join(format!(".{name}.json.tmp"));
            let res = std::fs::create_dir_all(&d)
                .and_then(|_| std::fs::write(&tmp, text))
                .and_then(|_| std::fs::rename(&tmp, &file));
            if let Err(e) = res {
                return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
            }
            let status = if existed {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            };
            json(status, feed(vec![(name, doc)], &s.user, &app))
        }
        Method::DELETE => match std::fs::remove_file(&file) {
            Ok(()) => json(StatusCode::OK, feed(Vec::new(), &s.user, &app)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing(),
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
        },
        _ => match std::fs::read(&file) {
            Ok(b) => match serde_json::from_slice::<serde_json::Value>(&b) {
                Ok(doc) => json(StatusCode::OK, feed(vec![(name, doc)], &s.user, &app)),
                Err(e) => error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "ERROR",
                    &format!("{} is not valid JSON: {e}", file.display()),
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing(),
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_checked() {
        let ok = serde_json::json!({"title": "t", "panels": [{"search": "x", "viz": "line"}, {"saved": "r"}],
                                    "inputs": [{"type": "text", "token": "host_1"}]});
        assert!(validate(&ok).is_ok());
        for (bad, want) in [
            (serde_json::json!([]), "object"),
            (serde_json::json!({"panels": []}), "title"),
            (serde_json::json!({"title": "t", "panels": [{}]}), "panel 1"),
            (serde_json::json!({"title": "t", "panels": {}}), "list"),
            (
                serde_json::json!({"title": "t", "inputs": [{"token": "a b"}]}),
                "input 1",
            ),
        ] {
            let e = validate(&bad).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
