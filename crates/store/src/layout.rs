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
    /// Per-index monotonically increasing id (of a merged bucket: the last id it covers).
    pub id: u64,
    /// The first id the bucket covers: `id` itself, or for a bucket merged from warm buckets
    /// `first_id..=id`, the first of their ids (see [`crate::merge`]).
    pub first_id: u64,
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

/// Name of the warm directory of a bucket merged from the warm buckets of ids `first..=last`,
/// spanning `[min_secs, max_secs]`: `db_<max>_<min>_<first>-<last>`.
pub fn merged_name(first: u64, last: u64, min_secs: i64, max_secs: i64) -> String {
    format!("{WARM_PREFIX}{max_secs}_{min_secs}_{first}-{last}")
}

/// Name of the temporary directory a roll of bucket `id` builds in.
pub fn tmp_name(id: u64) -> String {
    format!("{TMP_PREFIX}{id}")
}

/// Name of the temporary directory a merge of buckets `first..=last` builds in.
pub fn tmp_merge_name(first: u64, last: u64) -> String {
    format!("{TMP_PREFIX}{first}-{last}")
}

/// `<id>` or `<first>-<last>` → `(first, last)`, with `first <= last`.
fn parse_ids(s: &str) -> Option<(u64, u64)> {
    match s.split_once('-') {
        None => s.parse().ok().map(|id| (id, id)),
        Some((a, b)) => {
            let (first, last) = (a.parse().ok()?, b.parse().ok()?);
            (first <= last).then_some((first, last))
        }
    }
}

/// Parses a bucket directory name: kind, first id, last id, min and max seconds. Only warm
/// buckets have a range of ids (merged ones).
pub fn parse_bucket(name: &str) -> Option<(BucketKind, u64, u64, i64, i64)> {
    if let Some(id) = name.strip_prefix(HOT_PREFIX) {
        let id = id.parse().ok()?;
        return Some((BucketKind::Hot, id, id, i64::MIN, i64::MAX));
    }
    let rest = name.strip_prefix(WARM_PREFIX)?;
    // Times may be negative, so split from the right: `<max>_<min>_<ids>`.
    let mut parts = rest.rsplitn(3, '_');
    let (first, last) = parse_ids(parts.next()?)?;
    let min = parts.next()?.parse().ok()?;
    let max = parts.next()?.parse().ok()?;
    Some((BucketKind::Warm, first, last, min, max))
}

/// Parses a bucket directory name: kind, id (a merged bucket's last id), min and max seconds.
pub fn parse_name(name: &str) -> Option<(BucketKind, u64, i64, i64)> {
    parse_bucket(name).map(|(kind, _, last, min, max)| (kind, last, min, max))
}

/// Parses the (last) id of a temporary roll or merge directory.
pub fn parse_tmp(name: &str) -> Option<u64> {
    parse_ids(name.strip_prefix(TMP_PREFIX)?).map(|(_, last)| last)
}

/// Which of `buckets` another one covers: a bucket merged from warm buckets covers every bucket
/// whose ids lie within its own (its sources, and their hot twins); a warm bucket covers the hot
/// directory of its own id (a roll in its last step). Returns a flag per bucket, in order.
pub fn covered(buckets: &[BucketInfo]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    // Widest first among equal first ids, warm before hot: whatever comes later in this order
    // with a last id no greater than one seen is inside it.
    order.sort_by_key(|&i| {
        let b = &buckets[i];
        (
            b.first_id,
            std::cmp::Reverse(b.id),
            b.kind == BucketKind::Hot,
        )
    });
    let mut out = vec![false; buckets.len()];
    let mut reach: Option<u64> = None;
    for i in order {
        let b = &buckets[i];
        if reach.is_some_and(|r| b.id <= r) {
            out[i] = true;
        } else {
            reach = Some(b.id);
        }
    }
    out
}

/// Lists the buckets of an index from directory names alone, sorted by id. Buckets another one
/// covers ([`covered`]: a hot bucket whose warm copy already exists, a roll in its last step;
/// the sources of a merged bucket, until they are deleted) are left out. Unrecognised entries
/// (lock file, `quarantine/`, temporary roll and merge directories) are skipped.
pub fn list_buckets(index_dir: &Path) -> Result<Vec<BucketInfo>, StoreError> {
    let mut out = scan_buckets(index_dir)?;
    // While a roll is between its rename and the hot-directory delete (or after a crash there),
    // both copies exist: the warm one is complete, so the hot one is hidden. Likewise a merged
    // bucket, once renamed into place, hides its sources.
    let hidden = covered(&out);
    let mut keep = hidden.iter().map(|h| !h);
    out.retain(|_| keep.next().unwrap_or(true));
    out.sort_by_key(|b| (b.id, b.kind == BucketKind::Hot));
    Ok(out)
}

/// Every bucket directory of an index, covered ones included, in directory order.
pub(crate) fn scan_buckets(index_dir: &Path) -> Result<Vec<BucketInfo>, StoreError> {
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
        if let Some((kind, first_id, id, min, max)) = parse_bucket(name) {
            // A bucket a merge or a freeze removes while the directory is read is simply gone
            // (file systems without d_type stat the entry here).
            match entry.file_type() {
                Ok(t) if t.is_dir() => {}
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StoreError::io(entry.path(), e)),
            }
            out.push(BucketInfo {
                path: entry.path(),
                id,
                first_id,
                kind,
                min_time_secs: min,
                max_time_secs: max,
            });
        }
    }
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
        assert_eq!(
            parse_bucket(&merged_name(3, 9, -20, 40)),
            Some((BucketKind::Warm, 3, 9, -20, 40))
        );
        assert_eq!(parse_name("db_40_-20_9-3"), None);
        assert_eq!(parse_tmp(&tmp_merge_name(3, 9)), Some(9));
        assert_eq!(parse_name("quarantine"), None);
        assert_eq!(parse_tmp(&tmp_name(4)), Some(4));
    }

    fn info(first: u64, last: u64, kind: BucketKind) -> BucketInfo {
        BucketInfo {
            path: PathBuf::new(),
            id: last,
            first_id: first,
            kind,
            min_time_secs: 0,
            max_time_secs: 0,
        }
    }

    #[test]
    fn merged_buckets_cover_their_sources_and_hot_twins() {
        use BucketKind::{Hot, Warm};
        let buckets = [
            info(1, 1, Warm),
            info(2, 2, Warm),
            info(1, 3, Warm),
            info(3, 3, Warm),
            info(3, 3, Hot),
            info(4, 4, Hot),
            info(5, 5, Warm),
            info(5, 5, Hot),
            info(1, 6, Warm),
            info(7, 7, Hot),
        ];
        let hidden = covered(&buckets);
        let expect = [true, true, true, true, true, true, true, true, false, false];
        assert_eq!(hidden, expect);
        // Without the widest merge, the smaller one hides 1..=3 only.
        let hidden = covered(&buckets[..8]);
        let expect = [true, true, false, true, true, false, false, true];
        assert_eq!(hidden, expect);
    }
}
