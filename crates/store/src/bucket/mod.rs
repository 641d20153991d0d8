//! Buckets: the common read interface, the warm and hot readers, and the warm writer.

pub(crate) mod build;
pub mod hot;
pub mod journal;
pub(crate) mod kinds;
pub mod slice_table;
pub mod warm;
pub(crate) mod write;

use std::sync::Arc;

use roaring::RoaringBitmap;

use crate::columns::{Column, EventColumns};
use crate::error::StoreError;
use crate::layout::{BucketInfo, BucketKind};
use crate::meta::BucketMeta;
use crate::query::TermQuery;

/// One event as read from a bucket, borrowing the reader's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventView<'a> {
    /// Event number within the bucket (arrival order).
    pub num: u32,
    /// `_time`, µs since the epoch.
    pub time: i64,
    /// `_indextime`, seconds since the epoch.
    pub index_time: i64,
    /// `_raw`.
    pub raw: &'a str,
    /// `host`.
    pub host: &'a str,
    /// `source`.
    pub source: &'a str,
    /// `sourcetype`.
    pub sourcetype: &'a str,
    /// `linecount`.
    pub linecount: u32,
    /// Index-time fields.
    pub fields: &'a [(String, String)],
}

/// The indexed columns of one event: what a search reading no raw text needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexedFields {
    /// `_time`, µs since the epoch.
    pub time: i64,
    /// Host id (into [`BucketRead::host_names`]).
    pub host: u32,
    /// Source id (into [`BucketRead::source_names`]).
    pub source: u32,
    /// Sourcetype id (into [`BucketRead::sourcetype_names`]).
    pub sourcetype: u32,
}

