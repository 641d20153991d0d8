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
//!
//! Once a roll has published a writer's bucket, snapshots taken before it may still be reading
//! (a sparse `stats` for up to a second); the roll hands their term queries over to the warm
//! copy, whose events are numbered alike, and lets the term index go at once
//! ([`Registration::hand_over`]) rather than when the last of them ends.

use std::collections::HashMap;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

use lode_event::Event;
use roaring::RoaringBitmap;

use crate::bucket::build::{Builder, SliceSink, CHUNK_EVENTS};
use crate::bucket::journal::{compress_held, train_and_compress};
use crate::bucket::warm::WarmBucket;
use crate::bucket::{read_events_with, BucketRead, EventView, IndexedFields, SliceSource};
use crate::columns::{Column, Columns, EventColumns};
use crate::consts::{
    HOT_FRAMES_FILE, JOURNAL_DICT_MIN_BYTES, JOURNAL_DICT_REUSE, JOURNAL_DICT_TRAIN_BYTES, WAL_FILE,
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
    /// copied as is into `journal.zst` by the roll. Held in memory where the bucket has no
    /// frames file (a WAL replay) or writing to it failed.
    Frame {
        /// Uncompressed length.
        ulen: u32,
        /// zstd frame.
        data: Arc<[u8]>,
    },
    /// Its journal frame, in the bucket's frames file ([`HOT_FRAMES_FILE`]).
    Stored {
        /// Uncompressed length.
        ulen: u32,
        /// Compressed length.
        clen: u32,
        /// Where it starts in the file.
        at: u64,
    },
}

/// A hot bucket's journal frames, appended to [`HOT_FRAMES_FILE`] in its directory as they are
/// compressed so that they are not held in memory (a full 128 MB bucket's are ~15 MB, and at a
/// roll both the rolling bucket's and the next one's are there). Only the writer's index has
/// one; the file is not durable and not needed for recovery (the WAL is), and it goes with the
/// hot directory.
pub(crate) struct FramesFile {
    file: Arc<std::fs::File>,
    /// Bytes written.
    len: u64,
    /// A write failed: later frames stay in memory (those written stay readable).
    failed: bool,
}

impl FramesFile {
    /// Creates the frames file of hot directory `dir`, a new one: a file left there (by an
    /// earlier writer of the bucket, whose snapshots may still read it) is unlinked, not
    /// overwritten.
    fn create(dir: &Path) -> std::io::Result<FramesFile> {
        let path = dir.join(HOT_FRAMES_FILE);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)?;
        Ok(FramesFile {
            file: Arc::new(file),
            len: 0,
            failed: false,
        })
    }

    /// Appends `frame`; returns where it starts.
    fn append(&mut self, frame: &[u8]) -> std::io::Result<u64> {
        let at = self.len;
        self.file.write_all_at(frame, at)?;
        self.len += frame.len() as u64;
        Ok(at)
    }
}

