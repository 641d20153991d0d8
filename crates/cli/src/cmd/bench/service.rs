//! `lode bench --scenario service`: many small searches against a running server.
//!
//! A server runs in this process on 127.0.0.1 over a generated corpus (reused when `--keep DIR`
//! already holds one). After a 2 s warm-up, 8 client threads, each with its own keep-alive
//! connection, send `<1 to 3 random words> | head 10` through `GET /lode/search` for
//! `--seconds`; the words are drawn from the `_raw` of a sample of indexed events (so they are
//! present in the data). Reported: searches/s, latency percentiles, errors, and the server's CPU
//! seconds (process CPU minus the client threads' own), so the figure per core used does not
//! depend on how loaded the machine is.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lode_node::{Home, Node};
use serde::Serialize;

use crate::cli::BenchArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::sysstat;

/// Client threads.
const CLIENTS: usize = 8;
/// Unmeasured start: fills the reader cache and the page cache.
const WARM_UP: Duration = Duration::from_secs(2);

/// A server running in this process.
pub(super) struct LocalServer {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    node: Arc<Node>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl LocalServer {
    /// Opens `home`'s node and serves its API on an ephemeral local port.
    pub fn start(home: &Home) -> CliResult<LocalServer> {
        let index_root = home.index_root();
        LocalServer::start_with(home, move |node| {
            Ok(lode_server::app(lode_server::AppState::new(
                node, index_root,
            )))
        })
    }

    /// Opens `home`'s node and serves the router `make` builds over it (plain HTTP) on an
    /// ephemeral local port.
    pub fn start_with(
        home: &Home,
        make: impl FnOnce(Arc<Node>) -> CliResult<axum::Router>,
    ) -> CliResult<LocalServer> {
        let node = Arc::new(Node::open(home).map_err(super::super::node_error)?);
        let router = make(node.clone())?;
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<String, String>>();
        let thread = std::thread::spawn(move || -> Result<(), String> {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .thread_name("lode-server")
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(async move {
                let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                        return Err(e.to_string());
                    }
                };
                let addr = listener.local_addr().map_err(|e| e.to_string())?;
                let _ = ready_tx.send(Ok(format!("http://{addr}")));
                lode_server::serve_router(listener, router, async {
                    let _ = stop_rx.await;
                })
                .await
                .map_err(|e| e.to_string())
            })
        });
        let url = ready_rx
            .recv()
            .map_err(|_| CliError::new(FAILURE, "the bench server did not start"))?
            .map_err(|e| CliError::new(FAILURE, format!("the bench server failed: {e}")))?;
        Ok(LocalServer {
            url,
            node,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// Stops serving, waits for in-flight requests, and closes the node (hot buckets roll).
    pub fn stop(mut self) -> CliResult {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join()
                .map_err(|_| CliError::new(FAILURE, "the bench server panicked"))?
                .map_err(|e| CliError::new(FAILURE, e))?;
        }
        let node = Arc::try_unwrap(self.node)
            .map_err(|_| CliError::new(FAILURE, "the bench server still holds the node"))?;
        node.close()
            .map_err(|e| CliError::new(FAILURE, e.to_string()))
    }
}

/// A small deterministic random source (splitmix64).
pub(super) struct Rng(pub u64);

impl Rng {
    /// The next value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }

