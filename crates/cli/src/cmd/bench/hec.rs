//! `lode bench --scenario hec`: HTTP Event Collector ingest throughput.
//!
//! A collector runs in this process on 127.0.0.1 ([`LocalServer`]; plain HTTP: the figure is
//! the server's, not TLS's). The generated corpus (`--size`) is cut into JSON batches of [`BATCH`] events, the way
//! logging clients send them, and [`CLIENTS`] client threads with keep-alive connections send
//! every batch once without acknowledgement, then every batch once more with acknowledgement
//! (each client polls `/services/collector/ack` for its ids every [`ACK_POLL`], as Vector does
//! every 10 s). Reported per phase: events/s, MB/s of event text, request latency, time until
//! acknowledged, and the server's CPU seconds (process CPU minus the client threads' own). At the
//! end the index is counted: every sent event must be there exactly once per phase.

use std::time::{Duration, Instant};

use lode_node::hec::{HecConfig, HecToken};
use lode_node::Home;
use serde::Serialize;

use super::service::{Latency, LocalServer};
use crate::cli::BenchArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::sysstat;

/// Client threads.
const CLIENTS: usize = 4;
/// Events per request.
const BATCH: usize = 100;
/// How often a client asks which of its ids are acknowledged.
const ACK_POLL: Duration = Duration::from_millis(100);
const TOKEN: &str = "bench-00000000-0000-4000-8000-000000000001";
const ACK_TOKEN: &str = "bench-00000000-0000-4000-8000-000000000002";

/// One request body and what it holds.
struct Batch {
    body: String,
    events: u64,
    raw_bytes: u64,
}

/// The corpus as JSON batches (`event` = one line, `sourcetype` from the file).
fn batches(corpus: &std::path::Path) -> CliResult<Vec<Batch>> {
    let mut out = Vec::new();
    for (file, sourcetype) in super::FILES {
        let text = std::fs::read_to_string(corpus.join(file))?;
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        for chunk in lines.chunks(BATCH) {
            let mut body = String::new();
            let mut raw_bytes = 0;
            for l in chunk {
                raw_bytes += l.len() as u64;
                let e = serde_json::json!({"event": l, "sourcetype": sourcetype, "host": "bench"});
                body.push_str(&e.to_string());
            }
            out.push(Batch {
                body,
                events: chunk.len() as u64,
                raw_bytes,
            });
        }
    }
    Ok(out)
}

/// What one client thread measured.
#[derive(Default)]
struct ClientRun {
    latencies_us: Vec<u64>,
    ack_us: Vec<u64>,
    events: u64,
    raw_bytes: u64,
    errors: u64,
    first_error: Option<String>,
    cpu_seconds: f64,
}

