//! Splunk's REST API on the API listener, as the official SDKs use it (`../shared/SPLUNK.md` §2;
//! docs/API.md): login and sessions, `server/info`, `messages`, and searches run at once
//! (`exec_mode=oneshot`) or streamed (`search/jobs/export`), under `/services/…` and
//! `/servicesNS/{owner}/{app}/…`, with the v1 and v2 job paths.
//!
//! Every route but login requires a session key (`Authorization: Splunk <key>`, `Bearer <key>`,
//! or the `splunkd_<port>` cookie login sets) or HTTP Basic credentials. Background jobs
//! (`exec_mode=normal|blocking`) are not served yet and say so.

pub mod atom;
pub mod basic;
pub mod indexes;
pub mod inputs;
pub mod jobs;
pub mod listing;
pub mod output;
pub mod roles;
pub mod saved;
pub mod summary;
pub mod users;
pub mod views;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::Engine;
use lode_node::users::Users;

use crate::format::{cell, format_time};
use crate::AppState;
use output::{Fields, Mode};

/// The Splunk version reported: the SDKs pick their protocol (v2 search paths, POST for
/// results) from it, and it must be integers separated by dots.
pub const SPLUNK_VERSION: &str = "9.1.0";
/// A session unused this long expires (Splunk's `sessionTimeout` default, 1 h).
pub const SESSION_IDLE: Duration = Duration::from_secs(3600);
/// Most rows a oneshot search returns with `count=0` (Splunk's `maxresultrows`).
pub const MAX_RESULT_ROWS: usize = 50_000;

/// A logged-in user.
#[derive(Debug, Clone)]
pub struct Session {
    /// User name.
    pub user: String,
    /// Their roles.
    pub roles: Vec<String>,
    used: Instant,
}

impl Session {
    /// A session of `user` with `roles` (as login makes it).
    pub fn new(user: &str, roles: Vec<String>) -> Session {
        Session {
            user: user.to_string(),
            roles,
            used: Instant::now(),
        }
    }
}

/// A REST handler's caller, authenticated by [`authenticate`]: a handler that takes a `Session`
/// runs only for a valid session key, Basic credentials or session cookie, and anyone else gets
/// Splunk's 401 answer.
impl axum::extract::FromRequestParts<RestState> for Session {
    type Rejection = Fail;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        st: &RestState,
    ) -> Result<Self, Fail> {
        authenticate(st, &parts.headers)
    }
}

/// Session keys → sessions.
#[derive(Default)]
pub struct Sessions(Mutex<HashMap<String, Session>>);

impl Sessions {
    fn create(&self, user: &str, roles: Vec<String>) -> String {
        let key = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        m.retain(|_, s| now.duration_since(s.used) < SESSION_IDLE);
        m.insert(
            key.clone(),
            Session {
                user: user.to_string(),
                roles,
                used: now,
            },
        );
        key
    }

    fn get(&self, key: &str) -> Option<Session> {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        match m.get_mut(key) {
            Some(s) if now.duration_since(s.used) < SESSION_IDLE => {
                s.used = now;
                Some(s.clone())
            }
            Some(_) => {
                m.remove(key);
                None
            }
            None => None,
        }
    }
}

/// What the REST handlers share.
#[derive(Clone)]
pub struct RestState {
    /// The API's state (node, index root, search admission).
    pub app: AppState,
    /// Sessions.
    pub sessions: Arc<Sessions>,
    /// The API's port, for the `splunkd_<port>` cookie.
    pub port: u16,
    /// Background search jobs.
    pub jobs: Arc<jobs::Jobs>,
    /// The secret local clients present as `Authorization: Lode <secret>` (published in the
    /// home's `var/run/lode/server.json`, mode 0600).
    pub local_secret: Option<String>,
    /// Searches running per user.
    pub running: Arc<Mutex<HashMap<String, usize>>>,
    /// Recent failed password checks per user name (logins and Basic credentials).
    pub failures: Arc<basic::Failures>,
    /// Basic credentials verified recently.
    pub basic: Arc<basic::BasicCache>,
}

/// One running search of a user; counted until dropped.
pub struct QuotaSlot {
    running: Arc<Mutex<HashMap<String, usize>>>,
    user: String,
}

impl Drop for QuotaSlot {
    fn drop(&mut self) {
        let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.user);
            }
        }
    }
}

impl RestState {
    /// A search slot of `s`'s quota (their roles' largest `srchJobsQuota`), or 503 when they run
    /// as many as their roles allow; 403 when their roles lack the `search` capability.
    pub fn quota_slot(&self, s: &Session) -> Result<QuotaSlot, Fail> {
        let rights = roles::rights(self.app.node.home(), &s.roles);
        if !rights.has("search") {
            return Err(roles::forbidden(s, "search (no 'search' capability)"));
        }
        let quota = rights.srch_jobs_quota as usize;
        let mut m = self.running.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.entry(s.user.clone()).or_insert(0);
        if *n >= quota {
            return Err(fail(
                StatusCode::SERVICE_UNAVAILABLE,
                "ERROR",
                &format!(
                    "The maximum number of concurrent searches for user={} ({quota}, by role) has been reached",
                    s.user
                ),
            ));
        }
        *n += 1;
        Ok(QuotaSlot {
            running: self.running.clone(),
            user: s.user.clone(),
        })
    }
}

/// The job message of a search stopped by its user's `srchMaxTime`, as splunkd words it.
pub fn time_limit_message(secs: u64) -> String {
    format!("Search auto-finalized after time limit ({secs} seconds) reached.")
}