    /// `<1 to 3 words from words> | head 10`.
    pub fn query(&mut self, words: &[String]) -> String {
        let n = 1 + self.below(3);
        let picked: Vec<&str> = (0..n)
            .map(|_| words[self.below(words.len())].as_str())
            .collect();
        format!("{} | head 10", picked.join(" "))
    }
}

/// Latencies and outcome of one client thread.
pub(super) struct ClientRun {
    /// Latency of each measured successful search, µs.
    pub latencies_us: Vec<u64>,
    /// Of each of those, its words (before the first `|`) and whether it found any row.
    pub classes: Vec<(usize, bool)>,
    /// Measured failures (non-200, transport error, or an error line in the body).
    pub errors: u64,
    /// The first failure's text.
    pub first_error: Option<String>,
    /// CPU seconds this client thread used.
    pub cpu_seconds: f64,
}

/// Sends searches from `make` to `url` while `going()` says so, measuring those sent from
/// `measure_from` on.
pub(super) fn client(
    url: &str,
    measure_from: Instant,
    going: &dyn Fn() -> bool,
    make: &mut dyn FnMut() -> String,
) -> ClientRun {
    let cpu0 = sysstat::thread_cpu_seconds();
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(60))
        .build();
    let target = format!("{url}/lode/search");
    let mut run = ClientRun {
        latencies_us: Vec::new(),
        classes: Vec::new(),
        errors: 0,
        first_error: None,
        cpu_seconds: 0.0,
    };
    while going() {
        let q = make();
        let t0 = Instant::now();
        let outcome = match agent.get(&target).query("q", &q).call() {
            Ok(resp) => match resp.into_string() {
                Ok(body) if body.starts_with("{\"error\"") || body.contains("\n{\"error\"") => {
                    Err(format!("{q}: {body}"))
                }
                // Rows are JSON lines; a last `{"warning": …}` line is not one.
                Ok(body) => Ok(body
                    .lines()
                    .any(|l| l.starts_with('{') && !l.starts_with("{\"warning\""))),
                Err(e) => Err(format!("{q}: reading the body: {e}")),
            },
            Err(e) => Err(format!("{q}: {e}")),
        };
        if t0 < measure_from {
            continue;
        }
        match outcome {
            Ok(found) => {
                run.latencies_us.push(t0.elapsed().as_micros() as u64);
                let words = q.split('|').next().unwrap_or("").split_whitespace().count();
                run.classes.push((words, found));
            }
            Err(e) => {
                run.errors += 1;
                run.first_error.get_or_insert(e);
            }
        }
    }
    run.cpu_seconds = sysstat::thread_cpu_seconds() - cpu0;
    run
}

/// Words of 3 to 12 ASCII letters seen at least 3 times in the `_raw` of the newest 5,000
/// events, most frequent first.
pub(super) fn sample_words(index_root: &Path) -> CliResult<Vec<String>> {
    let mut counts: std::collections::HashMap<String, u32> = Default::default();
    let req = super::super::search::request("* | head 5000");
    lode_search::run::run(index_root, &req, &mut |rows| {
        for mut r in rows {
            if let Some(raw) = r.get("_raw") {
                let raw = raw.as_str().to_ascii_lowercase();
                for w in raw.split(|c: char| !c.is_ascii_alphabetic()) {
                    if (3..=12).contains(&w.len()) {
                        *counts.entry(w.to_string()).or_default() += 1;
                    }
                }
            }
        }
        Ok(())
    })
    .map_err(|e| CliError::new(FAILURE, format!("sampling words: {e}")))?;
    let mut words: Vec<(String, u32)> = counts.into_iter().filter(|(_, n)| *n >= 3).collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if words.is_empty() {
        return Err(CliError::new(
            FAILURE,
            "the index has no words to search for",
        ));
    }
    Ok(words.into_iter().map(|(w, _)| w).collect())
}

