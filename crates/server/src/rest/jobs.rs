//! Search jobs (`exec_mode=normal|blocking`): each runs in the background, writes its result rows
//! to `var/run/lode/dispatch/<sid>/results.jsonl` as they come, and is kept for its `ttl` after
//! it finishes or was last touched (default 600 s, Splunk's), then removed with its directory.
//! Control: cancel (the job is gone), finalize (stop now, keep what was found), pause/unpause,
//! touch, setttl.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::format::Cell;

use super::output::Fields;

/// Seconds a finished job is kept after its last access, unless `ttl` says otherwise.
pub const DEFAULT_TTL: u64 = 600;
/// Rows a job keeps unless `max_count` says otherwise (Splunk's default).
pub const DEFAULT_MAX_COUNT: u64 = 10_000;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// Waiting for a search slot.
    Queued,
    /// Reading buckets.
    Running,
    /// Paused by `control action=pause`.
    Paused,
    /// Finished (also after `finalize`).
    Done,
    /// The search failed.
    Failed,
}

impl Dispatch {
    /// Splunk's `dispatchState`.
    pub fn name(self) -> &'static str {
        match self {
            Dispatch::Queued => "QUEUED",
            Dispatch::Running => "RUNNING",
            Dispatch::Paused => "PAUSED",
            Dispatch::Done => "DONE",
            Dispatch::Failed => "FAILED",
        }
    }
}

/// What changes while a job runs.
#[derive(Debug, Clone)]
pub struct Progress {
    /// State.
    pub dispatch: Dispatch,
    /// Rows written to the results file.
    pub result_count: u64,
    /// Events the search matched.
    pub event_count: u64,
    /// Events read.
    pub scan_count: u64,
    /// Whether the search ends in a transforming command.
    pub transforming: bool,
    /// Seconds spent running.
    pub run_duration: f64,
    /// `finalize` ended it early.
    pub finalized: bool,
    /// Error or warning texts.
    pub messages: Vec<(String, String)>,
    /// Seconds kept after the last access.
    pub ttl: u64,
    /// Last access (status, results, control).
    pub touched: Instant,
    /// `updated` of the entry, µs.
    pub updated_us: i64,
    /// When it started running (for `runDuration` while it runs).
    pub started: Option<Instant>,
    /// Phase timings, buckets and the remote/local split, once it finished.
    pub inspector: Option<Inspector>,
}

/// Most explain lines a job keeps for the inspector (one per bucket read, plus the plan).
pub const MAX_EXPLAIN_LINES: usize = 500;

/// What the job inspector shows of a finished job: where the time went (Splunk's
/// `performance` keys), the buckets, the execution path and the remote/local split.
#[derive(Debug, Clone, Default)]
pub struct Inspector {
    /// The search's counts and phase timings.
    pub stats: lode_search::run::SearchStats,
    /// Seconds spent writing result rows to the results file (inside `emit`).
    pub write_secs: f64,
}

impl Inspector {
    /// Splunk's `performance` dict: `{key: {duration_secs, invocations}}`. Phases of this node's
    /// run, outermost first; `command.search.*` break the scan down.
    pub fn performance(&self) -> Vec<(&'static str, f64, u64)> {
        let p = &self.stats.profile;
        let s = |us: u64| us as f64 / 1e6;
        let st = &self.stats;
        vec![
            ("dispatch.evaluate", s(p.parse_us), 1),
            ("dispatch.plan", s(p.plan_us), 1),
            ("dispatch.fetch", s(p.scan_us), st.buckets_read.max(1)),
            (
                "command.search",
                s(p.scan_us.saturating_sub(p.emit_us)),
                st.buckets_read,
            ),
            ("command.search.index", 0.0, st.buckets_total),
            ("dispatch.writeResults", self.write_secs, p.emit_calls),
        ]
    }

    /// The `performance` dict as JSON.
    pub fn performance_json(&self) -> serde_json::Value {
        let m: serde_json::Map<String, serde_json::Value> = self
            .performance()
            .into_iter()
            .map(|(k, secs, n)| {
                (
                    k.to_string(),
                    serde_json::json!({"duration_secs": (secs * 1e6).round() / 1e6, "invocations": n}),
                )
            })
            .collect();
        serde_json::Value::Object(m)
    }

