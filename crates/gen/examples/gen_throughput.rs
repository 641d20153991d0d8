//! Measures generation speed: `cargo run --release -p lode-gen --example gen_throughput [MB]`.
//! Consumes the chunks without writing them, so it measures the generator alone.

use lode_gen::{GenConfig, Generator};
use std::time::Instant;

fn main() {
    let mb: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000);
    let mut generator = Generator::new(GenConfig::new(42, mb * 1_000_000));
    let mut checksum = 0u64;
    let started = Instant::now();
    let summary = generator
        .generate(&mut |_, chunk| checksum = checksum.wrapping_add(chunk[chunk.len() / 2] as u64));
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} bytes, {} events in {secs:.2} s: {:.0} MB/s, {:.2} M events/s, {:.0} bytes/event (checksum {checksum})",
        summary.bytes,
        summary.events,
        summary.bytes as f64 / secs / 1e6,
        summary.events as f64 / secs / 1e6,
        summary.bytes as f64 / summary.events.max(1) as f64,
    );
}
