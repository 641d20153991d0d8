//! `tstats <agg>… [where <clause>] [by f… [_time] [span=…]]`: statistics from the term index
//! and the bucket columns, never from raw events.
//!
//! Over the bucket columns only (`host`, `source`, `sourcetype`, `index`, `splunk_server`,
//! `_time`), the command is rewritten into `search <clause> | stats <agg>… by f…` (or, with
//! `_time` among the `by` fields, `timechart span=… limit=0 useother=f <agg> [by f]`, whose table
//! is then turned back into one row per time and value). The planner answers those from the
//! index: the clause must lower to an exact term query or compare only bucket columns, so rows
//! come from the term index and columns alone (or are counted per dictionary id).
//!
//! Any other field is an index-time field (HEC `fields`, `WRITE_META` transforms), stored per
//! event in the column blocks beside the term `field::value` ([`indexed`]): candidates come from
//! the term index (`status=200` looks up `status::200`), rows from the columns and the stored
//! index-time fields — still no raw slice — and the same `stats`/`timechart` runs over them. An
//! event without the field has no value for it, as in Splunk (fields extracted at search time
//! are not indexed). With `_time` and several other `by` fields or aggregations (`span=`
//! required), rows take the same way, their `_time` floored to the span, into a `stats` by every
//! field. A `tstats` that would need raw events (a bare word, `_raw`) is refused.
//! Index selection is the search clause's: `index=` in the `where` clause, default `main`.

use std::path::Path;

use lode_spl::ast::data::Tstats;
use lode_spl::ast::{Command, Pipeline, SearchExpr, Stats, Timechart};

use super::feed;
use crate::agg::Kind;
use crate::ops::{ExecContext, Executor};
use crate::plan::{self, columns::COLUMN_FIELDS, PlanOptions};
use crate::row::Row;
use crate::run::{run_pipeline, RunOptions, SearchRequest, SearchStats};
use crate::value::{cmp_auto, Value};
use crate::SearchError;

mod indexed;

pub(crate) fn user(msg: String) -> SearchError {
    SearchError::User(format!("Error in 'tstats' command: {msg}"))
}

/// Runs `tstats` then `rest` over its rows.
pub fn run(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    t: &Tstats,
    rest: Vec<Command>,
    ctx: ExecContext,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    let fields: Vec<&str> = t
        .aggs
        .iter()
        .filter_map(|a| a.field.as_deref())
        .chain(t.by.iter().map(String::as_str))
        .collect();
    for f in &fields {
        if f.starts_with('_') && *f != "_time" {
            return Err(user(format!(
                "'{f}' is not an indexed field; tstats reads _time, host, source, sourcetype, index, splunk_server and index-time fields."
            )));
        }
    }
    let index_time =
        fields.iter().any(|f| !COLUMN_FIELDS.contains(f)) || compares_others(t.filter.as_ref());
    let binned = t.by.iter().any(|f| f == "_time");
    let others: Vec<String> = t.by.iter().filter(|f| *f != "_time").cloned().collect();
    if binned && (others.len() > 1 || (others.len() == 1 && t.aggs.len() > 1)) {
        // Several series per time bucket: rows binned by `span=` and a `stats` by every field.
        let Some(span) = t.span else {
            return Err(user(
                "with _time and more than one other 'by' field or aggregation, give span=.".into(),
            ));
        };
        check_clause(t.filter.as_ref())?;
        let second = Command::Stats(Stats {
            aggs: t.aggs.clone(),
            by: t.by.clone(),
            dedup_splitvals: false,
        });
        let bin = Some(crate::ops::span::Span::from_ast(span));
        return indexed::run(index_root, req, opts, t, second, bin, rest, emit);
    }
    let second = if binned {
        Command::Timechart(Timechart {
            span: t.span,
            bins: 100,
            aggs: t.aggs.clone(),
            by: others.first().cloned(),
            limit: 0,
            useother: false,
            usenull: false,
            cont: true,
        })
    } else {
        Command::Stats(Stats {
            aggs: t.aggs.clone(),
            by: t.by.clone(),
            dedup_splitvals: false,
        })
    };
    if index_time {
        check_clause(t.filter.as_ref())?;
        return indexed::run(index_root, req, opts, t, second, None, rest, emit);
    }
    let inner = Pipeline {
        commands: vec![Command::Search(t.filter.clone()), second],
    };
    let available = plan::index::searchable(index_root, opts.access.as_ref())?;
    let popts = PlanOptions {
        earliest: req.earliest.as_deref(),
        latest: req.latest.as_deref(),
        now: req.now,
        tz: req.tz,
        force_scan: false,
        access: opts.access.as_ref(),
    };
    let planned = plan::plan(inner.clone(), &popts, &available)?;
    if !planned.columns_only {
        return Err(user(
            "the where clause can only use indexed fields (index, host, source, sourcetype, TERM(…)); use a search instead.".into(),
        ));
    }
    let mut rows = Vec::new();
    let mut stats = run_pipeline(index_root, req, opts, inner, &mut |batch| {
        rows.extend(batch);
        Ok(())
    })?;
    if binned {
        rows = unpivot(rows, t, others.first().map(String::as_str));
    }
    let runner = crate::compose::runner::SubsearchRunner::new(index_root, req, opts);
    let exec = Executor::with_runner(&rest, ctx, opts.limits, Some(&runner))?;
    stats.rows_out = 0;
    stats.transforming = true;
    if req.explain {
        stats.explain.insert(
            0,
            format!(
                "tstats: answered as {} from the term index and bucket columns",
                lode_spl::print(&Pipeline {
                    commands: planned_commands(&planned)
                })
            ),
        );
    }
    feed(exec, rows, emit, &mut stats)?;
    stats.warnings.extend(runner.take_warnings());
    Ok(stats)
}