    /// Bucket counts for the inspector (`buckets`: total, pruned by time, skipped by bloom,
    /// read, corrupt; events candidate, scanned, matched).
    pub fn buckets_json(&self) -> serde_json::Value {
        let st = &self.stats;
        serde_json::json!({
            "total": st.buckets_total, "pruned_time": st.buckets_pruned_time,
            "skipped_bloom": st.buckets_skipped_bloom, "read": st.buckets_read,
            "corrupt": st.buckets_corrupt, "events_candidate": st.events_candidate,
            "events_scanned": st.events_scanned, "events_matched": st.events_matched,
        })
    }

    /// The execution path (`lode search --explain`'s lines), capped at
    /// [`MAX_EXPLAIN_LINES`].
    pub fn explain(&self) -> String {
        let lines = &self.stats.explain;
        let mut out = lines
            .iter()
            .take(MAX_EXPLAIN_LINES)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        if lines.len() > MAX_EXPLAIN_LINES {
            out.push_str(&format!(
                "\n… {} more lines",
                lines.len() - MAX_EXPLAIN_LINES
            ));
        }
        out
    }
}

/// One job.
pub struct Job {
    /// Search id: `<epoch seconds>.<counter>`.
    pub sid: String,
    /// The SPL.
    pub search: String,
    /// Who created it.
    pub owner: String,
    /// `earliest_time` / `latest_time` as given.
    pub earliest: Option<String>,
    /// See `earliest`.
    pub latest: Option<String>,
    /// Creation time, µs.
    pub published_us: i64,
    /// Most rows kept.
    pub max_count: u64,
    /// Its dispatch directory.
    pub dir: PathBuf,
    progress: Mutex<Progress>,
    cancel: AtomicBool,
    pause: AtomicBool,
    finalize: AtomicBool,
}

fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why the row callback stopped the search.
pub const STOPPED: &str = "job stopped";

impl Job {
    /// A snapshot of its progress (and marks it accessed).
    pub fn progress(&self) -> Progress {
        let mut p = lock(&self.progress);
        p.touched = Instant::now();
        p.clone()
    }

    /// Whether it finished (done, finalized, failed).
    pub fn is_done(&self) -> bool {
        matches!(
            lock(&self.progress).dispatch,
            Dispatch::Done | Dispatch::Failed
        )
    }

    fn results_path(&self) -> PathBuf {
        self.dir.join("results.jsonl")
    }

    /// Rows `offset..offset+count` of the results file (what is there so far).
    pub fn rows(&self, offset: usize, count: usize) -> Vec<Fields> {
        let Ok(f) = std::fs::File::open(self.results_path()) else {
            return Vec::new();
        };
        std::io::BufReader::new(f)
            .lines()
            .map_while(Result::ok)
            .skip(offset)
            .take(count)
            .filter_map(|l| decode(&l))
            .collect()
    }

