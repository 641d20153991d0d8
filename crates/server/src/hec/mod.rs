//! The HTTP Event Collector, wire-compatible with Splunk's (`../shared/SPLUNK.md` §1,
//! docs/API.md): `/services/collector[/event][/1.0]`, `/services/collector/raw[/1.0]`,
//! `/services/collector/ack`, `/services/collector/health[/1.0]`.
//!
//! Tokens come from `etc/apps/splunk_httpinput/local/inputs.conf` ([`lode_node::hec`]), re-read
//! when the file changes. A request is answered only once its events are durable, except with
//! indexer acknowledgement, where it is answered at once with an `ackId` that `/ack` reports true
//! once they are. Request bodies being written are bounded ([`IN_FLIGHT_BYTES`]): beyond, the
//! answer is 503 code 9 "Server is busy", which every client retries.

pub mod ack;
pub mod events;
pub mod reply;

use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use lode_node::hec::{HecConfig, HecToken};
use lode_node::{Home, Node, NodeError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use ack::{Acks, Full};
use reply::{Code, Reply};

/// Most request-body bytes being parsed and written at once.
pub const IN_FLIGHT_BYTES: usize = 64 * 1024 * 1024;
/// Longest a collector request may take (reading the body included).
pub const HEC_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// How often the token file's modification time is checked.
const RELOAD_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// The token configuration as last read.
struct Loaded {
    modified: Option<SystemTime>,
    checked: Instant,
    config: Arc<HecConfig>,
}

struct Inner {
    node: Arc<Node>,
    home: Home,
    /// `host` of events that name none (and whose token names none).
    host: String,
    loaded: Mutex<Loaded>,
    acks: Mutex<Acks>,
    /// KiB of request bodies in flight.
    budget: Arc<Semaphore>,
}

/// What the collector's handlers share.
#[derive(Clone)]
pub struct HecState(Arc<Inner>);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

const BUDGET_KIB: usize = IN_FLIGHT_BYTES / 1024;

impl HecState {
    /// The collector of `node`; `host` is the default `host` of events (Splunk uses the
    /// server's `hostname:port`). Fails if the token file is malformed.
    pub fn new(node: Arc<Node>, host: String) -> Result<HecState, NodeError> {
        let home = node.home().clone();
        let config = HecConfig::load(&home)?;
        Ok(HecState(Arc::new(Inner {
            node,
            host,
            loaded: Mutex::new(Loaded {
                modified: lode_node::hec::modified(&home),
                checked: Instant::now(),
                config: Arc::new(config),
            }),
            home,
            acks: Mutex::new(Acks::default()),
            budget: Arc::new(Semaphore::new(BUDGET_KIB)),
        })))
    }

    /// The current tokens, re-read if the file changed (a malformed file keeps the old ones and
    /// is logged).
    fn config(&self) -> Arc<HecConfig> {
        let mut l = lock(&self.0.loaded);
        if l.checked.elapsed() >= RELOAD_EVERY {
            l.checked = Instant::now();
            let m = lode_node::hec::modified(&self.0.home);
            if m != l.modified {
                match HecConfig::load(&self.0.home) {
                    Ok(c) => {
                        l.config = Arc::new(c);
                        l.modified = m;
                        tracing::info!("HEC tokens reloaded");
                    }
                    Err(e) => tracing::error!(error = %e, "HEC token file not reloaded"),
                }
            }
        }
        l.config.clone()
    }

    /// Re-reads the token file now (after a change made in this process).
    pub fn reload(&self) {
        let mut l = lock(&self.0.loaded);
        l.checked = Instant::now() - RELOAD_EVERY;
        drop(l);
        self.config();
    }

    /// Reserves budget for a body of `len` bytes, or answers 503 code 9.
    fn admit(&self, len: usize) -> Result<OwnedSemaphorePermit, Reply> {
        let kib = (len / 1024).clamp(1, BUDGET_KIB) as u32;
        self.0
            .budget
            .clone()
            .try_acquire_many_owned(kib)
            .map_err(|_| Code::ServerBusy.into())
    }
}

/// The collector's routes; unknown paths answer 404 in HEC's JSON form.
pub fn router(state: HecState) -> Router {
    Router::new()
        .route("/services/collector", post(event))
        .route("/services/collector/event", post(event))
        .route("/services/collector/event/1.0", post(event))
        .route("/services/collector/raw", post(raw))
        .route("/services/collector/raw/1.0", post(raw))
        .route("/services/collector/ack", post(ack))
        .route("/services/collector/health", get(health))
        .route("/services/collector/health/1.0", get(health))
        .fallback(not_found)
        .with_state(state)
        // A sender that stalls mid-body is cut off (408) instead of holding a connection.
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            HEC_TIMEOUT,
        ))
}

async fn not_found() -> Reply {
    Reply::status(
        StatusCode::NOT_FOUND,
        404,
        "The requested URL was not found on this server.",
    )
}

