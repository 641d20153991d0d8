//! Lode Web: the web app (`ui/`, built by this crate's build.rs and embedded in the binary),
//! served on its own listener like Splunk Web (127.0.0.1:8000 by default, plain HTTP unless
//! web.conf turns TLS on) together with the same REST API as the management port, so that the
//! app talks only to the public API (`/services`, `/servicesNS`) on its own origin.
//!
//! Settings come from `web.conf` `[settings]` (system default then local), with Splunk's keys:
//! `startwebserver` (bool, default 1), `httpport` (default 8000), `server.socket_host`
//! (default 127.0.0.1), `enableSplunkWebSSL` (default 0), `serverCert` and `privKeyPath`
//! (PEM files; a self-signed pair is made when empty, see [`crate::tls::cert_files`]).

use std::path::Path;

use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

mod assets {
    include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));
}

/// The configuration file read for the web listener.
pub const WEB_CONF: &str = "web.conf";
/// Splunk Web's port.
pub const DEFAULT_PORT: u16 = 8000;
/// Hashed build outputs (Vite's `assets/` folder) never change under one name: cached a year.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The warning of `lode serve` when the web app's default address is taken (the API still
/// serves): names both ways to move it, `--web-listen` and web.conf's `[settings]` keys.
pub fn busy_port_warning(addr: &str, err: &std::io::Error) -> String {
    format!(
        "lode: warning: the web app cannot listen on {addr}: {err}; serving without it \
         (choose another address with --web-listen HOST:PORT, or set [settings] httpport \
         (or startwebserver = 0) in $LODE_HOME/etc/system/local/{WEB_CONF})"
    )
}

/// The web listener's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSettings {
    /// `startwebserver`: whether `lode serve` starts the web listener.
    pub enabled: bool,
    /// `server.socket_host:httpport`.
    pub listen: String,
    /// `enableSplunkWebSSL`: serve HTTPS instead of HTTP.
    pub ssl: bool,
    /// `serverCert`: PEM certificate chain ("" = the home's self-signed one).
    pub server_cert: String,
    /// `privKeyPath`: PEM private key ("" = the home's self-signed one).
    pub priv_key_path: String,
}

impl Default for WebSettings {
    fn default() -> Self {
        WebSettings {
            enabled: true,
            listen: format!("127.0.0.1:{DEFAULT_PORT}"),
            ssl: false,
            server_cert: String::new(),
            priv_key_path: String::new(),
        }
    }
}

impl WebSettings {
    /// Reads `<etc>/system/{default,local}/web.conf`; a bad value is an error naming the key.
    pub fn load(etc: &Path) -> Result<WebSettings, String> {
        let conf = lode_conf::Conf::load_layered(etc, WEB_CONF).map_err(|e| e.to_string())?;
        let mut s = WebSettings::default();
        let Some(st) = conf.stanza("settings") else {
            return Ok(s);
        };
        let bool_of = |k: &str, v: &str| {
            lode_conf::parse_bool(v)
                .ok_or_else(|| format!("{WEB_CONF} [settings] {k} = {v:?} is not a boolean"))
        };
        let mut host = "127.0.0.1".to_string();
        let mut port = DEFAULT_PORT;
        for e in st.entries() {
            let v = e.value.trim();
            match e.key.as_str() {
                "startwebserver" => s.enabled = bool_of(&e.key, v)?,
                "enableSplunkWebSSL" => s.ssl = bool_of(&e.key, v)?,
                "httpport" => {
                    port = v.parse().map_err(|_| {
                        format!("{WEB_CONF} [settings] httpport = {v:?} is not a port number")
                    })?
                }
                "server.socket_host" if !v.is_empty() => host = v.to_string(),
                "serverCert" => s.server_cert = v.to_string(),
                "privKeyPath" => s.priv_key_path = v.to_string(),
                _ => {}
            }
        }
        s.listen = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        Ok(s)
    }
}

/// The web listener's router: `api` (the REST API as the management port serves it) with the
/// app as fallback: a built file by its path, `index.html` for any other path that is not an API
/// path (the app routes on the client), 404 for unknown API paths.
pub fn router(api: Router) -> Router {
    api.fallback(asset)
}