    /// Applies a `control` action; `Err` for an unknown action or bad `ttl`.
    pub fn control(&self, action: &str, ttl: Option<&str>) -> Result<&'static str, String> {
        let mut p = lock(&self.progress);
        p.touched = Instant::now();
        p.updated_us = now_us();
        Ok(match action {
            "cancel" => {
                self.cancel.store(true, Ordering::Relaxed);
                "Search job cancelled."
            }
            "finalize" => {
                self.finalize.store(true, Ordering::Relaxed);
                p.finalized = true;
                "Search job finalized."
            }
            "pause" => {
                self.pause.store(true, Ordering::Relaxed);
                if p.dispatch == Dispatch::Running {
                    p.dispatch = Dispatch::Paused;
                }
                "Search job paused."
            }
            "unpause" => {
                self.pause.store(false, Ordering::Relaxed);
                if p.dispatch == Dispatch::Paused {
                    p.dispatch = Dispatch::Running;
                }
                "Search job unpaused."
            }
            "touch" => "Search job touched.",
            "setttl" => {
                let t = ttl
                    .and_then(|t| t.trim().parse::<u64>().ok())
                    .ok_or("setttl needs ttl=<seconds>")?;
                p.ttl = t;
                "Search job ttl set."
            }
            "enablepreview" | "disablepreview" | "save" | "unsave" | "setpriority" => {
                "Search job updated."
            }
            other => return Err(format!("Unknown action: {other}")),
        })
    }

    /// Finalizes a running job for its user's `srchMaxTime`, with `message` as a warning (nothing
    /// for a job that already ended). Returns whether it did.
    pub fn auto_finalize(&self, message: &str) -> bool {
        let mut p = lock(&self.progress);
        if matches!(p.dispatch, Dispatch::Done | Dispatch::Failed)
            || self.cancel.load(Ordering::Relaxed)
        {
            return false;
        }
        self.finalize.store(true, Ordering::Relaxed);
        p.finalized = true;
        p.messages.push(("WARN".into(), message.to_string()));
        p.updated_us = now_us();
        true
    }

    /// Called by the search for each batch of rows: writes them (so `results_preview` and
    /// `events` serve them while the job runs), then honours pause (a paused job keeps what it
    /// has and waits before reading on), finalize and cancel (returns `false` to stop).
    fn take(&self, out: &mut std::io::BufWriter<std::fs::File>, rows: Vec<Fields>) -> bool {
        if self.stopped() {
            return false;
        }
        if !self.publish(out, rows) {
            return false;
        }
        while self.pause.load(Ordering::Relaxed) && !self.stopped() {
            std::thread::sleep(Duration::from_millis(20));
        }
        !self.stopped()
    }

    fn stopped(&self) -> bool {
        self.cancel.load(Ordering::Relaxed) || self.finalize.load(Ordering::Relaxed)
    }

    /// Appends a batch to the results file and the counts (`false` when `max_count` is
    /// reached).
    fn publish(&self, out: &mut std::io::BufWriter<std::fs::File>, rows: Vec<Fields>) -> bool {
        let mut p = lock(&self.progress);
        let mut more = true;
        for r in rows {
            if p.result_count >= self.max_count {
                more = false;
                break;
            }
            let _ = writeln!(out, "{}", encode(&r));
            p.result_count += 1;
        }
        let _ = out.flush();
        // Event searches: every row is an event found so far.
        if !p.transforming {
            p.event_count = p.event_count.max(p.result_count);
        }
        if let Some(t) = p.started {
            p.run_duration = t.elapsed().as_secs_f64();
        }
        p.updated_us = now_us();
        more
    }
}

/// A row as one JSON line: `[[name, value or [values]], …]` (keeps the field order).
fn encode(r: &Fields) -> String {
    let v: Vec<serde_json::Value> = r
        .iter()
        .map(|(k, c)| {
            let val = match c {
                Cell::One(s) => serde_json::Value::from(s.as_str()),
                Cell::Many(v) => serde_json::Value::from(v.clone()),
            };
            serde_json::json!([k, val])
        })
        .collect();
    serde_json::Value::Array(v).to_string()
}

fn decode(line: &str) -> Option<Fields> {
    let v: Vec<(String, serde_json::Value)> = serde_json::from_str(line).ok()?;
    Some(
        v.into_iter()
            .map(|(k, v)| {
                let c = match v {
                    serde_json::Value::Array(items) => Cell::Many(
                        items
                            .into_iter()
                            .map(|i| i.as_str().unwrap_or_default().to_string())
                            .collect(),
                    ),
                    other => Cell::One(other.as_str().unwrap_or_default().to_string()),
                };
                (k, c)
            })
            .collect(),
    )
}

/// Every job of the server.
pub struct Jobs {
    map: Mutex<HashMap<String, Arc<Job>>>,
    counter: AtomicU64,
    root: PathBuf,
}

impl Jobs {
    /// Jobs whose dispatch directories go under `root` (emptied: jobs do not outlive the
    /// server).
    pub fn new(root: PathBuf) -> Jobs {
        let _ = std::fs::remove_dir_all(&root);
        Jobs {
            map: Mutex::default(),
            counter: AtomicU64::new(0),
            root,
        }
    }

