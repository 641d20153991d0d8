//! The node as the sink of SPL's `collect` ([`lode_search::generate::collect`]): result rows
//! written as events through [`lode_node::Node::write_events`] (typing transforms, WAL, group
//! commit), so they are durable when the search goes on.

use std::sync::Arc;

use lode_event::Event;
use lode_search::generate::collect::{CollectHandle, CollectSink};

/// Writes `collect`'s events into the node's indexes.
pub struct NodeSink(pub Arc<lode_node::Node>);

impl CollectSink for NodeSink {
    fn write(&self, events: Vec<Event>) -> Result<u64, String> {
        self.0.write_events(events).map_err(|e| e.to_string())
    }
}

/// The handle `RunOptions::collect` takes for `node`.
pub fn handle(node: Arc<lode_node::Node>) -> CollectHandle {
    CollectHandle(Arc::new(NodeSink(node)))
}
