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

/// An open bucket in the merge: its cursor and the rows (or, lazily, only the keys) read but
/// not yet merged.
struct Lane {
    cursor: Cursor,
    /// Rows in newest-first order; `None`: the event is read when the merge emits it.
    ready: VecDeque<(Key, Option<Row>)>,
}

/// Most rows read at once when a lazy lane's next rows are emitted (see [`read_next_rows`]).
const MAX_LAZY_ROWS: usize = 1024;

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
    let mut scratch = Scratch::default();
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
        if lane.ready.front().is_some_and(|(_, row)| row.is_none()) {
            // Rows certain to come next: newer than every other open lane's next and than
            // what the next bucket to open could hold.
            let other = heap.peek().map(|&(k, _)| k);
            let unopened = buckets.get(next).map(BucketRef::max_time_bound);
            let sure =
                |k: &Key| other.is_none_or(|o| *k > o) && unopened.is_none_or(|t| k.time > t);
            if !read_next_rows(ctx, lane, &sure, &mut scratch, stats)? {
                lanes[li] = None;
                continue;
            }
        }
        if let Some((_, Some(row))) = lane.ready.pop_front() {
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

/// Buffers of the merge's reads.
#[derive(Default)]
struct Scratch {
    rows: Vec<(Key, Row)>,
    keys: Vec<Key>,
    nums: Vec<u32>,
    read: Vec<(u32, Row)>,
}

/// Makes sure `lane` has a row (or a key) ready unless exhausted. Returns false when the lane is
/// finished (exhausted, or found corrupt mid-read: skipped with a warning). When the term query
/// decides the clause exactly (nothing to verify) and rows are events, only the keys are read
/// here (rule LAZY-ROWS): a newest-first `head 10` over buckets that overlap in time fills a
/// first chunk in each, and most of those events are never emitted — their slices were a fifth
/// of the 10 GB service's CPU.
fn refill(
    ctx: &ScanCtx<'_>,
    lane: &mut Lane,
    scratch: &mut Scratch,
    stats: &mut SearchStats,
) -> Result<bool, SearchError> {
    let lazy = ctx.verify_clause().is_none() && !ctx.columns_only;
    while lane.ready.is_empty() {
        if lane.cursor.is_done() {
            return Ok(false);
        }
        let read = if lazy {
            scratch.keys.clear();
            lane.cursor.read_keys(&mut scratch.keys).map(|()| {
                lane.ready.extend(scratch.keys.drain(..).map(|k| (k, None)));
            })
        } else {
            scratch.rows.clear();
            lane.cursor
                .read_chunk(
                    ctx.verify_clause(),
                    ctx.columns_only,
                    ctx.slim_rows,
                    &mut scratch.rows,
                    stats,
                )
                .map(|()| {
                    lane.ready
                        .extend(scratch.rows.drain(..).map(|(k, r)| (k, Some(r))));
                })
        };
        if !sound(lane, read, stats)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a read of `lane` went well: a corrupt bucket is skipped with a warning (false),
/// any other error ends the search.
fn sound(
    lane: &Lane,
    read: Result<(), lode_store::StoreError>,
    stats: &mut SearchStats,
) -> Result<bool, SearchError> {
    match read {
        Ok(()) => Ok(true),
        Err(e) if is_corrupt(&e) => {
            warn_corrupt(stats, &lane.cursor.src.label, &e);
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

/// Reads the events of `lane`'s first row and of the unread rows after it that `sure` says
/// come next, all at once (in event order, sharing their slices). Returns false when the lane
/// is found corrupt (skipped with a warning).
fn read_next_rows(
    ctx: &ScanCtx<'_>,
    lane: &mut Lane,
    sure: &dyn Fn(&Key) -> bool,
    scratch: &mut Scratch,
    stats: &mut SearchStats,
) -> Result<bool, SearchError> {
    scratch.nums.clear();
    let mut prefix = 0;
    for (k, row) in &lane.ready {
        if (prefix > 0 && !sure(k)) || scratch.nums.len() >= MAX_LAZY_ROWS {
            break;
        }
        prefix += 1;
        if row.is_none() {
            scratch.nums.push(k.num);
        }
    }
    scratch.nums.sort_unstable();
    scratch.read.clear();
    let read = lane
        .cursor
        .read_rows(&scratch.nums, ctx.slim_rows, &mut scratch.read, stats);
    if !sound(lane, read, stats)? {
        return Ok(false);
    }
    // Rows come in event order; the lane's in key order.
    scratch.read.sort_unstable_by_key(|r| r.0);
    for (k, row) in lane.ready.iter_mut().take(prefix) {
        if row.is_none() {
            if let Ok(i) = scratch.read.binary_search_by_key(&k.num, |r| r.0) {
                *row = Some(std::mem::take(&mut scratch.read[i].1));
            }
        }
    }
    Ok(true)
}
