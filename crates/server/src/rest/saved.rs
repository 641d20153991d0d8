//! Saved searches (`saved/searches`, Splunk's endpoint and entry keys) and the search bar's
//! syntax check (`search/parser`).
//!
//! A saved search is a stanza of `savedsearches.conf` in the caller's app directory,
//! `$LODE_HOME/etc/users/<user>/<app>/local/savedsearches.conf` (`<app>` from the
//! `/servicesNS/{owner}/{app}` path, `search` under `/services`), with Splunk's keys: `search`,
//! `description`, `dispatch.earliest_time`, `dispatch.latest_time`, `is_scheduled`,
//! `cron_schedule`, `alert_type`, `alert_comparator`, `alert_threshold`, `alert.*`, `action.*`,
//! `display.*` … Lode stores them; running scheduled searches and alerts is the scheduler's job.
//!
//! `search/parser?q=…` answers 200 with the canonical text of a valid search, or 400 with
//! Splunk's message and, as a Lode extension, `span` (`start`, `end`: the byte range of the
//! search text, after leading blanks are trimmed, that the error is about), so that an editor
//! can mark it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::atom;
use super::listing::{self, Acl, Item, Value};
use super::{error, param, params, RestState, Session};

/// The configuration file saved searches live in.
pub const SAVED_CONF: &str = "savedsearches.conf";
/// Longest saved-search name (Splunk's limit on entity names is similar).
const MAX_NAME: usize = 1024;
/// Keys shown for every saved search, with their defaults when the stanza lacks them.
const DEFAULTS: &[(&str, &str)] = &[
    ("search", ""),
    ("description", ""),
    ("dispatch.earliest_time", ""),
    ("dispatch.latest_time", ""),
    ("is_scheduled", "0"),
    ("cron_schedule", ""),
    ("alert_type", "always"),
    ("alert_comparator", ""),
    ("alert_threshold", ""),
    ("disabled", "0"),
    ("is_visible", "1"),
];
/// Keys whose JSON value is a boolean (as splunkd answers in JSON).
const BOOLEANS: &[&str] = &["is_scheduled", "disabled", "is_visible"];

/// Serialises read-modify-write of the conf files (one server process owns the home).
static WRITE: Mutex<()> = Mutex::new(());

/// Adds the routes under `prefix` to `r`.
pub fn routes(r: Router<RestState>, prefix: &str) -> Router<RestState> {
    r.route(
        &format!("{prefix}/saved/searches"),
        get(collection).post(collection),
    )
    .route(
        &format!("{prefix}/saved/searches/"),
        get(collection).post(collection),
    )
    .route(
        &format!("{prefix}/saved/searches/{{name}}"),
        get(one).post(one).delete(one),
    )
    .route(&format!("{prefix}/search/parser"), get(parser).post(parser))
}

/// A saved search: name and its keys in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    /// Stanza name.
    pub name: String,
    /// Keys and values as stored.
    pub keys: Vec<(String, String)>,
}

/// `$LODE_HOME/etc/users/<user>/<app>/local/savedsearches.conf`.
pub(crate) fn user_app_local(st: &RestState, user: &str, app: &str) -> PathBuf {
    st.app
        .node
        .home()
        .etc()
        .join("users")
        .join(user)
        .join(app)
        .join("local")
}

/// The app of a request path (`/servicesNS/{owner}/{app}/…`), `search` otherwise; `None` when
/// the name could escape its directory.
pub(crate) fn app_of(path: &HashMap<String, String>) -> Option<String> {
    let app = path.get("app").map_or("search", String::as_str);
    let app = if app == "-" { "search" } else { app };
    safe_name(app).then(|| app.to_string())
}

/// A name usable as one path component.
pub(crate) fn safe_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 100
        && !n.starts_with('.')
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Reads the saved searches of a conf file (none when it is missing).
pub fn read(file: &std::path::Path) -> Result<Vec<Saved>, String> {
    let conf = lode_conf::ConfFile::read(file).map_err(|e| e.to_string())?;
    Ok(conf
        .stanzas()
        .filter(|s| !s.name.is_empty() && s.name != "default")
        .map(|s| Saved {
            name: s.name.clone(),
            keys: s
                .entries()
                .map(|e| (e.key.clone(), e.value.clone()))
                .collect(),
        })
        .collect())
}

/// The text of a conf file holding `all`: multi-line values continue with a trailing `\`.
pub fn render(all: &[Saved]) -> String {
    let mut out =
        String::from("# Saved searches, written by Lode (Splunk's savedsearches.conf form).\n");
    for s in all {
        out.push_str(&format!("\n[{}]\n", s.name));
        for (k, v) in &s.keys {
            let v = v.replace("\r\n", "\n").replace('\n', " \\\n");
            out.push_str(&format!("{k} = {v}\n"));
        }
    }
    out
}

