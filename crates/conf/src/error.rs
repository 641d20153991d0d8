//! Errors and warnings of configuration loading.

use std::fmt;
use std::path::PathBuf;

/// Why a configuration file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfError {
    /// A line of the file is not valid `.conf` syntax.
    #[error("{origin}:{line}: {message}")]
    Syntax {
        /// The file (or pseudo path such as `<builtin>/props.conf`) the text came from.
        origin: String,
        /// 1-based line number of the offending line.
        line: u32,
        /// What is wrong with it.
        message: String,
    },
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// A non-fatal diagnostic about a configuration key (unknown key, ignored setting…), located by
/// file and line. Callers print these; they never stop loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file the key came from.
    pub origin: String,
    /// 1-based line number of the key.
    pub line: u32,
    /// Human-readable explanation.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.origin, self.line, self.message)
    }
}
