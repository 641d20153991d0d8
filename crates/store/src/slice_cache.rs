//! A process-wide, memory-bounded cache of decompressed journal slices of warm buckets.
//!
//! Reading one event of a warm bucket decompresses its whole slice (~16 KiB). A server
//! answering many `<words> | head 10` searches reads the newest events of the same buckets
//! again and again, so the slices it decompressed last are kept here, least recently used
//! first out, under a byte budget. Entries are keyed by the reader's own number
//! ([`reader_id`], one per opened [`crate::WarmBucket`]) and the slice number: warm buckets are
//! immutable, so an entry never goes stale; entries of a reader that was dropped are never asked
//! again and leave as the budget pushes them out.
//!
//! Budget 0 disables the cache — the default until [`configure`] is called, so one-shot CLI
//! searches decompress as before. The server gives it `[search] slice_cache_mb` of
//! server.conf. The process-wide cache gives way to indexing: its budget shrinks by what the
//! hot buckets hold, down to a quarter ([`crate::memory::yielding`]).
//!
//! Naive twin: decompressing every time (`WarmBucket::slice` with the cache off); the answers
//! are the same bytes, checked by the test below and by every search test run under a server.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A cached slice: (reader number, slice number).
type Key = (u64, u32);

#[derive(Default)]
struct Inner {
    map: HashMap<Key, (Arc<[u8]>, u64)>,
    /// Use tick → key: the eviction order.
    order: BTreeMap<u64, Key>,
    bytes: u64,
    tick: u64,
}

/// Counters of the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SliceCacheStats {
    /// Slices answered from the cache.
    pub hits: u64,
    /// Slices decompressed and offered to the cache.
    pub misses: u64,
    /// Bytes held now.
    pub bytes: u64,
    /// Byte budget now (the configured one, less what it gives way to).
    pub budget: u64,
}

/// The cache; see the module docs.
pub struct SliceCache {
    /// Configured budget.
    budget: AtomicU64,
    /// Bytes its budget gives way to (see [`crate::memory`]); none for a cache of its own.
    yield_to: Option<fn() -> u64>,
    hits: AtomicU64,
    misses: AtomicU64,
    inner: Mutex<Inner>,
}

impl SliceCache {
    /// An empty cache of `budget` bytes (0: off).
    pub fn new(budget: u64) -> SliceCache {
        SliceCache::yielding_to(budget, None)
    }

    /// An empty cache of `budget` bytes whose budget shrinks by what `yield_to` gives, down to
    /// a quarter ([`crate::memory::yielding`]).
    pub fn yielding_to(budget: u64, yield_to: Option<fn() -> u64>) -> SliceCache {
        SliceCache {
            budget: AtomicU64::new(budget),
            yield_to,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the cache keeps anything.
    pub fn is_on(&self) -> bool {
        self.budget.load(Ordering::Relaxed) > 0
    }

    /// Slice `n` of reader `reader`, if held (marked used). `None` at once when the cache is
    /// off (no lock, no miss counted).
    pub fn get(&self, reader: u64, n: u32) -> Option<Arc<[u8]>> {
        if !self.is_on() {
            return None;
        }
        let mut g = self.lock();
        g.tick += 1;
        let tick = g.tick;
        let Some((bytes, used)) = g.map.get_mut(&(reader, n)) else {
            drop(g);
            self.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let old = std::mem::replace(used, tick);
        let bytes = bytes.clone();
        g.order.remove(&old);
        g.order.insert(tick, (reader, n));
        drop(g);
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(bytes)
    }

    /// Keeps slice `n` of reader `reader`, evicting the least recently used to stay within the
    /// budget (a slice larger than the budget is not kept).
    pub fn put(&self, reader: u64, n: u32, bytes: Arc<[u8]>) {
        let budget = self.budget_now();
        let len = bytes.len() as u64;
        if len > budget {
            return;
        }
        let mut g = self.lock();
        g.tick += 1;
        let tick = g.tick;
        if let Some((old, used)) = g.map.insert((reader, n), (bytes, tick)) {
            g.bytes -= old.len() as u64;
            g.order.remove(&used);
        }
        g.order.insert(tick, (reader, n));
        g.bytes += len;
        evict_to(&mut g, budget);
    }

    /// Evicts what no longer fits the budget now (it shrinks as other memory grows, see
    /// [`crate::memory`]); returns the bytes kept.
    pub fn keep_within(&self) -> u64 {
        let budget = self.budget_now();
        let mut g = self.lock();
        evict_to(&mut g, budget);
        g.bytes
    }

    /// Sets the budget, evicting what no longer fits.
    pub fn set_budget(&self, budget: u64) {
        self.budget.store(budget, Ordering::Relaxed);
        self.keep_within();
    }

    /// The budget now: the configured one, less what it gives way to.
    fn budget_now(&self) -> u64 {
        crate::memory::budget_now(self.budget.load(Ordering::Relaxed), self.yield_to)
    }

    /// Counters now.
    pub fn stats(&self) -> SliceCacheStats {
        SliceCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes: self.lock().bytes,
            budget: self.budget_now(),
        }
    }
}

fn evict_to(g: &mut Inner, budget: u64) {
    while g.bytes > budget {
        let Some((_, key)) = g.order.pop_first() else {
            break;
        };
        if let Some((old, _)) = g.map.remove(&key) {
            g.bytes -= old.len() as u64;
        }
    }
}

/// The process-wide cache (off until [`configure`]).
pub fn global() -> &'static SliceCache {
    static CACHE: OnceLock<SliceCache> = OnceLock::new();
    CACHE.get_or_init(|| SliceCache::yielding_to(0, Some(crate::memory::hot_bytes)))
}

/// Gives the process-wide cache a budget in bytes (0: off).
pub fn configure(budget: u64) {
    global().set_budget(budget);
}

/// A number no other reader of this process has: the cache key of an opened warm bucket.
pub fn reader_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(v: u8, len: usize) -> Arc<[u8]> {
        vec![v; len].into()
    }

