//! Reader of a hot bucket: a snapshot of its in-memory index.
//!
//! Two sources, tried in this order:
//! 1. **The writer's index.** An [`crate::IndexWriter`] in this process indexes every batch it
//!    made durable into the lane's [`HotIndex`] and registers it (a [`Registration`]) under the
//!    hot directory's identity. A snapshot takes the index's read lock for a moment: it shares
//!    the frozen column chunks and completed slices (`Arc`), and copies the open chunk, the last
//!    partial slice, the dictionaries and the metadata. No WAL is read.
//! 2. **WAL replay** (no writer in this process, e.g. a CLI search while a server writes): the
//!    WAL is replayed up to the last complete, checksummed record into an index kept in a
//!    process-wide cache and extended incrementally: a later open only decodes and indexes the
//!    records appended since.
//!
//! Either way postings are shared with the growing index and cut at the snapshot's event count
//! (postings only ever grow at the end).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

use lode_event::Event;
use roaring::RoaringBitmap;

use crate::bucket::build::{Builder, SliceSink, CHUNK_EVENTS};
use crate::bucket::journal::{compress_held, train_and_compress};
use crate::bucket::{read_events_with, BucketRead, EventView, IndexedFields, SliceSource};
use crate::columns::{Column, Columns, EventColumns};
use crate::consts::{
    JOURNAL_DICT_MIN_BYTES, JOURNAL_DICT_REUSE, JOURNAL_DICT_TRAIN_BYTES, WAL_FILE,
};
use crate::dctx::NearSlot;
use crate::error::{IoContext, StoreError};
use crate::layout::parse_name;
use crate::meta::BucketMeta;
use crate::query::{eval, TermQuery, TermSource};
use crate::wal;

/// One completed slice of a hot bucket.
#[derive(Clone)]
pub(crate) enum HotSlice {
    /// Held back uncompressed (one of the first slices, until the bucket's journal dictionary
    /// is trained on them).
    Raw(Arc<[u8]>),
    /// Its journal frame: compressed once, with the bucket's dictionary when it has one, and
    /// copied as is into `journal.zst` by the roll.
    Frame {
        /// Uncompressed length.
        ulen: u32,
        /// zstd frame.
        data: Arc<[u8]>,
    },
}

/// A hot bucket's trained journal dictionary.
pub(crate) struct HotDict {
    /// Its bytes (empty: training failed, frames use none), as `slices.dat` stores them.
    pub bytes: Vec<u8>,
    /// Digested for decompression.
    ddict: Option<crate::dctx::Dict>,
    /// Buckets before this one that used these bytes (0: trained on this bucket's slices).
    pub inherited: u32,
}

/// Completed slices, shared between the growing index and its snapshots.
///
/// The first slices, up to [`JOURNAL_DICT_TRAIN_BYTES`] (~8 MiB, the bucket's only
/// uncompressed slices besides the one being filled), are held back raw; once they are there
/// the journal dictionary is trained on them and they and every later slice are kept as their
/// journal frames (see `bucket::journal`). A bucket that rolls before that still has them raw,
/// and its roll trains on them as a warm write does.
#[derive(Default)]
pub(crate) struct SharedSlices {
    /// In slice order: all [`HotSlice::Raw`] before training, all [`HotSlice::Frame`] after.
    list: Vec<HotSlice>,
    /// Uncompressed bytes of the raw slices held back.
    held_bytes: usize,
    /// Bytes of every slice in `list` (raw or compressed).
    bytes: usize,
    /// Once trained: the dictionary and a compressor with it.
    trained: Option<(Arc<HotDict>, zstd::bulk::Compressor<'static>)>,
    /// The previous bucket's dictionary, taken instead of training one (see
    /// [`SharedSlices::starting_with`]).
    inherit: Option<Arc<HotDict>>,
}

impl SharedSlices {
    /// No slices yet. With the dictionary of the lane's previous bucket `prev`, when it has one
    /// that has not yet served [`JOURNAL_DICT_REUSE`] buckets after its own, the first slices
    /// are held back only until they reach [`JOURNAL_DICT_MIN_BYTES`] (a smaller bucket is
    /// written without a dictionary, as it would be with its own) and then compressed with it;
    /// otherwise they are held back to train one.
    pub fn starting_with(prev: Option<&HotDict>) -> SharedSlices {
        let inherit = prev
            .filter(|d| !d.bytes.is_empty() && d.inherited < JOURNAL_DICT_REUSE)
            .map(|d| {
                Arc::new(HotDict {
                    bytes: d.bytes.clone(),
                    ddict: crate::dctx::Dict::new(d.bytes.as_slice()),
                    inherited: d.inherited + 1,
                })
            });
        SharedSlices {
            inherit,
            ..SharedSlices::default()
        }
    }