/// The longest a search of a holder of `roles` may run (their roles' `srchMaxTime`; `None`:
/// unlimited).
pub fn max_time(app: &AppState, roles: &[String]) -> Option<Duration> {
    let secs = roles::rights(app.node.home(), roles).srch_max_time;
    (secs > 0).then(|| Duration::from_secs(secs))
}

impl RestState {
    /// The REST state over `app`, serving on `port`; job results go under the home's
    /// `var/run/lode/dispatch`.
    pub fn new(app: AppState, port: u16) -> RestState {
        let dispatch = app.node.home().run_dir().join("dispatch");
        RestState {
            app,
            sessions: Arc::default(),
            port,
            jobs: Arc::new(jobs::Jobs::new(dispatch)),
            local_secret: None,
            running: Arc::default(),
            failures: Arc::default(),
            basic: Arc::default(),
        }
    }
}

/// A fresh random secret for local clients.
pub fn new_secret() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Middleware for Lode's own `/lode/*` routes: a session key, Basic credentials or the local
/// secret (`Authorization: Lode <secret>`); `/lode/health` stays open. A user's [`Session`] goes
/// into the request's extensions (searches are limited to their indexes); the local secret is
/// unrestricted.
pub async fn require_auth(
    State(st): State<RestState>,
    mut req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if req.uri().path() == "/lode/health" {
        return next.run(req).await;
    }
    if let Some(secret) = &st.local_secret {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Lode "));
        if given.is_some_and(|g| constant_time_eq(g.as_bytes(), secret.as_bytes())) {
            return next.run(req).await;
        }
    }
    match authenticate(&st, req.headers()) {
        Ok(s) => {
            req.extensions_mut().insert(s);
            next.run(req).await
        }
        Err(f) => f.into_response(),
    }
}

/// Equality that takes the same time wherever the first difference is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An XML error answer: status, message type, text.
#[derive(Debug)]
pub struct Fail(StatusCode, &'static str, String);

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        (
            self.0,
            [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
            atom::messages(self.1, &self.2),
        )
            .into_response()
    }
}

pub(crate) fn fail(status: StatusCode, kind: &'static str, text: &str) -> Fail {
    Fail(status, kind, text.to_string())
}

/// An XML error answer.
pub(crate) fn error(status: StatusCode, kind: &'static str, text: &str) -> Response {
    fail(status, kind, text).into_response()
}

fn unauthorized() -> Fail {
    fail(
        StatusCode::UNAUTHORIZED,
        "WARN",
        "call not properly authenticated",
    )
}

/// Query string and form body together (the SDK posts forms without a Content-Type).
pub(crate) fn params(query: Option<&str>, body: &[u8]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = query
        .map(|q| serde_urlencoded::from_str(q).unwrap_or_default())
        .unwrap_or_default();
    out.extend(serde_urlencoded::from_bytes::<Vec<(String, String)>>(body).unwrap_or_default());
    out
}

pub(crate) fn param<'a>(p: &'a [(String, String)], k: &str) -> Option<&'a str> {
    p.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

/// The session of a request: a session key (header or cookie) or Basic credentials.
pub(crate) fn authenticate(st: &RestState, headers: &HeaderMap) -> Result<Session, Fail> {
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let (scheme, rest) = v.trim().split_once(' ').ok_or_else(unauthorized)?;
        let rest = rest.trim();
        if scheme.eq_ignore_ascii_case("splunk") || scheme.eq_ignore_ascii_case("bearer") {
            return st.sessions.get(rest).ok_or_else(unauthorized);
        }
        if scheme.eq_ignore_ascii_case("basic") {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(rest)
                .map_err(|_| unauthorized())?;
            let text = String::from_utf8(raw).map_err(|_| unauthorized())?;
            let (user, pass) = text.split_once(':').ok_or_else(unauthorized)?;
            let users = Users::load(st.app.node.home()).map_err(|_| unauthorized())?;
            let u = users.get(user).ok_or_else(unauthorized)?;
            // A pair verified recently passes; else it is checked, unless the name's recent
            // failures ask for a wait (a request cannot be held here as a login is, so it is
            // refused): guessing a password through Basic credentials is as slow as through
            // logins, and costs at most one check a wait.
            if !st.basic.remembered(u, pass) {
                if st.failures.waiting(&u.name) {
                    tracing::warn!(user = %u.name, "Basic credentials refused: recent failures");
                    return Err(unauthorized());
                }
                if !st.basic.check(u, pass) {
                    tracing::warn!(user = %u.name, "failed Basic credentials");
                    st.failures.note(&u.name);
                    return Err(unauthorized());
                }
                st.failures.clear(&u.name);
            }
            return Ok(Session {
                user: u.name.clone(),
                roles: u.roles.clone(),
                used: Instant::now(),
            });
        }
        return Err(unauthorized());
    }
    let cookies = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='));
    for (name, value) in cookies {
        if name.starts_with("splunkd_") {
            if let Some(s) = st.sessions.get(value) {
                return Ok(s);
            }
        }
    }
    Err(unauthorized())
}

