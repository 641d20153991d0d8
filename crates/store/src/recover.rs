//! Recovery when the writer opens an index: see docs/DURABILITY.md, "Recovery".

use std::path::{Path, PathBuf};

use crate::bucket::hot::Registration;
use crate::consts::{QUARANTINE_DIR, WAL_FILE};
use crate::error::{IoContext, StoreError};
use crate::fsck::quarantine_bucket;
use crate::layout::{fsync_dir, parse_bucket, parse_name, parse_tmp, BucketKind};
use crate::wal::{self, WalWriter, HEADER_LEN};
use crate::writer::{new_hot, roll_dir, Hot};

/// What recovery did when the writer opened the index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Events found in hot WALs (and kept).
    pub replayed_events: u64,
    /// Bytes cut from WAL tails (torn or garbage records).
    pub truncated_bytes: u64,
    /// Rolls found complete (warm bucket present) whose hot directory was then deleted.
    pub completed_rolls: u32,
    /// Sources of a merged bucket left by a merge that published it but had not yet deleted
    /// them (a crash, or a writer closed within the grace period), now deleted.
    pub merged_sources_removed: u32,
    /// Buckets moved to `quarantine/` because they could not be read.
    pub quarantined: Vec<PathBuf>,
}

/// Recovers `dir` (whose writer lock is held) for a writer of `lanes` lanes. Returns the hot
/// buckets kept open (at most `lanes`, oldest first), the id the next bucket gets, and the report.
pub(crate) fn recover(
    dir: &Path,
    lanes: usize,
) -> Result<(Vec<Hot>, u64, RecoveryReport), StoreError> {
    let mut report = RecoveryReport::default();
    let mut hots: Vec<(u64, PathBuf)> = Vec::new();
    let mut warm_ids = std::collections::HashSet::new();
    let mut max_id: Option<u64> = None;
    let mut note = |id: u64| max_id = Some(max_id.map_or(id, |m: u64| m.max(id)));
    for entry in std::fs::read_dir(dir).at(dir)? {
        let entry = entry.at(dir)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(id) = parse_tmp(name) {
            // An interrupted roll that never reached its rename (the hot WAL still has it all),
            // or an interrupted merge (its sources are all still in place).
            std::fs::remove_dir_all(entry.path()).at(&entry.path())?;
            note(id);
        } else if let Some((kind, first, id, _, _)) = parse_bucket(name) {
            note(id);
            match kind {
                BucketKind::Hot => hots.push((id, entry.path())),
                BucketKind::Warm => warm_ids.extend(first..=id),
            }
        }
    }
    // A merge publishes the merged bucket before it deletes the sources (see crate::merge):
    // sources still present are covered by it, and no search of this process can hold them.
    report.merged_sources_removed = crate::merge::remove_covered(dir)?;
    // Ids of quarantined buckets are never reused either.
    if let Ok(rd) = std::fs::read_dir(dir.join(QUARANTINE_DIR)) {
        for entry in rd.flatten() {
            if let Some((_, id, _, _)) = entry.file_name().to_str().and_then(parse_name) {
                note(id);
            }
        }
    }
    // Newest first: the newest `lanes` hot buckets that survive replay stay open, one per lane,
    // their indexes rebuilt while replaying; older ones (left by a writer with more lanes, a
    // crash during a background roll, an earlier version or a manual copy) are rolled from
    // their WALs.
    hots.sort();
    let mut current: Vec<Hot> = Vec::new();
    let mut older: Vec<(u64, PathBuf)> = Vec::new();
    for (id, path) in hots.into_iter().rev() {
        if warm_ids.contains(&id) {
            // Crash between the rename and the hot-directory delete: the roll completed.
            std::fs::remove_dir_all(&path).at(&path)?;
            report.completed_rolls += 1;
            continue;
        }
        let keep = current.len() < lanes;
        match replay(&path, id, &mut report, keep) {
            Ok(hot) => match hot {
                Some(hot) => current.push(hot),
                None => older.push((id, path)),
            },
            Err(StoreError::Corrupt { .. }) => {
                report.quarantined.push(quarantine_bucket(dir, &path)?);
            }
            Err(e) => return Err(e),
        }
    }
    current.reverse();
    for (id, hot_dir) in older.into_iter().rev() {
        let wal_path = hot_dir.join(WAL_FILE);
        let empty = std::fs::metadata(&wal_path).map_or(true, |m| m.len() <= HEADER_LEN as u64);
        if !empty {
            roll_dir(dir, id, &hot_dir)?;
        }
        std::fs::remove_dir_all(&hot_dir).at(&hot_dir)?;
    }
    fsync_dir(dir)?;
    Ok((current, max_id.map_or(0, |m| m + 1), report))
}

/// Scans the WAL of hot bucket `path`, cuts a torn tail and, with `open`, reopens it for
/// appending with its index rebuilt (else returns `None`; the caller rolls it from the WAL).
fn replay(
    path: &Path,
    id: u64,
    report: &mut RecoveryReport,
    open: bool,
) -> Result<Option<Hot>, StoreError> {
    let wal_path = path.join(WAL_FILE);
    let len = std::fs::metadata(&wal_path).map(|m| m.len()).unwrap_or(0);
    if len < HEADER_LEN as u64 {
        // Crash while the WAL was being created: nothing was ever acknowledged in it.
        if wal_path.exists() {
            std::fs::remove_file(&wal_path).at(&wal_path)?;
        }
        report.truncated_bytes += len;
        let wal = WalWriter::create(&wal_path)?;
        fsync_dir(path)?;
        if !open {
            return Ok(None);
        }
        return Ok(Some(new_hot(id, wal, Registration::new(path, id, None)?)));
    }
    let (mut events, mut raw, mut min, mut max) = (0u64, 0u64, i64::MAX, i64::MIN);
    let index = if open {
        Some(Registration::new(path, id, None)?)
    } else {
        None
    };
    let scan = {
        let mut ix = index.as_ref().map(|r| r.write());
        wal::for_each_event(&wal_path, |e| {
            events += 1;
            raw += e.raw.len() as u64;
            min = min.min(e.time);
            max = max.max(e.time);
            match &mut ix {
                Some(ix) => ix.push(e),
                None => Ok(()),
            }
        })?
    };
    report.replayed_events += events;
    report.truncated_bytes += scan.file_len - scan.valid_len;
    let wal = WalWriter::open_truncated(&wal_path, scan.valid_len)?;
    let Some(index) = index else {
        return Ok(None);
    };
    let mut hot = new_hot(id, wal, index);
    hot.events = events;
    hot.raw_bytes = raw;
    hot.min_time = min;
    hot.max_time = max;
    Ok(Some(hot))
}
