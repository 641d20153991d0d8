//! The pipeline's sink: routes each batch by the events' `index` to that index's writer and
//! returns only once every event of the batch is durable. Each pipeline set has its own sink,
//! writing to its own lane (hot bucket) of every index.

use std::collections::HashMap;
use std::sync::Arc;

use lode_event::Event;
use lode_ingest::{Sink, SinkError};
use lode_store::IndexWriter;

/// The writers of every configured index, by name.
pub type Writers = Arc<HashMap<String, IndexWriter>>;

/// A [`Sink`] over the node's index writers.
pub struct StoreSink {
    writers: Writers,
    /// The writer lane of this sink's pipeline set.
    lane: usize,
    /// Per-index batches of a mixed batch (handed to the writers by value).
    groups: HashMap<String, Vec<Event>>,
}

impl StoreSink {
    /// A sink writing to lane `lane` of `writers`.
    pub fn new(writers: Writers, lane: usize) -> StoreSink {
        StoreSink {
            writers,
            lane,
            groups: HashMap::new(),
        }
    }
}

impl Sink for StoreSink {
    fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError> {
        // Check every destination first so that a batch naming an unknown index is refused whole,
        // before any of it is written.
        if let Some(bad) = batch.iter().find(|e| !self.writers.contains_key(&e.index)) {
            return Err(SinkError::new(format!(
                "index '{}' does not exist (define it in etc/system/local/indexes.conf)",
                bad.index
            )));
        }
        let single = batch
            .first()
            .map(|f| batch.iter().all(|e| e.index == f.index))
            .unwrap_or(true);
        if single {
            if let Some(first) = batch.first() {
                let writer = &self.writers[&first.index];
                writer.append_to(self.lane, batch).map_err(SinkError::new)?;
            }
            return Ok(());
        }
        for e in batch {
            self.groups.entry(e.index.clone()).or_default().push(e);
        }
        for (index, events) in self.groups.iter_mut() {
            if !events.is_empty() {
                self.writers[index]
                    .append_to(self.lane, std::mem::take(events))
                    .map_err(SinkError::new)?;
            }
        }
        Ok(())
    }
}