/// Every route, under `/services` and `/servicesNS/{owner}/{app}`.
pub fn router(state: RestState) -> Router {
    let mut r = Router::new().route("/services/auth/login", post(login));
    for prefix in ["/services", "/servicesNS/{owner}/{app}"] {
        r = r
            .route(&format!("{prefix}/server/info"), get(server_info))
            .route(&format!("{prefix}/messages"), get(messages))
            .route(
                &format!("{prefix}/authentication/users"),
                get(users::collection).post(users::collection),
            )
            .route(
                &format!("{prefix}/authentication/users/{{name}}"),
                get(users::one).post(users::one).delete(users::one),
            )
            .route(
                &format!("{prefix}/authentication/users/"),
                get(users::collection).post(users::collection),
            )
            .route(
                &format!("{prefix}/data/indexes"),
                get(indexes::collection).post(indexes::collection),
            )
            .route(
                &format!("{prefix}/data/indexes/"),
                get(indexes::collection).post(indexes::collection),
            )
            .route(
                &format!("{prefix}/data/indexes/{{name}}"),
                get(indexes::one),
            )
            .route(
                &format!("{prefix}/authorization/roles"),
                get(roles::collection).post(roles::collection),
            )
            .route(
                &format!("{prefix}/authorization/roles/"),
                get(roles::collection).post(roles::collection),
            )
            .route(
                &format!("{prefix}/authorization/roles/{{name}}"),
                get(roles::one).post(roles::one).delete(roles::one),
            )
            .route(
                &format!("{prefix}/data/inputs/http/"),
                get(inputs::collection).post(inputs::collection),
            )
            .route(
                &format!("{prefix}/data/inputs/http"),
                get(inputs::collection).post(inputs::collection),
            )
            .route(
                &format!("{prefix}/data/inputs/http/{{name}}"),
                get(inputs::one).post(inputs::one).delete(inputs::one),
            )
            .route(
                &format!("{prefix}/data/inputs/http/{{name}}/{{action}}"),
                post(inputs::one),
            );
        r = saved::routes(r, prefix);
        r = views::routes(r, prefix);
        for jobs in ["search/jobs", "search/v1/jobs", "search/v2/jobs"] {
            r = r
                .route(&format!("{prefix}/{jobs}"), post(create_job).get(list_jobs))
                .route(
                    &format!("{prefix}/{jobs}/"),
                    post(create_job).get(list_jobs),
                )
                .route(&format!("{prefix}/{jobs}/export"), get(export).post(export))
                .route(
                    &format!("{prefix}/{jobs}/{{sid}}"),
                    get(job_status).delete(delete_job),
                )
                // The SDKs refresh an entity after a POST with a trailing slash.
                .route(
                    &format!("{prefix}/{jobs}/{{sid}}/"),
                    get(job_status).delete(delete_job),
                )
                .route(&format!("{prefix}/{jobs}/{{sid}}/control"), post(control))
                .route(
                    &format!("{prefix}/{jobs}/{{sid}}/{{part}}"),
                    get(job_rows).post(job_rows),
                );
        }
    }
    r.with_state(state)
}

async fn login(State(st): State<RestState>, RawQuery(q): RawQuery, body: Bytes) -> Response {
    let p = params(q.as_deref(), &body);
    let (user, pass) = (
        param(&p, "username").unwrap_or_default().to_string(),
        param(&p, "password").unwrap_or_default().to_string(),
    );
    let home = st.app.node.home().clone();
    let name = user.clone();
    // Recent failures for this name hold the answer back (`basic::Failures::wait`: 1 s after a
    // second failure, doubling up to 16 s): guessing passwords is slow.
    let wait = st.failures.wait(&name);
    if !wait.is_zero() {
        tokio::time::sleep(wait).await;
    }
    // Password hashing is slow by design: off the reactor.
    let found = tokio::task::spawn_blocking(move || {
        Users::load(&home).ok().and_then(|u| {
            u.authenticate(&user, &pass)
                .map(|u| (u.name.clone(), u.roles.clone()))
        })
    })
    .await
    .ok()
    .flatten();
    let Some((user, roles)) = found else {
        tracing::warn!(user = %name, "failed REST login");
        st.failures.note(&name);
        tokio::time::sleep(Duration::from_millis(500)).await;
        return error(StatusCode::UNAUTHORIZED, "WARN", "Login failed");
    };
    st.failures.clear(&user);
    let key = st.sessions.create(&user, roles);
    let mut resp = if param(&p, "output_mode") == Some("json") {
        (
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::json!({ "sessionKey": key }).to_string(),
        )
            .into_response()
    } else {
        (
            [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
            format!("<response>\n  <sessionKey>{key}</sessionKey>\n</response>\n"),
        )
            .into_response()
    };
    if param(&p, "cookie") == Some("1") {
        let cookie = format!(
            "splunkd_{}={key}; Path=/; HttpOnly; Max-Age={}",
            st.port,
            SESSION_IDLE.as_secs()
        );
        if let Ok(v) = header::HeaderValue::from_str(&cookie) {
            resp.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    resp
}

pub(crate) fn now_iso() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    format_time(now)
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "lode".into())
}

async fn server_info(RawQuery(q): RawQuery, _caller: Session) -> Response {
    let p = params(q.as_deref(), b"");
    let content: Vec<(&str, String)> = vec![
        ("version", SPLUNK_VERSION.into()),
        ("build", env!("CARGO_PKG_VERSION").into()),
        ("product_type", "lode".into()),
        ("serverName", host_name()),
        ("host", host_name()),
        ("guid", "00000000-0000-0000-0000-000000000000".into()),
        ("master_guid", "00000000-0000-0000-0000-000000000000".into()),
        ("cpu_arch", std::env::consts::ARCH.into()),
        ("os_name", "Linux".into()),
        ("os_build", String::new()),
        ("os_version", String::new()),
        ("mode", "normal".into()),
        ("isFree", "0".into()),
        ("isTrial", "0".into()),
        ("licenseKeys", String::new()),
        ("licenseSignature", String::new()),
        ("licenseState", "OK".into()),
        ("instance_type", "lode".into()),
        (
            "numberOfCores",
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .to_string(),
        ),
    ];
    let updated = now_iso();
    if param(&p, "output_mode") == Some("json") {
        let c: serde_json::Map<String, serde_json::Value> = content
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_str().into()))
            .collect();
        let body = serde_json::json!({
            "links": {}, "origin": "/services/server/info", "updated": updated,
            "generator": {"build": env!("CARGO_PKG_VERSION"), "version": SPLUNK_VERSION},
            "entry": [{"name": "server-info", "id": "/services/server/info/server-info",
                       "updated": updated, "links": {}, "author": "system",
                       "acl": {"app": "", "owner": "system", "sharing": "system"},
                       "content": c}],
            "paging": {"total": 1, "perPage": 30, "offset": 0}, "messages": []
        });
        return (
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    let entry = atom::Entry {
        title: "server-info".into(),
        path: "/services/server/info/server-info".into(),
        author: "system".into(),
        updated: updated.clone(),
        content: content
            .into_iter()
            .map(|(k, v)| (k.to_string(), atom::DictValue::Text(v)))
            .collect(),
    };
    (
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::feed("server-info", "/services/server/info", &updated, &[entry]),
    )
        .into_response()
}

async fn messages(_caller: Session) -> Response {
    (
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::feed("messages", "/services/messages", &now_iso(), &[]),
    )
        .into_response()
}

/// The search request of `p` (`search`, `earliest_time`, `latest_time`); the SPL is checked.
fn search_request(p: &[(String, String)]) -> Result<lode_search::run::SearchRequest, Fail> {
    let q = param(p, "search").unwrap_or_default().trim().to_string();
    if q.is_empty() {
        return Err(fail(StatusCode::BAD_REQUEST, "FATAL", "Empty search."));
    }
    if let Err(e) = lode_spl::parse(&q) {
        return Err(fail(
            StatusCode::BAD_REQUEST,
            "FATAL",
            &format!("Error in 'search' command: {}", e.message),
        ));
    }
    let t = |k: &str| param(p, k).filter(|v| !v.is_empty()).map(str::to_string);
    Ok(lode_search::run::SearchRequest {
        query: q,
        earliest: t("earliest_time"),
        latest: t("latest_time"),
        now: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64),
        tz: lode_time::Zone::Utc,
        explain: false,
        force_scan: false,
    })
}

