//! A `columns.dat` read on demand: the head (block table, dictionaries) at open, each block when
//! an event in it is first asked for, and everything at once for the dense accessors.

use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::bucket::IndexedFields;
use crate::columns::block::{decode_block_event, decode_block_light, peek_indexed, IdColumns};
use crate::columns::file::{
    decode_all, decode_block_at, decompress_block, decompress_times, parse_head, parse_trailer,
    BlockEntry, Head, TRAILER_LEN,
};
use crate::columns::{Columns, EventColumns, StreamScratch};
use crate::consts::{magic, MAX_LOADED_FILE};
use crate::error::{IoContext, StoreError};
use crate::footer::open_checked;

/// At most this many block bodies in [`ColumnsFile::recent`]: a sparse newest-first read keys
/// every candidate of a bucket (a walk per block) before it reads them (the same blocks again,
/// in the same order, so fewer entries than candidate blocks would all miss).
const RECENT_BODIES: usize = 48;
/// And at most this many bytes (a block body is ~15–25 KB; ~50–100 KB in files written with
/// 4096-event blocks).
const RECENT_BODY_BYTES: usize = 2 << 20;

/// Block `b`'s entry of a recently-used list (oldest first), moved to the end as the most
/// recent.
fn touch_recent<T: ?Sized>(list: &Mutex<VecDeque<(usize, Arc<T>)>>, b: usize) -> Option<Arc<T>> {
    let mut recent = list.lock().unwrap_or_else(|p| p.into_inner());
    let at = recent.iter().position(|(held, _)| *held == b)?;
    let hit = recent.remove(at).expect("found");
    let value = hit.1.clone();
    recent.push_back(hit);
    Some(value)
}

/// At most this many events' whole blocks in [`ColumnsFile::recent_blocks`] (~60 bytes an
/// event: about 4 MB): 64 blocks of 1024 events, 16 of a file written with 4096-event blocks.
/// With 1024-event blocks, 64 served the 10 GB service 270 and 280 searches/s against 251 and
/// 260 with 16 (alternated, session 26).
const RECENT_BLOCK_EVENTS: usize = 64 * 1024;

/// Bytes of block times a reader keeps for newest-first reads ([`ColumnsFile::block_times_into`])
/// until told otherwise ([`ColumnsFile::keep_times_within`]): 256 blocks of 1024 events, the
/// newest quarter-million events of the bucket when its reads go newest first. Past it, a
/// block's times are decoded for the call. Unbounded, a reader kept every block's times a
/// search walked (24 MB for a merged bucket of 3 M events) until its next use from the cache
/// re-measured it: in the 10 GB burst, readers held 100 MB of kept times at the heap's peak
/// with the reader cache at its 32 MB floor (heaptrack, session 36).
pub const KEPT_TIMES_BYTES: u64 = 2 << 20;

/// At most this many of each kind of allocation in [`ColumnsFile::spare`]: one per thread of a
/// batch search on the development machine's two cores.
const SPARES: usize = 2;

/// The buffers one block decode reads and decompresses through.
#[derive(Default)]
struct Bufs {
    comp: Vec<u8>,
    body: Vec<u8>,
}

/// Allocations kept for the next whole-block decodes (see [`ColumnsFile::spare`]).
#[derive(Default)]
struct Spare {
    cols: Vec<Columns>,
    bufs: Vec<Bufs>,
}

impl Spare {
    fn put_cols(&mut self, cols: Columns) {
        if self.cols.len() < SPARES {
            self.cols.push(cols);
        }
    }

    fn put_bufs(&mut self, bufs: Bufs) {
        if self.bufs.len() < SPARES {
            self.bufs.push(bufs);
        }
    }

    fn heap_bytes(&self) -> u64 {
        let bufs: usize = self
            .bufs
            .iter()
            .map(|b| b.comp.capacity() + b.body.capacity())
            .sum();
        bufs as u64 + self.cols.iter().map(Columns::heap_bytes).sum::<u64>()
    }
}

/// [`ColumnsFile::touched`]: more than one event of the block was asked.
const MANY: u32 = u32::MAX;