    #[test]
    fn keeps_the_most_recent_within_the_budget() {
        let c = SliceCache::new(300);
        c.put(1, 0, slice(0, 100));
        c.put(1, 1, slice(1, 100));
        c.put(2, 0, slice(2, 100));
        assert_eq!(c.get(1, 0).as_deref(), Some(&[0u8; 100][..]));
        // (1, 1) is now the least recently used: the next slice pushes it out.
        c.put(2, 1, slice(3, 100));
        assert!(c.get(1, 1).is_none());
        assert!(c.get(1, 0).is_some() && c.get(2, 0).is_some() && c.get(2, 1).is_some());
        let s = c.stats();
        assert_eq!((s.bytes, s.budget), (300, 300));
        // Too large for the whole budget: not kept, nothing evicted.
        c.put(3, 0, slice(4, 301));
        assert!(c.get(3, 0).is_none());
        assert_eq!(c.stats().bytes, 300);
        // Replacing an entry does not count it twice.
        c.put(2, 1, slice(5, 50));
        assert_eq!(c.stats().bytes, 250);
        c.set_budget(0);
        assert_eq!(c.stats().bytes, 0);
        assert!(c.get(1, 0).is_none());
    }

    /// Bytes the cache of the next test gives way to.
    static HOT: AtomicU64 = AtomicU64::new(0);

    #[test]
    fn gives_way_to_hot_bytes_down_to_a_quarter() {
        let c = SliceCache::yielding_to(400, Some(|| HOT.load(Ordering::Relaxed)));
        for n in 0..4 {
            c.put(1, n, slice(n as u8, 100));
        }
        assert_eq!(c.stats().bytes, 400);
        // Hot buckets grow: the next put evicts down to what is left, the oldest first.
        HOT.store(150, Ordering::Relaxed);
        c.put(1, 4, slice(4, 100));
        let s = c.stats();
        assert_eq!((s.bytes, s.budget), (200, 250));
        assert!(c.get(1, 2).is_none() && c.get(1, 3).is_some() && c.get(1, 4).is_some());
        // However much they hold, a quarter stays.
        HOT.store(10_000, Ordering::Relaxed);
        c.put(1, 5, slice(5, 100));
        assert_eq!((c.stats().bytes, c.stats().budget), (100, 100));
        assert!(c.get(1, 5).is_some());
        // Indexing done: the whole budget again.
        HOT.store(0, Ordering::Relaxed);
        c.put(1, 6, slice(6, 100));
        c.put(1, 7, slice(7, 100));
        assert_eq!((c.stats().bytes, c.stats().budget), (300, 400));
        // Shrinking without a read: `keep_within` evicts, the oldest first.
        HOT.store(250, Ordering::Relaxed);
        assert_eq!(c.stats().bytes, 300);
        assert_eq!(c.keep_within(), 100);
        assert!(c.get(1, 6).is_none() && c.get(1, 7).is_some());
    }
}
