//! Collects the terms of a bucket's events into in-memory postings while events stream in.
//!
//! Terms of an event: every term [`Tokenizer::for_each`] yields over `raw`, plus `field::value`
//! ([`lode_event::field_term`]) for host, source, sourcetype and every index-time field; each
//! term at most once per event. Event numbers arrive in ascending order, so a term's postings
//! list is deduplicated by comparing with its last entry: no per-event set, no allocation per
//! event.
//!
//! Layout (millions of distinct terms per bucket, most of them seen once): each distinct term is
//! one arena entry, `last event u32 | list id u32 | len u32 | bytes`, so a lookup and the update
//! that follows touch one place; a [`table::Table`] holds only `(arena offset, 32-bit hash)`
//! pairs (growing it and most probes never touch the arena; a flush prefetches the slots and
//! entries of the terms a few places ahead). A term seen in one event needs nothing more.
//! Longer lists keep their first number and count (20 bytes) and their varint deltas in a
//! shared paged [`pool::Pool`]. About 12 bytes plus the term per distinct term, 9–18 bytes of
//! table, and ~1.2 bytes per posting, against ~110 bytes per term and 4 bytes per posting for a
//! `HashMap<Box<[u8]>, Vec<u32>>` (the naive twin the property test compares with).
//!
//! Two levels: the terms of the last [`BATCH_EVENTS`] events are first deduplicated in a small,
//! cache-resident [`Batch`] (its own bytes, and one `(number, term)` node per new occurrence, in
//! order of arrival). Its table slots hold a term's first 8 bytes, length, last event and
//! count, so a repeat of a term of up to 8 bytes (83 % of occurrences in the generated corpus)
//! reads and writes one slot and nothing else. A flush groups the nodes by term (a counting
//! sort: sequential reads, where walking a chain per term waited on a cache miss per node),
//! looks each distinct batch term up once in the big table and appends its run of numbers. Most
//! occurrences are repeats of frequent terms, so the big table (tens of MB, a cache miss per
//! probe) sees one lookup per distinct term per batch instead of one per occurrence. Every
//! event numbered `num` lands in one batch, so the batch's numbers follow those already in the
//! big table: readers ([`TermIndex::get`], [`TermIndex::for_each_term`],
//! [`TermIndex::sorted`], [`TermIndex::len`]) concatenate the two and need no flush (a hot
//! bucket is searched under a read lock while events arrive).
//!
//! Measured (200 MB generated corpus, 1.16 M terms): peak RSS of `lode add oneshot` 534 MB →
//! 214 MB together with the streaming WAL scan; CPU about the same (lookups are bound by cache
//! misses on the table and the entries either way).

pub mod lexicon;
mod pool;
mod table;

use hashbrown::HashTable;
use lode_event::token::Tokenizer;
use lode_event::{field_term, Event};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::StoreError;
use pool::{Chain, ChainBytes, Pool, PoolFull};
use table::Table;

/// No list id: the term occurs in a single event.
const SINGLE: u32 = u32::MAX;
/// Bytes of an arena entry before the term: `last u32 | list u32 | len u32`, little endian.
const HEAD: usize = 12;

/// Postings of a term seen in more than one event.
#[derive(Debug, Clone, Copy)]
struct List {
    /// First event number.
    first: u32,
    /// Number of event numbers.
    count: u32,
    /// Deltas after the first number, as varints.
    chain: Chain,
}

/// In-memory term → postings collector.
pub struct TermIndex {
    /// Slots `arena offset << 32 | hash32` of the terms.
    table: Table,
    /// One entry per distinct term, in order of first appearance: `last u32` (largest event
    /// number holding it), `list u32` (index into `lists`, or [`SINGLE`]), `len u32`, then the
    /// term's bytes. A lookup and the update that follows touch this one place.
    arena: Vec<u8>,
    /// Number of distinct terms in the big table (flushed batches).
    count: usize,
    /// Lists of the terms seen more than once.
    lists: Vec<List>,
    /// Deltas of every list.
    pool: Pool,
    /// Terms of the events added since the last flush into the structures above.
    batch: Batch,
    /// Events per batch ([`BATCH_EVENTS`]; tests use smaller ones).
    batch_events: u32,
    tok: Tokenizer,
    /// Scratch for `field::value` terms.
    field_buf: Vec<u8>,
    /// The last event's host, source and sourcetype, with their terms and hashes: the events of
    /// one stream share them, so their terms are built and hashed once per change.
    meta: [MetaTerm; 3],
}

