//! The exclusive writer of one index: group-committed WAL appends, the hot buckets' in-memory
//! indexes, and hot → warm rolls in the background. Steps and hazards: docs/DURABILITY.md.
//!
//! A writer has one or more *lanes* (one per ingestion pipeline set). Each lane has its own hot
//! bucket, WAL, group-commit queue and locks, so appends to different lanes share no lock and no
//! fsync; only bucket ids come from one atomic counter (taken when a lane opens a hot bucket), so
//! they stay unique in the index directory. Hot buckets of different lanes overlap in time.
//!
//! The flush leader indexes every batch it made durable into the hot bucket's in-memory index
//! (registered for searches of this process, see [`crate::bucket::hot`]), in WAL order, so the
//! index always holds exactly the WAL's valid records. A full hot bucket is handed to a roller
//! thread that writes the warm bucket from that index while the lane appends to a new hot
//! bucket; at most one roll per lane is pending.

use std::fs::TryLockError;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use lode_event::Event;

use crate::bucket::hot::{HotDict, Registration};
use crate::config::IndexConfig;
use crate::consts::{LOCK_FILE, WAL_FILE};
use crate::error::{IoContext, StoreError};
use crate::layout::{fsync_dir, hot_name, tmp_name, warm_name};
use crate::meta::BucketMeta;
use crate::wal::{self, WalWriter};

pub use crate::recover::RecoveryReport;

/// The open hot bucket.
#[derive(Debug)]
pub(crate) struct Hot {
    /// Bucket id.
    pub id: u64,
    /// Its WAL.
    pub wal: WalWriter,
    /// Its in-memory index: exactly the events of the WAL's valid records, in order.
    pub index: Registration,
    /// Events written so far.
    pub events: u64,
    /// `_raw` bytes written so far.
    pub raw_bytes: u64,
    /// Earliest / latest event time, µs (`MAX`/`MIN` when empty).
    pub min_time: i64,
    /// See `min_time`.
    pub max_time: i64,
    /// Wall-clock second of the last write (for idle rolls).
    pub last_write_secs: i64,
}

/// Largest encoding buffer of the group commit kept for the next leader, bytes.
const KEEP_PENDING_BYTES: usize = 4 << 20;

/// Queue of the group commit.
#[derive(Default)]
struct Queue {
    /// Encoded WAL records not yet written.
    pending: Vec<u8>,
    /// The events of `pending`, one vector per batch, indexed once the records are durable.
    pending_events: Vec<Vec<Event>>,
    /// Sequence number of the last enqueued batch.
    enqueued: u64,
    /// Every batch up to this sequence number is durable.
    durable: u64,
    /// A leader is writing and syncing.
    flushing: bool,
    /// First I/O failure; the writer refuses further appends.
    broken: Option<String>,
}

/// A roll that failed; `hot` is the bucket when it is still intact (failed before the warm copy
/// was published), to be retried.
struct RollFailed {
    error: StoreError,
    hot: Option<Box<Hot>>,
}

/// State of one lane touched only by its flush leader or a roll.
pub(crate) struct Io {
    /// The lane's hot bucket, created on its first append.
    pub hot: Option<Hot>,
    /// The background roll of the lane's previous hot bucket, until joined.
    rolling: Option<JoinHandle<Result<(), RollFailed>>>,
    /// Full hot buckets whose background roll failed before publishing: intact (WAL on disk,
    /// index still registered for searches), retried by the next explicit roll.
    failed: Vec<Hot>,
    /// The journal dictionary of the lane's last rolled hot bucket, which the next one starts
    /// with (see `SharedSlices::starting_with`).
    dict: Option<Arc<HotDict>>,
}

/// One lane: a hot bucket with its own group commit.
struct Lane {
    /// Guards the lane's group-commit queue.
    queue: Mutex<Queue>,
    /// Signals the lane's waiters when `durable` advances or the leader steps down.
    cv: Condvar,
    /// Guards the lane's hot WAL, its index updates and its rolls; taken by one flush leader at
    /// a time (and by rolls), never while `queue` is held.
    io: Mutex<Io>,
}

