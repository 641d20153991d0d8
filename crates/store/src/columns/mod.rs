//! Per-event columns and the host/source/sourcetype dictionaries. See docs/format/columns.md.
//!
//! [`Columns`] is the in-memory form (the hot bucket's and the writer's, and a warm bucket's once
//! fully decoded). On disk (`columns.dat`, layout version [`COLUMNS_VERSION`]) events are cut into
//! blocks of [`COLUMNS_BLOCK_EVENTS`], each compressed and checksummed on its own ([`block`]),
//! followed by a head with the block table and the dictionaries ([`file`]). [`lazy::ColumnsFile`]
//! reads such a file block by block on demand.
//!
//! [`COLUMNS_VERSION`]: crate::consts::COLUMNS_VERSION
//! [`COLUMNS_BLOCK_EVENTS`]: crate::consts::COLUMNS_BLOCK_EVENTS

pub mod block;
pub mod file;
pub mod lazy;

use crate::codec::{DecodeError, Reader};
use crate::error::StoreError;

/// One whole column of a bucket (`_time` or a dictionary id), indexed by event number:
/// contiguous, as a warm bucket decodes it, or as a hot bucket holds it, in the chunks of
/// [`CHUNK`] events its writer froze plus the open one. A hot snapshot hands out its chunks
/// rather than joining them: joining copied 20 bytes per event per search, 13 MB for a full
/// bucket, and four concurrent searches of the 1 GB burst held 26 MB of such copies.
#[derive(Clone, Copy)]
pub struct Column<'a, T> {
    repr: Repr<'a, T>,
}

#[derive(Clone, Copy)]
enum Repr<'a, T> {
    Flat(&'a [T]),
    Chunked {
        /// Full chunks of [`CHUNK`] events.
        chunks: &'a [std::sync::Arc<Columns>],
        /// The rest.
        open: &'a Columns,
        /// The column of a chunk.
        field: fn(&Columns) -> &[T],
    },
}

/// Events per chunk of a [`Column`] in chunks (the hot bucket's column chunks).
pub const CHUNK: usize = crate::consts::COLUMNS_BLOCK_EVENTS as usize;

impl<'a, T: Copy> Column<'a, T> {
    /// A contiguous column.
    pub fn flat(values: &'a [T]) -> Self {
        Column {
            repr: Repr::Flat(values),
        }
    }

    /// The column `field` picks from each of `chunks` (each of [`CHUNK`] events) and `open`.
    pub fn chunked(
        chunks: &'a [std::sync::Arc<Columns>],
        open: &'a Columns,
        field: fn(&Columns) -> &[T],
    ) -> Self {
        Column {
            repr: Repr::Chunked {
                chunks,
                open,
                field,
            },
        }
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        match self.repr {
            Repr::Flat(v) => v.len(),
            Repr::Chunked {
                chunks,
                open,
                field,
            } => chunks.len() * CHUNK + field(open).len(),
        }
    }

    /// Whether the column has no event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of event `n`; `None` beyond the column.
    #[inline]
    pub fn get(&self, n: usize) -> Option<T> {
        match self.repr {
            Repr::Flat(v) => v.get(n).copied(),
            Repr::Chunked {
                chunks,
                open,
                field,
            } => match chunks.get(n / CHUNK) {
                Some(c) => field(c).get(n % CHUNK).copied(),
                None => field(open).get(n - chunks.len() * CHUNK).copied(),
            },
        }
    }

    /// The values in event order.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len()).map(|n| self.get(n).expect("within the length"))
    }

    /// The values, copied into a vector.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Column<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Columns of a bucket, indexed by event number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    /// `_time`, µs since the epoch.
    pub times: Vec<i64>,
    /// `_indextime`, seconds since the epoch.
    pub index_times: Vec<i64>,
    /// Journal slice holding the raw text.
    pub slice: Vec<u32>,
    /// Offset of the raw text within the uncompressed slice, bytes.
    pub offset: Vec<u32>,
    /// Length of the raw text, bytes.
    pub raw_len: Vec<u32>,
    /// Host dictionary id.
    pub host: Vec<u32>,
    /// Source dictionary id.
    pub source: Vec<u32>,
    /// Sourcetype dictionary id.
    pub sourcetype: Vec<u32>,
    /// `linecount`.
    pub linecount: Vec<u32>,
    /// Start of each event's fields in `field_blob` (n + 1 entries), bytes.
    pub field_start: Vec<u64>,
    /// Index-time fields: `(name str | value str)*` per event.
    pub field_blob: Vec<u8>,
    /// Host names by id.
    pub hosts: Vec<String>,
    /// Source names by id.
    pub sources: Vec<String>,
    /// Sourcetype names by id.
    pub sourcetypes: Vec<String>,
}

impl Columns {
    /// Empty columns (with the leading `field_start` entry).
    pub fn new() -> Self {
        Columns {
            field_start: vec![0],
            ..Default::default()
        }
    }

