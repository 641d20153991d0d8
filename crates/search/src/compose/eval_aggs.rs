//! `count(eval(<expr>)) AS n` and the other aggregations over an expression: before planning,
//! each expression becomes a hidden field computed by an `eval` inserted just before its
//! command, and the aggregation reads that field. The aggregation states stay plain field
//! states, so partial/final merging in batch mode works unchanged, and the `eval` (a streaming
//! command) runs on every worker.
//!
//! A boolean expression (comparison, `AND`/`OR`/`NOT`, `match`, `isnull`, …) counts a row only
//! when it is true, as in Splunk: `count(eval(status>=500))` counts the server errors.

use lode_spl::ast::{Agg, BinOp, Command, Expr, Pipeline, UnaryOp};

/// Prefix of the hidden fields.
const HIDDEN: &str = "__lode_eval_";

/// Functions whose result is a boolean.
const BOOLEAN_FUNCS: &[&str] = &[
    "true",
    "false",
    "isnull",
    "isnotnull",
    "isnum",
    "isstr",
    "isint",
    "isbool",
    "match",
    "like",
    "searchmatch",
    "cidrmatch",
    "in",
];

fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Bool(_) | Expr::Unary(UnaryOp::Not, _) => true,
        Expr::Binary(op, _, _) => matches!(op, BinOp::Or | BinOp::Xor | BinOp::And | BinOp::Cmp(_)),
        Expr::Call(name, _) => BOOLEAN_FUNCS.contains(&name.as_str()),
        _ => false,
    }
}

/// Rewrites the aggregations of `aggs` that take an expression; returns the `eval` assignments.
fn lower_aggs(aggs: &mut [Agg], next: &mut usize) -> Vec<(String, Expr)> {
    let mut out = Vec::new();
    for a in aggs {
        let Some(e) = a.eval.take() else { continue };
        let name = format!("{HIDDEN}{next}");
        *next += 1;
        let value = if is_boolean(&e) {
            Expr::Call(
                "if".into(),
                vec![
                    e,
                    Expr::Call("true".into(), Vec::new()),
                    Expr::Call("null".into(), Vec::new()),
                ],
            )
        } else {
            e
        };
        a.field = Some(name.clone());
        out.push((name, value));
    }
    out
}

/// Lowers every expression argument of `stats`, `eventstats`, `streamstats`, `timechart` and
/// `chart`.
pub fn lower(p: &mut Pipeline) {
    let mut next = 0;
    let mut i = 0;
    while i < p.commands.len() {
        let (evals, keeps_rows) = match &mut p.commands[i] {
            Command::Stats(s) => (lower_aggs(&mut s.aggs, &mut next), false),
            Command::Timechart(t) => (lower_aggs(&mut t.aggs, &mut next), false),
            Command::Chart(c) => (lower_aggs(&mut c.aggs, &mut next), false),
            Command::EventStats(s) => (lower_aggs(&mut s.aggs, &mut next), true),
            Command::StreamStats(s) => (lower_aggs(&mut s.stats.aggs, &mut next), true),
            _ => (Vec::new(), false),
        };
        if evals.is_empty() {
            i += 1;
            continue;
        }
        let names: Vec<String> = evals.iter().map(|(n, _)| n.clone()).collect();
        // Keep a leading search clause first: it is the scan's.
        let at = i.max(usize::from(matches!(
            p.commands.first(),
            Some(Command::Search(_))
        )));
        p.commands.insert(at, Command::Eval(evals));
        i += 2;
        if keeps_rows {
            // eventstats/streamstats pass their input rows on: drop the hidden fields.
            p.commands.insert(
                i,
                Command::Fields {
                    remove: true,
                    fields: names,
                },
            );
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_eval_and_reads_the_hidden_field() {
        let mut p = lode_spl::parse(
            "x | stats count(eval(a>1)) AS big, sum(eval(b*2)) AS s, count by h | eventstats dc(eval(u)) AS d",
        )
        .unwrap();
        lower(&mut p);
        assert_eq!(
            lode_spl::print(&p),
            "search x | eval __lode_eval_0=if(a > 1, true(), null()), __lode_eval_1=b * 2 | stats count(__lode_eval_0) AS big, sum(__lode_eval_1) AS s, count by h | eval __lode_eval_2=u | eventstats dc(__lode_eval_2) AS d | fields - __lode_eval_2"
        );
    }
}
