//! The crash-test driver shared by `crash.rs` and `crash_sets.rs`: a `lode serve` child takes
//! ingest requests from client threads and is killed with SIGKILL at random moments, repeatedly.
//! A batch counts as accepted only when the server answered 200 with its event count; after every
//! kill each accepted event must be searchable exactly once (events whose answer was lost may be
//! present, but never twice), and a final clean start must still find everything once.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Lode;

/// Events per ingest request.
const BATCH: u64 = 40;

/// Starts `lode serve` and waits for its address. The child is returned to the caller, which
/// kills and waits it (clippy's zombie lint does not follow a child returned in a tuple).
#[allow(clippy::zombie_processes)]
pub fn start(lode: &Lode) -> (Child, String) {
    let info = lode.path().join("var/run/lode/server.json");
    let _ = std::fs::remove_file(&info);
    let mut child = lode
        .cmd(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--hec-listen",
            "127.0.0.1:0",
        ])
        .spawn()
        .expect("start server");
    let t0 = Instant::now();
    loop {
        let url = std::fs::read_to_string(&info)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|v| v["url"].as_str().map(str::to_string));
        if let Some(url) = url {
            return (child, url);
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

/// One client: sends batches with ids from `first` until `stop` or until the server dies.
fn client(
    agent: ureq::Agent,
    auth: String,
    url: String,
    first: u64,
    round: u64,
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<BTreeSet<u64>>>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut id = first;
        while !stop.load(Ordering::Relaxed) {
            let body: String = (id..id + BATCH)
                .map(|i| format!("2024-03-01T10:00:00Z crashtest id=e{i} round={round}\n"))
                .collect();
            let reply = agent
                .post(&format!("{url}/lode/ingest"))
                .set("Authorization", &auth)
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
}

/// Every acknowledged event is stored exactly once, and no event twice.
fn check_exactly_once(lode: &Lode, acked: &BTreeSet<u64>, round: u64) {
    // Straight from disk: a reader sees the write-ahead log as it is.
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
    assert!(
        !acked.is_empty() || round > 0,
        "round {round} acknowledged nothing"
    );
    for id in acked {
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

/// Runs `rounds` kill/restart rounds with `clients` concurrent clients. `running(round, url)` is
/// called while the clients send; `killed(round)` right after the kill.
pub fn run(
    lode: &Lode,
    rounds: u64,
    clients: u64,
    mut running: impl FnMut(u64, &str),
    mut killed: impl FnMut(u64),
) {
    let acked: Arc<Mutex<BTreeSet<u64>>> = Arc::default();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..rounds {
        let (mut child, url) = start(lode);
        let stop = Arc::new(AtomicBool::new(false));
        // Each client of each round takes its ids from a disjoint range.
        let writers: Vec<_> = (0..clients)
            .map(|c| {
                client(
                    lode.agent(),
                    lode.server_auth(),
                    url.clone(),
                    round * 1_000_000 + c * 500_000,
                    round,
                    stop.clone(),
                    acked.clone(),
                )
            })
            .collect();
        running(round, &url);
        std::thread::sleep(Duration::from_millis(150 + next(&mut seed) % 600));
        child.kill().expect("SIGKILL the server");
        child.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().unwrap();
        }
        killed(round);
        check_exactly_once(lode, &acked.lock().unwrap(), round);
    }
    // A final clean start recovers the write-ahead logs and still finds everything once.
    let (mut child, _) = start(lode);
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
        "{} events acknowledged over {rounds} kills, {total} stored",
        acked.len()
    );
    assert_eq!(
        lode.search_json("crashtest | stats count by id | where count > 1")
            .len(),
        0
    );
}
