//! Error types of the ingestion crate, one per fault.

/// A props.conf/transforms.conf problem that prevents building [`crate::Settings`].
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A file could not be read or is not valid `.conf` syntax.
    #[error(transparent)]
    Conf(#[from] lode_conf::ConfError),
    /// A key has a value that cannot be used (bad regex, bad number, unknown transform…).
    #[error("{origin}:{line}: [{stanza}] {key}: {message}")]
    Invalid {
        /// File the key was read from.
        origin: String,
        /// 1-based line of the key.
        line: u32,
        /// Stanza holding the key.
        stanza: String,
        /// The key.
        key: String,
        /// What is wrong with the value.
        message: String,
    },
}

/// A sink could not make a batch durable. Cloned to every stream that had events in the batch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SinkError {
    /// Description of the failure, as the sink reported it.
    pub message: String,
}

impl SinkError {
    /// Wraps any displayable error.
    pub fn new(err: impl std::fmt::Display) -> SinkError {
        SinkError {
            message: err.to_string(),
        }
    }
}

/// Why a stream operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IngestError {
    /// The sink failed to write events of this stream: they are not durable.
    #[error("sink failed to write events: {0}")]
    Sink(#[from] SinkError),
    /// The pipeline was shut down (or one of its stages stopped) before the stream finished.
    #[error("ingestion pipeline is closed")]
    Closed,
    /// A pipeline stage thread panicked: an internal bug.
    #[error("ingestion stage `{0}` failed (internal error)")]
    StageFailed(&'static str),
}
