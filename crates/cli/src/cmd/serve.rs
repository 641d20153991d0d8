//! `lode serve`: holds the home, runs the pipeline, the HTTP API, the HTTP Event Collector and
//! the web app until Ctrl-C or SIGTERM, then drains requests, rolls hot buckets and exits.

use std::sync::Arc;
use std::time::Duration;

use lode_node::lock::{self, Holder};
use lode_node::{Home, Node};

use crate::cli::ServeArgs;
use crate::exit::{CliError, CliResult, BUSY, CONFIG, FAILURE};

/// How often idle hot buckets are checked for rolling.
const IDLE_CHECK: Duration = Duration::from_secs(10);

pub fn run(home: &Home, args: ServeArgs) -> CliResult {
    serve_all(home, args.listen, args.hec_listen, args.web_listen, |_| {})
}

/// The web app's socket and TLS settings, or `None` when it is off.
struct WebApp {
    listener: std::net::TcpListener,
    url: String,
    tls: Option<Arc<lode_server::rustls::ServerConfig>>,
}

/// Opens the web app's listener: `web_listen`, else web.conf's address. A busy default port is a
/// warning (the API still serves), a busy explicit address an error.
fn web_app(home: &Home, web_listen: Option<String>) -> CliResult<Option<WebApp>> {
    let s =
        lode_server::web::WebSettings::load(&home.etc()).map_err(|e| CliError::new(CONFIG, e))?;
    if !s.enabled && web_listen.is_none() {
        return Ok(None);
    }
    let explicit = web_listen.is_some();
    let addr = web_listen.unwrap_or_else(|| s.listen.clone());
    let listener = match std::net::TcpListener::bind(&addr) {
        Ok(l) => l,
        Err(e) if !explicit => {
            eprintln!("{}", lode_server::web::busy_port_warning(&addr, &e));
            return Ok(None);
        }
        Err(e) => {
            return Err(CliError::new(
                FAILURE,
                format!("cannot listen on {addr} for the web app: {e}"),
            ))
        }
    };
    let tls = if s.ssl {
        let (cert, key) = lode_server::tls::cert_files(home, &s.server_cert, &s.priv_key_path)
            .map_err(|e| CliError::new(CONFIG, e))?;
        Some(lode_server::tls::server_config(&cert, &key).map_err(|e| CliError::new(CONFIG, e))?)
    } else {
        None
    };
    let local = listener.local_addr()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    Ok(Some(WebApp {
        listener,
        url: format!("{scheme}://{local}"),
        tls,
    }))
}

/// The HTTP Event Collector's socket, TLS settings and router, or `None` when disabled.
struct Collector {
    listener: std::net::TcpListener,
    url: String,
    tls: Option<Arc<lode_server::rustls::ServerConfig>>,
    app: axum::Router,
}

