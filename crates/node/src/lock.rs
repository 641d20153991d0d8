//! Who holds a home: a running server, or a direct writer such as `lode add oneshot`.
//!
//! The holder keeps an exclusive OS lock on `var/run/lode/lode.lock` for its whole life (the OS
//! releases it when the process dies, even by `kill -9`). A server also writes
//! `var/run/lode/server.json` with its address, so that commands run while it holds the home send
//! their work to it instead of writing to the indexes themselves.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Home;

/// Address file of a running server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ServerInfo {
    /// Process id of the server.
    pub pid: u32,
    /// Base URL of its HTTP API, e.g. `https://127.0.0.1:8089`.
    pub url: String,
    /// PEM certificate the API presents when `url` is https (clients on this machine trust it).
    #[serde(default)]
    pub cert: Option<PathBuf>,
    /// Secret that authenticates local clients (`Authorization: Lode <secret>`): whoever can
    /// read this file (mode 0600) may use the server as the home's owner.
    #[serde(default)]
    pub secret: Option<String>,
}

/// The exclusive lock on a home; released on drop (or process death).
#[derive(Debug)]
pub struct HomeLock {
    _file: File,
    info_path: PathBuf,
}

/// The state of a home's lock.
#[derive(Debug)]
pub enum Holder {
    /// Nobody held it: we do now.
    Acquired(HomeLock),
    /// A server holds it; this is its address.
    Server(ServerInfo),
    /// Another direct writer (not a server) holds it.
    OtherWriter,
}

fn lock_path(home: &Home) -> PathBuf {
    home.run_dir().join("lode.lock")
}

fn info_path(home: &Home) -> PathBuf {
    home.run_dir().join("server.json")
}

/// Tries to take the home's lock without waiting.
pub fn acquire(home: &Home) -> io::Result<Holder> {
    std::fs::create_dir_all(home.run_dir())?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(home))?;
    match file.try_lock() {
        Ok(()) => {
            // A stale address file from a server that died is removed now that we hold the lock.
            let _ = std::fs::remove_file(info_path(home));
            Ok(Holder::Acquired(HomeLock {
                _file: file,
                info_path: info_path(home),
            }))
        }
        Err(TryLockError::WouldBlock) => match std::fs::read(info_path(home)) {
            Ok(bytes) => match serde_json::from_slice::<ServerInfo>(&bytes) {
                Ok(info) => Ok(Holder::Server(info)),
                Err(_) => Ok(Holder::OtherWriter),
            },
            Err(_) => Ok(Holder::OtherWriter),
        },
        Err(TryLockError::Error(e)) => Err(e),
    }
}

impl HomeLock {
    /// Publishes this process as the home's server at `url`.
    pub fn publish_server(
        &self,
        url: &str,
        cert: Option<&Path>,
        secret: Option<&str>,
    ) -> io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let info = ServerInfo {
            pid: std::process::id(),
            url: url.to_string(),
            cert: cert.map(Path::to_path_buf),
            secret: secret.map(str::to_string),
        };
        let tmp = self.info_path.with_extension("json.tmp");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&serde_json::to_vec(&info).map_err(io::Error::other)?)?;
        drop(f);
        std::fs::rename(&tmp, &self.info_path)
    }
}

impl Drop for HomeLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.info_path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_acquire_sees_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let Holder::Acquired(lock) = acquire(&home).unwrap() else {
            panic!("free home not acquired")
        };
        assert!(matches!(acquire(&home).unwrap(), Holder::OtherWriter));
        lock.publish_server("http://127.0.0.1:1", None, Some("s3cret"))
            .unwrap();
        match acquire(&home).unwrap() {
            Holder::Server(info) => assert_eq!(info.url, "http://127.0.0.1:1"),
            other => panic!("expected server, got {other:?}"),
        }
        drop(lock);
        assert!(matches!(acquire(&home).unwrap(), Holder::Acquired(_)));
    }
}
