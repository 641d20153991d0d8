//! Talking to a running `lode serve` that holds the home.

use std::io::Read;
use std::sync::Arc;

use lode_node::lock::ServerInfo;
use serde::Deserialize;

use crate::exit::{CliError, CliResult, FAILURE};

/// An HTTP agent for the server of `info`: over https it trusts exactly the certificate the
/// server published (its self-signed one, or the operator's `serverCert` chain).
fn agent(info: &ServerInfo) -> CliResult<ureq::Agent> {
    let b = ureq::AgentBuilder::new();
    if !info.url.starts_with("https://") {
        return Ok(b.build());
    }
    use lode_server::rustls;
    use rustls::pki_types::pem::PemObject;
    let path = info.cert.as_ref().ok_or_else(|| {
        CliError::new(
            FAILURE,
            "the server published an https URL without its certificate",
        )
    })?;
    let bad = |e: String| {
        CliError::new(
            FAILURE,
            format!(
                "cannot trust the server's certificate {}: {e}",
                path.display()
            ),
        )
    };
    let mut roots = rustls::RootCertStore::empty();
    for c in
        rustls::pki_types::CertificateDer::pem_file_iter(path).map_err(|e| bad(e.to_string()))?
    {
        roots
            .add(c.map_err(|e| bad(e.to_string()))?)
            .map_err(|e| bad(e.to_string()))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(b.tls_config(Arc::new(cfg)).build())
}

/// Adds the server's local secret, if it published one.
fn authorize(req: ureq::Request, info: &ServerInfo) -> ureq::Request {
    match &info.secret {
        Some(s) => req.set("Authorization", &format!("Lode {s}")),
        None => req,
    }
}

/// What the server answers to an ingest request.
#[derive(Debug, Deserialize)]
pub struct IngestReply {
    /// Events accepted (durable).
    pub events: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Events dropped by nullQueue transforms.
    pub dropped: u64,
    /// Events truncated at TRUNCATE.
    pub truncated: u64,
}

/// Sends `body` to the server's ingest endpoint with the given metadata.
pub fn ingest(
    info: &ServerInfo,
    params: &[(&str, &str)],
    body: impl Read,
) -> CliResult<IngestReply> {
    let base = &info.url;
    let mut req = authorize(agent(info)?.post(&format!("{base}/lode/ingest")), info);
    for (k, v) in params {
        req = req.query(k, v);
    }
    match req.send(body) {
        Ok(resp) => resp
            .into_json::<IngestReply>()
            .map_err(|e| CliError::new(FAILURE, format!("server sent an unreadable reply: {e}"))),
        Err(ureq::Error::Status(code, resp)) => {
            let text = resp.into_string().unwrap_or_default();
            Err(CliError::new(
                FAILURE,
                format!("server refused the data (HTTP {code}): {}", text.trim()),
            ))
        }
        Err(e) => Err(CliError::new(
            FAILURE,
            format!("cannot reach the server at {base}: {e}"),
        )),
    }
}

/// Asks the server to roll hot buckets.
pub fn roll(info: &ServerInfo, index: Option<&str>) -> CliResult {
    let base = &info.url;
    let mut req = authorize(agent(info)?.post(&format!("{base}/lode/roll")), info);
    if let Some(i) = index {
        req = req.query("index", i);
    }
    match req.call() {
        Ok(_) => Ok(()),
        Err(ureq::Error::Status(code, resp)) => Err(CliError::new(
            FAILURE,
            format!(
                "server refused to roll (HTTP {code}): {}",
                resp.into_string().unwrap_or_default().trim()
            ),
        )),
        Err(e) => Err(CliError::new(
            FAILURE,
            format!("cannot reach the server at {base}: {e}"),
        )),
    }
}
