//! Reading a bucket's candidate events in chunks, as verified rows.

use lode_event::Event;
use lode_spl::ast::SearchExpr;
use lode_store::bucket::{IndexedFields, NewestBlocks};
use lode_store::columns::Column;
use lode_store::{BucketRead, EventView, StoreError};

use super::candidates::{is_dense, keyed_by_block, Candidates, Opened};
use super::source::{BucketRef, Key};
use crate::matcher::{self, EventSubject, Undecided};
use crate::row::Row;
use crate::run::SearchStats;
use crate::value::Value;

/// First chunk of candidates read at once: small, so `head 10` reads little.
const FIRST_CHUNK: usize = 16;
/// First chunk of a sparse cursor: each of its events costs a slice decompression, and a
/// newest-first merge fills a first chunk from every bucket it opens (super-sparse `head 100`
/// over 14 buckets read all 202 candidates with chunks of 16).
const FIRST_SPARSE_CHUNK: usize = 4;
/// Largest chunk: amortises slice decompression without holding many rows.
const MAX_CHUNK: usize = 1024;
/// Newest-first chunks chosen by selection (one pass over the candidates each) before the rest
/// is sorted once: a search that stops early (`head`) never sorts, one that reads everything
/// pays at most this many extra passes.
const MAX_SELECTIONS: u32 = 4;

/// The candidates of one bucket, consumed chunk by chunk in the scan's order.
pub struct Cursor {
    bucket: Box<dyn BucketRead + Send + Sync>,
    /// The bucket this reads.
    pub src: BucketRef,
    /// Candidate event numbers still to read from `pos` on, in reading order: ascending (batch),
    /// or newest first once a time-ordered cursor has sorted what `keyed` left.
    ids: Vec<u32>,
    /// Next position in `ids`.
    pos: usize,
    /// Time-ordered, before sorting: every candidate's `(time, number)` key in ascending
    /// number order; the ones read so far are those with keys at or above `bound`.
    keyed: Vec<(i64, u32)>,
    /// Key of the last candidate read from `keyed` (the next chunk is the newest below it).
    bound: Option<(i64, u32)>,
    /// Candidates of `keyed` not yet read.
    keyed_left: usize,
    /// Chunks chosen from `keyed` so far (see [`MAX_SELECTIONS`]).
    selections: u32,
    /// Candidates in the next chunk (doubles up to [`MAX_CHUNK`]).
    chunk: usize,
    /// Whether candidates are read newest first.
    time_ordered: bool,
    /// Whether the candidates are dense enough to use the whole columns (see [`is_dense`])
    /// rather than per-event lookups.
    dense: bool,
    /// The current chunk's ids in ascending order (reused buffer).
    sorted: Vec<u32>,
    /// An error met while ordering the candidates, reported by the first
    /// [`Cursor::read_chunk`].
    pending: Option<StoreError>,
    /// Time-ordered over many candidates of a bucket with a block table: candidates are keyed
    /// block by block, newest block first, instead of all at once.
    blocks: Option<BlockOrder>,
}

/// Newest-first reading by column blocks (rule BLOCK-ORDER): blocks are taken in descending
/// order of their largest `_time` (from the block table, nothing decoded) and a block's
/// candidates are keyed (their times decoded) only once the newest keyed candidate not yet
/// read is not newer than that block's largest time — before that, none of its candidates can
/// come next. `head 100` over a dense term thus decodes the newest block or two, not the
/// bucket. This is the bucket-level merge of [`super::merge`] applied to blocks.
///
/// Within a block, `_time` mostly ascends with the event number: most blocks are a batch from
/// one source, the others two or three such stretches ([`descents_of`]). A
/// stretch's candidates in descending number order are newest first already, so only as many
/// as the read wants are keyed, and the rest of the stretch waits (`parked`) as if it were a
/// block whose largest time is that of the first of them. A `<word> | head 10` over a dense
/// word thus keys a few dozen candidates of a block, not its hundreds (keying them all was a
/// fifth of the 10 GB service's CPU).
///
/// Naive twin: keying every candidate and sorting (the sparse path and the tests).
struct BlockOrder {
    /// Candidates.
    cands: Candidates,
    /// The candidates of the block being keyed, descending (reused).
    block: Vec<u32>,
    /// Events per block.
    per: u32,
    /// `(largest time, block number)` of the blocks holding the candidates' kinds, newest
    /// first (the bucket's, shared: `BucketRead::blocks_newest_first_of`).
    order: NewestBlocks,
    /// Next block of `order` to key.
    next: usize,
    /// Keys of keyed candidates not yet read (max-heap: newest first).
    heap: std::collections::BinaryHeap<(i64, u32)>,
    /// The candidates of a stretch not keyed yet: `(time of the newest, block, from, to)`, the
    /// block's candidates in `from..to`, one stretch (max-heap: newest first).
    parked: std::collections::BinaryHeap<(i64, u32, u32, u32)>,
    /// The times of the block being keyed (reused).
    times: Vec<i64>,
    /// Where they decrease ([`descents_of`], reused).
    descents: Vec<u32>,
}

