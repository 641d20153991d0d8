//! `lode bench --scenario burst`: ingest at full speed while searches run.
//!
//! A generated corpus (`--size`, default 1 GB) is streamed into a server running in this process
//! through `POST /lode/ingest`, its four files at once (each answer means the file's events are
//! durable), starting from an empty `main` index (`--keep DIR` reuses the home but clears
//! `main`). Meanwhile 4 client threads search continuously: two send `<1 to 3 words> | head 10`
//! (words sampled from the corpus text), two the sparse planted term `| stats count by host`.
//! Reported: ingest MB/s (wall and per core used — the whole process: server, pipeline,
//! searches and clients), search latencies by kind, average CPU, peak memory (sampled VmRSS and
//! VmHWM) and disk I/O from `/proc/self/io` (system calls and bytes per second). Every memory
//! sample (resident, anonymous, the allocator's figures, caches, hot buckets, rolls and merges
//! running) is also written to `burst-memory.tsv` in the bench's home (`--keep DIR` keeps it).

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use lode_node::Home;
use serde::Serialize;

use super::service::{bench_home, client, ClientRun, Latency, LocalServer, Rng};
use crate::cli::BenchArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::sysstat::{self, IoCounters};

/// Corpus files and their sourcetypes.
const FILES: [(&str, &str); 4] = [
    ("syslog.log", "syslog"),
    ("access.log", "access_combined"),
    ("app.json", "_json"),
    ("app_java.log", "log4j"),
];
/// Memory and CPU sampling period.
const SAMPLE_EVERY: Duration = Duration::from_millis(200);
/// Every memory sample, one line each, in the bench's home (kept with `--keep DIR`).
const TRACE_FILE: &str = "burst-memory.tsv";

#[derive(Debug, Serialize)]
struct SearchKind {
    query_form: String,
    searches: u64,
    errors: u64,
    first_error: Option<String>,
    latency: Latency,
}

#[derive(Debug, Serialize)]
struct Report {
    machine: String,
    load_average_before: String,
    load_average_after: String,
    raw_bytes: u64,
    events: u64,
    seconds: f64,
    cpu_seconds: f64,
    ingest_mb_per_s: f64,
    ingest_mb_per_s_per_core: f64,
    avg_cpu_pct: f64,
    peak_rss_mb: f64,
    /// Percentiles 50, 90 and 99 of the sampled resident memory, MB: a peak is one sample, and
    /// these say how often the process came near it.
    rss_percentiles_mb: [f64; 3],
    /// Times freed memory was given back to the system (`lode_store::memory::give_back`: after
    /// rolls and merges; once a second, and at each look of the memory watcher while the
    /// process is over its target, when enough of it is resident) and the milliseconds that
    /// took in all.
    give_backs: u64,
    give_back_ms: f64,
    /// What the search caches held at the highest sampled RSS.
    caches_at_peak: CachesAtPeak,
    io: IoCounters,
    io_read_syscalls_per_s: f64,
    io_write_syscalls_per_s: f64,
    disk_read_mb_per_s: f64,
    disk_write_mb_per_s: f64,
    searches: Vec<SearchKind>,
}

