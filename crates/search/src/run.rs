//! Running a search end to end: parse → plan → scan → executor → emitted rows.
//!
//! This is what the CLI and the server call. [`run`] parses the text (parse errors surface as
//! [`SearchError::Parse`] so callers can render the caret), plans it ([`crate::plan`]), builds the
//! [`Executor`] for the commands after the leading search clause, and drives the scan
//! ([`crate::scan`]) that feeds it. Event searches stream newest first; the caller's `emit` gets
//! every batch of final rows as soon as it is final. Transforming searches that can be split
//! ([`crate::ops::Split`]) read buckets with [`RunOptions::batch_search_max_pipeline`] parallel
//! pipelines and emit once, after the merge.

use std::path::{Path, PathBuf};

use lode_event::Micros;
use lode_time::Zone;

use crate::ops::timechart::TimechartOp;
use crate::ops::{ExecContext, Executor, Limits, Split};
use crate::plan::{self, explain, order, PlanOptions};
use crate::row::Row;
use crate::scan::counted::Columns;
use crate::scan::{self, ScanCtx};
use crate::SearchError;
use lode_spl::ast::Command;

/// A search to run.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The SPL text.
    pub query: String,
    /// Request `earliest` time modifier as written (`-24h@h`, epoch seconds, …); `None` = all time.
    pub earliest: Option<String>,
    /// Request `latest` time modifier as written; `None` = no upper bound.
    pub latest: Option<String>,
    /// Search start time, µs since the epoch (`now()` and relative modifiers).
    pub now: Micros,
    /// The user's time zone (snapping relative modifiers, timechart buckets).
    pub tz: Zone,
    /// Whether to record the plan and each bucket's access path in [`SearchStats::explain`].
    pub explain: bool,
    /// Naive twin: no index use — term query `All`, no time pruning, no bloom, every event of
    /// every bucket of the selected indexes goes through the time check and the matcher.
    pub force_scan: bool,
}

/// What a search did (counts are over the whole search).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Buckets in the selected indexes.
    pub buckets_total: u64,
    /// Buckets skipped by time range (directory name or metadata).
    pub buckets_pruned_time: u64,
    /// Buckets skipped because their bloom filter rules out a required term.
    pub buckets_skipped_bloom: u64,
    /// Buckets whose candidate events were read.
    pub buckets_read: u64,
    /// Buckets skipped as corrupt (see `warnings`).
    pub buckets_corrupt: u64,
    /// Events selected by the term query and the time range (before verification).
    pub events_candidate: u64,
    /// Events read from buckets and checked by the matcher.
    pub events_scanned: u64,
    /// Events that satisfied the search clause.
    pub events_matched: u64,
    /// Rows emitted to the caller.
    pub rows_out: u64,
    /// Whether the pipeline has a transforming command.
    pub transforming: bool,
    /// The plan and each bucket's access path (filled when `explain` was asked; warnings always).
    pub explain: Vec<String>,
    /// Problems that did not fail the search (corrupt buckets skipped).
    pub warnings: Vec<String>,
    /// Where the time went and how the pipeline was split (for the job inspector).
    pub profile: Profile,
}

/// Phase durations of one search and its remote/local split, filled by [`run_with`].
///
/// Durations are wall-clock µs of the calling thread and are not part of equality: two runs of
/// the same search compare equal whatever their timings (only the split texts are compared).
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Parsing, macro expansion and subsearches (`compose::prepare` and the parse), µs.
    pub parse_us: u64,
    /// Planning: indexes, time range, term query, executor and split, µs.
    pub plan_us: u64,
    /// Reading buckets and running the pipeline, merge included (the whole scan), µs.
    pub scan_us: u64,
    /// Of `scan_us`, the time spent in the caller's `emit` (writing results), µs.
    pub emit_us: u64,
    /// Calls of `emit` (batches of rows handed to the caller).
    pub emit_calls: u64,
    /// The part that runs next to the data (every worker or peer): the search clause, the
    /// streaming commands and the partial half of the first transforming command. The whole
    /// search for event searches and searches that cannot be split.
    pub remote_search: String,
    /// The part that runs once on the merged partial states (the transforming command's final
    /// half and what follows); empty when the search is not split.
    pub report_search: String,
}