async fn asset(uri: Uri) -> Response {
    let path = match uri.path() {
        "/" => "/index.html",
        p => p,
    };
    if let Some(body) = find(path) {
        let cache = if path.starts_with("/assets/") {
            IMMUTABLE
        } else {
            "no-cache"
        };
        return file_response(content_type(path), cache, body);
    }
    let api = ["/services", "/servicesNS", "/lode", "/assets"]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")));
    if api || path.rsplit('/').next().is_some_and(|f| f.contains('.')) {
        return (StatusCode::NOT_FOUND, "not found\n").into_response();
    }
    match find("/index.html") {
        Some(b) => file_response("text/html; charset=utf-8", "no-cache", b),
        None => (StatusCode::NOT_FOUND, "the web app is not built\n").into_response(),
    }
}

/// The embedded file at URL `path`.
fn find(path: &str) -> Option<&'static [u8]> {
    assets::ASSETS
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, b)| *b)
}

fn file_response(ctype: &'static str, cache: &'static str, body: &'static [u8]) -> Response {
    (
        [
            (header::CONTENT_TYPE, ctype),
            (header::CACHE_CONTROL, cache),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "same-origin"),
        ],
        body,
    )
        .into_response()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("woff2") => "font/woff2",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_port_warning_names_both_remedies() {
        let e = std::io::Error::from(std::io::ErrorKind::AddrInUse);
        let w = busy_port_warning("127.0.0.1:8000", &e);
        assert!(w.contains("127.0.0.1:8000"), "{w}");
        assert!(w.contains("--web-listen"), "{w}");
        assert!(w.contains("web.conf") && w.contains("httpport"), "{w}");
    }
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    async fn get(app: &Router, path: &str) -> (StatusCode, HeaderSnapshot, Vec<u8>) {
        let resp = app
            .clone()
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = resp.status();
        let h = HeaderSnapshot {
            ctype: resp
                .headers()
                .get(header::CONTENT_TYPE)
                .map(|v| v.to_str().unwrap().to_string()),
            cache: resp
                .headers()
                .get(header::CACHE_CONTROL)
                .map(|v| v.to_str().unwrap().to_string()),
        };
        let body = http_body_util::BodyExt::collect(resp.into_body())
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        (status, h, body)
    }

    struct HeaderSnapshot {
        ctype: Option<String>,
        cache: Option<String>,
    }

    #[tokio::test]
    async fn serves_the_app_with_spa_fallback_and_cache_headers() {
        let app = router(Router::new());
        let (s, h, index) = get(&app, "/").await;
        assert_eq!(s, StatusCode::OK);
        assert!(h.ctype.unwrap().starts_with("text/html"));
        assert_eq!(h.cache.as_deref(), Some("no-cache"));
        assert!(String::from_utf8_lossy(&index).contains("<div id=\"app\""));
        // A client-side route gets the app.
        let (s, _, body) = get(&app, "/search?q=error").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(body, index);
        // Hashed assets are immutable.
        let js = assets::ASSETS
            .iter()
            .find(|(p, _)| p.starts_with("/assets/") && p.ends_with(".js"))
            .expect("a built script");
        let (s, h, _) = get(&app, js.0).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(h.cache.as_deref(), Some(IMMUTABLE));
        assert!(h.ctype.unwrap().starts_with("text/javascript"));
        // Unknown API paths and missing files are 404s, not the app.
        for p in [
            "/services/nope",
            "/servicesNS/a/b/nope",
            "/assets/gone.js",
            "/x.png",
        ] {
            assert_eq!(get(&app, p).await.0, StatusCode::NOT_FOUND, "{p}");
        }
    }

    #[test]
    fn settings_from_web_conf() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            WebSettings::load(dir.path()).unwrap(),
            WebSettings::default()
        );
        let local = dir.path().join("system/local");
        std::fs::create_dir_all(&local).unwrap();
        std::fs::write(
            local.join(WEB_CONF),
            "[settings]\nhttpport = 9000\nenableSplunkWebSSL = true\nstartwebserver = 0\n",
        )
        .unwrap();
        let s = WebSettings::load(dir.path()).unwrap();
        assert_eq!(s.listen, "127.0.0.1:9000");
        assert!(s.ssl && !s.enabled);
        std::fs::write(local.join(WEB_CONF), "[settings]\nhttpport = web\n").unwrap();
        let e = WebSettings::load(dir.path()).unwrap_err();
        assert!(e.contains("httpport"), "{e}");
    }
}
