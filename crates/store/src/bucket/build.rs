//! Turns a stream of events into columns, journal slices, term postings and metadata; shared by
//! the warm-bucket writer (slices compressed to disk), the index writer's hot buckets and the
//! hot-bucket reader's WAL replay (slices in memory).
//!
//! Columns are kept in chunks of [`CHUNK_EVENTS`] events: a full chunk is frozen behind an
//! `Arc`, so a search snapshot of a growing hot bucket shares every frozen chunk and copies only
//! the open one.

use std::collections::HashMap;
use std::sync::Arc;

use lode_event::Event;

use crate::codec::put_str;
use crate::columns::Columns;
use crate::consts::SLICE_TARGET_BYTES;
use crate::error::StoreError;
use crate::meta::{bump, BucketMeta, ValueStats};
use crate::terms::TermIndex;

/// Receives each completed uncompressed journal slice.
pub(crate) trait SliceSink {
    /// Takes slice number `n` (numbers are consecutive from 0).
    fn put(&mut self, n: u32, raw: &[u8]) -> Result<(), StoreError>;
}

/// Dictionary of one metadata column: name → id, plus per-id statistics.
#[derive(Default)]
struct Dict {
    ids: HashMap<String, u32>,
    /// Id returned last: consecutive events mostly share host, source and sourcetype, so a
    /// comparison with that name usually saves the hash lookup.
    last: Option<u32>,
}

impl Dict {
    /// Id of `name`, interning it (one allocation per distinct name only).
    fn intern(&mut self, name: &str, names: &mut Vec<String>, stats: &mut Vec<ValueStats>) -> u32 {
        if let Some(id) = self.last.filter(|&id| names[id as usize] == name) {
            return id;
        }
        if let Some(&id) = self.ids.get(name) {
            self.last = Some(id);
            return id;
        }
        let id = names.len() as u32;
        self.ids.insert(name.to_string(), id);
        names.push(name.to_string());
        stats.push(ValueStats {
            name: name.to_string(),
            count: 0,
            first_time: i64::MAX,
            last_time: i64::MIN,
        });
        self.last = Some(id);
        id
    }
}

/// Events per frozen column chunk (the warm column block size).
pub(crate) const CHUNK_EVENTS: usize = crate::columns::CHUNK;

/// Events of a [`Builder::push_all`] from which the term index is filled on its own thread
/// (a thread costs ~20 µs; a thousand events' terms, a millisecond).
const PARALLEL_PUSH_EVENTS: usize = 256;

/// An empty column chunk with room for [`CHUNK_EVENTS`] events (no reallocation while it fills).
fn new_chunk() -> Columns {
    let mut c = Columns::new();
    c.times.reserve_exact(CHUNK_EVENTS);
    c.index_times.reserve_exact(CHUNK_EVENTS);
    c.slice.reserve_exact(CHUNK_EVENTS);
    c.offset.reserve_exact(CHUNK_EVENTS);
    c.raw_len.reserve_exact(CHUNK_EVENTS);
    c.host.reserve_exact(CHUNK_EVENTS);
    c.source.reserve_exact(CHUNK_EVENTS);
    c.sourcetype.reserve_exact(CHUNK_EVENTS);
    c.linecount.reserve_exact(CHUNK_EVENTS);
    c.field_start.reserve_exact(CHUNK_EVENTS);
    c
}

/// Accumulates one bucket.
pub(crate) struct Builder {
    /// Frozen column chunks of [`CHUNK_EVENTS`] events each, in event order. Their dictionaries
    /// are empty (see `names`) and their `field_start` offsets start at 0 in each chunk.
    pub chunks: Vec<Arc<Columns>>,
    /// The open chunk (fewer than [`CHUNK_EVENTS`] events), laid out like the frozen ones.
    pub open: Columns,
    /// Host, source and sourcetype names by id.
    pub names: [Vec<String>; 3],
    /// Term postings built so far.
    pub terms: TermIndex,
    /// Metadata built so far.
    pub meta: BucketMeta,
    dicts: [Dict; 3],
    /// Uncompressed bytes of the slice being filled.
    cur: Vec<u8>,
    /// Number of the slice being filled.
    cur_no: u32,
    /// Heap bytes of the frozen chunks.
    frozen_bytes: u64,
}