/// What the reader keeps of one block, each part decoded on first use; a failure is kept and
/// reported on every use.
#[derive(Default)]
struct Kept {
    /// The whole block (events numbered from the block's first, no dictionaries).
    whole: OnceLock<Result<Columns, StoreError>>,
    /// Its `_time` column alone, when the block is not decoded whole: sparse searches order
    /// candidates by it without decoding the other columns.
    times: OnceLock<Result<Vec<i64>, StoreError>>,
    /// Its host, source and sourcetype id columns alone, for counting candidates.
    ids: OnceLock<Result<IdColumns, StoreError>>,
}

/// An open `columns.dat`. `Send + Sync`; blocks decoded once are cached for the life of the
/// reader (at most one copy per block, plus the whole-file copy if the dense path asked for it).
pub struct ColumnsFile {
    path: PathBuf,
    file: File,
    /// Bytes of block area (the body before the head).
    blocks_len: u64,
    head: Head,
    /// What is kept of each block, allocated on the block's first use: a search opens a
    /// bucket to read a few of its thousands of blocks, and a ~500-byte [`Kept`] made for
    /// every block at open was most of opening a 10 GB corpus's buckets (super-sparse
    /// `head 100`).
    kept_blocks: Vec<OnceLock<Box<Kept>>>,
    /// Bytes of the times [`ColumnsFile::block_times_into`] decodes that are kept for later
    /// reads ([`KEPT_TIMES_BYTES`] at open); 0 once the server's reader cache has let the
    /// reader go ([`stop_keeping`]), as the searches still holding it read each block's times
    /// once and what it kept would be memory no cache budget counts. The id pass keeps its
    /// times while this is not 0. (A block two of whose events are asked one by one,
    /// [`ColumnsFile::time`], still keeps its times.)
    ///
    /// [`stop_keeping`]: ColumnsFile::stop_keeping
    keep_times: AtomicU64,
    /// Bytes of times [`ColumnsFile::block_times_into`] has kept.
    times_kept: AtomicU64,
    /// Which events of each block were asked of [`ColumnsFile::time`] or
    /// [`ColumnsFile::indexed`]: 0 none, `pos + 1` only that one, [`MANY`] more. One event is
    /// answered by walking the block without keeping anything; a second one decodes the
    /// block's light columns once (a block that one event of a sparse search lies in is
    /// never decoded, one that many do is decoded once).
    touched: Vec<AtomicU32>,
    /// The block bodies decompressed last by the one-event paths, oldest first: a sparse
    /// search orders its candidates by time (a walk of each one's block), then reads them
    /// (another walk of the same blocks).
    recent: Mutex<VecDeque<(usize, Arc<[u8]>)>>,
    /// The blocks decoded whole last by event reads ([`EventColumns::locate_streaming`]),
    /// oldest first: a server answering `<words> | head 10` reads events of the same newest
    /// blocks search after search, and decoding a 4,096-event block for ten of them was most of
    /// the columns' cost. A scan passes through without keeping more than these.
    recent_blocks: Mutex<VecDeque<(usize, Arc<Columns>)>>,
    /// Allocations of whole blocks that left [`ColumnsFile::recent_blocks`] unshared, kept for
    /// the next [`ColumnsFile::decode_recent`], and of block bodies, kept for the next
    /// [`ColumnsFile::decode_block`] (a dense read's or a merge's): a dense read decodes
    /// block after block, and allocating, zeroing and freeing ~60 KB of columns and two
    /// buffers for each was ~3 % of a dense search with extraction.
    spare: Mutex<Spare>,
    /// Every block at once, with dictionaries, decoded on first use of the dense accessors.
    full: OnceLock<Result<Columns, StoreError>>,
    /// Number of block decodes performed (the whole-file decode counts each block), for tests
    /// and diagnostics.
    decoded: AtomicU64,
    /// Heap bytes of the decoded columns the reader keeps (whole blocks, the whole file, light
    /// columns), for memory accounting.
    kept: AtomicU64,
}

