//! The buckets of the selected indexes, from directory names only, the total order of events,
//! and opening a bucket (warm ones through the process-wide reader cache, [`crate::cache`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use lode_store::columns::Column;
use lode_store::{BucketInfo, BucketKind, BucketRead, StoreError};

use crate::cache::{self, SharedReader};
use crate::SearchError;

const MICROS_PER_SEC: i64 = 1_000_000;

/// One bucket to scan.
#[derive(Debug, Clone)]
pub struct BucketRef {
    /// Name of the index it belongs to.
    pub index: Arc<str>,
    /// Position of the index in the sorted selection (0 = first): breaks time ties.
    pub index_pos: u32,
    /// Where it is and its time range from its name.
    pub info: BucketInfo,
    /// `<index>/<directory name>`, for explain and warnings.
    pub label: String,
}

impl BucketRef {
    /// Upper bound of its events' `_time` in µs, from the directory name (inclusive; saturating
    /// for hot buckets, whose name carries no time).
    pub fn max_time_bound(&self) -> i64 {
        self.info
            .max_time_secs
            .saturating_add(1)
            .saturating_mul(MICROS_PER_SEC)
    }
}

/// Position of an event in the newest-first order of an event search: `_time` descending, then
/// the earlier index in the selection, then the later bucket id, then the later event number.
/// Sorting keys DESCENDING gives the output order; every event has a distinct key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// `_time`, µs.
    pub time: i64,
    /// `u32::MAX - index_pos`: earlier indexes sort as newer on ties.
    pub index_rank: u32,
    /// Bucket id.
    pub bucket: u64,
    /// Event number in the bucket.
    pub num: u32,
}

impl Key {
    /// The key of event `num` at `time` in bucket `b`.
    pub fn new(b: &BucketRef, time: i64, num: u32) -> Key {
        Key {
            time,
            index_rank: u32::MAX - b.index_pos,
            bucket: b.info.id,
            num,
        }
    }
}

/// Lists the buckets of `indexes` (in that order; each index's buckets by id). An index that
/// vanished since it was listed has no buckets. Cached readers of buckets that left an index
/// (frozen, quarantined) are dropped.
pub fn list(root: &Path, indexes: &[String]) -> Result<Vec<BucketRef>, SearchError> {
    let mut out = Vec::new();
    for (pos, name) in indexes.iter().enumerate() {
        let at = out.len();
        out.extend(list_index(root, name)?);
        for b in &mut out[at..] {
            b.index_pos = pos as u32;
        }
    }
    Ok(out)
}

/// Listings of index directories kept for reuse (see [`list_index`]), at most
/// [`LISTINGS_KEPT`].
static LISTINGS: Mutex<Option<HashMap<PathBuf, Listing>>> = Mutex::new(None);

/// Index directories whose listing is kept (then all are forgotten at once).
const LISTINGS_KEPT: usize = 256;

/// How much older than its listing a directory's modification time must be for the listing
/// to be kept: file systems stamp changes with a clock a few milliseconds coarse, some to the
/// second or two.
const SETTLED: Duration = Duration::from_secs(3);

/// An index directory's buckets (`index_pos` 0) and the directory's modification time when
/// they were listed.
struct Listing {
    modified: SystemTime,
    buckets: Vec<BucketRef>,
}

