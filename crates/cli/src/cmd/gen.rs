//! `lode gen`: writes a deterministic sample corpus and its manifest to a directory.

use lode_gen::GenConfig;

use crate::cli::GenArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::progress;

pub fn run(args: GenArgs) -> CliResult {
    let cfg = GenConfig {
        seed: args.seed,
        total_bytes: args.size,
        ..GenConfig::default()
    };
    let bar = progress::bytes(args.size, "generating");
    let summary = lode_gen::write_dir(cfg, &args.out, &mut |n| bar.set_position(n))
        .map_err(|e| CliError::new(FAILURE, format!("cannot write {}: {e}", args.out.display())))?;
    bar.finish_and_clear();
    println!(
        "Wrote {} events ({}) to {}; planted search targets are in manifest.json.",
        summary.events,
        super::add::human_bytes(summary.bytes),
        args.out.display()
    );
    Ok(())
}