    /// Empties the columns as [`Columns::new`] makes them, keeping their allocations.
    pub fn clear(&mut self) {
        self.times.clear();
        self.index_times.clear();
        for v in [
            &mut self.slice,
            &mut self.offset,
            &mut self.raw_len,
            &mut self.host,
            &mut self.source,
            &mut self.sourcetype,
            &mut self.linecount,
        ] {
            v.clear();
        }
        self.field_start.clear();
        self.field_start.push(0);
        self.field_blob.clear();
        self.hosts.clear();
        self.sources.clear();
        self.sourcetypes.clear();
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Bytes the columns hold on the heap (their capacities), for memory accounting.
    pub fn heap_bytes(&self) -> u64 {
        let names = |v: &[String]| -> usize { v.iter().map(|s| s.capacity() + 24).sum() };
        let bytes = 8 * (self.times.capacity() + self.index_times.capacity())
            + 4 * (self.slice.capacity()
                + self.offset.capacity()
                + self.raw_len.capacity()
                + self.host.capacity()
                + self.source.capacity()
                + self.sourcetype.capacity()
                + self.linecount.capacity())
            + 8 * self.field_start.capacity()
            + self.field_blob.capacity()
            + names(&self.hosts)
            + names(&self.sources)
            + names(&self.sourcetypes);
        bytes as u64
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Decodes the fields of event `i` into `out` (reused).
    pub fn fields_into(
        &self,
        i: usize,
        out: &mut Vec<(String, String)>,
    ) -> Result<(), DecodeError> {
        out.clear();
        let (s, e) = (
            self.field_start[i] as usize,
            self.field_start[i + 1] as usize,
        );
        let mut r = Reader::new(&self.field_blob[s..e]);
        while !r.is_empty() {
            let k = r.str()?;
            let v = r.str()?;
            out.push((k.to_string(), v.to_string()));
        }
        Ok(())
    }
}

/// What [`EventColumns::locate_streaming`] keeps between the events of one read.
#[derive(Default)]
pub struct StreamScratch {
    /// The block `cols` holds, and the position of its one event when only that event was
    /// decoded.
    pub(crate) held: Option<(usize, Option<usize>)>,
    /// The one event decoded alone.
    pub(crate) cols: Columns,
    /// The block decoded whole (shared with the reader's recently read blocks).
    pub(crate) whole: Option<std::sync::Arc<Columns>>,
}

/// Where the columns of one event are: the columns holding it, its index there, and the
/// dictionaries. Implemented by [`Columns`] (everything in memory) and
/// [`lazy::ColumnsFile`] (one block decoded on demand).
pub trait EventColumns {
    /// Number of events.
    fn event_count(&self) -> usize;
    /// The columns holding event `n` and its index within them; `n` must be below
    /// [`EventColumns::event_count`]. Decoding damage is a `Corrupt` error.
    fn locate(&self, n: usize) -> Result<(&Columns, usize), StoreError>;
    /// Like [`EventColumns::locate`], for a read going through events in ascending order: a
    /// reader that would cache a decoded block may decode it into `scratch` instead (kept for
    /// the next events of the same block), so a scan over a large bucket does not keep every
    /// block it passed; and it may decode only the first event asked of a block, the whole
    /// block when a second one is. `next` is the event the read asks for after `n`, if any: a
    /// dense read, whose next event is in the same block, has the whole block decoded at once.
    fn locate_streaming<'a>(
        &'a self,
        n: usize,
        next: Option<usize>,
        scratch: &'a mut StreamScratch,
    ) -> Result<(&'a Columns, usize), StoreError> {
        let _ = (next, scratch);
        self.locate(n)
    }
    /// Host, source and sourcetype dictionaries (names by id).
    fn dicts(&self) -> [&[String]; 3];
}

impl EventColumns for Columns {
    fn event_count(&self) -> usize {
        self.len()
    }
    fn locate(&self, n: usize) -> Result<(&Columns, usize), StoreError> {
        Ok((self, n))
    }
    fn dicts(&self) -> [&[String]; 3] {
        [&self.hosts, &self.sources, &self.sourcetypes]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    proptest::proptest! {
        /// A column in chunks reads like the contiguous column it splits, up to its end and
        /// not beyond.
        #[test]
        fn chunked_column_reads_like_the_flat_one(chunks in 0usize..4, open in 0usize..CHUNK) {
            let all: Vec<i64> = (0..(chunks * CHUNK + open) as i64).map(|t| t * 7 - 3).collect();
            let cols = |part: &[i64]| Columns {
                times: part.to_vec(),
                ..Columns::new()
            };
            let full: Vec<Arc<Columns>> =
                all.chunks(CHUNK).take(chunks).map(|c| Arc::new(cols(c))).collect();
            let rest = cols(&all[chunks * CHUNK..]);
            let col = Column::chunked(&full, &rest, |c| &c.times);
            proptest::prop_assert_eq!(col.len(), all.len());
            proptest::prop_assert_eq!(col.to_vec(), all.clone());
            proptest::prop_assert_eq!(col.get(all.len()), None);
            proptest::prop_assert_eq!(Column::flat(&all).to_vec(), all.clone());
        }
    }
}
