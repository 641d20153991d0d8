//! Typing stage: `SEDCMD-*` then `TRANSFORMS-*` (masking, routing, filtering, index-time
//! fields), in Splunk's order.

use lode_event::Event;

use crate::settings::Resolved;

/// Applies SEDCMDs then transforms to `event`. Returns false when the event goes to the
/// nullQueue (dropped). `scratch` is a reusable buffer owned by the caller.
pub fn type_event(settings: &Resolved, event: &mut Event, scratch: &mut String) -> bool {
    for cmd in &settings.sed {
        cmd.apply(&mut event.raw, scratch);
    }
    let mut null_queue = false;
    for t in &settings.transforms {
        t.apply(event, &mut null_queue, scratch);
    }
    !null_queue
}
