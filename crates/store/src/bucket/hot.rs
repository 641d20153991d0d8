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
use crate::bucket::{read_events_with, BucketRead, EventView, IndexedFields, SliceSource};
use crate::columns::{Columns, EventColumns};
use crate::consts::WAL_FILE;
use crate::error::{IoContext, StoreError};
use crate::layout::parse_name;
use crate::meta::BucketMeta;
use crate::query::{eval, TermQuery, TermSource};
use crate::wal;

/// zstd level of the in-memory copies of completed hot slices: the fastest, since the roll
/// recompresses them for the journal (with its dictionary) anyway.
const HOT_SLICE_LEVEL: i32 = 1;

/// One completed slice, compressed (an uncompressed 128 MB hot bucket would be held in memory
/// twice over while the next one fills during its roll).
#[derive(Clone)]
pub(crate) struct HotSlice {
    /// Uncompressed length.
    pub ulen: u32,
    /// zstd frame.
    pub data: Arc<[u8]>,
}

impl HotSlice {
    /// The uncompressed bytes, into `out`.
    pub fn decompress_into(&self, out: &mut Vec<u8>) -> std::io::Result<()> {
        let n = crate::dctx::decompress(&self.data, None, self.ulen as usize, out)
            .map_err(std::io::Error::other)?;
        debug_assert_eq!(n, self.ulen as usize);
        Ok(())
    }
}

