//! `join [type=inner|left|outer] [max=1] [overwrite=t] [fields] [subsearch]`: each row is
//! joined to the subsearch rows that have the same values in the join fields (exact text,
//! case-sensitive). `inner` drops rows without a match, `left`/`outer` keep them as they are.
//! A row matching several subsearch rows yields one row per match, in subsearch order, up to
//! `max` (default 1; 0 = all). The subsearch's fields (not its internal `_` ones) are added to
//! the row; where both have a field, `overwrite=t` (the default) takes the subsearch's value.
//!
//! Without join fields, the fields common to both result sets (internal ones left out) are
//! used; the rows are then held until the end (limit `max_sort_rows`). The subsearch is limited
//! by `limits.conf` `[join]` `subsearch_maxout` (50000 rows) and `subsearch_maxtime` (60 s).

use std::collections::HashMap;

use super::append::Nested;
use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::compose::runner::{SubsearchRunner, JOIN_MAXOUT, JOIN_MAXTIME};
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::join::{Join, JoinType};

/// The subsearch's rows indexed by their join key.
struct Table {
    fields: Vec<String>,
    rows: Vec<Row>,
    by_key: HashMap<Vec<String>, Vec<usize>>,
}

impl Table {
    fn new(fields: Vec<String>, mut rows: Vec<Row>) -> Table {
        let mut by_key: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
        for (i, r) in rows.iter_mut().enumerate() {
            if let Some(k) = key(r, &fields) {
                by_key.entry(k).or_default().push(i);
            }
        }
        Table {
            fields,
            rows,
            by_key,
        }
    }
}

/// The values of `fields` in `row`, `None` when one is missing.
fn key(row: &mut Row, fields: &[String]) -> Option<Vec<String>> {
    fields
        .iter()
        .map(|f| {
            row.get(f)
                .filter(|v| !v.is_null())
                .map(|v| v.as_str().into_owned())
        })
        .collect()
}

/// Joins rows to the subsearch's.
pub struct JoinOp {
    cmd: Join,
    sub: Nested,
    limits: Limits,
    /// Built on first need (`None`: the subsearch has not run yet).
    table: Option<Table>,
    /// Rows held until the end when the join fields are the common ones.
    held: Vec<Row>,
}

impl JoinOp {
    /// `join …`; the subsearch limits come from `limits.conf` `[join]`.
    pub fn new(
        j: &Join,
        limits: Limits,
        runner: Option<&SubsearchRunner>,
    ) -> Result<JoinOp, SearchError> {
        let (maxout, maxtime) = match runner {
            Some(r) => r.conf_limits(
                "join",
                ("subsearch_maxout", JOIN_MAXOUT),
                ("subsearch_maxtime", JOIN_MAXTIME),
            )?,
            None => (JOIN_MAXOUT, std::time::Duration::from_secs(JOIN_MAXTIME)),
        };
        Ok(JoinOp {
            cmd: j.clone(),
            sub: Nested {
                command: "join",
                text: j.sub.text.clone(),
                maxout,
                maxtime,
                runner: runner.cloned(),
            },
            limits,
            table: None,
            held: Vec::new(),
        })
    }

    /// Joins `rows` against the table, appending the output to `out`.
    fn join(&self, table: &Table, rows: Vec<Row>, out: &mut Vec<Row>) {
        let max = match self.cmd.max {
            0 => usize::MAX,
            n => usize::try_from(n).unwrap_or(usize::MAX),
        };
        for mut row in rows {
            let matches = key(&mut row, &table.fields)
                .and_then(|k| table.by_key.get(&k))
                .map_or(&[][..], Vec::as_slice);
            if matches.is_empty() {
                if self.cmd.kind != JoinType::Inner {
                    out.push(row);
                }
                continue;
            }
            let n = matches.len().min(max);
            for (i, &m) in matches[..n].iter().enumerate() {
                let mut joined = if i + 1 == n {
                    std::mem::take(&mut row)
                } else {
                    row.clone()
                };
                for (k, v) in table.rows[m].fields() {
                    if !k.starts_with('_') && (self.cmd.overwrite || joined.get(k).is_none()) {
                        joined.set(k, v.clone());
                    }
                }
                out.push(joined);
            }
        }
    }
}

impl Op for JoinOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.cmd.fields.is_empty() {
            if self.held.len() + rows.len() > self.limits.max_sort_rows {
                return Err(exceeded("join", "max_sort_rows", self.limits.max_sort_rows));
            }
            self.held.append(&mut rows);
            return Ok(Flow::Continue);
        }
        if self.table.is_none() {
            self.table = Some(Table::new(self.cmd.fields.clone(), self.sub.run()?));
        }
        if let Some(t) = &self.table {
            self.join(t, rows, out);
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        if !self.cmd.fields.is_empty() {
            return Ok(());
        }
        let mut held = std::mem::take(&mut self.held);
        let sub = self.sub.run()?;
        // The fields both sides have, in the order the results show them first.
        let mut seen: Vec<String> = Vec::new();
        for r in held.iter_mut() {
            r.extract_all();
            for (k, _) in r.fields() {
                if !k.starts_with('_') && !seen.iter().any(|s| s == k) {
                    seen.push(k.to_string());
                }
            }
        }
        seen.retain(|f| sub.iter().any(|r| r.peek(f).is_some()));
        if seen.is_empty() {
            // Nothing to join on: no row matches.
            if self.cmd.kind != JoinType::Inner {
                out.append(&mut held);
            }
            return Ok(());
        }
        let table = Table::new(seen, sub);
        self.join(&table, held, out);
        Ok(())
    }
}
