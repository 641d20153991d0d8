//! Helpers for driving the real `lode` binary in a temporary home.

#![allow(dead_code)]

pub mod crash;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary `$LODE_HOME` and the binary under test.
pub struct Lode {
    pub home: tempfile::TempDir,
}

/// What a command did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Default for Lode {
    fn default() -> Lode {
        Lode::new()
    }
}

impl Lode {
    /// An HTTPS agent trusting only the certificate `lode serve` generated in this home.
    pub fn agent(&self) -> ureq::Agent {
        use rustls::pki_types::pem::PemObject;
        let pem = self.path().join("etc/auth/lode-server.pem");
        let mut roots = rustls::RootCertStore::empty();
        for c in rustls::pki_types::CertificateDer::pem_file_iter(&pem).expect("server certificate")
        {
            roots.add(c.expect("PEM")).expect("certificate");
        }
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let cfg = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        ureq::AgentBuilder::new()
            .tls_config(std::sync::Arc::new(cfg))
            .timeout(std::time::Duration::from_secs(30))
            .build()
    }

    /// `Authorization` header value for the running server's own API (its local secret).
    pub fn server_auth(&self) -> String {
        let text = std::fs::read_to_string(self.path().join("var/run/lode/server.json"))
            .expect("server.json");
        let v: serde_json::Value = serde_json::from_str(&text).expect("server.json is JSON");
        format!("Lode {}", v["secret"].as_str().expect("a secret"))
    }

    pub fn new() -> Lode {
        Lode {
            home: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.home.path()
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lode"));
        c.arg("--home")
            .arg(self.home.path())
            .args(args)
            .env_remove("LODE_HOME")
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        finish(self.cmd(args).output().expect("run lode"))
    }

    /// Runs a search and returns its JSON rows.
    pub fn search_json(&self, query: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
        let r = self.run(&["search", query, "--output", "json"]);
        assert_eq!(r.code, 0, "search {query:?} failed: {}", r.stderr);
        r.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
            .collect()
    }

    /// `count` of a search ending in `| stats count`.
    pub fn count(&self, query: &str) -> u64 {
        let rows = self.search_json(&format!("{query} | stats count"));
        assert_eq!(rows.len(), 1, "{rows:?}");
        rows[0]["count"]
            .as_str()
            .expect("count is a string")
            .parse()
            .expect("count is a number")
    }

    pub fn write_local(&self, file: &str, text: &str) {
        let dir = self.home.path().join("etc/system/local");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    }
}

pub fn finish(out: Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `../shared/data/loghub` from the repository root.
pub fn loghub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/loghub")
}

/// Lines of a file as LogHub counts them (the last line may lack a newline).
pub fn line_count(path: &Path) -> u64 {
    let data = std::fs::read(path).unwrap();
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    if data.last().is_some_and(|&b| b != b'\n') {
        newlines + 1
    } else {
        newlines
    }
}