impl Lane {
    fn new(hot: Option<Hot>) -> Lane {
        Lane {
            queue: Mutex::new(Queue::default()),
            cv: Condvar::new(),
            io: Mutex::new(Io {
                hot,
                rolling: None,
                failed: Vec::new(),
                dict: None,
            }),
        }
    }

    fn lock_queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_io(&self) -> MutexGuard<'_, Io> {
        self.io.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Exclusive writer of one index (holds the OS lock `writer.lock` in the index directory).
/// `Send + Sync`: concurrent [`IndexWriter::append`] callers of one lane share fsyncs.
pub struct IndexWriter {
    dir: PathBuf,
    cfg: IndexConfig,
    /// Holds the OS lock for the writer's lifetime.
    _lock: File,
    /// The lanes, at least one.
    lanes: Vec<Lane>,
    /// Id the next bucket gets (any lane).
    next_id: AtomicU64,
    /// The background merger (`None`: merging off).
    merger: Option<crate::merger::Merger>,
    /// Test hook: the next WAL sync of any lane fails.
    #[cfg(test)]
    fail_next_sync: std::sync::atomic::AtomicBool,
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl IndexWriter {
    /// Opens or creates the index directory with one lane, takes the writer lock and recovers
    /// (see [`RecoveryReport`] and docs/DURABILITY.md).
    pub fn open(dir: &Path, cfg: IndexConfig) -> Result<(IndexWriter, RecoveryReport), StoreError> {
        IndexWriter::open_lanes(dir, cfg, 1)
    }

    /// Like [`IndexWriter::open`] with `lanes` lanes (at least one), each with its own hot
    /// bucket. Recovery keeps the newest `lanes` hot buckets open (one per lane, their indexes
    /// rebuilt from their WALs) and rolls any older ones to warm.
    pub fn open_lanes(
        dir: &Path,
        cfg: IndexConfig,
        lanes: usize,
    ) -> Result<(IndexWriter, RecoveryReport), StoreError> {
        let lanes = lanes.max(1);
        std::fs::create_dir_all(dir).at(dir)?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .at(&lock_path)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(StoreError::Locked { path: lock_path }),
            Err(TryLockError::Error(e)) => return Err(StoreError::io(&lock_path, e)),
        }
        let (hots, next_id, report) = crate::recover::recover(dir, lanes)?;
        let mut hots = hots.into_iter();
        let merger = crate::merger::Merger::start(dir.to_path_buf(), &cfg);
        let w = IndexWriter {
            dir: dir.to_path_buf(),
            cfg,
            _lock: lock,
            lanes: (0..lanes).map(|_| Lane::new(hots.next())).collect(),
            next_id: AtomicU64::new(next_id),
            merger,
            #[cfg(test)]
            fail_next_sync: Default::default(),
        };
        for lane in &w.lanes {
            w.maybe_roll_locked(&mut lane.lock_io())?;
        }
        Ok((w, report))
    }

    /// Number of lanes (hot buckets that can be open at once).
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// Lane `lane`, wrapping around the number of lanes.
    fn lane(&self, lane: usize) -> &Lane {
        &self.lanes[lane % self.lanes.len()]
    }

    fn broken(&self, reason: &str) -> StoreError {
        StoreError::Broken {
            path: self.dir.clone(),
            reason: reason.to_string(),
        }
    }

    /// Appends (a copy of) `events` to lane 0; see [`IndexWriter::append_to`].
    pub fn append(&self, events: &[Event]) -> Result<(), StoreError> {
        self.append_to(0, events.to_vec())
    }

