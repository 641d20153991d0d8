//! An all-in-one Lode node on one `$LODE_HOME`.
//!
//! Given a home directory, [`Node`] loads the layered configuration (`etc/system/default` then
//! `etc/system/local`), opens a writer for every index of `indexes.conf`, and starts the
//! ingestion pipeline sets with those writers as their sinks. The CLI uses it directly when no
//! server holds the home ([`lock`]); the server uses it for its inputs. [`metrics`] exports the
//! sets' queue fill levels.

pub mod config;
pub mod hec;
pub mod home;
pub mod lock;
pub mod metrics;
pub mod node;
pub mod roles;
pub mod sink;
pub mod users;

pub use home::Home;
pub use node::{IngestSummary, Node, NodeError};