/// A row's fields in output form.
fn fields(row: &mut lode_search::row::Row) -> Fields {
    row.extract_all();
    row.fields()
        .filter_map(|(k, v)| cell(k, v).map(|c| (k.to_string(), c)))
        .collect()
}

/// Runs `req` for `session` (their indexes only) on the blocking pool, handing rows to `each`
/// (false = stop). A search that runs longer than the user's `srchMaxTime` stops at its next
/// batch of rows, keeping what it found: the answer is then `Some(warning)`.
async fn run_search(
    st: &RestState,
    session: &Session,
    req: lode_search::run::SearchRequest,
    mut each: impl FnMut(Fields) -> bool + Send + 'static,
) -> Result<Option<String>, Fail> {
    let permit = st
        .app
        .limits
        .acquire()
        .await
        .map_err(|e| fail(StatusCode::SERVICE_UNAVAILABLE, "ERROR", &e.to_string()))?;
    let app = st.app.clone();
    let session = session.clone();
    let limit = max_time(&app, &session.roles);
    let res = tokio::task::spawn_blocking(move || {
        let _slot = permit;
        let opts = app.run_options(Some(&session));
        let deadline = limit.map(|d| (Instant::now() + d, d.as_secs()));
        let mut timed_out = None;
        let res = lode_search::run::run_with(&app.index_root, &req, &opts, &mut |rows| {
            for mut r in rows {
                if !each(fields(&mut r)) {
                    return Err(lode_search::SearchError::User("stopped".into()));
                }
            }
            match deadline {
                Some((at, secs)) if Instant::now() >= at => {
                    timed_out = Some(time_limit_message(secs));
                    Err(lode_search::SearchError::User("stopped".into()))
                }
                _ => Ok(()),
            }
        });
        (res, timed_out)
    })
    .await
    .map_err(|e| fail(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()))?;
    match res {
        (Ok(_), _) => Ok(None),
        (Err(lode_search::SearchError::User(m)), timed_out) if m == "stopped" => Ok(timed_out),
        (Err(e), _) => Err(fail(StatusCode::BAD_REQUEST, "FATAL", &e.to_string())),
    }
}

