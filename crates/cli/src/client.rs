//! Talking to a running `lode serve` that holds the home.

use std::io::Read;

use serde::Deserialize;

use crate::exit::{CliError, CliResult, FAILURE};

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
pub fn ingest(base: &str, params: &[(&str, &str)], body: impl Read) -> CliResult<IngestReply> {
    let mut req = ureq::post(&format!("{base}/lode/ingest"));
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
pub fn roll(base: &str, index: Option<&str>) -> CliResult {
    let mut req = ureq::post(&format!("{base}/lode/roll"));
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
