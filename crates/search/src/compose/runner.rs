//! Nested searches run by operators (`append`, `appendcols`, `union`, `join`) and the writer of
//! a mid-pipeline `collect`.
//!
//! Operators are built from a command, an [`crate::ops::ExecContext`] and [`crate::ops::Limits`]
//! only; a [`SubsearchRunner`] is what they get besides when a search can run nested searches.
//! It holds what [`run_with`](crate::run::run_with) needs (the index root, the outer request
//! with its time range, `now`, zone and naive-scan flag, and the [`RunOptions`] with index access
//! rules, `etc_dir` and the `collect` sink), so a subsearch goes through the same path as any
//! search: macros, nested subsearches, generating commands and access rules apply. Warnings of
//! subsearches (truncation at `maxout`, finalizing at `maxtime`) are collected here and moved to
//! the outer search's `SearchStats::warnings` at its end.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lode_spl::ast::data::Collect;

use super::{load_conf, run_subsearch};
use crate::generate::collect::Collector;
use crate::row::Row;
use crate::run::{RunOptions, SearchRequest};
use crate::SearchError;

/// Default `maxout` of `append`, `appendcols` and `union` (Splunk's option default).
pub const APPEND_MAXOUT: u64 = 50_000;
/// Default `maxtime` of `append`, `appendcols` and `union`, seconds.
pub const APPEND_MAXTIME: u64 = 60;
/// `limits.conf` `[join]` `subsearch_maxout` default.
pub const JOIN_MAXOUT: u64 = 50_000;
/// `limits.conf` `[join]` `subsearch_maxtime` default, seconds.
pub const JOIN_MAXTIME: u64 = 60;

/// A cloneable handle that runs nested searches in the context of the search that owns it.
#[derive(Debug, Clone)]
pub struct SubsearchRunner {
    index_root: PathBuf,
    /// The outer request (its query is replaced by each subsearch's text).
    req: SearchRequest,
    opts: RunOptions,
    /// Warnings of the subsearches run so far, in order.
    warnings: Arc<Mutex<Vec<String>>>,
}

impl SubsearchRunner {
    /// A runner for nested searches of the search `req` over `index_root`.
    pub fn new(index_root: &Path, req: &SearchRequest, opts: &RunOptions) -> SubsearchRunner {
        SubsearchRunner {
            index_root: index_root.to_path_buf(),
            req: SearchRequest {
                query: String::new(),
                explain: false,
                ..req.clone()
            },
            opts: opts.clone(),
            warnings: Arc::default(),
        }
    }

    /// Runs `text` as a search (same time range and options as the outer one): its first
    /// `maxout` rows, with their search-time fields extracted. `command` names the caller in
    /// errors.
    pub fn run(
        &self,
        command: &str,
        text: &str,
        maxout: u64,
        maxtime: Duration,
    ) -> Result<Vec<Row>, SearchError> {
        let sub = SearchRequest {
            query: text.to_string(),
            ..self.req.clone()
        };
        let maxout = usize::try_from(maxout).unwrap_or(usize::MAX);
        let (mut rows, w) = run_subsearch(&self.index_root, &sub, &self.opts, maxout, maxtime)
            .map_err(|e| match e {
                // Its span is in the subsearch's text, not in the outer search's.
                SearchError::Parse(p) => SearchError::User(format!(
                    "Error in '{command}' command: subsearch: {}",
                    p.message
                )),
                other => other,
            })?;
        if let Ok(mut all) = self.warnings.lock() {
            all.extend(w);
        }
        rows.iter_mut().for_each(Row::extract_all);
        Ok(rows)
    }

    /// `maxout` and `maxtime` of `limits.conf` `[stanza]` under the keys given, or the defaults.
    pub fn conf_limits(
        &self,
        stanza: &str,
        (out_key, out_default): (&str, u64),
        (time_key, time_default): (&str, u64),
    ) -> Result<(u64, Duration), SearchError> {
        let (mut maxout, mut maxtime) = (out_default, time_default);
        if let Some(etc) = &self.opts.etc_dir {
            let conf = load_conf(etc, "limits.conf")?;
            if let Some(s) = conf.stanza(stanza) {
                let num = |key: &str| -> Result<Option<u64>, SearchError> {
                    s.get(key)
                        .map(|v| {
                            v.trim().parse::<u64>().map_err(|_| {
                                SearchError::User(format!(
                                    "limits.conf [{stanza}] {key} = {v}: expected a whole number"
                                ))
                            })
                        })
                        .transpose()
                };
                maxout = num(out_key)?.unwrap_or(maxout);
                maxtime = num(time_key)?.unwrap_or(maxtime);
            }
        }
        Ok((maxout, Duration::from_secs(maxtime)))
    }

    /// The writer of a `collect` that is not the last command.
    pub fn collector(&self, c: Collect) -> Result<Collector, SearchError> {
        Collector::new(
            c,
            self.opts.collect.as_ref(),
            &self.index_root,
            self.req.now,
        )
    }

    /// The warnings of the subsearches run so far (taken: a second call gives only newer ones).
    pub fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }
}
