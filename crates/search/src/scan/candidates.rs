//! Per bucket: open it and choose the events worth reading (time, bloom, postings, time column).

use std::sync::Arc;

use lode_store::bucket::NewestBlocks;
use lode_store::columns::Column;
use lode_store::consts::COLUMNS_BLOCK_EVENTS;
use lode_store::query::Window;
use lode_store::{BucketRead, StoreError, TermQuery};
use roaring::RoaringBitmap;

use super::source::BucketRef;
use super::{is_corrupt, warn_corrupt, ScanCtx};
use crate::run::SearchStats;
use crate::SearchError;

/// An opened bucket and its candidate event numbers.
pub struct Opened {
    /// The bucket reader.
    pub bucket: Box<dyn BucketRead + Send + Sync>,
    /// Event numbers selected by the term query and the time range, never empty.
    pub cands: Candidates,
    /// A mask of the kinds of every candidate, for a newest-first read
    /// ([`BucketRead::query_kinds`]; `u64::MAX`: any).
    pub kinds: u64,
}

/// A bucket's candidate event numbers: listed in ascending order, or still the bitmap the
/// term query gave, when it holds exactly the candidates (no time filter dropped any, every
/// member is below the event count). A newest-first read takes a bitmap's members block by
/// block ([`Candidates::block_rev`]) and so never lists the millions of a dense term for a
/// `head 10`; that listing was a tenth of the service scenario's CPU.
pub enum Candidates {
    /// Ascending.
    List(Vec<u32>),
    /// Members all below the bucket's event count (shared with the search cache).
    Bits(Arc<RoaringBitmap>),
    /// A newest-first read's candidates, evaluated over the containers of the bucket's newest
    /// blocks first and over the whole bucket only when a read goes past them (see
    /// [`Windowed`]).
    Windowed(Box<Windowed>),
}

/// The term query of a newest-first read evaluated a part at a time (rule NEWEST-WINDOW): first
/// over a [`Window`] of the containers holding the bucket's newest column blocks, then, each
/// time the read reaches a block outside the containers evaluated, over as many more containers
/// again, taken in the same newest-first block order (the last step takes all that is left). A
/// `<word> | head 10` thus builds the newest container or two of each term's postings, not the
/// millions of numbers of a common word's whole list. Only a single term's candidates dense in
/// the first window (about one per column block, [`is_dense`]) are read this way; sparser ones
/// are evaluated over the whole bucket at once, since a `head` would widen the window step by
/// step and pay more than one whole evaluation (see [`newest_order`]).
///
/// Naive twin: the whole evaluation ([`Candidates::Bits`]); `Windowed` holds exactly its
/// members in the containers evaluated.
pub struct Windowed {
    /// The candidates in `window` (below the event count).
    have: Arc<RoaringBitmap>,
    /// The containers evaluated.
    window: Window,
    query: TermQuery,
    count: u32,
    /// Events per column block.
    per: u32,
    /// `(largest _time, block)` of every column block holding events of the query's kinds,
    /// newest first (the bucket's, shared: [`BucketRead::blocks_newest_first_of`]).
    order: NewestBlocks,
    /// Blocks of `order` before this one lie in evaluated containers.
    grown: usize,
}

impl Windowed {
    /// The first window of a bucket of `count` events whose blocks of `per` events are `order`
    /// (newest first), evaluated: containers of the newest blocks until they hold
    /// [`WINDOW_EVENTS`].
    fn start(
        bucket: &dyn BucketRead,
        query: &TermQuery,
        count: u32,
        per: u32,
        order: NewestBlocks,
    ) -> Result<Windowed, StoreError> {
        let mut w = Windowed {
            have: Arc::new(RoaringBitmap::new()),
            window: Window::new(Vec::new(), count),
            query: query.clone(),
            count,
            per,
            order,
            grown: 0,
        };
        w.grow(bucket, WINDOW_EVENTS, None)?;
        Ok(w)
    }

