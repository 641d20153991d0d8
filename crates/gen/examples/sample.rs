//! Writes a small corpus to a directory: `cargo run -p lode-gen --example sample DIR [BYTES]`.

use lode_gen::{write_dir, GenConfig};
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "gen-sample".into()));
    let bytes = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let summary = write_dir(GenConfig::new(7, bytes), &dir, &mut |_| {})?;
    println!(
        "{} events, {} bytes in {}",
        summary.events,
        summary.bytes,
        dir.display()
    );
    Ok(())
}