    /// Removes jobs past their ttl (finished ones only) with their directories.
    pub fn sweep(&self) {
        let mut m = lock(&self.map);
        m.retain(|_, j| {
            let p = lock(&j.progress);
            let expired = matches!(p.dispatch, Dispatch::Done | Dispatch::Failed)
                && p.touched.elapsed() > Duration::from_secs(p.ttl);
            if expired {
                let _ = std::fs::remove_dir_all(&j.dir);
            }
            !expired
        });
    }

    /// The job `sid` if `user` may see it.
    pub fn get(&self, sid: &str, user: &str) -> Option<Arc<Job>> {
        self.sweep();
        lock(&self.map)
            .get(sid)
            .filter(|j| j.owner == user)
            .cloned()
    }

    /// `user`'s jobs, newest first.
    pub fn list(&self, user: &str) -> Vec<Arc<Job>> {
        self.sweep();
        let mut v: Vec<Arc<Job>> = lock(&self.map)
            .values()
            .filter(|j| j.owner == user)
            .cloned()
            .collect();
        v.sort_by_key(|j| std::cmp::Reverse(j.published_us));
        v
    }

    /// Removes job `sid` (cancelling it if it runs).
    pub fn remove(&self, sid: &str) {
        if let Some(j) = lock(&self.map).remove(sid) {
            j.cancel.store(true, Ordering::Relaxed);
            let _ = std::fs::remove_dir_all(&j.dir);
        }
    }

    /// Registers a new job (not started).
    pub fn create(
        &self,
        req: &lode_search::run::SearchRequest,
        owner: &str,
        max_count: Option<u64>,
        ttl: Option<u64>,
    ) -> std::io::Result<Arc<Job>> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        let sid = format!("{}.{n}", now_us() / 1_000_000);
        let dir = self.root.join(&sid);
        std::fs::create_dir_all(&dir)?;
        let job = Arc::new(Job {
            sid: sid.clone(),
            search: req.query.clone(),
            owner: owner.to_string(),
            earliest: req.earliest.clone(),
            latest: req.latest.clone(),
            published_us: now_us(),
            max_count: max_count.unwrap_or(DEFAULT_MAX_COUNT).max(1),
            dir,
            progress: Mutex::new(Progress {
                dispatch: Dispatch::Queued,
                result_count: 0,
                event_count: 0,
                scan_count: 0,
                transforming: false,
                run_duration: 0.0,
                finalized: false,
                messages: Vec::new(),
                ttl: ttl.unwrap_or(DEFAULT_TTL),
                touched: Instant::now(),
                updated_us: now_us(),
                started: None,
                inspector: None,
            }),
            cancel: AtomicBool::new(false),
            pause: AtomicBool::new(false),
            finalize: AtomicBool::new(false),
        });
        lock(&self.map).insert(sid, job.clone());
        Ok(job)
    }
}

/// Runs `job` to its end on the calling (blocking) thread.
pub fn run(
    job: &Job,
    app: &crate::AppState,
    req: &lode_search::run::SearchRequest,
    opts: &lode_search::run::RunOptions,
    fields: impl Fn(&mut lode_search::row::Row) -> Fields,
) {
    let t0 = Instant::now();
    // The inspector shows the execution path of every job.
    let req = &lode_search::run::SearchRequest {
        explain: true,
        ..req.clone()
    };
    let write_us = std::cell::Cell::new(0u64);
    {
        let mut p = lock(&job.progress);
        p.started = Some(t0);
        p.dispatch = if job.pause.load(Ordering::Relaxed) {
            Dispatch::Paused
        } else {
            Dispatch::Running
        };
        p.updated_us = now_us();
    }
    let file = std::fs::File::create(job.results_path());
    let outcome = match file {
        Err(e) => Err(format!("cannot write the results: {e}")),
        Ok(f) => {
            let mut out = std::io::BufWriter::new(f);
            let res = lode_search::run::run_with(&app.index_root, req, opts, &mut |rows| {
                let t = Instant::now();
                let rows = rows.into_iter().map(|mut r| fields(&mut r)).collect();
                let more = job.take(&mut out, rows);
                write_us.set(write_us.get() + t.elapsed().as_micros() as u64);
                if more {
                    Ok(())
                } else {
                    Err(lode_search::SearchError::User(STOPPED.into()))
                }
            });
            let _ = out.flush();
            match res {
                Ok(stats) => Ok(Some(stats)),
                Err(lode_search::SearchError::User(m)) if m == STOPPED => Ok(None),
                Err(e) => Err(e.to_string()),
            }
        }
    };
    let mut p = lock(&job.progress);
    p.run_duration = t0.elapsed().as_secs_f64();
    p.updated_us = now_us();
    p.touched = Instant::now();
    match outcome {
        Ok(stats) => {
            if let Some(s) = stats {
                p.scan_count = s.events_scanned;
                p.event_count = s.events_matched;
                p.transforming = s.transforming;
                for w in &s.warnings {
                    p.messages.push(("WARN".into(), w.clone()));
                }
                p.inspector = Some(Inspector {
                    stats: s,
                    write_secs: write_us.get() as f64 / 1e6,
                });
            } else {
                p.event_count = p.event_count.max(p.result_count);
            }
            if !p.transforming {
                p.event_count = p.event_count.max(p.result_count);
            }
            p.dispatch = Dispatch::Done;
        }
        Err(e) => {
            p.messages.push(("ERROR".into(), e));
            p.dispatch = Dispatch::Failed;
        }
    }
}