    /// Block `i` of the newest-first order.
    fn block_at(&self, i: usize) -> Option<u32> {
        self.order.get(i).map(|&(_, b)| b)
    }

    /// Whether every container of `lo..hi` has been evaluated.
    fn covers(&self, lo: u32, hi: u32) -> bool {
        hi > lo
            && (lo >> 16..=(hi - 1) >> 16)
                .all(|k| self.window.keys().binary_search(&(k as u16)).is_ok())
    }

    /// Whether every container has been evaluated.
    fn is_whole(&self) -> bool {
        self.window.events() >= u64::from(self.count)
    }

    /// Evaluates at least `target` events more (all that is left once that would pass half the
    /// bucket), in newest-first block order, with `need`'s container among them.
    fn grow(
        &mut self,
        bucket: &dyn BucketRead,
        target: u64,
        need: Option<u32>,
    ) -> Result<(), StoreError> {
        let count = self.count;
        let in_container = |k: u32| u64::from(count.saturating_sub(k << 16)).min(1 << 16);
        let mut keys: Vec<u16> = Vec::new();
        let mut added = 0u64;
        if self.window.events() + target >= u64::from(self.count) / 2 {
            keys = all_keys(self.count);
            keys.retain(|k| self.window.keys().binary_search(k).is_err());
            self.grown = self.order.len();
        } else {
            while added < target {
                let Some(b) = self.block_at(self.grown) else {
                    break;
                };
                self.grown += 1;
                let k = ((u64::from(b) * u64::from(self.per)) >> 16) as u16;
                if self.window.keys().binary_search(&k).is_ok() || keys.contains(&k) {
                    continue;
                }
                keys.push(k);
                added += in_container(u32::from(k));
            }
            if let Some(k) = need.map(|k| k as u16) {
                if self.window.keys().binary_search(&k).is_err() && !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        if keys.is_empty() {
            return Ok(());
        }
        let more = Window::new(keys.clone(), self.count);
        let found = bucket.eval_in(&self.query, &more)?;
        if !found.is_empty() {
            let mut have = Arc::unwrap_or_clone(std::mem::take(&mut self.have));
            have |= &*found;
            self.have = Arc::new(have);
        }
        keys.extend_from_slice(self.window.keys());
        self.window = Window::new(keys, self.count);
        Ok(())
    }

    /// The candidates in `lo..hi` (within the event count), descending, into `out`, evaluating
    /// more containers first when `lo..hi` reaches past those evaluated.
    fn block_rev(
        &mut self,
        bucket: &dyn BucketRead,
        lo: u32,
        hi: u32,
        out: &mut Vec<u32>,
    ) -> Result<(), StoreError> {
        let hi = hi.min(self.count);
        while !self.covers(lo, hi) && !self.is_whole() {
            let target = self.window.events().max(WINDOW_EVENTS);
            self.grow(bucket, target, Some(lo >> 16))?;
            if !self.covers(lo, hi) {
                // A range over several containers (not a column block): all the rest.
                let all = u64::from(self.count);
                self.grow(bucket, all, None)?;
            }
        }
        bits_block_rev(&self.have, lo, hi, out);
        Ok(())
    }

    /// The whole bucket's candidates (below the event count).
    fn whole(&mut self, bucket: &dyn BucketRead) -> Result<Arc<RoaringBitmap>, StoreError> {
        if !self.is_whole() {
            let b = bucket.eval_shared(&self.query)?;
            self.have = if b.max().is_none_or(|m| m < self.count) {
                b
            } else {
                Arc::new(b.iter().take_while(|&n| n < self.count).collect())
            };
            self.window = Window::new(all_keys(self.count), self.count);
            self.grown = self.order.len();
        }
        Ok(self.have.clone())
    }
}

impl Candidates {
    /// Number of candidates.
    /// Number of candidates; of [`Candidates::Windowed`], those found so far.
    pub fn len(&self) -> u64 {
        match self {
            Candidates::List(v) => v.len() as u64,
            Candidates::Bits(b) => b.len(),
            Candidates::Windowed(w) => w.have.len(),
        }
    }

    /// Whether the candidates are dense enough for whole-column reads ([`is_dense`]) in a bucket
    /// of `events`; windowed ones, in the events they were evaluated over.
    pub fn is_dense_in(&self, events: u64) -> bool {
        match self {
            Candidates::Windowed(w) => is_dense(w.have.len(), w.window.events()),
            _ => is_dense(self.len(), events),
        }
    }

    /// Turns windowed candidates into the whole bucket's ([`Candidates::Bits`]), evaluating
    /// the rest of the bucket; the others are left as they are.
    pub fn complete(&mut self, bucket: &dyn BucketRead) -> Result<(), StoreError> {
        if let Candidates::Windowed(w) = self {
            *self = Candidates::Bits(w.whole(bucket)?);
        }
        Ok(())
    }

    /// Whether there is none (windowed candidates: none found and nothing left to evaluate).
    pub fn is_empty(&self) -> bool {
        match self {
            Candidates::Windowed(w) => w.have.is_empty() && w.is_whole(),
            _ => self.len() == 0,
        }
    }

    /// The term query's bitmap, when it holds exactly the candidates (counting intersects it
    /// with field postings without rebuilding it from the list).
    pub fn bits(&self) -> Option<&RoaringBitmap> {
        match self {
            Candidates::List(_) | Candidates::Windowed(_) => None,
            Candidates::Bits(b) => Some(b),
        }
    }

    /// The candidates listed, ascending (of windowed ones, those evaluated: call
    /// [`Candidates::complete`] first for all of them).
    pub fn list(&self) -> std::borrow::Cow<'_, [u32]> {
        match self {
            Candidates::List(v) => std::borrow::Cow::Borrowed(v),
            Candidates::Bits(b) => std::borrow::Cow::Owned(all_ids(b)),
            Candidates::Windowed(w) => std::borrow::Cow::Owned(all_ids(&w.have)),
        }
    }

    /// The candidates listed, ascending, consuming them (as [`Candidates::list`]).
    pub fn into_list(self) -> Vec<u32> {
        match self {
            Candidates::List(v) => v,
            Candidates::Bits(b) => all_ids(&b),
            Candidates::Windowed(w) => all_ids(&w.have),
        }
    }

    /// Replaces `out` with the candidates in `lo..hi`, descending. Windowed candidates evaluate
    /// more of the bucket first when `lo..hi` reaches past what they evaluated.
    pub fn block_rev_in(
        &mut self,
        bucket: &dyn BucketRead,
        lo: u32,
        hi: u32,
        out: &mut Vec<u32>,
    ) -> Result<(), StoreError> {
        match self {
            Candidates::Windowed(w) => w.block_rev(bucket, lo, hi, out),
            _ => {
                self.block_rev(lo, hi, out);
                Ok(())
            }
        }
    }

    /// Replaces `out` with the candidates in `lo..hi`, descending (of windowed ones, those found
    /// so far: [`Candidates::block_rev_in`] evaluates what a range needs).
    pub fn block_rev(&self, lo: u32, hi: u32, out: &mut Vec<u32>) {
        match self {
            Candidates::List(v) => {
                out.clear();
                let from = v.partition_point(|&n| n < lo);
                let to = v.partition_point(|&n| n < hi);
                out.extend(v[from..to].iter().rev());
            }
            Candidates::Bits(b) => bits_block_rev(b, lo, hi, out),
            Candidates::Windowed(w) => bits_block_rev(&w.have, lo, hi, out),
        }
    }
}

/// Replaces `out` with the members of `b` in `lo..hi`, descending.
fn bits_block_rev(b: &RoaringBitmap, lo: u32, hi: u32, out: &mut Vec<u32>) {
    out.clear();
    // A column block lies in one container; any other range is cut at their ends.
    let mut from = lo as u64;
    while from < hi as u64 {
        let to = (from | 0xffff).min(hi as u64 - 1);
        push_members(b, from as u32, to as u32, out);
        from = to + 1;
    }
    out.reverse();
}

/// Every member of `b`, ascending.
fn all_ids(b: &RoaringBitmap) -> Vec<u32> {
    // `max + 1` cannot overflow: members are below an event count, itself a u32.
    ids_below(b, b.max().map_or(0, |m| m.saturating_add(1)))
}

/// Opens `b` and selects its candidates, recording the path taken. `Ok(None)`: nothing to read
/// (pruned by time, bloom skip, no candidate, or corrupt — skipped with a warning).
pub fn open_candidates(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    stats: &mut SearchStats,
) -> Result<Option<Opened>, SearchError> {
    if !ctx
        .range
        .overlaps_secs(b.info.min_time_secs, b.info.max_time_secs)
    {
        stats.buckets_pruned_time += 1;
        ctx.note(stats, || {
            format!("{}: pruned by time (directory name)", b.label)
        });
        return Ok(None);
    }
    let bucket = match super::source::open(&b.info) {
        Ok(r) => r,
        Err(e) if is_corrupt(&e) => {
            warn_corrupt(stats, &b.label, &e);
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    match select(ctx, b, bucket.as_ref(), stats) {
        Ok(Some((cands, kinds))) => Ok(Some(Opened {
            bucket,
            cands,
            kinds,
        })),
        Ok(None) => Ok(None),
        Err(e) if is_corrupt(&e) => {
            warn_corrupt(stats, &b.label, &e);
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// The fast path of one opened bucket: metadata time prune → bloom → postings or full scan →
/// time filter (none when the range covers the bucket; otherwise per candidate, or the whole
/// time column for a full scan or dense candidates, see [`is_dense`]). With the candidates, for
/// a newest-first read, a mask of their kinds ([`BucketRead::query_kinds`]; else `u64::MAX`):
/// such a read takes the blocks of those kinds only.
fn select(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    bucket: &dyn BucketRead,
    stats: &mut SearchStats,
) -> Result<Option<(Candidates, u64)>, StoreError> {
    let meta = bucket.meta();
    let count = u32::try_from(meta.event_count)
        .map_err(|_| StoreError::corrupt(&b.info.path, "event count beyond u32"))?;
    if count == 0 {
        ctx.note(stats, || format!("{}: empty", b.label));
        return Ok(None);
    }
    if !ctx.range.overlaps(meta.min_time, meta.max_time) {
        stats.buckets_pruned_time += 1;
        ctx.note(stats, || format!("{}: pruned by time (metadata)", b.label));
        return Ok(None);
    }
    if let Some(t) = ctx.required.iter().find(|t| !bucket.may_contain(t)) {
        stats.buckets_skipped_bloom += 1;
        ctx.note(stats, || {
            format!(
                "{}: bloom skip (no '{}')",
                b.label,
                String::from_utf8_lossy(t)
            )
        });
        return Ok(None);
    }
    let kinds = match ctx.time_ordered {
        true => bucket.query_kinds(ctx.query),
        false => u64::MAX,
    };
    let cands = if ctx.range.covers(meta.min_time, meta.max_time) {
        // Every event is in range: no time lookup at all.
        match ctx.query {
            TermQuery::All => Candidates::List((0..count).collect()),
            // Held decoded already (a search cache's): nothing to save by a window.
            q => match bucket.eval_held(q) {
                Some(held) => bits_below(held, count),
                None => match newest_order(ctx, bucket, count, kinds) {
                    Some((per, order)) => {
                        let w = Windowed::start(bucket, q, count, per, order)?;
                        if is_dense(w.have.len(), w.window.events()) {
                            Candidates::Windowed(Box::new(w))
                        } else {
                            // Few candidates in the newest blocks: a `head` likely reads past
                            // them, so take the whole bucket's now (the postings blocks the window
                            // read are still in the reader's recent ones).
                            whole_bits(bucket, q, count)?
                        }
                    }
                    None => whole_bits(bucket, q, count)?,
                },
            },
        }
    } else {
        Candidates::List(in_range(ctx, b, bucket, count)?)
    };
    stats.events_candidate += cands.len();
    ctx.note(stats, || match ctx.query {
        TermQuery::All => format!(
            "{}: full scan because the search clause has no indexable term ({} of {} events in time range)",
            b.label,
            cands.len(),
            count
        ),
        _ => match &cands {
            Candidates::Windowed(w) => format!(
                "{}: index postings, newest first by window ({} candidates in the {} events of the newest blocks' containers, of {} events)",
                b.label,
                cands.len(),
                w.window.events(),
                count
            ),
            _ => format!("{}: index postings ({} candidates of {} events)", b.label, cands.len(), count),
        },
    });
    if cands.is_empty() {
        return Ok(None);
    }
    stats.buckets_read += 1;
    Ok(Some((cands, kinds)))
}

/// The whole bucket's candidates of `q` (not `All`).
fn whole_bits(
    bucket: &dyn BucketRead,
    q: &TermQuery,
    count: u32,
) -> Result<Candidates, StoreError> {
    Ok(bits_below(bucket.eval_shared(q)?, count))
}

/// The candidates of `b` below `count`: the bitmap itself when every member is.
fn bits_below(b: Arc<RoaringBitmap>, count: u32) -> Candidates {
    if b.max().is_none_or(|m| m < count) {
        Candidates::Bits(b)
    } else {
        Candidates::List(ids_below(&b, count))
    }
}

/// The key of every container of a bucket of `count` (> 0) events.
fn all_keys(count: u32) -> Vec<u16> {
    (0..=(count - 1) >> 16).map(|k| k as u16).collect()
}

/// Postings entries shorter than this (bytes) are evaluated whole, without a window: a
/// super-sparse term's dozen events in a bucket decode in microseconds, less than choosing
/// the window takes.
const WINDOW_MIN_BYTES: u64 = 16 * 1024;

/// Events of the newest column blocks a windowed evaluation covers first (see [`Windowed`]).
const WINDOW_EVENTS: u64 = 16 * 1024;

/// For a newest-first read of a bucket of `count` events that a windowed evaluation pays for
/// (see [`Windowed`]): its events per column block and `(largest _time, block)` of each of its
/// blocks holding events of the kinds `kinds` ([`BucketRead::blocks_newest_first_of`]), newest
/// first. `None` when the read is not newest first, the query is not a single
/// term (or is one whose postings entry is short), the bucket has no block table (or blocks
/// that straddle containers), or it has two containers or fewer. Several terms are
/// evaluated whole: words common alone are often rare together (the service scenario's
/// `<2–3 words> | head 10`), and their first window, too sparse to read, cost 17 % of its CPU.
fn newest_order(
    ctx: &ScanCtx<'_>,
    bucket: &dyn BucketRead,
    count: u32,
    kinds: u64,
) -> Option<(u32, NewestBlocks)> {
    let TermQuery::Term(term) = ctx.query else {
        return None;
    };
    if !ctx.time_ordered || ctx.counted.is_some() || count <= 2 << 16 {
        return None;
    }
    // A short list decodes whole in microseconds: a window first would only add its own.
    if bucket
        .term_cost(term)
        .ok()?
        .is_some_and(|c| c < WINDOW_MIN_BYTES)
    {
        return None;
    }
    let (per, order) = bucket.blocks_newest_first_of(kinds)?;
    if per == 0 || (1 << 16) % per != 0 {
        return None;
    }
    Some((per, order))
}

/// The candidates of a bucket the time range does not cover, ascending: the term query's (or
/// every event) whose `_time` is in range.
fn in_range(
    ctx: &ScanCtx<'_>,
    b: &BucketRef,
    bucket: &dyn BucketRead,
    count: u32,
) -> Result<Vec<u32>, StoreError> {
    Ok(match ctx.query {
        // A full scan reads every event anyway: the whole time column is the cheapest.
        TermQuery::All => {
            let times = all_times(bucket, b, count)?;
            (0..count)
                .filter(|&n| times.get(n as usize).is_some_and(|t| ctx.range.contains(t)))
                .collect()
        }
        q => {
            let cands = bucket.eval_shared(q)?;
            if is_dense(cands.len(), count as u64) {
                let times = all_times(bucket, b, count)?;
                let mut ids = ids_below(&cands, count);
                ids.retain(|&n| times.get(n as usize).is_some_and(|t| ctx.range.contains(t)));
                ids
            } else {
                // Per-event times decode just the column blocks holding the candidates.
                let mut ids = Vec::new();
                for n in cands.iter().filter(|&n| n < count) {
                    if ctx.range.contains(bucket.time(n)?) {
                        ids.push(n);
                    }
                }
                ids
            }
        }
    })
}

/// The members of `bits` below `count`, ascending, taken a container at a time
/// ([`push_members`]): a dense term's candidates are millions of numbers, and one-by-one
/// iteration was a fifth of a `<word> | head 10`.
pub fn ids_below(bits: &RoaringBitmap, count: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(bits.range_cardinality(..count) as usize);
    let mut high = 0u64;
    while high << 16 < count as u64 {
        let lo = (high << 16) as u32;
        let hi = (((high + 1) << 16) - 1).min(count as u64 - 1) as u32;
        push_members(bits, lo, hi, &mut out);
        high += 1;
    }
    out
}

/// Appends the members of `bits` in `lo..=hi` (within one 2^16-number container), ascending,
/// many at a time (roaring's `next_many`) rather than one by one.
///
/// roaring 0.12's `next_many` mishandles a run covering a whole container (its length,
/// 65,536, overflows a u16: release builds skip the run's numbers, debug builds panic). Such
/// runs are common (a term in every event of a 65,536-event stretch). A range whose every
/// number is a member is therefore appended as a range; any other range lies in a container
/// that is not one full run, where `next_many` is right.
///
/// A range whose first or last number is not a member is in no full container: its members
/// are taken without counting them first. (Counting them ranks both ends, which in a bitmap
/// container counts the bits of every word below each: 4.8 % of the 10 GB service's CPU.)
fn push_members(bits: &RoaringBitmap, lo: u32, hi: u32, out: &mut Vec<u32>) {
    debug_assert_eq!(lo >> 16, hi >> 16, "one container");
    if !(bits.contains(lo) && bits.contains(hi)) {
        let mut buf = [0u32; 256];
        let mut it = bits.range(lo..=hi);
        loop {
            let got = it.next_many(&mut buf);
            if got.is_empty() {
                return;
            }
            out.extend_from_slice(got);
        }
    }
    let n = bits.range_cardinality(lo..=hi) as usize;
    if n == 0 {
        return;
    }
    if n == (hi - lo) as usize + 1 {
        out.extend(lo..=hi);
        return;
    }
    let start = out.len();
    out.resize(start + n, 0);
    let mut filled = 0;
    let mut it = bits.range(lo..=hi);
    while filled < n {
        let got = it.next_many(&mut out[start + filled..]).len();
        if got == 0 {
            break;
        }
        filled += got;
    }
    out.truncate(start + filled);
}

/// Whether `candidates` of a bucket's `events` are dense enough that decoding every column block
/// at once (the whole-column accessors) costs no more than decoding just theirs: with about one
/// candidate per column block or more, nearly every block is touched anyway, and whole columns
/// are then cheaper to index per event.
pub fn is_dense(candidates: u64, events: u64) -> bool {
    candidates.saturating_mul(COLUMNS_BLOCK_EVENTS as u64) >= events
}

/// Whether a newest-first read of `candidates` of a bucket's `events` takes them column block
/// by block, newest block first (rule BLOCK-ORDER, `cursor::BlockOrder`), rather than keying
/// every candidate up front: from about one candidate per 16 blocks. Keying them all decodes
/// the time column block of each (a common word rare in one bucket, 2,754 candidates of 3.1 M
/// events, decoded ~2,700 blocks for a `head 10` that needed a handful); block order decodes
/// blocks only as far as the read goes. Sparser candidates are keyed up front, which costs a
/// few blocks and no walk of the block table.
pub fn keyed_by_block(candidates: u64, events: u64) -> bool {
    candidates.saturating_mul(16 * COLUMNS_BLOCK_EVENTS as u64) >= events
}

/// The whole time column (every column block decoded once), checked against the event count.
fn all_times<'a>(
    bucket: &'a dyn BucketRead,
    b: &BucketRef,
    count: u32,
) -> Result<Column<'a, i64>, StoreError> {
    bucket.prepare()?;
    let times = bucket.times();
    if times.len() != count as usize {
        return Err(StoreError::corrupt(
            &b.info.path,
            "time column length differs from event count",
        ));
    }
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A bitmap of every container kind: runs (whole containers among them), bitmaps and
    /// arrays, over the first five containers.
    fn bitmap() -> impl Strategy<Value = RoaringBitmap> {
        let run = (0u32..5 << 16, 0u32..140_000).prop_map(|(a, len)| (a, a.saturating_add(len)));
        let whole = (0u32..5).prop_map(|c| (c << 16, (c + 1) << 16));
        let spans = prop::collection::vec(prop_oneof![run, whole], 0..4);
        let scattered = prop::collection::vec(0u32..5 << 16, 0..3_000);
        (spans, scattered).prop_map(|(spans, scattered)| {
            let mut b = RoaringBitmap::new();
            for (lo, hi) in spans {
                b.insert_range(lo..hi);
            }
            b.extend(scattered);
            b.optimize();
            b
        })
    }

    proptest! {
        /// A bitmap's candidates list and cut into ranges as the plain iterator gives them,
        /// and the same as the listed form's.
        #[test]
        fn bitmap_candidates_equal_their_list(
            bits in bitmap(),
            ranges in prop::collection::vec((0u32..6 << 16, 0u32..70_000), 1..8),
        ) {
            let want: Vec<u32> = bits.iter().collect();
            let listed = Candidates::List(want.clone());
            let shared = Candidates::Bits(Arc::new(bits.clone()));
            prop_assert_eq!(shared.len(), want.len() as u64);
            prop_assert_eq!(&*shared.list(), &want[..]);
            let (mut got, mut from_list) = (vec![7], vec![7]);
            for (lo, len) in ranges {
                let hi = lo.saturating_add(len);
                let rev: Vec<u32> = want.iter().rev().copied().filter(|n| (lo..hi).contains(n)).collect();
                shared.block_rev(lo, hi, &mut got);
                listed.block_rev(lo, hi, &mut from_list);
                prop_assert_eq!(&got, &rev, "{}..{}", lo, hi);
                prop_assert_eq!(&from_list, &rev, "{}..{}", lo, hi);
            }
            prop_assert_eq!(shared.into_list(), want);
        }
    }

    #[test]
    fn ids_below_lists_the_members_below_the_count() {
        let mut bits = RoaringBitmap::new();
        bits.insert_range(10..70_000); // bitmap and full containers
        bits.extend((100_000..200_000).step_by(97)); // array containers
        bits.insert_range(300_000..300_005);
        // Whole containers as one run each (roaring 0.12's next_many skips them).
        bits.insert_range(393_216..524_288);
        bits.insert(u32::MAX);
        for count in [
            0,
            5,
            11,
            65_536,
            70_000,
            150_001,
            300_003,
            393_217,
            458_752,
            500_000,
            524_288,
            600_000,
            u32::MAX,
        ] {
            let want: Vec<u32> = bits.iter().filter(|&n| n < count).collect();
            assert_eq!(ids_below(&bits, count), want, "count {count}");
        }
        assert!(ids_below(&RoaringBitmap::new(), 10).is_empty());
    }
}
