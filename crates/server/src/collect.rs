//! The node as the sink of SPL's `collect` ([`lode_search::generate::collect`]): result rows
//! written as events through [`lode_node::Node::write_events`] (typing transforms, WAL, group
//! commit), so they are durable when the search goes on.
//!
//! A user's `collect` writes only into the indexes their roles may write
//! (`lode.writeIndexesAllowed`, [`crate::rest::roles::write_access`]): the sink of their search
//! carries those rights, and a batch naming any other index is refused whole.

use std::sync::Arc;

use lode_event::Event;
use lode_search::generate::collect::{CollectHandle, CollectSink};
use lode_search::plan::index::IndexAccess;

/// Who writes: the user and the indexes they may write into.
#[derive(Debug, Clone)]
pub struct Writer {
    /// User name (for the refusal).
    pub user: String,
    /// Their writable indexes.
    pub access: IndexAccess,
}

/// Writes `collect`'s events into the node's indexes; `writer` `None`: unrestricted (the local
/// secret, the CLI).
pub struct NodeSink {
    /// The node.
    pub node: Arc<lode_node::Node>,
    /// The caller's write rights.
    pub writer: Option<Writer>,
}

impl CollectSink for NodeSink {
    fn write(&self, events: Vec<Event>) -> Result<u64, String> {
        if let Some(w) = &self.writer {
            if let Some(e) = events.iter().find(|e| !w.access.allows(&e.index)) {
                return Err(crate::rest::roles::write_refusal(&w.user, &e.index));
            }
        }
        self.node.write_events(events).map_err(|e| e.to_string())
    }
}

/// The handle `RunOptions::collect` takes for `node` and a caller (`None`: unrestricted).
pub fn handle(node: Arc<lode_node::Node>, writer: Option<Writer>) -> CollectHandle {
    CollectHandle(Arc::new(NodeSink { node, writer }))
}
