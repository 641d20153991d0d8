//! Bucket directory names and the listing of an index directory (names only, no file opened).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::consts::{HOT_PREFIX, TMP_PREFIX, WARM_PREFIX};
use crate::error::{IoContext, StoreError};

/// State of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BucketKind {
    /// Open for writing: a WAL, indexed in memory by its writer (by readers in other processes).
    Hot,
    /// Immutable, fully indexed.
    Warm,
}

/// A bucket as seen from its directory name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketInfo {
    /// The bucket directory.
    pub path: PathBuf,
    /// Per-index monotonically increasing id.
    pub id: u64,
    /// Hot or warm.
    pub kind: BucketKind,
    /// Earliest event time, seconds since the epoch (floor); `i64::MIN` for hot buckets.
    pub min_time_secs: i64,
    /// Latest event time, seconds since the epoch (ceiling); `i64::MAX` for hot buckets.
    pub max_time_secs: i64,
}

/// Name of the hot directory of bucket `id`.
pub fn hot_name(id: u64) -> String {
    format!("{HOT_PREFIX}{id}")
}

/// Name of the warm directory of bucket `id` spanning `[min_secs, max_secs]`.
pub fn warm_name(id: u64, min_secs: i64, max_secs: i64) -> String {
    format!("{WARM_PREFIX}{max_secs}_{min_secs}_{id}")
}

/// Name of the temporary directory a roll of bucket `id` builds in.
pub fn tmp_name(id: u64) -> String {
    format!("{TMP_PREFIX}{id}")
}

/// Parses a bucket directory name.
pub fn parse_name(name: &str) -> Option<(BucketKind, u64, i64, i64)> {
    if let Some(id) = name.strip_prefix(HOT_PREFIX) {
        return Some((BucketKind::Hot, id.parse().ok()?, i64::MIN, i64::MAX));
    }
    let rest = name.strip_prefix(WARM_PREFIX)?;
    // Times may be negative, so split from the right: `<max>_<min>_<id>`.
    let mut parts = rest.rsplitn(3, '_');
    let id = parts.next()?.parse().ok()?;
    let min = parts.next()?.parse().ok()?;
    let max = parts.next()?.parse().ok()?;
    Some((BucketKind::Warm, id, min, max))
}

/// Parses the id of a temporary roll directory.
pub fn parse_tmp(name: &str) -> Option<u64> {
    name.strip_prefix(TMP_PREFIX)?.parse().ok()
}

/// Lists the buckets of an index from directory names alone, sorted by id. A hot bucket whose
/// warm copy already exists (a roll in its last step) is left out. Unrecognised entries (lock file, `quarantine/`, temporary roll directories) are skipped.
pub fn list_buckets(index_dir: &Path) -> Result<Vec<BucketInfo>, StoreError> {
    let rd = match std::fs::read_dir(index_dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::UnknownIndex(index_dir.display().to_string()))
        }
        Err(e) => return Err(StoreError::io(index_dir, e)),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.at(index_dir)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some((kind, id, min, max)) = parse_name(name) {
            if !entry.file_type().at(&entry.path())?.is_dir() {
                continue;
            }
            out.push(BucketInfo {
                path: entry.path(),
                id,
                kind,
                min_time_secs: min,
                max_time_secs: max,
            });
        }
    }
    out.sort_by_key(|b| (b.id, b.kind == BucketKind::Hot));
    // While a roll is between its rename and the hot-directory delete (or after a crash there),
    // both copies exist: the warm one is complete, so the hot one is hidden.
    out.dedup_by(|later, earlier| later.id == earlier.id && later.kind == BucketKind::Hot);
    Ok(out)
}

/// Fsyncs a directory so renames and creations inside it are durable.
pub fn fsync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir).and_then(|d| d.sync_all()).at(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(
            parse_name(&warm_name(7, -20, 1_700_000_000)),
            Some((BucketKind::Warm, 7, -20, 1_700_000_000))
        );
        assert_eq!(
            parse_name(&warm_name(3, -20, -10)),
            Some((BucketKind::Warm, 3, -20, -10))
        );
        assert_eq!(
            parse_name(&hot_name(9)),
            Some((BucketKind::Hot, 9, i64::MIN, i64::MAX))
        );
        assert_eq!(parse_name("db_x_1_2"), None);
        assert_eq!(parse_name("quarantine"), None);
        assert_eq!(parse_tmp(&tmp_name(4)), Some(4));
    }
}
