//! `lode serve`: holds the home, runs the pipeline and the HTTP API until Ctrl-C or SIGTERM,
//! then drains requests, rolls hot buckets and exits.

use std::sync::Arc;
use std::time::Duration;

use lode_node::lock::{self, Holder};
use lode_node::{Home, Node};

use crate::cli::ServeArgs;
use crate::exit::{CliError, CliResult, BUSY, FAILURE};

/// How often idle hot buckets are checked for rolling.
const IDLE_CHECK: Duration = Duration::from_secs(10);

pub fn run(home: &Home, args: ServeArgs) -> CliResult {
    serve(home, args.listen, |_| {})
}

/// Serves `home`; `on_ready` is called with the base URL once the socket listens.
pub fn serve(home: &Home, listen: Option<String>, on_ready: impl FnOnce(&str)) -> CliResult {
    home.ensure_layout().map_err(|e| {
        CliError::new(
            FAILURE,
            format!("cannot create {}: {e}", home.root().display()),
        )
    })?;
    let lock = match lock::acquire(home)? {
        Holder::Acquired(l) => l,
        Holder::Server(info) => {
            return Err(CliError::new(
                BUSY,
                format!(
                    "a server already runs on {} at {}",
                    home.root().display(),
                    info.url
                ),
            ))
        }
        Holder::OtherWriter => {
            return Err(CliError::new(
                BUSY,
                format!(
                    "another lode process is writing to {}",
                    home.root().display()
                ),
            ))
        }
    };
    let node = Node::open(home).map_err(super::node_error)?;
    super::print_warnings(node.warnings());
    for (index, r) in node.recovery() {
        if r.replayed_events > 0 || r.truncated_bytes > 0 || !r.quarantined.is_empty() {
            eprintln!(
                "lode: recovered index {index}: {} events replayed from the write-ahead log, {} torn bytes cut, {} buckets quarantined",
                r.replayed_events,
                r.truncated_bytes,
                r.quarantined.len()
            );
        }
    }
    let listen = listen.unwrap_or_else(|| node.server_settings().listen.clone());
    let node = Arc::new(node);
    let forwarder = lode_server::internal::start(node.clone(), super::add::local_host());
    let state = lode_server::AppState::new(node.clone(), home.index_root());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(FAILURE, format!("cannot start the runtime: {e}")))?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .map_err(|e| CliError::new(FAILURE, format!("cannot listen on {listen}: {e}")))?;
        let addr = listener.local_addr()?;
        let url = format!("http://{addr}");
        lock.publish_server(&url)?;
        eprintln!(
            "lode: serving {} at {url} (Ctrl-C to stop)",
            home.root().display()
        );
        tracing::info!(url = %url, home = %home.root().display(), "lode server started");
        on_ready(&url);
        let ticker_node = node.clone();
        let ticker = tokio::spawn(async move {
            let mut every = tokio::time::interval(IDLE_CHECK);
            loop {
                every.tick().await;
                let n = ticker_node.clone();
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs() as i64)
                    .unwrap_or(0);
                if let Ok(Err(e)) = tokio::task::spawn_blocking(move || n.roll_idle(now)).await {
                    tracing::error!(error = %e, "rolling idle buckets failed");
                }
            }
        });
        lode_server::serve(listener, state, lode_server::shutdown_signal()).await?;
        ticker.abort();
        Ok::<_, CliError>(())
    })?;
    drop(rt);
    tracing::info!("lode server stopping");
    lode_server::internal::stop();
    if let Some(f) = forwarder {
        let _ = f.join();
    }
    eprintln!("lode: shutting down: rolling hot buckets");
    let node = Arc::try_unwrap(node)
        .map_err(|_| CliError::new(FAILURE, "requests still running at shutdown"))?;
    node.close()
        .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    drop(lock);
    Ok(())
}