fn write(file: &std::path::Path, all: &[Saved]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension("conf.tmp");
    std::fs::write(&tmp, render(all))?;
    std::fs::rename(&tmp, file)
}

/// Whether `k` may be set through the API: Splunk-shaped keys only.
fn settable(k: &str) -> bool {
    !k.is_empty()
        && !matches!(k, "name" | "output_mode")
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

fn bad(text: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "ERROR", text)
}

/// The content of an entry: the defaults overlaid with what is stored.
fn content(s: &Saved) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = DEFAULTS
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for (k, v) in &s.keys {
        match out.iter_mut().find(|(ok, _)| ok == k) {
            Some(slot) => slot.1 = v.clone(),
            None => out.push((k.clone(), v.clone())),
        }
    }
    out
}

/// The answer listing `all` (the caller's, in `app`): Splunk's entries with the stored keys over
/// the defaults, booleans typed in JSON, private to their owner.
fn answer(all: &[&Saved], user: &str, app: &str, json: bool, status: StatusCode) -> Response {
    let base = format!("/servicesNS/{user}/{app}/saved/searches");
    let items: Vec<Item<String>> = all
        .iter()
        .map(|s| Item {
            name: s.name.clone(),
            path: format!("/{}", s.name),
            author: user.to_string(),
            acl: Acl::User(app.to_string()),
            content: content(s)
                .into_iter()
                .map(|(k, v)| {
                    let val = if BOOLEANS.contains(&k.as_str()) {
                        Value::Bool(lode_conf::parse_bool(&v).unwrap_or(false))
                    } else {
                        Value::Text(v)
                    };
                    (k, val)
                })
                .collect(),
        })
        .collect();
    let p = if json {
        vec![("output_mode".to_string(), "json".to_string())]
    } else {
        Vec::new()
    };
    listing::answer(&p, "savedsearch", &base, &items, status)
}

/// 403 when `p` schedules the search (`is_scheduled` true) and the caller lacks Splunk's
/// `schedule_search` capability (the built-in `user` role does).
fn may_schedule(
    st: &RestState,
    s: &super::Session,
    p: &[(String, String)],
) -> Result<(), super::Fail> {
    let scheduling = param(p, "is_scheduled")
        .and_then(lode_conf::parse_bool)
        .unwrap_or(false);
    if !scheduling {
        return Ok(());
    }
    let e = super::roles::rights(st.app.node.home(), &s.roles);
    if e.has_any(&["schedule_search", "admin_all_objects"]) {
        Ok(())
    } else {
        Err(super::roles::forbidden(s, "schedule searches"))
    }
}

/// Checks and applies `p`'s settable keys to `s`; what is wrong otherwise.
fn apply(s: &mut Saved, p: &[(String, String)]) -> Result<(), String> {
    for (k, v) in p {
        if matches!(k.as_str(), "name" | "output_mode") {
            continue;
        }
        if !settable(k) {
            return Err(format!(
                "Argument \"{k}\" is not supported by this handler."
            ));
        }
        if k == "search" && v.trim().is_empty() {
            return Err("Cannot create a saved search with an empty search string.".into());
        }
        match s.keys.iter_mut().find(|(ok, _)| ok == k) {
            Some(slot) => slot.1 = v.clone(),
            None => s.keys.push((k.clone(), v.clone())),
        }
    }
    Ok(())
}

async fn collection(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let Some(app) = app_of(&path) else {
        return bad("invalid app name");
    };
    let p = params(q.as_deref(), &body);
    let json = param(&p, "output_mode") == Some("json");
    let file = user_app_local(&st, &s.user, &app).join(SAVED_CONF);
    let _guard = WRITE.lock().unwrap_or_else(|e| e.into_inner());
    let mut all = match read(&file) {
        Ok(a) => a,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e),
    };
    if method != Method::POST {
        let search = param(&p, "search").unwrap_or_default().to_lowercase();
        let shown: Vec<&Saved> = all
            .iter()
            .filter(|x| search.is_empty() || x.name.to_lowercase().contains(&search))
            .collect();
        return answer(&shown, &s.user, &app, json, StatusCode::OK);
    }
    let name = param(&p, "name").unwrap_or_default().trim().to_string();
    if name.is_empty() {
        return bad("Missing argument \"name\".");
    }
    if name.len() > MAX_NAME || name.contains(['[', ']', '\n', '\r']) || name == "default" {
        return bad(&format!("Invalid saved search name \"{name}\"."));
    }
    if param(&p, "search").is_none_or(|v| v.trim().is_empty()) {
        return bad("Missing argument \"search\".");
    }
    if all.iter().any(|x| x.name == name) {
        return error(
            StatusCode::CONFLICT,
            "ERROR",
            &format!("An object with name={name} already exists"),
        );
    }
    if let Err(f) = may_schedule(&st, &s, &p) {
        return f.into_response();
    }
    let mut saved = Saved {
        name,
        keys: Vec::new(),
    };
    if let Err(e) = apply(&mut saved, &p) {
        return bad(&e);
    }
    all.push(saved.clone());
    if let Err(e) = write(&file, &all) {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
    }
    answer(&[&saved], &s.user, &app, json, StatusCode::CREATED)
}