    /// The completed slices, in order.
    pub fn list(&self) -> &[HotSlice] {
        &self.list
    }

    /// The trained dictionary; `None` while the first slices are held back raw.
    pub fn dict(&self) -> Option<&Arc<HotDict>> {
        self.trained.as_ref().map(|(d, _)| d)
    }

    /// Trains the dictionary on the held-back slices (or takes the inherited one) and replaces
    /// them by their frames.
    fn train(&mut self) -> Result<(), StoreError> {
        let raw: Vec<Arc<[u8]>> = self
            .list
            .iter()
            .filter_map(|s| match s {
                HotSlice::Raw(r) => Some(r.clone()),
                HotSlice::Frame { .. } => None,
            })
            .collect();
        let (dict, comp, frames) = match self.inherit.take() {
            Some(d) => {
                let (comp, frames) = compress_held(&d.bytes, &raw).map_err(hot_io)?;
                (d, comp, frames)
            }
            None => {
                let (bytes, comp, frames) = train_and_compress(&raw).map_err(hot_io)?;
                let ddict = crate::dctx::Dict::new(bytes.as_slice());
                let dict = HotDict {
                    bytes,
                    ddict,
                    inherited: 0,
                };
                (Arc::new(dict), comp, frames)
            }
        };
        // Every slice was held back raw: each becomes its frame.
        self.bytes = 0;
        for ((s, r), data) in self.list.iter_mut().zip(&raw).zip(frames) {
            self.bytes += data.len();
            *s = HotSlice::Frame {
                ulen: r.len() as u32,
                data: data.into(),
            };
        }
        self.trained = Some((dict, comp));
        self.held_bytes = 0;
        Ok(())
    }
}

fn hot_io(e: std::io::Error) -> StoreError {
    StoreError::Io {
        path: PathBuf::from("<hot slice>"),
        source: e,
    }
}

impl SliceSink for SharedSlices {
    fn put(&mut self, _n: u32, raw: &[u8]) -> Result<(), StoreError> {
        match &mut self.trained {
            Some((_, comp)) => {
                let data = comp.compress(raw).map_err(hot_io)?;
                self.bytes += data.len();
                self.list.push(HotSlice::Frame {
                    ulen: raw.len() as u32,
                    data: data.into(),
                });
            }
            None => {
                self.list.push(HotSlice::Raw(raw.into()));
                self.held_bytes += raw.len();
                self.bytes += raw.len();
                let goal = match self.inherit {
                    Some(_) => JOURNAL_DICT_MIN_BYTES,
                    None => JOURNAL_DICT_TRAIN_BYTES,
                };
                if self.held_bytes >= goal {
                    self.train()?;
                }
            }
        }
        Ok(())
    }
}

/// The growing in-memory index of one hot bucket: columns, postings, metadata and slices of
/// every event added, in WAL order.
pub(crate) struct HotIndex {
    /// Columns, postings and metadata.
    pub builder: Builder,
    /// Completed journal slices (the one being filled is the builder's).
    pub slices: SharedSlices,
}

impl HotIndex {
    fn new(id: u64, slices: SharedSlices) -> Self {
        HotIndex {
            builder: Builder::new(id),
            slices,
        }
    }

    /// Adds the next event.
    pub fn push(&mut self, e: &Event) -> Result<(), StoreError> {
        self.builder.push(e, &mut self.slices)
    }

    /// Adds the next events, in order (see [`Builder::push_all`]).
    pub fn push_all(&mut self, events: &[&Event]) -> Result<(), StoreError> {
        self.builder.push_all(events, &mut self.slices)
    }