async fn create_job(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    session: Session,
    body: Bytes,
) -> Response {
    let p = params(q.as_deref(), &body);
    match param(&p, "exec_mode").unwrap_or("normal") {
        "oneshot" => {}
        mode @ ("normal" | "blocking") => {
            return start_job(&st, &p, &session, mode == "blocking")
                .await
                .unwrap_or_else(IntoResponse::into_response);
        }
        other => {
            return error(
                StatusCode::BAD_REQUEST,
                "ERROR",
                &format!("Argument \"exec_mode\" has an invalid value: {other}"),
            )
        }
    }
    let (mode, count, offset) = match paging(&p) {
        Ok(x) => x,
        Err(f) => return f.into_response(),
    };
    let req = match search_request(&p) {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    let _slot = match st.quota_slot(&session) {
        Ok(s) => s,
        Err(f) => return f.into_response(),
    };
    let rows = Arc::new(Mutex::new(Vec::new()));
    let sink = rows.clone();
    let mut seen = 0usize;
    let res = run_search(&st, &session, req, move |f| {
        seen += 1;
        if seen > offset {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(f);
        }
        seen < offset + count
    })
    .await;
    let warning = match res {
        Ok(w) => w,
        Err(r) => return r.into_response(),
    };
    let rows = std::mem::take(&mut *rows.lock().unwrap_or_else(|p| p.into_inner()));
    let messages: Vec<(&str, String)> = warning.into_iter().map(|w| ("WARN", w)).collect();
    (
        [(header::CONTENT_TYPE, mode.content_type())],
        output::with_messages(mode, output::render(mode, &rows, offset), &messages),
    )
        .into_response()
}

/// `search/jobs/export`: rows streamed as they are found. JSON: one object per line
/// (`{"preview":false,"offset":N,"result":{…}}`, the last with `"lastrow":true`); CSV: a header
/// then rows; XML: one `<results>` document at the end.
async fn export(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    session: Session,
    body: Bytes,
) -> Response {
    let p = params(q.as_deref(), &body);
    if param(&p, "exec_mode").is_some() {
        return error(
            StatusCode::BAD_REQUEST,
            "ERROR",
            "exec_mode is not valid for search/jobs/export",
        );
    }
    let mode = match Mode::parse(param(&p, "output_mode")) {
        Ok(m) => m,
        Err(e) => return error(StatusCode::BAD_REQUEST, "ERROR", &e),
    };
    let req = match search_request(&p) {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    let slot = match st.quota_slot(&session) {
        Ok(s) => s,
        Err(f) => return f.into_response(),
    };
    if mode == Mode::Xml {
        let rows = Arc::new(Mutex::new(Vec::new()));
        let sink = rows.clone();
        let warning = match run_search(&st, &session, req, move |f| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(f);
            true
        })
        .await
        {
            Ok(w) => w,
            Err(r) => return r.into_response(),
        };
        let rows = std::mem::take(&mut *rows.lock().unwrap_or_else(|p| p.into_inner()));
        let messages: Vec<(&str, String)> = warning.into_iter().map(|w| ("WARN", w)).collect();
        return (
            [(header::CONTENT_TYPE, mode.content_type())],
            output::with_messages(mode, output::render(mode, &rows, 0), &messages),
        )
            .into_response();
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    let st2 = st.clone();
    tokio::spawn(async move {
        let _slot = slot;
        // Rows go out one behind, so that the last can carry "lastrow".
        let held: Arc<Mutex<Option<(usize, Fields)>>> = Arc::default();
        let names: Arc<Mutex<Option<Vec<String>>>> = Arc::default();
        let (h, nm, tx2) = (held.clone(), names.clone(), tx.clone());
        let mut n = 0usize;
        let res = run_search(&st2, &session, req, move |f| {
            let prev = h.lock().unwrap_or_else(|p| p.into_inner()).replace((n, f));
            n += 1;
            match prev {
                Some((o, prev)) => {
                    let mut names = nm.lock().unwrap_or_else(|p| p.into_inner());
                    let text = export_line(mode, o, &prev, false, &mut names);
                    tx2.blocking_send(Bytes::from(text)).is_ok()
                }
                None => true,
            }
        })
        .await;
        let last = held.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((o, f)) = last {
            let text = {
                let mut names = names.lock().unwrap_or_else(|p| p.into_inner());
                export_line(mode, o, &f, true, &mut names)
            };
            let _ = tx.send(Bytes::from(text)).await;
        }
        let message = match res {
            Err(r) => Some(("FATAL", format!("search failed: {}", r.2))),
            Ok(Some(w)) => Some(("WARN", w)),
            Ok(None) => None,
        };
        // A warning goes only where there is a place for it (JSON lines); a failure always.
        if let Some((kind, text)) = message.filter(|(k, _)| *k == "FATAL" || mode == Mode::Json) {
            let line = serde_json::json!({"messages": [{"type": kind, "text": text}]});
            let _ = tx.send(Bytes::from(line.to_string() + "\n")).await;
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, std::io::Error>(b), rx))
    });
    (
        [(header::CONTENT_TYPE, mode.content_type())],
        Body::from_stream(stream),
    )
        .into_response()
}

/// One row of an export stream (`names`: the CSV header's fields, set by the first row).
fn export_line(
    mode: Mode,
    offset: usize,
    f: &Fields,
    last: bool,
    names: &mut Option<Vec<String>>,
) -> String {
    match mode {
        Mode::Json => {
            let mut o = serde_json::json!({
                "preview": false, "offset": offset, "result": output::json_row(f)
            });
            if last {
                o["lastrow"] = true.into();
            }
            o.to_string() + "\n"
        }
        Mode::Csv | Mode::Xml => {
            let mut out = String::new();
            let names = names.get_or_insert_with(|| {
                let n: Vec<String> = f.iter().map(|(k, _)| k.clone()).collect();
                out.push_str(&output::csv_line(n.iter().map(String::as_str)));
                n
            });
            let cells: Vec<String> = names
                .iter()
                .map(|n| {
                    f.iter()
                        .find(|(k, _)| k == n)
                        .map(|(_, c)| c.joined("\n"))
                        .unwrap_or_default()
                })
                .collect();
            out.push_str(&output::csv_line(cells.iter().map(String::as_str)));
            out
        }
    }
}

/// Creates and starts a background job; answers 201 with its sid (after it finished when
/// `blocking`).
async fn start_job(
    st: &RestState,
    p: &[(String, String)],
    session: &Session,
    blocking: bool,
) -> Result<Response, Fail> {
    let user = session.user.as_str();
    let req = search_request(p)?;
    let slot = st.quota_slot(session)?;
    let num = |k: &str| -> Result<Option<u64>, Fail> {
        param(p, k)
            .map(|v| {
                v.trim().parse::<u64>().map_err(|_| {
                    fail(
                        StatusCode::BAD_REQUEST,
                        "ERROR",
                        &format!("Argument \"{k}\" must be a number, not '{v}'"),
                    )
                })
            })
            .transpose()
    };
    let (max_count, ttl) = (num("max_count")?, num("ttl")?);
    let job = st
        .jobs
        .create(&req, user, max_count, ttl)
        .map_err(|e| fail(StatusCode::INTERNAL_SERVER_ERROR, "ERROR", &e.to_string()))?;
    let app = st.app.clone();
    let j = job.clone();
    let session = session.clone();
    let limit = max_time(&st.app, &session.roles);
    let handle = tokio::spawn(async move {
        let _slot = slot;
        match app.limits.acquire().await {
            Ok(permit) => {
                let watchdog = limit.map(|d| tokio::spawn(time_limit(j.clone(), d)));
                let _ = tokio::task::spawn_blocking(move || {
                    let _slot = permit;
                    let opts = app.run_options(Some(&session));
                    jobs::run(&j, &app, &req, &opts, fields);
                })
                .await;
                if let Some(w) = watchdog {
                    w.abort();
                }
            }
            Err(e) => {
                let _ = j.control("cancel", None);
                tracing::warn!(error = %e, sid = %j.sid, "search job not admitted");
            }
        }
    });
    if blocking {
        let _ = handle.await;
    }
    let body = if param(p, "output_mode") == Some("json") {
        (
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::json!({ "sid": job.sid }).to_string(),
        )
    } else {
        (
            [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n\t<sid>{}</sid>\n</response>\n",
                atom::escape(&job.sid)
            ),
        )
    };
    Ok((StatusCode::CREATED, body).into_response())
}

/// The user's `srchMaxTime` for a job: once it ran `d`, it is finalized (it stops at its next
/// batch of rows and keeps what it found) with a warning in its messages, as splunkd does.
async fn time_limit(job: Arc<jobs::Job>, d: Duration) {
    tokio::time::sleep(d).await;
    job.auto_finalize(&time_limit_message(d.as_secs()));
}

fn iso_us(us: i64) -> String {
    format_time(us as f64 / 1e6)
}

/// The links of a job entry.
fn job_links(sid: &str) -> Vec<(String, String)> {
    let base = format!("/services/search/jobs/{sid}");
    let mut v = vec![("alternate".to_string(), base.clone())];
    for rel in [
        "search.log",
        "events",
        "results",
        "results_preview",
        "control",
    ] {
        v.push((rel.to_string(), format!("{base}/{rel}")));
    }
    v
}

/// A job's status as `(key, text, JSON)` triples: XML wants "1"/"0" and strings, JSON real types.
fn job_content(
    j: &jobs::Job,
    p: &jobs::Progress,
) -> Vec<(&'static str, String, serde_json::Value)> {
    use serde_json::Value as V;
    let b = |x: bool| (if x { "1" } else { "0" }.to_string(), V::Bool(x));
    let n = |x: u64| (x.to_string(), V::from(x));
    let s = |x: &str| (x.to_string(), V::from(x));
    let done = matches!(p.dispatch, jobs::Dispatch::Done | jobs::Dispatch::Failed);
    let progress = if done { 1.0 } else { 0.0 };
    let stages: Vec<(&'static str, (String, V))> = vec![
        ("sid", s(&j.sid)),
        ("dispatchState", s(p.dispatch.name())),
        ("isDone", b(done)),
        ("isFailed", b(p.dispatch == jobs::Dispatch::Failed)),
        ("isFinalized", b(p.finalized)),
        ("isPaused", b(p.dispatch == jobs::Dispatch::Paused)),
        ("isSaved", b(false)),
        ("isSavedSearch", b(false)),
        ("isZombie", b(false)),
        ("isRealTimeSearch", b(false)),
        ("isRemoteTimeline", b(false)),
        ("isPreviewEnabled", b(false)),
        ("isTimeCursored", b(true)),
        (
            "doneProgress",
            (format!("{progress:.1}"), V::from(progress)),
        ),
        ("eventCount", n(p.event_count)),
        (
            "eventAvailableCount",
            n(if p.transforming { 0 } else { p.result_count }),
        ),
        ("eventFieldCount", n(0)),
        ("eventIsStreaming", b(!p.transforming)),
        ("eventIsTruncated", b(false)),
        ("eventSearch", s(&j.search)),
        ("eventSorting", s("desc")),
        ("resultCount", n(p.result_count)),
        ("resultPreviewCount", n(p.result_count)),
        ("resultIsStreaming", b(!p.transforming)),
        ("scanCount", n(p.scan_count)),
        ("dropCount", n(0)),
        (
            "diskUsage",
            n(std::fs::metadata(j.dir.join("results.jsonl")).map_or(0, |m| m.len())),
        ),
        (
            "runDuration",
            (format!("{:.3}", p.run_duration), V::from(p.run_duration)),
        ),
        ("ttl", n(p.ttl)),
        ("priority", n(5)),
        ("numPreviews", n(0)),
        ("statusBuckets", n(0)),
        ("cursorTime", s("1970-01-01T00:00:00.000+00:00")),
        ("earliestTime", s(j.earliest.as_deref().unwrap_or(""))),
        ("latestTime", s(j.latest.as_deref().unwrap_or(""))),
        ("delegate", s("")),
        ("keywords", s("")),
        ("label", s("")),
        ("remoteSearch", s(&jobs::remote_search(j, p))),
        ("reportSearch", s(&jobs::report_search(p))),
        ("searchProviders", s("")),
        ("search", s(&j.search)),
    ];
    stages.into_iter().map(|(k, (t, v))| (k, t, v)).collect()
}

fn acl(owner: &str) -> Vec<(String, atom::DictValue)> {
    use atom::DictValue as D;
    vec![
        ("owner".into(), D::Text(owner.into())),
        ("app".into(), D::Text("search".into())),
        ("sharing".into(), D::Text("global".into())),
        ("modifiable".into(), D::Text("1".into())),
        (
            "perms".into(),
            D::Dict(vec![
                ("read".into(), D::List(vec![owner.into()])),
                ("write".into(), D::List(vec![owner.into()])),
            ]),
        ),
    ]
}

fn job_entry_xml(j: &jobs::Job, p: &jobs::Progress, root: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if root {
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<entry xmlns=\"http://www.w3.org/2005/Atom\" xmlns:s=\"http://dev.splunk.com/ns/rest\" xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\">\n");
    } else {
        out.push_str("<entry>\n");
    }
    let _ = write!(
        out,
        "<title>{}</title>\n<id>/services/search/jobs/{}</id>\n<updated>{}</updated>\n<published>{}</published>\n",
        atom::escape(&j.search),
        atom::escape(&j.sid),
        iso_us(p.updated_us),
        iso_us(j.published_us)
    );
    for (rel, href) in job_links(&j.sid) {
        let _ = writeln!(
            out,
            "<link href=\"{}\" rel=\"{rel}\"/>",
            atom::escape(&href)
        );
    }
    let _ = writeln!(
        out,
        "<author><name>{}</name></author>",
        atom::escape(&j.owner)
    );
    out.push_str("<content type=\"text/xml\">\n<s:dict>\n");
    for (k, t, _) in job_content(j, p) {
        let _ = writeln!(out, "<s:key name=\"{k}\">{}</s:key>", atom::escape(&t));
    }
    out.push_str("<s:key name=\"messages\"><s:dict>");
    for (kind, text) in &p.messages {
        let _ = write!(
            out,
            "<s:key name=\"{}\"><s:list><s:item>{}</s:item></s:list></s:key>",
            kind.to_lowercase(),
            atom::escape(text)
        );
    }
    out.push_str("</s:dict></s:key>\n");
    out.push_str(&jobs::performance_xml(p));
    out.push_str("<s:key name=\"eai:acl\">");
    let mut acl_xml = String::new();
    atom::write_dict(&mut acl_xml, &acl(&j.owner));
    out.push_str(&acl_xml);
    out.push_str("</s:key>\n</s:dict>\n</content>\n</entry>\n");
    out
}

