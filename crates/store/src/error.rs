//! Typed errors of the store, one variant per fault.

use std::path::PathBuf;

/// What went wrong in the store, with the file or directory it concerns.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An operating-system I/O call failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// File or directory the call was about.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A file's content is damaged (bad checksum, impossible value, truncated).
    #[error("corrupt data in {path}: {reason}")]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What check failed.
        reason: String,
    },
    /// A file was written by a format version this binary does not read.
    #[error(
        "{path} has format version {found}, this binary reads version {supported}: \
         upgrade lode (newer file) or rebuild the bucket from its raw journal (older file)"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Version found in the file.
        found: u32,
        /// The version this binary reads.
        supported: u32,
    },
    /// Another process holds the writer lock of this index.
    #[error("index {path} is locked by another writer")]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// No index of this name / directory exists.
    #[error("unknown index {0}")]
    UnknownIndex(String),
    /// A request exceeded a limit of the store (query depth, event number out of range).
    /// A listed warm bucket was merged into a larger one and deleted before it was opened.
    #[error(
        "bucket {path} was merged into a larger bucket while the search ran; run the search again"
    )]
    Merged {
        /// The bucket directory as listed.
        path: PathBuf,
    },
    #[error("limit exceeded: {0}")]
    Limit(String),
    /// The writer failed earlier (an I/O error mid-write) and refuses further appends until the
    /// index is reopened, which recovers the WAL.
    #[error("writer of {path} is unusable after an earlier failure: {reason}; reopen the index")]
    Broken {
        /// The index directory.
        path: PathBuf,
        /// The first failure.
        reason: String,
    },
}

impl StoreError {
    /// Builds an I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// A copy of this error for a cached failure that is reported again (I/O errors keep
    /// their kind and message).
    pub(crate) fn duplicate(&self) -> StoreError {
        match self {
            StoreError::Io { path, source } => StoreError::Io {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            StoreError::Corrupt { path, reason } => StoreError::corrupt(path, reason.clone()),
            StoreError::Version {
                path,
                found,
                supported,
            } => StoreError::Version {
                path: path.clone(),
                found: *found,
                supported: *supported,
            },
            StoreError::Locked { path } => StoreError::Locked { path: path.clone() },
            StoreError::UnknownIndex(s) => StoreError::UnknownIndex(s.clone()),
            StoreError::Limit(s) => StoreError::Limit(s.clone()),
            StoreError::Merged { path } => StoreError::Merged { path: path.clone() },
            StoreError::Broken { path, reason } => StoreError::Broken {
                path: path.clone(),
                reason: reason.clone(),
            },
        }
    }

    /// Builds a corruption error about `path`.
    pub fn corrupt(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        StoreError::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// Adds the path to an `io::Result`.
pub(crate) trait IoContext<T> {
    /// Maps the error to [`StoreError::Io`] about `path`.
    fn at(self, path: &std::path::Path) -> Result<T, StoreError>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T, StoreError> {
        self.map_err(|e| StoreError::io(path, e))
    }
}
