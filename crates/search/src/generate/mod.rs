//! Searches that start with a generating command instead of a search clause (`| makeresults`,
//! `| gentimes`, `| inputlookup`, `| tstats`, `| metadata`): the command makes the first rows
//! (no bucket is scanned for events), the rest of the pipeline runs over them as usual.
//!
//! [`crate::run::run_with`] calls [`bind`] on every parsed pipeline (the data commands learn
//! `$LODE_HOME/etc`) and hands pipelines for which [`leads`] holds to [`run`].

pub mod collect;
mod gentimes;
mod makeresults;
mod metadata;
mod tstats;

use std::path::Path;

use lode_spl::ast::data::DataCommand;
use lode_spl::ast::{Command, Pipeline};

use crate::compose::runner::SubsearchRunner;
use crate::ops::{ExecContext, Executor, Flow};
use crate::plan::time;
use crate::row::Row;
use crate::run::{RunOptions, SearchRequest, SearchStats};
use crate::SearchError;

/// Rows handed to the executor at once.
const BATCH: usize = 1024;

/// Gives every data command of `p` the configuration directory it resolves tables under.
pub fn bind(p: &mut Pipeline, etc: Option<&Path>) {
    for c in &mut p.commands {
        let slot = match c {
            Command::Data(DataCommand::Lookup(l)) => &mut l.etc_dir,
            Command::Data(DataCommand::InputLookup(i) | DataCommand::InputCsv(i)) => &mut i.etc_dir,
            Command::Data(DataCommand::OutputLookup(o) | DataCommand::OutputCsv(o)) => {
                &mut o.etc_dir
            }
            _ => continue,
        };
        *slot = etc.map(Path::to_path_buf);
    }
}

/// Runs a parsed (and [`bind`]-ed) pipeline: a trailing `collect` wraps `emit`, a leading
/// generating command goes to [`run`], anything else to the bucket scan.
pub fn run_parsed(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    mut pipeline: Pipeline,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    if let Some(c) = collect::take(&mut pipeline)? {
        let collector = collect::Collector::new(c, opts.collect.as_ref(), index_root, req.now)?;
        let mut wrapped = |mut rows: Vec<Row>| {
            collector.write(&mut rows)?;
            emit(rows)
        };
        return dispatch(index_root, req, opts, pipeline, &mut wrapped);
    }
    dispatch(index_root, req, opts, pipeline, emit)
}

fn dispatch(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    pipeline: Pipeline,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    if leads(&pipeline) {
        run(index_root, req, opts, pipeline, emit)
    } else {
        crate::run::run_pipeline(index_root, req, opts, pipeline, emit)
    }
}

/// Whether `p` starts with a generating command (`union` generates when it comes first).
pub fn leads(p: &Pipeline) -> bool {
    match p.commands.first() {
        Some(Command::Data(d)) => d.is_generating(),
        Some(Command::Union(_)) => true,
        _ => false,
    }
}

/// Runs a pipeline whose first command is generating (see [`leads`]).
pub fn run(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    mut pipeline: Pipeline,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    if matches!(pipeline.commands.first(), Some(Command::Union(_))) {
        return union_first(index_root, req, opts, pipeline, emit);
    }
    let Command::Data(first) = pipeline.commands.remove(0) else {
        return Err(SearchError::User(
            "internal: not a generating command".into(),
        ));
    };
    let (range, ctx) = request_range(req)?;
    if let DataCommand::Tstats(t) = &first {
        return tstats::run(index_root, req, opts, t, pipeline.commands, ctx, emit);
    }
    let runner = SubsearchRunner::new(index_root, req, opts);
    let exec = Executor::with_runner(&pipeline.commands, ctx, opts.limits, Some(&runner))?;
    let mut stats = SearchStats {
        transforming: exec.is_transforming(),
        ..SearchStats::default()
    };
    if req.explain {
        stats
            .explain
            .push(format!("generating: {} (no bucket scan)", first.name()));
    }
    let rows = match &first {
        DataCommand::MakeResults {
            count,
            annotate,
            data: None,
        } => makeresults::rows(*count, *annotate, req.now, opts.limits)?,
        DataCommand::MakeResults {
            annotate,
            data: Some(d),
            ..
        } => makeresults::data_rows(d, *annotate, req.now, opts.limits)?,
        DataCommand::GenTimes(g) => gentimes::rows(g, req.now, req.tz, opts.limits)?,
        DataCommand::InputLookup(il) => crate::ops::inputlookup::table_rows(il, false)?,
        DataCommand::InputCsv(il) => crate::ops::inputlookup::table_rows(il, true)?,
        DataCommand::Metadata { kind, indexes } => {
            stats.transforming = true;
            metadata::rows(
                index_root,
                *kind,
                indexes,
                opts.access.as_ref(),
                range,
                &mut stats,
            )?
        }
        other => {
            return Err(SearchError::User(format!(
                "'{}' is not supported yet.",
                other.name()
            )))
        }
    };
    feed(exec, rows, emit, &mut stats)?;
    stats.warnings.extend(runner.take_warnings());
    Ok(stats)
}

/// The time range of `req` (a generating command has no search clause) and the operators'
/// context over it.
fn request_range(req: &SearchRequest) -> Result<(time::TimeRange, ExecContext), SearchError> {
    let range = time::resolve_range(
        req.earliest.as_deref(),
        req.latest.as_deref(),
        None,
        req.now,
        req.tz,
    )?;
    let ctx = crate::run::exec_context(req, &range);
    Ok((range, ctx))
}

/// `| union <dataset>…`: the datasets' rows, in order, feed the rest of the pipeline.
fn union_first(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    pipeline: Pipeline,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    let (_, ctx) = request_range(req)?;
    let runner = SubsearchRunner::new(index_root, req, opts);
    let exec = Executor::with_runner(&pipeline.commands, ctx, opts.limits, Some(&runner))?;
    let mut stats = SearchStats {
        transforming: exec.is_transforming(),
        ..SearchStats::default()
    };
    if req.explain {
        stats
            .explain
            .push("generating: union (datasets run as subsearches, no bucket scan)".into());
    }
    feed(exec, Vec::new(), emit, &mut stats)?;
    stats.warnings.extend(runner.take_warnings());
    Ok(stats)
}

/// Pushes `rows` through `exec` in batches and emits the output.
fn feed(
    mut exec: Executor,
    rows: Vec<Row>,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let mut out = Vec::new();
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let batch: Vec<Row> = rows.by_ref().take(BATCH).collect();
        let flow = exec.push(batch, &mut out)?;
        if !out.is_empty() {
            stats.rows_out += out.len() as u64;
            emit(std::mem::take(&mut out))?;
        }
        if flow == Flow::Stop {
            break;
        }
    }
    exec.finish(&mut out)?;
    if !out.is_empty() {
        stats.rows_out += out.len() as u64;
        emit(out)?;
    }
    Ok(())
}
