//! Reader of a hot bucket: replays its WAL (up to the last complete, checksummed record, so a
//! concurrently appended WAL is fine) and indexes it in memory.

use std::path::{Path, PathBuf};

use roaring::RoaringBitmap;

use crate::bucket::build::{Builder, SliceSink};
use crate::bucket::{read_events_with, BucketRead, EventView, SliceSource};
use crate::columns::Columns;
use crate::consts::WAL_FILE;
use crate::error::StoreError;
use crate::layout::parse_name;
use crate::meta::BucketMeta;
use crate::query::{eval, TermQuery, TermSource};
use crate::wal;

/// Keeps slices uncompressed in memory.
#[derive(Default)]
struct MemSlices(Vec<Box<[u8]>>);

impl SliceSink for MemSlices {
    fn put(&mut self, _n: u32, raw: &[u8]) -> Result<(), StoreError> {
        self.0.push(raw.into());
        Ok(())
    }
}

/// A snapshot of a hot bucket, indexed in memory.
pub struct HotBucket {
    path: PathBuf,
    meta: BucketMeta,
    cols: Columns,
    slices: MemSlices,
    /// Sorted `(term, postings)`.
    terms: Vec<(Box<[u8]>, RoaringBitmap)>,
}

impl HotBucket {
    /// Loads the WAL of the hot bucket directory `path`.
    pub fn open(path: &Path) -> Result<HotBucket, StoreError> {
        let id = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_name)
            .map(|(_, id, _, _)| id)
            .unwrap_or(0);
        let mut builder = Builder::new(id);
        let mut slices = MemSlices::default();
        wal::for_each_event(&path.join(WAL_FILE), |e| builder.push(e, &mut slices))?;
        let (cols, terms, meta) = builder.finish(&mut slices)?;
        let terms = terms
            .into_sorted()
            .into_iter()
            .map(|(t, list)| (t, list.into_iter().collect()))
            .collect();
        Ok(HotBucket {
            path: path.to_path_buf(),
            meta,
            cols,
            slices,
            terms,
        })
    }

    fn find(&self, term: &[u8]) -> Option<&RoaringBitmap> {
        self.terms
            .binary_search_by(|(t, _)| t.as_ref().cmp(term))
            .ok()
            .map(|i| &self.terms[i].1)
    }
}

impl TermSource for HotBucket {
    fn event_count(&self) -> u32 {
        self.cols.len() as u32
    }

    fn postings(&self, term: &[u8]) -> Result<RoaringBitmap, StoreError> {
        Ok(self.find(term).cloned().unwrap_or_default())
    }

    fn union_prefixed(
        &self,
        prefix: &[u8],
        accept: &mut dyn FnMut(&[u8]) -> bool,
        out: &mut RoaringBitmap,
    ) -> Result<(), StoreError> {
        let start = self.terms.partition_point(|(t, _)| t.as_ref() < prefix);
        for (t, bm) in &self.terms[start..] {
            if !t.starts_with(prefix) {
                break;
            }
            if accept(t) {
                *out |= bm;
            }
        }
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
            .0
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
        self.find(&term.to_ascii_lowercase()).is_some()
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
