//! Read-ahead for the time-ordered scan: the next buckets (files, bloom, postings, candidates
//! sorted newest first) are prepared while the merge reads the current ones.
//!
//! Threaded, a background thread walks the buckets in the merge's opening order and hands each
//! prepared [`Cursor`] (or `None` when the bucket has nothing to read) over a channel of
//! [`DEPTH`] slots, so at most `DEPTH + 1` buckets are prepared ahead of the merge. `DEPTH` is
//! 0 (a rendezvous): one bucket is prepared while the merge reads the current ones, and a search
//! that stops early (`head` on a dense term) wastes at most one preparation — with one slot it
//! prepared two buckets it never read, each decoding postings and the time column. The stats and
//! explain lines of a prepared bucket travel with it and count only when the merge takes it: a
//! search that stops early (`head`) reports the same figures as without read-ahead, and an error
//! opening a bucket the merge never reaches does not fail the search. Dropping the [`Ahead`]
//! stops the thread at its next hand-over.
//!
//! The thread only pays while a core would otherwise be idle ([`spare_core`]): a search alone
//! overlaps its buckets' preparation with its reading (super-sparse `head 100` over 14 buckets,
//! 15.6 ms against 16.8–18.5 inline), but under many concurrent searches the thread's start, its
//! hand-overs and the prepared data reaching the merge from another core's cache cost more than
//! they hide: 8 clients of the service scenario ran 32–50 % more searches per CPU-second with
//! every bucket prepared inline. Inline, a bucket is prepared when the merge asks for it.
//!
//! Naive twin: opening each bucket in the merge thread when it is needed (`open_candidates`
//! then `Cursor::new`), which is what the inline way does and the thread does earlier.

use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Searches of this process scanning buckets now (event and batch searches).
static SCANNING: AtomicUsize = AtomicUsize::new(0);

/// Counts one running scan while held.
pub struct Scanning(());

impl Scanning {
    /// Counts the caller's scan until the returned guard is dropped.
    pub fn enter() -> Scanning {
        SCANNING.fetch_add(1, Ordering::Relaxed);
        Scanning(())
    }
}

impl Drop for Scanning {
    fn drop(&mut self) {
        SCANNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether the running scans (the caller's among them) leave a core idle for a read-ahead
/// thread.
pub fn spare_core() -> bool {
    SCANNING.load(Ordering::Relaxed) < crate::run::cores()
}

/// One prepared bucket: its cursor (`None`: nothing to read) and what preparing it did.
type Prepared = (Result<Option<Cursor>, SearchError>, SearchStats);

/// Where the merge's next buckets come from.
pub struct Ahead<'a> {
    way: Way<'a>,
}

enum Way<'a> {
    /// The receiving end of the read-ahead thread.
    Thread(mpsc::Receiver<Prepared>),
    /// Prepared in the merge's thread when asked: the buckets not asked for yet.
    Inline {
        ctx: &'a ScanCtx<'a>,
        rest: std::slice::Iter<'a, BucketRef>,
    },
}

impl<'a> Ahead<'a> {
    /// Prepares `buckets` in order: on a thread of `scope` when `threaded`, else one at a time
    /// as [`Ahead::next`] asks.
    pub fn start<'scope>(
        scope: &'scope Scope<'scope, 'a>,
        ctx: &'a ScanCtx<'a>,
        buckets: &'a [BucketRef],
        threaded: bool,
    ) -> Ahead<'a> {
        if !threaded {
            return Ahead {
                way: Way::Inline {
                    ctx,
                    rest: buckets.iter(),
                },
            };
        }
        let (tx, rx) = mpsc::sync_channel::<Prepared>(DEPTH);
        scope.spawn(move || {
            for b in buckets {
                if tx.send(prepare(ctx, b)).is_err() {
                    return;
                }
            }
        });
        Ahead {
            way: Way::Thread(rx),
        }
    }

    /// The next bucket's cursor, its stats added to `stats`; `Ok(None)` when it has nothing to
    /// read. Call once per bucket, in order.
    pub fn next(&mut self, stats: &mut SearchStats) -> Result<Option<Cursor>, SearchError> {
        let ended = || SearchError::Io("bucket read-ahead ended early".into());
        let (r, st) = match &mut self.way {
            Way::Thread(rx) => rx.recv().map_err(|_| ended())?,
            Way::Inline { ctx, rest } => prepare(ctx, rest.next().ok_or_else(ended)?),
        };
        stats.absorb(st);
        r
    }
}

/// Opens `b` and orders its candidates newest first, with what that did.
fn prepare(ctx: &ScanCtx<'_>, b: &BucketRef) -> Prepared {
    let mut st = SearchStats::default();
    let r = open_candidates(ctx, b, &mut st)
        .map(|o| o.map(|opened| Cursor::new(b.clone(), opened, true)));
    (r, st)
}