/// A default field's value and its `field::value` term and hash (see [`TermIndex::add_event`]);
/// no value before the first event.
#[derive(Default)]
struct MetaTerm {
    value: Option<String>,
    term: Vec<u8>,
    hash: u32,
}

/// Events per batch: a batch is flushed into the big table before an event past this count.
const BATCH_EVENTS: u32 = 1024;
/// Term bytes per batch: a batch is flushed before an event once its terms hold this much.
const BATCH_BYTES: usize = 256 * 1024;
/// How far ahead of the term it looks up a flush prefetches the table slots of a term...
const SLOTS_AHEAD: usize = 16;
/// ... and the arena entry they name.
const ENTRY_AHEAD: usize = 8;
/// No node / no batch term / no arena entry.
const NONE: u32 = u32::MAX;

/// The terms of the last few events, deduplicated in a small, cache-resident table; flushed
/// into the big one with one lookup per distinct term per batch instead of one per occurrence.
/// Readers see it too (see [`TermIndex::get`]), so it need not be flushed before a read.
#[derive(Default)]
struct Batch {
    /// One slot per distinct term: a repeat of a term of up to 8 bytes (most of them) is found
    /// and counted in its slot alone.
    table: HashTable<Slot>,
    /// Distinct terms of the batch, in order of first appearance.
    terms: Vec<BatchTerm>,
    /// Their bytes.
    bytes: Vec<u8>,
    /// `(event number, term)` each time an event holds a term it was not yet counted for, in
    /// order of arrival: a term's numbers ascend.
    nodes: Vec<(u32, u32)>,
    /// Events added to the batch.
    events: u32,
    /// Number of the last of them.
    last_num: Option<u32>,
    /// Scratch of a flush: the arena offset of each term (or [`NONE`]: nothing left to add).
    ats: Vec<u32>,
    /// Scratch of a flush: the nodes grouped by term.
    grouped: Grouped,
}

/// A batch's event numbers grouped by term ([`Batch::group`]): term `i`'s numbers are
/// `nums[at[i]..at[i + 1]]` (to the end for the last term), ascending.
#[derive(Default)]
struct Grouped {
    at: Vec<u32>,
    nums: Vec<u32>,
}

/// A [`Batch`] table slot: what adding a term reads and writes.
#[derive(Clone, Copy)]
struct Slot {
    /// The term's first 8 bytes, zero-padded ([`word`]).
    word: u64,
    len: u32,
    /// Its index in the batch's `terms`.
    term: u32,
    /// Its last event number.
    last: u32,
    /// Number of its nodes.
    count: u32,
}

/// One distinct term of a [`Batch`].
#[derive(Clone, Copy)]
struct BatchTerm {
    hash: u32,
    /// Its bytes: `bytes[start..start + len]`.
    start: u32,
    len: u32,
    /// Its first node (the scan of [`Batch::scan`] starts there).
    head: u32,
}

impl BatchTerm {
    /// Its bytes, in the batch's `bytes`.
    #[inline]
    fn bytes<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.start as usize..(self.start + self.len) as usize]
    }
}

/// A term's first 8 bytes as a big-endian integer, zero-padded: when two terms' keys differ,
/// they order the terms as their bytes do (equal keys say nothing). A roll sorts on it, and a
/// merge compares its sources' current terms by it first.
#[inline]
pub(crate) fn order_key(t: &[u8]) -> u64 {
    let mut key = [0u8; 8];
    let n = t.len().min(8);
    key[..n].copy_from_slice(&t[..n]);
    u64::from_be_bytes(key)
}

