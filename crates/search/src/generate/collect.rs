//! `collect index=<name> …`: writes the results as events into an existing index (a summary
//! index) and passes them on. Searches cannot write, so the caller lends a [`CollectSink`]
//! (the node) through [`crate::run::RunOptions::collect`]; without one, `collect` fails.
//!
//! The LAST command's `collect`: [`take`] removes it from the pipeline and [`Collector`] writes
//! each batch of final rows. Anywhere else it is an operator (`crate::ops::collect`) that writes
//! the rows passing through and hands them on. A row with `_raw` keeps it; any other row
//! becomes Splunk's `stash` text: `MM/DD/YYYY HH:MM:SS +0000, key="value", …` (internal fields
//! left out, a multivalue field repeated per value), then `marker`. `_time` is the row's
//! (or the search start).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use lode_event::{Event, Micros};
use lode_spl::ast::data::{Collect, DataCommand};
use lode_spl::ast::{Command, Pipeline};
use lode_time::strptime::strftime;
use lode_time::Zone;

use crate::plan::index;
use crate::row::Row;
use crate::value::Value;
use crate::SearchError;

/// Where `collect` writes (implemented by the node that owns the indexes).
pub trait CollectSink: Send + Sync {
    /// Makes `events` (each with its index, host, source, sourcetype and time set) durable;
    /// returns how many were written.
    fn write(&self, events: Vec<Event>) -> Result<u64, String>;
}

/// A shared [`CollectSink`] in [`crate::run::RunOptions`].
#[derive(Clone)]
pub struct CollectHandle(pub Arc<dyn CollectSink>);

impl fmt::Debug for CollectHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CollectHandle")
    }
}

impl PartialEq for CollectHandle {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CollectHandle {}

/// Removes a trailing `collect` from `p` (one before the last command stays: it runs as an
/// operator that writes its input and passes it on).
pub fn take(p: &mut Pipeline) -> Result<Option<Collect>, SearchError> {
    match p.commands.last() {
        Some(Command::Data(DataCommand::Collect(_))) if p.commands.len() > 1 => {
            match p.commands.pop() {
                Some(Command::Data(DataCommand::Collect(c))) => Ok(Some(c)),
                _ => Ok(None),
            }
        }
        Some(Command::Data(DataCommand::Collect(_))) => Err(SearchError::User(
            "Error in 'collect' command: collect needs results; it cannot start a search.".into(),
        )),
        _ => Ok(None),
    }
}

/// Writes the rows of one search.
pub struct Collector {
    cmd: Collect,
    sink: Option<Arc<dyn CollectSink>>,
    now: Micros,
}

impl Collector {
    /// Checks the target index (through [`crate::plan::index`], as searches select indexes)
    /// and the sink.
    pub fn new(
        cmd: Collect,
        sink: Option<&CollectHandle>,
        index_root: &Path,
        now: Micros,
    ) -> Result<Collector, SearchError> {
        let available = index::list_indexes(index_root)?;
        let selected = index::select(&[vec![cmd.index.clone()]], &available);
        if cmd.index.contains('*') || !selected.contains(&cmd.index) {
            return Err(SearchError::User(format!(
                "Error in 'collect' command: The index '{}' does not exist.",
                cmd.index
            )));
        }
        let sink = match (sink, cmd.testmode) {
            (Some(s), _) => Some(s.0.clone()),
            (None, true) => None,
            (None, false) => {
                return Err(SearchError::User(
                    "Error in 'collect' command: this search cannot write to indexes (no node to write through).".into(),
                ))
            }
        };
        Ok(Collector { cmd, sink, now })
    }

    /// The event text of `row`.
    fn raw(&self, row: &Row, time: Micros) -> String {
        let mut out = match row.peek("_raw") {
            Some(r) => r.as_str().into_owned(),
            None => {
                let mut s = strftime(time, "%m/%d/%Y %H:%M:%S %z", Zone::Utc);
                for (k, v) in row.fields() {
                    if k.starts_with('_') {
                        continue;
                    }
                    for x in v.iter_values() {
                        let text = x.as_str().replace('\\', "\\\\").replace('"', "\\\"");
                        s.push_str(&format!(", {k}=\"{text}\""));
                    }
                }
                s
            }
        };
        if let Some(m) = &self.cmd.marker {
            out.push_str(", ");
            out.push_str(m);
        }
        out
    }

    /// Writes `rows` (unless `testmode`, which sets their `_raw` instead).
    pub fn write(&self, rows: &mut [Row]) -> Result<(), SearchError> {
        let mut events = Vec::with_capacity(rows.len());
        for r in rows.iter_mut() {
            let time = r.time().unwrap_or(self.now);
            let raw = self.raw(r, time);
            if self.cmd.testmode {
                r.set("_raw", Value::Str(raw));
                continue;
            }
            events.push(Event {
                time,
                index_time: self.now.div_euclid(1_000_000),
                linecount: Event::count_lines(&raw),
                raw,
                host: self.cmd.host.as_deref().unwrap_or("lode").into(),
                source: self.cmd.source.as_deref().unwrap_or("collect").into(),
                sourcetype: self.cmd.sourcetype.as_str().into(),
                index: self.cmd.index.as_str().into(),
                fields: Vec::new(),
            });
        }
        if let (Some(sink), false) = (&self.sink, events.is_empty()) {
            sink.write(events).map_err(|e| {
                SearchError::Io(format!("collect into index '{}': {e}", self.cmd.index))
            })?;
        }
        Ok(())
    }
}