    /// Bytes of memory held: the builder's, and the completed slices'.
    pub fn heap_bytes(&self) -> u64 {
        self.builder.heap_bytes() + self.slices.bytes as u64
    }
}

/// A hot index shared between its writer (or replayer) and the snapshots of searches. The lock
/// guards the index: written while events are added, read while a snapshot is taken, a query
/// evaluates postings or a roll writes the warm bucket.
pub(crate) type SharedIndex = Arc<RwLock<HotIndex>>;

/// Identity of a hot directory: `(device, inode, bucket id)`; robust to differently spelled
/// paths, and the id guards against a reused inode.
type DirKey = (u64, u64, u64);

type Registry = Mutex<HashMap<DirKey, Weak<RwLock<HotIndex>>>>;

/// Process-wide registry of the hot indexes index writers keep, by hot directory. Guards only
/// the map.
fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Identity of the hot directory `path`; `None` if it cannot be read or named.
fn dir_key(path: &Path) -> Option<DirKey> {
    let id = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_name)
        .map(|(_, id, _, _)| id)?;
    let md = std::fs::metadata(path).ok()?;
    Some((md.dev(), md.ino(), id))
}

/// The writer's index of one hot bucket, registered so that searches of this process read it
/// instead of replaying the WAL. Dropping it unregisters the index (snapshots keep theirs).
pub(crate) struct Registration {
    key: DirKey,
    index: SharedIndex,
    /// Heap bytes of the index last reported to [`crate::memory`] (withdrawn on drop).
    reported: u64,
}

impl Registration {
    /// Registers a new, empty index for hot directory `path` (which must exist) of bucket `id`,
    /// its journal starting with the dictionary of the lane's previous bucket `prev` (see
    /// [`SharedSlices::starting_with`]).
    pub fn new(path: &Path, id: u64, prev: Option<&HotDict>) -> Result<Registration, StoreError> {
        let md = std::fs::metadata(path).at(path)?;
        let key = (md.dev(), md.ino(), id);
        let slices = SharedSlices::starting_with(prev);
        let index = Arc::new(RwLock::new(HotIndex::new(id, slices)));
        let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|_, w| w.strong_count() > 0);
        map.insert(key, Arc::downgrade(&index));
        Ok(Registration {
            key,
            index,
            reported: 0,
        })
    }

    /// Reports the index's heap bytes to [`crate::memory`] (call after adding events).
    pub fn report(&mut self) {
        let bytes = self.read().heap_bytes();
        crate::memory::hot_changed(self.reported, bytes);
        self.reported = bytes;
    }

    /// Locks the index for adding events.
    pub fn write(&self) -> RwLockWriteGuard<'_, HotIndex> {
        self.index.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Locks the index for reading.
    pub fn read(&self) -> RwLockReadGuard<'_, HotIndex> {
        self.index.read().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        crate::memory::hot_changed(self.reported, 0);
        let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
        if map
            .get(&self.key)
            .is_some_and(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&self.index)))
        {
            map.remove(&self.key);
        }
    }
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// The registered writer index of hot directory `path`, if a writer of this process holds it.
fn registered(path: &Path) -> Option<SharedIndex> {
    let key = dir_key(path)?;
    let map = registry().lock().unwrap_or_else(|p| p.into_inner());
    map.get(&key).and_then(Weak::upgrade)
}

/// Replay state of one hot bucket read from its WAL.
struct Replay {
    /// `(device, inode)` of the WAL indexed; a different file means start over.
    file_id: (u64, u64),
    /// WAL bytes consumed (end of the last valid record).
    valid_len: u64,
    /// The index of those bytes.
    index: SharedIndex,
}

type Cache = Mutex<HashMap<PathBuf, Arc<Mutex<Replay>>>>;

/// Process-wide cache of WAL-replayed hot indexes, by bucket directory. Guards only the map;
/// each entry's mutex serialises catching up with its WAL.
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The columns of a snapshot: frozen chunks shared with the index, a copy of the open chunk.
struct HotColumns {
    /// Frozen chunks of [`CHUNK_EVENTS`] events.
    chunks: Vec<Arc<Columns>>,
    /// The open chunk as of the snapshot.
    open: Columns,
    /// Host, source and sourcetype names by id.
    names: [Vec<String>; 3],
    /// Number of events.
    n: usize,
}

impl HotColumns {
    fn of(b: &Builder) -> HotColumns {
        HotColumns {
            chunks: b.chunks.clone(),
            open: b.open.clone(),
            names: b.names.clone(),
            n: b.len(),
        }
    }

