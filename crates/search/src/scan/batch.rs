//! Batch scan for transforming searches whose result does not depend on the order rows arrive
//! in: buckets are read in parallel by up to `workers` threads, each bucket's rows go through a
//! worker's [`PartialExec`] (streaming prefix + partial state), and the calling thread merges the
//! per-bucket partial states in bucket order (index order, then bucket id) into a [`FinalExec`].
//!
//! Merging per bucket and in a fixed order makes the rows, the stats and the explain lines the
//! same for any number of workers (and the same as one pass over the rows in that order), at the
//! cost of holding the partial states of buckets finished ahead of a slow one until it is done.
//! A corrupt bucket is skipped with a warning; any other error stops every worker and fails the
//! search (the error of the earliest bucket wins, so the error does not depend on timing).
//!
//! Naive twin: [`super::naive`] pushes every event of every bucket, in the same order, through
//! the unsplit [`crate::ops::Executor`].

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::candidates::open_candidates;
use super::cursor::Cursor;
use super::source::{BucketRef, Key};
use super::{is_corrupt, warn_corrupt, ScanCtx};
use crate::ops::{Partial, PartialExec, Split};
use crate::row::Row;
use crate::run::SearchStats;
use crate::SearchError;

/// What a worker reports for one bucket: its partial state and what reading it did.
type Done = (usize, Result<(Partial, SearchStats), SearchError>);

/// Runs the batch scan over `buckets` with up to `workers` threads; emits the final rows and
/// returns how many there were.
pub fn run(
    ctx: &ScanCtx<'_>,
    buckets: &[BucketRef],
    split: &Split,
    workers: usize,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
    stats: &mut SearchStats,
) -> Result<u64, SearchError> {
    let mut fin = split.final_exec()?;
    let workers = workers.clamp(1, buckets.len().max(1));
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let mut first_err: Option<(usize, SearchError)> = None;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<Done>();
        for _ in 0..workers {
            let (tx, next, abort) = (tx.clone(), &next, &abort);
            s.spawn(move || work(ctx, buckets, split, next, abort, &tx));
        }
        drop(tx);
        // Merge in bucket order; hold states that arrive early.
        let mut pending: BTreeMap<usize, (Partial, SearchStats)> = BTreeMap::new();
        let mut merge_at = 0;
        for (i, r) in rx {
            match r {
                Ok(done) => {
                    pending.insert(i, done);
                }
                Err(e) => {
                    abort.store(true, Ordering::Relaxed);
                    keep_earliest(&mut first_err, i, e);
                }
            }
            while let Some((p, st)) = pending.remove(&merge_at) {
                stats.absorb(st);
                if let Err(e) = fin.merge(p) {
                    abort.store(true, Ordering::Relaxed);
                    keep_earliest(&mut first_err, merge_at, e);
                }
                merge_at += 1;
            }
        }
    });
    if let Some((_, e)) = first_err {
        return Err(e);
    }
    let mut out = Vec::new();
    fin.finish(&mut out)?;
    let n = out.len() as u64;
    if n > 0 {
        emit(out)?;
    }
    Ok(n)
}

/// Keeps the error of the earliest bucket.
fn keep_earliest(slot: &mut Option<(usize, SearchError)>, i: usize, e: SearchError) {
    if slot.as_ref().is_none_or(|(j, _)| i < *j) {
        *slot = Some((i, e));
    }
}

/// One worker: takes the next unread bucket until none is left or the search is aborted.
fn work(
    ctx: &ScanCtx<'_>,
    buckets: &[BucketRef],
    split: &Split,
    next: &AtomicUsize,
    abort: &AtomicBool,
    tx: &mpsc::Sender<Done>,
) {
    let mut exec = match split.worker() {
        Ok(e) => e,
        Err(e) => {
            let _ = tx.send((0, Err(e)));
            return;
        }
    };
    let mut rows: Vec<(Key, Row)> = Vec::new();
    while !abort.load(Ordering::Relaxed) {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(b) = buckets.get(i) else {
            return;
        };
        let mut st = SearchStats::default();
        let r = read_bucket(ctx, b, &mut exec, &mut rows, &mut st).map(|()| (exec.take(), st));
        if tx.send((i, r)).is_err() {
            return;
        }
    }
}

/// Reads one bucket's verified rows into `exec`. A bucket found corrupt is skipped with a
/// warning, and so are the rows it had already given (its partial state is dropped), as the
/// naive twin drops them.
fn read_bucket(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    exec: &mut PartialExec,
    rows: &mut Vec<(Key, Row)>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let Some(opened) = open_candidates(ctx, b, stats)? else {
        return Ok(());
    };
    if let Some(cols) = ctx.counted {
        let mut counted = Vec::new();
        let bucket = opened.bucket.as_ref();
        // A clause the term query does not decide is checked on each candidate first (in place,
        // no row), then the matches are counted like exact candidates.
        let cands = &opened.cands;
        let scanned = cands.len();
        let (ids, bits) = match ctx.verify_clause() {
            None => (Ok(cands.list()), cands.bits()),
            Some(clause) => (
                super::cursor::verify_ids(bucket, b, clause, &cands.list()).map(Cow::Owned),
                None,
            ),
        };
        let counted_ok =
            ids.and_then(|ids| super::counted::count(bucket, b, &ids, bits, cols, &mut counted));
        match counted_ok {
            Ok((n, path)) => {
                ctx.note(stats, || format!("{}: {}", b.label, path.describe()));
                stats.events_scanned += scanned;
                stats.events_matched += n;
                exec.push_counted(counted)?;
            }
            Err(e) if is_corrupt(&e) => warn_corrupt(stats, &b.label, &e),
            Err(e) => return Err(e.into()),
        }
        return Ok(());
    }
    let mut cursor = Cursor::new(b.clone(), opened, false);
    while !cursor.is_done() {
        rows.clear();
        match cursor.read_chunk(
            ctx.verify_clause(),
            ctx.columns_only,
            ctx.slim_rows,
            rows,
            stats,
        ) {
            Ok(()) => {}
            Err(e) if is_corrupt(&e) => {
                warn_corrupt(stats, &b.label, &e);
                drop(exec.take());
                break;
            }
            Err(e) => return Err(e.into()),
        }
        exec.push(rows.drain(..).map(|(_, r)| r).collect())?;
    }
    Ok(())
}
