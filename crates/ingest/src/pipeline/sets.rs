//! Several pipeline sets side by side (Splunk's `parallelIngestionPipelines`).
//!
//! Each set is a whole [`Pipeline`]: its own four queues, four stage threads and its own sink, so
//! sets share nothing on the hot path. A stream goes through exactly one set for its whole life
//! (per-stream state lives in each set's stages): [`Pipelines::open_stream`] gives it to the set
//! with the fewest open streams, ties going round-robin, so N concurrent streams spread over N
//! sets.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{wall_clock, Clock, Pipeline, PipelineConfig, QueueMetrics, Sink, StreamHandle};
use crate::error::IngestError;
use crate::SourceMeta;

/// A group of running pipeline sets.
pub struct Pipelines {
    sets: Vec<Pipeline>,
    /// Where the round-robin tie-break starts next.
    cursor: AtomicUsize,
}

impl Pipelines {
    /// Starts `n` sets (at least one); `make_sink(i)` gives set `i` its own sink.
    pub fn start(
        cfg: PipelineConfig,
        n: usize,
        make_sink: impl FnMut(usize) -> Box<dyn Sink>,
    ) -> Pipelines {
        Pipelines::start_with_clock(cfg, n, make_sink, wall_clock())
    }

    /// Like [`Pipelines::start`] with an explicit ingest clock (tests use a fixed one).
    pub fn start_with_clock(
        cfg: PipelineConfig,
        n: usize,
        mut make_sink: impl FnMut(usize) -> Box<dyn Sink>,
        clock: Clock,
    ) -> Pipelines {
        let sets = (0..n.max(1))
            .map(|i| Pipeline::start_set(cfg.clone(), make_sink(i), clock.clone(), i))
            .collect();
        Pipelines {
            sets,
            cursor: AtomicUsize::new(0),
        }
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Always false: there is at least one set.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The sets, by number.
    pub fn sets(&self) -> &[Pipeline] {
        &self.sets
    }

    /// The set the next stream goes to: fewest open streams, ties broken round-robin.
    pub fn pick(&self) -> usize {
        let n = self.sets.len();
        let start = self.cursor.fetch_add(1, Ordering::Relaxed) % n;
        (0..n)
            .map(|k| (start + k) % n)
            .min_by_key(|&i| self.sets[i].open_streams())
            .unwrap_or(0)
    }

    /// Opens a stream on the least-loaded set (see [`Pipelines::pick`]).
    pub fn open_stream(&self, meta: SourceMeta) -> StreamHandle {
        self.sets[self.pick()].open_stream(meta)
    }

    /// Queue figures of every set, set by set, in stage order.
    pub fn metrics(&self) -> Vec<QueueMetrics> {
        self.sets.iter().flat_map(|p| p.metrics()).collect()
    }

    /// Shuts every set down; returns the first error of any set.
    pub fn shutdown(self) -> Result<(), IngestError> {
        let mut result = Ok(());
        for set in self.sets {
            let r = set.shutdown();
            if result.is_ok() {
                result = r;
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use lode_event::Event;

    use super::*;
    use crate::{Settings, SinkError};

    /// Records which set wrote each event's source.
    struct Tagged(usize, Arc<Mutex<Vec<(usize, String)>>>);

    impl Sink for Tagged {
        fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError> {
            let mut seen = self.1.lock().unwrap();
            seen.extend(batch.into_iter().map(|e| (self.0, e.source.into())));
            Ok(())
        }
    }

    fn start(n: usize, seen: &Arc<Mutex<Vec<(usize, String)>>>) -> Pipelines {
        let cfg = PipelineConfig {
            settings: Arc::new(Settings::builtin().unwrap().0),
            queue_capacity: 4,
            batch_events: 16,
        };
        Pipelines::start_with_clock(
            cfg,
            n,
            |i| Box::new(Tagged(i, seen.clone())),
            Arc::new(|| 1_700_000_000_000_000),
        )
    }

    fn meta(source: &str) -> SourceMeta {
        SourceMeta {
            host: "h".into(),
            source: source.into(),
            sourcetype: "syslog".into(),
            index: "main".into(),
        }
    }

    #[test]
    fn concurrent_streams_spread_over_sets_and_stay_in_one() {
        let seen = Arc::default();
        let p = start(2, &seen);
        let mut a = p.open_stream(meta("a"));
        let mut b = p.open_stream(meta("b"));
        assert_eq!(p.sets()[0].open_streams() + p.sets()[1].open_streams(), 2);
        assert_eq!(p.sets()[0].open_streams(), 1, "one stream per set");
        for i in 0..200 {
            a.send(format!("Mar  1 10:00:00 h a {i}\n").as_bytes())
                .unwrap();
            b.send(format!("Mar  1 10:00:00 h b {i}\n").as_bytes())
                .unwrap();
        }
        assert_eq!(a.finish().unwrap().events, 200);
        assert_eq!(b.finish().unwrap().events, 200);
        assert_eq!(p.sets()[0].open_streams() + p.sets()[1].open_streams(), 0);
        p.shutdown().unwrap();
        let seen = seen.lock().unwrap();
        for source in ["a", "b"] {
            let sets: std::collections::BTreeSet<usize> = seen
                .iter()
                .filter(|(_, s)| s == source)
                .map(|(i, _)| *i)
                .collect();
            assert_eq!(sets.len(), 1, "stream {source} went through {sets:?}");
        }
        let used: std::collections::BTreeSet<usize> = seen.iter().map(|(i, _)| *i).collect();
        assert_eq!(used.len(), 2, "both sets received data");
    }

    #[test]
    fn metrics_name_every_queue_of_every_set() {
        let seen = Arc::default();
        let p = start(3, &seen);
        let m = p.metrics();
        assert_eq!(m.len(), 12);
        let names: Vec<_> = m[..4].iter().map(|q| q.name).collect();
        assert_eq!(
            names,
            ["parsingqueue", "aggqueue", "typingqueue", "indexqueue"]
        );
        assert_eq!(m[11].set, 2);
        assert!(m.iter().all(|q| q.max_size == 4 && q.current_size == 0));
        p.shutdown().unwrap();
    }
}