/// Refuses a `where` clause that needs raw events: a bare word or phrase (`TERM()` of a
/// column-only clause goes the exact-term way above), or a comparison of `_raw`.
fn check_clause(clause: Option<&SearchExpr>) -> Result<(), SearchError> {
    let mut stack: Vec<&SearchExpr> = clause.into_iter().collect();
    while let Some(e) = stack.pop() {
        match e {
            SearchExpr::And(v) | SearchExpr::Or(v) => stack.extend(v),
            SearchExpr::Not(x) => stack.push(x),
            SearchExpr::Compare { field, .. }
                if field.starts_with('_') && field != "_time" =>
            {
                return Err(user(format!(
                    "'{field}' is not an indexed field; the where clause compares indexed fields only."
                )));
            }
            SearchExpr::Compare { .. } | SearchExpr::TimeBound { .. } => {}
            SearchExpr::Term(_) => {
                return Err(user(
                    "the where clause can only use indexed fields (index, host, source, sourcetype, index-time fields, TERM(…)); search terms need raw events, use a search instead.".into(),
                ))
            }
        }
    }
    Ok(())
}

/// Whether the clause compares a field other than the bucket columns (an index-time field).
fn compares_others(clause: Option<&SearchExpr>) -> bool {
    let mut stack: Vec<&SearchExpr> = clause.into_iter().collect();
    while let Some(e) = stack.pop() {
        match e {
            SearchExpr::And(v) | SearchExpr::Or(v) => stack.extend(v),
            SearchExpr::Not(x) => stack.push(x),
            SearchExpr::Compare { field, .. } if !COLUMN_FIELDS.contains(&field.as_str()) => {
                return true
            }
            SearchExpr::Compare { .. } | SearchExpr::TimeBound { .. } | SearchExpr::Term(_) => {}
        }
    }
    false
}

/// The planned pipeline, for explain.
fn planned_commands(p: &plan::Plan) -> Vec<Command> {
    let mut c = vec![Command::Search(p.clause.clone())];
    c.extend(p.rest.iter().cloned());
    c
}

/// Whether the aggregation counts (0 = no events in the group).
fn counts(a: &lode_spl::ast::Agg) -> bool {
    matches!(Kind::of(a), Ok(Kind::CountRows | Kind::Count | Kind::Dc))
}

/// Timechart rows (one per time bucket, one column per series) → one row per time bucket and
/// value with events, sorted by the `by` fields in their order.
pub(crate) fn unpivot(rows: Vec<Row>, t: &Tstats, by: Option<&str>) -> Vec<Row> {
    let empty = |a: &lode_spl::ast::Agg, v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(v) => counts(a) && v.to_num() == Some(0.0),
    };
    let mut out = Vec::new();
    for r in rows {
        let time = r.peek("_time").cloned().unwrap_or(Value::Null);
        match by {
            None => {
                if t.aggs.iter().all(|a| empty(a, r.peek(&a.column()))) {
                    continue;
                }
                let mut row = Row::from_fields([("_time".to_string(), time)]);
                for a in &t.aggs {
                    if let Some(v) = r.peek(&a.column()) {
                        row.set(&a.column(), v.clone());
                    }
                }
                out.push(row);
            }
            Some(f) => {
                let agg = &t.aggs[0];
                for (name, v) in r.fields() {
                    if name.starts_with('_') || empty(agg, Some(v)) {
                        continue;
                    }
                    let mut row = Row::new();
                    for b in &t.by {
                        if b == "_time" {
                            row.set("_time", time.clone());
                        } else {
                            row.set(f, Value::Str(name.to_string()));
                        }
                    }
                    row.set(&agg.column(), v.clone());
                    out.push(row);
                }
            }
        }
    }
    out.sort_by(|a, b| {
        t.by.iter()
            .map(|f| {
                cmp_auto(
                    a.peek(f).unwrap_or(&Value::Null),
                    b.peek(f).unwrap_or(&Value::Null),
                )
            })
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}