async fn one(
    State(st): State<RestState>,
    Path(path): Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    s: Session,
    method: Method,
    body: Bytes,
) -> Response {
    let Some(app) = app_of(&path) else {
        return bad("invalid app name");
    };
    let name = path.get("name").cloned().unwrap_or_default();
    let p = params(q.as_deref(), &body);
    let json = param(&p, "output_mode") == Some("json");
    let file = user_app_local(&st, &s.user, &app).join(SAVED_CONF);
    let _guard = WRITE.lock().unwrap_or_else(|e| e.into_inner());
    let mut all = match read(&file) {
        Ok(a) => a,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e),
    };
    let Some(i) = all.iter().position(|x| x.name == name) else {
        return error(
            StatusCode::NOT_FOUND,
            "ERROR",
            &format!("Could not find object id={name}"),
        );
    };
    match method {
        Method::DELETE => {
            all.remove(i);
            if let Err(e) = write(&file, &all) {
                return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
            }
            answer(&[], &s.user, &app, json, StatusCode::OK)
        }
        Method::POST => {
            if let Err(f) = may_schedule(&st, &s, &p) {
                return f.into_response();
            }
            if let Err(e) = apply(&mut all[i], &p) {
                return bad(&e);
            }
            if let Err(e) = write(&file, &all) {
                return error(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string());
            }
            answer(&[&all[i]], &s.user, &app, json, StatusCode::OK)
        }
        _ => answer(&[&all[i]], &s.user, &app, json, StatusCode::OK),
    }
}

async fn parser(RawQuery(q): RawQuery, _caller: Session, body: Bytes) -> Response {
    let p = params(q.as_deref(), &body);
    let text = param(&p, "q").unwrap_or_default().trim();
    let json = param(&p, "output_mode") == Some("json");
    if text.is_empty() {
        return bad("Missing argument \"q\".");
    }
    match lode_spl::parse(text) {
        Ok(ast) => {
            let canonical = lode_spl::print(&ast);
            if json {
                let b = serde_json::json!({"search": canonical, "messages": []});
                return ([(header::CONTENT_TYPE, "application/json")], b.to_string())
                    .into_response();
            }
            (
                [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
                format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n  <search>{}</search>\n</response>\n",
                    atom::escape(&canonical)
                ),
            )
                .into_response()
        }
        Err(e) => {
            let msg = format!("Error in 'search' command: {}", e.message);
            if !json {
                return error(StatusCode::BAD_REQUEST, "FATAL", &msg);
            }
            let b = serde_json::json!({
                "messages": [{"type": "FATAL", "text": msg}],
                "span": {"start": e.span.start, "end": e.span.end},
            });
            (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                b.to_string(),
            )
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conf_round_trip_keeps_multi_line_searches() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(SAVED_CONF);
        let all = vec![
            Saved {
                name: "Errors by host".into(),
                keys: vec![
                    ("search".into(), "error\n| stats count by host".into()),
                    ("dispatch.earliest_time".into(), "-24h".into()),
                    ("is_scheduled".into(), "1".into()),
                    ("cron_schedule".into(), "*/5 * * * *".into()),
                ],
            },
            Saved {
                name: "b".into(),
                keys: vec![("search".into(), "x=\"a b\"".into())],
            },
        ];
        write(&file, &all).unwrap();
        let back = read(&file).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].name, "Errors by host");
        let search = &back[0].keys.iter().find(|(k, _)| k == "search").unwrap().1;
        assert!(search.starts_with("error"), "{search:?}");
        assert!(search.contains("| stats count by host"), "{search:?}");
        assert_eq!(back[1], all[1]);
    }

    #[test]
    fn names_and_keys_are_checked() {
        assert!(safe_name("search") && safe_name("my_app-2"));
        assert!(!safe_name("..") && !safe_name("a/b") && !safe_name(""));
        assert!(settable("dispatch.earliest_time") && settable("action.email.to"));
        assert!(!settable("name") && !settable("a b") && !settable("x\n"));
    }
}
