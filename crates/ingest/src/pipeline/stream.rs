//! The input side of one stream: chunks go into the set's `parsingqueue`, waiting while it is
//! full, so a slow sink slows the input that feeds it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crossbeam_channel::bounded;

use super::queue::Metered;
use super::{Finisher, Msg, StreamReport, StreamShared};
use crate::error::IngestError;

/// One input stream. Chunks may cut lines anywhere. Dropping a handle without `finish` still
/// flushes its data, but nobody learns whether it was written.
pub struct StreamHandle {
    id: u64,
    input: Metered<Msg<Vec<u8>>>,
    shared: Arc<StreamShared>,
    /// Bytes sent so far.
    bytes: u64,
    finished: bool,
    /// Open-stream count of the set; decremented when the handle goes away.
    open: Arc<AtomicUsize>,
}

impl StreamHandle {
    pub(super) fn new(
        id: u64,
        input: Metered<Msg<Vec<u8>>>,
        shared: Arc<StreamShared>,
        open: Arc<AtomicUsize>,
    ) -> StreamHandle {
        open.fetch_add(1, Ordering::Relaxed);
        StreamHandle {
            id,
            input,
            shared,
            bytes: 0,
            finished: false,
            open,
        }
    }

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
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}
