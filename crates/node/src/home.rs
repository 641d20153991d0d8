//! `$LODE_HOME`: where configuration and data live, like `$SPLUNK_HOME`.
//!
//! ```text
//! $LODE_HOME/etc/system/default/   shipped .conf files, rewritten at every start
//! $LODE_HOME/etc/system/local/     the operator's .conf files (never touched by Lode)
//! $LODE_HOME/var/lib/lode/<index>/ index data (buckets)
//! $LODE_HOME/var/run/lode/         lock and address file of a running server
//! ```

use std::path::{Path, PathBuf};

/// Environment variable naming the home directory.
pub const HOME_ENV: &str = "LODE_HOME";
/// Home used when neither `--home` nor `$LODE_HOME` is given, relative to the user's home dir.
pub const DEFAULT_HOME: &str = ".lode";

/// Shipped `indexes.conf`.
pub const DEFAULT_INDEXES: &str = include_str!("../default/indexes.conf");
/// Shipped `server.conf`.
pub const DEFAULT_SERVER: &str = include_str!("../default/server.conf");

/// Paths under one home directory.
#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// Home at `root` (not created yet).
    pub fn new(root: impl Into<PathBuf>) -> Home {
        Home { root: root.into() }
    }

    /// `--home` if given, else `$LODE_HOME`, else `~/.lode` (or `./.lode` without `$HOME`).
    pub fn resolve(flag: Option<&Path>) -> Home {
        if let Some(p) = flag {
            return Home::new(p);
        }
        if let Some(p) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
            return Home::new(PathBuf::from(p));
        }
        let base = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| ".".into());
        Home::new(base.join(DEFAULT_HOME))
    }

    /// The home directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `etc/`: configuration root (holds `system/default` and `system/local`).
    pub fn etc(&self) -> PathBuf {
        self.root.join("etc")
    }

    /// `etc/system/default`.
    pub fn etc_default(&self) -> PathBuf {
        self.root.join("etc/system/default")
    }

    /// `etc/system/local`.
    pub fn etc_local(&self) -> PathBuf {
        self.root.join("etc/system/local")
    }

    /// `var/lib/lode`: one directory per index.
    pub fn index_root(&self) -> PathBuf {
        self.root.join("var/lib/lode")
    }

    /// `var/run/lode`: lock and address of a running server.
    pub fn run_dir(&self) -> PathBuf {
        self.root.join("var/run/lode")
    }

    /// Creates the directory layout and (re)writes the shipped defaults.
    pub fn ensure_layout(&self) -> std::io::Result<()> {
        for d in [
            self.etc_default(),
            self.etc_local(),
            self.index_root(),
            self.run_dir(),
        ] {
            std::fs::create_dir_all(&d)?;
        }
        let defaults = [
            ("props.conf", lode_ingest::DEFAULT_PROPS),
            ("transforms.conf", lode_ingest::DEFAULT_TRANSFORMS),
            ("indexes.conf", DEFAULT_INDEXES),
            ("server.conf", DEFAULT_SERVER),
        ];
        for (name, text) in defaults {
            let path = self.etc_default().join(name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
                std::fs::write(&path, text)?;
            }
        }
        Ok(())
    }
}
