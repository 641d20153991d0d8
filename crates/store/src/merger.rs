//! The background merger of one index writer: after each roll it runs the merges
//! [`crate::merge::plan`] proposes, and deletes their sources once the grace period has passed.
//! Merge passes (background or [`crate::IndexWriter::merge`]) never overlap.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::config::IndexConfig;
use crate::error::StoreError;
use crate::merge::{merge, plan, remove_covered};

/// What the writer and its roll threads share with the merger thread.
pub(crate) struct Shared {
    dir: PathBuf,
    target: u64,
    grace: Duration,
    state: Mutex<State>,
    cv: Condvar,
    /// Held for a whole merge pass.
    pass: Mutex<()>,
    /// Cancels a running merge (the writer is closing or dropped).
    stop: AtomicBool,
}

#[derive(Default)]
struct State {
    /// A roll published a bucket since the last pass.
    kicked: bool,
    /// The thread should exit.
    stop: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tells the merger a warm bucket was published.
    pub fn kick(&self) {
        self.lock().kicked = true;
        self.cv.notify_all();
    }

    /// Runs every merge the policy proposes now. Returns how many buckets it published
    /// (fewer when cancelled).
    fn pass(&self) -> Result<u32, StoreError> {
        let _one = self.pass.lock().unwrap_or_else(|p| p.into_inner());
        let mut published = 0;
        for group in plan(&self.dir, self.target)? {
            let cancel = || self.stop.load(Ordering::Relaxed);
            match merge(&self.dir, &group, &cancel)? {
                Some(_) => published += 1,
                None => break,
            }
        }
        Ok(published)
    }
}

/// The merger thread of one writer (none when merging is off).
pub(crate) struct Merger {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl Merger {
    /// Starts the merger of the index `dir` (`None` when `cfg` turns merging off, or when no
    /// thread can be started: the index then simply keeps its buckets as they are). It looks
    /// for merges at once.
    pub fn start(dir: PathBuf, cfg: &IndexConfig) -> Option<Merger> {
        if cfg.max_merged_raw_bytes == 0 {
            return None;
        }
        let shared = Arc::new(Shared {
            dir,
            target: cfg.max_merged_raw_bytes,
            grace: Duration::from_secs(cfg.merge_grace_secs),
            state: Mutex::new(State {
                kicked: true,
                stop: false,
            }),
            cv: Condvar::new(),
            pass: Mutex::new(()),
            stop: AtomicBool::new(false),
        });
        let theirs = shared.clone();
        let handle = std::thread::Builder::new()
            .name("lode-merge".into())
            .spawn(move || run(&theirs))
            .ok()?;
        Some(Merger {
            shared,
            handle: Some(handle),
        })
    }

    /// What roll threads kick.
    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Tells the merger a warm bucket was published.
    pub fn kick(&self) {
        self.shared.kick();
    }

    /// Merges now (waiting for a background pass), then deletes the sources at once.
    pub fn merge_now(&self) -> Result<u32, StoreError> {
        let n = self.shared.pass()?;
        remove_covered(&self.shared.dir)?;
        Ok(n)
    }

    /// Stops the thread after the merge it is running (not cancelled: its work is kept), then
    /// runs the merges still due to completion and deletes their sources: a closed index is
    /// left merged.
    pub fn finish(mut self) -> Result<u32, StoreError> {
        self.stop_thread(false);
        self.merge_now()
    }

    /// Stops the thread, cancelling a running merge when `cancel`.
    fn stop_thread(&mut self, cancel: bool) {
        if cancel {
            self.shared.stop.store(true, Ordering::Relaxed);
        }
        self.shared.lock().stop = true;
        self.shared.cv.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Merger {
    fn drop(&mut self) {
        self.stop_thread(true);
    }
}

/// The merger thread: a pass after every kick; sources deleted `grace` after the last
/// publication.
fn run(shared: &Shared) {
    let mut published_at: Option<Instant> = None;
    loop {
        {
            let mut st = shared.lock();
            loop {
                if st.stop {
                    return;
                }
                if st.kicked {
                    break;
                }
                match published_at {
                    Some(t) => {
                        let due = t + shared.grace;
                        let now = Instant::now();
                        if now >= due {
                            break;
                        }
                        st = shared
                            .cv
                            .wait_timeout(st, due - now)
                            .unwrap_or_else(|p| p.into_inner())
                            .0;
                    }
                    None => st = shared.cv.wait(st).unwrap_or_else(|p| p.into_inner()),
                }
            }
            st.kicked = false;
        }
        match shared.pass() {
            Ok(0) => {}
            Ok(n) => {
                tracing::debug!(dir = %shared.dir.display(), merged = n, "buckets merged");
                published_at = Some(Instant::now());
            }
            Err(e) => tracing::warn!(dir = %shared.dir.display(), "bucket merge failed: {e}"),
        }
        if published_at.is_some_and(|t| t.elapsed() >= shared.grace) {
            match remove_covered(&shared.dir) {
                Ok(_) => published_at = None,
                Err(e) => {
                    tracing::warn!(
                        dir = %shared.dir.display(),
                        "deleting merged buckets' sources failed: {e}"
                    );
                    // Tried again after another grace period.
                    published_at = Some(Instant::now());
                }
            }
        }
    }
}