    /// The column `field` picks from every chunk.
    fn column<T: Copy>(&self, field: fn(&Columns) -> &[T]) -> Column<'_, T> {
        Column::chunked(&self.chunks, &self.open, field)
    }

    fn locate_checked(&self, n: u32, id: u64) -> Result<(&Columns, usize), StoreError> {
        if n as usize >= self.n {
            return Err(StoreError::Limit(format!(
                "event number {n} beyond the {} events of bucket {id}",
                self.n
            )));
        }
        Ok(self.at(n as usize))
    }

    fn at(&self, n: usize) -> (&Columns, usize) {
        let (c, i) = (n / CHUNK_EVENTS, n % CHUNK_EVENTS);
        match self.chunks.get(c) {
            Some(chunk) => (chunk, i),
            None => (&self.open, i),
        }
    }
}

impl EventColumns for HotColumns {
    fn event_count(&self) -> usize {
        self.n
    }
    fn locate(&self, n: usize) -> Result<(&Columns, usize), StoreError> {
        Ok(self.at(n))
    }
    fn dicts(&self) -> [&[String]; 3] {
        [&self.names[0], &self.names[1], &self.names[2]]
    }
}

/// A snapshot of a hot bucket, indexed in memory.
pub struct HotBucket {
    path: PathBuf,
    meta: BucketMeta,
    cols: HotColumns,
    /// Completed slices.
    slices: Vec<HotSlice>,
    /// The dictionary of their frames, once trained.
    dict: Option<Arc<HotDict>>,
    /// The slice being filled, uncompressed.
    current: Arc<[u8]>,
    /// The shared, growing index; only postings below `meta.event_count` belong to this snapshot.
    index: SharedIndex,
}

impl HotBucket {
    /// A snapshot of the hot bucket directory `path`: from the index of a writer of this process
    /// if one holds the bucket, else by replaying its WAL (incrementally when this process read
    /// it before). A missing WAL is an `Io` error of kind `NotFound` (the bucket rolled).
    pub fn open(path: &Path) -> Result<HotBucket, StoreError> {
        match HotBucket::open_registered(path) {
            Some(b) => Ok(b),
            None => HotBucket::replay(path),
        }
    }

    /// A snapshot of the hot bucket directory `path` if an index writer of this process holds
    /// it (no disk read); `None` otherwise.
    pub(crate) fn open_registered(path: &Path) -> Option<HotBucket> {
        registered(path).map(|index| HotBucket::snapshot(path, index))
    }

    /// Takes a snapshot of `index` (under its read lock, briefly).
    fn snapshot(path: &Path, index: SharedIndex) -> HotBucket {
        let ix = index.read().unwrap_or_else(|p| p.into_inner());
        let meta = ix.builder.snapshot_meta();
        let cols = HotColumns::of(&ix.builder);
        let slices = ix.slices.list.clone();
        let dict = ix.slices.dict().cloned();
        let current: Arc<[u8]> = ix.builder.current_slice().into();
        drop(ix);
        HotBucket {
            path: path.to_path_buf(),
            meta,
            cols,
            slices,
            dict,
            current,
            index,
        }
    }