/// The bytes of a completed hot slice as [`read_slice`] gives them.
pub(crate) enum SliceBytes<'b> {
    /// Held back uncompressed.
    Raw(&'b [u8]),
    /// Its journal frame, and its uncompressed length.
    Frame(u32, &'b [u8]),
}

/// The bytes of `slice`: in memory, or read from the frames `file` into `buf` (resized to them).
pub(crate) fn read_slice<'b>(
    slice: &'b HotSlice,
    file: Option<&std::fs::File>,
    buf: &'b mut Vec<u8>,
) -> std::io::Result<SliceBytes<'b>> {
    match slice {
        HotSlice::Raw(raw) => Ok(SliceBytes::Raw(raw)),
        HotSlice::Frame { ulen, data } => Ok(SliceBytes::Frame(*ulen, data)),
        HotSlice::Stored { ulen, clen, at } => {
            let file = file.ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotFound, "no hot frames file")
            })?;
            buf.resize(*clen as usize, 0);
            file.read_exact_at(buf, *at)?;
            Ok(SliceBytes::Frame(*ulen, buf))
        }
    }
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
    /// Bytes of memory of the slices in `list` (raw, or frames not in the file).
    bytes: usize,
    /// Where frames go, when the index has a file for them.
    file: Option<FramesFile>,
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

    /// The frames file, when frames are kept there.
    pub fn file(&self) -> Option<&Arc<std::fs::File>> {
        self.file.as_ref().map(|f| &f.file)
    }

    /// Keeps the frames of this bucket in a file of hot directory `dir` from now on. Where the
    /// file cannot be created they stay in memory.
    fn keep_frames_in(&mut self, dir: &Path) {
        match FramesFile::create(dir) {
            Ok(f) => self.file = Some(f),
            Err(e) => tracing::warn!(
                dir = %dir.display(),
                error = %e,
                "cannot create the hot frames file; keeping journal frames in memory"
            ),
        }
    }

    /// The slice entry of a frame of `ulen` uncompressed bytes: written to the file if there is
    /// one, else (or if writing fails, after which frames stay in memory) held.
    fn frame(&mut self, ulen: u32, data: Vec<u8>) -> HotSlice {
        if let Some(f) = self.file.as_mut().filter(|f| !f.failed) {
            match f.append(&data) {
                Ok(at) => {
                    return HotSlice::Stored {
                        ulen,
                        clen: data.len() as u32,
                        at,
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot write the hot frames file; keeping journal frames in memory");
                    f.failed = true;
                }
            }
        }
        self.bytes += data.len();
        HotSlice::Frame {
            ulen,
            data: data.into(),
        }
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
                HotSlice::Frame { .. } | HotSlice::Stored { .. } => None,
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
        for (i, (r, data)) in raw.iter().zip(frames).enumerate() {
            self.list[i] = self.frame(r.len() as u32, data);
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
                let slice = self.frame(raw.len() as u32, data);
                self.list.push(slice);
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
    /// The published warm copy of a rolled bucket, which answers the term queries of older
    /// snapshots once the builder's term index is gone ([`Registration::hand_over`]).
    rolled: Option<WarmBucket>,
}

impl HotIndex {
    fn new(id: u64, slices: SharedSlices) -> Self {
        HotIndex {
            builder: Builder::new(id),
            slices,
            rolled: None,
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
        let mut slices = SharedSlices::starting_with(prev);
        slices.keep_frames_in(path);
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

    /// After a roll published this bucket as the warm bucket `warm` (same events, same
    /// numbers): when searches hold snapshots of it, their term queries go to `warm` from now
    /// on, and the term index (most of a full bucket's memory) is dropped here instead of when
    /// the last snapshot ends. When `warm` cannot be opened the snapshots keep the term index.
    pub fn hand_over(&self, warm: &Path) {
        if Arc::strong_count(&self.index) == 1 {
            // No snapshot: the whole index goes with the registration.
            return;
        }
        // Its lexicon read now, so that the reader holds every file it reads postings from
        // (a merge may delete the directory later).
        let opened = WarmBucket::open(warm).and_then(|w| {
            w.lexicon()?;
            Ok(w)
        });
        let warm = match opened {
            Ok(w) => w,
            Err(e) => {
                let warm = warm.display();
                tracing::debug!(%warm, error = %e, "snapshots of a rolled bucket keep its terms");
                return;
            }
        };
        let terms = {
            let mut ix = self.write();
            ix.rolled = Some(warm);
            std::mem::take(&mut ix.builder.terms)
        };
        drop(terms);
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
    /// The file their [`HotSlice::Stored`] frames are in.
    frames: Option<Arc<std::fs::File>>,
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
        let frames = ix.slices.file().cloned();
        let dict = ix.slices.dict().cloned();
        let current: Arc<[u8]> = ix.builder.current_slice().into();
        drop(ix);
        HotBucket {
            path: path.to_path_buf(),
            meta,
            cols,
            slices,
            frames,
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

    /// `b` (postings of the warm copy, which holds every event of the bucket) without the
    /// events added after this snapshot.
    fn cut(&self, b: Arc<RoaringBitmap>) -> Arc<RoaringBitmap> {
        let n = self.n();
        if b.max().is_none_or(|m| m < n) {
            return b;
        }
        let mut b = Arc::unwrap_or_clone(b);
        b.remove_range(n..);
        Arc::new(b)
    }
}

impl TermSource for HotBucket {
    fn event_count(&self) -> u32 {
        self.n()
    }

    fn postings(&self, term: &[u8]) -> Result<Arc<RoaringBitmap>, StoreError> {
        let ix = self.index.read().unwrap_or_else(|p| p.into_inner());
        if let Some(warm) = &ix.rolled {
            return Ok(self.cut(warm.postings(term)?));
        }
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
        if let Some(warm) = &ix.rolled {
            let mut all = RoaringBitmap::new();
            warm.union_prefixed(prefix, accept, &mut all)?;
            *out |= &*self.cut(Arc::new(all));
            return Ok(());
        }
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
    /// The compressed frame last read from the frames file.
    frame: Vec<u8>,
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
        let bad = |r: String| StoreError::corrupt(&self.path, format!("hot slice {n}: {r}"));
        if let HotSlice::Frame { ulen, .. } | HotSlice::Stored { ulen, .. } = hs {
            match s.loaded {
                Some((m, true)) if m == n => return Ok(s.near.output(*ulen as usize)),
                Some((m, false)) if m == n => return Ok(&s.out),
                _ => {}
            }
        }
        s.loaded = None;
        let read = read_slice(hs, self.frames.as_deref(), &mut s.frame);
        let (len, data) = match read {
            Ok(SliceBytes::Raw(raw)) => return Ok(raw),
            Ok(SliceBytes::Frame(ulen, data)) => (ulen as usize, data),
            Err(e) => return Err(StoreError::io(self.path.join(HOT_FRAMES_FILE), e)),
        };
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
        if let Some(warm) = &ix.rolled {
            // Its bloom filter: a term of a later event only makes the search look.
            return warm.may_contain(term);
        }
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
                frame: Vec::new(),
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

    /// Where the frames of a hot index are: in its frames file, in memory where it has none,
    /// and in memory where the file cannot be made.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum FramesAt {
        File,
        Memory,
        NoFile,
    }

    /// Held-back slices are searched raw; once the dictionary is trained every slice is a frame
    /// searched with it; the roll copies those frames into the journal byte for byte, with the
    /// same dictionary. Frames in the frames file take no memory of the index.
    #[test]
    fn slices_are_compressed_once_and_searchable_throughout() {
        for at in [FramesAt::File, FramesAt::Memory, FramesAt::NoFile] {
            compressed_once(at);
        }
    }

    fn compressed_once(at: FramesAt) {
        let dir = tempfile::tempdir().unwrap();
        let hot_path = dir.path().join("hot_v1_7");
        let mut slices = SharedSlices::default();
        match at {
            FramesAt::File => {
                std::fs::create_dir(&hot_path).unwrap();
                slices.keep_frames_in(&hot_path);
            }
            FramesAt::NoFile => slices.keep_frames_in(&hot_path),
            FramesAt::Memory => {}
        }
        let index: SharedIndex = Arc::new(RwLock::new(HotIndex::new(7, slices)));
        let mut n = 0u64;
        let push_until = |n: &mut u64, done: &dyn Fn(&HotIndex) -> bool| {
            let mut ix = index.write().unwrap();
            while !done(&ix) {
                ix.push(&event(*n)).unwrap();
                *n += 1;
            }
        };
        let frame_of = |ix: &HotIndex, s: &HotSlice| -> (u32, Vec<u8>) {
            let mut buf = Vec::new();
            let file = ix.slices.file().map(|f| &**f);
            match read_slice(s, file, &mut buf).unwrap() {
                SliceBytes::Frame(ulen, data) => (ulen, data.to_vec()),
                SliceBytes::Raw(_) => panic!("a raw slice after training"),
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
            let in_file = ix.slices.list().iter().all(|s| match s {
                HotSlice::Stored { .. } => true,
                HotSlice::Frame { .. } => false,
                HotSlice::Raw(_) => panic!("a raw slice after training"),
            });
            assert_eq!(in_file, at == FramesAt::File, "{at:?}");
            // The index's memory holds the frames only where they are not in the file.
            assert_eq!(ix.slices.bytes == 0, in_file, "{at:?}");
            let lens: Vec<usize> = ix.slices.list()[..trained_at]
                .iter()
                .map(|s| frame_of(&ix, s).0 as usize)
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
            let mut got = vec![0; e.clen as usize];
            b.journal_file().read_exact_at(&mut got, e.offset).unwrap();
            assert_eq!((e.ulen, got), frame_of(&ix, s));
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

    /// A new index of the same hot directory (the bucket reopened in this process) makes a new
    /// frames file: snapshots of the earlier index still read theirs. After a failed write the
    /// index keeps later frames in memory and still reads those it wrote.
    #[test]
    fn frames_stay_readable_across_a_reopen_and_a_failed_write() {
        let dir = tempfile::tempdir().unwrap();
        let hot_path = dir.path().join("hot_v1_7");
        std::fs::create_dir(&hot_path).unwrap();
        let filled = |from: u64| {
            let mut slices = SharedSlices::default();
            slices.keep_frames_in(&hot_path);
            let index: SharedIndex = Arc::new(RwLock::new(HotIndex::new(7, slices)));
            let mut n = from;
            {
                let mut ix = index.write().unwrap();
                while ix.slices.list().len() < 4
                    || !matches!(ix.slices.list().last(), Some(HotSlice::Stored { .. }))
                {
                    ix.push(&event(n)).unwrap();
                    n += 1;
                }
            }
            (index, n)
        };
        let (first, n) = filled(0);
        let before = HotBucket::snapshot(&hot_path, first.clone());
        let read_all = |b: &HotBucket| {
            let mut raws = Vec::new();
            b.read_events(&mut (0..b.n()), &mut |v| {
                raws.push(v.raw.to_string());
                true
            })
            .unwrap();
            raws
        };
        let (second, m) = filled(1_000_000);
        assert_eq!(read_all(&before), expected(n).0);
        let want: Vec<String> = (1_000_000..m).map(|i| event(i).raw).collect();
        assert_eq!(
            read_all(&HotBucket::snapshot(&hot_path, second.clone())),
            want
        );

        // A failed write: the frames after it are held in memory.
        let stored = {
            let mut ix = second.write().unwrap();
            // A read-only handle to the same file: the next write fails.
            let read_only = std::fs::File::open(hot_path.join(HOT_FRAMES_FILE)).unwrap();
            ix.slices.file.as_mut().unwrap().file = Arc::new(read_only);
            let stored = ix.slices.list().len();
            let mut k = m;
            while ix.slices.list().len() < stored + 3 {
                ix.push(&event(k)).unwrap();
                k += 1;
            }
            stored
        };
        let ix = second.read().unwrap();
        assert!(ix.slices.list()[stored..]
            .iter()
            .all(|s| matches!(s, HotSlice::Frame { .. })));
        assert!(ix.slices.bytes > 0);
        assert!(ix.slices.file.as_ref().unwrap().failed);
        let count = ix.builder.len() as u64;
        drop(ix);
        let want: Vec<String> = (1_000_000..1_000_000 + count)
            .map(|i| event(i).raw)
            .collect();
        assert_eq!(read_all(&HotBucket::snapshot(&hot_path, second)), want);
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

    /// A search's snapshot of a bucket that rolls while it reads: after the roll its term
    /// queries go to the warm copy (the term index is gone) and still see only the snapshot's
    /// events; reading events is unchanged.
    #[test]
    fn snapshots_of_a_rolled_bucket_query_its_warm_copy() {
        use TermQuery::{And, Glob, Not, Prefix, Term};
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = crate::IndexWriter::open(dir.path(), crate::IndexConfig::default()).unwrap();
        w.append(&(0..300).map(event).collect::<Vec<_>>()).unwrap();
        let listed = crate::layout::list_buckets(dir.path()).unwrap();
        let snap = HotBucket::open_registered(&listed[0].path).expect("registered");
        // Later events share the snapshot's terms and have one of their own.
        let late = (300..500).map(|i| Event {
            raw: format!("{} late", event(i).raw),
            ..event(i)
        });
        w.append(&late.collect::<Vec<_>>()).unwrap();
        let queries = [
            Term(b"rare".to_vec()),
            Term(b"late".to_vec()),
            Term(b"host::web1".to_vec()),
            Prefix(b"u1".to_vec()),
            Glob(b"web*".to_vec()),
            And(vec![
                Term(b"ok".to_vec()),
                Not(Box::new(Term(b"404".to_vec()))),
            ]),
        ];
        let answers = |b: &HotBucket| -> Vec<Vec<u32>> {
            let q = queries.iter().map(|q| b.eval(q).unwrap().iter().collect());
            q.collect()
        };
        let before = answers(&snap);
        assert_eq!(before[0], expected(300).1);
        assert!(before[1].is_empty());
        assert!(before.iter().all(|a| a.iter().all(|&n| n < 300)));
        assert!(before[3].len() > 10 && before[4].len() == 300, "{before:?}");

        w.roll().unwrap();
        {
            let ix = snap.index.read().unwrap();
            assert!(ix.rolled.is_some(), "handed over");
            assert!(ix.builder.terms.is_empty());
        }
        assert_eq!(answers(&snap), before);
        assert!(snap.may_contain(b"rare"));
        let mut raws = Vec::new();
        snap.read_events(&mut (0..snap.n()), &mut |v| {
            raws.push(v.raw.to_string());
            true
        })
        .unwrap();
        assert_eq!(raws, expected(300).0);
        w.close().unwrap();
    }
}
