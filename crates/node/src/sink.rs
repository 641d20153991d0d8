//! The pipeline's sink: routes each batch by the events' `index` to that index's writer and
//! returns only once every event of the batch is durable. Each pipeline set has its own sink,
//! writing to its own lane (hot bucket) of every index.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use lode_event::Event;
use lode_ingest::{Sink, SinkError};
use lode_store::IndexWriter;

/// The writers of every configured index, by name; indexes can be added while running.
pub type Writers = Arc<RwLock<HashMap<String, Arc<IndexWriter>>>>;

/// The writer of `index`, if it exists.
pub fn writer(writers: &Writers, index: &str) -> Option<Arc<IndexWriter>> {
    writers
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(index)
        .cloned()
}

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
        let mut targets: HashMap<&str, Arc<IndexWriter>> = HashMap::new();
        {
            let map = self.writers.read().unwrap_or_else(|p| p.into_inner());
            for e in &batch {
                if targets.contains_key(e.index.as_str()) {
                    continue;
                }
                match map.get(e.index.as_str()) {
                    Some(w) => {
                        targets.insert(e.index.as_str(), w.clone());
                    }
                    None => {
                        return Err(SinkError::new(format!(
                        "index '{}' does not exist (define it in etc/system/local/indexes.conf)",
                        e.index
                    )))
                    }
                }
            }
        }
        let targets: HashMap<String, Arc<IndexWriter>> = targets
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        if targets.len() <= 1 {
            if let Some(w) = targets.into_values().next() {
                w.append_to(self.lane, batch).map_err(SinkError::new)?;
            }
            return Ok(());
        }
        for e in batch {
            match self.groups.get_mut(e.index.as_str()) {
                Some(group) => group.push(e),
                None => {
                    self.groups.insert(e.index.to_string(), vec![e]);
                }
            }
        }
        for (index, events) in self.groups.iter_mut() {
            if !events.is_empty() {
                targets[index]
                    .append_to(self.lane, std::mem::take(events))
                    .map_err(SinkError::new)?;
            }
        }
        Ok(())
    }
}