    /// The WAL-replay path: catch up with the records appended since this process last read the
    /// WAL, then take a snapshot.
    pub(crate) fn replay(path: &Path) -> Result<HotBucket, StoreError> {
        let wal_path = path.join(WAL_FILE);
        let md = std::fs::metadata(&wal_path);
        let entry = {
            let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
            // Forget buckets that rolled away.
            map.retain(|p, _| p.join(WAL_FILE).exists());
            if md.is_err() {
                map.remove(path);
            }
            let md = md
                .as_ref()
                .map_err(|e| StoreError::io(&wal_path, e.kind().into()))?;
            let id = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(parse_name)
                .map(|(_, id, _, _)| id)
                .unwrap_or(0);
            map.entry(path.to_path_buf())
                .or_insert_with(|| {
                    Arc::new(Mutex::new(Replay {
                        file_id: (md.dev(), md.ino()),
                        valid_len: 0,
                        index: Arc::new(RwLock::new(HotIndex::new(id, SharedSlices::default()))),
                    }))
                })
                .clone()
        };
        let md = md.at(&wal_path)?;
        let mut r = entry.lock().unwrap_or_else(|p| p.into_inner());
        let file_id = (md.dev(), md.ino());
        let fresh = |r: &mut Replay| {
            // Snapshots taken so far keep the old index.
            let id = r
                .index
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .builder
                .meta
                .id;
            r.file_id = file_id;
            r.valid_len = 0;
            r.index = Arc::new(RwLock::new(HotIndex::new(id, SharedSlices::default())));
        };
        if r.file_id != file_id || md.len() < r.valid_len {
            // Replaced or truncated (recovery): index from scratch.
            fresh(&mut r);
        }
        let scan = {
            let mut ix = r.index.write().unwrap_or_else(|p| p.into_inner());
            wal::for_each_event_from(&wal_path, r.valid_len, |e| ix.push(e))
        };
        match scan {
            Ok(s) => r.valid_len = s.valid_len,
            Err(e) => {
                // The index may hold part of a record: do not keep it.
                fresh(&mut r);
                return Err(e);
            }
        }
        let index = r.index.clone();
        drop(r);
        Ok(HotBucket::snapshot(path, index))
    }

    /// Number of events of this snapshot.
    fn n(&self) -> u32 {
        self.cols.n as u32
    }

    fn bitmap(&self, list: impl Iterator<Item = u32>) -> RoaringBitmap {
        let n = self.n();
        crate::postings::bitmap_of_sorted(list.take_while(|&x| x < n))
    }
}

impl TermSource for HotBucket {
    fn event_count(&self) -> u32 {
        self.n()
    }

    fn postings(&self, term: &[u8]) -> Result<Arc<RoaringBitmap>, StoreError> {
        let ix = self.index.read().unwrap_or_else(|p| p.into_inner());
        Ok(Arc::new(
            ix.builder
                .terms
                .get(term)
                .map(|l| self.bitmap(l))
                .unwrap_or_default(),
        ))
    }

    fn union_prefixed(
        &self,
        prefix: &[u8],
        accept: &mut dyn FnMut(&[u8]) -> bool,
        out: &mut RoaringBitmap,
    ) -> Result<(), StoreError> {
        let ix = self.index.read().unwrap_or_else(|p| p.into_inner());
        // The in-memory lexicon is a hash map: walk every term (a few ms per million terms).
        ix.builder.terms.for_each_term(|t, list| {
            if t.starts_with(prefix) && accept(t) {
                *out |= self.bitmap(list);
            }
        });
        Ok(())
    }
}

/// Per-call decompression state of a hot bucket's `read_events`.
pub(crate) struct HotScratch<'a> {
    /// The slice decompressed last, and whether it is in `near` (else in `out`).
    loaded: Option<(u32, bool)>,
    out: Vec<u8>,
    near: NearSlot<'a>,
}

impl SliceSource for HotBucket {
    type Scratch<'a> = HotScratch<'a>;

    fn slice<'s>(&'s self, n: u32, s: &'s mut Self::Scratch<'_>) -> Result<&'s [u8], StoreError> {
        let i = n as usize;
        if i == self.slices.len() {
            return Ok(&self.current);
        }
        let hs = self
            .slices
            .get(i)
            .ok_or_else(|| StoreError::corrupt(&self.path, format!("no slice {n}")))?;
        let (ulen, data) = match hs {
            HotSlice::Raw(raw) => return Ok(raw),
            HotSlice::Frame { ulen, data } => (*ulen, data),
        };
        let len = ulen as usize;
        match s.loaded {
            Some((m, true)) if m == n => return Ok(s.near.output(len)),
            Some((m, false)) if m == n => return Ok(&s.out),
            _ => {}
        }
        s.loaded = None;
        let bad = |r: String| StoreError::corrupt(&self.path, format!("hot slice {n}: {r}"));
        let ddict = self.dict.as_ref().and_then(|d| d.ddict.as_ref());
        if let Some(near) = ddict.and_then(|d| s.near.for_frame(d, len)) {
            let got = near.decompress(data, len).map_err(bad)?;
            s.loaded = Some((n, true));
            return Ok(got);
        }
        crate::dctx::decompress(data, ddict, len, &mut s.out).map_err(bad)?;
        s.loaded = Some((n, false));
        Ok(&s.out)
    }
}

