//! The exclusive writer of one index: group-committed WAL appends and hot → warm rolls.
//! Steps and hazards: docs/DURABILITY.md.
//!
//! A writer has one or more *lanes* (one per ingestion pipeline set). Each lane has its own hot
//! bucket, WAL, group-commit queue and locks, so appends to different lanes share no lock and no
//! fsync; only bucket ids come from one atomic counter (taken when a lane opens a hot bucket), so
//! they stay unique in the index directory. Hot buckets of different lanes overlap in time.

use std::fs::TryLockError;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use lode_event::Event;

use crate::config::IndexConfig;
use crate::consts::{LOCK_FILE, WAL_FILE};
use crate::error::{IoContext, StoreError};
use crate::layout::{fsync_dir, hot_name, tmp_name, warm_name};
use crate::wal::{self, WalWriter};

pub use crate::recover::RecoveryReport;

/// The open hot bucket.
#[derive(Debug)]
pub(crate) struct Hot {
    /// Bucket id.
    pub id: u64,
    /// Its WAL.
    pub wal: WalWriter,
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

/// Queue of the group commit.
#[derive(Default)]
struct Queue {
    /// Encoded WAL records not yet written.
    pending: Vec<u8>,
    /// Statistics of `pending`: events, raw bytes, min and max time µs.
    pending_stats: (u64, u64, i64, i64),
    /// Sequence number of the last enqueued batch.
    enqueued: u64,
    /// Every batch up to this sequence number is durable.
    durable: u64,
    /// A leader is writing and syncing.
    flushing: bool,
    /// First I/O failure; the writer refuses further appends.
    broken: Option<String>,
}

/// State of one lane touched only by its flush leader or a roll.
pub(crate) struct Io {
    /// The lane's hot bucket, created on its first append.
    pub hot: Option<Hot>,
}

/// One lane: a hot bucket with its own group commit.
struct Lane {
    /// Guards the lane's group-commit queue.
    queue: Mutex<Queue>,
    /// Signals the lane's waiters when `durable` advances or the leader steps down.
    cv: Condvar,
    /// Guards the lane's hot WAL and its roll; taken by one flush leader at a time (and by
    /// rolls), never while `queue` is held.
    io: Mutex<Io>,
}

impl Lane {
    fn new(hot: Option<Hot>) -> Lane {
        Lane {
            queue: Mutex::new(Queue::default()),
            cv: Condvar::new(),
            io: Mutex::new(Io { hot }),
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
    /// bucket. Recovery keeps the newest `lanes` hot buckets open (one per lane) and rolls any
    /// older ones to warm.
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
        let w = IndexWriter {
            dir: dir.to_path_buf(),
            cfg,
            _lock: lock,
            lanes: (0..lanes).map(|_| Lane::new(hots.next())).collect(),
            next_id: AtomicU64::new(next_id),
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

    /// Appends `events` to lane 0; see [`IndexWriter::append_to`].
    pub fn append(&self, events: &[Event]) -> Result<(), StoreError> {
        self.append_to(0, events)
    }

    /// Appends `events` to the hot bucket of lane `lane` (wrapping around the number of lanes);
    /// returns once they are durable (written and fdatasynced). Concurrent callers of one lane
    /// are group-committed: one leader writes every pending batch and syncs once. Lanes never
    /// wait for each other.
    pub fn append_to(&self, lane: usize, events: &[Event]) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let lane = self.lane(lane);
        let mut q = lane.lock_queue();
        if let Some(b) = &q.broken {
            return Err(self.broken(b));
        }
        wal::encode_record(&mut q.pending, events);
        let s = &mut q.pending_stats;
        if s.0 == 0 {
            *s = (0, 0, i64::MAX, i64::MIN);
        }
        for e in events {
            s.0 += 1;
            s.1 += e.raw.len() as u64;
            s.2 = s.2.min(e.time);
            s.3 = s.3.max(e.time);
        }
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
            let buf = std::mem::take(&mut q.pending);
            let stats = std::mem::take(&mut q.pending_stats);
            let target = q.enqueued;
            drop(q);
            let res = self.flush(lane, &buf, stats);
            q = lane.lock_queue();
            q.flushing = false;
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

    /// Leader of `lane`: writes `buf` to its hot WAL, syncs, then rolls if a limit is reached.
    fn flush(
        &self,
        lane: &Lane,
        buf: &[u8],
        stats: (u64, u64, i64, i64),
    ) -> Result<(), StoreError> {
        let mut io = lane.lock_io();
        let io = &mut *io;
        if io.hot.is_none() {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            io.hot = Some(self.create_hot(id)?);
        }
        let hot = io.hot.as_mut().expect("just created");
        hot.wal.write(buf)?;
        hot.wal.sync()?;
        hot.events += stats.0;
        hot.raw_bytes += stats.1;
        hot.min_time = hot.min_time.min(stats.2);
        hot.max_time = hot.max_time.max(stats.3);
        hot.last_write_secs = now_secs();
        // The batch is durable now; a failing roll leaves it in the WAL, so report success for
        // the batch and let the roll error surface from the next explicit roll.
        let _ = self.maybe_roll_locked(io);
        Ok(())
    }

    fn create_hot(&self, id: u64) -> Result<Hot, StoreError> {
        let hot_dir = self.dir.join(hot_name(id));
        std::fs::create_dir(&hot_dir).at(&hot_dir)?;
        let wal = WalWriter::create(&hot_dir.join(WAL_FILE))?;
        fsync_dir(&hot_dir)?;
        fsync_dir(&self.dir)?;
        Ok(Hot {
            id,
            wal,
            events: 0,
            raw_bytes: 0,
            min_time: i64::MAX,
            max_time: i64::MIN,
            last_write_secs: now_secs(),
        })
    }

    fn maybe_roll_locked(&self, io: &mut Io) -> Result<bool, StoreError> {
        let Some(hot) = &io.hot else { return Ok(false) };
        let span_us = hot.max_time.saturating_sub(hot.min_time);
        let full = hot.raw_bytes >= self.cfg.max_bucket_raw_bytes
            || hot.events >= self.cfg.max_bucket_events.min(u32::MAX as u64 - 1)
            || (hot.events > 0 && span_us / 1_000_000 > self.cfg.max_hot_span_secs);
        if full {
            roll_locked(&self.dir, io)?;
        }
        Ok(full)
    }

    /// Rolls the hot bucket of every lane to warm now (no-op for empty ones), the lanes in
    /// parallel (one thread per lane: building a bucket is CPU-bound). Every lane is tried; the
    /// first error is returned.
    pub fn roll(&self) -> Result<(), StoreError> {
        let roll_lane = |lane: &Lane| roll_locked(&self.dir, &mut lane.lock_io()).map(|_| ());
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
                roll_locked(&self.dir, &mut io)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// Rolls every hot bucket and releases the lock.
    pub fn close(self) -> Result<(), StoreError> {
        self.roll()
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Rolls the hot bucket of `io` (if it holds events): build in `tmp_<id>`, fsync, rename to
/// `db_…`, fsync the index directory, delete the hot directory. Returns whether it rolled.
pub(crate) fn roll_locked(dir: &Path, io: &mut Io) -> Result<bool, StoreError> {
    let Some(hot) = &io.hot else { return Ok(false) };
    if hot.wal.is_empty() {
        return Ok(false);
    }
    let id = hot.id;
    let hot_dir = dir.join(hot_name(id));
    roll_dir(dir, id, &hot_dir)?;
    // The warm bucket exists now: the hot bucket must never take another event.
    io.hot = None;
    std::fs::remove_dir_all(&hot_dir).at(&hot_dir)?;
    fsync_dir(dir)?;
    Ok(true)
}

/// Builds and publishes the warm bucket of hot directory `hot_dir` (id `id`); does not delete
/// the hot directory. Returns the warm directory.
pub(crate) fn roll_dir(dir: &Path, id: u64, hot_dir: &Path) -> Result<PathBuf, StoreError> {
    let tmp = dir.join(tmp_name(id));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).at(&tmp)?;
    }
    std::fs::create_dir(&tmp).at(&tmp)?;
    let meta = match crate::bucket::write::write_warm(&tmp, id, &hot_dir.join(WAL_FILE)) {
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