impl PartialEq for Profile {
    fn eq(&self, other: &Profile) -> bool {
        self.remote_search == other.remote_search && self.report_search == other.report_search
    }
}

impl Eq for Profile {}

fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl SearchStats {
    /// Adds the counts, explain lines and warnings of part of the search (one bucket, one
    /// worker) to these.
    pub fn absorb(&mut self, part: SearchStats) {
        self.buckets_total += part.buckets_total;
        self.buckets_pruned_time += part.buckets_pruned_time;
        self.buckets_skipped_bloom += part.buckets_skipped_bloom;
        self.buckets_read += part.buckets_read;
        self.buckets_corrupt += part.buckets_corrupt;
        self.events_candidate += part.events_candidate;
        self.events_scanned += part.events_scanned;
        self.events_matched += part.events_matched;
        self.rows_out += part.rows_out;
        self.transforming |= part.transforming;
        self.explain.extend(part.explain);
        self.warnings.extend(part.warnings);
    }
}

/// How searches execute on this node (server-wide settings, not part of a request).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunOptions {
    /// Parallel pipelines of a batch-mode search (Splunk's `batch_search_max_pipeline`): buckets
    /// read at once, each by its own worker thread with its own partial state. 0 = the number
    /// of cores. Event searches always stream newest first from one pipeline.
    pub batch_search_max_pipeline: usize,
    /// Row and group limits of the buffering commands (they hold across workers).
    pub limits: Limits,
    /// `$LODE_HOME/etc`, where search-time configuration lives (`macros.conf`, `transforms.conf`,
    /// lookup files) with Splunk's precedence. `None`: no configuration is read (library use and
    /// tests), so commands that need it fail with a clear error.
    pub etc_dir: Option<PathBuf>,
    /// The indexes the caller may search (their roles' `srchIndexesAllowed` and
    /// `srchIndexesDefault`; the server fills it per user). `None`: unrestricted (the local CLI,
    /// library use). Enforced where indexes are chosen ([`plan::index::searchable`],
    /// [`plan::index::select_for`]), so every command that reads indexes inherits it.
    pub access: Option<plan::index::IndexAccess>,
    /// Where `collect` writes events (the node that owns the indexes). `None`: `collect` fails
    /// with a clear error (except with `testmode=t`, which writes nothing).
    pub collect: Option<crate::generate::collect::CollectHandle>,
    /// Whether an event search prepares its next bucket on a thread of its own while it reads
    /// the current one. `None` (the default): only while a core would otherwise be idle (see
    /// [`crate::scan::prefetch`]); tests force each way.
    pub read_ahead: Option<bool>,
}

impl RunOptions {
    /// The number of batch pipelines to use (0 resolved to the number of cores).
    pub fn pipelines(&self) -> usize {
        match self.batch_search_max_pipeline {
            0 => cores(),
            n => n,
        }
    }
}

/// The number of cores this process may use, asked once: `available_parallelism` reads the
/// cgroup quota files on every call (~2 % of a small search's CPU in the service bench).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Parses, plans and runs a search over the indexes under `index_root` (=
/// `$LODE_HOME/var/lib/lode`) with the default [`RunOptions`]. Calls `emit` with batches of
/// result rows as they are final (event searches stream newest first). Returns stats.
pub fn run(
    index_root: &Path,
    req: &SearchRequest,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    run_with(index_root, req, &RunOptions::default(), emit)
}

/// [`run`] with explicit execution options (batch pipelines, limits).
pub fn run_with(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    let t0 = std::time::Instant::now();
    // Macros expanded and subsearches run first; parse errors point into `req.query`.
    let prepared = crate::compose::prepare(index_root, req, opts)?;
    let mut warnings = prepared.warnings.clone();
    let mut pipeline = prepared.parse()?;
    crate::generate::bind(&mut pipeline, opts.etc_dir.as_deref());
    let parse_us = micros(t0.elapsed());
    let text = lode_spl::print(&pipeline);
    let mut stats = crate::generate::run_parsed(index_root, req, opts, pipeline, emit)?;
    stats.profile.parse_us = parse_us;
    if stats.profile.remote_search.is_empty() {
        // Generating commands: everything runs here.
        stats.profile.remote_search = text;
    }
    // The subsearches' warnings first, as they ran first.
    warnings.append(&mut stats.warnings);
    stats.warnings = warnings;
    Ok(stats)
}

