//! Reader of a hot bucket: replays its WAL (up to the last complete, checksummed record, so a
//! concurrently appended WAL is fine) into an in-memory index.
//!
//! The index of each hot bucket is kept in a process-wide cache and extended incrementally: a
//! later [`HotBucket::open`] of the same bucket only decodes and indexes the records appended
//! since, then takes a snapshot (columns copied, completed slices shared, postings shared and
//! cut at the snapshot's event count — postings only ever grow at the end).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use roaring::RoaringBitmap;

use crate::bucket::build::{Builder, SliceSink};
use crate::bucket::{read_events_with, BucketRead, EventView, SliceSource};
use crate::columns::Columns;
use crate::consts::WAL_FILE;
use crate::error::{IoContext, StoreError};
use crate::layout::parse_name;
use crate::meta::BucketMeta;
use crate::query::{eval, TermQuery, TermSource};
use crate::wal;

/// Completed slices, shared between the cached index and its snapshots.
#[derive(Default)]
struct SharedSlices(Vec<Arc<[u8]>>);

impl SliceSink for SharedSlices {
    fn put(&mut self, _n: u32, raw: &[u8]) -> Result<(), StoreError> {
        self.0.push(raw.into());
        Ok(())
    }
}

/// The growing index of one hot bucket.
struct HotIndex {
    /// `(device, inode)` of the WAL indexed; a different file means start over.
    file_id: (u64, u64),
    /// WAL bytes consumed (end of the last valid record).
    valid_len: u64,
    builder: Builder,
    slices: SharedSlices,
}

impl HotIndex {
    fn new(id: u64, file_id: (u64, u64)) -> Self {
        HotIndex {
            file_id,
            valid_len: 0,
            builder: Builder::new(id),
            slices: SharedSlices::default(),
        }
    }
}

type Cache = Mutex<HashMap<PathBuf, Arc<RwLock<HotIndex>>>>;

/// Process-wide cache of hot-bucket indexes, by bucket directory. Guards only the map; each
/// index has its own lock (write: catching up with the WAL; read: evaluating queries).
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// A snapshot of a hot bucket, indexed in memory.
pub struct HotBucket {
    path: PathBuf,
    meta: BucketMeta,
    cols: Columns,
    /// Completed slices plus the partial last one.
    slices: Vec<Arc<[u8]>>,
    /// The shared, growing index; only postings below `meta.event_count` belong to this snapshot.
    index: Arc<RwLock<HotIndex>>,
}

impl HotBucket {
    /// Loads the WAL of the hot bucket directory `path` (incrementally when this process read it
    /// before). A missing WAL is an `Io` error of kind `NotFound` (the bucket rolled).
    pub fn open(path: &Path) -> Result<HotBucket, StoreError> {
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
            let file_id = (md.dev(), md.ino());
            map.entry(path.to_path_buf())
                .or_insert_with(|| Arc::new(RwLock::new(HotIndex::new(id, file_id))))
                .clone()
        };
        let md = md.at(&wal_path)?;
        let mut ix = entry.write().unwrap_or_else(|p| p.into_inner());
        let file_id = (md.dev(), md.ino());
        if ix.file_id != file_id || md.len() < ix.valid_len {
            // Replaced or truncated (recovery): index from scratch.
            let id = ix.builder.meta.id;
            *ix = HotIndex::new(id, file_id);
        }
        let HotIndex {
            valid_len,
            builder,
            slices,
            ..
        } = &mut *ix;
        let scan = wal::for_each_event_from(&wal_path, *valid_len, |e| builder.push(e, slices));
        match scan {
            Ok(s) => *valid_len = s.valid_len,
            Err(e) => {
                // The builder may hold part of a record: do not keep it.
                let id = ix.builder.meta.id;
                *ix = HotIndex::new(id, file_id);
                return Err(e);
            }
        }
        let mut meta = ix.builder.meta.clone();
        meta.term_count = ix.builder.terms.len() as u64;
        let mut slice_list = ix.slices.0.clone();
        slice_list.push(ix.builder.current_slice().into());
        let cols = ix.builder.cols.clone();
        drop(ix);
        Ok(HotBucket {
            path: path.to_path_buf(),
            meta,
            cols,
            slices: slice_list,
            index: entry,
        })
    }

    /// Number of events of this snapshot.
    fn n(&self) -> u32 {
        self.cols.len() as u32
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
    type Scratch = ();

    fn scratch(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn slice<'s>(&'s self, n: u32, _s: &'s mut ()) -> Result<&'s [u8], StoreError> {
        self.slices
            .get(n as usize)
            .map(|b| b.as_ref())
            .ok_or_else(|| StoreError::corrupt(&self.path, format!("no slice {n}")))
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
        &self.cols.times
    }
    fn host_ids(&self) -> &[u32] {
        &self.cols.host
    }
    fn host_names(&self) -> &[String] {
        &self.cols.hosts
    }
    fn source_ids(&self) -> &[u32] {
        &self.cols.source
    }
    fn source_names(&self) -> &[String] {
        &self.cols.sources
    }
    fn sourcetype_ids(&self) -> &[u32] {
        &self.cols.sourcetype
    }
    fn sourcetype_names(&self) -> &[String] {
        &self.cols.sourcetypes
    }
    fn read_events(
        &self,
        ids: &mut dyn Iterator<Item = u32>,
        f: &mut dyn FnMut(EventView<'_>) -> bool,
    ) -> Result<(), StoreError> {
        read_events_with(&self.path, &self.cols, self, ids, f)
    }
}