type Params = Query<HashMap<String, String>>;

/// The token of a request: `Authorization: Splunk <token>`, Basic auth with the token as the
/// password, or `?token=` where the token allows it.
fn authenticate(
    cfg: &HecConfig,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<HecToken, Reply> {
    let secret = match headers.get(header::AUTHORIZATION) {
        Some(v) => {
            let v = v.to_str().map_err(|_| Code::InvalidAuthorization)?.trim();
            let (scheme, rest) = v.split_once(' ').ok_or(Code::InvalidAuthorization)?;
            let rest = rest.trim();
            if scheme.eq_ignore_ascii_case("splunk") {
                rest.to_string()
            } else if scheme.eq_ignore_ascii_case("basic") {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(rest)
                    .map_err(|_| Code::InvalidAuthorization)?;
                let text = String::from_utf8(raw).map_err(|_| Code::InvalidAuthorization)?;
                let (_, pass) = text.split_once(':').ok_or(Code::InvalidAuthorization)?;
                pass.to_string()
            } else {
                return Err(Code::InvalidAuthorization.into());
            }
        }
        None => match q.get("token") {
            Some(t) => {
                let tok = cfg.by_token(t).ok_or(Code::InvalidToken)?;
                if !tok.allow_query_string_auth {
                    return Err(Code::QueryStringAuthDisabled.into());
                }
                t.clone()
            }
            None => return Err(Code::TokenRequired.into()),
        },
    };
    let tok = cfg.by_token(&secret).ok_or(Code::InvalidToken)?;
    if tok.disabled {
        return Err(Code::TokenDisabled.into());
    }
    Ok(tok.clone())
}

/// The request's channel (header or `?channel=`): required and a GUID when the token uses
/// acknowledgement.
fn channel(
    tok: &HecToken,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<Option<String>, Reply> {
    let ch = headers
        .get("x-splunk-request-channel")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| q.get("channel").cloned());
    if !tok.use_ack {
        return Ok(None);
    }
    let ch = ch.ok_or(Code::ChannelMissing)?;
    if uuid::Uuid::parse_str(ch.trim()).is_err() {
        return Err(Code::InvalidChannel.into());
    }
    Ok(Some(ch.trim().to_ascii_lowercase()))
}

/// The body, gunzipped when `Content-Encoding: gzip`, at most `limit` bytes either way.
async fn read_body(headers: &HeaderMap, body: Body, limit: u64) -> Result<Bytes, Reply> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let too_large = || {
        Reply::status(
            StatusCode::PAYLOAD_TOO_LARGE,
            413,
            format!("Content too large (maximum is {limit} bytes)"),
        )
    };
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| too_large())?;
    let encoding = headers
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match encoding.as_str() {
        "" | "identity" => Ok(bytes),
        "gzip" | "x-gzip" => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .take(limit as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|_| Reply::new(Code::InvalidDataFormat))?;
            if out.len() > limit {
                return Err(too_large());
            }
            Ok(out.into())
        }
        other => Err(Reply::status(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            415,
            format!("Unsupported Content-Encoding '{other}' (gzip is supported)"),
        )),
    }
}

fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

fn node_failure(e: NodeError) -> Reply {
    match e {
        NodeError::UnknownIndex(_) => Code::IncorrectIndex.into(),
        other => {
            tracing::error!(error = %other, "HEC write failed");
            Code::InternalError.into()
        }
    }
}

/// Runs `write` on the blocking pool: awaited without acknowledgement; with it, the answer
/// carries a new `ackId` at once and `write`'s outcome is recorded for `/ack`.
async fn finish(
    st: &HecState,
    channel: Option<String>,
    permit: OwnedSemaphorePermit,
    write: impl FnOnce() -> Result<(), NodeError> + Send + 'static,
) -> Result<Reply, Reply> {
    match channel {
        None => {
            let res = tokio::task::spawn_blocking(move || {
                let r = write();
                drop(permit);
                r
            })
            .await
            .map_err(|_| Reply::new(Code::InternalError))?;
            res.map_err(node_failure)?;
            Ok(Code::Success.into())
        }
        Some(ch) => {
            let id = lock(&st.0.acks)
                .start(&ch, Instant::now())
                .map_err(|f| match f {
                    Full::Channels | Full::Pending => Reply::new(Code::AckChannelFull),
                })?;
            let st2 = st.clone();
            tokio::task::spawn_blocking(move || {
                let ok = match write() {
                    Ok(()) => true,
                    Err(e) => {
                        tracing::error!(error = %e, channel = %ch, ack_id = id, "HEC write failed");
                        false
                    }
                };
                drop(permit);
                lock(&st2.0.acks).finish(&ch, id, ok);
            });
            Ok(Reply {
                ack_id: Some(id),
                ..Reply::new(Code::Success)
            })
        }
    }
}

