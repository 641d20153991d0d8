//! A process-wide, memory-bounded cache of opened warm-bucket readers.
//!
//! Opening a warm bucket reads its metadata, bloom filter, slice table, postings block table and
//! columns head; its first query also reads the lexicon's block index. A server answering thousands of
//! small searches a second must not pay that per search, so readers are kept here, keyed by the
//! bucket directory, and shared (`Arc`) by every search that reads the bucket. Warm buckets are
//! immutable, so an entry never goes stale; a bucket that leaves its index (frozen, quarantined)
//! is dropped when the index is next listed ([`BucketCache::retain_listed`]).
//!
//! Policy: least recently used, under a byte budget. Each entry is charged what its reader
//! holds: the bloom filter and metadata as on disk, the slice table's dictionaries (and its
//! entries once read whole), the lexicon's block index (its length read from the file's tail —
//! the reader loads it on first query), and the decoded columns it keeps at their heap size
//! (`ColumnsFile::kept_bytes`, a store accessor: whole blocks, and the time columns alone that
//! newest-first reads take), plus the block bodies it keeps decompressed for sparse reads and
//! the whole blocks event reads decoded last (`ColumnsFile::recent_bytes`, ~6 MiB at most).
//! Readers grow as searches decode blocks, so the charge is re-measured at every use. (Until
//! session 23 a block's time column was charged as a whole decoded block, 56 bytes per event
//! plus its share of the file, seven times its 8 bytes per event: at 1 GB a cache charged
//! 253 MB held about 110.) Eviction scans the entries for the oldest use: the map holds one
//! entry per bucket (hundreds, not millions), so a scan costs less than one bucket open. A
//! reader larger than the whole budget is returned uncached. Budget 0 disables the cache (every
//! open goes to disk) — the default of the process-wide instance until [`configure`] is called,
//! so one-shot CLI searches bypass it. Hot buckets are never cached here (the store keeps its own hot-bucket
//! index cache and a hot bucket changes with every append).
//!
//! Decoded postings: a term looked up in a cached reader keeps its decoded postings (a roaring
//! bitmap) with the reader's entry, so the next search of the same term in that bucket skips the
//! lexicon block and postings decoding (in `lode bench --scenario service` they were a third of a
//! `<words> | head 10` search's CPU). They share the byte budget, charged at their serialized
//! size plus the term, and may hold at most half of it ([`TERMS_SHARE`]); they are evicted
//! before any reader (a miss costs one decode, not a bucket open), oldest first, in batches that
//! free an eighth of their share so an insert does not sort the map each time. They leave with
//! their reader.
//!
//! Indexing first: the process-wide cache's budget shrinks by what the hot buckets being
//! indexed hold (`lode_store::memory`), down to a quarter of it, so that a full hot bucket and
//! its roll (~130 MB each at 128 MB buckets) do not come on top of a full cache. In the 1 GB
//! burst (ingest with four searches) the peak fell from 378–400 MB to 295–321 MB (eight runs),
//! with as many searches run; at the highest RSS sample the caches held 42–53 MB (once 73, once
//! 93) instead of 117–131.
//!
//! Naive twin: `lode_store::open_bucket` for every search; results are identical by construction
//! (the same reader type answers; cached postings are what the reader decoded) and tests check
//! both under budgets that evict constantly.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use lode_store::consts::{LEXICON_FILE, META_FILE};
use lode_store::query::{TermSource, Window};
use lode_store::{StoreError, TermQuery, WarmBucket};
use roaring::RoaringBitmap;

/// A shared warm-bucket reader.
pub type SharedReader = Arc<WarmBucket>;

/// Decoded postings may hold at most this fraction (1/n) of the budget: half, since the 1 GB
/// service scenario's working set is 58 MB of postings beside 50 MB of readers (a quarter of
/// a 128 MiB budget held half its terms: 1,168 instead of 2,091–2,286 searches/s).
pub const TERMS_SHARE: u64 = 2;
/// Fixed charge per cached term besides its bitmap and bytes: map entry, `Arc`, allocations.
const TERM_OVERHEAD: u64 = 96;

/// Default byte budget of the server's cache: `lode bench --scenario service` at 1 GB keeps
/// 108 MB in it (readers with their time columns, 50 MB; decoded postings, 58 MB) and runs
/// 2,091–2,286 searches/s with 128 MiB. (Until session 23 it was 512 MiB, when time columns
/// were charged as whole blocks: 512 MiB charged held about 220 MB.)
pub const DEFAULT_BUDGET_BYTES: u64 = 128 * 1024 * 1024;

/// Fixed overhead per reader: struct, file handles, map entry, bytes.
const READER_OVERHEAD: u64 = 4096;

/// Counters of a cache (since it was created).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Opens answered from the cache.
    pub hits: u64,
    /// Opens that read the bucket from disk.
    pub misses: u64,
    /// Entries dropped to stay within the budget.
    pub evictions: u64,
    /// Entries held now.
    pub entries: u64,
    /// Estimated bytes held now.
    pub bytes: u64,
    /// Byte budget now (the configured one, less what it gives way to).
    pub budget: u64,
    /// Term lookups answered from cached decoded postings.
    pub term_hits: u64,
    /// Term lookups that decoded postings.
    pub term_misses: u64,
    /// Decoded postings held now (terms × buckets).
    pub term_entries: u64,
    /// Bytes of decoded postings held now (included in `bytes`).
    pub term_bytes: u64,
}

