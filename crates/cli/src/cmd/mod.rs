//! One module per subcommand.

mod add;
mod bench;
mod demo;
mod fsck;
mod gen;
mod hec;
mod roll;
mod search;
mod serve;

use lode_node::Home;

use crate::cli::{AddCommand, Cli, Command};
use crate::exit::{CliError, CliResult, CONFIG};

/// Runs the parsed command line.
pub fn run(args: Cli) -> CliResult {
    let home = Home::resolve(args.home.as_deref());
    match args.command {
        Command::Add(AddCommand::Oneshot(a)) => add::oneshot(&home, a),
        Command::Search(a) => search::run(&home, a),
        Command::Serve(a) => serve::run(&home, a),
        Command::Gen(a) => gen::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Fsck(a) => fsck::fsck(&home, a),
        Command::Inspect(a) => fsck::inspect(a),
        Command::Roll(a) => roll::run(&home, a),
        Command::Demo(a) => demo::run(&home, a),
        Command::Hec(c) => hec::run(&home, c),
    }
}

/// Maps a node start-up error to an exit code: configuration problems are CONFIG.
pub fn node_error(e: lode_node::NodeError) -> CliError {
    match e {
        lode_node::NodeError::Config(c) => CliError::new(CONFIG, c),
        other => CliError::new(crate::exit::FAILURE, other.to_string()),
    }
}

/// Prints configuration warnings (unknown keys and the like) to stderr.
pub fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("lode: warning: {w}");
    }
}
