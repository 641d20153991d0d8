//! Reading the buckets of the selected indexes and feeding verified rows to the executor.
//!
//! Fast path and slow path, named (STYLE practice 6), per bucket: pruned by time from the
//! directory name (no file opened) → opened; pruned by time from its metadata → bloom filter rules
//! out a required term (skip) → the term query's postings (index path) or every event (full scan
//! when the query is `All`) → intersected with the time range from the time column → only those
//! events read from the journal → [`crate::matcher::matches`] → batches to the executor.
//!
//! Two orders: [`merge`] streams event searches newest first across all buckets with a k-way
//! merge that opens buckets lazily, a background thread opening the next ones ahead
//! ([`prefetch`]); [`batch`] reads buckets in parallel, each worker running the partial half of a
//! split pipeline (transforming searches). [`naive`] is the twin of both that uses no index at
//! all (`force_scan`).
//! A corrupt bucket is skipped with a warning, never fails the search.

pub mod batch;
pub mod candidates;
pub mod counted;
pub mod cursor;
pub mod merge;
pub mod naive;
pub mod prefetch;
pub mod sink;
pub mod source;

use std::path::Path;

use lode_spl::ast::SearchExpr;
use lode_store::{StoreError, TermQuery};

use crate::ops::{Executor, Split};
use crate::plan::time::TimeRange;
use crate::row::Row;
use crate::run::SearchStats;
use crate::SearchError;
use sink::Sink;

/// What the scan needs from the plan and the request.
#[derive(Debug, Clone, Copy)]
pub struct ScanCtx<'a> {
    /// Index root: each index is the directory `<root>/<name>`.
    pub root: &'a Path,
    /// The leading search clause (`None`: every event matches).
    pub clause: Option<&'a SearchExpr>,
    /// Candidate events per bucket (a superset of the matches).
    pub query: &'a TermQuery,
    /// The part of the clause candidates are checked against ([`crate::plan::Plan::residual`]).
    pub residual: Option<&'a SearchExpr>,
    /// Terms every match contains (bloom checks).
    pub required: &'a [Vec<u8>],
    /// `_time` range searched.
    pub range: TimeRange,
    /// Record each bucket's path in `SearchStats::explain`.
    pub explain: bool,
    /// Naive twin: no index use at all.
    pub force_scan: bool,
    /// Results must come newest first (event searches, order-dependent pipelines).
    pub time_ordered: bool,
    /// The term query decides the clause exactly: candidates are not re-checked by the matcher.
    pub exact: bool,
    /// Build rows from the bucket columns only (see [`crate::plan::columns`]).
    pub columns_only: bool,
    /// The clause is verified per event but the commands after it read only column fields:
    /// matching events become columns rows (see [`crate::plan::Plan::slim_rows`]).
    pub slim_rows: Option<&'a [&'static str]>,
    /// Count pushdown (batch scan only): count candidates per combination of these id columns
    /// instead of building rows (see [`crate::plan::columns::counts_suffice`]).
    pub counted: Option<counted::Columns>,
    /// Prepare the next bucket on a thread of its own (`None`: while a core is spare, see
    /// [`prefetch`]).
    pub read_ahead: Option<bool>,
}

impl ScanCtx<'_> {
    /// The clause candidates must be verified against: `None` when the index decided it.
    pub fn verify_clause(&self) -> Option<&SearchExpr> {
        if self.force_scan {
            self.clause
        } else if self.exact {
            None
        } else {
            self.residual
        }
    }
}

impl ScanCtx<'_> {
    /// Records an explain line (when asked for).
    pub fn note(&self, stats: &mut SearchStats, line: impl FnOnce() -> String) {
        if self.explain {
            stats.explain.push(line());
        }
    }
}

/// Scans `indexes` (names under `ctx.root`) newest first (or with the naive twin when
/// `ctx.force_scan`), pushing verified rows through `exec` and emitting final rows; fills
/// `stats`. Searches that can be split run through [`scan_batch`] instead.
pub fn scan(
    ctx: &ScanCtx<'_>,
    indexes: &[String],
    exec: Executor,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let _scanning = prefetch::Scanning::enter();
    let buckets = source::list(ctx.root, indexes)?;
    stats.buckets_total = buckets.len() as u64;
    let mut sink = Sink::new(exec, emit);
    if ctx.force_scan {
        naive::run(ctx, buckets, &mut sink, stats)?;
    } else {
        merge::run(ctx, buckets, &mut sink, stats)?;
    }
    stats.rows_out = sink.finish()?;
    Ok(())
}

/// Scans `indexes` in batch order with up to `workers` parallel pipelines running `split`'s
/// partial half per bucket, merges the partial states and emits the final rows; fills `stats`.
pub fn scan_batch(
    ctx: &ScanCtx<'_>,
    indexes: &[String],
    split: &Split,
    workers: usize,
    emit: &mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
    stats: &mut SearchStats,
) -> Result<(), SearchError> {
    let _scanning = prefetch::Scanning::enter();
    let buckets = source::list(ctx.root, indexes)?;
    stats.buckets_total = buckets.len() as u64;
    stats.rows_out = batch::run(ctx, &buckets, split, workers, emit, stats)?;
    Ok(())
}

/// Whether a store error means "this bucket is damaged" (skip it) rather than a failure of the
/// search (I/O, limits).
pub fn is_corrupt(e: &StoreError) -> bool {
    matches!(e, StoreError::Corrupt { .. } | StoreError::Version { .. })
}

/// Records a corrupt bucket: counted, warned, explained; the search goes on.
pub fn warn_corrupt(stats: &mut SearchStats, label: &str, e: &StoreError) {
    let msg = format!("bucket {label} skipped: {e}");
    stats.buckets_corrupt += 1;
    stats.explain.push(format!("warning: {msg}"));
    stats.warnings.push(msg);
}