struct Entry {
    reader: Arc<WarmBucket>,
    /// What the reader's size is computed from.
    size: Sizing,
    /// Bytes charged against the budget (re-measured at each use).
    bytes: u64,
    /// Tick of the last use (larger = more recent).
    used: u64,
    /// Decoded postings of terms looked up in this bucket.
    terms: HashMap<Vec<u8>, Term>,
}

/// The decoded postings of one term of one bucket.
struct Term {
    bits: Arc<RoaringBitmap>,
    /// Bytes charged.
    bytes: u64,
    /// Tick of the last use.
    used: u64,
}

#[derive(Default)]
struct Inner {
    map: HashMap<PathBuf, Entry>,
    /// Sum of the entries' `bytes` and of their terms' bytes.
    bytes: u64,
    /// Of `bytes`, the terms' (decoded postings).
    term_bytes: u64,
    /// Terms held, over all entries.
    term_entries: u64,
    /// Use counter: the clock of the LRU order.
    tick: u64,
    hits: u64,
    misses: u64,
    evictions: u64,
    term_hits: u64,
    term_misses: u64,
}

/// A memory-bounded LRU cache of warm-bucket readers keyed by bucket directory. `Sync`: shared by
/// every search thread.
pub struct BucketCache {
    /// Configured byte budget; 0 = disabled.
    budget: AtomicU64,
    /// Bytes its budget gives way to (`lode_store::memory`); none for a cache of its own.
    yield_to: Option<fn() -> u64>,
    /// Guards the map, the byte total and the counters; held only for map operations, never
    /// while a bucket is read from disk.
    inner: Mutex<Inner>,
}

impl BucketCache {
    /// An empty cache holding at most about `budget_bytes` (0 = disabled).
    pub fn new(budget_bytes: u64) -> BucketCache {
        BucketCache::yielding_to(budget_bytes, None)
    }