fn job_entry_json(j: &jobs::Job, p: &jobs::Progress) -> serde_json::Value {
    let content: serde_json::Map<String, serde_json::Value> = job_content(j, p)
        .into_iter()
        .map(|(k, _, v)| (k.to_string(), v))
        .collect();
    let links: serde_json::Map<String, serde_json::Value> = job_links(&j.sid)
        .into_iter()
        .map(|(k, v)| (k, v.into()))
        .collect();
    let messages: Vec<serde_json::Value> = p
        .messages
        .iter()
        .map(|(t, m)| serde_json::json!({"type": t, "text": m}))
        .collect();
    serde_json::json!({
        "name": j.search, "id": format!("/services/search/jobs/{}", j.sid),
        "updated": iso_us(p.updated_us), "published": iso_us(j.published_us),
        "links": links, "author": j.owner,
        "acl": {"owner": j.owner, "app": "search", "sharing": "global", "modifiable": true,
                "perms": {"read": [j.owner], "write": [j.owner]}, "ttl": p.ttl.to_string()},
        "content": serde_json::Value::Object({
            let mut c = content;
            c.insert("messages".into(), messages.into());
            jobs::add_inspector_json(p, &mut c);
            c
        }),
    })
}

fn feed_json(entries: Vec<serde_json::Value>) -> Response {
    let total = entries.len();
    let body = serde_json::json!({
        "links": {}, "origin": "/services/search/jobs", "updated": now_iso(),
        "generator": {"build": env!("CARGO_PKG_VERSION"), "version": SPLUNK_VERSION},
        "entry": entries, "paging": {"total": total, "perPage": 0, "offset": 0}, "messages": []
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn list_jobs(
    State(st): State<RestState>,
    RawQuery(q): RawQuery,
    Session { user, .. }: Session,
) -> Response {
    let p = params(q.as_deref(), b"");
    let count = param(&p, "count")
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(0);
    let offset = param(&p, "offset")
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(0);
    let list = st.jobs.list(&user);
    let take = if count == 0 { usize::MAX } else { count };
    let page: Vec<_> = list.into_iter().skip(offset).take(take).collect();
    if param(&p, "output_mode") == Some("json") {
        return feed_json(
            page.iter()
                .map(|j| job_entry_json(j, &j.progress()))
                .collect(),
        );
    }
    let mut body = atom::feed("jobs", "/services/search/jobs", &now_iso(), &[]);
    let entries: String = page
        .iter()
        .map(|j| job_entry_xml(j, &j.progress(), false))
        .collect();
    body = body.replace(
        "<opensearch:totalResults>0</opensearch:totalResults>",
        &format!(
            "<opensearch:totalResults>{}</opensearch:totalResults>",
            page.len()
        ),
    );
    body = body.replace("</feed>\n", &format!("{entries}</feed>\n"));
    ([(header::CONTENT_TYPE, "text/xml; charset=UTF-8")], body).into_response()
}

/// The job `{sid}` of the path, if `user` owns it; else the 404 answer.
fn caller_job(
    st: &RestState,
    user: &str,
    path: &HashMap<String, String>,
) -> Result<(Arc<jobs::Job>, String), Fail> {
    let sid = path.get("sid").cloned().unwrap_or_default();
    match st.jobs.get(&sid, user) {
        Some(j) => Ok((j, sid)),
        None => Err(no_job(&sid)),
    }
}

/// `output_mode`, `count` (default 100; `0` = all up to [`MAX_RESULT_ROWS`]) and `offset` of a
/// result request.
fn paging(p: &[(String, String)]) -> Result<(Mode, usize, usize), Fail> {
    let mode = Mode::parse(param(p, "output_mode"))
        .map_err(|e| fail(StatusCode::BAD_REQUEST, "ERROR", &e))?;
    let count = match param(p, "count").map(str::parse::<usize>) {
        None => 100,
        Some(Ok(0)) => MAX_RESULT_ROWS,
        Some(Ok(n)) => n.min(MAX_RESULT_ROWS),
        Some(Err(_)) => {
            return Err(fail(
                StatusCode::BAD_REQUEST,
                "ERROR",
                "count must be a number",
            ))
        }
    };
    let offset = param(p, "offset")
        .and_then(|o| o.parse().ok())
        .unwrap_or(0usize);
    Ok((mode, count, offset))
}

fn no_job(sid: &str) -> Fail {
    fail(
        StatusCode::NOT_FOUND,
        "FATAL",
        &format!("Unknown sid: {sid}"),
    )
}

async fn job_status(
    State(st): State<RestState>,
    axum::extract::Path(path): axum::extract::Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    Session { user, .. }: Session,
) -> Response {
    let (j, _) = match caller_job(&st, &user, &path) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let p = params(q.as_deref(), b"");
    let prog = j.progress();
    if param(&p, "output_mode") == Some("json") {
        return feed_json(vec![job_entry_json(&j, &prog)]);
    }
    (
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        job_entry_xml(&j, &prog, true),
    )
        .into_response()
}

async fn delete_job(
    State(st): State<RestState>,
    axum::extract::Path(path): axum::extract::Path<HashMap<String, String>>,
    Session { user, .. }: Session,
) -> Response {
    let sid = match caller_job(&st, &user, &path) {
        Ok((_, sid)) => sid,
        Err(r) => return r.into_response(),
    };
    st.jobs.remove(&sid);
    (
        [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
        atom::messages("INFO", "Search job cancelled."),
    )
        .into_response()
}

async fn control(
    State(st): State<RestState>,
    axum::extract::Path(path): axum::extract::Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    Session { user, .. }: Session,
    body: Bytes,
) -> Response {
    let (j, sid) = match caller_job(&st, &user, &path) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let p = params(q.as_deref(), &body);
    let action = param(&p, "action").unwrap_or_default();
    match j.control(action, param(&p, "ttl")) {
        Ok(text) => {
            if action == "cancel" {
                st.jobs.remove(&sid);
            }
            (
                [(header::CONTENT_TYPE, "text/xml; charset=UTF-8")],
                atom::messages("INFO", text),
            )
                .into_response()
        }
        Err(e) => error(StatusCode::BAD_REQUEST, "ERROR", &e),
    }
}

/// `results`, `results_preview`, `events` of a job (`count` default 100, `0` = all up to
/// 50,000; `offset`; `output_mode`). `results` of an unfinished job: 204.
async fn job_rows(
    State(st): State<RestState>,
    axum::extract::Path(path): axum::extract::Path<HashMap<String, String>>,
    RawQuery(q): RawQuery,
    Session { user, .. }: Session,
    body: Bytes,
) -> Response {
    let (j, _) = match caller_job(&st, &user, &path) {
        Ok(x) => x,
        Err(r) => return r.into_response(),
    };
    let part = path.get("part").cloned().unwrap_or_default();
    let p = params(q.as_deref(), &body);
    let (mode, count, offset) = match paging(&p) {
        Ok(x) => x,
        Err(f) => return f.into_response(),
    };
    let prog = j.progress();
    let rows = match part.as_str() {
        "results" if !j.is_done() => return StatusCode::NO_CONTENT.into_response(),
        "results" | "results_preview" => j.rows(offset, count),
        // The events of a transforming search are not kept (statusBuckets is 0).
        "events" if prog.transforming => Vec::new(),
        "events" => j.rows(offset, count),
        "summary" | "timeline" => {
            let rows = j.rows(0, MAX_RESULT_ROWS);
            let json = mode == Mode::Json;
            let body = if part == "summary" {
                let top = param(&p, "top_count")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(10usize);
                summary::summary(&rows, top, json)
            } else {
                summary::timeline(&rows, json)
            };
            let ct = if json {
                "application/json"
            } else {
                "text/xml; charset=UTF-8"
            };
            return ([(header::CONTENT_TYPE, ct)], body).into_response();
        }
        "search.log" => {
            let text = format!(
                "search: {}\ndispatchState: {}\nrunDuration: {:.3}\n",
                j.search,
                prog.dispatch.name(),
                prog.run_duration
            );
            return ([(header::CONTENT_TYPE, "text/plain")], text).into_response();
        }
        other => {
            return error(
                StatusCode::NOT_FOUND,
                "ERROR",
                &format!("Unknown job endpoint: {other}"),
            )
        }
    };
    (
        [(header::CONTENT_TYPE, mode.content_type())],
        output::render(mode, &rows, offset),
    )
        .into_response()
}
