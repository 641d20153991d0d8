//! Rule COLUMNS-ONLY: when the search clause is decided exactly by the index and the first
//! remaining command is a transforming command that reads only columns every bucket stores per
//! event (`_time`, `host`, `source`, `sourcetype`, plus `index` and `splunk_server`), the scan can
//! build rows from those columns without decompressing a single raw slice.
//!
//! Naive twin: reading the full events (the ordinary path) gives the same rows; the equivalence
//! tests run both.

use lode_spl::ast::{Agg, Command};

/// Fields a columns-only row carries.
pub const COLUMN_FIELDS: &[&str] = &[
    "_time",
    "host",
    "source",
    "sourcetype",
    "index",
    "splunk_server",
];

fn is_column(f: &str) -> bool {
    COLUMN_FIELDS.contains(&f)
}

fn aggs_ok(aggs: &[Agg]) -> bool {
    aggs.iter()
        .all(|a| a.field.as_deref().is_none_or(is_column))
}

/// Whether `rest` (the commands after the search clause) reads nothing but [`COLUMN_FIELDS`]
/// from the events.
pub fn reads_only_columns(rest: &[Command]) -> bool {
    match rest.first() {
        Some(Command::Stats(s)) => aggs_ok(&s.aggs) && s.by.iter().all(|f| is_column(f)),
        Some(Command::Timechart(t)) => aggs_ok(&t.aggs) && t.by.as_deref().is_none_or(is_column),
        Some(Command::Top(t)) => t.fields.iter().chain(&t.by).all(|f| is_column(f)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest(q: &str) -> Vec<Command> {
        let mut p = lode_spl::parse(q).unwrap().commands;
        p.remove(0);
        p
    }

    #[test]
    fn only_column_fields_qualify() {
        assert!(reads_only_columns(&rest("x | stats count by host")));
        assert!(reads_only_columns(&rest(
            "x | stats count dc(source) by sourcetype, host"
        )));
        assert!(reads_only_columns(&rest(
            "x | timechart span=1h count by sourcetype"
        )));
        assert!(reads_only_columns(&rest("x | top host")));
        assert!(!reads_only_columns(&rest("x | stats count by user")));
        assert!(!reads_only_columns(&rest("x | stats avg(bytes) by host")));
        assert!(!reads_only_columns(&rest(
            "x | rex \"(?<u>\\w+)\" | stats count by u"
        )));
        assert!(!reads_only_columns(&rest("x | head 10")));
        assert!(!reads_only_columns(&rest("x")));
    }
}