    /// An empty cache of `budget_bytes` whose budget shrinks by what `yield_to` gives, down to
    /// a quarter (`lode_store::memory::yielding`).
    pub fn yielding_to(budget_bytes: u64, yield_to: Option<fn() -> u64>) -> BucketCache {
        BucketCache {
            budget: AtomicU64::new(budget_bytes),
            yield_to,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The map stays consistent under every panic point (no partial updates).
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The byte budget now (0 = disabled): the configured one, less what it gives way to.
    pub fn budget(&self) -> u64 {
        lode_store::memory::budget_now(self.budget.load(Ordering::Relaxed), self.yield_to)
    }

    /// Evicts what no longer fits the budget now (it shrinks as other memory grows, see
    /// `lode_store::memory`); returns the bytes kept.
    pub fn keep_within(&self) -> u64 {
        let budget = self.budget();
        let mut g = self.lock();
        evict_to(&mut g, budget);
        g.bytes
    }

    /// Changes the budget, evicting down to it now (0 empties and disables the cache).
    pub fn set_budget(&self, budget_bytes: u64) {
        self.budget.store(budget_bytes, Ordering::Relaxed);
        self.keep_within();
    }

    /// The reader of the warm bucket at `path`: from the cache, or opened (and kept when it
    /// fits the budget). Open errors (corruption, I/O) are returned and nothing is cached.
    pub fn open_warm(&self, path: &Path) -> Result<SharedReader, StoreError> {
        let budget = self.budget();
        if budget > 0 {
            let mut g = self.lock();
            g.tick += 1;
            let tick = g.tick;
            if let Some(e) = g.map.get_mut(path) {
                e.used = tick;
                let r = e.reader.clone();
                let (old, new) = (e.bytes, e.size.bytes(&r));
                e.bytes = new;
                g.bytes = g.bytes - old + new;
                g.hits += 1;
                evict_to(&mut g, budget);
                return Ok(r);
            }
            g.misses += 1;
        }
        let reader = Arc::new(WarmBucket::open(path)?);
        if budget == 0 {
            return Ok(reader);
        }
        let size = Sizing::of(&reader);
        let bytes = size.bytes(&reader);
        if bytes > budget {
            // Read by this search alone: what it would keep, no budget would count.
            reader.stop_keeping();
            return Ok(reader);
        }
        let mut g = self.lock();
        g.tick += 1;
        let tick = g.tick;
        if let Some(e) = g.map.get_mut(path) {
            // Another search opened it meanwhile: share theirs.
            e.used = tick;
            return Ok(e.reader.clone());
        }
        evict_to(&mut g, budget - bytes);
        g.bytes += bytes;
        g.map.insert(
            path.to_path_buf(),
            Entry {
                reader: reader.clone(),
                size,
                bytes,
                used: tick,
                terms: HashMap::new(),
            },
        );
        Ok(reader)
    }

    /// Evaluates `q` against `reader` (the warm bucket at `path`, from [`BucketCache::open_warm`]),
    /// taking each term's decoded postings from the cache when held and keeping those it decodes
    /// (when the reader is cached and they fit the terms' share of the budget). Same answer as
    /// `reader.eval(q)`.
    pub fn eval(
        &self,
        path: &Path,
        reader: &WarmBucket,
        q: &TermQuery,
    ) -> Result<Arc<RoaringBitmap>, StoreError> {
        lode_store::query::eval_shared(
            &CachedTerms {
                cache: self,
                path,
                reader,
            },
            q,
        )
    }

    /// [`BucketCache::eval`] over `window` only: cached postings are cut to it, the others
    /// are built for the window alone and not kept (a later whole evaluation keeps them).
    pub fn eval_in(
        &self,
        path: &Path,
        reader: &WarmBucket,
        q: &TermQuery,
        window: &Window,
    ) -> Result<Arc<RoaringBitmap>, StoreError> {
        lode_store::query::eval_in(
            &CachedTerms {
                cache: self,
                path,
                reader,
            },
            q,
            window,
        )
    }

    /// The cached postings of `term` (lowercased here) in the bucket at `path`, as
    /// [`BucketCache::eval`] of the one-term query would give them, if held (a hit).
    pub fn held_term(&self, path: &Path, term: &[u8]) -> Option<Arc<RoaringBitmap>> {
        let lower = term.to_ascii_lowercase();
        let g = self.lock();
        let held = g
            .map
            .get(path)
            .is_some_and(|e| e.terms.contains_key(&lower));
        drop(g);
        if held {
            self.term(path, &lower)
        } else {
            None
        }
    }

    /// Bytes of decoded postings the cache can still keep without evicting any.
    fn term_room(&self) -> u64 {
        let budget = self.budget();
        let g = self.lock();
        let readers = g.bytes - g.term_bytes;
        let room = (budget / TERMS_SHARE).min(budget.saturating_sub(readers));
        room.saturating_sub(g.term_bytes)
    }

    /// The number of events of `term`'s cached postings in the bucket at `path`, if cached
    /// (not counted as a hit nor marked used: an estimate for ordering an `And`).
    fn peek_term_len(&self, path: &Path, term: &[u8]) -> Option<u64> {
        let g = self.lock();
        g.map
            .get(path)
            .and_then(|e| e.terms.get(term))
            .map(|t| t.bits.len())
    }

    /// The cached postings of `term` in the bucket at `path`, marked used.
    fn term(&self, path: &Path, term: &[u8]) -> Option<Arc<RoaringBitmap>> {
        let mut g = self.lock();
        g.tick += 1;
        let tick = g.tick;
        let found = g
            .map
            .get_mut(path)
            .and_then(|e| e.terms.get_mut(term))
            .map(|t| {
                t.used = tick;
                t.bits.clone()
            });
        match found {
            Some(_) => g.term_hits += 1,
            None => g.term_misses += 1,
        }
        found
    }

    /// Keeps `bits`, the postings of `term` in the cached bucket at `path`, if they fit.
    fn keep_term(&self, path: &Path, term: &[u8], bits: &Arc<RoaringBitmap>) {
        let budget = self.budget();
        let bytes = bits.serialized_size() as u64 + term.len() as u64 + TERM_OVERHEAD;
        let mut g = self.lock();
        let readers = g.bytes - g.term_bytes;
        let room = (budget / TERMS_SHARE).min(budget.saturating_sub(readers));
        if bytes > room / 8 || g.map.get(path).is_none_or(|e| e.terms.contains_key(term)) {
            // Too large to be worth a slot, the reader left the cache, or another search kept it.
            return;
        }
        if g.term_bytes + bytes > room {
            let keep = room - room / 8 - bytes;
            evict_terms_to(&mut g, keep);
        }
        g.tick += 1;
        let tick = g.tick;
        let Some(e) = g.map.get_mut(path) else {
            return;
        };
        e.terms.insert(
            term.to_vec(),
            Term {
                bits: Arc::clone(bits),
                bytes,
                used: tick,
            },
        );
        g.bytes += bytes;
        g.term_bytes += bytes;
        g.term_entries += 1;
    }

    /// Drops the entries of buckets directly under `index_dir` that are not in `listed` (the
    /// index's current buckets): frozen, quarantined or deleted buckets leave the cache.
    pub fn retain_listed(&self, index_dir: &Path, listed: &[&Path]) {
        let mut g = self.lock();
        if g.map.is_empty() {
            return;
        }
        let gone: Vec<PathBuf> = g
            .map
            .keys()
            .filter(|p| p.parent() == Some(index_dir) && !listed.contains(&p.as_path()))
            .cloned()
            .collect();
        for p in gone {
            remove(&mut g, &p);
        }
    }

    /// Empties the cache (counters are kept).
    pub fn clear(&self) {
        let mut g = self.lock();
        g.map.clear();
        g.bytes = 0;
        g.term_bytes = 0;
        g.term_entries = 0;
    }

    /// Current counters.
    pub fn stats(&self) -> CacheStats {
        let g = self.lock();
        CacheStats {
            hits: g.hits,
            misses: g.misses,
            evictions: g.evictions,
            entries: g.map.len() as u64,
            bytes: g.bytes,
            budget: self.budget(),
            term_hits: g.term_hits,
            term_misses: g.term_misses,
            term_entries: g.term_entries,
            term_bytes: g.term_bytes,
        }
    }
}

/// A cached reader's term source with the cache in front of its postings.
struct CachedTerms<'a> {
    cache: &'a BucketCache,
    path: &'a Path,
    reader: &'a WarmBucket,
}

impl CachedTerms<'_> {
    /// What the cache would be charged for `term`'s decoded postings, from the reader's entry
    /// size: decoded, a list takes about twice its entry's bytes (two per number in arrays).
    fn decoded_bytes(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(self.reader.cost_hint(term)?.map(|b| 2 * b + TERM_OVERHEAD))
    }

