//! `tstats` over index-time fields: rows from the term index and the bucket columns (the
//! per-event index-time fields are stored in the column blocks, `docs/format/columns.md`), no
//! raw slice read.
//!
//! Per selected bucket (pruned by the time range in its name, then by bloom filter on the
//! clause's required terms): the candidates of the clause's term query (`status=200` is
//! `OR(status::200, …)`, a superset), then per candidate its `_time` and dictionary ids and its
//! index-time fields from the column block holding it ([`lode_store::BucketRead::index_fields`]), a row of
//! those, checked against the clause (an index-time field compares by its stored value). The rows
//! feed the `stats`/`timechart` the command stands for.
//!
//! Naive twin (`force_scan`): every event of the bucket read whole ([`lode_store::BucketRead::read_events`])
//! and its row built the same way; the tests compare both and the same `stats` over events.

use std::path::Path;

use lode_spl::ast::data::Tstats;
use lode_spl::ast::{Command, Pipeline};
use lode_store::TermQuery;

use super::{feed, unpivot};
use crate::matcher;
use crate::ops::span::Span;
use crate::ops::{Executor, Flow};
use crate::plan;
use crate::row::Row;
use crate::run::{RunOptions, SearchRequest, SearchStats};
use crate::scan::{cursor::column_row, source};
use crate::value::Value;
use crate::SearchError;

/// Rows built before they are handed to the aggregation.
const BATCH: usize = 4096;

/// Runs `tstats` whose fields or clause name index-time fields (or that has several series per
/// time bucket); `second` is the `stats` or `timechart` it stands for, `bin` the span that rows'
/// `_time` is floored to before a `stats` by `_time`, `rest` the commands after it.
#[allow(clippy::too_many_arguments)]
pub fn run(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    t: &Tstats,
    second: Command,
    bin: Option<Span>,
    rest: Vec<Command>,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    let binned = matches!(second, Command::Timechart(_));
    let inner = Pipeline {
        commands: vec![Command::Search(t.filter.clone()), second],
    };
    let (planned, ctx) = crate::run::plan_request(index_root, req, opts, inner)?;
    let mut agg = Executor::with_limits(&planned.rest, ctx, opts.limits)?;
    let mut stats = SearchStats {
        transforming: true,
        ..SearchStats::default()
    };
    if req.explain {
        stats.explain.push(format!(
            "tstats: index-time fields, candidates from the term index ({}), rows from the bucket columns and stored index-time fields (no raw slice read)",
            plan::explain::describe(&planned.query)
        ));
    }
    let mut out = Vec::new();
    let mut batch = Vec::with_capacity(BATCH);
    let mut fields = Vec::new();
    let buckets = source::list(index_root, &planned.indexes)?;
    'buckets: for bref in buckets {
        let info = &bref.info;
        if !planned
            .range
            .overlaps_secs(info.min_time_secs, info.max_time_secs)
        {
            continue;
        }
        let b = source::open(info)?;
        if !planned.required.iter().all(|term| b.may_contain(term)) {
            continue;
        }
        let mut push = |row: Row, batch: &mut Vec<Row>| -> Result<bool, SearchError> {
            stats.events_scanned += 1;
            let mut row = row;
            if !planned
                .clause
                .as_ref()
                .is_none_or(|c| matcher::matches(c, &mut row))
            {
                return Ok(true);
            }
            stats.events_matched += 1;
            if let (Some(span), Some(t)) = (bin, row.time()) {
                let start = span.start(t, req.tz);
                row.set("_time", Value::Num(start as f64 / 1e6));
            }
            batch.push(row);
            if batch.len() >= BATCH {
                let flow = agg.push(std::mem::take(batch), &mut out)?;
                return Ok(flow != Flow::Stop);
            }
            Ok(true)
        };
        if req.force_scan {
            let all = TermQuery::All;
            let ids = b.eval(&all)?;
            let mut err = None;
            let mut go = true;
            b.read_events(&mut ids.iter(), &mut |v| {
                if !planned.range.contains(v.time) {
                    return true;
                }
                let row = event_row(
                    v.time,
                    v.host.to_string(),
                    v.source.to_string(),
                    v.sourcetype.to_string(),
                    &bref.index,
                    v.fields,
                );
                match push(row, &mut batch) {
                    Ok(more) => {
                        go = more;
                        more
                    }
                    Err(e) => {
                        err = Some(e);
                        false
                    }
                }
            })?;
            if let Some(e) = err {
                return Err(e);
            }
            if !go {
                break 'buckets;
            }
            continue;
        }
        let ids = b.eval(&planned.query)?;
        for n in ids.iter() {
            let f = b.indexed(n)?;
            if !planned.range.contains(f.time) {
                continue;
            }
            b.index_fields(n, &mut fields)?;
            let row = event_row(
                f.time,
                name(b.host_names(), f.host, info)?,
                name(b.source_names(), f.source, info)?,
                name(b.sourcetype_names(), f.sourcetype, info)?,
                &bref.index,
                &fields,
            );
            if !push(row, &mut batch)? {
                break 'buckets;
            }
        }
    }
    if !batch.is_empty() {
        agg.push(batch, &mut out)?;
    }
    agg.finish(&mut out)?;
    if binned {
        let others: Vec<&str> =
            t.by.iter()
                .map(String::as_str)
                .filter(|f| *f != "_time")
                .collect();
        out = unpivot(out, t, others.first().copied());
    }
    let exec = Executor::with_limits(&rest, ctx, opts.limits)?;
    feed(exec, out, emit, &mut stats)?;
    Ok(stats)
}

/// The dictionary name of `id`, or a corruption error naming the bucket.
fn name(names: &[String], id: u32, info: &lode_store::BucketInfo) -> Result<String, SearchError> {
    names.get(id as usize).cloned().ok_or_else(|| {
        SearchError::from(lode_store::StoreError::corrupt(
            &info.path,
            "dictionary id out of range",
        ))
    })
}

/// A row of the column fields and the index-time fields: the first value of a repeated name, and
/// none that an event row's own fields would hide ([`Row::from_event`]).
fn event_row(
    time: i64,
    host: String,
    source: String,
    sourcetype: String,
    index: &str,
    fields: &[(String, String)],
) -> Row {
    let mut row = column_row(time, host, source, sourcetype, index);
    for (k, v) in fields {
        let shadowed = matches!(k.as_str(), "_raw" | "linecount" | "_indextime" | "_cd");
        if !shadowed && row.peek(k).is_none() {
            row.set(k, Value::Str(v.clone()));
        }
    }
    row
}
