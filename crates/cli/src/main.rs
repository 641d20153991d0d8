//! `lode`: the command-line entry point. Thin: parses arguments, calls the library crates, maps
//! errors to the documented exit codes (see `docs/CLI.md`).

mod cli;
mod client;
mod cmd;
mod exit;
mod output;
mod progress;
mod sysstat;

use clap::Parser;

/// glibc's malloc gives each thread that contends for the heap an arena of its own (up to 8 per
/// core) and keeps what is freed in each: with the ingest stages, search workers and server
/// threads that doubled peak memory (`lode bench --scenario burst --size 300MB`: 485 MB resident
/// for a 237 MB heap peak; 259 MB with two arenas, at the same speed). `MALLOC_ARENA_MAX` in the
/// environment still wins.
#[allow(unsafe_code)] // One of the workspace's four unsafe uses outside tests (the others: the term index's prefetch hint, lode_store::terms::prefetch; zstd's dictionary trainer, lode_store::bucket::journal::train_fast_cover; the tokenizer's AVX2 byte classes, lode_event::token::avx2): a documented libc tuning knob.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only changes allocator tuning; called before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

fn main() {
    limit_malloc_arenas();
    let args = cli::Cli::parse();
    let filter = if args.verbose { "debug" } else { "warn" };
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(
            tracing_subscriber::EnvFilter::try_from_env("LODE_LOG")
                .unwrap_or_else(|_| filter.into()),
        );
    tracing_subscriber::registry()
        .with(stderr)
        .with(lode_server::internal::InternalLayer)
        .init();
    let code = match cmd::run(args) {
        Ok(()) => exit::OK,
        Err(e) => e.report(),
    };
    std::process::exit(code);
}