/// Runs the scenario.
pub fn run(args: &BenchArgs) -> CliResult {
    let (_tmp, home_dir) = bench_home(args)?;
    let home = Home::new(&home_dir);
    let main = home.index_root().join("main");
    if main.exists() {
        std::fs::remove_dir_all(&main)?;
    }
    let (corpus, summary) = super::generate(&home, args)?;
    let words = corpus_words(&corpus)?;
    let sparse = summary
        .planted
        .iter()
        .find(|p| p.class == "sparse")
        .map(|p| format!("{} | stats count by host", p.search))
        .ok_or_else(|| CliError::new(FAILURE, "the corpus has no sparse planted term"))?;
    let server = LocalServer::start(&home)?;
    let load_before = sysstat::load_average();
    eprintln!(
        "lode bench: ingesting through {} with 4 searches running…",
        server.url
    );
    let done = AtomicBool::new(false);
    let events = AtomicU64::new(0);
    let io0 = IoCounters::now();
    let cpu0 = sysstat::cpu_seconds();
    let t0 = Instant::now();
    let going = || !done.load(Ordering::Acquire);
    let given0 = lode_store::memory::given_back();
    let (ingest, runs, (peak_sampled, mut samples)) = std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            let mut peak = CachesAtPeak::default();
            let mut all = Vec::new();
            let mut trace = MemoryTrace::create(&home_dir.join(TRACE_FILE));
            while !done.load(Ordering::Acquire) {
                let now = CachesAtPeak::now();
                trace.add(t0.elapsed().as_secs_f64(), &now);
                all.push(now.rss);
                if now.rss > peak.rss {
                    peak = now;
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
            (peak, all)
        });
        let searchers: Vec<_> = (0..4)
            .map(|i| {
                let (url, words, sparse, going) = (&server.url, &words, &sparse, &going);
                let mut rng = Rng(args.seed.wrapping_add(i));
                s.spawn(move || {
                    if i < 2 {
                        client(url, t0, going, &mut || rng.query(words))
                    } else {
                        client(url, t0, going, &mut || sparse.clone())
                    }
                })
            })
            .collect();
        let ingest = ingest_all(&server.url, &corpus, &events);
        done.store(true, Ordering::Release);
        let runs: Vec<ClientRun> = searchers
            .into_iter()
            .filter_map(|h| h.join().ok())
            .collect();
        (ingest, runs, sampler.join().unwrap_or_default())
    });
    let seconds = t0.elapsed().as_secs_f64().max(1e-9);
    let cpu = sysstat::cpu_seconds() - cpu0;
    let io = IoCounters::now().since(&io0);
    let given = lode_store::memory::given_back();
    samples.sort_unstable();
    let percentile = |p: usize| {
        samples
            .get((samples.len() * p / 100).min(samples.len().saturating_sub(1)))
            .map_or(0.0, |&b| b as f64 / 1e6)
    };
    ingest?;
    server.stop()?;
    std::fs::remove_dir_all(&corpus).ok();
    let mb = summary.bytes as f64 / 1e6;
    let kinds = [
        (
            "<1 to 3 random words> | head 10".to_string(),
            &runs[..2.min(runs.len())],
        ),
        (sparse, &runs[2.min(runs.len())..]),
    ];
    let report = Report {
        machine: super::machine(),
        load_average_before: load_before,
        load_average_after: sysstat::load_average(),
        raw_bytes: summary.bytes,
        events: events.load(Ordering::Relaxed),
        seconds,
        cpu_seconds: cpu,
        ingest_mb_per_s: mb / seconds,
        ingest_mb_per_s_per_core: mb / cpu.max(1e-9),
        avg_cpu_pct: 100.0 * cpu / seconds,
        peak_rss_mb: peak_sampled.rss.max(sysstat::peak_rss_bytes()) as f64 / 1e6,
        rss_percentiles_mb: [percentile(50), percentile(90), percentile(99)],
        give_backs: given.0 - given0.0,
        give_back_ms: (given.1 - given0.1) as f64 / 1e6,
        caches_at_peak: peak_sampled,
        io,
        io_read_syscalls_per_s: io.syscr as f64 / seconds,
        io_write_syscalls_per_s: io.syscw as f64 / seconds,
        disk_read_mb_per_s: io.read_bytes as f64 / 1e6 / seconds,
        disk_write_mb_per_s: io.write_bytes as f64 / 1e6 / seconds,
        searches: kinds
            .into_iter()
            .map(|(form, rs)| {
                let lat: Vec<u64> = rs
                    .iter()
                    .flat_map(|r| r.latencies_us.iter().copied())
                    .collect();
                SearchKind {
                    query_form: form,
                    searches: lat.len() as u64,
                    errors: rs.iter().map(|r| r.errors).sum(),
                    first_error: rs.iter().find_map(|r| r.first_error.clone()),
                    latency: Latency::of(&lat),
                }
            })
            .collect(),
    };
    print_report(&report);
    super::write_json(args, &report)
}