/// Opens the collector's listener: `hec_listen`, else the API's host with the `[http]` port.
fn collector(
    home: &Home,
    node: &Arc<Node>,
    listen: &str,
    hec_listen: Option<String>,
) -> CliResult<Option<Collector>> {
    let cfg = lode_node::hec::HecConfig::load(home).map_err(super::node_error)?;
    let s = &cfg.settings;
    if s.disabled {
        return Ok(None);
    }
    let addr = hec_listen.unwrap_or_else(|| {
        let host = listen.rsplit_once(':').map_or("127.0.0.1", |(h, _)| h);
        format!("{host}:{}", s.port)
    });
    let listener = std::net::TcpListener::bind(&addr).map_err(|e| {
        CliError::new(
            FAILURE,
            format!("cannot listen on {addr} for the HTTP Event Collector: {e} (set [http] port in {}, or disabled = 1)", lode_node::hec::INPUTS_CONF),
        )
    })?;
    let local = listener.local_addr()?;
    let tls = if s.enable_ssl {
        let (cert, key) = lode_server::tls::cert_files(home, &s.server_cert, &s.priv_key_path)
            .map_err(|e| CliError::new(CONFIG, e))?;
        Some(lode_server::tls::server_config(&cert, &key).map_err(|e| CliError::new(CONFIG, e))?)
    } else {
        None
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let host = format!("{}:{}", super::add::local_host(), local.port());
    let state = lode_server::hec::HecState::new(node.clone(), host).map_err(super::node_error)?;
    Ok(Some(Collector {
        listener,
        url: format!("{scheme}://{local}"),
        tls,
        app: lode_server::hec::router(state),
    }))
}

/// Serves `home`; `on_ready` is called with the base URL once the socket listens.
pub fn serve(
    home: &Home,
    listen: Option<String>,
    hec_listen: Option<String>,
    on_ready: impl FnOnce(&str),
) -> CliResult {
    serve_all(home, listen, hec_listen, None, on_ready)
}

/// [`serve`] with the web app's address.
fn serve_all(
    home: &Home,
    listen: Option<String>,
    hec_listen: Option<String>,
    web_listen: Option<String>,
    on_ready: impl FnOnce(&str),
) -> CliResult {
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
    let collector = collector(home, &node, &listen, hec_listen)?;
    let web = web_app(home, web_listen)?;
    match lode_node::users::Users::ensure_admin(home) {
        Ok(Some(password)) => eprintln!(
            "lode: created user 'admin' with password {password} (shown once; set {} to choose it)",
            lode_node::users::ADMIN_PASSWORD_ENV[0]
        ),
        Ok(None) => {}
        Err(e) => return Err(super::node_error(e)),
    }
    let settings = node.server_settings().clone();
    let api_tls = if settings.ssl {
        let (cert, key) =
            lode_server::tls::cert_files(home, &settings.server_cert, &settings.priv_key_path)
                .map_err(|e| CliError::new(CONFIG, e))?;
        let cfg =
            lode_server::tls::server_config(&cert, &key).map_err(|e| CliError::new(CONFIG, e))?;
        Some((cfg, cert))
    } else {
        None
    };
    let forwarder = lode_server::internal::start(node.clone(), super::add::local_host());
    let state = lode_server::AppState::new(node.clone(), home.index_root());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(FAILURE, format!("cannot start the runtime: {e}")))?;
    rt.block_on(async {
        // Signal handlers before the server can be found: from `publish_server` on, a client
        // reading `server.json` may send a SIGTERM, which must shut down cleanly rather than
        // kill the process (the default action).
        let shutdown = lode_server::shutdown_signal();
        let listener = std::net::TcpListener::bind(&listen)
            .map_err(|e| CliError::new(FAILURE, format!("cannot listen on {listen}: {e}")))?;
        let addr = listener.local_addr()?;
        let scheme = if api_tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://{addr}");
        let secret = lode_server::rest::new_secret();
        lock.publish_server(
            &url,
            api_tls.as_ref().map(|(_, cert)| cert.as_path()),
            Some(&secret),
        )?;
        eprintln!(
            "lode: serving {} at {url} (Ctrl-C to stop)",
            home.root().display()
        );
        tracing::info!(url = %url, home = %home.root().display(), "lode server started");
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|s| *s).await;
        };
        let hec = match collector {
            Some(c) => {
                eprintln!("lode: HTTP Event Collector at {}", c.url);
                tracing::info!(url = %c.url, "HTTP Event Collector started");
                Some(tokio::spawn(lode_server::tls::serve(
                    c.listener,
                    c.app,
                    c.tls,
                    stopped(stop_rx.clone()),
                )))
            }
            None => None,
        };
        let mut rest = lode_server::rest::RestState::new(state.clone(), addr.port());
        rest.local_secret = Some(secret);
        let web = match web {
            Some(w) => {
                eprintln!("lode: web app at {} (log in as admin)", w.url);
                tracing::info!(url = %w.url, "web app started");
                let router =
                    lode_server::web::router(lode_server::api(state.clone(), rest.clone()));
                Some(tokio::spawn(lode_server::tls::serve(
                    w.listener,
                    router,
                    w.tls,
                    stopped(stop_rx.clone()),
                )))
            }
            None => None,
        };
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
        tokio::spawn(async move {
            shutdown.await;
            let _ = stop_tx.send(true);
        });
        let router = lode_server::api(state, rest);
        match api_tls {
            Some((cfg, _)) => {
                lode_server::tls::serve(listener, router, Some(cfg), stopped(stop_rx)).await?
            }
            None => {
                listener.set_nonblocking(true)?;
                let listener = tokio::net::TcpListener::from_std(listener)?;
                lode_server::serve_router(listener, router, stopped(stop_rx)).await?
            }
        }
        if let Some(h) = web {
            match h.await {
                Ok(Err(e)) => tracing::error!(error = %e, "web app listener failed"),
                Err(e) => tracing::error!(error = %e, "web app task failed"),
                Ok(Ok(())) => {}
            }
        }
        if let Some(h) = hec {
            match h.await {
                Ok(Err(e)) => tracing::error!(error = %e, "HTTP Event Collector failed"),
                Err(e) => tracing::error!(error = %e, "HTTP Event Collector task failed"),
                Ok(Ok(())) => {}
            }
        }
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