fn answer(r: Result<Reply, Reply>) -> Response {
    match r {
        Ok(r) | Err(r) => r.into_response(),
    }
}

async fn event(
    State(st): State<HecState>,
    Query(q): Params,
    headers: HeaderMap,
    body: Body,
) -> Response {
    answer(event_inner(&st, &q, &headers, body).await)
}

async fn event_inner(
    st: &HecState,
    q: &HashMap<String, String>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Reply, Reply> {
    let cfg = st.config();
    let tok = authenticate(&cfg, headers, q)?;
    let channel = channel(&tok, headers, q)?;
    let body = read_body(headers, body, cfg.settings.max_content_length).await?;
    let permit = st.admit(body.len())?;
    let node = st.0.node.clone();
    let host = st.0.host.clone();
    // Parse on the blocking pool too: a body may hold hundreds of megabytes.
    let parsed = tokio::task::spawn_blocking(move || {
        let exists = |i: &str| node.has_index(i);
        let d = events::Defaults {
            token: &tok,
            host: &host,
            now_us: now_us(),
            index_exists: &exists,
        };
        events::parse(&body, &d)
    })
    .await
    .map_err(|_| Reply::new(Code::InternalError))??;
    let auto_time = q
        .get("auto_extract_timestamp")
        .is_some_and(|v| lode_conf::parse_bool(v) == Some(true));
    let (events, untimed): (Vec<_>, Vec<bool>) = parsed.into_iter().unzip();
    let find_time = if auto_time { untimed } else { Vec::new() };
    let node = st.0.node.clone();
    finish(st, channel, permit, move || {
        node.write_events_timed(events, &find_time).map(|_| ())
    })
    .await
}

async fn raw(
    State(st): State<HecState>,
    Query(q): Params,
    headers: HeaderMap,
    body: Body,
) -> Response {
    answer(raw_inner(&st, &q, &headers, body).await)
}

async fn raw_inner(
    st: &HecState,
    q: &HashMap<String, String>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Reply, Reply> {
    let cfg = st.config();
    let tok = authenticate(&cfg, headers, q)?;
    let channel = channel(&tok, headers, q)?;
    let param = |k: &str| q.get(k).filter(|v| !v.is_empty()).cloned();
    let index = tok
        .index_for(param("index").as_deref())
        .map_err(|_| Reply::new(Code::IncorrectIndex))?;
    if !st.0.node.has_index(&index) {
        return Err(Code::IncorrectIndex.into());
    }
    let body = read_body(headers, body, cfg.settings.max_content_length).await?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(Code::NoData.into());
    }
    let permit = st.admit(body.len())?;
    let source = param("source")
        .or_else(|| tok.source.clone())
        .unwrap_or_else(|| format!("http:{}", tok.name));
    let sourcetype = param("sourcetype")
        .or_else(|| tok.sourcetype.clone())
        .unwrap_or_else(|| {
            let head = &body[..body.len().min(8192)];
            lode_ingest::guess_sourcetype(&source, head)
        });
    let meta = lode_ingest::SourceMeta {
        host: param("host")
            .or_else(|| tok.host.clone())
            .unwrap_or_else(|| st.0.host.clone()),
        source,
        sourcetype,
        index,
    };
    let node = st.0.node.clone();
    finish(st, channel, permit, move || {
        node.ingest(meta, &mut &body[..], &mut |_| {}).map(|_| ())
    })
    .await
}

#[derive(serde::Deserialize)]
struct AckRequest {
    acks: Vec<u64>,
}

async fn ack(
    State(st): State<HecState>,
    Query(q): Params,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let r = async {
        let cfg = st.config();
        let tok = authenticate(&cfg, &headers, &q)?;
        if !tok.use_ack {
            return Err(Reply::new(Code::AckDisabled));
        }
        let ch = channel(&tok, &headers, &q)?.ok_or(Code::ChannelMissing)?;
        let body = read_body(&headers, body, 1024 * 1024).await?;
        let req: AckRequest =
            serde_json::from_slice(&body).map_err(|_| Reply::new(Code::InvalidDataFormat))?;
        let status = lock(&st.0.acks).query(&ch, &req.acks, Instant::now());
        let acks: serde_json::Map<String, serde_json::Value> = status
            .into_iter()
            .map(|(id, done)| (id.to_string(), done.into()))
            .collect();
        Ok(Json(serde_json::json!({ "acks": acks })).into_response())
    }
    .await;
    match r {
        Ok(resp) => resp,
        Err(e) => e.into_response(),
    }
}

/// 200 code 17 when requests are admitted, 503 code 18 when the in-flight budget is spent. No
/// token needed (clients probe without one).
async fn health(State(st): State<HecState>) -> Reply {
    if st.0.budget.available_permits() == 0 {
        Reply::new(Code::QueuesFull)
    } else {
        Reply::new(Code::Healthy)
    }
}
