//! `lode bench --scenario pipelines`: the same generated corpus ingested with 1, 2 and 4
//! pipeline sets (`parallelIngestionPipelines`; `--sets` chooses others), each into a fresh
//! home.
//!
//! With `--pin`, a run of N sets may use only N CPUs (at most those the process was given).
//! One set alone keeps part of a second core busy (its rolls and merges run beside its stages),
//! so on a machine with few cores the plain figures understate what a second set adds; pinned,
//! 1 → 2 sets measures how ingestion scales when the cores grow with the sets.
//!
//! Every generated file is cut into [`PARTS`] parts at event boundaries and all parts are sent as
//! concurrent streams, so even 4 sets each get several streams. Each run is measured from opening
//! the node to closing it (every hot bucket rolled to warm), with CPU seconds from
//! `/proc/self/stat` and the peak RSS of the run (VmHWM, reset before each run).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;
use std::time::Instant;

use lode_gen::GenConfig;
use lode_node::{Home, Node};
use serde::Serialize;

use crate::cli::BenchArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::sysstat;

use super::{Part, FILES};

/// Parts (concurrent streams) each generated file is cut into.
const PARTS: u64 = 4;

/// Figures of one run.
#[derive(Debug, Serialize)]
struct Run {
    sets: usize,
    /// CPUs the run could use.
    cpus: usize,
    streams: usize,
    raw_bytes: u64,
    events: u64,
    seconds: f64,
    cpu_seconds: f64,
    mb_per_s: f64,
    mb_per_s_per_core: f64,
    events_per_s: f64,
    cores_used: f64,
    peak_rss_mb: f64,
    /// Speed-up over the first set count measured (its median run's wall time over this one's).
    speedup_vs_1: f64,
    /// Wall time of every round of this set count, fastest first.
    round_seconds: Vec<f64>,
    /// CPU seconds of the stage threads by stage (all sets together), sampled before the final
    /// roll: where one set's time goes.
    stage_cpu_seconds: BTreeMap<String, f64>,
}

#[derive(Debug, Serialize)]
struct Report {
    machine: String,
    load_average: String,
    corpus_bytes: u64,
    /// Runs of each set count; `runs` holds the median one of each.
    rounds: usize,
    runs: Vec<Run>,
}

/// Runs the scenario.
pub fn run(args: &BenchArgs) -> CliResult {
    let root = tempfile::Builder::new()
        .prefix("lode-bench-pipelines")
        .tempdir()?;
    let corpus = root.path().join("corpus");
    eprintln!(
        "lode bench: generating {} of data (seed {})…",
        super::super::add::human_bytes(args.size),
        args.seed
    );
    let cfg = GenConfig {
        seed: args.seed,
        total_bytes: args.size,
        ..GenConfig::default()
    };
    let summary = lode_gen::write_dir(cfg, &corpus, &mut |_| {})
        .map_err(|e| CliError::new(FAILURE, format!("generating the corpus failed: {e}")))?;
    let mut parts = Vec::new();
    for (name, sourcetype) in FILES {
        parts.extend(split(&corpus.join(name), sourcetype, PARTS)?);
    }
    let allowed = sysstat::allowed_cpus()
        .map_err(|e| CliError::new(FAILURE, format!("cannot read the CPU affinity: {e}")))?;
    // Every set count once per round, rounds one after the other, so that a slow stretch of a
    // shared machine falls on all of them; each set count's median run is reported.
    let mut measured: Vec<Vec<Run>> = args.sets.iter().map(|_| Vec::new()).collect();
    for round in 1..=args.rounds {
        for (k, &sets) in args.sets.iter().enumerate() {
            let sets = usize::from(sets);
            let cpus = if args.pin {
                &allowed[..sets.min(allowed.len())]
            } else {
                &allowed[..]
            };
            eprintln!(
                "lode bench: round {round}/{}: ingesting with {sets} pipeline set(s) on {} CPU(s)…",
                args.rounds,
                cpus.len()
            );
            let home = Home::new(root.path().join(format!("home{sets}")));
            let run = sysstat::confine_to(cpus)
                .map_err(|e| CliError::new(FAILURE, format!("cannot set the CPU affinity: {e}")))
                .and_then(|()| ingest(&home, sets, cpus.len(), &parts, summary.bytes));
            sysstat::confine_to(&allowed).map_err(|e| {
                CliError::new(FAILURE, format!("cannot reset the CPU affinity: {e}"))
            })?;
            let run = run?;
            // Every run must store exactly the generated events (nothing lost, split or doubled).
            if run.events != summary.events {
                return Err(CliError::new(
                    FAILURE,
                    format!(
                        "{sets} set(s) stored {} events, the generator wrote {}",
                        run.events, summary.events
                    ),
                ));
            }
            std::fs::remove_dir_all(home.root()).ok();
            measured[k].push(run);
        }
    }
    let mut runs: Vec<Run> = measured.into_iter().map(median_run).collect();
    let first = runs.first().map_or(0.0, |r| r.seconds);
    for r in &mut runs {
        r.speedup_vs_1 = first / r.seconds;
    }
    let report = Report {
        machine: super::machine(),
        load_average: sysstat::load_average(),
        corpus_bytes: summary.bytes,
        rounds: usize::from(args.rounds),
        runs,
    };
    print(&report);
    if let Some(path) = &args.json {
        let f = File::create(path)
            .map_err(|e| CliError::new(FAILURE, format!("cannot write {}: {e}", path.display())))?;
        serde_json::to_writer_pretty(f, &report)
            .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    }
    Ok(())
}

