//! Rule COLUMNS-ONLY: when the search clause is decided exactly by the index and the first
//! remaining command is a transforming command that reads only columns every bucket stores per
//! event (`_time`, `host`, `source`, `sourcetype`, plus `index` and `splunk_server`), the scan can
//! build rows from those columns without decompressing a single raw slice.
//!
//! Naive twin: reading the full events (the ordinary path) gives the same rows; the equivalence
//! tests run both.

use lode_spl::ast::{Agg, Command, SearchExpr};

use crate::agg::Kind;

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

/// Whether every condition of the search clause is a comparison of a [`COLUMN_FIELDS`] field
/// (or a time bound, applied by the time range): the clause can then be checked on rows built
/// from the columns, without the raw event.
pub fn clause_reads_only_columns(clause: Option<&SearchExpr>) -> bool {
    let mut stack: Vec<&SearchExpr> = clause.into_iter().collect();
    while let Some(e) = stack.pop() {
        match e {
            SearchExpr::And(v) | SearchExpr::Or(v) => stack.extend(v),
            SearchExpr::Not(x) => stack.push(x),
            SearchExpr::Compare { field, .. } if is_column(field) => {}
            SearchExpr::TimeBound { .. } => {}
            SearchExpr::Compare { .. } | SearchExpr::Term(_) => return false,
        }
    }
    true
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

/// The [`COLUMN_FIELDS`] that the first command of `rest` reads (when
/// [`reads_only_columns`] holds): what a slim row must carry.
pub fn fields_read(rest: &[Command]) -> Vec<&'static str> {
    let mut used: Vec<&str> = Vec::new();
    fn aggs<'a>(aggs: &'a [Agg], used: &mut Vec<&'a str>) {
        used.extend(aggs.iter().filter_map(|a| a.field.as_deref()));
    }
    match rest.first() {
        Some(Command::Stats(s)) => {
            aggs(&s.aggs, &mut used);
            used.extend(s.by.iter().map(String::as_str));
        }
        Some(Command::Timechart(t)) => {
            used.push("_time");
            aggs(&t.aggs, &mut used);
            used.extend(t.by.as_deref());
        }
        Some(Command::Top(t)) => used.extend(t.fields.iter().chain(&t.by).map(String::as_str)),
        _ => return COLUMN_FIELDS.to_vec(),
    }
    COLUMN_FIELDS
        .iter()
        .copied()
        .filter(|f| used.contains(f))
        .collect()
}

/// Rule COUNT-PUSHDOWN: when the first command after an exact search clause is `stats`,
/// `timechart` (events binned by its first span) or `top`/`rare` over column fields other than `_time` (`host`, `source`, `sourcetype`, `index`,
/// `splunk_server`) and every aggregation is one whose result depends only on how many events
/// carry each value (`count`, `count(f)`, `dc(f)`, `values(f)`, `min(f)`, `max(f)`), a bucket
/// need not give one row per event: the scan counts its candidates per distinct combination of
/// dictionary ids ([`crate::scan::counted`]) and hands one *counted row* per combination to the
/// command's partial state, which adds the count where it would have added one per row.
///
/// Naive twin: [`reads_only_columns`] rows, one per event (the equivalence tests run both).
pub fn counts_suffice(rest: &[Command]) -> bool {
    let field_ok = |f: &str| f != "_time" && is_column(f);
    match rest.first() {
        Some(Command::Stats(s)) => s.by.iter().all(|f| field_ok(f)) && aggs_count(&s.aggs),
        Some(Command::Timechart(t)) => t.by.as_deref().is_none_or(field_ok) && aggs_count(&t.aggs),
        Some(Command::Top(t)) => t.fields.iter().chain(&t.by).all(|f| field_ok(f)),
        _ => false,
    }
}

/// Whether every aggregation depends only on how many events carry each value of a column
/// other than `_time`.
fn aggs_count(aggs: &[Agg]) -> bool {
    let field_ok = |f: &str| f != "_time" && is_column(f);
    aggs.iter().all(|a| {
        matches!(
            Kind::of(a),
            Ok(Kind::CountRows | Kind::Count | Kind::Dc | Kind::Values | Kind::Min | Kind::Max)
        ) && a.field.as_deref().is_none_or(field_ok)
    })
}

/// The id columns ([`crate::scan::counted::Columns`]) whose values the first command reads (a
/// subset of `host`, `source`, `sourcetype`; `index` and `splunk_server` are the same for a
/// whole bucket).
pub fn counted_columns(rest: &[Command]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |f: &str| {
        if matches!(f, "host" | "source" | "sourcetype") && !out.iter().any(|o| o == f) {
            out.push(f.to_string());
        }
    };
    match rest.first() {
        Some(Command::Stats(s)) => {
            s.by.iter().for_each(|f| add(f));
            s.aggs
                .iter()
                .filter_map(|a| a.field.as_deref())
                .for_each(add);
        }
        Some(Command::Timechart(t)) => {
            t.by.iter().for_each(|f| add(f));
            t.aggs
                .iter()
                .filter_map(|a| a.field.as_deref())
                .for_each(add);
        }
        Some(Command::Top(t)) => t.fields.iter().chain(&t.by).for_each(|f| add(f)),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_suffice_for_counting_aggregations_of_columns() {
        assert!(counts_suffice(&rest("x | stats count by host")));
        assert!(counts_suffice(&rest("x | stats count")));
        assert!(counts_suffice(&rest(
            "x | stats count dc(source) values(host) max(sourcetype) by index, splunk_server"
        )));
        assert!(counts_suffice(&rest("x | top limit=2 sourcetype by host")));
        assert!(counts_suffice(&rest("x | rare host")));
        assert!(!counts_suffice(&rest("x | stats count by _time")));
        assert!(!counts_suffice(&rest("x | stats max(_time) by host")));
        assert!(!counts_suffice(&rest("x | stats earliest(host) by source")));
        assert!(!counts_suffice(&rest("x | stats sum(host)")));
        assert!(counts_suffice(&rest("x | timechart count by host")));
        assert!(counts_suffice(&rest("x | timechart span=1h dc(source)")));
        assert!(!counts_suffice(&rest("x | timechart max(_time)")));
        assert!(!counts_suffice(&rest("x | stats count by user")));
        assert_eq!(
            counted_columns(&rest("x | stats count dc(host) by sourcetype, index, host")),
            vec!["sourcetype", "host"]
        );
        assert!(counted_columns(&rest("x | stats count by index")).is_empty());
    }

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