/// Sends `mine` to the collector; with `ack`, waits until every id is acknowledged.
fn client(url: &str, mine: &[&Batch], ack: bool, channel: &str) -> ClientRun {
    let cpu0 = sysstat::thread_cpu_seconds();
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(120))
        .build();
    let auth = format!("Splunk {}", if ack { ACK_TOKEN } else { TOKEN });
    let event_url = format!("{url}/services/collector/event");
    let ack_url = format!("{url}/services/collector/ack");
    let mut run = ClientRun::default();
    let mut pending: Vec<(u64, Instant)> = Vec::new();
    let mut last_poll = Instant::now();
    let fail = |run: &mut ClientRun, e: String| {
        run.errors += 1;
        run.first_error.get_or_insert(e);
    };
    let poll = |run: &mut ClientRun, pending: &mut Vec<(u64, Instant)>| {
        let ids: Vec<u64> = pending.iter().map(|p| p.0).collect();
        let resp = agent
            .post(&ack_url)
            .set("Authorization", &auth)
            .set("X-Splunk-Request-Channel", channel)
            .send_json(serde_json::json!({ "acks": ids }));
        match resp.map(|r| r.into_json::<serde_json::Value>()) {
            Ok(Ok(v)) => pending.retain(|(id, t0)| {
                let done = v["acks"][id.to_string()] == true;
                if done {
                    run.ack_us.push(t0.elapsed().as_micros() as u64);
                }
                !done
            }),
            Ok(Err(e)) => fail(run, format!("ack body: {e}")),
            Err(e) => fail(run, format!("ack: {e}")),
        }
    };
    for b in mine {
        let t0 = Instant::now();
        let mut req = agent.post(&event_url).set("Authorization", &auth);
        if ack {
            req = req.set("X-Splunk-Request-Channel", channel);
        }
        match req
            .send_string(&b.body)
            .map(|r| r.into_json::<serde_json::Value>())
        {
            Ok(Ok(v)) => {
                run.latencies_us.push(t0.elapsed().as_micros() as u64);
                run.events += b.events;
                run.raw_bytes += b.raw_bytes;
                if ack {
                    match v["ackId"].as_u64() {
                        Some(id) => pending.push((id, t0)),
                        None => fail(&mut run, format!("no ackId in {v}")),
                    }
                }
            }
            Ok(Err(e)) => fail(&mut run, format!("event body: {e}")),
            Err(e) => fail(&mut run, format!("event: {e}")),
        }
        if ack && last_poll.elapsed() >= ACK_POLL {
            last_poll = Instant::now();
            poll(&mut run, &mut pending);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while !pending.is_empty() && Instant::now() < deadline {
        std::thread::sleep(ACK_POLL);
        poll(&mut run, &mut pending);
    }
    if !pending.is_empty() {
        fail(
            &mut run,
            format!("{} ids never acknowledged", pending.len()),
        );
    }
    run.cpu_seconds = sysstat::thread_cpu_seconds() - cpu0;
    run
}

#[derive(Debug, Serialize)]
struct Phase {
    acknowledgement: bool,
    requests: u64,
    events: u64,
    raw_mb: f64,
    seconds: f64,
    events_per_s: f64,
    mb_per_s: f64,
    request_latency: Latency,
    ack_latency: Option<Latency>,
    server_cpu_seconds: f64,
    mb_per_server_cpu_s: f64,
    errors: u64,
    first_error: Option<String>,
}

#[derive(Debug, Serialize)]
struct Report {
    machine: String,
    load_average_before: String,
    load_average_after: String,
    clients: usize,
    events_per_request: usize,
    phases: Vec<Phase>,
    events_indexed: u64,
    events_expected: u64,
    correct: bool,
    peak_rss_mb: f64,
}

fn phase(url: &str, all: &[Batch], ack: bool) -> Phase {
    let cpu0 = sysstat::cpu_seconds();
    let t0 = Instant::now();
    let runs: Vec<ClientRun> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|i| {
                let mine: Vec<&Batch> = all.iter().skip(i).step_by(CLIENTS).collect();
                let channel = format!("0aa6b6c4-84f5-4b7e-a9a3-00000000000{i}");
                s.spawn(move || client(url, &mine, ack, &channel))
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let seconds = t0.elapsed().as_secs_f64().max(1e-9);
    let server_cpu =
        (sysstat::cpu_seconds() - cpu0 - runs.iter().map(|r| r.cpu_seconds).sum::<f64>()).max(0.0);
    let lat: Vec<u64> = runs.iter().flat_map(|r| r.latencies_us.clone()).collect();
    let ack_lat: Vec<u64> = runs.iter().flat_map(|r| r.ack_us.clone()).collect();
    let events: u64 = runs.iter().map(|r| r.events).sum();
    let raw_mb = runs.iter().map(|r| r.raw_bytes).sum::<u64>() as f64 / 1e6;
    Phase {
        acknowledgement: ack,
        requests: lat.len() as u64,
        events,
        raw_mb,
        seconds,
        events_per_s: events as f64 / seconds,
        mb_per_s: raw_mb / seconds,
        request_latency: Latency::of(&lat),
        ack_latency: ack.then(|| Latency::of(&ack_lat)),
        server_cpu_seconds: server_cpu,
        mb_per_server_cpu_s: raw_mb / server_cpu.max(1e-9),
        errors: runs.iter().map(|r| r.errors).sum(),
        first_error: runs.iter().find_map(|r| r.first_error.clone()),
    }
}

/// Runs the scenario.
pub fn run(args: &BenchArgs) -> CliResult {
    let (_tmp, home_dir) = super::service::bench_home(args)?;
    let home = Home::new(&home_dir);
    let (corpus, _) = super::generate(&home, args)?;
    let all = batches(&corpus)?;
    std::fs::remove_dir_all(&corpus).ok();
    let mut cfg = HecConfig::default();
    let token = |name: &str, secret: &str, ack: bool| HecToken {
        token: secret.into(),
        use_ack: ack,
        ..HecToken::new(name)
    };
    cfg.add(token("bench", TOKEN, false))
        .and_then(|_| cfg.add(token("bench-ack", ACK_TOKEN, true)))
        .and_then(|_| cfg.save(&home))
        .map_err(super::super::node_error)?;
    let collector = LocalServer::start_with(&home, |node| {
        let state = lode_server::hec::HecState::new(node, "bench:8088".into())
            .map_err(super::super::node_error)?;
        Ok(lode_server::hec::router(state))
    })?;
    let load_before = sysstat::load_average();
    eprintln!(
        "lode bench: {CLIENTS} clients send {} batches of {BATCH} events to {}, without then with acknowledgement…",
        all.len(),
        collector.url
    );
    let phases = vec![
        phase(&collector.url, &all, false),
        phase(&collector.url, &all, true),
    ];
    collector.stop()?;
    let expected: u64 = phases.iter().map(|p| p.events).sum();
    let mut indexed = 0u64;
    let req = super::super::search::request("index=main | stats count");
    lode_search::run::run(&home.index_root(), &req, &mut |rows| {
        for mut r in rows {
            indexed += r
                .get("count")
                .and_then(lode_search::value::Value::to_num)
                .unwrap_or(0.0) as u64;
        }
        Ok(())
    })
    .map_err(|e| CliError::new(FAILURE, format!("counting: {e}")))?;
    let report = Report {
        machine: super::machine(),
        load_average_before: load_before,
        load_average_after: sysstat::load_average(),
        clients: CLIENTS,
        events_per_request: BATCH,
        events_indexed: indexed,
        events_expected: expected,
        correct: indexed == expected && phases.iter().all(|p| p.errors == 0),
        phases,
        peak_rss_mb: sysstat::peak_rss_bytes() as f64 / 1e6,
    };
    print_report(&report);
    super::write_json(args, &report)?;
    if !report.correct {
        return Err(CliError::new(
            FAILURE,
            format!("{} events indexed, {} sent", indexed, expected),
        ));
    }
    Ok(())
}

fn print_report(r: &Report) {
    println!("machine: {}", r.machine);
    println!(
        "load average: {} (before), {} (after)",
        r.load_average_before, r.load_average_after
    );
    println!(
        "HEC: {} clients, {} events per request, keep-alive HTTP/1.1",
        r.clients, r.events_per_request
    );
    println!(
        "| acks | events | MB | s | events/s | MB/s | p50 ms | p99 ms | ack p50 ms | ack p99 ms | MB per server CPU-s | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for p in &r.phases {
        let (a50, a99) = p
            .ack_latency
            .as_ref()
            .map_or(("-".into(), "-".into()), |l| {
                (format!("{:.1}", l.p50_ms), format!("{:.1}", l.p99_ms))
            });
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.0} | {:.1} | {:.1} | {:.1} | {a50} | {a99} | {:.1} | {} |",
            if p.acknowledgement { "on" } else { "off" },
            p.events,
            p.raw_mb,
            p.seconds,
            p.events_per_s,
            p.mb_per_s,
            p.request_latency.p50_ms,
            p.request_latency.p99_ms,
            p.mb_per_server_cpu_s,
            p.errors
        );
    }
    println!(
        "indexed {} of {} events sent ({}); peak RSS {:.0} MB",
        r.events_indexed,
        r.events_expected,
        if r.correct { "correct" } else { "WRONG" },
        r.peak_rss_mb
    );
}