    /// The reader's postings of `term`, which the cache did not hold, kept for later searches.
    fn decode_and_keep(&self, term: &[u8]) -> Result<Arc<RoaringBitmap>, StoreError> {
        let bits = TermSource::postings(self.reader, term)?;
        self.cache.keep_term(self.path, term, &bits);
        Ok(bits)
    }
}

impl TermSource for CachedTerms<'_> {
    fn event_count(&self) -> u32 {
        TermSource::event_count(self.reader)
    }

    fn postings(&self, term: &[u8]) -> Result<Arc<RoaringBitmap>, StoreError> {
        if let Some(bits) = self.cache.term(self.path, term) {
            return Ok(bits);
        }
        self.decode_and_keep(term)
    }

    /// From the decoded postings when the cache holds them; else walked by the reader against
    /// `among`, without decoding (nor keeping) the term's bitmap: the term gets cached when a
    /// search needs its whole list.
    fn postings_among(
        &self,
        term: &[u8],
        among: &RoaringBitmap,
    ) -> Result<RoaringBitmap, StoreError> {
        match self.cache.term(self.path, term) {
            Some(bits) => Ok(&*bits & among),
            None => self.reader.postings_among(term, among),
        }
    }

    fn cost_hint(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        match self.cache.peek_term_len(self.path, term) {
            Some(n) => Ok(Some(n)),
            None => self.reader.cost_hint(term),
        }
    }

    fn term_kinds(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        self.reader.term_kinds(term)
    }

    /// From the cached postings when held; else, while the cache has room for the whole list
    /// without evicting (a 1 GB service's words all fit), decoded whole and kept, so that later
    /// searches hit it; else only the window, decoded by the reader and not kept.
    fn postings_in(&self, term: &[u8], window: &Window) -> Result<Arc<RoaringBitmap>, StoreError> {
        if let Some(bits) = self.cache.term(self.path, term) {
            return Ok(Arc::new(&*bits & window.mask()));
        }
        let fits = self
            .decoded_bytes(term)?
            .is_some_and(|n| n <= self.cache.term_room());
        if fits {
            Ok(Arc::new(&*self.decode_and_keep(term)? & window.mask()))
        } else {
            self.reader.postings_in(term, window)
        }
    }

    /// `None` (the terms' bitmaps, intersected) when the cache holds every term; else the
    /// reader's intersection of the lists, which keeps nothing. (Decoding and keeping the
    /// missing ones while the cache had room churned a full cache at 10 GB: 20,000 lists
    /// decoded in 10 s, a quarter of them ever hit; intersecting the lists instead ran 15 %
    /// more searches per CPU-second. A one-word search still keeps its word's list.)
    fn terms_and(&self, terms: &[Vec<u8>]) -> Result<Option<RoaringBitmap>, StoreError> {
        if terms
            .iter()
            .all(|t| self.cache.peek_term_len(self.path, t).is_some())
        {
            return Ok(None);
        }
        self.reader.terms_and(terms)
    }

    fn union_prefixed(
        &self,
        prefix: &[u8],
        accept: &mut dyn FnMut(&[u8]) -> bool,
        out: &mut RoaringBitmap,
    ) -> Result<(), StoreError> {
        TermSource::union_prefixed(self.reader, prefix, accept, out)
    }
}

/// Drops the entry of `path` and its terms.
fn remove(g: &mut Inner, path: &Path) -> bool {
    let Some(e) = g.map.remove(path) else {
        return false;
    };
    // Searches still reading it keep nothing more in it: no budget counts it now.
    e.reader.stop_keeping();
    let terms: u64 = e.terms.values().map(|t| t.bytes).sum();
    g.bytes -= e.bytes + terms;
    g.term_bytes -= terms;
    g.term_entries -= e.terms.len() as u64;
    true
}

/// Evicts until the total is at most `limit` bytes: decoded postings first (all of them if need
/// be), then least recently used readers.
fn evict_to(g: &mut Inner, limit: u64) {
    if g.bytes > limit && g.term_bytes > 0 {
        let over = g.bytes - limit;
        evict_terms_to(g, g.term_bytes.saturating_sub(over));
    }
    while g.bytes > limit {
        let Some(oldest) = g
            .map
            .iter()
            .min_by_key(|(_, e)| e.used)
            .map(|(p, _)| p.clone())
        else {
            break;
        };
        if remove(g, &oldest) {
            g.evictions += 1;
        }
    }
}

