//! The single-threaded naive twin of the pipeline: every stage in turn over one buffer.

use lode_event::{Event, Micros};

use crate::linebreak::LineBreaker;
use crate::merge::Merger;
use crate::typing::type_event;
use crate::{Settings, SourceMeta};

/// Runs parsing, merging and typing over `data` as one stream and returns the events that reach
/// the index (nullQueue drops removed). `now` is the ingest time, µs since the epoch. The threaded
/// [`crate::Pipeline`] must produce exactly these events for the same input and clock.
pub fn process_bytes(
    settings: &Settings,
    meta: &SourceMeta,
    data: &[u8],
    now: Micros,
) -> Vec<Event> {
    let resolved = settings.resolve(meta);
    let mut breaker = LineBreaker::new(resolved.clone());
    let mut lines = Vec::new();
    breaker.push(data, &mut lines);
    breaker.finish(&mut lines);
    let mut merger = Merger::new(resolved.clone(), meta.clone());
    let mut events = Vec::new();
    for line in lines {
        merger.push(line, now, &mut events);
    }
    merger.finish(now, &mut events);
    let mut scratch = String::new();
    events.retain_mut(|e| type_event(&resolved, e, &mut scratch));
    events
}
