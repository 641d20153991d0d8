//! The threaded pipeline: parsing → merging → typing → indexing, one thread per stage, joined by
//! bounded queues (crossbeam `bounded`): a full queue blocks the stage (or the input) before it,
//! so a slow sink slows the inputs down and nothing is dropped.
//!
//! Messages of one stream travel in order through every queue, so per-stream state (partial line,
//! event being merged, previous time) lives in each stage, keyed by stream id. A stream's
//! `Finish` marker follows its data; when it reaches the indexing stage every earlier event of
//! the stream has been handed to the sink, and the stage replies with the stream's counts — or
//! with the sink error if any batch holding its events failed.
//!
//! One [`Pipeline`] is one *pipeline set* (Splunk's ingestion pipeline): its own queues, stage
//! threads and sink. [`Pipelines`] runs several sets side by side and gives each stream to one.
//! Every queue reports its fill level and blocking counts ([`QueueMetrics`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::Sender;
use lode_event::{Event, Micros};

use crate::error::{IngestError, SinkError};
use crate::settings::Resolved;
use crate::{Settings, SourceMeta};
use queue::{metered, Gauge, Metered};
use stages::{index_stage, merge_stage, parse_stage, type_stage};

mod queue;
mod sets;
mod stages;
mod stream;

pub use queue::QueueMetrics;
pub use sets::Pipelines;
pub use stream::StreamHandle;

/// Where indexed events go (the store). `write` returns once the batch is durable.
pub trait Sink: Send + 'static {
    /// Makes `batch` durable, or fails (the batch's streams are then told).
    fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError>;
}

/// Pipeline tuning.
#[derive(Clone)]
pub struct PipelineConfig {
    /// props/transforms, resolved lazily per stream.
    pub settings: Arc<Settings>,
    /// Messages each inter-stage queue holds before its producer blocks.
    pub queue_capacity: usize,
    /// Events per sink write (a batch is also written when its streams finish or input pauses).
    pub batch_events: usize,
}

/// Counts of one finished stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamReport {
    /// Events made durable by the sink.
    pub events: u64,
    /// Input bytes received.
    pub bytes: u64,
    /// Events dropped by a nullQueue transform.
    pub dropped: u64,
    /// Events cut at TRUNCATE.
    pub truncated: u64,
}

/// The ingest clock: µs since the epoch.
pub type Clock = Arc<dyn Fn() -> Micros + Send + Sync>;

/// The body of one stage thread.
type StageFn = Box<dyn FnOnce() + Send>;

/// State shared by a stream's handle and the indexing stage.
pub(crate) struct StreamShared {
    /// Guards the first sink error that hit one of this stream's batches.
    pub(crate) error: Mutex<Option<SinkError>>,
}

impl StreamShared {
    pub(crate) fn error(&self) -> Option<SinkError> {
        self.error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }
}

/// What every stage learns about a stream when it opens.
pub(crate) struct StreamCtx {
    pub(crate) settings: Arc<Resolved>,
    pub(crate) meta: SourceMeta,
    pub(crate) shared: Arc<StreamShared>,
}

/// A stream's end marker: counts gathered by the stages, and where to send the result.
pub(crate) struct Finisher {
    pub(crate) report: StreamReport,
    pub(crate) reply: Option<Sender<Result<StreamReport, IngestError>>>,
}

/// What travels through the queues, in stream order.
pub(crate) enum Msg<T> {
    Open(u64, Arc<StreamCtx>),
    Data(u64, T),
    Finish(u64, Finisher),
    Shutdown,
}

/// A running pipeline set. Streams are opened with [`Pipeline::open_stream`];
/// [`Pipeline::shutdown`] flushes everything and stops the threads.
pub struct Pipeline {
    /// Number of this set among its siblings (Splunk's `ingest_pipe`), from 0.
    set: usize,
    input: Metered<Msg<Vec<u8>>>,
    settings: Arc<Settings>,
    next_id: AtomicU64,
    /// Streams opened and not yet finished or dropped.
    open: Arc<AtomicUsize>,
    /// The four queues, in stage order.
    gauges: Vec<Arc<Gauge>>,
    threads: Vec<(&'static str, JoinHandle<()>)>,
    /// Guards the first sink error of the pipeline, returned by `shutdown`.
    first_error: Arc<Mutex<Option<SinkError>>>,
}

/// The wall clock as ingest time.
pub(crate) fn wall_clock() -> Clock {
    Arc::new(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map_or(0, |d| d.as_micros() as Micros)
    })
}