/// Posts the four corpus files at once; adds the events the server accepted to `events`.
fn ingest_all(url: &str, corpus: &Path, events: &AtomicU64) -> CliResult {
    std::thread::scope(|s| {
        let handles: Vec<_> = FILES
            .iter()
            .map(|(name, st)| {
                s.spawn(move || -> Result<(), String> {
                    let path = corpus.join(name);
                    let f = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    let resp = ureq::AgentBuilder::new()
                        .timeout(Duration::from_secs(3600))
                        .build()
                        .post(&format!("{url}/lode/ingest"))
                        .query("index", "main")
                        .query("sourcetype", st)
                        .query("source", &path.display().to_string())
                        .query("host", "bench")
                        .send(f)
                        .map_err(|e| format!("ingesting {name}: {e}"))?;
                    let v: serde_json::Value = resp
                        .into_json()
                        .map_err(|e| format!("ingesting {name}: bad answer: {e}"))?;
                    events.fetch_add(v["events"].as_u64().unwrap_or(0), Ordering::Relaxed);
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join()
                .map_err(|_| CliError::new(FAILURE, "an ingest thread panicked"))?
                .map_err(|e| CliError::new(FAILURE, e))?;
        }
        Ok(())
    })
}

/// Words of 3 to 12 ASCII letters seen at least 3 times in the first MiB of each corpus file.
fn corpus_words(corpus: &Path) -> CliResult<Vec<String>> {
    use std::io::Read;
    let mut counts: std::collections::HashMap<String, u32> = Default::default();
    for (name, _) in FILES {
        let mut head = Vec::new();
        File::open(corpus.join(name))?
            .take(1 << 20)
            .read_to_end(&mut head)?;
        let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
        for w in text.split(|c: char| !c.is_ascii_alphabetic()) {
            if (3..=12).contains(&w.len()) {
                *counts.entry(w.to_string()).or_default() += 1;
            }
        }
    }
    let words: Vec<String> = counts
        .into_iter()
        .filter(|(_, n)| *n >= 3)
        .map(|(w, _)| w)
        .collect();
    if words.is_empty() {
        return Err(CliError::new(
            FAILURE,
            "the corpus has no words to search for",
        ));
    }
    Ok(words)
}

/// The search caches' and the hot buckets' bytes when the process's resident memory was sampled
/// at `rss`: what of the peak the reader cache (decoded postings included), the slice cache and
/// the hot indexes being filled or rolled held, against the rest (roll and search buffers).
#[derive(Debug, Default, Clone, Copy, Serialize)]
struct CachesAtPeak {
    rss: u64,
    reader_cache_bytes: u64,
    decoded_postings_bytes: u64,
    slice_cache_bytes: u64,
    hot_bucket_bytes: u64,
    /// Rolls and merges running then (each holds large buffers while it runs).
    rolls_running: u32,
    merges_running: u32,
    /// The resident memory's anonymous (heap, stacks) and file-backed (program code) parts.
    rss_anon: u64,
    rss_file: u64,
    /// What the allocator held: in use, free but kept, mapped for large allocations.
    heap: sysstat::Heap,
    /// The share of their budgets the memory target left the caches (`[search]
    /// process_memory_mb`), percent.
    cache_room_pct: f64,
}

impl CachesAtPeak {
    fn now() -> CachesAtPeak {
        let readers = lode_search::cache::global().stats();
        let (rolls_running, merges_running) = lode_store::memory::running();
        let (rss, rss_anon, rss_file) = sysstat::rss_parts();
        CachesAtPeak {
            rss,
            reader_cache_bytes: readers.bytes,
            decoded_postings_bytes: readers.term_bytes,
            slice_cache_bytes: lode_store::slice_cache::global().stats().bytes,
            hot_bucket_bytes: lode_store::memory::hot_bytes(),
            rolls_running,
            merges_running,
            rss_anon,
            rss_file,
            heap: sysstat::heap(),
            cache_room_pct: 100.0 * lode_store::memory::room() as f64
                / lode_store::memory::ROOM_WHOLE as f64,
        }
    }
}

/// The memory samples written as they are taken (what met at a peak shows in the lines around
/// it); a trace that cannot be written is skipped.
struct MemoryTrace(Option<std::io::BufWriter<File>>);

impl MemoryTrace {
    fn create(path: &Path) -> MemoryTrace {
        use std::io::Write;
        let mut w = File::create(path).ok().map(std::io::BufWriter::new);
        if let Some(f) = &mut w {
            let head = "seconds\trss_mb\tanon_mb\theap_in_use_mb\theap_free_mb\theap_mapped_mb\t\
                        reader_cache_mb\tslice_cache_mb\thot_mb\trolls\tmerges\tcache_room_pct";
            if writeln!(f, "{head}").is_err() {
                w = None;
            }
        }
        MemoryTrace(w)
    }

    fn add(&mut self, seconds: f64, c: &CachesAtPeak) {
        use std::io::Write;
        let Some(f) = &mut self.0 else {
            return;
        };
        let mb = |b: u64| b as f64 / 1e6;
        let line = writeln!(
            f,
            "{seconds:.1}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{}\t{}\t{:.0}",
            mb(c.rss),
            mb(c.rss_anon),
            mb(c.heap.in_use),
            mb(c.heap.free_kept),
            mb(c.heap.mapped),
            mb(c.reader_cache_bytes),
            mb(c.slice_cache_bytes),
            mb(c.hot_bucket_bytes),
            c.rolls_running,
            c.merges_running,
            c.cache_room_pct
        );
        if line.and_then(|()| f.flush()).is_err() {
            self.0 = None;
        }
    }
}

fn print_report(r: &Report) {
    println!("machine: {}", r.machine);
    println!(
        "load average: {} (before), {} (after)",
        r.load_average_before, r.load_average_after
    );
    println!(
        "burst: {:.0} MB raw, {} events ingested over HTTP in {:.1} s with 4 searches running",
        r.raw_bytes as f64 / 1e6,
        r.events,
        r.seconds
    );
    println!(
        "  ingest {:.1} MB/s, {:.1} MB/s per core used (cpu {:.1} s, average {:.0} % of one core)",
        r.ingest_mb_per_s, r.ingest_mb_per_s_per_core, r.cpu_seconds, r.avg_cpu_pct
    );
    let c = &r.caches_at_peak;
    println!(
        "  peak memory {:.0} MB; at the highest sample ({:.0} MB) the reader cache held {:.0} MB \
         ({:.0} MB of it decoded postings), the slice cache {:.0} MB and the hot buckets {:.0} MB, \
         with {} roll(s) and {} merge(s) running; the memory target left the caches {:.0} % \
         of their budgets",
        r.peak_rss_mb,
        c.rss as f64 / 1e6,
        c.reader_cache_bytes as f64 / 1e6,
        c.decoded_postings_bytes as f64 / 1e6,
        c.slice_cache_bytes as f64 / 1e6,
        c.hot_bucket_bytes as f64 / 1e6,
        c.rolls_running,
        c.merges_running,
        c.cache_room_pct
    );
    println!(
        "  of that sample {:.0} MB anonymous and {:.0} MB file-backed; the allocator had {:.0} MB \
         in use, {:.0} MB free in its arenas and {:.0} MB mapped for large allocations",
        c.rss_anon as f64 / 1e6,
        c.rss_file as f64 / 1e6,
        c.heap.in_use as f64 / 1e6,
        c.heap.free_kept as f64 / 1e6,
        c.heap.mapped as f64 / 1e6
    );
    let [p50, p90, p99] = r.rss_percentiles_mb;
    println!(
        "  resident memory sampled every {} ms: p50 {p50:.0} MB, p90 {p90:.0} MB, p99 {p99:.0} MB; \
         freed memory given back {} times ({:.0} ms in all)",
        SAMPLE_EVERY.as_millis(),
        r.give_backs,
        r.give_back_ms
    );
    println!(
        "  disk i/o: {:.0} read + {:.0} write syscalls/s; {:.1} MB/s read, {:.1} MB/s written",
        r.io_read_syscalls_per_s,
        r.io_write_syscalls_per_s,
        r.disk_read_mb_per_s,
        r.disk_write_mb_per_s
    );
    println!(
        "  {:<48} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9}",
        "search", "count", "errors", "p50 ms", "p95 ms", "p99 ms", "max ms"
    );
    for k in &r.searches {
        let q: String = k.query_form.chars().take(48).collect();
        println!(
            "  {:<48} {:>8} {:>7} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
            q,
            k.searches,
            k.errors,
            k.latency.p50_ms,
            k.latency.p95_ms,
            k.latency.p99_ms,
            k.latency.max_ms
        );
    }
}