/// Latency summary, ms.
#[derive(Debug, Serialize)]
pub(super) struct Latency {
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Latency {
    /// Percentiles of `us` (µs).
    pub fn of(us: &[u64]) -> Latency {
        let ms: Vec<f64> = us.iter().map(|&u| u as f64 / 1e3).collect();
        Latency {
            p50_ms: super::percentile(&ms, 50.0),
            p95_ms: super::percentile(&ms, 95.0),
            p99_ms: super::percentile(&ms, 99.0),
            max_ms: super::percentile(&ms, 100.0),
        }
    }
}

#[derive(Debug, Serialize)]
struct Report {
    machine: String,
    load_average_before: String,
    load_average_after: String,
    stored_bytes: u64,
    query_form: String,
    words: usize,
    clients: usize,
    seconds: f64,
    searches: u64,
    errors: u64,
    first_error: Option<String>,
    searches_per_s: f64,
    latency: Latency,
    server_cpu_seconds: f64,
    server_cores_used: f64,
    searches_per_server_cpu_s: f64,
    /// The searches by their number of words and whether they found a row.
    by_query: Vec<QueryClass>,
    cache: CacheFigures,
}

/// Searches of one number of words that found rows (or none).
#[derive(Debug, Serialize)]
struct QueryClass {
    words: usize,
    found: bool,
    searches: u64,
    mean_ms: f64,
    p99_ms: f64,
    /// Their part of the summed latency of all searches.
    share_of_time: f64,
}

/// [`QueryClass`]es of `runs`, by words, those that found rows first.
fn classes(runs: &[ClientRun]) -> Vec<QueryClass> {
    use std::cmp::Reverse;
    let mut by: std::collections::BTreeMap<(usize, Reverse<bool>), Vec<u64>> = Default::default();
    for r in runs {
        for (&(words, found), &us) in r.classes.iter().zip(&r.latencies_us) {
            by.entry((words, Reverse(found))).or_default().push(us);
        }
    }
    let total: u64 = by.values().flatten().sum();
    by.into_iter()
        .map(|((words, Reverse(found)), us)| {
            let sum: u64 = us.iter().sum();
            QueryClass {
                words,
                found,
                searches: us.len() as u64,
                mean_ms: sum as f64 / us.len().max(1) as f64 / 1e3,
                p99_ms: Latency::of(&us).p99_ms,
                share_of_time: sum as f64 / total.max(1) as f64,
            }
        })
        .collect()
}

/// The reader cache's counters at the end of the run.
#[derive(Debug, Serialize)]
struct CacheFigures {
    entries: u64,
    bytes: u64,
    budget: u64,
    hits: u64,
    misses: u64,
    evictions: u64,
    /// Term lookups answered from the cache's decoded postings, and those that decoded.
    term_hits: u64,
    term_misses: u64,
    /// Decoded postings held at the end, and their bytes (part of `bytes`).
    term_entries: u64,
    term_bytes: u64,
}

/// Runs the scenario.
pub fn run(args: &BenchArgs) -> CliResult {
    let (_tmp, home_dir) = bench_home(args)?;
    let home = Home::new(&home_dir);
    if lode_store::list_buckets(&home.index_root().join("main")).map_or(true, |b| b.is_empty()) {
        super::generate_and_ingest(&home, args)?;
    } else {
        eprintln!("lode bench: reusing the corpus in {}", home_dir.display());
    }
    let words = sample_words(&home.index_root())?;
    let server = LocalServer::start(&home)?;
    let load_before = sysstat::load_average();
    eprintln!(
        "lode bench: {CLIENTS} clients for {} s (+{} s warm-up) at {}…",
        args.seconds,
        WARM_UP.as_secs(),
        server.url
    );
    let cpu0 = sysstat::cpu_seconds();
    let start = Instant::now();
    let measure_from = start + WARM_UP;
    let end = measure_from + Duration::from_secs(args.seconds);
    let runs: Vec<ClientRun> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|i| {
                let (url, words) = (&server.url, &words);
                let mut rng = Rng(args.seed.wrapping_mul(31).wrapping_add(i as u64));
                s.spawn(move || {
                    client(url, measure_from, &|| Instant::now() < end, &mut || {
                        rng.query(words)
                    })
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let seconds = measure_from.elapsed().as_secs_f64().max(1e-9);
    let cpu_all = sysstat::cpu_seconds() - cpu0;
    let cpu_clients: f64 = runs.iter().map(|r| r.cpu_seconds).sum();
    let c = lode_search::cache::global().stats();
    let cache = CacheFigures {
        entries: c.entries,
        bytes: c.bytes,
        budget: c.budget,
        hits: c.hits,
        misses: c.misses,
        evictions: c.evictions,
        term_hits: c.term_hits,
        term_misses: c.term_misses,
        term_entries: c.term_entries,
        term_bytes: c.term_bytes,
    };
    server.stop()?;
    let lat: Vec<u64> = runs
        .iter()
        .flat_map(|r| r.latencies_us.iter().copied())
        .collect();
    let errors: u64 = runs.iter().map(|r| r.errors).sum();
    // The warm-up's server CPU is in `cpu_all`; scale it out by wall time.
    let server_cpu = (cpu_all - cpu_clients).max(0.0) * seconds / (seconds + WARM_UP.as_secs_f64());
    let report = Report {
        machine: super::machine(),
        load_average_before: load_before,
        load_average_after: sysstat::load_average(),
        stored_bytes: sysstat::dir_bytes(&home.index_root().join("main")),
        query_form: "<1 to 3 random words> | head 10".into(),
        words: words.len(),
        clients: CLIENTS,
        seconds,
        searches: lat.len() as u64,
        errors,
        first_error: runs.iter().find_map(|r| r.first_error.clone()),
        searches_per_s: lat.len() as f64 / seconds,
        latency: Latency::of(&lat),
        server_cpu_seconds: server_cpu,
        server_cores_used: server_cpu / seconds,
        searches_per_server_cpu_s: lat.len() as f64 / server_cpu.max(1e-9),
        by_query: classes(&runs),
        cache,
    };
    print_report(&report);
    super::write_json(args, &report)
}

/// The bench home: `--keep DIR` or a temporary directory (returned so it lives long enough).
pub(super) fn bench_home(args: &BenchArgs) -> CliResult<(Option<tempfile::TempDir>, PathBuf)> {
    Ok(match &args.keep {
        Some(p) => (None, p.clone()),
        None => {
            let t = tempfile::Builder::new().prefix("lode-bench").tempdir()?;
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    })
}

fn print_report(r: &Report) {
    println!("machine: {}", r.machine);
    println!(
        "load average: {} (before), {} (after)",
        r.load_average_before, r.load_average_after
    );
    println!(
        "service: {} clients, {:.1} s, searches '{}' over {} sampled words, {:.0} MB stored",
        r.clients,
        r.seconds,
        r.query_form,
        r.words,
        r.stored_bytes as f64 / 1e6
    );
    println!(
        "  {} searches, {:.0} searches/s, {} errors{}",
        r.searches,
        r.searches_per_s,
        r.errors,
        r.first_error
            .as_deref()
            .map(|e| format!(" (first: {e})"))
            .unwrap_or_default()
    );
    println!(
        "  latency ms: p50 {:.2}  p95 {:.2}  p99 {:.2}  max {:.2}",
        r.latency.p50_ms, r.latency.p95_ms, r.latency.p99_ms, r.latency.max_ms
    );
    println!(
        "  server cpu {:.1} s = {:.2} cores used; {:.0} searches per server cpu-second",
        r.server_cpu_seconds, r.server_cores_used, r.searches_per_server_cpu_s
    );
    println!("  words  rows   searches  mean ms   p99 ms  share of time");
    for c in &r.by_query {
        println!(
            "  {:>5}  {:<5} {:>9} {:>8.2} {:>8.2}  {:>5.1} %",
            c.words,
            if c.found { "some" } else { "none" },
            c.searches,
            c.mean_ms,
            c.p99_ms,
            100.0 * c.share_of_time
        );
    }
    println!(
        "  bucket cache: {} readers, {:.0} MB of {:.0} MB, {} hits, {} misses, {} evictions",
        r.cache.entries,
        r.cache.bytes as f64 / 1e6,
        r.cache.budget as f64 / 1e6,
        r.cache.hits,
        r.cache.misses,
        r.cache.evictions
    );
    println!(
        "  decoded postings: {} terms held ({:.0} MB), {} lookups hit, {} decoded",
        r.cache.term_entries,
        r.cache.term_bytes as f64 / 1e6,
        r.cache.term_hits,
        r.cache.term_misses
    );
}
