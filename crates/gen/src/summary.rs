//! What a generation run reports: [`GenSummary`] (also the `manifest.json` of
//! [`crate::write_dir`]) and the [`Planted`] search targets with their exact counts.

use crate::config::GenConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Totals of one generated corpus; every count is exact.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GenSummary {
    /// Bytes written, newlines included, all kinds together.
    pub bytes: u64,
    /// Number of events (a multi-line Java event counts once).
    pub events: u64,
    /// Events per sourcetype (`syslog`, `access_combined`, `_json`, `log4j`).
    pub events_by_kind: BTreeMap<String, u64>,
    /// Events per host name (the `host` of every event; see [`crate::Kind`] for where it is).
    pub events_by_host: BTreeMap<String, u64>,
    /// The planted search targets.
    pub planted: Vec<Planted>,
    /// The configuration that produced this corpus (regenerates it byte for byte).
    #[serde(default)]
    pub config: GenConfig,
    /// Time of the first event, microseconds since the Unix epoch (0 when there is none).
    #[serde(default)]
    pub first_time_us: i64,
    /// Time of the last event, microseconds since the Unix epoch (0 when there is none).
    #[serde(default)]
    pub last_time_us: i64,
}

/// A term planted into a known number of events; it occurs nowhere else in the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planted {
    /// Selectivity class: `rare`, `super_sparse`, `sparse` or `dense`.
    pub class: String,
    /// The term as written (search is case-insensitive).
    pub term: String,
    /// Exact number of events whose terms include `term`.
    pub events: u64,
    /// Of those, the events whose search-time field `tags` is `term` (the key=value form, where
    /// the first planted term is the value; JSON events carry a `tags{}` array instead): what
    /// `<term> tags=<term>` finds.
    #[serde(default)]
    pub tags_field: u64,
    /// The SPL search that finds exactly those events.
    pub search: String,
    /// Time ranges holding the events: one per burst for `rare`, else one for all of them.
    #[serde(default)]
    pub windows: Vec<Window>,
}

/// A closed time range of planted events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// Time of the first event, microseconds since the Unix epoch.
    pub first_us: i64,
    /// Time of the last event, microseconds since the Unix epoch.
    pub last_us: i64,
    /// Number of planted events in the range.
    pub events: u64,
}
