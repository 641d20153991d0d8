//! The crash test of `crash.rs` with two pipeline sets (`parallelIngestionPipelines = 2` in
//! etc/system/local/server.conf) and two concurrent clients: a `lode serve` child is killed with
//! SIGKILL at random moments, repeatedly, while both sets append to their own hot bucket. A batch
//! counts as accepted only when the server answered 200 with its event count; after every kill
//! each accepted event must be searchable exactly once, and both sets' hot buckets must have
//! received data. `GET /lode/metrics` reports the queues of both sets.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Lode;

/// Events per ingest request.
const BATCH: u64 = 40;
/// Kill/restart rounds.
const ROUNDS: u64 = 4;
/// Concurrent clients (one stream each per request).
const CLIENTS: u64 = 2;

/// Starts `lode serve` and waits for its address. The child is returned to the caller, which
/// kills and waits it (clippy's zombie lint does not follow a child returned in a tuple).
#[allow(clippy::zombie_processes)]
fn start(lode: &Lode) -> (Child, String) {
    let info = lode.path().join("var/run/lode/server.json");
    let _ = std::fs::remove_file(&info);
    let mut child = lode
        .cmd(&["serve", "--listen", "127.0.0.1:0"])
        .spawn()
        .expect("start server");
    let t0 = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&info) {
            let url = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["url"].as_str().map(str::to_string));
            if let Some(url) = url {
                return (child, url);
            }
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("server did not start");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A small deterministic pseudo-random sequence (no extra dependency for the test).
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Hot bucket directories of `main` holding at least one WAL record.
fn hot_buckets_with_data(lode: &Lode) -> usize {
    let dir = lode.path().join("var/lib/lode/main");
    lode_store::list_buckets(&dir)
        .unwrap()
        .iter()
        .filter(|b| b.kind == lode_store::BucketKind::Hot)
        .filter(|b| {
            let wal = b.path.join(lode_store::consts::WAL_FILE);
            std::fs::metadata(wal).is_ok_and(|m| m.len() > 16)
        })
        .count()
}

#[test]
fn two_pipeline_sets_lose_no_acknowledged_event_on_sigkill() {
    let lode = Lode::new();
    lode.write_local("server.conf", "[general]\nparallelIngestionPipelines = 2\n");
    let acked: Arc<Mutex<BTreeSet<u64>>> = Arc::default();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next_id = 0u64;
    for round in 0..ROUNDS {
        let (mut child, url) = start(&lode);
        let stop = Arc::new(AtomicBool::new(false));
        let first = next_id;
        next_id += 1_000_000;
        let writers: Vec<_> = (0..CLIENTS)
            .map(|client| {
                let (stop, acked, url) = (stop.clone(), acked.clone(), url.clone());
                // Each client of each round takes its ids from a disjoint range.
                let first = first + client * 500_000;
                std::thread::spawn(move || {
                    let mut id = first;
                    while !stop.load(Ordering::Relaxed) {
                        let body: String = (id..id + BATCH)
                            .map(|i| {
                                format!("2024-03-01T10:00:00Z crashtest id=e{i} round={round}\n")
                            })
                            .collect();
                        let reply = ureq::post(&format!("{url}/lode/ingest"))
                            .query("sourcetype", "crashtest")
                            .timeout(Duration::from_secs(20))
                            .send_string(&body);
                        match reply {
                            Ok(r) => {
                                let v: serde_json::Value = r.into_json().expect("JSON reply");
                                assert_eq!(v["events"], BATCH, "{v}");
                                acked.lock().unwrap().extend(id..id + BATCH);
                            }
                            Err(_) => return, // the server died mid-request: not acknowledged
                        }
                        id += BATCH;
                    }
                })
            })
            .collect();
        if round == 0 {
            let m: serde_json::Value = ureq::get(&format!("{url}/lode/metrics"))
                .call()
                .expect("metrics")
                .into_json()
                .expect("metrics JSON");
            assert_eq!(m["pipeline_sets"], 2, "{m}");
            let queues = m["queues"].as_array().expect("queues");
            assert_eq!(queues.len(), 8, "{m}");
            assert_eq!(queues[0]["group"], "queue");
            assert_eq!(queues[0]["name"], "parsingqueue");
            assert_eq!(queues[7]["ingest_pipe"], 1);
        }
        std::thread::sleep(Duration::from_millis(150 + next(&mut seed) % 600));
        child.kill().expect("SIGKILL the server");
        child.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().unwrap();
        }
        if round == 0 {
            assert_eq!(
                hot_buckets_with_data(&lode),
                2,
                "both sets' hot buckets got data"
            );
        }

        // Searchable exactly once, straight from disk (recovery happens on the next start; a
        // reader sees the write-ahead log as it is).
        let rows = lode.search_json("crashtest | stats count by id");
        let counts: BTreeMap<u64, u64> = rows
            .iter()
            .map(|r| {
                let id = r["id"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches('e')
                    .parse()
                    .unwrap();
                (id, r["count"].as_str().unwrap().parse().unwrap())
            })
            .collect();
        let acked = acked.lock().unwrap();
        assert!(
            !acked.is_empty() || round > 0,
            "round {round} acknowledged nothing"
        );
        for id in acked.iter() {
            assert_eq!(
                counts.get(id),
                Some(&1),
                "acknowledged event e{id} after round {round}"
            );
        }
        for (id, n) in &counts {
            assert_eq!(*n, 1, "event e{id} duplicated after round {round}");
        }
    }
    // A final clean start recovers the write-ahead logs and still finds everything once.
    let (mut child, _) = start(&lode);
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    assert!(child.wait().unwrap().success());
    let total = lode.count("crashtest");
    let acked = acked.lock().unwrap();
    assert!(total >= acked.len() as u64, "{total} < {}", acked.len());
    eprintln!(
        "{} events acknowledged over {ROUNDS} kills, {total} stored",
        acked.len()
    );
    assert_eq!(
        lode.search_json("crashtest | stats count by id | where count > 1")
            .len(),
        0
    );
}
