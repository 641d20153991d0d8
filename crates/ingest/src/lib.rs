//! Ingestion pipeline: parsing, merging, typing, with bounded queues.
//!
//! Given raw bytes of a stream and its metadata ([`SourceMeta`]), returns [`lode_event::Event`]s
//! handed in batches to a [`Sink`]. The stages follow Splunk's order (SPLUNK.md §4.1), each in
//! its own module:
//! 1. [`linebreak`] — parsing: `CHARSET`, `LINE_BREAKER`, `TRUNCATE`, across chunk boundaries;
//! 2. [`merge`] — merging: `SHOULD_LINEMERGE` rules, timestamps (via `lode-time`), linecount;
//! 3. [`typing`] — `SEDCMD-*` then `TRANSFORMS-*`: masking, routing, nullQueue, index-time fields;
//! 4. indexing — batches to the sink ([`pipeline`]).
//!
//! Settings come from props.conf/transforms.conf ([`Settings`]), resolved per stream with
//! Splunk's precedence. [`process_bytes`] is the single-threaded naive twin of [`Pipeline`].

mod defaults;
mod error;
mod glob;
mod guess;
pub mod linebreak;
pub mod merge;
mod pipeline;
mod process;
mod props;
mod sed;
mod settings;
mod transform;
pub mod typing;

pub use defaults::{DEFAULT_PROPS, DEFAULT_TRANSFORMS};
pub use error::{IngestError, SettingsError, SinkError};
pub use guess::guess_sourcetype;
pub use pipeline::{
    Clock, Pipeline, PipelineConfig, Pipelines, QueueMetrics, Sink, StreamHandle, StreamReport,
};
pub use process::process_bytes;
pub use props::{Breaker, Charset};
pub use sed::SedCmd;
pub use settings::{MergeRules, Resolved, Settings};
pub use transform::{Dest, SourceKey, Transform};

/// Metadata of one input stream, given by the input (file monitor, HTTP, CLI).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SourceMeta {
    /// `host` of the events.
    pub host: String,
    /// `source` of the events (file path, `http:<token>`, `stdin`…).
    pub source: String,
    /// `sourcetype`; empty = from a `[source::…]`/`[host::…]` stanza, else guessed from `source`.
    pub sourcetype: String,
    /// Destination index.
    pub index: String,
}
