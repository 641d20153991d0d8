//! Time-ordered scan: a k-way merge by [`Key`] across every bucket, newest first.
//!
//! Buckets may overlap in time (a hot bucket and warm ones, several pipelines), so results are
//! merged, not concatenated. Buckets are taken in descending order of their name's time upper
//! bound and a bucket is only opened once the merge frontier (the newest row not yet emitted)
//! is not newer than that bound — before that, none of its events can come next. With `head N`
//! the merge stops as soon as the executor says so, leaving older buckets unopened. While a core
//! is spare, buckets are prepared (opened, candidates chosen and sorted) one ahead by a
//! background thread, so opening the next bucket overlaps reading the current ones; otherwise
//! each is prepared when the merge opens it ([`super::prefetch`]).
//!
//! Naive twin: [`super::naive`] reads every event, sorts all matches by key and pushes them.

use std::collections::{BinaryHeap, VecDeque};

use super::cursor::Cursor;
use super::prefetch::Ahead;
use super::sink::Sink;
use super::source::{BucketRef, Key};
use super::{is_corrupt, warn_corrupt, ScanCtx};
use crate::row::Row;
use crate::run::SearchStats;
use crate::SearchError;

/// An open bucket in the merge: its cursor and the verified rows read but not yet merged.
struct Lane {
    cursor: Cursor,
    /// Rows in newest-first order.
    ready: VecDeque<(Key, Row)>,
}

/// Runs the merge over `buckets`, pushing rows newest first into `sink`.
pub fn run(
    ctx: &ScanCtx<'_>,
    mut buckets: Vec<BucketRef>,
    sink: &mut Sink<'_>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    buckets.sort_by(|a, b| {
        (b.max_time_bound(), b.index_pos, b.info.id).cmp(&(
            a.max_time_bound(),
            a.index_pos,
            a.info.id,
        ))
    });
    // A thread of its own pays only with a second bucket to prepare and a core to spare.
    let threaded = buckets.len() > 1 && ctx.read_ahead.unwrap_or_else(super::prefetch::spare_core);
    std::thread::scope(|s| {
        let mut ahead = Ahead::start(s, ctx, &buckets, threaded);
        merge(ctx, &buckets, &mut ahead, sink, stats)
    })
}

/// The merge proper over `buckets` (in opening order), prepared by `ahead`.
fn merge(
    ctx: &ScanCtx<'_>,
    buckets: &[BucketRef],
    ahead: &mut Ahead<'_>,
    sink: &mut Sink<'_>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let mut lanes: Vec<Option<Lane>> = Vec::new();
    let mut heap: BinaryHeap<(Key, usize)> = BinaryHeap::new();
    let mut scratch: Vec<(Key, Row)> = Vec::new();
    let mut next = 0;
    loop {
        // Open every bucket that could hold the next row.
        while let Some(b) = buckets.get(next) {
            if heap
                .peek()
                .is_some_and(|(k, _)| k.time > b.max_time_bound())
            {
                break;
            }
            next += 1;
            let Some(cursor) = ahead.next(stats)? else {
                continue;
            };
            let mut lane = Lane {
                cursor,
                ready: VecDeque::new(),
            };
            if refill(ctx, &mut lane, &mut scratch, stats)? {
                if let Some((k, _)) = lane.ready.front() {
                    heap.push((*k, lanes.len()));
                }
                lanes.push(Some(lane));
            }
        }
        let Some((_, li)) = heap.pop() else {
            break;
        };
        let Some(lane) = lanes[li].as_mut() else {
            continue;
        };
        if let Some((_, row)) = lane.ready.pop_front() {
            sink.push(row)?;
        }
        if sink.stopped() {
            break;
        }
        if refill(ctx, lane, &mut scratch, stats)? {
            if let Some((k, _)) = lane.ready.front() {
                heap.push((*k, li));
            }
        } else {
            lanes[li] = None;
        }
    }
    for b in &buckets[next..] {
        ctx.note(stats, || {
            format!("{}: not opened (search stopped early)", b.label)
        });
    }
    sink.flush()
}

/// Makes sure `lane` has a row ready unless exhausted. Returns false when the lane is finished
/// (exhausted, or found corrupt mid-read: skipped with a warning).
fn refill(
    ctx: &ScanCtx<'_>,
    lane: &mut Lane,
    scratch: &mut Vec<(Key, Row)>,
    stats: &mut SearchStats,
) -> Result<bool, SearchError> {
    while lane.ready.is_empty() {
        if lane.cursor.is_done() {
            return Ok(false);
        }
        scratch.clear();
        match lane.cursor.read_chunk(
            ctx.verify_clause(),
            ctx.columns_only,
            ctx.slim_rows,
            scratch,
            stats,
        ) {
            Ok(()) => lane.ready.extend(scratch.drain(..)),
            Err(e) if is_corrupt(&e) => {
                warn_corrupt(stats, &lane.cursor.src.label, &e);
                return Ok(false);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(true)
}
