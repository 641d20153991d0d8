//! Search composition done before parsing: macros (`` `name(args)` `` from `macros.conf`) are
//! expanded, then each subsearch (`[ … ]` in a search clause) runs through [`run_with`] (same
//! time range and options) and is replaced by its results as search text. Also the text
//! builders of `format` and `return`.
//!
//! Subsearch limits come from `limits.conf` `[subsearch]`: `maxout` (default 10000 rows; more are
//! dropped with a warning, as Splunk does) and `maxtime` (default 60 s; the subsearch is then
//! finalized with the rows it has, with a warning). An empty result becomes `NOT ()`, which
//! matches nothing.

mod conf;
mod eval_aggs;
mod expand;
mod format;
pub mod macros;
pub mod runner;
mod subsearch;

use std::path::Path;
use std::time::{Duration, Instant};

pub use conf::load as load_conf;
pub use expand::Rewritten;
pub use format::{format_rows, return_rows, subsearch_text};

use crate::eval::EvalCtx;
use crate::row::Row;
use crate::run::{run_with, RunOptions, SearchRequest};
use crate::SearchError;
use lode_spl::ast::Pipeline;
use lode_spl::ParseError;

/// `limits.conf` `[subsearch]` `maxout` default.
pub const DEFAULT_MAXOUT: usize = 10_000;
/// `limits.conf` `[subsearch]` `maxtime` default, seconds.
pub const DEFAULT_MAXTIME: u64 = 60;

/// Search text ready to parse, with the way back to what the user wrote.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The text after macro expansion and subsearch substitution.
    pub text: String,
    /// The rewrites, first to last (each maps its text to the previous one's).
    maps: Vec<Rewritten>,
    /// Subsearch warnings (truncation, time limit), for `SearchStats::warnings`.
    pub warnings: Vec<String>,
}

impl Prepared {
    /// Maps a parse error in [`Prepared::text`] back to the original query.
    pub fn map_error(&self, e: ParseError) -> ParseError {
        map_through(&self.maps, e)
    }

    /// Parses the prepared text (errors point into the original query) and lowers aggregations
    /// over expressions (`count(eval(…)) AS n`) to hidden `eval` fields.
    pub fn parse(&self) -> Result<Pipeline, SearchError> {
        let mut p =
            lode_spl::parse(&self.text).map_err(|e| SearchError::Parse(self.map_error(e)))?;
        eval_aggs::lower(&mut p);
        Ok(p)
    }
}

fn map_through(maps: &[Rewritten], mut e: ParseError) -> ParseError {
    for m in maps.iter().rev() {
        e = m.map_error(e);
    }
    e
}

/// Expands the macros and runs the subsearches of `req.query`.
pub fn prepare(
    index_root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
) -> Result<Prepared, SearchError> {
    let mut text = req.query.clone();
    let mut maps = Vec::new();
    let mut warnings = Vec::new();
    if macros::has_calls(&text) {
        let defs = match &opts.etc_dir {
            Some(etc) => macros::Macros::from_conf(&load_conf(etc, "macros.conf")?),
            None => macros::Macros::default(),
        };
        let ctx = EvalCtx {
            now: req.now,
            tz: req.tz,
        };
        let r = macros::expand(&text, &defs, ctx)?;
        text = r.text.clone();
        maps.push(r);
    }
    if subsearch::has_subsearch(&text) {
        let (maxout, maxtime) = subsearch_limits(opts)?;
        let mut run = |inner: &str| -> Result<String, SearchError> {
            let sub = SearchRequest {
                query: inner.to_string(),
                explain: false,
                ..req.clone()
            };
            let (mut rows, mut w) = run_subsearch(index_root, &sub, opts, maxout, maxtime)?;
            warnings.append(&mut w);
            // Event rows give their search-time fields too, however they were read.
            rows.iter_mut().for_each(Row::extract_all);
            Ok(subsearch_text(&rows))
        };
        let r = subsearch::resolve(&text, &mut run).map_err(|e| match e {
            SearchError::Parse(p) => SearchError::Parse(map_through(&maps, p)),
            other => other,
        })?;
        if !r.unchanged() {
            text = r.text.clone();
            maps.push(r);
        }
    }
    Ok(Prepared {
        text,
        maps,
        warnings,
    })
}

/// `maxout` and `maxtime` of `limits.conf` `[subsearch]`.
fn subsearch_limits(opts: &RunOptions) -> Result<(usize, Duration), SearchError> {
    let mut maxout = DEFAULT_MAXOUT;
    let mut maxtime = DEFAULT_MAXTIME;
    if let Some(etc) = &opts.etc_dir {
        let conf = load_conf(etc, "limits.conf")?;
        if let Some(s) = conf.stanza("subsearch") {
            let num = |key: &str| -> Result<Option<u64>, SearchError> {
                s.get(key)
                    .map(|v| {
                        v.trim().parse::<u64>().map_err(|_| {
                            SearchError::User(format!(
                                "limits.conf [subsearch] {key} = {v}: expected a whole number"
                            ))
                        })
                    })
                    .transpose()
            };
            if let Some(n) = num("maxout")? {
                maxout = usize::try_from(n).unwrap_or(usize::MAX);
            }
            if let Some(n) = num("maxtime")? {
                maxtime = n;
            }
        }
    }
    Ok((maxout, Duration::from_secs(maxtime)))
}

/// Runs one subsearch: its first `maxout` rows and the warnings to show.
pub(crate) fn run_subsearch(
    index_root: &Path,
    sub: &SearchRequest,
    opts: &RunOptions,
    maxout: usize,
    maxtime: Duration,
) -> Result<(Vec<crate::row::Row>, Vec<String>), SearchError> {
    let start = Instant::now();
    let mut rows = Vec::new();
    let mut total = 0usize;
    let mut timed_out = false;
    let result = run_with(index_root, sub, opts, &mut |batch| {
        total += batch.len();
        let room = maxout.saturating_sub(rows.len());
        rows.extend(batch.into_iter().take(room));
        if start.elapsed() > maxtime {
            timed_out = true;
            return Err(SearchError::Limit("subsearch maxtime".into()));
        }
        Ok(())
    });
    let mut warnings = Vec::new();
    match result {
        Ok(stats) => warnings.extend(
            stats
                .warnings
                .into_iter()
                .map(|w| format!("[subsearch]: {w}")),
        ),
        Err(_) if timed_out => warnings.push(format!(
            "[subsearch]: Search auto-finalized after time limit ({} seconds) reached.",
            maxtime.as_secs()
        )),
        Err(e) => return Err(e),
    }
    if total > maxout {
        warnings.push(format!(
            "[subsearch]: Subsearch produced {total} results, truncating to maxout {maxout}."
        ));
    }
    Ok((rows, warnings))
}