/// The first 8 bytes of `t` as a little-endian integer, zero-padded: with the length, the whole
/// of a term of up to 8 bytes. Loads overlap rather than copy byte by byte.
#[inline]
fn word(t: &[u8]) -> u64 {
    let n = t.len();
    if n >= 8 {
        u64::from_le_bytes(t[..8].try_into().expect("8 bytes"))
    } else if n >= 4 {
        let lo = u64::from(read_u32(t, 0));
        let hi = u64::from(read_u32(t, n - 4));
        lo | hi << (8 * (n - 4))
    } else if n > 0 {
        u64::from(t[0])
            | u64::from(t[n / 2]) << (8 * (n / 2))
            | u64::from(t[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

impl Slot {
    /// Whether it holds `t`, whose first bytes are `w`: the slot alone tells for terms of up to
    /// 8 bytes; longer ones compare the rest of their bytes.
    #[inline]
    fn is(&self, terms: &[BatchTerm], bytes: &[u8], w: u64, t: &[u8]) -> bool {
        self.word == w
            && self.len as usize == t.len()
            && (t.len() <= 8 || same(&terms[self.term as usize].bytes(bytes)[8..], &t[8..]))
    }
}

impl Batch {
    #[inline]
    fn term(&self, i: u32) -> &[u8] {
        self.terms[i as usize].bytes(&self.bytes)
    }

    /// The slot of `t` in the batch, if present.
    #[inline]
    fn slot(&self, h: u32, t: &[u8]) -> Option<&Slot> {
        if self.terms.is_empty() {
            return None;
        }
        let w = word(t);
        self.table
            .find(spread(h), |s| s.is(&self.terms, &self.bytes, w, t))
    }

    /// Index of `t` in the batch, if present.
    #[inline]
    fn find(&self, h: u32, t: &[u8]) -> Option<u32> {
        self.slot(h, t).map(|s| s.term)
    }

    /// Records that event `num` holds term `t` (hash `h`). The error names the limit passed;
    /// it fits in two registers, where a `StoreError` went through memory once per term.
    #[inline]
    fn add(&mut self, num: u32, h: u32, t: &[u8]) -> Result<(), &'static str> {
        let node = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&n| n < NONE)
            .ok_or("batch postings")?;
        let Batch {
            table,
            terms,
            bytes,
            nodes,
            ..
        } = self;
        let w = word(t);
        let entry = table.entry(
            spread(h),
            |s| s.is(terms, bytes, w, t),
            |s| spread(terms[s.term as usize].hash),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(mut o) => {
                let s = o.get_mut();
                if s.last != num {
                    nodes.push((num, s.term));
                    s.last = num;
                    s.count += 1;
                }
            }
            hashbrown::hash_table::Entry::Vacant(v) => {
                let start = u32::try_from(bytes.len()).map_err(|_| "batch term bytes")?;
                let len = u32::try_from(t.len()).map_err(|_| "batch term bytes")?;
                start.checked_add(len).ok_or("batch term bytes")?;
                // Every term has a node, so there are fewer terms than `node` (< NONE).
                let i = terms.len() as u32;
                bytes.extend_from_slice(t);
                nodes.push((num, i));
                terms.push(BatchTerm {
                    hash: h,
                    start,
                    len,
                    head: node,
                });
                v.insert(Slot {
                    word: w,
                    len,
                    term: i,
                    last: num,
                    count: 1,
                });
            }
        }
        Ok(())
    }

    /// The event numbers of the batch term in `slot` (none for `None`), found by scanning the
    /// nodes from its first: for a lookup of one term, where grouping every node would cost
    /// more.
    fn scan(&self, slot: Option<&Slot>) -> Tail<'_> {
        match slot.and_then(|s| Some((s, self.terms.get(s.term as usize)?))) {
            Some((s, bt)) => Tail::Scan {
                nodes: &self.nodes[bt.head as usize..],
                term: s.term,
                left: s.count,
            },
            None => Tail::default(),
        }
    }

    /// Groups the nodes by term into `g`: a counting sort by term over the nodes (counted,
    /// then walked backwards so each term's run fills from its end, leaving `at[i]` at its
    /// start).
    fn group(&self, g: &mut Grouped) {
        g.at.clear();
        g.at.resize(self.terms.len(), 0);
        for &(_, term) in &self.nodes {
            g.at[term as usize] += 1;
        }
        let mut end = 0u32;
        for at in &mut g.at {
            end += *at;
            *at = end;
        }
        g.nums.clear();
        g.nums.resize(self.nodes.len(), 0);
        for &(num, term) in self.nodes.iter().rev() {
            let at = &mut g.at[term as usize];
            *at -= 1;
            g.nums[*at as usize] = num;
        }
    }

    /// The event numbers of batch term `i` (none for [`NONE`]) in `g`, grouped by
    /// [`Batch::group`].
    fn run<'g>(&self, g: &'g Grouped, i: u32) -> &'g [u32] {
        let i = i as usize;
        let end = g.at.get(i + 1).map_or(g.nums.len(), |&e| e as usize);
        match g.at.get(i) {
            Some(&at) => &g.nums[at as usize..end],
            None => &[],
        }
    }

    fn clear(&mut self) {
        self.table.clear();
        self.terms.clear();
        self.bytes.clear();
        self.nodes.clear();
        self.events = 0;
        self.last_num = None;
    }

    fn heap_bytes(&self) -> usize {
        self.table.capacity() * (size_of::<Slot>() + 1)
            + self.terms.capacity() * size_of::<BatchTerm>()
            + self.bytes.capacity()
            + self.nodes.capacity() * 8
            + (self.grouped.at.capacity() + self.grouped.nums.capacity()) * 4
    }
}

