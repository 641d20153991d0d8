//! TLS for Lode's listeners, as splunkd does it: the operator's certificate and key (PEM) when
//! configured, else a self-signed certificate generated on first start and kept under
//! `$LODE_HOME/etc/auth/` (clients such as the Splunk SDK do not verify it by default).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lode_node::Home;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The generated certificate, relative to the home.
pub const SELF_SIGNED_CERT: &str = "etc/auth/lode-server.pem";
/// Its private key, relative to the home (mode 0600).
pub const SELF_SIGNED_KEY: &str = "etc/auth/lode-server.key";

/// The certificate and key files to use: `cert`/`key` when given, else the home's self-signed
/// pair (created if missing).
pub fn cert_files(home: &Home, cert: &str, key: &str) -> Result<(PathBuf, PathBuf), String> {
    match (cert.is_empty(), key.is_empty()) {
        (false, false) => Ok((PathBuf::from(cert), PathBuf::from(key))),
        (true, true) => {
            let cert = home.root().join(SELF_SIGNED_CERT);
            let key = home.root().join(SELF_SIGNED_KEY);
            if !cert.exists() || !key.exists() {
                generate(&cert, &key)?;
            }
            Ok((cert, key))
        }
        _ => Err("serverCert and privKeyPath must be set together".into()),
    }
}

/// Writes a self-signed certificate for `localhost`, `127.0.0.1`, `::1` and this host's name.
fn generate(cert: &Path, key: &Path) -> Result<(), String> {
    let mut names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    if let Ok(h) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let h = h.trim();
        if !h.is_empty() && !names.iter().any(|n| n == h) {
            names.push(h.to_string());
        }
    }
    let ck = rcgen::generate_simple_self_signed(names)
        .map_err(|e| format!("cannot generate a certificate: {e}"))?;
    let dir = cert.parent().expect("a file path has a parent");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |path: &Path, text: String, mode: u32| -> Result<(), String> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let tmp = path.with_extension("tmp");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&tmp)
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(key, ck.signing_key.serialize_pem(), 0o600)?;
    write(cert, ck.cert.pem(), 0o644)?;
    tracing::info!(cert = %cert.display(), "generated a self-signed TLS certificate");
    Ok(())
}

/// A rustls server configuration from PEM files. ALPN offers HTTP/1.1 only, as splunkd does:
/// over HTTP/2 an answer sent before the request body was read (a refused HEC token, say)
/// resets the stream, which clients such as curl report as a transport error.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|it| it.collect::<Result<_, _>>())
        .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?;
    if certs.is_empty() {
        return Err(format!("no certificate in {}", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("cannot read the private key {}: {e}", key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("the certificate and key do not fit: {e}"))?;
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(cfg))
}

/// Serves `app` on `listener` (TLS when `tls` is given) until `shutdown` resolves, then lets
/// in-flight requests finish. Connections are `TCP_NODELAY`, as in [`crate::serve_router`]:
/// without it every answer on a keep-alive connection written in more than one segment (a
/// search's rows, TLS records) waited for the client's delayed ACK, ~40 ms a request.
pub async fn serve(
    listener: std::net::TcpListener,
    app: axum::Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    match tls {
        None => {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            crate::serve_router(listener, app, shutdown).await
        }
        Some(cfg) => {
            let handle = axum_server::Handle::new();
            let h = handle.clone();
            tokio::spawn(async move {
                shutdown.await;
                h.graceful_shutdown(Some(std::time::Duration::from_secs(30)));
            });
            let config = axum_server::tls_rustls::RustlsConfig::from_config(cfg);
            let acceptor = axum_server::tls_rustls::RustlsAcceptor::new(config)
                .acceptor(axum_server::accept::NoDelayAcceptor::new());
            axum_server::from_tcp(listener)?
                .acceptor(acceptor)
                .handle(handle)
                .serve(app.into_make_service())
                .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_signed_pair_is_created_once_and_loads() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let (c, k) = cert_files(&home, "", "").unwrap();
        let pem = std::fs::read(&c).unwrap();
        server_config(&c, &k).unwrap();
        let (c2, _) = cert_files(&home, "", "").unwrap();
        assert_eq!(std::fs::read(c2).unwrap(), pem, "kept, not regenerated");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&k).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    /// Every connection `serve` accepts, plain or TLS, is `TCP_NODELAY` (checked on the
    /// server's own socket, found among this process's descriptors by its peer address, while
    /// the keep-alive connection that was answered stays open).
    #[test]
    fn accepted_connections_are_nodelay() {
        use std::io::{Read, Write};
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = cert_files(&Home::new(dir.path()), "", "").unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        for tls in [None, Some(server_config(&cert, &key).unwrap())] {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let server = rt.spawn(serve(listener, app, tls.clone(), async {
                let _ = stopped.await;
            }));
            let tcp = std::net::TcpStream::connect(addr).unwrap();
            let client = tcp.local_addr().unwrap();
            let mut stream: Box<dyn ReadWrite> = match &tls {
                None => Box::new(tcp),
                Some(_) => Box::new(rustls::StreamOwned::new(tls_client(&cert), tcp)),
            };
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
                .unwrap();
            let mut answer = Vec::new();
            let mut buf = [0u8; 1024];
            while !answer.ends_with(b"\r\n\r\nok") {
                let n = stream.read(&mut buf).unwrap();
                assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&answer));
                answer.extend_from_slice(&buf[..n]);
            }
            assert!(answer.starts_with(b"HTTP/1.1 200"));
            assert_eq!(
                server_side_nodelay(client),
                Some(true),
                "TLS: {}",
                tls.is_some()
            );
            drop(stream);
            stop.send(()).unwrap();
            rt.block_on(server).unwrap().unwrap();
        }
    }

    trait ReadWrite: std::io::Read + std::io::Write {}
    impl<T: std::io::Read + std::io::Write> ReadWrite for T {}

    /// A TLS client trusting only the self-signed `cert`, for `localhost`.
    fn tls_client(cert: &Path) -> rustls::ClientConnection {
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(cert).unwrap() {
            roots.add(c.unwrap()).unwrap();
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cfg = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = "localhost".try_into().unwrap();
        rustls::ClientConnection::new(Arc::new(cfg), name).unwrap()
    }

    /// `TCP_NODELAY` of this process's socket whose peer is `peer`, if there is one.
    #[allow(unsafe_code)] // Test only: borrows descriptor numbers listed in /proc/self/fd.
    fn server_side_nodelay(peer: std::net::SocketAddr) -> Option<bool> {
        for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
            let Some(fd) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let is_socket = std::fs::read_link(entry.path())
                .is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
            if !is_socket {
                continue;
            }
            // SAFETY: the number was open a moment ago and is only passed to getpeername and
            // getsockopt, which fail cleanly (EBADF, ENOTSOCK) if it has since been closed.
            let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
            let Ok(Some(addr)) = rustix::net::getpeername(fd) else {
                continue;
            };
            if std::net::SocketAddr::try_from(addr).ok() == Some(peer) {
                return rustix::net::sockopt::tcp_nodelay(fd).ok();
            }
        }
        None
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.pem");
        std::fs::write(&p, "not a pem").unwrap();
        let e = server_config(&p, &p).unwrap_err();
        assert!(e.contains("certificate"), "{e}");
        let home = Home::new(dir.path());
        assert!(cert_files(&home, "a.pem", "").is_err());
    }
}
