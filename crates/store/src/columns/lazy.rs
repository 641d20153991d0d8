//! A `columns.dat` read on demand: the head (block table, dictionaries) at open, each block when
//! an event in it is first asked for, and everything at once for the dense accessors.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::bucket::IndexedFields;
use crate::columns::file::{
    decode_all, decode_block_at, parse_head, parse_trailer, Head, TRAILER_LEN,
};
use crate::columns::{Columns, EventColumns};
use crate::consts::{magic, MAX_LOADED_FILE};
use crate::error::{IoContext, StoreError};
use crate::footer::open_checked;

/// An open `columns.dat`. `Send + Sync`; blocks decoded once are cached for the life of the
/// reader (at most one copy per block, plus the whole-file copy if the dense path asked for it).
pub struct ColumnsFile {
    path: PathBuf,
    file: File,
    /// Bytes of block area (the body before the head).
    blocks_len: u64,
    head: Head,
    /// Uncompressed length of each journal slice, bytes (every event is checked to lie within).
    slice_lens: Vec<u32>,
    /// Each block, decoded on first use (events numbered from the block's first, no
    /// dictionaries); a failure is kept and reported on every use.
    blocks: Vec<OnceLock<Result<Columns, StoreError>>>,
    /// Every block at once, with dictionaries, decoded on first use of the dense accessors.
    full: OnceLock<Result<Columns, StoreError>>,
    /// Number of block decodes performed (the whole-file decode counts each block), for tests
    /// and diagnostics.
    decoded: AtomicU64,
}

impl ColumnsFile {
    /// Opens `path`: checks the footer and the layout version, reads and verifies the head,
    /// and checks its event count against `events` (from the bucket metadata). `slice_lens`
    /// are the journal slices' uncompressed lengths in bytes.
    pub fn open(path: &Path, events: u64, slice_lens: Vec<u32>) -> Result<ColumnsFile, StoreError> {
        let (file, body_len) = open_checked(path, magic::COLUMNS)?;
        let mut trailer = [0u8; TRAILER_LEN as usize];
        if body_len >= TRAILER_LEN {
            file.read_exact_at(&mut trailer, body_len - TRAILER_LEN)
                .at(path)?;
        }
        let (head_len, head_sum) = parse_trailer(path, &trailer, body_len)?;
        if head_len > MAX_LOADED_FILE {
            return Err(StoreError::corrupt(path, "columns head too long"));
        }
        let blocks_len = body_len - TRAILER_LEN - head_len;
        let mut raw = vec![0u8; head_len as usize];
        file.read_exact_at(&mut raw, blocks_len).at(path)?;
        let head = parse_head(path, &raw, head_sum, blocks_len)?;
        if head.events as u64 != events {
            return Err(StoreError::corrupt(
                path,
                format!("{} events but meta.json says {events}", head.events),
            ));
        }
        Ok(ColumnsFile {
            path: path.to_path_buf(),
            file,
            blocks_len,
            blocks: head.blocks.iter().map(|_| OnceLock::new()).collect(),
            head,
            slice_lens,
            full: OnceLock::new(),
            decoded: AtomicU64::new(0),
        })
    }

    /// The block table and dictionaries.
    pub fn head(&self) -> &Head {
        &self.head
    }

    /// Number of block decodes so far (each block is decoded at most once for per-event use,
    /// and once more if the whole file is decoded).
    pub fn blocks_decoded(&self) -> u64 {
        self.decoded.load(Ordering::Relaxed)
    }

