//! Bucket metadata: time range, counts and per host/source/sourcetype statistics.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::consts::{magic, META_FILE};
use crate::error::StoreError;

/// Statistics of one host, source or sourcetype value within a bucket (what `| metadata` reads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueStats {
    /// The value.
    pub name: String,
    /// Number of events with this value.
    pub count: u64,
    /// Earliest event time with this value, µs since the epoch.
    pub first_time: i64,
    /// Latest event time with this value, µs since the epoch.
    pub last_time: i64,
}

/// Metadata of a bucket (stored as `meta.json` in warm buckets, computed in memory for hot ones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct BucketMeta {
    /// Bucket id.
    pub id: u64,
    /// Earliest event time, µs since the epoch (`i64::MAX` when empty).
    pub min_time: i64,
    /// Latest event time, µs since the epoch (`i64::MIN` when empty).
    pub max_time: i64,
    /// Number of events.
    pub event_count: u64,
    /// Total length of `_raw` over all events, in bytes (uncompressed).
    pub raw_bytes: u64,
    /// Number of distinct terms in the lexicon.
    pub term_count: u64,
    /// Per host, ordered by dictionary id.
    pub hosts: Vec<ValueStats>,
    /// Per source, ordered by dictionary id.
    pub sources: Vec<ValueStats>,
    /// Per sourcetype, ordered by dictionary id.
    pub sourcetypes: Vec<ValueStats>,
}

impl BucketMeta {
    /// Reads and verifies (footer, checksum, JSON) `meta.json` of the warm bucket directory
    /// `bucket`.
    pub fn read(bucket: &Path) -> Result<BucketMeta, StoreError> {
        let path = bucket.join(META_FILE);
        serde_json::from_slice(&crate::footer::read_verified(&path, magic::META)?)
            .map_err(|e| StoreError::corrupt(&path, format!("bad JSON: {e}")))
    }

    /// Writes `meta.json` (pretty JSON with its footer, fsynced) into the bucket directory
    /// `bucket`: what a roll and a merge write last.
    pub(crate) fn write(&self, bucket: &Path) -> Result<(), StoreError> {
        let path = bucket.join(META_FILE);
        let mut buf = Vec::new();
        serde_json::to_writer_pretty(&mut buf, self)
            .map_err(|e| StoreError::io(&path, e.into()))?;
        crate::footer::append_footer(&mut buf, magic::META);
        crate::footer::write_file(&path, &buf)
    }

    /// Earliest event time in whole seconds (floor), as used in directory names.
    pub fn min_secs(&self) -> i64 {
        self.min_time.div_euclid(1_000_000)
    }

    /// Latest event time in whole seconds (ceiling), as used in directory names.
    pub fn max_secs(&self) -> i64 {
        let s = self.max_time.div_euclid(1_000_000);
        if self.max_time.rem_euclid(1_000_000) != 0 {
            s + 1
        } else {
            s
        }
    }
}

/// Updates the statistics of value `id` with an event at `time` µs.
pub(crate) fn bump(stats: &mut [ValueStats], id: u32, time: i64) {
    if let Some(s) = stats.get_mut(id as usize) {
        s.count += 1;
        s.first_time = s.first_time.min(time);
        s.last_time = s.last_time.max(time);
    }
}