/// The operators' context of a search of `req` over `range`.
pub(crate) fn exec_context(req: &SearchRequest, range: &plan::time::TimeRange) -> ExecContext {
    ExecContext {
        now: req.now,
        earliest: range.earliest,
        latest: range.latest,
        tz: req.tz,
    }
}

/// Plans `pipeline` (starting with a search clause) for `req` over the indexes the caller may
/// search, with the operators' context of its time range.
pub(crate) fn plan_request(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    pipeline: lode_spl::ast::Pipeline,
) -> Result<(plan::Plan, ExecContext), SearchError> {
    let available = plan::index::searchable(index_root, opts.access.as_ref())?;
    let popts = PlanOptions {
        earliest: req.earliest.as_deref(),
        latest: req.latest.as_deref(),
        now: req.now,
        tz: req.tz,
        force_scan: req.force_scan,
        access: opts.access.as_ref(),
    };
    let plan = plan::plan(pipeline, &popts, &available)?;
    let ctx = exec_context(req, &plan.range);
    Ok((plan, ctx))
}

/// Runs a parsed pipeline that starts with a search clause (or whose generating command was
/// rewritten into one, as `tstats` is).
pub(crate) fn run_pipeline(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
    pipeline: lode_spl::ast::Pipeline,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
) -> Result<SearchStats, SearchError> {
    let t_plan = std::time::Instant::now();
    let (plan, ctx) = plan_request(index_root, req, opts, pipeline)?;
    let runner = crate::compose::runner::SubsearchRunner::new(index_root, req, opts);
    let exec = Executor::with_runner(&plan.rest, ctx, opts.limits, Some(&runner))?;
    let mut stats = SearchStats {
        transforming: exec.is_transforming(),
        ..SearchStats::default()
    };
    let time_ordered = order::needs_time_order(&plan.rest, stats.transforming);
    // Batch mode: split at the first transforming command, buckets read in parallel.
    let split = if time_ordered || req.force_scan {
        None
    } else {
        Split::with_runner(&plan.rest, ctx, opts.limits, Some(&runner))?
    };
    let pipelines = opts.pipelines();
    // The count pushdown feeds partial states: batch mode only.
    let counted = match (&plan.counted, &split) {
        (Some(cols), Some(_)) if !req.force_scan => {
            let bin = match plan.rest.first() {
                Some(Command::Timechart(tc)) => Some((TimechartOp::initial_span(tc), req.tz)),
                _ => None,
            };
            Some(Columns {
                bin,
                ..Columns::of(cols)
            })
        }
        _ => None,
    };
    if req.explain {
        stats
            .explain
            .push(format!("indexes: {}", plan.indexes.join(", ")));
        stats.explain.push(format!(
            "time range: {}",
            explain::describe_range(&plan.range)
        ));
        stats
            .explain
            .push(format!("term query: {}", explain::describe(&plan.query)));
        let required: Vec<String> = plan
            .required
            .iter()
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect();
        stats
            .explain
            .push(format!("required terms (bloom): {}", required.join(", ")));
        if plan.exact {
            stats
                .explain
                .push("verify: none (the term query decides the clause exactly)".into());
        } else if let Some(r) = &plan.residual {
            let shown = lode_spl::print(&lode_spl::ast::Pipeline {
                commands: vec![Command::Search(Some(r.clone()))],
            });
            stats.explain.push(format!(
                "verify: {} (conjuncts the term query decides exactly are not re-checked)",
                shown.trim_start_matches("search ")
            ));
        }
        if let Some(c) = counted {
            let which = if plan.exact {
                "candidates"
            } else {
                "candidates checked in place (search-time fields found without building rows)"
            };
            stats.explain.push(format!(
                "stats pushdown: {which} counted per distinct {} (postings or id columns, see each bucket), one counted row per value, no row per event",
                c.describe()
            ));
        } else if plan.columns_only {
            stats
                .explain
                .push("rows: from bucket columns only (no raw slice read)".into());
        } else if let Some(f) = plan.slim_rows.as_ref().filter(|_| !req.force_scan) {
            stats.explain.push(format!(
                "rows: events checked in place (search-time fields found without building rows); matches handed on with only [{}]",
                f.join(", ")
            ));
        }
        stats.explain.push(if time_ordered {
            "order: newest first (k-way merge by time)".to_string()
        } else if split.is_some() {
            format!("order: batch, {pipelines} pipelines (partial/final split)")
        } else {
            "order: batch".to_string()
        });
    }
    let sctx = ScanCtx {
        root: index_root,
        clause: plan.clause.as_ref(),
        residual: plan.residual.as_ref(),
        query: &plan.query,
        required: &plan.required,
        range: plan.range,
        explain: req.explain,
        force_scan: req.force_scan,
        time_ordered,
        exact: plan.exact,
        columns_only: plan.columns_only && !req.force_scan,
        slim_rows: plan.slim_rows.as_deref().filter(|_| !req.force_scan),
        counted,
        read_ahead: opts.read_ahead,
    };
    (stats.profile.remote_search, stats.profile.report_search) =
        split_texts(plan.clause.as_ref(), &plan.rest, split.is_some());
    stats.profile.plan_us = micros(t_plan.elapsed());
    let t_scan = std::time::Instant::now();
    let (mut emit_us, mut emit_calls) = (0u64, 0u64);
    let mut timed = |rows: Vec<Row>| {
        let t = std::time::Instant::now();
        let r = emit(rows);
        emit_us += micros(t.elapsed());
        emit_calls += 1;
        r
    };
    match &split {
        Some(split) => scan::scan_batch(
            &sctx,
            &plan.indexes,
            split,
            pipelines,
            &mut timed,
            &mut stats,
        )?,
        None => scan::scan(&sctx, &plan.indexes, exec, &mut timed, &mut stats)?,
    }
    stats.warnings.extend(runner.take_warnings());
    stats.profile.scan_us = micros(t_scan.elapsed());
    stats.profile.emit_us = emit_us;
    stats.profile.emit_calls = emit_calls;
    Ok(stats)
}

