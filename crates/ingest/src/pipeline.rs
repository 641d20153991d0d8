//! The threaded pipeline: parsing → merging → typing → indexing, one thread per stage, joined by
//! bounded queues (crossbeam `bounded`): a full queue blocks the stage (or the input) before it,
//! so a slow sink slows the inputs down and nothing is dropped.
//!
//! Messages of one stream travel in order through every queue, so per-stream state (partial line,
//! event being merged, previous time) lives in each stage, keyed by stream id. A stream's
//! `Finish` marker follows its data; when it reaches the indexing stage every earlier event of
//! the stream has been handed to the sink, and the stage replies with the stream's counts — or
//! with the sink error if any batch holding its events failed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};
use lode_event::{Event, Micros};

use crate::error::{IngestError, SinkError};
use crate::linebreak::LineBreaker;
use crate::merge::Merger;
use crate::settings::Resolved;
use crate::typing::type_event;
use crate::{Settings, SourceMeta};

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

/// How long the indexing stage waits for more events before writing a partial batch.
const FLUSH_IDLE: Duration = Duration::from_millis(50);

/// State shared by a stream's handle and the indexing stage.
struct StreamShared {
    /// Guards the first sink error that hit one of this stream's batches.
    error: Mutex<Option<SinkError>>,
}

impl StreamShared {
    fn error(&self) -> Option<SinkError> {
        self.error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }
}

struct StreamCtx {
    settings: Arc<Resolved>,
    meta: SourceMeta,
    shared: Arc<StreamShared>,
}

struct Finisher {
    report: StreamReport,
    reply: Option<Sender<Result<StreamReport, IngestError>>>,
}

enum Msg<T> {
    Open(u64, Arc<StreamCtx>),
    Data(u64, T),
    Finish(u64, Finisher),
    Shutdown,
}

