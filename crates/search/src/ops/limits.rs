//! Memory limits of the buffering commands: every command that holds rows or groups counts them
//! and fails with [`SearchError::Limit`] naming the limit instead of growing without bound.

use crate::error::SearchError;

/// Row and group limits (counts, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most groups held by `stats`, `timechart` series × buckets, `top`/`rare` combinations.
    pub max_groups: usize,
    /// Most rows held by `sort` (and `tail`).
    pub max_sort_rows: usize,
    /// Most distinct value combinations remembered by `dedup`.
    pub max_dedup_keys: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_groups: 1_000_000,
            max_sort_rows: 1_000_000,
            max_dedup_keys: 1_000_000,
        }
    }
}

/// The error for exceeding `name` (whose value is `value`) in `command`.
pub fn exceeded(command: &str, name: &str, value: usize) -> SearchError {
    SearchError::Limit(format!(
        "{command}: more than {name}={value}; narrow the search or raise the limit"
    ))
}