/// The run of median wall time among `runs` (at least one), with every run's wall time.
fn median_run(mut runs: Vec<Run>) -> Run {
    runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let all: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
    let mut mid = runs.swap_remove(runs.len() / 2);
    mid.round_seconds = all;
    mid
}

/// Whether a line starting with `head` continues the event before it (a Java stack trace's
/// indented frames and `Caused by:` lines).
fn continues_event(sourcetype: &str, head: &[u8]) -> bool {
    // log4j events start only at a line beginning with a date (the sourcetype's
    // BREAK_ONLY_BEFORE); their exception-class and stack lines continue the event. In the other
    // generated files every line is an event.
    sourcetype == "log4j" && !starts_with_date(head)
}

/// `YYYY-MM-DD` at the start of the line.
fn starts_with_date(line: &[u8]) -> bool {
    line.len() >= 10
        && line[..4].iter().all(u8::is_ascii_digit)
        && line[4] == b'-'
        && line[5..7].iter().all(u8::is_ascii_digit)
        && line[7] == b'-'
        && line[8..10].iter().all(u8::is_ascii_digit)
}

/// Cuts `path` into `n` byte ranges, each ending at a newline followed by a line that starts an
/// event (see [`continues_event`]), so a multi-line event is never cut.
fn split(path: &Path, sourcetype: &'static str, n: u64) -> CliResult<Vec<Part>> {
    let len = std::fs::metadata(path)?.len();
    let mut f = BufReader::new(File::open(path)?);
    let mut cuts = vec![0u64];
    let mut line = Vec::new();
    for k in 1..n {
        let target = (len * k / n).max(*cuts.last().unwrap_or(&0));
        f.seek(SeekFrom::Start(target))?;
        let mut pos = target;
        // Skip the rest of the current line, then lines that continue an event.
        line.clear();
        pos += f.read_until(b'\n', &mut line)? as u64;
        loop {
            line.clear();
            let n = f.read_until(b'\n', &mut line)? as u64;
            if n == 0 || !continues_event(sourcetype, &line) {
                break;
            }
            pos += n;
        }
        cuts.push(pos.min(len));
    }
    cuts.push(len);
    Ok(cuts
        .windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| Part {
            path: path.to_path_buf(),
            sourcetype,
            start: w[0],
            len: w[1] - w[0],
        })
        .collect())
}