/// Common read interface of warm and hot buckets.
pub trait BucketRead {
    /// Metadata: id, time range (µs), event count, raw bytes, per host/source/sourcetype stats.
    fn meta(&self) -> &BucketMeta;
    /// Loads what the column accessors ([`BucketRead::times`], the `*_ids` and `*_names`
    /// methods) serve, reporting damage. Warm buckets load columns lazily so that a search
    /// the bloom filter rules out never reads them; the accessors return empty slices if loading
    /// failed, so call this first when using them without `eval`/`read_events` (which load and
    /// report errors themselves).
    fn prepare(&self) -> Result<(), StoreError> {
        Ok(())
    }
    /// Whether `term` (lowercased) may occur: bloom filter for warm buckets (false = certainly
    /// absent), exact lexicon check for hot ones.
    fn may_contain(&self, term: &[u8]) -> bool;
    /// Candidate event numbers of `q`.
    fn eval(&self, q: &TermQuery) -> Result<RoaringBitmap, StoreError>;
    /// [`BucketRead::eval`], without copying a bitmap the reader shares: a search cache holds
    /// a one-term query's decoded postings, millions of numbers for a common word.
    fn eval_shared(&self, q: &TermQuery) -> Result<std::sync::Arc<RoaringBitmap>, StoreError> {
        self.eval(q).map(std::sync::Arc::new)
    }
    /// The events of `window` that match `q`: [`BucketRead::eval_shared`] cut to the window.
    /// Warm buckets build only the window's part of each term's postings
    /// ([`crate::query::eval_in`]).
    fn eval_in(
        &self,
        q: &TermQuery,
        window: &crate::query::Window,
    ) -> Result<std::sync::Arc<RoaringBitmap>, StoreError> {
        Ok(std::sync::Arc::new(&*self.eval_shared(q)? & window.mask()))
    }
    /// The bytes of `term`'s postings entry (lowercased), 1 for a single event, 0 when absent,
    /// `None` when the reader cannot tell cheaply ([`crate::query::TermSource::cost_hint`]).
    fn term_cost(&self, _term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }
    /// The whole bucket's candidates of `q` when the reader holds them decoded already (a
    /// search cache's one-term query), so that evaluating a window first would only cost.
    fn eval_held(&self, _q: &TermQuery) -> Option<std::sync::Arc<RoaringBitmap>> {
        None
    }
    /// The postings of each of `terms`, in order: what [`BucketRead::eval`] of each as a
    /// [`TermQuery::Term`] gives. Warm buckets share their lexicon and postings blocks across
    /// the terms (pass them sorted), so many neighbouring terms (`host::…`) cost one read each.
    fn term_postings(&self, terms: &[Vec<u8>]) -> Result<Vec<RoaringBitmap>, StoreError> {
        terms
            .iter()
            .map(|t| self.eval(&TermQuery::Term(t.clone())))
            .collect()
    }
    /// Calls `hit(i, j)` for each candidate `cands[j]` (ascending event numbers) that the
    /// postings of `terms[i]` hold, term by term: what intersecting each of
    /// [`BucketRead::term_postings`] with the candidates gives. Warm buckets walk each postings
    /// entry once against the candidates instead of building its bitmap (pass the terms sorted,
    /// as there).
    fn term_hits(
        &self,
        terms: &[Vec<u8>],
        cands: &[u32],
        hit: &mut dyn FnMut(usize, usize),
    ) -> Result<(), StoreError> {
        let bits = RoaringBitmap::from_sorted_iter(cands.iter().copied())
            .map_err(|_| StoreError::Limit("candidates out of order".into()))?;
        for (i, p) in self.term_postings(terms)?.into_iter().enumerate() {
            for n in p & &bits {
                if let Ok(j) = cands.binary_search(&n) {
                    hit(i, j);
                }
            }
        }
        Ok(())
    }
    /// `_time` column, µs, indexed by event number. Warm buckets decode every column block for
    /// it (once); prefer [`BucketRead::time`] for a few events.
    fn times(&self) -> Column<'_, i64>;
    /// `_time` of event `n`, µs. Warm buckets decode only the column block holding it (cached);
    /// hot buckets answer from memory. An `n` beyond the event count is a
    /// [`StoreError::Limit`] error.
    fn time(&self, n: u32) -> Result<i64, StoreError> {
        self.times().get(n as usize).ok_or_else(|| {
            StoreError::Limit(format!(
                "event number {n} beyond the {} events of bucket {}",
                self.times().len(),
                self.meta().id
            ))
        })
    }
    /// The `_time` range of each column block, from the block table alone (no block decoded):
    /// `(events per block, [(min, max)] in event order)`. `None` when the bucket has no block
    /// table (hot buckets: their times are in memory).
    fn time_blocks(&self) -> Option<(u32, Vec<(i64, i64)>)> {
        None
    }
    /// The column blocks in the order a newest-first read takes them: `(events per block,
    /// [(largest _time, block)])` in descending order (ties: higher block first), from
    /// [`BucketRead::time_blocks`]. A warm reader sorts them once and keeps them (a search
    /// sorted a bucket's thousands of blocks each time it opened it).
    fn blocks_newest_first(&self) -> Option<(u32, NewestBlocks)> {
        let (per, ranges) = self.time_blocks()?;
        Some((per, newest_first(&ranges)))
    }
    /// [`BucketRead::blocks_newest_first`] for a read whose candidates are all of the kinds
    /// of the mask `kinds` ([`BucketRead::query_kinds`]): only the blocks holding events of
    /// those kinds, ordered by their newest such event. Kinds of data can run days apart
    /// in one bucket (files of different sizes loaded side by side), so a block's newest
    /// event says little of its newest of one kind: a `<word> | head 10` keyed the candidates
    /// of thousands of blocks newer than its word's. Warm readers with kinds masks make the
    /// orders (and keep a few) once they have answered a few reads (see
    /// `warm::KIND_TIMES_AFTER`); others give the plain one.
    fn blocks_newest_first_of(&self, _kinds: u64) -> Option<(u32, NewestBlocks)> {
        self.blocks_newest_first()
    }
    /// A mask of the kinds every event matching `q` has, as the lexicon's masks give them
    /// ([`crate::query::kinds_of`]); `u64::MAX` when unknown.
    fn query_kinds(&self, _q: &crate::query::TermQuery) -> u64 {
        u64::MAX
    }
    /// `_time` of every event of column block `b` of [`BucketRead::time_blocks`] (events from
    /// the block's first) into `out` (replacing what it held), decoding (warm) at most that
    /// block's time column: ordering many candidates of a block by time costs one lookup, not
    /// one per candidate. `false` (and `out` untouched) without a block table.
    fn block_times_into(&self, _b: u32, _out: &mut Vec<i64>) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// `_time` and the host, source and sourcetype ids of event `n`, decoding (warm) only the
    /// column block holding it. An `n` beyond the event count is a [`StoreError::Limit`] error.
    fn indexed(&self, n: u32) -> Result<IndexedFields, StoreError> {
        let i = n as usize;
        let (t, h, s, st) = (
            self.times(),
            self.host_ids(),
            self.source_ids(),
            self.sourcetype_ids(),
        );
        match (t.get(i), h.get(i), s.get(i), st.get(i)) {
            (Some(time), Some(host), Some(source), Some(sourcetype)) => Ok(IndexedFields {
                time,
                host,
                source,
                sourcetype,
            }),
            _ => Err(StoreError::Limit(format!(
                "event number {n} beyond the {} events of bucket {}",
                t.len(),
                self.meta().id
            ))),
        }
    }
    /// The index-time fields of event `n` (`name`, `value` in stored order) into `out`, cleared
    /// first. Warm and hot buckets answer from the columns (warm: decoding only the column block
    /// holding it), never from a raw slice; this default reads the event. An `n` beyond the event
    /// count is a [`StoreError::Limit`] error.
    fn index_fields(&self, n: u32, out: &mut Vec<(String, String)>) -> Result<(), StoreError> {
        out.clear();
        self.read_events(&mut std::iter::once(n), &mut |v| {
            out.extend_from_slice(v.fields);
            false
        })
    }
    /// Host id per event.
    fn host_ids(&self) -> Column<'_, u32>;
    /// Host names by id.
    fn host_names(&self) -> &[String];
    /// Source id per event.
    fn source_ids(&self) -> Column<'_, u32>;
    /// Source names by id.
    fn source_names(&self) -> &[String];
    /// Sourcetype id per event.
    fn sourcetype_ids(&self) -> Column<'_, u32>;
    /// Sourcetype names by id.
    fn sourcetype_names(&self) -> &[String];
    /// Calls `f` for each event number in `ids` (ascending), decompressing only the slices that
    /// hold them. `f` returns false to stop early. An id beyond the event count is a
    /// [`StoreError::Limit`] error.
    fn read_events(
        &self,
        ids: &mut dyn Iterator<Item = u32>,
        f: &mut dyn FnMut(EventView<'_>) -> bool,
    ) -> Result<(), StoreError>;
}

/// Opens the bucket `info` describes. A hot bucket that rolled since it was listed is opened
/// as its warm successor (same id). A warm bucket merged into a larger one and deleted since it
/// was listed (after [`crate::merge`]'s grace period) is a [`StoreError::Merged`] error: the
/// caller lists the buckets again.
pub fn open_bucket(info: &BucketInfo) -> Result<Box<dyn BucketRead + Send + Sync>, StoreError> {
    Ok(match info.kind {
        BucketKind::Warm => match warm::WarmBucket::open(&info.path) {
            Ok(b) => Box::new(b),
            Err(StoreError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound && successor(info).is_some() =>
            {
                return Err(StoreError::Merged {
                    path: info.path.clone(),
                })
            }
            Err(e) => return Err(e),
        },
        BucketKind::Hot => {
            if let Some(b) = hot::HotBucket::open_registered(&info.path) {
                return Ok(Box::new(b));
            }
            // No writer of this process holds it: it rolled since it was listed (a roll
            // publishes the warm bucket before its writer lets go of the hot one, and deletes
            // the hot directory after), or another process writes it. Only then replay its
            // WAL: replaying a rolled bucket's would rebuild its whole index, seconds and
            // ~130 MB for a full bucket, to read what the warm bucket holds.
            if let Some(warm) = successor(info) {
                return open_successor(info, &warm);
            }
            match hot::HotBucket::replay(&info.path) {
                Ok(b) => Box::new(b),
                Err(StoreError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    let warm = successor(info).ok_or_else(|| {
                        StoreError::io(&info.path, std::io::ErrorKind::NotFound.into())
                    })?;
                    return open_successor(info, &warm);
                }
                Err(e) => return Err(e),
            }
        }
    })
}

/// `(largest _time, block)` of a bucket's column blocks, newest first (ties: higher block
/// first): the order a newest-first read takes them in.
pub type NewestBlocks = Arc<[(i64, u32)]>;

/// The [`NewestBlocks`] of column blocks whose `(smallest, largest)` times are `ranges`.
pub fn newest_first(ranges: &[(i64, i64)]) -> NewestBlocks {
    let mut order: Vec<(i64, u32)> = ranges
        .iter()
        .enumerate()
        .map(|(b, &(_, max))| (max, b as u32))
        .collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    order.into()
}

/// Opens `warm`, the bucket a hot bucket listed as `info` rolled into.
fn open_successor(
    info: &BucketInfo,
    warm: &BucketInfo,
) -> Result<Box<dyn BucketRead + Send + Sync>, StoreError> {
    if warm.first_id != warm.id {
        // Rolled and merged since it was listed: the merged bucket holds more.
        return Err(StoreError::Merged {
            path: info.path.clone(),
        });
    }
    Ok(Box::new(warm::WarmBucket::open(&warm.path)?))
}

/// The warm bucket now listed in place of `info` (its id within the listed one's ids).
fn successor(info: &BucketInfo) -> Option<BucketInfo> {
    let parent = info.path.parent().unwrap_or(std::path::Path::new("."));
    crate::layout::list_buckets(parent)
        .ok()?
        .into_iter()
        .find(|b| b.kind == BucketKind::Warm && b.first_id <= info.id && info.id <= b.id)
}

/// Gives the uncompressed bytes of a slice (warm: decompress into a buffer; hot: in memory).
pub(crate) trait SliceSource {
    /// Per-call scratch state (which may borrow buffers of the caller for `'a`).
    type Scratch<'a>
    where
        Self: 'a;
    /// Uncompressed slice `n`, reusing `scratch` when `n` is the slice loaded last.
    fn slice<'s>(
        &'s self,
        n: u32,
        scratch: &'s mut Self::Scratch<'_>,
    ) -> Result<&'s [u8], StoreError>;
}

/// The shared `read_events` loop over columns (in memory or decoded block by block) and a
/// slice source.
pub(crate) fn read_events_with<S: SliceSource>(
    path: &std::path::Path,
    cols: &dyn EventColumns,
    src: &S,
    scratch: &mut S::Scratch<'_>,
    ids: &mut dyn Iterator<Item = u32>,
    f: &mut dyn FnMut(EventView<'_>) -> bool,
) -> Result<(), StoreError> {
    let mut block = crate::columns::StreamScratch::default();
    let mut fields = Vec::new();
    let count = cols.event_count();
    let [hosts, sources, sourcetypes] = cols.dicts();
    let mut ids = ids.peekable();
    // The slice of the previous event, and the current slice once validated whole: events are
    // then cut from it as text. A slice is validated whole on its second event read (a dense
    // read checks each byte once, with simdutf8's 32-byte steps over 16 KiB instead of a call
    // per event), while a sparse read checks only the events it returns.
    let mut last = None;
    let mut text: Option<(u32, &str)> = None;
    while let Some(id) = ids.next() {
        if id as usize >= count {
            return Err(StoreError::Limit(format!(
                "event number {id} beyond the {count} events of {}",
                path.display()
            )));
        }
        let next = ids.peek().map(|&m| m as usize);
        let (cols, i) = cols.locate_streaming(id as usize, next, &mut block)?;
        let n = cols.slice[i];
        let (o, l) = (cols.offset[i] as usize, cols.raw_len[i] as usize);
        let raw = match text {
            Some((t, whole)) if t == n => whole.get(o..o + l),
            _ => {
                let data = src.slice(n, scratch)?;
                text = None;
                let whole = if last == Some(n) {
                    simdutf8::basic::from_utf8(data).ok()
                } else {
                    None
                };
                match whole {
                    Some(whole) => {
                        text = Some((n, whole));
                        whole.get(o..o + l)
                    }
                    // A slice that is not valid text as a whole still serves its sound events.
                    None => data
                        .get(o..o + l)
                        .and_then(|b| simdutf8::basic::from_utf8(b).ok()),
                }
            }
        }
        .ok_or_else(|| StoreError::corrupt(path, format!("raw text of event {id} is damaged")))?;
        last = Some(n);
        cols.fields_into(i, &mut fields)
            .map_err(|r| StoreError::corrupt(path, format!("fields of event {id}: {r}")))?;
        let view = EventView {
            num: id,
            time: cols.times[i],
            index_time: cols.index_times[i],
            raw,
            host: name(hosts, cols.host[i], path)?,
            source: name(sources, cols.source[i], path)?,
            sourcetype: name(sourcetypes, cols.sourcetype[i], path)?,
            linecount: cols.linecount[i],
            fields: &fields,
        };
        if !f(view) {
            break;
        }
    }
    Ok(())
}

/// Dictionary entry `id`; an id outside the dictionary is corruption.
fn name<'a>(dict: &'a [String], id: u32, path: &std::path::Path) -> Result<&'a str, StoreError> {
    dict.get(id as usize)
        .map(String::as_str)
        .ok_or_else(|| StoreError::corrupt(path, format!("dictionary id {id} out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::Columns;

    /// Slices held in memory.
    struct Slices(Vec<Vec<u8>>);

    impl SliceSource for Slices {
        type Scratch<'a> = ();
        fn slice<'s>(&'s self, n: u32, _: &'s mut ()) -> Result<&'s [u8], StoreError> {
            Ok(&self.0[n as usize])
        }
    }

    /// Columns of events cut from the slices at `(slice, offset, len)`.
    fn columns(events: &[(u32, u32, u32)]) -> Columns {
        let mut c = Columns::new();
        for &(slice, offset, len) in events {
            c.times.push(0);
            c.index_times.push(0);
            c.slice.push(slice);
            c.offset.push(offset);
            c.raw_len.push(len);
            c.host.push(0);
            c.source.push(0);
            c.sourcetype.push(0);
            c.linecount.push(1);
            c.field_start.push(0);
        }
        c.hosts.push("h".into());
        c.sources.push("s".into());
        c.sourcetypes.push("st".into());
        c
    }

    /// The texts one `read_events_with` call gives for `ids`, and how it ended.
    fn read(cols: &Columns, src: &Slices, ids: &[u32]) -> (Vec<String>, Result<(), StoreError>) {
        let mut seen = Vec::new();
        let r = read_events_with(
            std::path::Path::new("b"),
            cols,
            src,
            &mut (),
            &mut ids.iter().copied(),
            &mut |v| {
                seen.push(v.raw.to_string());
                true
            },
        );
        (seen, r)
    }

    /// Events come out whole whether their slice is validated event by event or as a whole,
    /// and an event whose bytes are not text is damaged without hiding the sound events of its
    /// slice.
    #[test]
    fn events_are_cut_from_validated_slices() {
        let src = Slices(vec!["aé€b".as_bytes().to_vec(), b"xy\xffzw".to_vec()]);
        // Slice 0: "a", "é", "€b"; slice 1: "xy", "\xff", "zw"; and one cut inside "é".
        let cols = columns(&[
            (0, 0, 1),
            (0, 1, 2),
            (0, 3, 4),
            (1, 0, 2),
            (1, 2, 1),
            (1, 3, 2),
            (0, 2, 1),
        ]);
        let (all, r) = read(&cols, &src, &[0, 1, 2, 3, 5]);
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(all, ["a", "é", "€b", "xy", "zw"]);
        for id in [4, 6] {
            let (none, r) = read(&cols, &src, &[id]);
            assert!(none.is_empty());
            assert!(r.is_err_and(|e| e.to_string().contains("is damaged")));
        }
        // In one pass too: the damaged event stops the read, after the sound ones before it.
        let (seen, r) = read(&cols, &src, &[0, 2, 6]);
        assert_eq!(seen, ["a", "€b"]);
        assert!(r.is_err_and(|e| e.to_string().contains("raw text of event 6")));
        let (seen, r) = read(&cols, &src, &[3, 5, 4]);
        assert_eq!(seen, ["xy", "zw"]);
        assert!(r.is_err_and(|e| e.to_string().contains("raw text of event 4")));
    }
}
