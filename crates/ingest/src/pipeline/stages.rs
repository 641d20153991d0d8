//! The four stage loops of the pipeline. Each owns the per-stream state of its stage, keyed by
//! stream id, and forwards messages in order; a closed downstream queue ends the stage.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use lode_event::Event;

use super::queue::Metered;
use super::{Clock, Finisher, Msg, Sink, StreamCtx, StreamReport, StreamShared};
use crate::error::{IngestError, SinkError};
use crate::linebreak::LineBreaker;
use crate::merge::Merger;
use crate::settings::Resolved;
use crate::typing::type_event;

/// How long the indexing stage waits for more events before writing a partial batch.
const FLUSH_IDLE: Duration = Duration::from_millis(50);

/// The longest an event waits in a partial batch while more keep coming (a stream that trickles
/// events more often than [`FLUSH_IDLE`] would otherwise wait for a whole batch: at 100 events
/// a second, 20 s of 2,048 events before they are durable and searchable).
const FLUSH_AGE: Duration = Duration::from_millis(200);

pub(super) fn parse_stage(rx: Receiver<Msg<Vec<u8>>>, tx: Metered<Msg<Vec<String>>>) {
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

pub(super) fn merge_stage(
    rx: Receiver<Msg<Vec<String>>>,
    tx: Metered<Msg<Vec<Event>>>,
    clock: Clock,
) {
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

pub(super) fn type_stage(rx: Receiver<Msg<Vec<Event>>>, tx: Metered<Msg<Vec<Event>>>) {
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
    /// When the oldest of `events` arrived.
    since: Option<Instant>,
}

impl Pending {
    /// How long to wait for the next message before writing what is pending.
    fn wait(&self) -> Duration {
        match self.since {
            Some(t) => FLUSH_IDLE.min(FLUSH_AGE.saturating_sub(t.elapsed())),
            None => FLUSH_IDLE,
        }
    }
}

pub(super) fn index_stage(
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
        since: None,
    };
    let mut flush = |pending: &mut Pending,
                     streams: &mut HashMap<u64, (Arc<StreamShared>, u64)>| {
        pending.since = None;
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
        let msg = match rx.recv_timeout(pending.wait()) {
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
                let since = *pending.since.get_or_insert_with(Instant::now);
                pending.events.append(&mut events);
                match pending.owners.last_mut() {
                    Some((last, count)) if *last == id => *count += n,
                    _ => pending.owners.push((id, n)),
                }
                if pending.events.len() >= batch || since.elapsed() >= FLUSH_AGE {
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