/// Event numbers of one term still in the batch.
#[derive(Clone)]
enum Tail<'a> {
    /// Grouped by [`Batch::group`].
    Run(std::slice::Iter<'a, u32>),
    /// The nodes from the term's first on, of which `left` more are the term's.
    Scan {
        nodes: &'a [(u32, u32)],
        term: u32,
        left: u32,
    },
}

impl Default for Tail<'_> {
    fn default() -> Self {
        Tail::Run([].iter())
    }
}

impl Tail<'_> {
    /// Numbers left.
    fn left(&self) -> usize {
        match self {
            Tail::Run(it) => it.len(),
            Tail::Scan { left, .. } => *left as usize,
        }
    }
}

impl Iterator for Tail<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Tail::Run(it) => it.next().copied(),
            Tail::Scan { nodes, term, left } => {
                while *left > 0 {
                    let (&(num, t), rest) = nodes.split_first()?;
                    *nodes = rest;
                    if t == *term {
                        *left -= 1;
                        return Some(num);
                    }
                }
                None
            }
        }
    }
}

impl Default for TermIndex {
    fn default() -> Self {
        TermIndex {
            table: Table::default(),
            arena: Vec::new(),
            count: 0,
            lists: Vec::new(),
            pool: Pool::default(),
            batch: Batch::default(),
            batch_events: BATCH_EVENTS,
            tok: Tokenizer::default(),
            field_buf: Vec::new(),
            meta: Default::default(),
        }
    }
}

/// Hints the CPU to load the cache line of `p` (no effect elsewhere than on x86-64).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetch` is only a hint (SSE, part of the x86-64 baseline): it never faults and
    // reads nothing the program sees, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// 32 bits of a term's hash: what the table keeps.
#[inline]
fn hash32(t: &[u8]) -> u32 {
    (xxh3_64(t) >> 32) as u32
}

/// The table hash of a stored 32-bit hash: its bits in both halves, so the bucket index (low
/// bits) and hashbrown's control tag (top bits) both come from it.
#[inline]
fn spread(h: u32) -> u64 {
    (h as u64) * 0x1_0000_0001
}

fn limit(what: &str) -> StoreError {
    StoreError::Limit(format!(
        "more than 4 GiB of {what} in one bucket's term index"
    ))
}

#[inline]
fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
fn write_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The term bytes of the arena entry at `at`.
#[inline]
fn term_at(arena: &[u8], at: usize) -> &[u8] {
    let len = read_u32(arena, at + 8) as usize;
    &arena[at + HEAD..at + HEAD + len]
}

/// Whether two byte strings are equal; short ones without a call to `memcmp`.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if (8..=16).contains(&n) {
        let w = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8"));
        return w(a, 0) == w(b, 0) && w(a, n - 8) == w(b, n - 8);
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    a == b
}

impl TermIndex {
    /// An empty collector.
    pub fn new() -> Self {
        Self::with_batch(BATCH_EVENTS)
    }

    /// An empty collector whose batches hold up to `events` events (at least one).
    fn with_batch(events: u32) -> Self {
        TermIndex {
            batch_events: events.max(1),
            ..Self::default()
        }
    }

    /// Number of distinct terms so far.
    pub fn len(&self) -> usize {
        self.count + self.batch_only().count()
    }

    /// Number of distinct terms as of the last batch flush (without the terms only the pending
    /// batch holds, which [`TermIndex::len`] looks up in the big table one by one).
    pub fn flushed_len(&self) -> usize {
        self.count
    }

    /// Whether no term was added.
    pub fn is_empty(&self) -> bool {
        self.count == 0 && self.batch.terms.is_empty()
    }