/// The events of a block (counted from its first) whose `_time` is below the previous event's,
/// into `out`: between them the block's times ascend. Most blocks have none (a batch from one
/// source), the others one or two (batches of two sources).
fn descents_of(times: &[i64], out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        (1..times.len())
            .filter(|&i| times[i] < times[i - 1])
            .map(|i| i as u32),
    );
}

/// Fewest candidates of a stretch keyed at a time.
const KEY_AT_LEAST: usize = 16;

/// A block of more stretches than this is keyed whole.
const MAX_STRETCHES: usize = 8;

impl BlockOrder {
    fn new(cands: Candidates, per: u32, order: NewestBlocks) -> BlockOrder {
        BlockOrder {
            cands,
            block: Vec::new(),
            per: per.max(1),
            order,
            next: 0,
            heap: std::collections::BinaryHeap::new(),
            parked: std::collections::BinaryHeap::new(),
            times: Vec::new(),
            descents: Vec::new(),
        }
    }

    fn is_done(&self) -> bool {
        self.next >= self.order.len() && self.heap.is_empty() && self.parked.is_empty()
    }

    /// Appends the next `want` candidates, newest first, to `out`.
    fn take(
        &mut self,
        bucket: &dyn BucketRead,
        path: &std::path::Path,
        want: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), StoreError> {
        let start = out.len();
        while out.len() - start < want {
            let newest = self.heap.peek().map(|k| k.0);
            // The newer of the next block and the newest parked stretch.
            let block = self.order.get(self.next).map(|&(max, b)| {
                let lo = b * self.per;
                (max, b, lo, lo.saturating_add(self.per), false)
            });
            let parked = self
                .parked
                .peek()
                .map(|&(t, b, lo, hi)| (t, b, lo, hi, true));
            let next = match (block, parked) {
                (Some(a), Some(p)) => Some(if p.0 > a.0 { p } else { a }),
                (a, p) => a.or(p),
            };
            if let Some((max, b, lo, hi, parked)) = next {
                if newest.is_none_or(|t| t <= max) {
                    if parked {
                        self.parked.pop();
                    } else {
                        self.next += 1;
                    }
                    let left = want - (out.len() - start);
                    self.key(bucket, path, b, lo, hi, left.max(KEY_AT_LEAST))?;
                    continue;
                }
            }
            match self.heap.pop() {
                Some((_, n)) => out.push(n),
                None => break,
            }
        }
        Ok(())
    }

    /// Keys the candidates of block `b` in `from..to`: in each stretch of the block, the
    /// newest `enough`, parking the rest; all of them when the stretches are unknown or many.
    fn key(
        &mut self,
        bucket: &dyn BucketRead,
        path: &std::path::Path,
        b: u32,
        from: u32,
        to: u32,
        enough: usize,
    ) -> Result<(), StoreError> {
        let lo = b * self.per;
        self.cands.block_rev_in(bucket, from, to, &mut self.block)?;
        let ids = &self.block;
        // Several candidates: the block's time column, looked up once.
        let times = ids.len() > 1 && bucket.block_times_into(b, &mut self.times)?;
        if !times {
            for &n in ids {
                self.heap.push((bucket.time(n)?, n));
            }
            return Ok(());
        }
        let times = &self.times;
        let time = |n: u32| {
            times.get((n - lo) as usize).copied().ok_or_else(|| {
                StoreError::corrupt(path, format!("event {n} lies outside its columns block"))
            })
        };
        let descents = match ids.len() > enough {
            true => {
                descents_of(times, &mut self.descents);
                Some(&self.descents).filter(|d| d.len() < MAX_STRETCHES)
            }
            false => None,
        };
        let Some(descents) = descents else {
            // Keyed from the block's last event back: numbers follow time closely, so each key
            // is then about the oldest in the heap and a push stops at once, where ascending
            // pushes each climbed the whole heap.
            for &n in ids {
                self.heap.push((time(n)?, n));
            }
            return Ok(());
        };
        // Stretch by stretch, the last first: its candidates are `ids[i..j]`.
        let mut i = 0;
        while let Some(&top) = ids.get(i) {
            let k = descents.partition_point(|&d| d <= top - lo);
            let first = lo + k.checked_sub(1).map_or(0, |k| descents[k]);
            let j = i + ids[i..].partition_point(|&n| n >= first);
            let stretch = &ids[i..j];
            let keyed = match stretch.get(enough) {
                Some(&rest) => {
                    self.parked
                        .push((time(rest)?, b, first.max(from), rest + 1));
                    &stretch[..enough]
                }
                None => stretch,
            };
            for &n in keyed {
                self.heap.push((time(n)?, n));
            }
            i = j;
        }
        Ok(())
    }
}

