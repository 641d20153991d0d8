//! Turns a stream of events into columns, journal slices, term postings and metadata; shared by
//! the warm-bucket writer (slices compressed to disk) and the hot-bucket reader (slices in memory).

use std::collections::HashMap;

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

/// Accumulates one bucket.
pub(crate) struct Builder {
    /// Columns built so far.
    pub cols: Columns,
    /// Term postings built so far.
    pub terms: TermIndex,
    /// Metadata built so far.
    pub meta: BucketMeta,
    dicts: [Dict; 3],
    /// Uncompressed bytes of the slice being filled.
    cur: Vec<u8>,
    /// Number of the slice being filled.
    cur_no: u32,
}

impl Builder {
    /// A builder for bucket `id`.
    pub fn new(id: u64) -> Self {
        Builder {
            cols: Columns::new(),
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
        }
    }

    /// Adds the next event.
    pub fn push(&mut self, e: &Event, sink: &mut dyn SliceSink) -> Result<(), StoreError> {
        let num = u32::try_from(self.cols.len())
            .ok()
            .filter(|&n| n < u32::MAX)
            .ok_or_else(|| StoreError::Limit("more than 2^32-1 events in one bucket".into()))?;
        let raw_len = u32::try_from(e.raw.len())
            .map_err(|_| StoreError::Limit("event larger than 4 GiB".into()))?;
        if !self.cur.is_empty() && self.cur.len() + e.raw.len() > SLICE_TARGET_BYTES {
            sink.put(self.cur_no, &self.cur)?;
            self.cur.clear();
            self.cur_no += 1;
        }
        let c = &mut self.cols;
        c.times.push(e.time);
        c.index_times.push(e.index_time);
        c.slice.push(self.cur_no);
        c.offset.push(self.cur.len() as u32);
        c.raw_len.push(raw_len);
        self.cur.extend_from_slice(e.raw.as_bytes());
        let m = &mut self.meta;
        let [dh, ds, dt] = &mut self.dicts;
        let h = dh.intern(&e.host, &mut c.hosts, &mut m.hosts);
        let s = ds.intern(&e.source, &mut c.sources, &mut m.sources);
        let t = dt.intern(&e.sourcetype, &mut c.sourcetypes, &mut m.sourcetypes);
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
        self.terms.add_event(num, e)
    }

    /// The uncompressed bytes of the slice being filled (its number is the count of slices
    /// handed to the sink so far).
    pub fn current_slice(&self) -> &[u8] {
        &self.cur
    }

    /// Flushes the last slice and returns the parts.
    pub fn finish(
        mut self,
        sink: &mut dyn SliceSink,
    ) -> Result<(Columns, TermIndex, BucketMeta), StoreError> {
        // The last slice is referenced by the last event even when it is empty (events with
        // an empty `_raw`), so it is written whenever there is an event.
        if !self.cols.is_empty() {
            sink.put(self.cur_no, &self.cur)?;
        }
        self.meta.term_count = self.terms.len() as u64;
        Ok((self.cols, self.terms, self.meta))
    }
}
