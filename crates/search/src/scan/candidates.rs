//! Per bucket: open it and choose the events worth reading (time, bloom, postings, time column).

use lode_store::consts::COLUMNS_BLOCK_EVENTS;
use lode_store::{BucketRead, StoreError, TermQuery};
use roaring::RoaringBitmap;

use super::source::BucketRef;
use super::{is_corrupt, warn_corrupt, ScanCtx};
use crate::run::SearchStats;
use crate::SearchError;

/// An opened bucket and its candidate event numbers (ascending).
pub struct Opened {
    /// The bucket reader.
    pub bucket: Box<dyn BucketRead + Send + Sync>,
    /// Event numbers selected by the term query and the time range, ascending, never empty.
    pub ids: Vec<u32>,
    /// The same candidates as the bitmap the term query gave, when no time filter dropped any
    /// (counting intersects it with field postings without rebuilding it from `ids`).
    pub bits: Option<RoaringBitmap>,
}

/// Opens `b` and selects its candidates, recording the path taken. `Ok(None)`: nothing to read
/// (pruned by time, bloom skip, no candidate, or corrupt — skipped with a warning).
pub fn open_candidates(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    stats: &mut SearchStats,
) -> Result<Option<Opened>, SearchError> {
    if !ctx
        .range
        .overlaps_secs(b.info.min_time_secs, b.info.max_time_secs)
    {
        stats.buckets_pruned_time += 1;
        ctx.note(stats, || {
            format!("{}: pruned by time (directory name)", b.label)
        });
        return Ok(None);
    }
    let bucket = match super::source::open(&b.info) {
        Ok(r) => r,
        Err(e) if is_corrupt(&e) => {
            warn_corrupt(stats, &b.label, &e);
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    match select(ctx, b, bucket.as_ref(), stats) {
        Ok(Some((ids, bits))) => Ok(Some(Opened { bucket, ids, bits })),
        Ok(None) => Ok(None),
        Err(e) if is_corrupt(&e) => {
            warn_corrupt(stats, &b.label, &e);
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// A bucket's candidates: the ids, and the term query's bitmap when it holds exactly them.
type Selected = (Vec<u32>, Option<RoaringBitmap>);

/// The fast path of one opened bucket: metadata time prune → bloom → postings or full scan →
/// time filter (none when the range covers the bucket; otherwise per candidate, or the whole
/// time column for a full scan or dense candidates, see [`is_dense`]).
fn select(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    bucket: &dyn BucketRead,
    stats: &mut SearchStats,
) -> Result<Option<Selected>, StoreError> {
    let meta = bucket.meta();
    let count = u32::try_from(meta.event_count)
        .map_err(|_| StoreError::corrupt(&b.info.path, "event count beyond u32"))?;
    if count == 0 {
        ctx.note(stats, || format!("{}: empty", b.label));
        return Ok(None);
    }
    if !ctx.range.overlaps(meta.min_time, meta.max_time) {
        stats.buckets_pruned_time += 1;
        ctx.note(stats, || format!("{}: pruned by time (metadata)", b.label));
        return Ok(None);
    }
    if let Some(t) = ctx.required.iter().find(|t| !bucket.may_contain(t)) {
        stats.buckets_skipped_bloom += 1;
        ctx.note(stats, || {
            format!(
                "{}: bloom skip (no '{}')",
                b.label,
                String::from_utf8_lossy(t)
            )
        });
        return Ok(None);
    }
    let mut bits = None;
    let ids = if ctx.range.covers(meta.min_time, meta.max_time) {
        // Every event is in range: no time lookup at all.
        match ctx.query {
            TermQuery::All => (0..count).collect(),
            q => {
                let b = bucket.eval(q)?;
                let ids = ids_below(&b, count);
                if ids.len() as u64 == b.len() {
                    bits = Some(b);
                }
                ids
            }
        }
    } else {
        match ctx.query {
            // A full scan reads every event anyway: the whole time column is the cheapest.
            TermQuery::All => {
                let times = all_times(bucket, b, count)?;
                (0..count)
                    .filter(|&n| ctx.range.contains(times[n as usize]))
                    .collect()
            }
            q => {
                let cands = bucket.eval(q)?;
                if is_dense(cands.len(), count as u64) {
                    let times = all_times(bucket, b, count)?;
                    let mut ids = ids_below(&cands, count);
                    ids.retain(|&n| ctx.range.contains(times[n as usize]));
                    ids
                } else {
                    // Per-event times decode just the column blocks holding the candidates.
                    let mut ids = Vec::new();
                    for n in cands.iter().filter(|&n| n < count) {
                        if ctx.range.contains(bucket.time(n)?) {
                            ids.push(n);
                        }
                    }
                    ids
                }
            }
        }
    };
    stats.events_candidate += ids.len() as u64;
    ctx.note(stats, || match ctx.query {
        TermQuery::All => format!(
            "{}: full scan because the search clause has no indexable term ({} of {} events in time range)",
            b.label,
            ids.len(),
            count
        ),
        _ => format!("{}: index postings ({} candidates of {} events)", b.label, ids.len(), count),
    });
    if ids.is_empty() {
        return Ok(None);
    }
    stats.buckets_read += 1;
    Ok(Some((ids, bits)))
}

/// Numbers in one roaring container.
const FULL_CONTAINER: u64 = 1 << 16;

/// The members of `bits` below `count`, ascending, taken many at a time (roaring's
/// `next_many`): a dense term's candidates are millions of numbers, and one-by-one iteration
/// was a fifth of a `<word> | head 10`.
///
/// roaring 0.12's `next_many` mishandles a run covering a whole 2^16-number container (its
/// length, 65,536, overflows a u16: release builds skip the run's numbers, debug builds panic).
/// Such runs are common (a term in every event of a 65,536-event stretch), so a container that
/// is one full run is taken through the plain iterator, which is right.
pub fn ids_below(bits: &RoaringBitmap, count: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(bits.range_cardinality(..count) as usize);
    let mut buf = [0u32; 1024];
    let mut high = 0u64;
    while high << 16 < count as u64 {
        let lo = (high << 16) as u32;
        let hi = (((high + 1) << 16) - 1).min(count as u64 - 1) as u32;
        match bits.range_cardinality(lo..=hi) {
            0 => {}
            FULL_CONTAINER => out.extend(lo..=hi),
            _ => {
                let mut it = bits.range(lo..=hi);
                loop {
                    let got = it.next_many(&mut buf);
                    if got.is_empty() {
                        break;
                    }
                    out.extend_from_slice(got);
                }
            }
        }
        high += 1;
    }
    out
}

/// Whether `candidates` of a bucket's `events` are dense enough that decoding every column block
/// at once (the whole-column accessors) costs no more than decoding just theirs: with about one
/// candidate per column block or more, nearly every block is touched anyway, and whole columns
/// are then cheaper to index per event.
pub fn is_dense(candidates: u64, events: u64) -> bool {
    candidates.saturating_mul(COLUMNS_BLOCK_EVENTS as u64) >= events
}

/// The whole time column (every column block decoded once), checked against the event count.
fn all_times<'a>(
    bucket: &'a dyn BucketRead,
    b: &BucketRef,
    count: u32,
) -> Result<&'a [i64], StoreError> {
    bucket.prepare()?;
    let times = bucket.times();
    if times.len() != count as usize {
        return Err(StoreError::corrupt(
            &b.info.path,
            "time column length differs from event count",
        ));
    }
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_below_lists_the_members_below_the_count() {
        let mut bits = RoaringBitmap::new();
        bits.insert_range(10..70_000); // bitmap and full containers
        bits.extend((100_000..200_000).step_by(97)); // array containers
        bits.insert_range(300_000..300_005);
        // Whole containers as one run each (roaring 0.12's next_many skips them).
        bits.insert_range(393_216..524_288);
        bits.insert(u32::MAX);
        for count in [
            0,
            5,
            11,
            65_536,
            70_000,
            150_001,
            300_003,
            393_217,
            458_752,
            500_000,
            524_288,
            600_000,
            u32::MAX,
        ] {
            let want: Vec<u32> = bits.iter().filter(|&n| n < count).collect();
            assert_eq!(ids_below(&bits, count), want, "count {count}");
        }
        assert!(ids_below(&RoaringBitmap::new(), 10).is_empty());
    }
}