/// The remote and report halves of a search as canonical SPL (see [`Profile::remote_search`]):
/// cut at the first transforming command when the search runs split, else all remote.
fn split_texts(
    clause: Option<&lode_spl::ast::SearchExpr>,
    rest: &[Command],
    split: bool,
) -> (String, String) {
    let print = |commands: Vec<Command>| {
        let text = lode_spl::print(&lode_spl::ast::Pipeline { commands });
        text.trim_start_matches("| ").to_string()
    };
    let head = Command::Search(clause.cloned());
    match order::split_point(rest).filter(|_| split) {
        Some(at) => {
            let mut remote = vec![head];
            remote.extend_from_slice(&rest[..=at]);
            (print(remote), print(rest[at..].to_vec()))
        }
        None => {
            let mut all = vec![head];
            all.extend_from_slice(rest);
            (print(all), String::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn halves(q: &str, split: bool) -> (String, String) {
        let mut p = lode_spl::parse(q).unwrap().commands;
        let clause = match p.remove(0) {
            Command::Search(c) => c,
            other => panic!("not a search: {other:?}"),
        };
        split_texts(clause.as_ref(), &p, split)
    }

    #[test]
    fn split_texts_cut_at_the_first_transforming_command() {
        let (remote, report) = halves(
            "error host=a | eval x=1 | stats count by host | sort -count",
            true,
        );
        assert_eq!(
            remote,
            "search error host=a | eval x=1 | stats count by host"
        );
        assert_eq!(report, "stats count by host | sort -count");
        let (remote, report) = halves("error | head 5", false);
        assert_eq!(remote, "search error | head 5");
        assert_eq!(report, "");
    }

    #[test]
    fn profile_equality_ignores_durations() {
        let a = Profile {
            parse_us: 1,
            ..Profile::default()
        };
        assert_eq!(a, Profile::default());
    }
}