thread_local! {
    /// A compressor per writing thread (a context allocates its tables once).
    static HOT_COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Completed slices, shared between the growing index and its snapshots.
#[derive(Default)]
pub(crate) struct SharedSlices(pub Vec<HotSlice>);

impl SliceSink for SharedSlices {
    fn put(&mut self, _n: u32, raw: &[u8]) -> Result<(), StoreError> {
        let data = HOT_COMPRESSOR.with(|c| -> std::io::Result<Vec<u8>> {
            let mut c = c.borrow_mut();
            if c.is_none() {
                *c = Some(zstd::bulk::Compressor::new(HOT_SLICE_LEVEL)?);
            }
            c.as_mut().expect("set above").compress(raw)
        });
        let data = data.map_err(|e| StoreError::Io {
            path: std::path::PathBuf::from("<hot slice>"),
            source: e,
        })?;
        self.0.push(HotSlice {
            ulen: raw.len() as u32,
            data: data.into(),
        });
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
    fn new(id: u64) -> Self {
        HotIndex {
            builder: Builder::new(id),
            slices: SharedSlices::default(),
        }
    }

    /// Adds the next event.
    pub fn push(&mut self, e: &Event) -> Result<(), StoreError> {
        self.builder.push(e, &mut self.slices)
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
}

impl Registration {
    /// Registers a new, empty index for hot directory `path` (which must exist) of bucket `id`.
    pub fn new(path: &Path, id: u64) -> Result<Registration, StoreError> {
        let md = std::fs::metadata(path).at(path)?;
        let key = (md.dev(), md.ino(), id);
        let index = Arc::new(RwLock::new(HotIndex::new(id)));
        let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|_, w| w.strong_count() > 0);
        map.insert(key, Arc::downgrade(&index));
        Ok(Registration { key, index })
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
    /// `_time` and the host/source/sourcetype ids joined into contiguous columns, built on the
    /// first call of an accessor that returns a whole column.
    flat: OnceLock<Columns>,
}

impl HotColumns {
    fn of(b: &Builder) -> HotColumns {
        HotColumns {
            chunks: b.chunks.clone(),
            open: b.open.clone(),
            names: b.names.clone(),
            n: b.len(),
            flat: OnceLock::new(),
        }
    }

    fn chunk_iter(&self) -> impl Iterator<Item = &Columns> {
        self.chunks
            .iter()
            .map(|c| &**c)
            .chain(std::iter::once(&self.open))
    }

    fn flat(&self) -> &Columns {
        self.flat.get_or_init(|| {
            let mut f = Columns::new();
            f.times.reserve_exact(self.n);
            f.host.reserve_exact(self.n);
            f.source.reserve_exact(self.n);
            f.sourcetype.reserve_exact(self.n);
            for c in self.chunk_iter() {
                f.times.extend_from_slice(&c.times);
                f.host.extend_from_slice(&c.host);
                f.source.extend_from_slice(&c.source);
                f.sourcetype.extend_from_slice(&c.sourcetype);
            }
            f
        })
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
    /// Completed slices (compressed).
    slices: Vec<HotSlice>,
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
        match registered(path) {
            Some(index) => Ok(HotBucket::snapshot(path, index)),
            None => HotBucket::replay(path),
        }
    }

    /// Takes a snapshot of `index` (under its read lock, briefly).
    fn snapshot(path: &Path, index: SharedIndex) -> HotBucket {
        let ix = index.read().unwrap_or_else(|p| p.into_inner());
        let meta = ix.builder.meta();
        let cols = HotColumns::of(&ix.builder);
        let slices = ix.slices.0.clone();
        let current: Arc<[u8]> = ix.builder.current_slice().into();
        drop(ix);
        HotBucket {
            path: path.to_path_buf(),
            meta,
            cols,
            slices,
            current,
            index,
        }
    }

    /// The WAL-replay path: catch up with the records appended since this process last read the
    /// WAL, then take a snapshot.
    fn replay(path: &Path) -> Result<HotBucket, StoreError> {
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
                        index: Arc::new(RwLock::new(HotIndex::new(id))),
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
            r.index = Arc::new(RwLock::new(HotIndex::new(id)));
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
        RoaringBitmap::from_sorted_iter(list.take_while(|&x| x < n)).unwrap_or_default()
    }
}

impl TermSource for HotBucket {
    fn event_count(&self) -> u32 {
        self.n()
    }

    fn postings(&self, term: &[u8]) -> Result<RoaringBitmap, StoreError> {
        let ix = self.index.read().unwrap_or_else(|p| p.into_inner());
        Ok(ix
            .builder
            .terms
            .get(term)
            .map(|l| self.bitmap(l))
            .unwrap_or_default())
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

impl SliceSource for HotBucket {
    /// The slice decompressed last, and its number.
    type Scratch = (Option<u32>, Vec<u8>);

    fn scratch(&self) -> Result<Self::Scratch, StoreError> {
        Ok((None, Vec::new()))
    }

    fn slice<'s>(&'s self, n: u32, s: &'s mut Self::Scratch) -> Result<&'s [u8], StoreError> {
        let i = n as usize;
        if i == self.slices.len() {
            return Ok(&self.current);
        }
        let hs = self
            .slices
            .get(i)
            .ok_or_else(|| StoreError::corrupt(&self.path, format!("no slice {n}")))?;
        if s.0 != Some(n) {
            s.0 = None;
            hs.decompress_into(&mut s.1)
                .map_err(|e| StoreError::corrupt(&self.path, format!("hot slice {n}: {e}")))?;
            s.0 = Some(n);
        }
        Ok(&s.1)
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
    fn times(&self) -> &[i64] {
        &self.cols.flat().times
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
    fn host_ids(&self) -> &[u32] {
        &self.cols.flat().host
    }
    fn host_names(&self) -> &[String] {
        &self.cols.names[0]
    }
    fn source_ids(&self) -> &[u32] {
        &self.cols.flat().source
    }
    fn source_names(&self) -> &[String] {
        &self.cols.names[1]
    }
    fn sourcetype_ids(&self) -> &[u32] {
        &self.cols.flat().sourcetype
    }
    fn sourcetype_names(&self) -> &[String] {
        &self.cols.names[2]
    }
    fn read_events(
        &self,
        ids: &mut dyn Iterator<Item = u32>,
        f: &mut dyn FnMut(EventView<'_>) -> bool,
    ) -> Result<(), StoreError> {
        read_events_with(&self.path, &self.cols, self, ids, f)
    }
}