/// `remoteSearch` of a job entry: the part that runs next to the data (the whole search until
/// it finished, or when it is not split).
pub fn remote_search(j: &Job, p: &Progress) -> String {
    match &p.inspector {
        Some(i) if !i.stats.profile.remote_search.is_empty() => {
            i.stats.profile.remote_search.clone()
        }
        _ => j.search.clone(),
    }
}

/// `reportSearch` of a job entry: the part that runs once on the merged partial states.
pub fn report_search(p: &Progress) -> String {
    p.inspector
        .as_ref()
        .map(|i| i.stats.profile.report_search.clone())
        .unwrap_or_default()
}

/// Adds the inspector's keys to a JSON job entry's content: `performance`
/// (`{key: {duration_secs, invocations}}`), `buckets` and `explain` (once the job finished).
pub fn add_inspector_json(p: &Progress, c: &mut serde_json::Map<String, serde_json::Value>) {
    if let Some(i) = &p.inspector {
        c.insert("performance".into(), i.performance_json());
        c.insert("buckets".into(), i.buckets_json());
        c.insert("explain".into(), i.explain().into());
    }
}

/// The `performance` key of an XML job entry (empty until the job finished).
pub fn performance_xml(p: &Progress) -> String {
    use super::atom::DictValue as D;
    let Some(i) = &p.inspector else {
        return String::new();
    };
    let items: Vec<(String, D)> = i
        .performance()
        .into_iter()
        .map(|(k, secs, n)| {
            (
                k.to_string(),
                D::Dict(vec![
                    ("duration_secs".into(), D::Text(format!("{secs:.6}"))),
                    ("invocations".into(), D::Text(n.to_string())),
                ]),
            )
        })
        .collect();
    let mut out = String::from("<s:key name=\"performance\">");
    super::atom::write_dict(&mut out, &items);
    out.push_str("</s:key>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_in_order() {
        let r: Fields = vec![
            ("z".into(), Cell::One("1".into())),
            ("a".into(), Cell::Many(vec!["x".into(), "y".into()])),
        ];
        assert_eq!(decode(&encode(&r)), Some(r));
    }

    #[test]
    fn controls() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = Jobs::new(dir.path().join("dispatch"));
        let req = lode_search::run::SearchRequest {
            query: "x".into(),
            earliest: None,
            latest: None,
            now: 0,
            tz: lode_time::Zone::Utc,
            explain: false,
            force_scan: false,
        };
        let j = jobs.create(&req, "ann", None, Some(0)).unwrap();
        assert!(jobs.get(&j.sid, "bob").is_none(), "private to its owner");
        assert!(jobs.get(&j.sid, "ann").is_some());
        assert!(j.control("setttl", Some("5")).is_ok());
        assert!(j.control("setttl", None).is_err());
        assert!(j.control("explode", None).is_err());
        j.control("pause", None).unwrap();
        j.control("cancel", None).unwrap();
        jobs.remove(&j.sid);
        assert!(jobs.get(&j.sid, "ann").is_none());
        assert!(!j.dir.exists());
    }
}