/// A running pipeline. Streams are opened with [`Pipeline::open_stream`]; [`Pipeline::shutdown`]
/// flushes everything and stops the threads.
pub struct Pipeline {
    input: Sender<Msg<Vec<u8>>>,
    settings: Arc<Settings>,
    next_id: AtomicU64,
    threads: Vec<(&'static str, JoinHandle<()>)>,
    /// Guards the first sink error of the pipeline, returned by `shutdown`.
    first_error: Arc<Mutex<Option<SinkError>>>,
}

impl Pipeline {
    /// Starts the stage threads, using the wall clock as ingest time.
    pub fn start(cfg: PipelineConfig, sink: Box<dyn Sink>) -> Pipeline {
        let clock: Clock = Arc::new(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0, |d| d.as_micros() as Micros)
        });
        Pipeline::start_with_clock(cfg, sink, clock)
    }

    /// Starts the stage threads with an explicit ingest clock (tests use a fixed one).
    pub fn start_with_clock(cfg: PipelineConfig, sink: Box<dyn Sink>, clock: Clock) -> Pipeline {
        let cap = cfg.queue_capacity.max(1);
        let (input, parse_rx) = bounded(cap);
        let (merge_tx, merge_rx) = bounded(cap);
        let (type_tx, type_rx) = bounded(cap);
        let (index_tx, index_rx) = bounded(cap);
        let first_error = Arc::new(Mutex::new(None));
        let errors = first_error.clone();
        let batch = cfg.batch_events.max(1);
        let spawn = |name: &'static str, f: StageFn| {
            let handle = std::thread::Builder::new()
                .name(format!("lode-{name}"))
                .spawn(f);
            handle.map(|h| (name, h))
        };
        let mut threads = Vec::new();
        let stages: Vec<(&'static str, StageFn)> = vec![
            ("parsing", Box::new(move || parse_stage(parse_rx, merge_tx))),
            (
                "merging",
                Box::new(move || merge_stage(merge_rx, type_tx, clock)),
            ),
            ("typing", Box::new(move || type_stage(type_rx, index_tx))),
            (
                "indexing",
                Box::new(move || index_stage(index_rx, sink, batch, errors)),
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
            input,
            settings: cfg.settings,
            next_id: AtomicU64::new(1),
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
        StreamHandle {
            id,
            input: self.input.clone(),
            shared,
            bytes: 0,
            finished: false,
        }
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

/// One input stream. Chunks may cut lines anywhere. Dropping a handle without `finish` still
/// flushes its data, but nobody learns whether it was written.
pub struct StreamHandle {
    id: u64,
    input: Sender<Msg<Vec<u8>>>,
    shared: Arc<StreamShared>,
    /// Bytes sent so far.
    bytes: u64,
    finished: bool,
}

impl StreamHandle {
    /// Queues a chunk; blocks while the queue is full. Fails early if a sink error already hit
    /// this stream's events.
    pub fn send(&mut self, chunk: &[u8]) -> Result<(), IngestError> {
        if let Some(e) = self.shared.error() {
            return Err(IngestError::Sink(e));
        }
        if chunk.is_empty() {
            return Ok(());
        }
        self.input
            .send(Msg::Data(self.id, chunk.to_vec()))
            .map_err(|_| IngestError::Closed)?;
        self.bytes += chunk.len() as u64;
        Ok(())
    }

    /// Flushes the partial line/event and waits until every event of this stream is durable.
    pub fn finish(mut self) -> Result<StreamReport, IngestError> {
        self.finished = true;
        let (tx, rx) = bounded(1);
        let report = StreamReport {
            bytes: self.bytes,
            ..StreamReport::default()
        };
        let finisher = Finisher {
            report,
            reply: Some(tx),
        };
        self.input
            .send(Msg::Finish(self.id, finisher))
            .map_err(|_| IngestError::Closed)?;
        rx.recv().map_err(|_| IngestError::Closed)?
    }
}

impl Drop for StreamHandle {
    fn drop(&mut self) {
        if !self.finished {
            let finisher = Finisher {
                report: StreamReport::default(),
                reply: None,
            };
            let _ = self.input.send(Msg::Finish(self.id, finisher));
        }
    }
}

fn parse_stage(rx: Receiver<Msg<Vec<u8>>>, tx: Sender<Msg<Vec<String>>>) {
    let mut streams: HashMap<u64, (Arc<StreamCtx>, LineBreaker)> = HashMap::new();
    for msg in rx {
        let ok = match msg {
            Msg::Open(id, ctx) => {
                streams.insert(id, (ctx.clone(), LineBreaker::new(ctx.settings.clone())));
                tx.send(Msg::Open(id, ctx)).is_ok()
            }
            Msg::Data(id, chunk) => match streams.get_mut(&id) {
                Some((_, breaker)) => {
                    let mut lines = Vec::new();
                    breaker.push(&chunk, &mut lines);
                    lines.is_empty() || tx.send(Msg::Data(id, lines)).is_ok()
                }
                None => true,
            },
            Msg::Finish(id, mut fin) => {
                if let Some((_, mut breaker)) = streams.remove(&id) {
                    let mut lines = Vec::new();
                    breaker.finish(&mut lines);
                    fin.report.truncated += breaker.truncated;
                    if !lines.is_empty() && tx.send(Msg::Data(id, lines)).is_err() {
                        return;
                    }
                }
                tx.send(Msg::Finish(id, fin)).is_ok()
            }
            Msg::Shutdown => {
                for (id, (_, mut breaker)) in streams.drain() {
                    let mut lines = Vec::new();
                    breaker.finish(&mut lines);
                    if !lines.is_empty() {
                        let _ = tx.send(Msg::Data(id, lines));
                    }
                    let _ = tx.send(Msg::Finish(
                        id,
                        Finisher {
                            report: StreamReport::default(),
                            reply: None,
                        },
                    ));
                }
                let _ = tx.send(Msg::Shutdown);
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

fn merge_stage(rx: Receiver<Msg<Vec<String>>>, tx: Sender<Msg<Vec<Event>>>, clock: Clock) {
    let mut streams: HashMap<u64, Merger> = HashMap::new();
    for msg in rx {
        let ok = match msg {
            Msg::Open(id, ctx) => {
                streams.insert(id, Merger::new(ctx.settings.clone(), ctx.meta.clone()));
                tx.send(Msg::Open(id, ctx)).is_ok()
            }
            Msg::Data(id, lines) => match streams.get_mut(&id) {
                Some(merger) => {
                    let now = clock();
                    let mut events = Vec::with_capacity(lines.len());
                    for line in lines {
                        merger.push(line, now, &mut events);
                    }
                    events.is_empty() || tx.send(Msg::Data(id, events)).is_ok()
                }
                None => true,
            },
            Msg::Finish(id, fin) => {
                if let Some(mut merger) = streams.remove(&id) {
                    let mut events = Vec::new();
                    merger.finish(clock(), &mut events);
                    if !events.is_empty() && tx.send(Msg::Data(id, events)).is_err() {
                        return;
                    }
                }
                tx.send(Msg::Finish(id, fin)).is_ok()
            }
            Msg::Shutdown => {
                let _ = tx.send(Msg::Shutdown);
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

fn type_stage(rx: Receiver<Msg<Vec<Event>>>, tx: Sender<Msg<Vec<Event>>>) {
    // Per stream: its settings and the events dropped so far.
    let mut streams: HashMap<u64, (Arc<Resolved>, u64)> = HashMap::new();
    let mut scratch = String::new();
    for msg in rx {
        let ok = match msg {
            Msg::Open(id, ctx) => {
                streams.insert(id, (ctx.settings.clone(), 0));
                tx.send(Msg::Open(id, ctx)).is_ok()
            }
            Msg::Data(id, mut events) => match streams.get_mut(&id) {
                Some((settings, dropped)) => {
                    let before = events.len();
                    events.retain_mut(|e| type_event(settings, e, &mut scratch));
                    *dropped += (before - events.len()) as u64;
                    events.is_empty() || tx.send(Msg::Data(id, events)).is_ok()
                }
                None => true,
            },
            Msg::Finish(id, mut fin) => {
                if let Some((_, dropped)) = streams.remove(&id) {
                    fin.report.dropped += dropped;
                }
                tx.send(Msg::Finish(id, fin)).is_ok()
            }
            Msg::Shutdown => {
                let _ = tx.send(Msg::Shutdown);
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

/// Events waiting for the sink, and which streams they belong to.
struct Pending {
    events: Vec<Event>,
    /// (stream id, number of its events in `events`), in arrival order.
    owners: Vec<(u64, u64)>,
}

fn index_stage(
    rx: Receiver<Msg<Vec<Event>>>,
    mut sink: Box<dyn Sink>,
    batch: usize,
    first_error: Arc<Mutex<Option<SinkError>>>,
) {
    // Per stream: shared state and events made durable so far.
    let mut streams: HashMap<u64, (Arc<StreamShared>, u64)> = HashMap::new();
    let mut pending = Pending {
        events: Vec::with_capacity(batch),
        owners: Vec::new(),
    };
    let mut flush = |pending: &mut Pending,
                     streams: &mut HashMap<u64, (Arc<StreamShared>, u64)>| {
        if pending.events.is_empty() {
            return;
        }
        let events = std::mem::replace(&mut pending.events, Vec::with_capacity(batch));
        let result = sink.write(events);
        for (id, n) in pending.owners.drain(..) {
            let Some((shared, written)) = streams.get_mut(&id) else {
                continue;
            };
            match &result {
                Ok(()) => *written += n,
                Err(e) => {
                    if let Ok(mut slot) = shared.error.lock() {
                        slot.get_or_insert_with(|| e.clone());
                    }
                }
            }
        }
        if let Err(e) = result {
            if let Ok(mut slot) = first_error.lock() {
                slot.get_or_insert(e);
            }
        }
    };
    loop {
        let msg = match rx.recv_timeout(FLUSH_IDLE) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => {
                flush(&mut pending, &mut streams);
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        match msg {
            Msg::Open(id, ctx) => {
                streams.insert(id, (ctx.shared.clone(), 0));
            }
            Msg::Data(id, mut events) => {
                let n = events.len() as u64;
                pending.events.append(&mut events);
                match pending.owners.last_mut() {
                    Some((last, count)) if *last == id => *count += n,
                    _ => pending.owners.push((id, n)),
                }
                if pending.events.len() >= batch {
                    flush(&mut pending, &mut streams);
                }
            }
            Msg::Finish(id, mut fin) => {
                flush(&mut pending, &mut streams);
                if let Some((shared, written)) = streams.remove(&id) {
                    fin.report.events = written;
                    let result = match shared.error() {
                        Some(e) => Err(IngestError::Sink(e)),
                        None => Ok(fin.report),
                    };
                    if let Some(reply) = fin.reply {
                        let _ = reply.send(result);
                    }
                }
            }
            Msg::Shutdown => break,
        }
    }
    flush(&mut pending, &mut streams);
}