impl Cursor {
    /// A cursor over `opened`'s candidates; when `time_ordered`, newest first (ties: higher event
    /// number first, as [`Key`] orders them). Newest-first chunks are chosen by partial
    /// selection, so taking the first hundred of a million candidates costs a pass over their
    /// times, not a sort.
    pub fn new(src: BucketRef, opened: Opened, time_ordered: bool) -> Cursor {
        let Opened {
            bucket,
            mut cands,
            kinds,
        } = opened;
        let mut pending = None;
        let mut keyed = Vec::new();
        // Windowed candidates are read in block order, dense or not (the order evaluates
        // them); their density is that of the events evaluated.
        let windowed = matches!(cands, Candidates::Windowed(_));
        let mut dense = cands.is_dense_in(bucket.meta().event_count);
        let by_block = windowed || keyed_by_block(cands.len(), bucket.meta().event_count);
        let table = if time_ordered && by_block {
            bucket.blocks_newest_first_of(kinds)
        } else {
            None
        };
        if table.is_none() && windowed {
            // No block order to read the window first: every candidate now.
            if let Err(e) = cands.complete(bucket.as_ref()) {
                pending = Some(e);
            }
            dense = is_dense(cands.len(), bucket.meta().event_count);
        }
        let (mut ids, blocks) = match table {
            Some((per, order)) => (Vec::new(), Some(BlockOrder::new(cands, per, order))),
            None => (cands.into_list(), None),
        };
        if time_ordered && blocks.is_none() {
            // Sparse: per-event times of the candidates only (warm buckets decode their blocks).
            let r: Result<Vec<(i64, u32)>, StoreError> = if dense {
                bucket.prepare().map(|()| {
                    let times = bucket.times();
                    let time = |n: u32| times.get(n as usize).unwrap_or(i64::MIN);
                    ids.iter().map(|&n| (time(n), n)).collect()
                })
            } else {
                ids.iter().map(|&n| Ok((bucket.time(n)?, n))).collect()
            };
            match r {
                Ok(k) => keyed = k,
                Err(e) => pending = Some(e),
            }
            ids.clear();
        }
        Cursor {
            bucket,
            src,
            ids,
            pos: 0,
            keyed_left: keyed.len(),
            keyed,
            bound: None,
            selections: 0,
            chunk: if dense {
                FIRST_CHUNK
            } else {
                FIRST_SPARSE_CHUNK
            },
            time_ordered,
            dense,
            sorted: Vec::new(),
            pending,
            blocks,
        }
    }

    /// Whether every candidate has been read.
    pub fn is_done(&self) -> bool {
        self.pending.is_none()
            && self.pos >= self.ids.len()
            && self.keyed_left == 0
            && self.blocks.as_ref().is_none_or(BlockOrder::is_done)
    }

    /// Reports the error met while ordering the candidates, if any (nothing more is read
    /// then); else fills `sorted` with the next chunk ([`Cursor::next_chunk`]).
    fn start_chunk(&mut self) -> Result<(), StoreError> {
        if let Some(e) = self.pending.take() {
            self.pos = self.ids.len();
            self.keyed_left = 0;
            return Err(e);
        }
        self.next_chunk()
    }