    /// Bytes of memory held (capacities, not lengths), for memory accounting.
    pub fn heap_bytes(&self) -> usize {
        self.table.heap_bytes()
            + self.lists.capacity() * size_of::<List>()
            + self.arena.capacity()
            + self.pool.heap_bytes()
            + self.batch.heap_bytes()
    }

    /// Adds the terms of event `num` (must not be smaller than any earlier number). Fails only
    /// when the bucket's term bytes or postings pass 4 GiB.
    pub fn add_event(&mut self, num: u32, e: &Event) -> Result<(), StoreError> {
        // Every event numbered `num` goes to one batch, so the batch's numbers are all larger
        // than those already in the big table (readers concatenate the two).
        let full = self.batch.events >= self.batch_events || self.batch.bytes.len() >= BATCH_BYTES;
        if full && self.batch.last_num != Some(num) {
            self.flush()?;
        }
        self.batch.events += 1;
        self.batch.last_num = Some(num);
        let mut tok = std::mem::take(&mut self.tok);
        let mut field_buf = std::mem::take(&mut self.field_buf);
        let mut res = Ok(());
        let batch = &mut self.batch;
        tok.for_each(e.raw.as_bytes(), |t| {
            if res.is_ok() {
                res = batch.add(num, hash32(t), t);
            }
        });
        for (m, (name, value)) in self.meta.iter_mut().zip(e.meta()) {
            if res.is_err() {
                break;
            }
            if m.value.as_deref() != Some(value) {
                field_term(name, value, &mut m.term);
                m.hash = hash32(&m.term);
                let v = m.value.get_or_insert_with(String::new);
                v.clear();
                v.push_str(value);
            }
            res = batch.add(num, m.hash, &m.term);
        }
        for (name, value) in &e.fields {
            if res.is_err() {
                break;
            }
            field_term(name, value, &mut field_buf);
            res = batch.add(num, hash32(&field_buf), &field_buf);
        }
        self.tok = tok;
        self.field_buf = field_buf;
        res.map_err(limit)
    }

    /// Moves the batch's terms into the big table: one lookup per distinct term, then its run
    /// of event numbers. After an error the batch is dropped (the bucket is refused anyway).
    fn flush(&mut self) -> Result<(), StoreError> {
        let mut batch = std::mem::take(&mut self.batch);
        let mut ats = std::mem::take(&mut batch.ats);
        let mut grouped = std::mem::take(&mut batch.grouped);
        batch.group(&mut grouped);
        let res = self.flush_from(&batch, &grouped, &mut ats);
        batch.ats = ats;
        batch.grouped = grouped;
        batch.clear();
        self.batch = batch;
        res
    }

    fn flush_from(
        &mut self,
        batch: &Batch,
        grouped: &Grouped,
        ats: &mut Vec<u32>,
    ) -> Result<(), StoreError> {
        // Pass 1: find or insert each term (the big table's misses, one per distinct term).
        // The slots where the probe of the term `SLOTS_AHEAD` places on starts are prefetched,
        // and the arena entry of the term `ENTRY_AHEAD` places on, which its slot (fetched by
        // then) names, so the misses of several terms overlap.
        ats.clear();
        for (i, bt) in batch.terms.iter().enumerate() {
            if let Some(ahead) = batch.terms.get(i + SLOTS_AHEAD) {
                self.table.prefetch(ahead.hash);
            }
            if let Some(ahead) = batch.terms.get(i + ENTRY_AHEAD) {
                if let Some(entry) = self
                    .table
                    .first_candidate(ahead.hash)
                    .and_then(|at| self.arena.get(at))
                {
                    prefetch(entry);
                }
            }
            let t = batch.term(i as u32);
            let at = match self.find(bt.hash, t) {
                Some(at) => at,
                None => {
                    let run = batch.run(grouped, i as u32);
                    let at = self.insert(bt.hash, t, run[0])?;
                    if run.len() == 1 {
                        ats.push(NONE);
                        continue;
                    }
                    at
                }
            };
            ats.push(at as u32);
        }
        // Pass 2: append the runs, prefetching the lists and list tails of the terms a few
        // places ahead (their addresses are known now, so their misses overlap).
        for i in 0..ats.len() {
            if let Some(list) = ats.get(i + 8).and_then(|&at| self.list_of(at)) {
                prefetch(list);
            }
            if let Some(list) = ats.get(i + 4).and_then(|&at| self.list_of(at)) {
                self.pool.prefetch_tail(list.chain);
            }
            let at = ats[i];
            if at != NONE {
                // The first number of a term just inserted equals its last: `push` skips it.
                self.push_run(at as usize, batch.run(grouped, i as u32))?;
            }
        }
        Ok(())
    }

