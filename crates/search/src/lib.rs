//! Search planning and execution over Lode indexes.
//!
//! Given a parsed SPL pipeline and the indexes under `var/lib/lode`, returns result rows:
//! [`plan`] lowers the leading search clause to a term query and a time range, [`scan`] walks the
//! buckets (time pruning → bloom → postings → only the needed raw slices, or a full scan when the
//! index cannot decide), [`matcher`] verifies each candidate event against the search clause, and
//! [`ops`] runs the remaining commands over batches of [`row::Row`]s.

pub mod agg;
pub mod cache;
pub mod compose;
pub mod error;
pub mod eval;
pub mod extract;
pub mod generate;
pub mod lookup;
pub mod matcher;
pub mod ops;
pub mod plan;
pub mod row;
pub mod run;
pub mod scan;
pub mod value;

pub use error::SearchError;