    /// Appends `events` to the hot bucket of lane `lane` (wrapping around the number of lanes);
    /// returns once they are durable (written and fdatasynced) and indexed for searches.
    /// Concurrent callers of one lane are group-committed: one leader writes every pending
    /// batch, syncs once, then indexes the batches in WAL order. Lanes never wait for each
    /// other.
    pub fn append_to(&self, lane: usize, events: Vec<Event>) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let lane = self.lane(lane);
        let mut q = lane.lock_queue();
        if let Some(b) = &q.broken {
            return Err(self.broken(b));
        }
        wal::encode_record(&mut q.pending, &events);
        q.pending_events.push(events);
        q.enqueued += 1;
        let my = q.enqueued;
        loop {
            if q.durable >= my {
                return Ok(());
            }
            if let Some(b) = &q.broken {
                return Err(self.broken(b));
            }
            if q.flushing {
                q = lane.cv.wait(q).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            q.flushing = true;
            let mut buf = std::mem::take(&mut q.pending);
            let mut batches = std::mem::take(&mut q.pending_events);
            let target = q.enqueued;
            drop(q);
            let res = self.flush(lane, &buf, &batches);
            batches.clear();
            buf.clear();
            q = lane.lock_queue();
            q.flushing = false;
            // The next leader encodes into these rather than growing new ones from empty (their
            // reallocations copied every record again); a buffer a burst grew is let go.
            if q.pending.is_empty() && buf.capacity() <= KEEP_PENDING_BYTES {
                q.pending = buf;
            }
            if q.pending_events.is_empty() {
                q.pending_events = batches;
            }
            match res {
                Ok(()) => q.durable = target,
                Err(e) => {
                    q.broken.get_or_insert_with(|| e.to_string());
                    lane.cv.notify_all();
                    return Err(e);
                }
            }
            lane.cv.notify_all();
        }
    }

    /// Leader of `lane`: writes `buf` (the records of `batches`) to its hot WAL, syncs, indexes
    /// `batches`, then starts a roll if a limit is reached.
    fn flush(&self, lane: &Lane, buf: &[u8], batches: &[Vec<Event>]) -> Result<(), StoreError> {
        let mut io = lane.lock_io();
        let io = &mut *io;
        if io.hot.is_none() {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            io.hot = Some(self.create_hot(id, io.dict.as_deref())?);
        }
        let hot = io.hot.as_mut().expect("just created");
        hot.wal.write(buf)?;
        #[cfg(test)]
        if self.fail_next_sync.swap(false, Ordering::Relaxed) {
            return Err(StoreError::io(
                hot.wal.path(),
                std::io::Error::other("injected sync failure"),
            ));
        }
        hot.wal.sync()?;
        // Durable now: index, in WAL order. A failure here (a limit the roll thresholds keep
        // far away) leaves the index short of the WAL, so the lane stops taking appends; the
        // WAL stays the truth for recovery.
        {
            let events: Vec<&Event> = batches.iter().flatten().collect();
            let pushed = hot.index.write().push_all(&events);
            // What the hot index holds now, for the caches that give way to it.
            hot.index.report();
            pushed?;
            for e in events {
                hot.events += 1;
                hot.raw_bytes += e.raw.len() as u64;
                hot.min_time = hot.min_time.min(e.time);
                hot.max_time = hot.max_time.max(e.time);
            }
        }
        hot.last_write_secs = now_secs();
        // The batch is durable; a failing roll leaves the bucket intact, so report success for
        // the batch and let the roll error surface from the next explicit roll.
        let _ = self.maybe_roll_locked(io);
        Ok(())
    }