impl ColumnsFile {
    /// Opens `path`: checks the footer and the layout version, reads and verifies the head,
    /// and checks its event count against `events` (from the bucket metadata). Where each
    /// event's raw text lies in its journal slice is checked when the event is read.
    pub fn open(path: &Path, events: u64) -> Result<ColumnsFile, StoreError> {
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
            kept_blocks: head.blocks.iter().map(|_| OnceLock::new()).collect(),
            touched: head.blocks.iter().map(|_| AtomicU32::new(0)).collect(),
            keep_times: AtomicU64::new(KEPT_TIMES_BYTES),
            times_kept: AtomicU64::new(0),
            recent: Mutex::new(VecDeque::new()),
            recent_blocks: Mutex::new(VecDeque::new()),
            spare: Mutex::new(Spare::default()),
            head,
            full: OnceLock::new(),
            decoded: AtomicU64::new(0),
            kept: AtomicU64::new(0),
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

    /// Number of blocks something is kept of (whole, or their light columns), for tests and
    /// diagnostics: opening keeps nothing per block.
    pub fn blocks_kept(&self) -> usize {
        self.kept_blocks
            .iter()
            .filter(|k| k.get().is_some())
            .count()
    }

    /// Number of recently read whole blocks held (at most 64 Ki events' worth), for tests and
    /// diagnostics.
    pub fn recent_blocks_held(&self) -> usize {
        let blocks = self.recent_blocks.lock().unwrap_or_else(|p| p.into_inner());
        blocks.len()
    }

    /// Bytes of the recently decompressed block bodies and recently read whole blocks held
    /// (at most ~6 MiB), for memory accounting.
    pub fn recent_bytes(&self) -> u64 {
        let bodies: u64 = {
            let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
            recent.iter().map(|r| r.1.len() as u64).sum()
        };
        let spare = self
            .spare
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .heap_bytes();
        let blocks = self.recent_blocks.lock().unwrap_or_else(|p| p.into_inner());
        bodies + spare + blocks.iter().map(|r| r.1.heap_bytes()).sum::<u64>()
    }

    /// Block `b` if it is among the recently read whole blocks (marked most recent).
    fn recent_block(&self, b: usize) -> Option<Arc<Columns>> {
        touch_recent(&self.recent_blocks, b)
    }

    /// Decodes block `b` whole and keeps it among the recently read ones.
    fn decode_recent(&self, b: usize) -> Result<Arc<Columns>, StoreError> {
        let mut cols = self
            .spare
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .cols
            .pop()
            .unwrap_or_default();
        self.decode_block(b, &mut cols)?;
        let cols = Arc::new(cols);
        let mut left = Vec::new();
        {
            let mut recent = self.recent_blocks.lock().unwrap_or_else(|p| p.into_inner());
            recent.push_back((b, cols.clone()));
            let per = (self.head.block_events as usize).max(1);
            while recent.len() > (RECENT_BLOCK_EVENTS / per).max(1) {
                left.extend(recent.pop_front());
            }
        }
        // Outside the recent list's lock: keep (up to [`SPARES`]) the columns that left it
        // and that no read still holds; the others are freed as their last holder lets go.
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        for (_, old) in left {
            if let Ok(old) = Arc::try_unwrap(old) {
                spare.put_cols(old);
            }
        }
        Ok(cols)
    }

    /// Heap bytes of the decoded columns the reader keeps: each whole block, each block's
    /// light columns (times alone: 8 bytes per event) and the whole-file copy, as allocated.
    /// What a cache of readers charges, with [`ColumnsFile::recent_bytes`].
    pub fn kept_bytes(&self) -> u64 {
        self.kept.load(Ordering::Relaxed)
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
            self.keep(cols.heap_bytes() as usize);
            Ok(cols)
        };
        match self.full.get_or_init(load) {
            Ok(c) => Ok(c),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// Decoded block `i` (events from `head().blocks[i].first`), decoding it on first use.
    pub fn block(&self, i: usize) -> Result<&Columns, StoreError> {
        let cell = &self.kept_of(i)?.whole;
        let load = || -> Result<Columns, StoreError> {
            let mut cols = Columns::new();
            self.decode_block(i, &mut cols)?;
            self.keep(cols.heap_bytes() as usize);
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
    /// Its compressed and decompressed bytes pass through buffers the reader keeps (see
    /// [`ColumnsFile::spare`]).
    pub fn decode_block(&self, i: usize, into: &mut Columns) -> Result<(), StoreError> {
        let spare = || self.spare.lock().unwrap_or_else(|p| p.into_inner());
        let mut bufs = spare().bufs.pop().unwrap_or_default();
        let decoded = self.read_compressed_into(i, &mut bufs.comp).and_then(|_| {
            into.clear();
            decode_block_at(&self.path, &self.head, i, &bufs.comp, &mut bufs.body, into)
        });
        spare().put_bufs(bufs);
        decoded?;
        self.decoded.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Block `b`'s table entry and compressed bytes (unchecked).
    fn read_compressed(&self, b: usize) -> Result<(&BlockEntry, Vec<u8>), StoreError> {
        let mut comp = Vec::new();
        let e = self.read_compressed_into(b, &mut comp)?;
        Ok((e, comp))
    }

    /// [`ColumnsFile::read_compressed`] into `comp` (its allocation reused).
    fn read_compressed_into(
        &self,
        b: usize,
        comp: &mut Vec<u8>,
    ) -> Result<&BlockEntry, StoreError> {
        let e = self
            .head
            .blocks
            .get(b)
            .ok_or_else(|| StoreError::corrupt(&self.path, format!("no columns block {b}")))?;
        comp.clear();
        comp.resize(e.clen as usize, 0);
        self.file.read_exact_at(comp, e.offset).at(&self.path)?;
        Ok(e)
    }

    /// `_time` of event `n`, µs: from the whole-file or whole-block columns if decoded, else
    /// from its block's time column alone (decoded once).
    pub fn time(&self, n: u32) -> Result<i64, StoreError> {
        if let Some((cols, i)) = self.decoded_whole(n)? {
            return Ok(cols.times[i]);
        }
        let (b, i) = self.block_of(n);
        if let Some(Ok(times)) = self.kept_if(b).and_then(|k| k.times.get()) {
            return Ok(times[i]);
        }
        if self.only_event(b, i) {
            return Ok(self.peek(b, i, false)?.0);
        }
        Ok(self.light_times(b)?[i])
    }

    /// Keeps no more block times decoded for newest-first reads from now on (what is kept
    /// stays until the reader drops): the server's reader cache calls it on a reader it evicts
    /// or does not take.
    pub fn stop_keeping(&self) {
        self.keep_times.store(0, Ordering::Relaxed);
    }

    /// Whether light times decoded from now on may be kept ([`ColumnsFile::stop_keeping`]).
    pub fn keeping(&self) -> bool {
        self.keep_times.load(Ordering::Relaxed) > 0
    }

    /// Keeps at most `bytes` of block times for newest-first reads ([`KEPT_TIMES_BYTES`] from
    /// the open; what is kept already stays). 0 is [`ColumnsFile::stop_keeping`].
    pub fn keep_times_within(&self, bytes: u64) {
        self.keep_times.store(bytes, Ordering::Relaxed);
    }

    /// `_time` and dictionary ids of event `n`: from decoded columns if there are, else from
    /// its block's time and id columns alone (decoded once).
    pub fn indexed(&self, n: u32) -> Result<IndexedFields, StoreError> {
        if let Some((c, i)) = self.decoded_whole(n)? {
            return Ok(IndexedFields {
                time: c.times[i],
                host: c.host[i],
                source: c.source[i],
                sourcetype: c.sourcetype[i],
            });
        }
        let (b, i) = self.block_of(n);
        let ids_kept = self.kept_if(b).is_some_and(|k| k.ids.get().is_some());
        if !ids_kept && self.only_event(b, i) {
            let (time, [host, source, sourcetype]) = self.peek(b, i, true)?;
            return Ok(IndexedFields {
                time,
                host,
                source,
                sourcetype,
            });
        }
        let [h, s, st] = self.light_ids(b)?;
        Ok(IndexedFields {
            time: self.light_times(b)?[i],
            host: h[i],
            source: s[i],
            sourcetype: st[i],
        })
    }

    /// The whole-file or whole-block columns holding event `n` (checked to exist) and its
    /// position in them, if they are decoded already.
    fn decoded_whole(&self, n: u32) -> Result<Option<(&Columns, usize)>, StoreError> {
        let n = n as usize;
        self.check_event(n)?;
        if let Some(Ok(full)) = self.full.get() {
            return Ok(Some((full, n)));
        }
        let (b, i) = self.block_of(n as u32);
        match self.kept_if(b).and_then(|k| k.whole.get()) {
            Some(Ok(cols)) => Ok(Some((cols, i))),
            _ => Ok(None),
        }
    }

    /// Block of event `n` (below the event count) and its position there.
    fn block_of(&self, n: u32) -> (usize, usize) {
        let per = self.head.block_events as usize;
        let n = n as usize;
        (n / per, n % per)
    }

    /// Block `b`'s decompressed body, or at least its time prefix (see
    /// [`decompress_times`]), which is not kept: keying a sparse read's candidates by time
    /// decompresses a tenth of each one's block, and only the blocks of the events it then
    /// reads whole.
    fn time_body(&self, b: usize) -> Result<Arc<[u8]>, StoreError> {
        self.body(b, true)
    }

    /// Block `b`'s decompressed body.
    fn block_body(&self, b: usize) -> Result<Arc<[u8]>, StoreError> {
        self.body(b, false)
    }

    /// Block `b`'s body from the recent ones, else decompressed: its time prefix alone when
    /// `times_only` (not kept), else whole (kept among the recent ones).
    fn body(&self, b: usize, times_only: bool) -> Result<Arc<[u8]>, StoreError> {
        if let Some(body) = touch_recent(&self.recent, b) {
            return Ok(body);
        }
        let (_, comp) = self.read_compressed(b)?;
        let mut body = Vec::new();
        if times_only {
            decompress_times(&self.path, &self.head, b, &comp, &mut body)?;
            return Ok(body.into());
        }
        decompress_block(&self.path, &self.head, b, &comp, &mut body)?;
        let body: Arc<[u8]> = body.into();
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.push_back((b, body.clone()));
        while recent.len() > RECENT_BODIES
            || recent.iter().map(|r| r.1.len()).sum::<usize>() > RECENT_BODY_BYTES
        {
            recent.pop_front();
        }
        Ok(body)
    }

    /// Records that event `i` of block `b` is asked; whether it is the only one so far.
    fn only_event(&self, b: usize, i: usize) -> bool {
        let Some(t) = self.touched.get(b) else {
            return false;
        };
        let me = i as u32 + 1;
        match t.compare_exchange(0, me, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => true,
            Err(seen) if seen == me => true,
            Err(_) => {
                t.store(MANY, Ordering::Relaxed);
                false
            }
        }
    }

    /// `_time` (and ids when `ids`) of event `i` of block `b`, walking the block.
    fn peek(&self, b: usize, i: usize, ids: bool) -> Result<(i64, [u32; 3]), StoreError> {
        let body = if ids {
            self.block_body(b)?
        } else {
            self.time_body(b)?
        };
        let e = &self.head.blocks[b];
        let bad = |r: &str| StoreError::corrupt(&self.path, format!("columns block {b}: {r}"));
        let got =
            peek_indexed(&body, e.count as usize, i, self.head.dict_lens(), ids).map_err(bad)?;
        if got.0 < e.min_time || got.0 > e.max_time {
            return Err(bad("a time lies outside the block's range"));
        }
        self.decoded.fetch_add(1, Ordering::Relaxed);
        Ok(got)
    }

    /// Decodes event `i` of block `b` alone into `into` (cleared first), checked like a whole
    /// block.
    fn decode_event(&self, b: usize, i: usize, into: &mut Columns) -> Result<(), StoreError> {
        let body = self.block_body(b)?;
        let e = &self.head.blocks[b];
        let bad = |r: &str| StoreError::corrupt(&self.path, format!("columns block {b}: {r}"));
        into.clear();
        decode_block_event(&body, e.count as usize, i, self.head.dict_lens(), into).map_err(bad)?;
        if into.times[0] < e.min_time || into.times[0] > e.max_time {
            return Err(bad("a time lies outside the block's range"));
        }
        self.decoded.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Decodes block `b`'s times (and ids when `ids` is given), checking the times against
    /// the block's range. Times alone come from the block's time prefix: even a dense term's
    /// newest-first read ([`ColumnsFile::block_times_into`]) reads few of the events of most blocks
    /// whose times it takes (sparse `head 100` at 10 GB: 15.5–15.9 → 13.4–14.4 ms with the
    /// prefix, 14.9–15.4 when those blocks were decompressed whole).
    fn decode_light(&self, b: usize, ids: Option<&mut IdColumns>) -> Result<Vec<i64>, StoreError> {
        let body = match ids {
            Some(_) => self.block_body(b)?,
            None => self.time_body(b)?,
        };
        let e = &self.head.blocks[b];
        let bad = |r: &str| StoreError::corrupt(&self.path, format!("columns block {b}: {r}"));
        let mut times = Vec::new();
        decode_block_light(
            &body,
            e.count as usize,
            self.head.dict_lens(),
            &mut times,
            ids,
        )
        .map_err(bad)?;
        if times.iter().any(|&t| t < e.min_time || t > e.max_time) {
            return Err(bad("a time lies outside the block's range"));
        }
        self.decoded.fetch_add(1, Ordering::Relaxed);
        Ok(times)
    }

    fn light_times(&self, b: usize) -> Result<&[i64], StoreError> {
        let kept = self.kept_of(b)?;
        let load = || {
            let times = self.decode_light(b, None)?;
            self.keep(times.capacity() * 8);
            Ok(times)
        };
        match kept.times.get_or_init(load) {
            Ok(t) => Ok(t),
            Err(e) => Err(e.duplicate()),
        }
    }

    fn light_ids(&self, b: usize) -> Result<&IdColumns, StoreError> {
        let kept = self.kept_of(b)?;
        let load = || {
            let mut ids = IdColumns::default();
            let times = self.decode_light(b, Some(&mut ids))?;
            // The pass read the times too: keep them unless another thread already did.
            let bytes = times.capacity() * 8;
            if self.keeping() && kept.times.set(Ok(times)).is_ok() {
                self.keep(bytes);
            }
            self.keep(ids.iter().map(|c| c.capacity() * 4).sum());
            Ok(ids)
        };
        match kept.ids.get_or_init(load) {
            Ok(t) => Ok(t),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// `_time` of every event of block `b` into `out` (replacing what it held): from decoded
    /// columns if there are, else its time column alone (decoded once and kept while the
    /// reader keeps and has kept less than it may, [`ColumnsFile::keep_times_within`]; else
    /// decoded for the call).
    pub fn block_times_into(&self, b: usize, out: &mut Vec<i64>) -> Result<(), StoreError> {
        self.check_block(b)?;
        out.clear();
        if let Some(t) = self.held_times(b) {
            out.extend_from_slice(t?);
            return Ok(());
        }
        // Many events of the block are asked: later per-event lookups of its ids decode the
        // id columns once rather than walking the block for a first one.
        if let Some(t) = self.touched.get(b) {
            t.store(MANY, Ordering::Relaxed);
        }
        let kept = self.times_kept.load(Ordering::Relaxed);
        if kept < self.keep_times.load(Ordering::Relaxed) {
            let times = self.light_times(b)?;
            self.times_kept
                .fetch_add(times.len() as u64 * 8, Ordering::Relaxed);
            out.extend_from_slice(times);
        } else {
            *out = self.decode_light(b, None)?;
        }
        Ok(())
    }

    /// The `_time`s of block `b` (which exists) when decoded columns or its kept times hold
    /// them; `None` when they would have to be decoded.
    fn held_times(&self, b: usize) -> Option<Result<&[i64], StoreError>> {
        if let Some(Ok(full)) = self.full.get() {
            let first = b * self.head.block_events as usize;
            let count = self.head.blocks[b].count as usize;
            return Some(
                full.times.get(first..first + count).ok_or_else(|| {
                    StoreError::corrupt(&self.path, format!("no columns block {b}"))
                }),
            );
        }
        let kept = self.kept_if(b)?;
        if let Some(Ok(cols)) = kept.whole.get() {
            return Some(Ok(&cols.times));
        }
        kept.times
            .get()
            .map(|t| t.as_ref().map(Vec::as_slice).map_err(StoreError::duplicate))
    }

    /// `f` of the `_time` of every event of block `b`: the times kept or decoded already when
    /// there are, else its time column decoded for the call alone and let go (a pass over
    /// every block keeps nothing of them).
    pub fn with_block_times<T>(
        &self,
        b: usize,
        f: impl FnOnce(&[i64]) -> T,
    ) -> Result<T, StoreError> {
        self.check_block(b)?;
        match self.held_times(b) {
            Some(t) => Ok(f(t?)),
            None => Ok(f(&self.decode_light(b, None)?)),
        }
    }

    /// Adds `bytes` kept for the life of the reader to [`ColumnsFile::kept_bytes`].
    fn keep(&self, bytes: usize) {
        self.kept.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// What is kept of block `b`, made on first use. Its ~500 bytes are not charged: each
    /// caller keeps at least the block's times (8 bytes per event) in it.
    fn kept_of(&self, b: usize) -> Result<&Kept, StoreError> {
        self.check_block(b)?;
        Ok(self.kept_blocks[b].get_or_init(Box::default))
    }

    /// What is kept of block `b`, if it was used before (nothing is made).
    fn kept_if(&self, b: usize) -> Option<&Kept> {
        self.kept_blocks
            .get(b)
            .and_then(OnceLock::get)
            .map(|k| &**k)
    }

    /// Fails unless block `b` exists.
    fn check_block(&self, b: usize) -> Result<(), StoreError> {
        if b < self.kept_blocks.len() {
            return Ok(());
        }
        Err(StoreError::corrupt(
            &self.path,
            format!("no columns block {b}"),
        ))
    }

    /// Index-time fields of event `n` into `out` (cleared first), decoding at most its block.
    pub fn index_fields(&self, n: u32, out: &mut Vec<(String, String)>) -> Result<(), StoreError> {
        let (c, i) = self.locate_checked(n as usize)?;
        c.fields_into(i, out)
            .map_err(|r| StoreError::corrupt(&self.path, format!("fields of event {n}: {r}")))
    }

    fn locate_checked(&self, n: usize) -> Result<(&Columns, usize), StoreError> {
        self.check_event(n)?;
        self.locate(n)
    }

    /// A [`StoreError::Limit`] error when event `n` is beyond the file's events.
    fn check_event(&self, n: usize) -> Result<(), StoreError> {
        if n >= self.head.events as usize {
            return Err(StoreError::Limit(format!(
                "event number {n} beyond the {} events of {}",
                self.head.events,
                self.path.display()
            )));
        }
        Ok(())
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
        next: Option<usize>,
        scratch: &'a mut StreamScratch,
    ) -> Result<(&'a Columns, usize), StoreError> {
        self.check_event(n)?;
        let (b, i) = self.block_of(n as u32);
        // Unless the previous event's block is held whole (the common case of a dense read).
        if scratch.held != Some((b, None)) {
            if let Some(found) = self.decoded_whole(n as u32)? {
                return Ok(found);
            }
            match scratch.held {
                Some((held, Some(one))) if held == b && one == i => return Ok((&scratch.cols, 0)),
                // A second event of the block (the whole block is cheaper from here on), or a
                // block read whole lately.
                was => {
                    let second = matches!(was, Some((held, Some(_))) if held == b)
                        || next.is_some_and(|m| self.block_of(m as u32).0 == b);
                    scratch.held = None;
                    scratch.whole = None;
                    let whole = match self.recent_block(b) {
                        Some(cols) => cols,
                        None if second => self.decode_recent(b)?,
                        None => {
                            self.decode_event(b, i, &mut scratch.cols)?;
                            scratch.held = Some((b, Some(i)));
                            return Ok((&scratch.cols, 0));
                        }
                    };
                    scratch.whole = Some(whole);
                    scratch.held = Some((b, None));
                }
            }
        }
        let cols = scratch
            .whole
            .as_deref()
            .ok_or_else(|| StoreError::corrupt(&self.path, "columns block lost between events"))?;
        Ok((cols, i))
    }

    fn dicts(&self) -> [&[String]; 3] {
        let [h, s, t] = &self.head.dicts;
        [h, s, t]
    }
}
