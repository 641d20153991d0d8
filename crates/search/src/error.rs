//! Errors of planning and executing a search.

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The search text or its arguments are wrong; `message` is for the user.
    #[error("{0}")]
    User(String),
    /// A configured limit was exceeded (name of the limit and its value in the message).
    #[error("search limit exceeded: {0}")]
    Limit(String),
    /// Reading the index failed (the scan/plan work adds `Store(#[from] lode_store::StoreError)`
    /// once the store crate exposes it).
    #[error("index read failed: {0}")]
    Io(String),
    /// The store failed while reading an index (I/O with the path; corrupt buckets are skipped
    /// with a warning instead).
    #[error("index read failed: {0}")]
    Store(#[from] lode_store::StoreError),
    /// The search text does not parse; `render(text)` shows the caret.
    #[error("{0}")]
    Parse(#[from] lode_spl::ParseError),
}