/// Evicts the least recently used decoded postings until they total at most `limit` bytes (one
/// sort of all terms per call: callers free a batch at a time).
fn evict_terms_to(g: &mut Inner, limit: u64) {
    if g.term_bytes <= limit {
        return;
    }
    let mut all: Vec<(u64, PathBuf, Vec<u8>)> = g
        .map
        .iter()
        .flat_map(|(p, e)| {
            e.terms
                .iter()
                .map(move |(t, v)| (v.used, p.clone(), t.clone()))
        })
        .collect();
    all.sort_unstable_by_key(|a| a.0);
    for (_, p, t) in all {
        if g.term_bytes <= limit {
            break;
        }
        let Some(v) = g.map.get_mut(&p).and_then(|e| e.terms.remove(&t)) else {
            continue;
        };
        g.bytes -= v.bytes;
        g.term_bytes -= v.bytes;
        g.term_entries -= 1;
    }
}

/// How much memory a warm reader holds: a fixed part, and the decoded columns it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// Metadata, bloom filter (when held whole: older buckets), slice table, lexicon block index
    /// and overhead, bytes.
    pub fixed: u64,
}

impl Sizing {
    /// The sizing of `reader`, from its files: the lexicon's block index length comes from its
    /// last body bytes (8 bytes read); the index is charged from the start since the first
    /// query loads it (its blocks are read per lookup and not kept). A file that cannot be read
    /// counts 0 (opening it succeeded, so this is a race with deletion).
    pub fn of(reader: &WarmBucket) -> Sizing {
        let path = reader.path();
        let size = |f: &str| std::fs::metadata(path.join(f)).map_or(0, |m| m.len());
        Sizing {
            fixed: READER_OVERHEAD
                + lode_store::bucket::warm::KNOWN_TERMS_BYTES
                + size(META_FILE)
                + reader.bloom_bytes()
                + reader.slice_table_bytes() as u64
                + reader.block_order_bytes() as u64
                + lode_store::terms::lexicon::index_len(&path.join(LEXICON_FILE)),
        }
    }

    /// Bytes `reader` holds now.
    pub fn bytes(&self, reader: &WarmBucket) -> u64 {
        let cols = reader.columns_file();
        self.fixed + cols.kept_bytes() + cols.recent_bytes() + reader.kind_order_bytes()
    }
}

/// The process-wide cache. Disabled (budget 0) until [`configure`] gives it a budget.
pub fn global() -> &'static BucketCache {
    static CACHE: OnceLock<BucketCache> = OnceLock::new();
    CACHE.get_or_init(|| BucketCache::yielding_to(0, Some(lode_store::memory::hot_bytes)))
}