    /// Creates hot bucket `id`: built as `tmp_<id>/` (WAL with its header, fsynced, index
    /// registered) and renamed to `hot_v1_<id>/`, so a listing never shows a hot directory
    /// without a complete WAL header or (in this process) without its registered index.
    fn create_hot(&self, id: u64, dict: Option<&HotDict>) -> Result<Hot, StoreError> {
        let tmp = self.dir.join(tmp_name(id));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).at(&tmp)?;
        }
        std::fs::create_dir(&tmp).at(&tmp)?;
        drop(WalWriter::create(&tmp.join(WAL_FILE))?);
        fsync_dir(&tmp)?;
        let index = Registration::new(&tmp, id, dict)?;
        let hot_dir = self.dir.join(hot_name(id));
        std::fs::rename(&tmp, &hot_dir).at(&hot_dir)?;
        fsync_dir(&self.dir)?;
        let wal = WalWriter::open_truncated(&hot_dir.join(WAL_FILE), wal::HEADER_LEN as u64)?;
        Ok(new_hot(id, wal, index))
    }

    /// Starts a background roll of the lane's hot bucket if it is full. Returns whether it was.
    fn maybe_roll_locked(&self, io: &mut Io) -> Result<bool, StoreError> {
        let Some(hot) = &io.hot else { return Ok(false) };
        let span_us = hot.max_time.saturating_sub(hot.min_time);
        let full = hot.raw_bytes >= self.cfg.max_bucket_raw_bytes
            || hot.events >= self.cfg.max_bucket_events.min(u32::MAX as u64 - 1)
            || (hot.events > 0 && span_us / 1_000_000 > self.cfg.max_hot_span_secs);
        if full {
            self.start_roll(io)?;
        }
        Ok(full)
    }

    /// Hands the lane's hot bucket to a roller thread (after waiting for the previous one: at
    /// most one pending roll per lane); the next append opens a new hot bucket. Returns the
    /// previous roll's error, if it failed.
    fn start_roll(&self, io: &mut Io) -> Result<(), StoreError> {
        let previous = join_rolling(io);
        let Some(hot) = io.hot.take() else {
            return previous;
        };
        io.dict = hot.index.read().slices.dict().cloned();
        let dir = self.dir.clone();
        let merger = self.merger.as_ref().map(|m| m.shared());
        // The bucket travels through a slot so that it survives a failed spawn.
        let slot = Arc::new(Mutex::new(Some(hot)));
        let theirs = slot.clone();
        let spawned = std::thread::Builder::new()
            .name("lode-roll".into())
            .spawn(move || {
                let hot = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
                let rolled = hot.map_or(Ok(()), |hot| roll_hot(&dir, hot));
                if let (Ok(()), Some(m)) = (&rolled, merger) {
                    m.kick();
                }
                rolled
            });
        match spawned {
            Ok(handle) => io.rolling = Some(handle),
            Err(_) => {
                // No thread: roll here.
                let hot = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(hot) = hot {
                    if let Err(f) = roll_hot(&self.dir, hot) {
                        io.failed.extend(f.hot.map(|h| *h));
                        return Err(f.error);
                    }
                    self.kick_merger();
                }
            }
        }
        previous
    }

    /// Publishes every roll of one lane: waits for its background roll, retries failed ones,
    /// and (with `current`) rolls its hot bucket now. The first error is returned; a bucket whose
    /// roll failed stays intact (the current one stays open for appends).
    fn roll_lane(&self, io: &mut Io, current: bool) -> Result<(), StoreError> {
        let mut result = join_rolling(io);
        let mut keep = |r: Result<(), StoreError>| {
            if let (Err(e), true) = (r, result.is_ok()) {
                result = Err(e);
            }
        };
        for hot in std::mem::take(&mut io.failed) {
            match roll_hot(&self.dir, hot) {
                Ok(()) => self.kick_merger(),
                Err(f) => {
                    io.failed.extend(f.hot.map(|h| *h));
                    keep(Err(f.error));
                }
            }
        }
        if current && io.hot.as_ref().is_some_and(|h| !h.wal.is_empty()) {
            let hot = io.hot.take().expect("checked");
            io.dict = hot.index.read().slices.dict().cloned();
            match roll_hot(&self.dir, hot) {
                Ok(()) => self.kick_merger(),
                Err(f) => {
                    io.hot = f.hot.map(|h| *h);
                    keep(Err(f.error));
                }
            }
        }
        result
    }

    /// Rolls the hot bucket of every lane to warm now (no-op for empty ones), the lanes in
    /// parallel (one thread per lane: building a bucket is CPU-bound), and waits for every
    /// background roll. Returns once every roll is published; every lane is tried; the first
    /// error is returned.
    pub fn roll(&self) -> Result<(), StoreError> {
        let roll_lane = |lane: &Lane| self.roll_lane(&mut lane.lock_io(), true);
        if self.lanes.len() == 1 {
            return roll_lane(&self.lanes[0]);
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .lanes
                .iter()
                .map(|lane| s.spawn(move || roll_lane(lane)))
                .collect();
            let mut result = Ok(());
            for h in handles {
                let r = h
                    .join()
                    .unwrap_or_else(|_| Err(self.broken("a roll thread panicked")));
                if let (Err(e), true) = (r, result.is_ok()) {
                    result = Err(e);
                }
            }
            result
        })
    }

    /// Rolls every lane's hot bucket that received nothing for `max_hot_idle_secs` before
    /// `now_secs` (seconds since the epoch). Returns whether any rolled.
    pub fn roll_if_idle(&self, now_secs: i64) -> Result<bool, StoreError> {
        if self.cfg.max_hot_idle_secs == 0 {
            return Ok(false);
        }
        let mut any = false;
        for lane in &self.lanes {
            let mut io = lane.lock_io();
            let idle = io.hot.as_ref().is_some_and(|h| {
                h.events > 0
                    && now_secs.saturating_sub(h.last_write_secs)
                        >= self.cfg.max_hot_idle_secs as i64
            });
            if idle {
                self.roll_lane(&mut io, true)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// Tells the background merger a warm bucket was published.
    fn kick_merger(&self) {
        if let Some(m) = &self.merger {
            m.kick();
        }
    }

    /// Runs now the merges of warm buckets that the background merger would run (see
    /// [`crate::merge`]), waiting for one in progress, and deletes their sources at once
    /// (without the grace period). Returns how many merged buckets it published; 0 when
    /// merging is off (`max_merged_raw_bytes = 0`).
    pub fn merge(&self) -> Result<u32, StoreError> {
        self.merger.as_ref().map_or(Ok(0), |m| m.merge_now())
    }

    /// Rolls every hot bucket, finishes the merges that are due (deleting their sources) and
    /// releases the lock.
    pub fn close(mut self) -> Result<(), StoreError> {
        self.roll()?;
        match self.merger.take() {
            Some(m) => m.finish().map(|_| ()),
            None => Ok(()),
        }
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for IndexWriter {
    /// Waits for background rolls and stops the merger (cancelling a merge in progress), so
    /// that neither outlives the writer lock.
    fn drop(&mut self) {
        for lane in &self.lanes {
            let _ = join_rolling(&mut lane.lock_io());
        }
        drop(self.merger.take());
    }
}

/// A new hot bucket `id` over `wal` (whose records `index` holds), with empty statistics.
pub(crate) fn new_hot(id: u64, wal: WalWriter, index: Registration) -> Hot {
    Hot {
        id,
        wal,
        index,
        events: 0,
        raw_bytes: 0,
        min_time: i64::MAX,
        max_time: i64::MIN,
        last_write_secs: now_secs(),
    }
}

/// Waits for the lane's background roll, if any. A bucket whose roll failed intact goes to
/// `io.failed`.
fn join_rolling(io: &mut Io) -> Result<(), StoreError> {
    let Some(handle) = io.rolling.take() else {
        return Ok(());
    };
    match handle.join() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(f)) => {
            io.failed.extend(f.hot.map(|h| *h));
            Err(f.error)
        }
        Err(_) => Err(StoreError::Broken {
            path: PathBuf::new(),
            reason: "a roll thread panicked".into(),
        }),
    }
}

/// Rolls `hot` (which takes no more appends) from its in-memory index: build in `tmp_<id>`,
/// fsync, rename to `db_…`, fsync the index directory; then unregister the index, delete the
/// hot directory and fsync the index directory. The hot directory and its registered index stay
/// until the warm bucket is published, so searches see the events exactly once throughout.
fn roll_hot(dir: &Path, hot: Hot) -> Result<(), RollFailed> {
    let _running = crate::memory::Running::roll();
    let hot_dir = dir.join(hot_name(hot.id));
    let published = {
        let ix = hot.index.read();
        publish(dir, hot.id, |tmp| {
            crate::bucket::write::write_builder(tmp, &ix.builder, &ix.slices)
        })
    };
    let warm = match published {
        Ok(warm) => warm,
        Err(error) => {
            return Err(RollFailed {
                error,
                hot: Some(Box::new(hot)),
            })
        }
    };
    // The warm bucket is published (and `list_buckets` hides the hot twin). Searches still
    // reading older snapshots get their postings from it, so the term index goes now.
    hot.index.hand_over(&warm);
    // Unregister first: a search opening the hot directory from an older listing then finds
    // the warm successor (`open_bucket`) rather than meeting a stale index under a reused inode.
    drop(hot);
    crate::memory::give_back();
    let removed = std::fs::remove_dir_all(&hot_dir)
        .at(&hot_dir)
        .and_then(|()| fsync_dir(dir));
    removed.map_err(|error| RollFailed { error, hot: None })
}

/// Builds and publishes the warm bucket of hot directory `hot_dir` (id `id`) from its WAL
/// (recovery); does not delete the hot directory. Returns the warm directory.
pub(crate) fn roll_dir(dir: &Path, id: u64, hot_dir: &Path) -> Result<PathBuf, StoreError> {
    let wal_path = hot_dir.join(WAL_FILE);
    publish(dir, id, |tmp| {
        crate::bucket::write::write_warm(tmp, id, &wal_path)
    })
}

/// Steps 1–5 of a roll: a fresh `tmp_<id>`, `build` into it, fsync it, rename it to its warm
/// name, fsync the index directory. Returns the warm directory.
fn publish(
    dir: &Path,
    id: u64,
    build: impl FnOnce(&Path) -> Result<BucketMeta, StoreError>,
) -> Result<PathBuf, StoreError> {
    let tmp = dir.join(tmp_name(id));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).at(&tmp)?;
    }
    std::fs::create_dir(&tmp).at(&tmp)?;
    let meta = match build(&tmp) {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    fsync_dir(&tmp)?;
    let warm = dir.join(warm_name(id, meta.min_secs(), meta.max_secs()));
    std::fs::rename(&tmp, &warm).at(&warm)?;
    fsync_dir(dir)?;
    Ok(warm)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(i: u64) -> Event {
        Event {
            time: 1_700_000_000_000_000 + i as i64,
            raw: format!("seq={i} hello"),
            host: "h".into(),
            source: "s".into(),
            sourcetype: "st".into(),
            index: "main".into(),
            linecount: 1,
            ..Default::default()
        }
    }

    #[test]
    fn a_failed_flush_leaves_no_undurable_event_in_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
        w.append(&(0..10).map(event).collect::<Vec<_>>()).unwrap();
        w.fail_next_sync.store(true, Ordering::Relaxed);
        assert!(w.append(&(10..20).map(event).collect::<Vec<_>>()).is_err());
        // The lane refuses further appends until reopened.
        assert!(matches!(
            w.append(&[event(20)]),
            Err(StoreError::Broken { .. })
        ));
        let buckets = crate::layout::list_buckets(dir.path()).unwrap();
        assert_eq!(buckets.len(), 1);
        let b = crate::bucket::open_bucket(&buckets[0]).unwrap();
        assert_eq!(b.meta().event_count, 10);
        let q = crate::query::TermQuery::Term(b"hello".to_vec());
        assert_eq!(b.eval(&q).unwrap().len(), 10);
        {
            let io = w.lanes[0].lock_io();
            let hot = io.hot.as_ref().unwrap();
            assert_eq!(hot.index.read().builder.len(), 10);
            assert_eq!(hot.events, 10);
        }
        drop(w);
        // The failed batch was written but not synced: recovery may keep it (never in part).
        let (w, report) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
        assert!(report.replayed_events == 10 || report.replayed_events == 20);
        w.close().unwrap();
    }
}