    /// Every column of every event, decoding the whole file on first use.
    pub fn full(&self) -> Result<&Columns, StoreError> {
        let load = || -> Result<Columns, StoreError> {
            let mut area = vec![0u8; self.blocks_len as usize];
            self.file.read_exact_at(&mut area, 0).at(&self.path)?;
            let cols = decode_all(&self.path, &self.head, &area)?;
            self.decoded
                .fetch_add(self.head.blocks.len() as u64, Ordering::Relaxed);
            if cols.len() != self.head.events as usize {
                return Err(StoreError::corrupt(
                    &self.path,
                    "time column length differs from event count",
                ));
            }
            cols.check_slices(&self.path, &self.slice_lens, 0)?;
            Ok(cols)
        };
        match self.full.get_or_init(load) {
            Ok(c) => Ok(c),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// Decoded block `i` (events from `head().blocks[i].first`), decoding it on first use.
    pub fn block(&self, i: usize) -> Result<&Columns, StoreError> {
        let Some(cell) = self.blocks.get(i) else {
            return Err(StoreError::corrupt(
                &self.path,
                format!("no columns block {i}"),
            ));
        };
        let load = || -> Result<Columns, StoreError> {
            let mut cols = Columns::new();
            self.decode_block(i, &mut cols)?;
            Ok(cols)
        };
        match cell.get_or_init(load) {
            Ok(c) => Ok(c),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// Decodes block `i` into `into` (cleared first, its allocations reused; events numbered
    /// from the block's first, no dictionaries) without caching it: a merge and a streaming
    /// read decode each block once.
    pub fn decode_block(&self, i: usize, into: &mut Columns) -> Result<(), StoreError> {
        let e = self
            .head
            .blocks
            .get(i)
            .ok_or_else(|| StoreError::corrupt(&self.path, format!("no columns block {i}")))?;
        let mut comp = vec![0u8; e.clen as usize];
        self.file
            .read_exact_at(&mut comp, e.offset)
            .at(&self.path)?;
        into.clear();
        decode_block_at(&self.path, &self.head, i, &comp, &mut Vec::new(), into)?;
        self.decoded.fetch_add(1, Ordering::Relaxed);
        into.check_slices(&self.path, &self.slice_lens, e.first)
    }

    /// `_time` of event `n`, µs: from the whole-file columns if decoded, else from its block.
    pub fn time(&self, n: u32) -> Result<i64, StoreError> {
        let (cols, i) = self.locate_checked(n as usize)?;
        Ok(cols.times[i])
    }

    /// `_time` and dictionary ids of event `n`, decoding at most its block.
    pub fn indexed(&self, n: u32) -> Result<IndexedFields, StoreError> {
        let (c, i) = self.locate_checked(n as usize)?;
        Ok(IndexedFields {
            time: c.times[i],
            host: c.host[i],
            source: c.source[i],
            sourcetype: c.sourcetype[i],
        })
    }

    /// Index-time fields of event `n` into `out` (cleared first), decoding at most its block.
    pub fn index_fields(&self, n: u32, out: &mut Vec<(String, String)>) -> Result<(), StoreError> {
        let (c, i) = self.locate_checked(n as usize)?;
        c.fields_into(i, out)
            .map_err(|r| StoreError::corrupt(&self.path, format!("fields of event {n}: {r}")))
    }

    fn locate_checked(&self, n: usize) -> Result<(&Columns, usize), StoreError> {
        if n >= self.head.events as usize {
            return Err(StoreError::Limit(format!(
                "event number {n} beyond the {} events of {}",
                self.head.events,
                self.path.display()
            )));
        }
        self.locate(n)
    }
}

impl EventColumns for ColumnsFile {
    fn event_count(&self) -> usize {
        self.head.events as usize
    }

    fn locate(&self, n: usize) -> Result<(&Columns, usize), StoreError> {
        if let Some(Ok(full)) = self.full.get() {
            return Ok((full, n));
        }
        let per = self.head.block_events as usize;
        let b = n / per;
        let cols = self.block(b)?;
        Ok((cols, n - b * per))
    }

    fn locate_streaming<'a>(
        &'a self,
        n: usize,
        scratch: &'a mut Option<(usize, Columns)>,
    ) -> Result<(&'a Columns, usize), StoreError> {
        if let Some(Ok(full)) = self.full.get() {
            return Ok((full, n));
        }
        let per = self.head.block_events as usize;
        let b = n / per;
        if let Some(Ok(cached)) = self.blocks.get(b).and_then(OnceLock::get) {
            return Ok((cached, n - b * per));
        }
        if scratch.as_ref().map(|s| s.0) != Some(b) {
            let mut cols = scratch.take().map(|s| s.1).unwrap_or_default();
            self.decode_block(b, &mut cols)?;
            *scratch = Some((b, cols));
        }
        let (_, cols) = scratch.as_ref().expect("just decoded");
        Ok((cols, n - b * per))
    }

    fn dicts(&self) -> [&[String]; 3] {
        let [h, s, t] = &self.head.dicts;
        [h, s, t]
    }
}