    /// The list of the arena entry at `at`; `None` for [`NONE`] or a term seen once.
    #[inline]
    fn list_of(&self, at: u32) -> Option<&List> {
        if at == NONE {
            return None;
        }
        self.lists
            .get(read_u32(&self.arena, at as usize + 4) as usize)
    }

    /// Appends the ascending numbers `nums` to the postings of the term at `at` (larger than
    /// its last number, except the first one of a term just inserted, which equals it: the
    /// batch holds each number once per term, and only numbers past those flushed before).
    #[inline]
    fn push_run(&mut self, at: usize, mut nums: &[u32]) -> Result<(), StoreError> {
        // Through `push` until the term has a list (it creates it)...
        while read_u32(&self.arena, at + 4) == SINGLE {
            let Some((&num, rest)) = nums.split_first() else {
                return Ok(());
            };
            nums = rest;
            self.push(at, num)?;
        }
        if nums.is_empty() {
            return Ok(());
        }
        // ... then straight into the list, writing the entry's last number once.
        let mut last = read_u32(&self.arena, at);
        let list = &mut self.lists[read_u32(&self.arena, at + 4) as usize];
        for &num in nums {
            self.pool
                .push_varint(&mut list.chain, num - last, list.count)
                .map_err(|PoolFull| limit("postings"))?;
            list.count += 1;
            last = num;
        }
        write_u32(&mut self.arena, at, last);
        Ok(())
    }

    /// Arena offset of the entry of `t`, if present.
    #[inline]
    fn find(&self, h: u32, t: &[u8]) -> Option<usize> {
        let arena = &self.arena;
        self.table.find(h, |at| same(term_at(arena, at), t))
    }

    /// Appends `num` to the postings of the term at `at` unless it is already the last one.
    #[inline]
    fn push(&mut self, at: usize, num: u32) -> Result<(), StoreError> {
        let last = read_u32(&self.arena, at);
        if last == num {
            return Ok(());
        }
        write_u32(&mut self.arena, at, num);
        let mut list = read_u32(&self.arena, at + 4);
        if list == SINGLE {
            let chain = self.pool.start().map_err(|PoolFull| limit("postings"))?;
            list = u32::try_from(self.lists.len())
                .ok()
                .filter(|&l| l < SINGLE)
                .ok_or_else(|| limit("lists"))?;
            write_u32(&mut self.arena, at + 4, list);
            self.lists.push(List {
                first: last,
                count: 1,
                chain,
            });
        }
        let list = &mut self.lists[list as usize];
        self.pool
            .push_varint(&mut list.chain, num - last, list.count)
            .map_err(|PoolFull| limit("postings"))?;
        list.count += 1;
        Ok(())
    }

    /// Interns a new term first seen in event `num`; returns its arena offset.
    fn insert(&mut self, h: u32, t: &[u8], num: u32) -> Result<usize, StoreError> {
        let at = u32::try_from(self.arena.len())
            .ok()
            .filter(|&a| a < NONE)
            .ok_or_else(|| limit("term bytes"))?;
        let len = u32::try_from(t.len()).map_err(|_| limit("term bytes"))?;
        self.arena.extend_from_slice(&num.to_le_bytes());
        self.arena.extend_from_slice(&SINGLE.to_le_bytes());
        self.arena.extend_from_slice(&len.to_le_bytes());
        self.arena.extend_from_slice(t);
        self.count += 1;
        self.table.insert_unique(h, at);
        Ok(at as usize)
    }

