//! Read-ahead for the time-ordered scan: a background thread opens the next buckets (files,
//! bloom, postings, candidates sorted newest first) while the merge reads the current ones.
//!
//! The thread walks the buckets in the merge's opening order and hands each prepared
//! [`Cursor`] (or `None` when the bucket has nothing to read) over a channel of [`DEPTH`] slots,
//! so at most `DEPTH + 1` buckets are prepared ahead of the merge. `DEPTH` is 0 (a rendezvous):
//! one bucket is prepared while the merge reads the current ones, and a search that stops early
//! (`head` on a dense term) wastes at most one preparation — with one slot it prepared two
//! buckets it never read, each decoding postings and the time column. The stats and explain lines of
//! a prepared bucket travel with it and count only when the merge takes it: a search that stops
//! early (`head`) reports the same figures as without read-ahead, and an error opening a bucket
//! the merge never reaches does not fail the search. Dropping the [`Ahead`] stops the thread at
//! its next hand-over.
//!
//! Naive twin: opening each bucket in the merge thread when it is needed (`open_candidates`
//! then `Cursor::new`), which is what the thread does, earlier.

use std::sync::mpsc;
use std::thread::Scope;

use super::candidates::open_candidates;
use super::cursor::Cursor;
use super::source::BucketRef;
use super::ScanCtx;
use crate::run::SearchStats;
use crate::SearchError;

/// Buckets prepared ahead and waiting in the channel.
pub const DEPTH: usize = 0;

/// One prepared bucket: its cursor (`None`: nothing to read) and what preparing it did.
type Prepared = (Result<Option<Cursor>, SearchError>, SearchStats);

/// The receiving end of the read-ahead thread.
pub struct Ahead {
    rx: mpsc::Receiver<Prepared>,
}

impl Ahead {
    /// Starts preparing `buckets` in order on a thread of `scope`.
    pub fn start<'scope, 'env: 'scope>(
        scope: &'scope Scope<'scope, 'env>,
        ctx: &'env ScanCtx<'env>,
        buckets: &'env [BucketRef],
    ) -> Ahead {
        let (tx, rx) = mpsc::sync_channel::<Prepared>(DEPTH);
        scope.spawn(move || {
            for b in buckets {
                let mut st = SearchStats::default();
                let r = open_candidates(ctx, b, &mut st)
                    .map(|o| o.map(|opened| Cursor::new(b.clone(), opened, true)));
                if tx.send((r, st)).is_err() {
                    return;
                }
            }
        });
        Ahead { rx }
    }

    /// The next bucket's cursor, its stats added to `stats`; `Ok(None)` when it has nothing to
    /// read. Call once per bucket, in order.
    pub fn next(&self, stats: &mut SearchStats) -> Result<Option<Cursor>, SearchError> {
        let (r, st) = self
            .rx
            .recv()
            .map_err(|_| SearchError::Io("bucket read-ahead thread ended early".into()))?;
        stats.absorb(st);
        r
    }
}