impl Builder {
    /// A builder for bucket `id`.
    pub fn new(id: u64) -> Self {
        Builder {
            chunks: Vec::new(),
            open: new_chunk(),
            names: Default::default(),
            terms: TermIndex::new(),
            meta: BucketMeta {
                id,
                min_time: i64::MAX,
                max_time: i64::MIN,
                ..Default::default()
            },
            dicts: Default::default(),
            cur: Vec::with_capacity(SLICE_TARGET_BYTES + 4096),
            cur_no: 0,
            frozen_bytes: 0,
        }
    }

    /// Bytes of memory held: term index, column chunks, the slice being filled.
    pub fn heap_bytes(&self) -> u64 {
        self.terms.heap_bytes() as u64
            + self.frozen_bytes
            + (self.chunks.capacity() * size_of::<Arc<Columns>>()) as u64
            + self.open.heap_bytes()
            + self.cur.capacity() as u64
    }

    /// Number of events added.
    pub fn len(&self) -> usize {
        self.chunks.len() * CHUNK_EVENTS + self.open.len()
    }

    /// Whether no event was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds the next event.
    pub fn push(&mut self, e: &Event, sink: &mut dyn SliceSink) -> Result<(), StoreError> {
        let num = self.next_num(1)?;
        self.push_rest(e, sink)?;
        self.terms.add_event(num, e)
    }