fn ingest(home: &Home, sets: usize, cpus: usize, parts: &[Part], raw_bytes: u64) -> CliResult<Run> {
    home.ensure_layout()?;
    std::fs::write(
        home.etc_local().join("server.conf"),
        format!("[general]\nparallelIngestionPipelines = {sets}\n"),
    )?;
    // Reset the peak RSS so that each run reports its own (Linux: "5" clears VmHWM).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let cpu0 = sysstat::cpu_seconds();
    let t0 = Instant::now();
    let node = Node::open(home).map_err(super::super::node_error)?;
    let events = super::ingest_parts(&node, parts)?;
    let stage_cpu_seconds = stage_cpu();
    node.close()
        .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    let seconds = t0.elapsed().as_secs_f64();
    let cpu = sysstat::cpu_seconds() - cpu0;
    let mb = raw_bytes as f64 / 1e6;
    Ok(Run {
        sets,
        cpus,
        streams: parts.len(),
        raw_bytes,
        events,
        seconds,
        cpu_seconds: cpu,
        mb_per_s: mb / seconds,
        mb_per_s_per_core: if cpu > 0.0 { mb / cpu } else { 0.0 },
        events_per_s: events as f64 / seconds,
        cores_used: cpu / seconds,
        peak_rss_mb: sysstat::peak_rss_bytes() as f64 / 1e6,
        speedup_vs_1: 1.0,
        round_seconds: Vec::new(),
        stage_cpu_seconds,
    })
}

/// CPU seconds of this process's pipeline stage threads (`lode-<stage>-<set>`), by stage.
fn stage_cpu() -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state …`: utime and stime are fields 12 and 13 after the name.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = &stat[open + 1..close];
        let Some(stage) = comm
            .strip_prefix("lode-")
            .and_then(|c| c.rsplit_once('-'))
            .map(|(stage, _)| stage.to_string())
        else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
        if let (Some(u), Some(k)) = (ticks(11), ticks(12)) {
            *out.entry(stage).or_insert(0.0) += (u + k) / 100.0;
        }
    }
    out
}

fn print(r: &Report) {
    println!("machine: {}", r.machine);
    println!("load average at the end: {}", r.load_average);
    println!("corpus: {:.0} MB", r.corpus_bytes as f64 / 1e6);
    if r.rounds > 1 {
        println!("each set count's median of {} rounds", r.rounds);
    }
    println!();
    println!(
        "{:>5} {:>5} {:>8} {:>10} {:>8} {:>8} {:>9} {:>12} {:>11} {:>7} {:>9} {:>8}",
        "sets",
        "cpus",
        "streams",
        "events",
        "wall s",
        "cpu s",
        "MB/s",
        "MB/s/core",
        "events/s",
        "cores",
        "peak MB",
        "speedup"
    );
    for x in &r.runs {
        println!(
            "{:>5} {:>5} {:>8} {:>10} {:>8.1} {:>8.1} {:>9.1} {:>12.1} {:>11.0} {:>7.2} {:>9.0} {:>7.2}x",
            x.sets,
            x.cpus,
            x.streams,
            x.events,
            x.seconds,
            x.cpu_seconds,
            x.mb_per_s,
            x.mb_per_s_per_core,
            x.events_per_s,
            x.cores_used,
            x.peak_rss_mb,
            x.speedup_vs_1
        );
    }
    if r.rounds > 1 {
        println!();
        println!("wall s of every round, fastest first:");
        for x in &r.runs {
            let all: Vec<String> = x.round_seconds.iter().map(|s| format!("{s:.1}")).collect();
            println!("  {} set(s): {}", x.sets, all.join(", "));
        }
    }
    println!();
    println!("stage threads, CPU s (all sets):");
    for x in &r.runs {
        let stages: Vec<String> = x
            .stage_cpu_seconds
            .iter()
            .map(|(k, v)| format!("{k} {v:.1}"))
            .collect();
        println!("  {} set(s): {}", x.sets, stages.join(", "));
    }
}