    /// Fills `sorted` with the next `self.chunk` candidates in ascending number order.
    fn next_chunk(&mut self) -> Result<(), StoreError> {
        self.sorted.clear();
        let want = self.chunk;
        self.chunk = (self.chunk * 2).min(MAX_CHUNK);
        if let Some(b) = &mut self.blocks {
            if let Err(e) = b.take(
                self.bucket.as_ref(),
                &self.src.info.path,
                want,
                &mut self.sorted,
            ) {
                // Nothing more is read from a damaged bucket.
                self.blocks = None;
                return Err(e);
            }
            self.sorted.sort_unstable();
            return Ok(());
        }
        if self.keyed_left > 0 {
            if self.selections < MAX_SELECTIONS {
                self.selections += 1;
                let top = newest_below(&self.keyed, self.bound, want);
                // Keys are distinct, so an empty selection means nothing is left.
                self.keyed_left = if top.is_empty() {
                    0
                } else {
                    self.keyed_left.saturating_sub(top.len())
                };
                self.bound = top.last().copied();
                self.sorted.extend(top.iter().map(|&(_, n)| n));
                self.sorted.sort_unstable();
                return Ok(());
            }
            // Many chunks read: sort what is left once.
            let mut rest = std::mem::take(&mut self.keyed);
            if let Some(b) = self.bound {
                rest.retain(|&k| k < b);
            }
            rest.sort_unstable_by_key(|&k| std::cmp::Reverse(k));
            self.ids.clear();
            self.ids.extend(rest.iter().map(|&(_, n)| n));
            self.pos = 0;
            self.keyed_left = 0;
        }
        let end = (self.pos + want).min(self.ids.len());
        self.sorted.extend_from_slice(&self.ids[self.pos..end]);
        self.pos = end;
        if self.time_ordered {
            self.sorted.sort_unstable();
        }
        Ok(())
    }

