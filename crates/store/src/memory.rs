//! What this process's hot buckets hold in memory, so that the search caches give way to
//! indexing.
//!
//! Indexing and searching share one machine. A hot bucket holds its term postings, column
//! chunks and compressed slices in memory (~128 MB for a full 128 MB bucket) until its roll has
//! written the warm bucket, and the next bucket fills meanwhile; the search caches would keep
//! their whole budgets on top (about 130 MB at the 1 GB burst's peak). So every hot index an
//! index writer holds reports its heap here after each batch it adds, and withdraws it when
//! the writer lets go of it (after the roll). The process-wide caches (the slice cache and the
//! search crate's bucket cache) shrink their budgets by this figure, down to
//! 1/[`FLOOR_SHARE`] of what is configured ([`yielding`]): while nothing is being indexed
//! they keep their whole budgets.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Heap bytes of the hot indexes the index writers of this process hold.
static HOT_BYTES: AtomicU64 = AtomicU64::new(0);

/// Rolls and merges running in this process: the two steps of indexing that hold large
/// buffers for a while, reported with a memory peak to tell what met there.
static ROLLS: AtomicU32 = AtomicU32::new(0);
static MERGES: AtomicU32 = AtomicU32::new(0);

/// Counts one running roll or merge while it lives.
pub(crate) struct Running(&'static AtomicU32);

impl Running {
    /// A roll starts (until the guard drops).
    pub(crate) fn roll() -> Running {
        Running::of(&ROLLS)
    }

    /// A merge starts (until the guard drops).
    pub(crate) fn merge() -> Running {
        Running::of(&MERGES)
    }

    fn of(counter: &'static AtomicU32) -> Running {
        counter.fetch_add(1, Ordering::Relaxed);
        Running(counter)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `(rolls, merges)` running in this process now.
pub fn running() -> (u32, u32) {
    (
        ROLLS.load(Ordering::Relaxed),
        MERGES.load(Ordering::Relaxed),
    )
}

/// A cache keeps at least 1/n of its configured budget however much hot buckets hold: a
/// quarter keeps a few buckets' readers and the newest slices for the searches running.
pub const FLOOR_SHARE: u64 = 4;

/// Heap bytes the hot indexes of this process's index writers hold now.
pub fn hot_bytes() -> u64 {
    HOT_BYTES.load(Ordering::Relaxed)
}

/// Records that a hot index that had reported `old` bytes now holds `new`.
pub(crate) fn hot_changed(old: u64, new: u64) {
    if new >= old {
        HOT_BYTES.fetch_add(new - old, Ordering::Relaxed);
    } else {
        HOT_BYTES.fetch_sub(old - new, Ordering::Relaxed);
    }
}

/// A cache's budget now: its configured `budget` less `hot` bytes held by hot buckets, but at
/// least 1/[`FLOOR_SHARE`] of it (0 stays 0: the cache is off).
pub fn yielding(budget: u64, hot: u64) -> u64 {
    budget.saturating_sub(hot).max(budget / FLOOR_SHARE)
}

/// The budget now of a cache configured with `budget` that gives way to what `yield_to`
/// reports ([`hot_bytes`] for the process-wide caches; none: a fixed budget).
pub fn budget_now(budget: u64, yield_to: Option<fn() -> u64>) -> u64 {
    match yield_to {
        Some(bytes) => yielding(budget, bytes()),
        None => budget,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_guard_counts_while_it_lives() {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let one = Running::of(&COUNT);
        let two = Running::of(&COUNT);
        assert_eq!(COUNT.load(Ordering::Relaxed), 2);
        drop(one);
        assert_eq!(COUNT.load(Ordering::Relaxed), 1);
        drop(two);
        assert_eq!(COUNT.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn budgets_yield_to_hot_bytes_down_to_a_floor() {
        assert_eq!(yielding(128, 0), 128);
        assert_eq!(yielding(128, 28), 100);
        assert_eq!(yielding(128, 100), 32);
        assert_eq!(yielding(128, u64::MAX), 32);
        assert_eq!(yielding(0, 0), 0);
        assert_eq!(yielding(0, 10), 0);
    }
}