/// The buckets of index `name` under `root` (`index_pos` 0). A listing is kept while the
/// directory's modification time stays what it was, if that time was at least [`SETTLED`]
/// older than the listing: every bucket made, renamed or removed changes it (to the time of
/// the change, which is later), so a kept listing is never stale, and a search of an index
/// nothing is written to reads no directory (reading it was 5 % of the 10 GB service's CPU). An
/// index changed within the last seconds is listed every time.
fn list_index(root: &Path, name: &str) -> Result<Vec<BucketRef>, SearchError> {
    let dir = root.join(name);
    let now = SystemTime::now();
    let modified = std::fs::metadata(&dir).and_then(|m| m.modified()).ok();
    if let Some(m) = modified {
        let kept = LISTINGS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = kept.as_ref().and_then(|k| k.get(&dir)) {
            if l.modified == m {
                return Ok(l.buckets.clone());
            }
        }
    }
    let index: Arc<str> = Arc::from(name);
    let infos = match lode_store::list_buckets(&dir) {
        Ok(v) => v,
        Err(StoreError::UnknownIndex(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let paths: Vec<&Path> = infos.iter().map(|i| i.path.as_path()).collect();
    cache::global().retain_listed(&dir, &paths);
    let buckets: Vec<BucketRef> = infos
        .into_iter()
        .map(|info| {
            let dir = info
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let label = format!("{name}/{}", dir.unwrap_or_default());
            BucketRef {
                index: index.clone(),
                index_pos: 0,
                info,
                label,
            }
        })
        .collect();
    let mut kept = LISTINGS.lock().unwrap_or_else(|p| p.into_inner());
    let kept = kept.get_or_insert_with(HashMap::new);
    match modified.filter(|&m| m + SETTLED < now) {
        Some(modified) => {
            if kept.len() >= LISTINGS_KEPT {
                kept.clear();
            }
            kept.insert(
                dir,
                Listing {
                    modified,
                    buckets: buckets.clone(),
                },
            );
        }
        None => {
            kept.remove(&dir);
        }
    }
    Ok(buckets)
}

/// Opens the bucket `info` describes: a warm bucket through the process-wide reader cache
/// (shared with other searches; straight from disk when the cache is disabled), a hot one
/// directly (see `lode_store::open_bucket`).
pub fn open(info: &BucketInfo) -> Result<Box<dyn BucketRead + Send + Sync>, StoreError> {
    if info.kind == BucketKind::Warm && cache::global().budget() > 0 {
        return Ok(Box::new(Shared(
            cache::global().open_warm(&info.path)?,
            info.path.clone(),
        )));
    }
    lode_store::open_bucket(info)
}

/// A cached reader (and its bucket directory) behind the boxed interface the scan holds: every
/// method delegates, so the reader's own overrides (lazy per-event times, `prepare`) are kept,
/// except that term queries go through the cache's decoded postings ([`cache::BucketCache::eval`]).
struct Shared(SharedReader, std::path::PathBuf);

impl BucketRead for Shared {
    fn meta(&self) -> &lode_store::BucketMeta {
        self.0.meta()
    }
    fn prepare(&self) -> Result<(), StoreError> {
        self.0.prepare()
    }
    fn may_contain(&self, term: &[u8]) -> bool {
        self.0.may_contain(term)
    }
    fn eval(&self, q: &lode_store::TermQuery) -> Result<roaring::RoaringBitmap, StoreError> {
        self.eval_shared(q).map(Arc::unwrap_or_clone)
    }
    fn eval_shared(
        &self,
        q: &lode_store::TermQuery,
    ) -> Result<Arc<roaring::RoaringBitmap>, StoreError> {
        cache::global().eval(&self.1, &self.0, q)
    }
    fn term_cost(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        self.0.term_cost(term)
    }
    fn eval_held(&self, q: &lode_store::TermQuery) -> Option<Arc<roaring::RoaringBitmap>> {
        match q {
            lode_store::TermQuery::Term(t) => cache::global().held_term(&self.1, t),
            _ => None,
        }
    }
    fn eval_in(
        &self,
        q: &lode_store::TermQuery,
        window: &lode_store::query::Window,
    ) -> Result<Arc<roaring::RoaringBitmap>, StoreError> {
        cache::global().eval_in(&self.1, &self.0, q, window)
    }
    fn times(&self) -> Column<'_, i64> {
        self.0.times()
    }
    fn time(&self, n: u32) -> Result<i64, StoreError> {
        self.0.time(n)
    }
    fn time_blocks(&self) -> Option<(u32, Vec<(i64, i64)>)> {
        self.0.time_blocks()
    }
    fn blocks_newest_first(&self) -> Option<(u32, lode_store::bucket::NewestBlocks)> {
        self.0.blocks_newest_first()
    }
    fn blocks_newest_first_of(
        &self,
        kinds: u64,
    ) -> Option<(u32, lode_store::bucket::NewestBlocks)> {
        self.0.blocks_newest_first_of(kinds)
    }
    fn query_kinds(&self, q: &lode_store::TermQuery) -> u64 {
        self.0.query_kinds(q)
    }
    fn block_times_into(&self, b: u32, out: &mut Vec<i64>) -> Result<bool, StoreError> {
        self.0.block_times_into(b, out)
    }
    fn indexed(&self, n: u32) -> Result<lode_store::bucket::IndexedFields, StoreError> {
        self.0.indexed(n)
    }
    fn index_fields(&self, n: u32, out: &mut Vec<(String, String)>) -> Result<(), StoreError> {
        self.0.index_fields(n, out)
    }
    fn host_ids(&self) -> Column<'_, u32> {
        self.0.host_ids()
    }
    fn host_names(&self) -> &[String] {
        self.0.host_names()
    }
    fn source_ids(&self) -> Column<'_, u32> {
        self.0.source_ids()
    }
    fn source_names(&self) -> &[String] {
        self.0.source_names()
    }
    fn sourcetype_ids(&self) -> Column<'_, u32> {
        self.0.sourcetype_ids()
    }
    fn sourcetype_names(&self) -> &[String] {
        self.0.sourcetype_names()
    }
    fn read_events(
        &self,
        ids: &mut dyn Iterator<Item = u32>,
        f: &mut dyn FnMut(lode_store::EventView<'_>) -> bool,
    ) -> Result<(), StoreError> {
        self.0.read_events(ids, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_store::BucketKind;

    fn bref(pos: u32, id: u64, max_secs: i64) -> BucketRef {
        BucketRef {
            index: Arc::from("main"),
            index_pos: pos,
            info: BucketInfo {
                path: "x".into(),
                id,
                first_id: id,
                kind: BucketKind::Warm,
                min_time_secs: 0,
                max_time_secs: max_secs,
            },
            label: "main/x".into(),
        }
    }

    #[test]
    fn keys_order_time_then_index_then_bucket_then_event() {
        let a = bref(0, 1, 10);
        let b = bref(1, 9, 10);
        assert!(Key::new(&a, 5, 0) > Key::new(&a, 4, 9));
        assert!(Key::new(&a, 5, 0) > Key::new(&b, 5, 0));
        assert!(Key::new(&bref(0, 2, 1), 5, 0) > Key::new(&a, 5, 7));
        assert!(Key::new(&a, 5, 8) > Key::new(&a, 5, 7));
    }

    #[test]
    fn hot_bound_saturates() {
        assert_eq!(bref(0, 1, i64::MAX).max_time_bound(), i64::MAX);
        assert_eq!(bref(0, 1, 10).max_time_bound(), 11 * MICROS_PER_SEC);
    }

    fn kept(dir: &Path) -> Option<Vec<String>> {
        let g = LISTINGS.lock().unwrap();
        let l = g.as_ref()?.get(dir)?;
        Some(l.buckets.iter().map(|b| b.label.clone()).collect())
    }

    #[test]
    fn a_listing_is_reused_only_while_its_settled_directory_is_unchanged() {
        let root = tempfile::tempdir().unwrap();
        let (root, dir) = (root.path(), root.path().join("main"));
        let names = ["main".to_string()];
        crate::cache::tests::index(root, 1);
        // Changed just now: listed, not kept.
        assert_eq!(list(root, &names).unwrap().len(), 1);
        assert_eq!(kept(&dir), None);
        // Unchanged for an hour: kept, and what is kept is what a listing gives.
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let first = list(root, &names).unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(kept(&dir), Some(vec![first[0].label.clone()]));
        {
            let mut g = LISTINGS.lock().unwrap();
            let l = g.as_mut().unwrap().get_mut(&dir).unwrap();
            l.buckets[0].label = "reused".into();
        }
        assert_eq!(list(root, &names).unwrap()[0].label, "reused");
        // A new bucket changes the directory: listed afresh, with both.
        crate::cache::tests::index(root, 1);
        let both = list(root, &names).unwrap();
        assert_eq!(both.len(), 2);
        assert!(both.iter().all(|b| b.label != "reused"));
        assert_eq!(kept(&dir), None);
        // An index that vanished has no buckets.
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(list(root, &names).unwrap().is_empty());
    }
}