    /// Reads the next chunk of candidates, appending the rows that satisfy `clause` to `out` with
    /// their keys, in the cursor's order.
    ///
    /// `slim`: the commands after the clause read only the column fields, so a matching event
    /// becomes a columns row ([`column_row`]) instead of a full event row. Each event is first
    /// checked without building a row ([`matcher::matches_event`]); only events that check cannot
    /// decide get a full row for the matcher.
    pub fn read_chunk(
        &mut self,
        clause: Option<&SearchExpr>,
        columns_only: bool,
        slim: Option<&[&'static str]>,
        out: &mut Vec<(Key, Row)>,
        stats: &mut SearchStats,
    ) -> Result<(), StoreError> {
        self.start_chunk()?;
        let start = out.len();
        let src = &self.src;
        if columns_only {
            self.rows_from_columns(clause, out, stats)?;
        } else {
            self.bucket
                .read_events(&mut self.sorted.iter().copied(), &mut |v| {
                    stats.events_scanned += 1;
                    if let Some(row) = event_row(src, &v, clause, slim) {
                        stats.events_matched += 1;
                        out.push((Key::new(src, v.time, v.num), row));
                    }
                    true
                })?;
        }
        if self.time_ordered {
            out[start..].sort_unstable_by_key(|r| std::cmp::Reverse(r.0));
        }
        Ok(())
    }

    /// The keys of the next chunk of candidates, newest first, appended to `out` without
    /// reading their events: a time-ordered read whose term query decides the clause exactly
    /// needs only the times to merge, and reads the rows it emits ([`Cursor::read_rows`]).
    pub fn read_keys(&mut self, out: &mut Vec<Key>) -> Result<(), StoreError> {
        self.start_chunk()?;
        let start = out.len();
        for &n in &self.sorted {
            out.push(Key::new(&self.src, self.bucket.time(n)?, n));
        }
        out[start..].sort_unstable_by_key(|&k| std::cmp::Reverse(k));
        Ok(())
    }

    /// The rows of events `nums` (ascending; candidates whose keys [`Cursor::read_keys`] gave,
    /// of a query without a clause to verify), appended to `out` with their numbers.
    pub fn read_rows(
        &mut self,
        nums: &[u32],
        slim: Option<&[&'static str]>,
        out: &mut Vec<(u32, Row)>,
        stats: &mut SearchStats,
    ) -> Result<(), StoreError> {
        let src = &self.src;
        self.bucket
            .read_events(&mut nums.iter().copied(), &mut |v| {
                stats.events_scanned += 1;
                if let Some(row) = event_row(src, &v, None, slim) {
                    stats.events_matched += 1;
                    out.push((v.num, row));
                }
                true
            })
    }
}

/// The row of event `v` of `src` when it satisfies `clause` (none: every event does): a columns
/// row with `slim`'s fields ([`slim_row`]), else a full event row. The event is checked first
/// without building a row ([`matcher::matches_event`]); only what that cannot decide gets a
/// full row for the matcher.
fn event_row(
    src: &BucketRef,
    v: &EventView<'_>,
    clause: Option<&SearchExpr>,
    slim: Option<&[&'static str]>,
) -> Option<Row> {
    let index = &*src.index;
    let decided = match clause {
        None => Ok(true),
        Some(c) => matcher::matches_event(c, &mut EventSubject::new(v, index)),
    };
    match decided {
        Ok(false) => None,
        Ok(true) => Some(match slim {
            Some(keep) => slim_row(v, index, keep),
            None => to_row(v, index, src.info.id),
        }),
        Err(Undecided) => {
            let mut row = to_row(v, index, src.info.id);
            clause
                .is_none_or(|c| matcher::matches(c, &mut row))
                .then_some(row)
        }
    }
}

impl Cursor {
    /// Rows of the current chunk from the columns alone (`_time`, `host`, `source`,
    /// `sourcetype`, `index`, `splunk_server`) that satisfy `clause` (`None` when the query is
    /// exact; otherwise the clause reads only those fields, see
    /// [`crate::plan::columns::clause_reads_only_columns`]).
    fn rows_from_columns(
        &self,
        clause: Option<&SearchExpr>,
        out: &mut Vec<(Key, Row)>,
        stats: &mut SearchStats,
    ) -> Result<(), StoreError> {
        let b = self.bucket.as_ref();
        let name = |names: &[String], id: u32| -> Result<String, StoreError> {
            names.get(id as usize).cloned().ok_or_else(|| {
                StoreError::corrupt(&self.src.info.path, "dictionary id out of range")
            })
        };
        let empty = (
            Column::flat(&[]),
            Column::flat(&[]),
            Column::flat(&[]),
            Column::flat(&[]),
        );
        // Block-ordered cursors read few blocks: whole columns would decode them all.
        let dense = self.dense && self.blocks.is_none();
        let (times, hosts, sources, types) = if dense {
            // Reports damage that the whole-column accessors would hide behind empty slices.
            b.prepare()?;
            (b.times(), b.host_ids(), b.source_ids(), b.sourcetype_ids())
        } else {
            // Untouched when sparse: the whole-column accessors would decode every block.
            empty
        };
        let beyond = || StoreError::corrupt(&self.src.info.path, "event number beyond the columns");
        for &num in &self.sorted {
            let n = num as usize;
            let f = if dense {
                IndexedFields {
                    time: times.get(n).ok_or_else(beyond)?,
                    host: hosts.get(n).ok_or_else(beyond)?,
                    source: sources.get(n).ok_or_else(beyond)?,
                    sourcetype: types.get(n).ok_or_else(beyond)?,
                }
            } else {
                // Sparse: decodes only the column blocks of the candidates.
                b.indexed(num)?
            };
            let mut row = column_row(
                f.time,
                name(b.host_names(), f.host)?,
                name(b.source_names(), f.source)?,
                name(b.sourcetype_names(), f.sourcetype)?,
                &self.src.index,
            );
            let time = f.time;
            stats.events_scanned += 1;
            if clause.is_none_or(|c| matcher::matches(c, &mut row)) {
                stats.events_matched += 1;
                out.push((Key::new(&self.src, time, num), row));
            }
        }
        Ok(())
    }
}

/// The `k` largest keys of `keys` below `bound` (all when `None`), largest first.
///
/// Walks `keys` from the end with a min-heap of the best `k`: candidates come in event-number
/// order, which is nearly time order, so walking backwards meets the newest first and most later
/// keys fail a single comparison with the heap's minimum. Correct for any order.
///
/// Naive twin: filter below `bound`, sort descending, take `k` (see the tests).
pub fn newest_below(keys: &[(i64, u32)], bound: Option<(i64, u32)>, k: usize) -> Vec<(i64, u32)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if k == 0 {
        return Vec::new();
    }
    let mut heap: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::with_capacity(k + 1);
    for &key in keys.iter().rev() {
        if bound.is_some_and(|b| key >= b) {
            continue;
        }
        if heap.len() < k {
            heap.push(Reverse(key));
        } else if let Some(mut min) = heap.peek_mut() {
            if key > min.0 {
                *min = Reverse(key);
            }
        }
    }
    let mut out: Vec<(i64, u32)> = heap.into_iter().map(|r| r.0).collect();
    out.sort_unstable_by_key(|&k| Reverse(k));
    out
}

/// A row of the column fields only ([`crate::plan::columns::COLUMN_FIELDS`]): what commands
/// that read nothing else get instead of the whole event.
pub fn column_row(time: i64, host: String, source: String, sourcetype: String, index: &str) -> Row {
    Row::from_fields([
        ("_time".to_string(), Value::Num(time as f64 / 1e6)),
        ("host".to_string(), Value::Str(host)),
        ("source".to_string(), Value::Str(source)),
        ("sourcetype".to_string(), Value::Str(sourcetype)),
        ("index".to_string(), Value::Str(index.to_string())),
        ("splunk_server".to_string(), Value::Str("lode".to_string())),
    ])
}

/// A row of the event's column fields named in `keep` (see [`crate::plan::Plan::slim_rows`]).
fn slim_row(v: &EventView<'_>, index: &str, keep: &[&str]) -> Row {
    Row::from_fields(keep.iter().map(|&f| {
        let value = match f {
            "_time" => Value::Num(v.time as f64 / 1e6),
            "host" => Value::Str(v.host.to_owned()),
            "source" => Value::Str(v.source.to_owned()),
            "sourcetype" => Value::Str(v.sourcetype.to_owned()),
            "index" => Value::Str(index.to_owned()),
            _ => Value::Str("lode".to_owned()),
        };
        (f.to_string(), value)
    }))
}

/// The candidates `ids` (ascending) that satisfy `clause`, checked in place on each stored
/// event (a full row is built only when the in-place check cannot decide), ascending: what the
/// count pushdown counts when the term query does not decide the clause by itself.
pub fn verify_ids(
    bucket: &dyn BucketRead,
    src: &BucketRef,
    clause: &SearchExpr,
    ids: &[u32],
) -> Result<Vec<u32>, StoreError> {
    let mut out = Vec::new();
    let index = &*src.index;
    bucket.read_events(&mut ids.iter().copied(), &mut |v| {
        let ok = match matcher::matches_event(clause, &mut EventSubject::new(&v, index)) {
            Ok(ok) => ok,
            Err(Undecided) => matcher::matches(clause, &mut to_row(&v, index, src.info.id)),
        };
        if ok {
            out.push(v.num);
        }
        true
    })?;
    Ok(out)
}

/// The result row of a stored event (`_cd` = `<bucket id>:<event number>`).
pub fn to_row(v: &EventView<'_>, index: &str, bucket_id: u64) -> Row {
    let ev = Event {
        time: v.time,
        index_time: v.index_time,
        raw: v.raw.to_owned(),
        host: v.host.into(),
        source: v.source.into(),
        sourcetype: v.sourcetype.into(),
        index: index.into(),
        linecount: v.linecount,
        fields: v.fields.to_vec(),
    };
    Row::from_event(ev, format!("{bucket_id}:{}", v.num))
}

#[cfg(test)]
mod tests {
    use super::newest_below;
    use proptest::prelude::*;

    fn naive(keys: &[(i64, u32)], bound: Option<(i64, u32)>, k: usize) -> Vec<(i64, u32)> {
        let mut v: Vec<_> = keys
            .iter()
            .copied()
            .filter(|&x| bound.is_none_or(|b| x < b))
            .collect();
        v.sort_unstable_by_key(|&x| std::cmp::Reverse(x));
        v.truncate(k);
        v
    }

    proptest! {
        #[test]
        fn selection_equals_sorting(
            times in prop::collection::vec(-5i64..50, 0..300),
            k in 0usize..40,
            chunks in 1usize..5,
        ) {
            // Distinct keys, as a bucket's (time, event number) are.
            let keys: Vec<(i64, u32)> =
                times.iter().enumerate().map(|(n, &t)| (t, n as u32)).collect();
            let mut bound = None;
            for _ in 0..chunks {
                let got = newest_below(&keys, bound, k);
                prop_assert_eq!(&got, &naive(&keys, bound, k));
                bound = got.last().copied().or(bound);
                if got.is_empty() { break; }
            }
        }
    }
}
