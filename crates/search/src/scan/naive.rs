//! The naive twin of the whole scan (`force_scan`): no index use at all.
//!
//! Every event of every bucket of the selected indexes is read (no time pruning, no bloom, no
//! postings) and checked against the time range and the search clause. Time-ordered searches
//! then sort every match by [`Key`], newest first; batch searches keep index / bucket id / event
//! number order — the orders the fast paths promise. Holds all matches of a time-ordered search
//! in memory: it is the reference, not the fast path.

use lode_store::{open_bucket, BucketRead, StoreError};

use super::cursor::to_row;
use super::sink::Sink;
use super::source::{BucketRef, Key};
use super::{is_corrupt, warn_corrupt, ScanCtx};
use crate::matcher;
use crate::row::Row;
use crate::run::SearchStats;
use crate::SearchError;

/// Runs the naive scan over `buckets`, pushing matches into `sink`.
pub fn run(
    ctx: &ScanCtx<'_>,
    buckets: Vec<BucketRef>,
    sink: &mut Sink<'_>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let mut all: Vec<(Key, Row)> = Vec::new();
    for b in &buckets {
        let start = all.len();
        let result =
            open_bucket(&b.info).and_then(|r| read_all(ctx, b, r.as_ref(), &mut all, stats));
        match result {
            Ok(()) => ctx.note(stats, || {
                format!("{}: full scan because force_scan", b.label)
            }),
            Err(e) if is_corrupt(&e) => {
                all.truncate(start);
                warn_corrupt(stats, &b.label, &e);
            }
            Err(e) => return Err(e.into()),
        }
        if !ctx.time_ordered {
            for (_, row) in all.drain(..) {
                sink.push(row)?;
            }
        }
    }
    if ctx.time_ordered {
        all.sort_unstable_by_key(|r| std::cmp::Reverse(r.0));
        for (_, row) in all {
            sink.push(row)?;
        }
    }
    sink.flush()
}

/// Appends every event of `bucket` in range and matching the clause to `out`.
fn read_all(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    bucket: &dyn BucketRead,
    out: &mut Vec<(Key, Row)>,
    stats: &mut SearchStats,
) -> Result<(), StoreError> {
    let count = u32::try_from(bucket.meta().event_count)
        .map_err(|_| StoreError::corrupt(&b.info.path, "event count beyond u32"))?;
    stats.buckets_read += 1;
    stats.events_candidate += u64::from(count);
    bucket.read_events(&mut (0..count), &mut |v| {
        stats.events_scanned += 1;
        if ctx.range.contains(v.time) {
            let mut row = to_row(&v, &b.index, b.info.id);
            if ctx.clause.is_none_or(|c| matcher::matches(c, &mut row)) {
                stats.events_matched += 1;
                out.push((Key::new(b, v.time, v.num), row));
            }
        }
        true
    })
}
