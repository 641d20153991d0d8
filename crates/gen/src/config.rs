//! What to generate: [`GenConfig`] and the four [`Kind`]s of data.

use serde::{Deserialize, Serialize};

/// 2026-01-01T00:00:00Z in seconds since the Unix epoch.
pub const DEFAULT_START_SECS: i64 = 1_767_225_600;
/// Seven days, in seconds.
pub const DEFAULT_SPAN_SECS: i64 = 7 * 86_400;
/// Default number of distinct hosts.
pub const DEFAULT_HOSTS: u32 = 200;

/// Parameters of one corpus. The same configuration always yields byte-identical output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenConfig {
    /// Seed of every random choice.
    pub seed: u64,
    /// Target corpus size in bytes (all files together); the output ends with the first event
    /// that reaches it, so it overshoots by less than one event.
    pub total_bytes: u64,
    /// Time of the first event, seconds since the Unix epoch (UTC).
    pub start_time_secs: i64,
    /// Length of the covered time range, seconds; events fall in `[start, start + span)`.
    pub span_secs: i64,
    /// Number of distinct hosts (at least 1 is used).
    pub hosts: u32,
}

impl GenConfig {
    /// A configuration with the given seed and size and the default time range and hosts.
    pub fn new(seed: u64, total_bytes: u64) -> GenConfig {
        GenConfig {
            seed,
            total_bytes,
            start_time_secs: DEFAULT_START_SECS,
            span_secs: DEFAULT_SPAN_SECS,
            hosts: DEFAULT_HOSTS,
        }
    }
}

impl Default for GenConfig {
    /// Seed 1, 100 MB, 2026-01-01 for 7 days, 200 hosts.
    fn default() -> Self {
        GenConfig::new(1, 100_000_000)
    }
}

/// A kind of machine data; each is written to its own file with its own sourcetype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// RFC 3164 syslog: `Jan  1 00:00:00 host prog[pid]: message`.
    Syslog = 0,
    /// Apache combined access log, followed by the serving host (`%v`).
    Access = 1,
    /// One JSON object per line from application services.
    Json = 2,
    /// log4j lines with multi-line Java stack traces.
    Java = 3,
}

impl Kind {
    /// Every kind, in discriminant order.
    pub const ALL: [Kind; 4] = [Kind::Syslog, Kind::Access, Kind::Json, Kind::Java];

    /// The Splunk sourcetype of this kind.
    pub fn sourcetype(self) -> &'static str {
        match self {
            Kind::Syslog => "syslog",
            Kind::Access => "access_combined",
            Kind::Json => "_json",
            Kind::Java => "log4j",
        }
    }

    /// The file name [`crate::write_dir`] writes this kind to.
    pub fn file_name(self) -> &'static str {
        match self {
            Kind::Syslog => "syslog.log",
            Kind::Access => "access.log",
            Kind::Json => "app.json",
            Kind::Java => "app_java.log",
        }
    }
}
