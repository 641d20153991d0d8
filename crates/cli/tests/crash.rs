//! Crash test of the whole write path (HTTP request → pipeline → sink → group-commit fsync → 200
//! reply): a `lode serve` child is killed with SIGKILL mid-ingest five times; every acknowledged
//! event must be searchable exactly once. The driver is in `common/crash.rs`.

mod common;

use common::Lode;

#[test]
fn acknowledged_events_survive_sigkill_exactly_once() {
    let lode = Lode::new();
    common::crash::run(&lode, 5, 1, |_, _| {}, |_| {});
}