    /// Offsets of every arena entry, in order.
    fn entries(&self) -> impl Iterator<Item = usize> + '_ {
        let mut at = 0;
        std::iter::from_fn(move || {
            (at < self.arena.len()).then(|| {
                let this = at;
                at += HEAD + read_u32(&self.arena, at + 8) as usize;
                this
            })
        })
    }

    /// Indexes of the batch's terms not yet in the big table.
    fn batch_only(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.batch.terms.len() as u32).filter(|&i| {
            let bt = &self.batch.terms[i as usize];
            self.find(bt.hash, self.batch.term(i)).is_none()
        })
    }

    /// The postings of the arena entry at `at` (or none for [`NONE`]) followed by the batch's
    /// numbers `tail` of the same term.
    fn postings<'a>(&'a self, at: u32, mut tail: Tail<'a>) -> Postings<'a> {
        if at == NONE {
            return Postings {
                next: tail.next(),
                left: 0,
                bytes: None,
                tail,
            };
        }
        let at = at as usize;
        match read_u32(&self.arena, at + 4) {
            SINGLE => Postings {
                next: Some(read_u32(&self.arena, at)),
                left: 0,
                bytes: None,
                tail,
            },
            l => {
                let list = &self.lists[l as usize];
                Postings {
                    next: Some(list.first),
                    left: list.count - 1,
                    bytes: Some(self.pool.bytes(list.chain)),
                    tail,
                }
            }
        }
    }

    /// The bytes of a sort entry's term (arena entry `at`, or batch term `b` if `at` is
    /// [`NONE`]).
    #[inline]
    fn term_of(&self, at: u32, b: u32) -> &[u8] {
        if at == NONE {
            self.batch.term(b)
        } else {
            term_at(&self.arena, at as usize)
        }
    }

    /// Exact lookup: the ascending event numbers holding `term`.
    pub fn get(&self, term: &[u8]) -> Option<Postings<'_>> {
        let h = hash32(term);
        let at = self.find(h, term).map_or(NONE, |at| at as u32);
        let slot = self.batch.slot(h, term);
        (at != NONE || slot.is_some()).then(|| self.postings(at, self.batch.scan(slot)))
    }

    /// Calls `f` with every term and its postings, in no particular order.
    pub fn for_each_term(&self, mut f: impl FnMut(&[u8], Postings<'_>)) {
        let pending = !self.batch.terms.is_empty();
        let mut g = Grouped::default();
        self.batch.group(&mut g);
        let tail = |b| Tail::Run(self.batch.run(&g, b).iter());
        for at in self.entries() {
            let t = term_at(&self.arena, at);
            let b = if pending {
                self.batch.find(hash32(t), t).unwrap_or(NONE)
            } else {
                NONE
            };
            f(t, self.postings(at as u32, tail(b)));
        }
        for b in self.batch_only() {
            f(self.batch.term(b), self.postings(NONE, tail(b)));
        }
    }

    /// Consumes the collector into its terms sorted by bytes (the hash table is freed first).
    pub fn into_sorted(mut self) -> Result<SortedTerms, StoreError> {
        self.flush()?;
        self.table = Table::default();
        Ok(SortedTerms {
            order: self.sort_order(),
            grouped: Grouped::default(), // the batch is empty
            ix: self,
        })
    }

    /// The terms sorted by bytes, borrowing the collector (which stays usable for lookups:
    /// a hot bucket rolls while searches still read it).
    pub fn sorted(&self) -> SortedTerms<&TermIndex> {
        let mut grouped = Grouped::default();
        self.batch.group(&mut grouped);
        SortedTerms {
            order: self.sort_order(),
            grouped,
            ix: self,
        }
    }

    /// `(sort key, arena offset or NONE, batch term or NONE)` of every term, in byte order of
    /// the terms.
    fn sort_order(&self) -> Vec<(u64, u32, u32)> {
        // The batch's terms already in the arena, by arena offset.
        let mut in_arena = std::collections::HashMap::new();
        let mut only = Vec::new();
        for (i, bt) in self.batch.terms.iter().enumerate() {
            match self.find(bt.hash, self.batch.term(i as u32)) {
                Some(at) => {
                    in_arena.insert(at as u32, i as u32);
                }
                None => only.push(i as u32),
            }
        }
        // Sized exactly: grown by doubling, it was up to twice the terms' 16 bytes each, and
        // each doubling briefly held the old and the new vector, at the roll's memory peak.
        let mut order: Vec<(u64, u32, u32)> = Vec::with_capacity(self.count + only.len());
        order.extend(self.entries().map(|at| {
            let b = in_arena.get(&(at as u32)).copied().unwrap_or(NONE);
            (order_key(term_at(&self.arena, at)), at as u32, b)
        }));
        order.extend(
            only.into_iter()
                .map(|b| (order_key(self.batch.term(b)), NONE, b)),
        );
        // Sort on the first 8 bytes as one integer; compare whole terms only on ties.
        order.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.term_of(a.1, a.2).cmp(self.term_of(b.1, b.2)))
        });
        order
    }
}

