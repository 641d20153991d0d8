//! Queue metrics of the node's pipeline sets, as Splunk's `metrics.log` lines
//! (`group=queue, ingest_pipe=0, name=parsingqueue, current_size=…, max_size=…, …`), and a
//! thread that logs them periodically. The server forwards its log into `_internal`, so these
//! lines become searchable there (`index=_internal group=queue`).

use std::fmt::Write as _;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use lode_ingest::{Pipelines, QueueMetrics};

/// How often the node logs its queue metrics (Splunk's default `metrics.log` interval).
pub const METRICS_EVERY: Duration = Duration::from_secs(30);

/// One queue as a `metrics.log` line (without time and level).
pub fn metrics_line(m: &QueueMetrics) -> String {
    let mut line = String::with_capacity(128);
    let _ = write!(
        line,
        "group=queue, ingest_pipe={}, name={}, current_size={}, max_size={}, largest_size={}, blocked={}",
        m.set, m.name, m.current_size, m.max_size, m.largest_size, m.blocked
    );
    line
}

/// A running metrics logger; stopped (and joined) on drop.
pub struct MetricsLogger {
    /// Dropping it wakes the thread and ends it.
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsLogger {
    /// Calls `emit` with one line per queue of `pipelines` every `every`, until dropped.
    pub fn start(
        pipelines: Arc<Pipelines>,
        every: Duration,
        mut emit: impl FnMut(String) + Send + 'static,
    ) -> MetricsLogger {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("lode-metrics".into())
            .spawn(move || loop {
                match stopped.recv_timeout(every) {
                    Err(RecvTimeoutError::Timeout) => {
                        for m in pipelines.metrics() {
                            emit(metrics_line(&m));
                        }
                    }
                    _ => return,
                }
            })
            .ok();
        MetricsLogger {
            stop: Some(stop),
            thread,
        }
    }

    /// Logs through `tracing` at INFO with target `metrics` (forwarded into `_internal` by a
    /// running server).
    pub fn start_tracing(pipelines: Arc<Pipelines>, every: Duration) -> MetricsLogger {
        MetricsLogger::start(
            pipelines,
            every,
            |line| tracing::info!(target: "metrics", "{line}"),
        )
    }
}

impl Drop for MetricsLogger {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use lode_event::Event;
    use lode_ingest::{PipelineConfig, Settings, Sink, SinkError};

    use super::*;

    struct Null;

    impl Sink for Null {
        fn write(&mut self, _: Vec<Event>) -> Result<(), SinkError> {
            Ok(())
        }
    }

    #[test]
    fn logs_every_queue_of_every_set_until_dropped() {
        let cfg = PipelineConfig {
            settings: Arc::new(Settings::builtin().unwrap().0),
            queue_capacity: 8,
            batch_events: 16,
        };
        let p = Arc::new(Pipelines::start(cfg, 2, |_| Box::new(Null)));
        let lines = Arc::new(Mutex::new(Vec::new()));
        let logger = {
            let lines = lines.clone();
            MetricsLogger::start(p.clone(), Duration::from_millis(5), move |l| {
                lines.lock().unwrap().push(l)
            })
        };
        while lines.lock().unwrap().len() < 8 {
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(logger);
        let n = lines.lock().unwrap().len();
        assert_eq!(n % 8, 0, "whole rounds of 2 sets × 4 queues");
        let lines = lines.lock().unwrap();
        assert_eq!(
            lines[0],
            "group=queue, ingest_pipe=0, name=parsingqueue, current_size=0, max_size=8, largest_size=0, blocked=0"
        );
        assert!(lines[7].starts_with("group=queue, ingest_pipe=1, name=indexqueue,"));
        Arc::into_inner(p).unwrap().shutdown().unwrap();
    }
}