    /// Adds `events`, in order. From [`PARALLEL_PUSH_EVENTS`] events on, their terms are
    /// collected on a second thread while this one fills the columns and compresses the
    /// slices: the two halves share nothing, and each is about a third of ingest's CPU, so one
    /// pipeline set's indexing stage no longer does both in turn (the same CPU, less wall
    /// time when a core is free). After an error the two halves may hold different numbers of
    /// events, as after a failed [`Builder::push`] they may differ by one: the writer stops
    /// taking events into the bucket then (its WAL stays the truth), and a search that meets a
    /// number the columns lack gets an error, not a wrong event.
    pub fn push_all(
        &mut self,
        events: &[&Event],
        sink: &mut dyn SliceSink,
    ) -> Result<(), StoreError> {
        if events.len() < PARALLEL_PUSH_EVENTS {
            return events.iter().try_for_each(|e| self.push(e, sink));
        }
        let first = self.next_num(events.len())?;
        let mut terms = std::mem::take(&mut self.terms);
        let collect = |terms: &mut TermIndex| {
            (first..)
                .zip(events)
                .try_for_each(|(num, e)| terms.add_event(num, e))
        };
        let (rest, collected) = std::thread::scope(|scope| {
            let collector = std::thread::Builder::new()
                .name("lode-terms".into())
                .spawn_scoped(scope, || collect(&mut terms));
            let rest = events.iter().try_for_each(|e| self.push_rest(e, sink));
            let collected = collector
                .ok()
                .map(|c| c.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            (rest, collected)
        });
        // No thread to be had: collect here.
        let collected = collected.unwrap_or_else(|| collect(&mut terms));
        self.terms = terms;
        rest.and(collected)
    }

    /// The number of the next event, when `n` more fit in the bucket.
    fn next_num(&self, n: usize) -> Result<u32, StoreError> {
        u32::try_from(self.len())
            .ok()
            .filter(|&num| (num as u64 + n as u64) <= u32::MAX as u64)
            .ok_or_else(|| StoreError::Limit("more than 2^32-1 events in one bucket".into()))
    }

    /// Adds event `e` to everything but the term index: slices, columns, metadata.
    fn push_rest(&mut self, e: &Event, sink: &mut dyn SliceSink) -> Result<(), StoreError> {
        let raw_len = u32::try_from(e.raw.len())
            .map_err(|_| StoreError::Limit("event larger than 4 GiB".into()))?;
        if !self.cur.is_empty() && self.cur.len() + e.raw.len() > SLICE_TARGET_BYTES {
            sink.put(self.cur_no, &self.cur)?;
            self.cur.clear();
            self.cur_no += 1;
        }
        let c = &mut self.open;
        c.times.push(e.time);
        c.index_times.push(e.index_time);
        c.slice.push(self.cur_no);
        c.offset.push(self.cur.len() as u32);
        c.raw_len.push(raw_len);
        self.cur.extend_from_slice(e.raw.as_bytes());
        let m = &mut self.meta;
        let [dh, ds, dt] = &mut self.dicts;
        let [hosts, sources, sourcetypes] = &mut self.names;
        let h = dh.intern(&e.host, hosts, &mut m.hosts);
        let s = ds.intern(&e.source, sources, &mut m.sources);
        let t = dt.intern(&e.sourcetype, sourcetypes, &mut m.sourcetypes);
        c.host.push(h);
        c.source.push(s);
        c.sourcetype.push(t);
        bump(&mut m.hosts, h, e.time);
        bump(&mut m.sources, s, e.time);
        bump(&mut m.sourcetypes, t, e.time);
        c.linecount.push(e.linecount);
        for (k, v) in &e.fields {
            put_str(&mut c.field_blob, k);
            put_str(&mut c.field_blob, v);
        }
        c.field_start.push(c.field_blob.len() as u64);
        m.min_time = m.min_time.min(e.time);
        m.max_time = m.max_time.max(e.time);
        m.event_count += 1;
        m.raw_bytes += e.raw.len() as u64;
        if self.open.len() == CHUNK_EVENTS {
            let mut full = std::mem::replace(&mut self.open, new_chunk());
            full.field_blob.shrink_to_fit();
            self.frozen_bytes += full.heap_bytes();
            self.chunks.push(Arc::new(full));
        }
        Ok(())
    }

    /// The uncompressed bytes of the slice being filled (its number is the count of slices
    /// handed to the sink so far).
    pub fn current_slice(&self) -> &[u8] {
        &self.cur
    }

    /// Hands the last slice to `sink`: after every event, before writing a bucket. The last
    /// slice is referenced by the last event even when it is empty (events with an empty
    /// `_raw`), so it is handed over whenever there is an event.
    pub fn finish_slices(&self, sink: &mut dyn SliceSink) -> Result<(), StoreError> {
        if !self.is_empty() {
            sink.put(self.cur_no, &self.cur)?;
        }
        Ok(())
    }

    /// The metadata, with the term count.
    pub fn meta(&self) -> BucketMeta {
        let mut meta = self.meta.clone();
        meta.term_count = self.terms.len() as u64;
        meta
    }

    /// The metadata a hot-bucket snapshot shows, taken under the hot index's read lock at every
    /// search of the bucket: exact but for `term_count`, which counts terms as of the last
    /// batch flush (at most one batch of 1,024 events behind; [`Builder::meta`] is exact).
    pub fn snapshot_meta(&self) -> BucketMeta {
        let mut meta = self.meta.clone();
        meta.term_count = self.terms.flushed_len() as u64;
        meta
    }

    /// Every chunk joined into one [`Columns`] with the dictionaries (what
    /// [`Builder::encode_columns`] encodes without joining).
    #[cfg(test)]
    pub fn columns(&self) -> Columns {
        let mut all = Columns::new();
        let n = self.len();
        let blob: usize = self.chunks().map(|c| c.field_blob.len()).sum();
        all.times.reserve_exact(n);
        all.index_times.reserve_exact(n);
        all.slice.reserve_exact(n);
        all.offset.reserve_exact(n);
        all.raw_len.reserve_exact(n);
        all.host.reserve_exact(n);
        all.source.reserve_exact(n);
        all.sourcetype.reserve_exact(n);
        all.linecount.reserve_exact(n);
        all.field_start.reserve_exact(n);
        all.field_blob.reserve_exact(blob);
        for c in self.chunks() {
            all.times.extend_from_slice(&c.times);
            all.index_times.extend_from_slice(&c.index_times);
            all.slice.extend_from_slice(&c.slice);
            all.offset.extend_from_slice(&c.offset);
            all.raw_len.extend_from_slice(&c.raw_len);
            all.host.extend_from_slice(&c.host);
            all.source.extend_from_slice(&c.source);
            all.sourcetype.extend_from_slice(&c.sourcetype);
            all.linecount.extend_from_slice(&c.linecount);
            let base = all.field_blob.len() as u64;
            all.field_start
                .extend(c.field_start.iter().skip(1).map(|&s| base + s));
            all.field_blob.extend_from_slice(&c.field_blob);
        }
        let [hosts, sources, sourcetypes] = self.names.clone();
        all.hosts = hosts;
        all.sources = sources;
        all.sourcetypes = sourcetypes;
        all
    }

    /// Serialises `columns.dat` (what [`Builder::columns`] would encode) chunk by chunk, without
    /// joining the chunks into a second copy.
    pub fn encode_columns(&self, out: &mut Vec<u8>) -> std::io::Result<()> {
        let [h, s, st] = &self.names;
        crate::columns::file::encode_parts(self.chunks(), [h, s, st], out)
    }

    /// The frozen chunks, then the open one.
    fn chunks(&self) -> impl Iterator<Item = &Columns> {
        self.chunks
            .iter()
            .map(|c| &**c)
            .chain(std::iter::once(&self.open))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Discard;
    impl SliceSink for Discard {
        fn put(&mut self, _n: u32, _raw: &[u8]) -> Result<(), StoreError> {
            Ok(())
        }
    }

    /// Encoding chunk by chunk gives the bytes of encoding the joined columns, for a partial
    /// last chunk, an exact multiple of the chunk size and index-time fields in some events.
    #[test]
    fn chunked_columns_encode_like_joined() {
        for n in [1, CHUNK_EVENTS - 1, CHUNK_EVENTS, 2 * CHUNK_EVENTS + 17] {
            let mut b = Builder::new(7);
            for i in 0..n {
                let e = Event {
                    time: 1_700_000_000_000_000 + (i as i64 % 97) * 1_000_000,
                    index_time: 1_700_000_000,
                    raw: format!("event {i} status={}", i % 5),
                    host: format!("h{}", i % 3).into(),
                    source: "s".into(),
                    sourcetype: format!("st{}", i % 2).into(),
                    index: "main".into(),
                    linecount: 1,
                    fields: if i % 7 == 0 {
                        vec![("k".into(), format!("v{i}"))]
                    } else {
                        Vec::new()
                    },
                };
                b.push(&e, &mut Discard).unwrap();
            }
            let mut joined = Vec::new();
            b.columns().encode(&mut joined).unwrap();
            let mut chunked = Vec::new();
            b.encode_columns(&mut chunked).unwrap();
            assert_eq!(joined, chunked, "{n} events");
        }
    }

    /// Records every slice handed over.
    #[derive(Default)]
    struct Keep(Vec<(u32, Vec<u8>)>);
    impl SliceSink for Keep {
        fn put(&mut self, n: u32, raw: &[u8]) -> Result<(), StoreError> {
            self.0.push((n, raw.to_vec()));
            Ok(())
        }
    }

    /// `push_all` (terms collected on their own thread from [`PARALLEL_PUSH_EVENTS`] events
    /// on) builds what pushing the same events one by one does: columns, slices, metadata and
    /// every term's postings, over batches below, at and above the threshold.
    #[test]
    fn push_all_builds_what_push_does() {
        let events: Vec<Event> = (0..3 * PARALLEL_PUSH_EVENTS + 5)
            .map(|i| Event {
                time: 1_700_000_000_000_000 + i as i64 * 1_000,
                raw: format!("event {i} user=u{} {}", i % 13, "x".repeat(i % 300)),
                host: format!("h{}", i % 3).into(),
                source: "s".into(),
                sourcetype: "st".into(),
                fields: vec![("k".into(), format!("v{}", i % 5))],
                ..Event::default()
            })
            .collect();
        let (mut one, mut one_sink) = (Builder::new(1), Keep::default());
        for e in &events {
            one.push(e, &mut one_sink).unwrap();
        }
        let (mut all, mut all_sink) = (Builder::new(1), Keep::default());
        let refs: Vec<&Event> = events.iter().collect();
        let sizes = [
            1,
            PARALLEL_PUSH_EVENTS - 1,
            PARALLEL_PUSH_EVENTS,
            2 * PARALLEL_PUSH_EVENTS,
        ];
        let mut at = 0;
        for n in sizes.into_iter().cycle() {
            let end = (at + n).min(refs.len());
            all.push_all(&refs[at..end], &mut all_sink).unwrap();
            at = end;
            if at == refs.len() {
                break;
            }
        }
        one.finish_slices(&mut one_sink).unwrap();
        all.finish_slices(&mut all_sink).unwrap();
        assert_eq!(one_sink.0, all_sink.0);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        one.encode_columns(&mut a).unwrap();
        all.encode_columns(&mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(
            serde_json::to_string(&one.meta).unwrap(),
            serde_json::to_string(&all.meta).unwrap()
        );
        let terms = |b: &Builder| -> Vec<(Vec<u8>, Vec<u32>)> {
            b.terms
                .sorted()
                .iter()
                .map(|(t, p)| (t.to_vec(), p.collect()))
                .collect()
        };
        assert_eq!(terms(&one), terms(&all));
        assert!(terms(&one).len() > 300);
    }
}
