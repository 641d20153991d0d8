//! Crash test: a child process (this test binary re-executed with `LODE_CRASH_DIR` set) appends
//! numbered events and prints `ACK <last>` after each `append` returns; the parent SIGKILLs it
//! at random moments, recovers the index, and checks every acknowledged number is present
//! exactly once and nothing is duplicated.

mod common;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lode_event::Event;
use lode_store::{list_buckets, open_bucket, IndexConfig, IndexWriter, StoreError};

const DIR_VAR: &str = "LODE_CRASH_DIR";
const START_VAR: &str = "LODE_CRASH_START";

fn cfg() -> IndexConfig {
    // Small buckets so kills also land during rolls.
    IndexConfig {
        max_bucket_events: 400,
        ..IndexConfig::default()
    }
}

fn numbered(n: u64) -> Event {
    let mut e = common::event(n);
    e.raw = format!("crash n={n} {}", e.raw);
    e.index_time = n as i64;
    e
}

/// Not a test of its own: the body of the child process. Without `LODE_CRASH_DIR` it returns
/// at once (it then runs as an ordinary, empty test in the parent's test run).
#[test]
fn crash_child_writer() {
    let Ok(dir) = std::env::var(DIR_VAR) else {
        return;
    };
    let mut next: u64 = std::env::var(START_VAR).unwrap().parse().unwrap();
    let w = loop {
        match IndexWriter::open(Path::new(&dir), cfg()) {
            Ok((w, _)) => break w,
            // The killed predecessor's lock is released by the kernel; retry briefly.
            Err(StoreError::Locked { .. }) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("{e}"),
        }
    };
    let mut out = std::io::stdout().lock();
    let mut rng = next.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    loop {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let size = 1 + rng % 40;
        let batch: Vec<Event> = (next..next + size).map(numbered).collect();
        w.append(&batch).unwrap();
        next += size;
        writeln!(out, "ACK {}", next - 1).unwrap();
        out.flush().unwrap();
    }
}

fn present(dir: &Path) -> Vec<u64> {
    let mut nums = Vec::new();
    for info in list_buckets(dir).unwrap() {
        let b = open_bucket(&info).unwrap();
        let n = b.meta().event_count as u32;
        b.read_events(&mut (0..n), &mut |v| {
            nums.push(v.index_time as u64);
            true
        })
        .unwrap();
    }
    nums
}

#[test]
fn acknowledged_events_survive_sigkill() {
    if std::env::var(DIR_VAR).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1;
    let mut start = 0u64;
    let mut total_acked = 0u64;
    for round in 0..8 {
        let mut child = Command::new(&exe)
            .args([
                "crash_child_writer",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(DIR_VAR, dir.path())
            .env(START_VAR, start.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut last = None;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(n) = line.strip_prefix("ACK ") {
                    last = Some(n.trim().parse::<u64>().unwrap());
                }
            }
            last
        });
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let wait = Duration::from_millis(60 + seed % 400);
        let t0 = Instant::now();
        while t0.elapsed() < wait {
            std::thread::sleep(Duration::from_millis(10));
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        let acked = reader.join().unwrap();

        let (w, report) = IndexWriter::open(dir.path(), cfg()).unwrap();
        drop(w);
        let nums = present(dir.path());
        let unique: HashSet<u64> = nums.iter().copied().collect();
        assert_eq!(unique.len(), nums.len(), "round {round}: duplicated events");
        if let Some(acked) = acked {
            for n in start..=acked {
                assert!(
                    unique.contains(&n),
                    "round {round}: acknowledged {n} lost ({report:?})"
                );
            }
            total_acked += acked + 1 - start;
        }
        // Durable but unacknowledged events may be present too; continue after them.
        start = unique.iter().max().map_or(0, |m| m + 1);
        // Everything present is a contiguous prefix of the numbers written so far.
        assert_eq!(
            unique.len() as u64,
            start,
            "round {round}: gap in the stored numbers"
        );
    }
    assert!(total_acked > 0, "the child never acknowledged a batch");
    let buckets = list_buckets(dir.path()).unwrap().len();
    eprintln!("crash test: {total_acked} acknowledged events, {start} stored, {buckets} buckets");
}