/// A term index's terms in byte order (see [`TermIndex::into_sorted`] and
/// [`TermIndex::sorted`]); `T` owns or borrows the index.
pub struct SortedTerms<T: std::borrow::Borrow<TermIndex> = TermIndex> {
    /// `(sort key, arena offset, batch term)` of the terms, in byte order of the terms (the key
    /// is kept rather than copying the offsets into a second vector at the memory peak of a
    /// roll; the three fit in 16 bytes).
    order: Vec<(u64, u32, u32)>,
    /// The pending batch's numbers, grouped.
    grouped: Grouped,
    ix: T,
}

impl<T: std::borrow::Borrow<TermIndex>> SortedTerms<T> {
    /// Number of terms.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there is no term.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Terms and their postings in ascending byte order.
    ///
    /// Sorted order visits the arena, the lists and the pool at random: three cache misses a
    /// term, one after the other. The iterator prefetches them a few terms ahead, each from
    /// the line prefetched before it: the arena entry 12 terms ahead, its list 8 ahead, the
    /// head of the list's deltas 4 ahead.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], Postings<'_>)> + '_ {
        let ix = self.ix.borrow();
        let order = &self.order;
        let ahead = move |i: usize| order.get(i).map_or(NONE, |&(_, at, _)| at);
        order.iter().enumerate().map(move |(i, &(_, at, b))| {
            if let Some(entry) = ix.arena.get(ahead(i + 12) as usize) {
                prefetch(entry);
            }
            if let Some(list) = ix.list_of(ahead(i + 8)) {
                prefetch(list);
            }
            if let Some(list) = ix.list_of(ahead(i + 4)) {
                ix.pool.prefetch_head(list.chain);
            }
            let tail = Tail::Run(ix.batch.run(&self.grouped, b).iter());
            (ix.term_of(at, b), ix.postings(at, tail))
        })
    }
}

/// Ascending event numbers of one term.
#[derive(Clone)]
pub struct Postings<'a> {
    /// The next number to yield.
    next: Option<u32>,
    /// Numbers of the big table's list left after `next`.
    left: u32,
    /// Their deltas.
    bytes: Option<ChainBytes<'a>>,
    /// Numbers still in the batch, after those of the big table.
    tail: Tail<'a>,
}

impl Postings<'_> {
    /// The first (smallest) event number.
    pub fn first(&self) -> Option<u32> {
        self.next
    }

    /// Appends the numbers to `out`: what collecting the iterator does, with the deltas of the
    /// big table's list decoded a slice of the pool at a time rather than byte by byte through
    /// the chain (a roll reads every list; `Postings::next` was 3 % of ingest CPU).
    pub fn append_to(self, out: &mut Vec<u32>) {
        out.reserve(self.size_hint().0);
        let Postings {
            next,
            mut left,
            bytes,
            tail,
        } = self;
        let Some(mut cur) = next else { return };
        out.push(cur);
        if let (Some(mut bytes), true) = (bytes, left > 0) {
            let (mut delta, mut shift) = (0u32, 0u32);
            'runs: loop {
                let run = bytes.next_run();
                if run.is_empty() {
                    break;
                }
                for &b in run {
                    delta |= u32::from(b & 0x7f) << shift;
                    if b & 0x80 != 0 {
                        shift += 7;
                        continue;
                    }
                    cur += delta;
                    out.push(cur);
                    (delta, shift) = (0, 0);
                    left -= 1;
                    if left == 0 {
                        break 'runs;
                    }
                }
            }
        }
        out.extend(tail);
    }
}

impl Iterator for Postings<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let cur = self.next?;
        self.next = None;
        if self.left > 0 {
            if let Some(bytes) = &mut self.bytes {
                let (mut delta, mut shift) = (0u32, 0);
                for b in bytes.by_ref() {
                    delta |= ((b & 0x7f) as u32) << shift;
                    shift += 7;
                    if b & 0x80 == 0 {
                        break;
                    }
                }
                self.left -= 1;
                self.next = Some(cur + delta);
            }
        } else {
            self.next = self.tail.next();
        }
        Some(cur)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self
            .next
            .map_or(0, |_| self.left as usize + 1 + self.tail.left());
        (n, Some(n))
    }
}

#[cfg(test)]
mod tests;
