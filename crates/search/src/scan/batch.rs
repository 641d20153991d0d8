//! Batch scan for transforming searches: buckets one after another (index order, then bucket id),
//! events in event-number order; the result does not depend on the order rows arrive in.
//!
//! Naive twin: [`super::naive`] reads every event of every bucket in the same order.

use super::candidates::open_candidates;
use super::cursor::Cursor;
use super::sink::Sink;
use super::source::{BucketRef, Key};
use super::{is_corrupt, warn_corrupt, ScanCtx};
use crate::row::Row;
use crate::run::SearchStats;
use crate::SearchError;

/// Runs the batch scan over `buckets`, pushing verified rows into `sink`.
pub fn run(
    ctx: &ScanCtx<'_>,
    buckets: Vec<BucketRef>,
    sink: &mut Sink<'_>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let mut rows: Vec<(Key, Row)> = Vec::new();
    for (i, b) in buckets.iter().enumerate() {
        if sink.stopped() {
            for rest in &buckets[i..] {
                ctx.note(stats, || {
                    format!("{}: not opened (search stopped early)", rest.label)
                });
            }
            break;
        }
        let Some(opened) = open_candidates(ctx, b, stats)? else {
            continue;
        };
        let mut cursor = Cursor::new(b.clone(), opened, false);
        while !cursor.is_done() && !sink.stopped() {
            rows.clear();
            match cursor.read_chunk(ctx.verify_clause(), ctx.columns_only, &mut rows, stats) {
                Ok(()) => {}
                Err(e) if is_corrupt(&e) => {
                    warn_corrupt(stats, &b.label, &e);
                    break;
                }
                Err(e) => return Err(e.into()),
            }
            for (_, row) in rows.drain(..) {
                sink.push(row)?;
            }
        }
    }
    sink.flush()
}