impl Pipeline {
    /// Starts the stage threads, using the wall clock as ingest time.
    pub fn start(cfg: PipelineConfig, sink: Box<dyn Sink>) -> Pipeline {
        Pipeline::start_set(cfg, sink, wall_clock(), 0)
    }

    /// Starts the stage threads with an explicit ingest clock (tests use a fixed one).
    pub fn start_with_clock(cfg: PipelineConfig, sink: Box<dyn Sink>, clock: Clock) -> Pipeline {
        Pipeline::start_set(cfg, sink, clock, 0)
    }

    /// Starts set number `set` (used only to label its metrics and threads).
    pub(crate) fn start_set(
        cfg: PipelineConfig,
        sink: Box<dyn Sink>,
        clock: Clock,
        set: usize,
    ) -> Pipeline {
        let cap = cfg.queue_capacity.max(1);
        let (input, parse_rx, parse_g, g1) = metered("parsingqueue", cap);
        let (merge_tx, merge_rx, merge_g, g2) = metered("aggqueue", cap);
        let (type_tx, type_rx, type_g, g3) = metered("typingqueue", cap);
        let (index_tx, index_rx, index_g, g4) = metered("indexqueue", cap);
        let first_error = Arc::new(Mutex::new(None));
        let errors = first_error.clone();
        let batch = cfg.batch_events.max(1);
        let spawn = |name: &'static str, f: StageFn| {
            let handle = std::thread::Builder::new()
                .name(format!("lode-{name}-{set}"))
                .spawn(f);
            handle.map(|h| (name, h))
        };
        let mut threads = Vec::new();
        // Each stage holds its input queue's probe guard for as long as it reads the queue.
        let stages: Vec<(&'static str, StageFn)> = vec![
            (
                "parsing",
                Box::new(move || {
                    let _probe = parse_g;
                    parse_stage(parse_rx, merge_tx)
                }),
            ),
            (
                "merging",
                Box::new(move || {
                    let _probe = merge_g;
                    merge_stage(merge_rx, type_tx, clock)
                }),
            ),
            (
                "typing",
                Box::new(move || {
                    let _probe = type_g;
                    type_stage(type_rx, index_tx)
                }),
            ),
            (
                "indexing",
                Box::new(move || {
                    let _probe = index_g;
                    index_stage(index_rx, sink, batch, errors)
                }),
            ),
        ];
        for (name, f) in stages {
            // A thread that cannot be spawned leaves its queue without a consumer: streams then
            // fail with `Closed` instead of hanging.
            if let Ok(t) = spawn(name, f) {
                threads.push(t);
            }
        }
        Pipeline {
            set,
            input,
            settings: cfg.settings,
            next_id: AtomicU64::new(1),
            open: Arc::new(AtomicUsize::new(0)),
            gauges: vec![g1, g2, g3, g4],
            threads,
            first_error,
        }
    }

    /// Opens a stream (a file, a connection). Blocks while the input queue is full.
    pub fn open_stream(&self, meta: SourceMeta) -> StreamHandle {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(StreamShared {
            error: Mutex::new(None),
        });
        let settings = self.settings.resolve(&meta);
        let ctx = Arc::new(StreamCtx {
            settings,
            meta,
            shared: shared.clone(),
        });
        // If the pipeline is gone, the handle's first send reports `Closed`.
        let _ = self.input.send(Msg::Open(id, ctx));
        StreamHandle::new(id, self.input.clone(), shared, self.open.clone())
    }

    /// Number of this set (Splunk's `ingest_pipe`), from 0.
    pub fn set(&self) -> usize {
        self.set
    }

    /// Streams opened on this set and not yet finished or dropped.
    pub fn open_streams(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Fill level and blocking counts of this set's four queues, in stage order.
    pub fn metrics(&self) -> Vec<QueueMetrics> {
        self.gauges.iter().map(|g| g.snapshot(self.set)).collect()
    }

    /// Flushes every open stream, writes the last batch and stops the threads. Returns the first
    /// sink error of the pipeline's life, or a stage failure.
    pub fn shutdown(mut self) -> Result<(), IngestError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), IngestError> {
        let _ = self.input.send(Msg::Shutdown);
        let mut result = Ok(());
        for (name, t) in self.threads.drain(..) {
            if t.join().is_err() && result.is_ok() {
                result = Err(IngestError::StageFailed(name));
            }
        }
        result?;
        let err = self
            .first_error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        err.map_or(Ok(()), |e| Err(IngestError::Sink(e)))
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            let _ = self.stop();
        }
    }
}