/// Sets the process-wide cache's budget (0 disables it).
pub fn configure(budget_bytes: u64) {
    global().set_budget(budget_bytes);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lode_event::Event;
    use lode_store::{list_buckets, open_bucket, BucketRead, IndexConfig, IndexWriter};

    /// An index of `n` warm buckets of 50 events each; returns the bucket directories.
    pub(crate) fn index(root: &Path, n: usize) -> Vec<PathBuf> {
        index_of(root, n, 50, |_| String::new())
    }

    /// An index of `n` warm buckets of `per` events each, event `i`'s text ending with
    /// `more(i)`; returns the bucket directories.
    fn index_of(root: &Path, n: usize, per: i64, more: impl Fn(i64) -> String) -> Vec<PathBuf> {
        let cfg = IndexConfig {
            name: "main".into(),
            ..IndexConfig::default()
        };
        let (w, _) = IndexWriter::open(&root.join("main"), cfg).unwrap();
        for b in 0..n {
            let evs: Vec<Event> = (0..per)
                .map(|i| Event {
                    time: (1_000 + b as i64 * per * 2 + i) * 1_000_000,
                    index_time: 1_000,
                    raw: format!("bucket{b} event{i} common word{}{}", i % 7, more(i)),
                    host: format!("h{}", i % 3).into(),
                    source: "t.log".into(),
                    sourcetype: "t".into(),
                    index: "main".into(),
                    linecount: 1,
                    fields: Vec::new(),
                })
                .collect();
            w.append(&evs).unwrap();
            w.roll().unwrap();
        }
        drop(w);
        let infos = list_buckets(&root.join("main")).unwrap();
        infos.into_iter().map(|i| i.path).collect()
    }

    /// Bytes a reader of `path` is charged before any column block is decoded, and per block.
    fn sizing(path: &Path) -> Sizing {
        Sizing::of(&WarmBucket::open(path).unwrap())
    }

    fn answer(r: &dyn BucketRead) -> (Vec<u32>, Vec<String>) {
        let ids: Vec<u32> = r
            .eval(&TermQuery::Term(b"word3".to_vec()))
            .unwrap()
            .iter()
            .collect();
        let mut raws = Vec::new();
        r.read_events(&mut ids.clone().into_iter(), &mut |e| {
            raws.push(e.raw.to_string());
            true
        })
        .unwrap();
        (ids, raws)
    }

    /// Bytes the cache of the next test gives way to.
    static HOT: AtomicU64 = AtomicU64::new(0);

    #[test]
    fn gives_way_to_hot_bytes_down_to_a_quarter() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 4);
        let one = sizing(&paths[0]).fixed;
        let c = BucketCache::yielding_to(4 * one, Some(|| HOT.load(Ordering::Relaxed)));
        for p in &paths {
            c.open_warm(p).unwrap();
        }
        assert_eq!(c.stats().entries, 4);
        // Hot buckets hold half the budget: the next open keeps two readers, the newest.
        HOT.store(2 * one, Ordering::Relaxed);
        c.open_warm(&paths[3]).unwrap();
        let s = c.stats();
        assert_eq!((s.entries, s.budget), (2, 2 * one));
        c.open_warm(&paths[2]).unwrap();
        assert_eq!(c.stats().hits, 2);
        // However much they hold, a quarter stays; then the whole budget again.
        HOT.store(u64::MAX, Ordering::Relaxed);
        c.open_warm(&paths[3]).unwrap();
        assert_eq!((c.stats().entries, c.stats().budget), (1, one));
        HOT.store(0, Ordering::Relaxed);
        for p in &paths {
            c.open_warm(p).unwrap();
        }
        assert_eq!((c.stats().entries, c.stats().budget), (4, 4 * one));
        // Shrinking without an open: `keep_within` evicts down to the budget now.
        HOT.store(3 * one, Ordering::Relaxed);
        assert_eq!(c.stats().entries, 4);
        assert!(c.keep_within() <= one);
        assert_eq!(c.stats().entries, 1);
    }

    #[test]
    fn hits_share_one_reader() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 2);
        let c = BucketCache::new(DEFAULT_BUDGET_BYTES);
        let a = c.open_warm(&paths[0]).unwrap();
        let b = c.open_warm(&paths[0]).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.entries), (1, 1, 1));
        assert_eq!(s.bytes, sizing(&paths[0]).fixed);
        // Reading several events of the block decodes it whole, kept among the recent blocks
        // (at most 2 MiB of them).
        let (ids, _) = answer(a.as_ref());
        c.open_warm(&paths[0]).unwrap();
        let z = sizing(&paths[0]);
        let read = c.stats().bytes;
        assert!(read > z.fixed && read <= z.fixed + (2 << 20), "{read}");
        // The times of two events of a block decode its time column, kept (with the block's
        // decompressed body it was decoded from): the next use charges them.
        a.time(ids[0]).unwrap();
        a.time(ids[1]).unwrap();
        c.open_warm(&paths[0]).unwrap();
        let timed = c.stats().bytes;
        let time_column = 8 * u64::from(a.columns_file().head().blocks[0].count);
        assert!(
            timed >= read + time_column && timed <= read + time_column + (2 << 20),
            "{timed}"
        );
    }

    #[test]
    fn tiny_budget_evicts_least_recent_and_answers_alike() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 4);
        // Answering streams the column blocks: a reader holds its fixed part and the few
        // blocks it read last.
        let one = {
            let r = WarmBucket::open(&paths[0]).unwrap();
            let s = Sizing::of(&r);
            answer(&r);
            s.bytes(&r)
        };
        // Room for two readers.
        let c = BucketCache::new(one * 2 + one / 2);
        for round in 0..3 {
            for p in &paths {
                let cached = c.open_warm(p).unwrap();
                let info = lode_store::BucketInfo {
                    path: p.clone(),
                    id: 0,
                    first_id: 0,
                    kind: lode_store::BucketKind::Warm,
                    min_time_secs: 0,
                    max_time_secs: 0,
                };
                let direct = open_bucket(&info).unwrap();
                assert_eq!(
                    answer(cached.as_ref()),
                    answer(direct.as_ref()),
                    "round {round}"
                );
                // A use re-measures what the reader holds now (the blocks it read).
                c.open_warm(p).unwrap();
                assert!(c.stats().bytes <= c.budget());
            }
        }
        let s = c.stats();
        assert_eq!(s.entries, 2);
        assert!(s.evictions >= 4, "{s:?}");
        // The two most recently used are the ones kept.
        c.open_warm(&paths[3]).unwrap();
        c.open_warm(&paths[2]).unwrap();
        assert_eq!(c.stats().hits, s.hits + 2);
    }

    #[test]
    fn disabled_and_oversized_readers_are_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 1);
        let c = BucketCache::new(0);
        // Without a cache a reader keeps what it decodes, for its searches (as outside a server).
        let r = c.open_warm(&paths[0]).unwrap();
        assert_eq!(c.stats().entries, 0);
        assert!(r.columns_file().keeping());
        // Too large for the budget: the search's own reader keeps nothing a budget would miss.
        c.set_budget(10);
        let r = c.open_warm(&paths[0]).unwrap();
        assert_eq!(c.stats().entries, 0);
        assert!(!r.columns_file().keeping());
        c.set_budget(DEFAULT_BUDGET_BYTES);
        let r = c.open_warm(&paths[0]).unwrap();
        assert_eq!(c.stats().entries, 1);
        assert!(r.columns_file().keeping(), "a cached reader keeps");
        // Evicted while a search still holds it: it keeps nothing more.
        c.set_budget(0);
        assert_eq!(c.stats().entries, 0);
        assert!(!r.columns_file().keeping());
    }

    #[test]
    fn buckets_that_left_the_index_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 3);
        let c = BucketCache::new(DEFAULT_BUDGET_BYTES);
        for p in &paths {
            c.open_warm(p).unwrap();
        }
        let kept: Vec<&Path> = vec![paths[0].as_path(), paths[2].as_path()];
        c.retain_listed(&dir.path().join("other"), &kept);
        assert_eq!(c.stats().entries, 3);
        c.retain_listed(&dir.path().join("main"), &kept);
        let s = c.stats();
        assert_eq!(s.entries, 2);
        assert_eq!(s.bytes, sizing(&paths[0]).fixed + sizing(&paths[2]).fixed);
    }

    #[test]
    fn decoded_postings_are_kept_and_answer_like_the_reader() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 2);
        let c = BucketCache::new(DEFAULT_BUDGET_BYTES);
        let queries = [
            TermQuery::Term(b"word3".to_vec()),
            TermQuery::Term(b"WORD3".to_vec()),
            TermQuery::Term(b"common".to_vec()),
            TermQuery::Term(b"word5".to_vec()),
            TermQuery::And(vec![
                TermQuery::Term(b"common".to_vec()),
                TermQuery::Term(b"word5".to_vec()),
            ]),
            TermQuery::Or(vec![
                TermQuery::Term(b"nosuchterm".to_vec()),
                TermQuery::Prefix(b"event1".to_vec()),
            ]),
            TermQuery::Not(Box::new(TermQuery::Term(b"bucket1".to_vec()))),
        ];
        for round in 0..2 {
            for p in &paths {
                let r = c.open_warm(p).unwrap();
                for q in &queries {
                    assert_eq!(
                        *c.eval(p, &r, q).unwrap(),
                        r.eval(q).unwrap(),
                        "{round} {q:?}"
                    );
                }
            }
        }
        let s = c.stats();
        // word3, common, word5, nosuchterm, bucket1 per bucket, each missed once; hits: WORD3
        // (lowercased before the lookup) and the And's two held terms in the first round,
        // every lookup (eight) in the second.
        assert_eq!(s.term_entries, 10, "{s:?}");
        assert_eq!(s.term_misses, 10, "{s:?}");
        assert_eq!(s.term_hits, 2 * (3 + 8), "{s:?}");
        assert!(s.term_bytes > 0 && s.bytes > s.term_bytes, "{s:?}");
        // Terms leave with their reader, and go first when the budget shrinks.
        c.retain_listed(&dir.path().join("main"), &[paths[0].as_path()]);
        assert_eq!(c.stats().term_entries, 5);
        let readers = c.stats().bytes - c.stats().term_bytes;
        c.set_budget(readers);
        let s = c.stats();
        assert_eq!(
            (s.entries, s.term_entries, s.term_bytes),
            (1, 0, 0),
            "{s:?}"
        );
        c.clear();
        assert_eq!(c.stats().term_entries, 0);
    }

    /// Queries whose terms come from the cache (shared bitmaps) on either or both sides of an
    /// AND, OR or NOT answer as the reader alone does, and leave the cached postings unchanged.
    #[test]
    fn queries_over_cached_terms_answer_as_the_reader() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 1);
        let c = BucketCache::new(64 << 20);
        let r = c.open_warm(&paths[0]).unwrap();
        let t = |w: &str| TermQuery::Term(w.as_bytes().to_vec());
        // Cached: `common` and `word3`; `h1` (a host term) and `word5` are read each time.
        for w in ["common", "word3"] {
            c.eval(&paths[0], &r, &t(w)).unwrap();
        }
        // Both are kept, so the queries below take them shared.
        assert_eq!(c.stats().term_entries, 2);
        let queries = [
            TermQuery::And(vec![t("common"), t("word3")]),
            TermQuery::And(vec![t("word5"), t("common")]),
            TermQuery::And(vec![t("common"), t("word5")]),
            TermQuery::And(vec![t("word3"), t("word5")]),
            TermQuery::Or(vec![t("word3"), t("word5"), t("common")]),
            TermQuery::Not(Box::new(t("word3"))),
            TermQuery::And(vec![t("common"), TermQuery::Not(Box::new(t("word3")))]),
        ];
        let count = TermSource::event_count(&*r);
        for q in &queries {
            for _ in 0..2 {
                assert_eq!(
                    *c.eval(&paths[0], &r, q).unwrap(),
                    r.eval(q).unwrap(),
                    "{q:?}"
                );
            }
            // Over a window, cached terms are cut to it as the reader's own are.
            for keys in [vec![0u16], vec![1]] {
                let w = Window::new(keys, count);
                let want = &r.eval(q).unwrap() & w.mask();
                assert_eq!(
                    *c.eval_in(&paths[0], &r, q, &w).unwrap(),
                    want,
                    "{q:?} {w:?}"
                );
            }
        }
        for w in ["common", "word3"] {
            assert_eq!(
                *c.eval(&paths[0], &r, &t(w)).unwrap(),
                r.eval(&t(w)).unwrap(),
                "{w}"
            );
        }
    }

    #[test]
    fn an_and_left_with_few_events_answers_from_cached_terms_or_walks() {
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = IndexWriter::open(&dir.path().join("main"), IndexConfig::default()).unwrap();
        let evs: Vec<Event> = (0..1000i64)
            .map(|i| Event {
                time: (1_000 + i) * 1_000_000,
                raw: format!("event{i} common word{}", i % 7),
                host: "h".into(),
                source: "t.log".into(),
                sourcetype: "t".into(),
                index: "main".into(),
                ..Event::default()
            })
            .collect();
        w.append(&evs).unwrap();
        w.roll().unwrap();
        drop(w);
        let path = list_buckets(&dir.path().join("main")).unwrap()[0]
            .path
            .clone();
        let c = BucketCache::new(64 << 20);
        let r = c.open_warm(&path).unwrap();
        let t = |w: &str| TermQuery::Term(w.as_bytes().to_vec());
        // `word0` cached, the others not: an And of terms the cache does not all hold is
        // intersected by the reader, which keeps nothing.
        c.eval(&path, &r, &t("word0")).unwrap();
        let ands = [
            (&["event700", "word0", "common"][..], vec![700u32]),
            (&["event700", "word3"], vec![]),
            (&["event703", "word3", "common"], vec![703]),
            (&["event703", "word0"], vec![]),
        ];
        let check = || {
            for (words, want) in &ands {
                let q = TermQuery::And(words.iter().map(|w| t(w)).collect());
                let got: Vec<u32> = c.eval(&path, &r, &q).unwrap().iter().collect();
                assert_eq!(&got, want, "{words:?}");
            }
        };
        check();
        assert_eq!(c.stats().term_entries, 1);
        assert_eq!(c.stats().term_hits, 0);
        // Every term held: after `event700` one event is left, fewer than one in 64, so the
        // later terms are narrowed from their cached bitmaps.
        for w in ["event700", "event703", "common", "word3"] {
            c.eval(&path, &r, &t(w)).unwrap();
        }
        assert_eq!(c.stats().term_entries, 5);
        check();
        // One hit per term of each And (none stops early: `event700 word3` empties at its
        // last term).
        assert_eq!(c.stats().term_hits, 3 + 2 + 3 + 2);
    }

    #[test]
    fn decoded_postings_stay_within_their_share() {
        let dir = tempfile::tempdir().unwrap();
        // 100 terms `t0`–`t99` of 4,000 events each: a share of them outweighs a reader.
        let paths = index_of(dir.path(), 1, 40_000, |i| {
            (0..10)
                .map(|j| format!(" t{}", (i + j * 10) % 100))
                .collect()
        });
        let r0 = WarmBucket::open(&paths[0]).unwrap();
        let one = sizing(&paths[0]).fixed;
        // A terms' share of `share` terms' postings, five fewer than are looked up, with room
        // for the reader beside a full share: the share is what binds.
        let term = r0.eval(&TermQuery::Term(b"t1".to_vec())).unwrap();
        assert_eq!(term.len(), 4000);
        let per_term = term.serialized_size() as u64 + 6 + TERM_OVERHEAD;
        let share = 45.max(one.div_ceil(per_term));
        let looked_up = share + 5;
        assert!(looked_up <= 100, "{one} {per_term}");
        let budget = TERMS_SHARE * per_term * share;
        assert!(budget >= one + budget / TERMS_SHARE, "{one} {per_term}");
        let c = BucketCache::new(budget);
        let r = c.open_warm(&paths[0]).unwrap();
        for i in 0..looked_up {
            let q = TermQuery::Term(format!("t{i}").into_bytes());
            assert_eq!(*c.eval(&paths[0], &r, &q).unwrap(), r.eval(&q).unwrap());
            let s = c.stats();
            assert!(s.bytes <= s.budget, "{s:?}");
            assert!(s.term_bytes <= s.budget / TERMS_SHARE, "{s:?}");
        }
        let s = c.stats();
        assert!(s.term_entries > 0 && s.term_entries < looked_up, "{s:?}");
        assert_eq!(s.entries, 1, "{s:?}");
    }

    #[test]
    fn corrupt_bucket_is_an_error_and_not_cached() {
        let dir = tempfile::tempdir().unwrap();
        let paths = index(dir.path(), 1);
        std::fs::write(paths[0].join(lode_store::consts::BLOOM_FILE), b"garbage").unwrap();
        let c = BucketCache::new(DEFAULT_BUDGET_BYTES);
        assert!(c.open_warm(&paths[0]).is_err());
        assert_eq!(c.stats().entries, 0);
    }
}
