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
///
/// glibc also maps blocks of at least its mmap threshold on their own, and raises that
/// threshold to the size of each mapped block freed (up to 32 MiB): after the first roll, a hot
/// bucket's term arena and table, a roll's sorted terms and a merge's buffers came from the
/// arenas, and the holes they left stayed resident until a trim. [`MMAP_THRESHOLD`] fixes it
/// (which also stops the raising), so those blocks go back to the system when freed.
/// `MALLOC_MMAP_THRESHOLD_` in the environment still wins.
#[allow(unsafe_code)] // This file's libc allocator knobs are among the workspace's few unsafe uses outside tests (the others: the term index's prefetch hint, lode_store::terms::prefetch; zstd's dictionary trainer, lode_store::bucket::journal::train_fast_cover; the tokenizer's AVX2 byte classes, lode_event::token::avx2; the postings' SSE2 gaps, lode_store::postings::gaps8_sse2): documented libc tuning.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY (both): mallopt only changes allocator tuning; called before any other thread
        // exists.
        if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, 2);
            }
        }
        if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            }
        }
    }
}

/// Blocks of at least this many bytes are mapped on their own ([`tune_malloc`]). 3 GB burst
/// (`lode bench --scenario burst --size 3GB`, session 38): peaks 296 and 295 MB (p99 283) with
/// glibc's raising threshold; 279 MB at 1 MiB, but every search buffer over 1 MiB is then
/// mapped and unmapped (fewer searches, and the 300 MB burst of session 22 ingested 15–25 %
/// slower); 291 at 4 MiB; 281 MB (p99 266) at 8 MiB, which only the term index's, the rolls'
/// and the merges' large vectors reach; 297 MB at 16 MiB. The 10 GB burst at 8 MiB: p99 293
/// against 299 MB, half as many give-backs, as many searches; ingest alone may pay a few
/// percent of CPU (docs/PERFORMANCE.md, session 38).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 8 << 20;

/// How often freed memory goes back to the system (see [`give_back_freed_memory`]).
const GIVE_BACK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// glibc returns freed memory to the system only from the top of each arena, so the pages a
/// roll's index, a merge or a search let go in the middle of an arena stay resident until
/// reused. A thread asks glibc once a second to return every whole free page (`malloc_trim`)
/// when at least `FREED_WORTH_GIVING_BACK` of freed memory is resident (the memory watcher
/// does the same more often while the process is over its target).
/// Peak memory, alternated (session 34): `bench --scenario burst --size 1GB` 325 and 296 MB
/// without, 273 and 262 MB with; `--size 3GB` 377 against 344 MB; the 1 GB ingest 248 and
/// 257 against 228 and 242 MB, with 29.8 and 29.5 against 29.9 and 31.4 CPU-s.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let trim = || loop {
            std::thread::sleep(GIVE_BACK_EVERY);
            lode_store::memory::give_back_from(lode_store::memory::FREED_WORTH_GIVING_BACK);
        };
        // Without the thread the process only keeps more memory: not a reason to fail.
        let _ = std::thread::Builder::new()
            .name("lode-give-back".into())
            .spawn(trim);
    }
}

/// Gives every whole free page of glibc's arenas back to the system now (see
/// [`give_back_freed_memory`]); the store calls it where a roll or a merge has just let go of
/// large buffers (`lode_store::memory::give_back`).
#[allow(unsafe_code)] // See `tune_malloc`.
fn trim_now() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of glibc's arenas; it takes the arenas'
    // locks itself and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn main() {
    tune_malloc();
    give_back_freed_memory();
    lode_store::memory::on_give_back(trim_now);
    lode_store::memory::on_heap_in_use(|| {
        let heap = sysstat::heap();
        heap.in_use + heap.mapped
    });
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