impl BucketRead for HotBucket {
    fn meta(&self) -> &BucketMeta {
        &self.meta
    }
    fn may_contain(&self, term: &[u8]) -> bool {
        let ix = self.index.read().unwrap_or_else(|p| p.into_inner());
        ix.builder
            .terms
            .get(&term.to_ascii_lowercase())
            .is_some_and(|l| l.first().is_some_and(|x| x < self.n()))
    }
    fn eval(&self, q: &TermQuery) -> Result<RoaringBitmap, StoreError> {
        eval(self, q)
    }
    fn times(&self) -> Column<'_, i64> {
        self.cols.column(|c| &c.times)
    }
    fn time(&self, n: u32) -> Result<i64, StoreError> {
        let (c, i) = self.cols.locate_checked(n, self.meta.id)?;
        Ok(c.times[i])
    }
    fn indexed(&self, n: u32) -> Result<IndexedFields, StoreError> {
        let (c, i) = self.cols.locate_checked(n, self.meta.id)?;
        Ok(IndexedFields {
            time: c.times[i],
            host: c.host[i],
            source: c.source[i],
            sourcetype: c.sourcetype[i],
        })
    }
    fn index_fields(&self, n: u32, out: &mut Vec<(String, String)>) -> Result<(), StoreError> {
        let (c, i) = self.cols.locate_checked(n, self.meta.id)?;
        c.fields_into(i, out)
            .map_err(|r| StoreError::corrupt(&self.path, format!("fields of event {n}: {r}")))
    }
    fn host_ids(&self) -> Column<'_, u32> {
        self.cols.column(|c| &c.host)
    }
    fn host_names(&self) -> &[String] {
        &self.cols.names[0]
    }
    fn source_ids(&self) -> Column<'_, u32> {
        self.cols.column(|c| &c.source)
    }
    fn source_names(&self) -> &[String] {
        &self.cols.names[1]
    }
    fn sourcetype_ids(&self) -> Column<'_, u32> {
        self.cols.column(|c| &c.sourcetype)
    }
    fn sourcetype_names(&self) -> &[String] {
        &self.cols.names[2]
    }
    fn read_events(
        &self,
        ids: &mut dyn Iterator<Item = u32>,
        f: &mut dyn FnMut(EventView<'_>) -> bool,
    ) -> Result<(), StoreError> {
        read_events_with(
            &self.path,
            &self.cols,
            self,
            &mut HotScratch {
                loaded: None,
                out: Vec::new(),
                near: NearSlot::new(&mut Vec::new()),
            },
            ids,
            f,
        )
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::FileExt;

    use super::*;
    use crate::bucket::journal::JournalSink;
    use crate::bucket::warm::WarmBucket;
    use crate::consts::{magic, JOURNAL_FILE};

    /// Log-like events varied enough for the dictionary to train.
    fn event(i: u64) -> Event {
        let raw = format!(
            "2024-01-01T00:{:02}:{:02} host=web{} user=u{} GET /api/v{}/items?id={} status={} \
             took={}ms {}",
            i / 60 % 60,
            i % 60,
            i % 4,
            i * 7 % 113,
            i % 3,
            i * 31 % 1000,
            [200, 200, 404, 500][i as usize % 4],
            i * 13 % 997,
            if i.is_multiple_of(11) { "rare" } else { "ok" }
        );
        Event {
            time: 1_700_000_000_000_000 + i as i64,
            index_time: 1_700_000_100,
            linecount: 1,
            raw,
            host: format!("web{}", i % 4).into(),
            source: "/var/log/app.log".into(),
            sourcetype: "app".into(),
            index: "main".into(),
            ..Default::default()
        }
    }

    /// The raw text of every event of a snapshot of `index`, and the events having `rare`.
    fn search(path: &Path, index: &SharedIndex) -> (Vec<String>, Vec<u32>) {
        let b = HotBucket::snapshot(path, index.clone());
        let mut raws = Vec::new();
        b.read_events(&mut (0..b.n()), &mut |v| {
            raws.push(v.raw.to_string());
            true
        })
        .unwrap();
        let rare = b.eval(&TermQuery::Term(b"rare".to_vec())).unwrap();
        (raws, rare.iter().collect())
    }

    fn expected(n: u64) -> (Vec<String>, Vec<u32>) {
        let raws = (0..n).map(|i| event(i).raw).collect();
        let rare = (0..n as u32).filter(|i| i % 11 == 0).collect();
        (raws, rare)
    }

    /// A bucket takes its lane's previous dictionary (its slices held back raw only up to
    /// `JOURNAL_DICT_MIN_BYTES`) for `JOURNAL_DICT_REUSE` buckets after the one that trained
    /// it, then trains its own again; a dictionary whose training failed is not passed on.
    #[test]
    fn a_bucket_starts_with_the_previous_dictionary_for_a_while() {
        let slice = |k: u64| -> Vec<u8> {
            let lines = (k * 150..k * 150 + 150).map(|i| event(i).raw + "\n");
            lines.collect::<String>().into_bytes()
        };
        // Over the 1 MiB a dictionary is trained from.
        let held: Vec<Vec<u8>> = (0..128).map(slice).collect();
        let (bytes, _, _) = train_and_compress(&held).unwrap();
        assert!(!bytes.is_empty(), "training failed");
        let mut prev = Arc::new(HotDict {
            ddict: crate::dctx::Dict::new(bytes.as_slice()),
            bytes: bytes.clone(),
            inherited: 0,
        });
        for generation in 1..=JOURNAL_DICT_REUSE {
            let mut slices = SharedSlices::starting_with(Some(&prev));
            // Held back raw until the bytes a dictionary pays for, then all frames made with
            // the previous bucket's dictionary.
            let mut k = 0;
            while slices.dict().is_none() {
                assert!(slices.held_bytes < JOURNAL_DICT_MIN_BYTES);
                slices.put(k as u32, &slice(k)).unwrap();
                k += 1;
            }
            let d = slices.dict().unwrap().clone();
            assert_eq!((&d.bytes, d.inherited), (&bytes, generation));
            slices.put(k as u32, &slice(k)).unwrap();
            for (k, s) in slices.list().iter().enumerate() {
                let HotSlice::Frame { ulen, data } = s else {
                    panic!("slice {k} left raw");
                };
                let mut out = Vec::new();
                crate::dctx::decompress(data, d.ddict.as_ref(), *ulen as usize, &mut out).unwrap();
                assert_eq!(out, slice(k as u64));
            }
            prev = d;
        }
        // It served its buckets: the next one holds its first slices back to train its own.
        let mut slices = SharedSlices::starting_with(Some(&prev));
        for k in 0..(JOURNAL_DICT_MIN_BYTES / held[0].len()) as u64 + 1 {
            slices.put(k as u32, &slice(k)).unwrap();
        }
        assert!(slices.dict().is_none());
        let failed = HotDict {
            bytes: Vec::new(),
            ddict: None,
            inherited: 0,
        };
        assert!(SharedSlices::starting_with(Some(&failed)).inherit.is_none());
        assert!(SharedSlices::starting_with(None).inherit.is_none());
    }

    /// Held-back slices are searched raw; once the dictionary is trained every slice is a frame
    /// searched with it; the roll copies those frames into the journal byte for byte, with the
    /// same dictionary.
    #[test]
    fn slices_are_compressed_once_and_searchable_throughout() {
        let dir = tempfile::tempdir().unwrap();
        let hot_path = dir.path().join("hot_v1_7");
        let index: SharedIndex = Arc::new(RwLock::new(HotIndex::new(7, SharedSlices::default())));
        let mut n = 0u64;
        let push_until = |n: &mut u64, done: &dyn Fn(&HotIndex) -> bool| {
            let mut ix = index.write().unwrap();
            while !done(&ix) {
                ix.push(&event(*n)).unwrap();
                *n += 1;
            }
        };

        // Before training: raw slices, searchable.
        push_until(&mut n, &|ix| ix.slices.list().len() >= 3);
        {
            let ix = index.read().unwrap();
            assert!(ix.slices.dict().is_none());
            assert!(ix
                .slices
                .list()
                .iter()
                .all(|s| matches!(s, HotSlice::Raw(_))));
        }
        assert_eq!(search(&hot_path, &index), expected(n));

        // Trained, then a few slices more: every slice is a frame, searchable.
        push_until(&mut n, &|ix| ix.slices.dict().is_some());
        let trained_at = index.read().unwrap().slices.list().len();
        push_until(&mut n, &|ix| ix.slices.list().len() >= trained_at + 3);
        {
            let ix = index.read().unwrap();
            let d = ix.slices.dict().unwrap();
            assert!(!d.bytes.is_empty(), "training failed");
            assert!(ix
                .slices
                .list()
                .iter()
                .all(|s| matches!(s, HotSlice::Frame { .. })));
            let lens: Vec<usize> = ix.slices.list()[..trained_at]
                .iter()
                .map(|s| match s {
                    HotSlice::Frame { ulen, .. } => *ulen as usize,
                    HotSlice::Raw(_) => unreachable!(),
                })
                .collect();
            // Trained on the slices a warm write holds back: the first ones reaching the
            // training bytes.
            let held: usize = lens.iter().sum();
            assert!(held >= JOURNAL_DICT_TRAIN_BYTES);
            assert!(held - lens[trained_at - 1] < JOURNAL_DICT_TRAIN_BYTES);
        }
        assert_eq!(search(&hot_path, &index), expected(n));

        // Roll: the journal's frames are the hot frames, then the last slice.
        let warm = dir.path().join("tmp_7");
        std::fs::create_dir(&warm).unwrap();
        let ix = index.read().unwrap();
        crate::bucket::write::write_builder(&warm, &ix.builder, &ix.slices).unwrap();
        let b = WarmBucket::open(&warm).unwrap();
        let hot = ix.slices.list();
        let table = b.journal_table().unwrap();
        assert_eq!(table.slices.len(), hot.len() + 1);
        for (e, s) in table.slices.iter().zip(hot) {
            let HotSlice::Frame { ulen, data } = s else {
                unreachable!()
            };
            let mut got = vec![0; e.clen as usize];
            b.journal_file().read_exact_at(&mut got, e.offset).unwrap();
            assert_eq!((e.ulen, &got[..]), (*ulen, &data[..]));
        }
        assert_eq!(
            table.dicts.dicts,
            vec![ix.slices.dict().unwrap().bytes.clone()]
        );
        let mut raws = Vec::new();
        b.read_events(&mut (0..n as u32), &mut |v| {
            raws.push(v.raw.to_string());
            true
        })
        .unwrap();
        assert_eq!(raws, expected(n).0);

        // The journal a warm write from the same events makes (recovery from the WAL) is the
        // same file: same dictionary, trained on the same slices, and the same frames.
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let path = other.join(JOURNAL_FILE);
        let mut sink = JournalSink::with_dictionary(&path, magic::JOURNAL).unwrap();
        let mut builder = Builder::new(7);
        for i in 0..n {
            builder.push(&event(i), &mut sink).unwrap();
        }
        builder.finish_slices(&mut sink).unwrap();
        let (_, slices, dict) = sink.finish().unwrap();
        assert_eq!(slices, table.slices);
        assert_eq!(dict, ix.slices.dict().unwrap().bytes);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(warm.join(JOURNAL_FILE)).unwrap()
        );
    }

    /// A bucket rolled while its slices are held back raw is written as from its WAL: trained
    /// at the roll when it has enough bytes, without a dictionary otherwise.
    #[test]
    fn a_bucket_rolled_before_training_is_written_whole() {
        for events in [500, 20_000] {
            let dir = tempfile::tempdir().unwrap();
            let mut ix = HotIndex::new(3, SharedSlices::default());
            for i in 0..events {
                ix.push(&event(i)).unwrap();
            }
            assert!(ix.slices.dict().is_none());
            let warm = dir.path().join("tmp_3");
            std::fs::create_dir(&warm).unwrap();
            crate::bucket::write::write_builder(&warm, &ix.builder, &ix.slices).unwrap();
            let b = WarmBucket::open(&warm).unwrap();
            let dict = b.journal_dict_len();
            assert_eq!(
                dict > 0,
                ix.builder.meta.raw_bytes as usize >= crate::consts::JOURNAL_DICT_MIN_BYTES
            );
            let mut raws = Vec::new();
            b.read_events(&mut (0..events as u32), &mut |v| {
                raws.push(v.raw.to_string());
                true
            })
            .unwrap();
            assert_eq!(raws, expected(events).0);
        }
    }
}
