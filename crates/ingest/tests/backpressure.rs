//! Backpressure all the way to the input: a deliberately slow sink makes `StreamHandle::send`
//! wait (counted as blocks on `parsingqueue`), no queue ever holds more than its capacity, the
//! events in flight stay under a fixed bound, and nothing is lost or reordered.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use lode_event::Event;
use lode_ingest::{PipelineConfig, Pipelines, QueueMetrics, Settings, Sink, SinkError};

/// Lines per chunk the input sends.
const LINES_PER_CHUNK: u64 = 4;
/// Chunks the input sends.
const CHUNKS: u64 = 400;
/// Queue capacity, in messages.
const CAP: usize = 2;
/// Events per sink write.
const BATCH: usize = 8;

/// A sink that sleeps on every write (a slow disk) and checks how far the input ran ahead.
struct Slow {
    /// Lines the input has finished sending.
    sent: Arc<AtomicU64>,
    /// Events written so far, in order.
    written: Arc<Mutex<Vec<Event>>>,
    /// Largest number of events sent but not yet written, seen at a write.
    max_in_flight: Arc<AtomicU64>,
}

impl Sink for Slow {
    fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError> {
        std::thread::sleep(Duration::from_millis(2));
        let mut w = self.written.lock().unwrap();
        let in_flight = self.sent.load(Ordering::SeqCst) - w.len() as u64;
        self.max_in_flight.fetch_max(in_flight, Ordering::SeqCst);
        w.extend(batch);
        Ok(())
    }
}

#[test]
fn slow_sink_blocks_the_input_with_bounded_queues_and_loses_nothing() {
    let sent = Arc::new(AtomicU64::new(0));
    let written = Arc::new(Mutex::new(Vec::new()));
    let max_in_flight = Arc::new(AtomicU64::new(0));
    let cfg = PipelineConfig {
        settings: Arc::new(Settings::builtin().unwrap().0),
        queue_capacity: CAP,
        batch_events: BATCH,
    };
    let sink = Slow {
        sent: sent.clone(),
        written: written.clone(),
        max_in_flight: max_in_flight.clone(),
    };
    let p = Arc::new(Pipelines::start_with_clock(
        cfg,
        1,
        move |_| {
            Box::new(Slow {
                sent: sink.sent.clone(),
                written: sink.written.clone(),
                max_in_flight: sink.max_in_flight.clone(),
            })
        },
        Arc::new(|| NOW),
    ));
    // A monitor samples every queue while the input runs.
    let done = Arc::new(AtomicBool::new(false));
    let monitor = {
        let (p, done) = (p.clone(), done.clone());
        std::thread::spawn(move || {
            let mut worst: Vec<QueueMetrics> = p.metrics();
            let mut samples = 0u64;
            while !done.load(Ordering::SeqCst) {
                for (w, m) in worst.iter_mut().zip(p.metrics()) {
                    assert!(m.current_size <= m.max_size, "{m:?}");
                    w.current_size = w.current_size.max(m.current_size);
                }
                samples += 1;
                std::thread::sleep(Duration::from_micros(200));
            }
            (worst, samples)
        })
    };
    let mut h = p.open_stream(meta("syslog"));
    for c in 0..CHUNKS {
        let chunk: String = (0..LINES_PER_CHUNK)
            .map(|k| format!("Mar  1 10:00:00 h1 app: line {}\n", c * LINES_PER_CHUNK + k))
            .collect();
        h.send(chunk.as_bytes()).unwrap();
        sent.fetch_add(LINES_PER_CHUNK, Ordering::SeqCst);
    }
    let report = h.finish().unwrap();
    done.store(true, Ordering::SeqCst);
    let (worst, samples) = monitor.join().unwrap();
    let metrics = p.metrics();
    Arc::into_inner(p).unwrap().shutdown().unwrap();

    assert_eq!(report.events, CHUNKS * LINES_PER_CHUNK);
    let written = written.lock().unwrap();
    let want: Vec<String> = (0..CHUNKS * LINES_PER_CHUNK)
        .map(|i| format!("Mar  1 10:00:00 h1 app: line {i}"))
        .collect();
    assert_eq!(raws(&written), want, "lost or reordered events");

    // The input had to wait for the slow sink: backpressure reached `send`.
    let parsing = metrics.iter().find(|m| m.name == "parsingqueue").unwrap();
    assert!(parsing.blocked > 0, "{metrics:?}");
    for m in &metrics {
        assert!(m.largest_size <= m.max_size, "{m:?}");
    }
    assert!(samples > 0 && worst.iter().all(|m| m.current_size <= CAP));
    // In flight: 4 queues of CAP messages, one message in the hands of each of the 4 stages and
    // of the input, each at most one chunk's lines, plus the indexing stage's pending batch.
    let bound = (4 * CAP as u64 + 5) * LINES_PER_CHUNK + BATCH as u64 + LINES_PER_CHUNK;
    let seen = max_in_flight.load(Ordering::SeqCst);
    assert!(seen <= bound, "{seen} events in flight > bound {bound}");
}
