//! Lode's HTTP server over one node.
//!
//! Given a [`lode_node::Node`], [`app`] returns the axum router: `GET /lode/health`,
//! `GET|POST /lode/search` (streams result rows as JSON lines), `POST /lode/ingest` (streams the
//! body through the ingestion pipeline and answers once the events are durable) and
//! `POST /lode/roll`. [`hec`] is Splunk's HTTP Event Collector, served on its own listener
//! ([`tls::serve`]); the Splunk REST search API comes later.
//! [`error::ApiError`] is the one place errors become HTTP responses.

pub mod collect;
pub mod error;
pub mod format;
pub mod hec;
pub mod internal;
pub mod limits;
pub mod rest;
pub mod routes;
pub mod tls;
pub mod web;

pub use rustls;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;

/// Largest ingest request body, in bytes.
pub const MAX_INGEST_BODY: usize = 1 << 30;
/// Longest any API request may take to produce its response headers (a search's streamed rows
/// may take longer), before the server answers 408.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(600);

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The node whose pipeline takes ingested data.
    pub node: Arc<lode_node::Node>,
    /// `$LODE_HOME/var/lib/lode`, for searches.
    pub index_root: PathBuf,
    /// Admission of concurrent searches.
    pub limits: Arc<limits::SearchLimiter>,
}

impl AppState {
    /// The state for `node` with the search limits of its server.conf (`[search]
    /// max_concurrent`, `max_queued`). Also gives the process-wide warm-bucket reader cache and
    /// decompressed-slice cache their budgets (`[search] bucket_cache_mb`, `slice_cache_mb`): a
    /// server's searches share opened buckets and recently read raw text. Both keep within
    /// what the process's memory target (`process_memory_mb`) leaves them
    /// (`lode_store::memory::watch`).
    pub fn new(node: Arc<lode_node::Node>, index_root: PathBuf) -> AppState {
        let s = node.server_settings();
        let mib = |n: u64| n.saturating_mul(1024 * 1024);
        lode_search::cache::configure(mib(s.search_bucket_cache_mb));
        lode_store::slice_cache::configure(mib(s.search_slice_cache_mb));
        lode_store::memory::watch(
            mib(s.search_process_memory_mb),
            mib(s.search_bucket_cache_mb).saturating_add(mib(s.search_slice_cache_mb)),
            caches_kept_within,
        );
        let limits = limits::SearchLimiter::new(s.search_max_concurrent, s.search_max_queued);
        AppState {
            node,
            index_root,
            limits: Arc::new(limits),
        }
    }
}

/// Brings the two process-wide search caches within their budgets now; returns the bytes they
/// hold.
fn caches_kept_within() -> u64 {
    lode_search::cache::global().keep_within() + lode_store::slice_cache::global().keep_within()
}

impl AppState {
    /// How this server runs a search for `caller`: its `[search]` settings, `$LODE_HOME/etc`,
    /// and the indexes the caller's roles may search (`None`: the local secret's unrestricted
    /// access).
    ///
    /// `collect` writes only into the indexes the caller's roles may write
    /// (`lode.writeIndexesAllowed`): the sink carries those rights ([`collect::Writer`]).
    pub fn run_options(&self, caller: Option<&rest::Session>) -> lode_search::run::RunOptions {
        let rights = caller.map(|s| (s, rest::roles::rights(self.node.home(), &s.roles)));
        let access = rights.as_ref().map(|(_, e)| rest::roles::index_access(e));
        let writer = rights.as_ref().map(|(s, e)| collect::Writer {
            user: s.user.clone(),
            access: rest::roles::write_access(e),
        });
        lode_search::run::RunOptions {
            batch_search_max_pipeline: self.node.server_settings().search_batch_max_pipeline,
            etc_dir: Some(self.node.home().etc()),
            access,
            collect: Some(collect::handle(self.node.clone(), writer)),
            ..Default::default()
        }
    }
}

/// The router, testable without a socket.
pub fn app(state: AppState) -> Router {
    routes::router().with_state(state)
}

/// The whole API listener as `lode serve` runs it: Lode's own routes behind
/// [`rest::require_auth`] plus Splunk's REST API.
pub fn api(state: AppState, rest: rest::RestState) -> Router {
    app(state)
        .layer(axum::middleware::from_fn_with_state(
            rest.clone(),
            rest::require_auth,
        ))
        .merge(rest::router(rest))
        // A request that has not produced its response headers by then gets 408.
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            SEARCH_TIMEOUT,
        ))
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains in-flight requests.
/// Connections are `TCP_NODELAY`: a response goes out as headers and body chunks, and with
/// Nagle's algorithm each small search answer would wait for the client's delayed ACK (~40 ms).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_router(listener, app(state), shutdown).await
}

/// [`serve`] for any router (the API with the REST routes merged in).
pub async fn serve_router(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "cannot set TCP_NODELAY");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}

/// A future resolving on Ctrl-C or SIGTERM. The handlers are installed when this is called,
/// not when the future is first polled: a caller that announces it is ready afterwards never
/// dies of a SIGTERM sent right after (the default action) instead of shutting down cleanly.
/// Must be called within a tokio runtime.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).ok();
    let mut int = signal(SignalKind::interrupt()).ok();
    async move {
        let term = async {
            match &mut term {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let int = async {
            match &mut int {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = int => {},
            _ = term => {},
        }
    }
}
