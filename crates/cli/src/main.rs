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

fn main() {
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
