//! `lode roll`: hot buckets to warm now, through the server when one holds the home.

use lode_node::lock::{self, Holder};
use lode_node::{Home, Node};

use crate::cli::RollArgs;
use crate::client;
use crate::exit::{CliError, CliResult, BUSY, FAILURE};

pub fn run(home: &Home, args: RollArgs) -> CliResult {
    match lock::acquire(home)? {
        Holder::Acquired(_lock) => {
            let node = Node::open(home).map_err(super::node_error)?;
            node.roll(args.index.as_deref())
                .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
            node.close()
                .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
        }
        Holder::Server(info) => client::roll(&info, args.index.as_deref())?,
        Holder::OtherWriter => {
            return Err(CliError::new(
                BUSY,
                "another lode process is writing to this home",
            ))
        }
    }
    println!(
        "Rolled hot buckets of {}.",
        args.index.as_deref().unwrap_or("every index")
    );
    Ok(())
}
