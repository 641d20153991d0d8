//! `transaction [f…] [maxspan=…] [maxpause=…] [maxevents=N] [startswith=…] [endswith=…]
//! [keepevicted=t] [mvlist=t]`: groups events into transactions.
//!
//! Events of one transaction share the values of the listed fields (an event missing one of
//! them takes part in none). Within a group, events are walked oldest first: a new transaction
//! begins at an event matching `startswith`, or when adding the event would exceed `maxspan`
//! (first to this event), `maxpause` (previous to this event) or `maxevents` (default 1000;
//! 0 = no limit); an event matching `endswith` ends its transaction. A transaction is *closed*
//! when it begins with a `startswith` event and ends with an `endswith` event (each only when
//! given); the others are *evicted* and dropped unless `keepevicted=t`, which also adds
//! `closed_txn` (1 or 0) to every transaction.
//!
//! Each transaction is one row: `_raw` = the events' `_raw` oldest first joined by newlines,
//! `_time` = the first event's time, every other field (not internal `_` fields) = its
//! values across the events (distinct and sorted; with `mvlist=t` all of them in event order),
//! `duration` = last − first time in seconds, `eventcount`. Rows come out newest first. All
//! events are held (limit `max_sort_rows`); the command runs once, after the merge of batch
//! workers.

use super::limits::{exceeded, Limits};
use super::{ExecContext, Flow, Op};
use crate::error::SearchError;
use crate::eval::{check, EvalCtx, Evaluator};
use crate::matcher::matches;
use crate::row::Row;
use crate::value::Value;
use lode_event::Micros;
use lode_spl::ast::{Transaction, TxnFilter};
use std::collections::HashMap;

/// Groups events into transactions.
pub struct TransactionOp {
    t: Transaction,
    ev: Evaluator,
    limits: Limits,
    rows: Vec<Row>,
}

/// One transaction being built: row indices oldest first.
struct Txn {
    rows: Vec<usize>,
    first: Micros,
    last: Micros,
}

impl TransactionOp {
    /// Checks the `eval(…)` conditions.
    pub fn new(
        t: Transaction,
        ctx: ExecContext,
        limits: Limits,
    ) -> Result<TransactionOp, SearchError> {
        for f in [&t.startswith, &t.endswith].into_iter().flatten() {
            if let TxnFilter::Eval(e) = f {
                check(e)?;
            }
        }
        Ok(TransactionOp {
            t,
            ev: Evaluator::new(EvalCtx {
                now: ctx.now,
                tz: ctx.tz,
            }),
            limits,
            rows: Vec::new(),
        })
    }

    fn test(&mut self, f: &Option<TxnFilter>, r: &mut Row) -> Result<bool, SearchError> {
        match f {
            None => Ok(false),
            Some(TxnFilter::Search(e)) => Ok(matches(e, r)),
            Some(TxnFilter::Eval(e)) => self.ev.is_true(e, r),
        }
    }

    /// The merged row of one transaction.
    fn merge(&self, txn: &Txn, closed: bool) -> Row {
        let mut raws: Vec<String> = Vec::with_capacity(txn.rows.len());
        let mut fields: Vec<(String, Vec<Value>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for &i in &txn.rows {
            let r = &self.rows[i];
            if let Some(raw) = r.peek("_raw") {
                raws.push(raw.as_str().into_owned());
            }
            for (n, v) in r.fields() {
                if n.starts_with('_') {
                    continue;
                }
                let slot = match index.get(n) {
                    Some(&s) => s,
                    None => {
                        index.insert(n.to_string(), fields.len());
                        fields.push((n.to_string(), Vec::new()));
                        fields.len() - 1
                    }
                };
                fields[slot].1.extend(v.iter_values().cloned());
            }
        }
        let mut out = Vec::with_capacity(fields.len() + 5);
        out.push(("_raw".to_string(), Value::Str(raws.join("\n"))));
        out.push(("_time".to_string(), Value::Num(txn.first as f64 / 1e6)));
        for (n, mut vals) in fields {
            if !self.t.mvlist {
                let mut texts: Vec<(String, Value)> = vals
                    .into_iter()
                    .map(|v| (v.as_str().into_owned(), v))
                    .collect();
                texts.sort_by(|a, b| a.0.cmp(&b.0));
                texts.dedup_by(|a, b| a.0 == b.0);
                vals = texts.into_iter().map(|(_, v)| v).collect();
            }
            out.push((n, Value::from_values(vals)));
        }
        out.push((
            "duration".to_string(),
            Value::Num((txn.last - txn.first) as f64 / 1e6),
        ));
        out.push(("eventcount".to_string(), Value::Num(txn.rows.len() as f64)));
        if self.t.keepevicted {
            out.push((
                "closed_txn".to_string(),
                Value::Num(if closed { 1.0 } else { 0.0 }),
            ));
        }
        Row::from_fields(out)
    }
}

impl Op for TransactionOp {
    fn push(&mut self, mut rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.rows.len() + rows.len() > self.limits.max_sort_rows {
            return Err(exceeded(
                "transaction",
                "max_sort_rows",
                self.limits.max_sort_rows,
            ));
        }
        self.rows.append(&mut rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let n = self.rows.len();
        let mut rows = std::mem::take(&mut self.rows);
        // Group keys, times and start/end marks, oldest first within a group.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut index: HashMap<Vec<String>, usize> = HashMap::new();
        let mut times = vec![0; n];
        let (mut starts, mut ends) = (vec![false; n], vec![false; n]);
        let (sw, ew) = (self.t.startswith.clone(), self.t.endswith.clone());
        for (i, r) in rows.iter_mut().enumerate().rev() {
            let mut key = Vec::with_capacity(self.t.fields.len());
            for f in &self.t.fields {
                match r.get(f) {
                    Some(v) if !v.is_null() => key.push(v.to_string()),
                    _ => break,
                }
            }
            if key.len() < self.t.fields.len() {
                continue;
            }
            r.extract_all();
            times[i] = r.time().unwrap_or(0);
            starts[i] = self.test(&sw, r)?;
            ends[i] = self.test(&ew, r)?;
            let g = *index.entry(key).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
        }
        self.rows = rows;
        let maxspan = self.t.maxspan.map(|s| (s as i64).saturating_mul(1_000_000));
        let maxpause = self
            .t
            .maxpause
            .map(|s| (s as i64).saturating_mul(1_000_000));
        let maxevents = usize::try_from(self.t.maxevents).unwrap_or(usize::MAX);
        let mut done: Vec<(Txn, bool)> = Vec::new();
        let complete = |txn: &Txn| {
            (sw.is_none() || starts[txn.rows[0]])
                && (ew.is_none() || ends[*txn.rows.last().expect("never empty")])
        };
        for mut g in groups {
            g.sort_by_key(|&i| times[i]);
            let mut cur: Option<Txn> = None;
            for i in g {
                let t = times[i];
                if let Some(c) = &cur {
                    let split = (sw.is_some() && starts[i])
                        || maxspan.is_some_and(|m| t - c.first > m)
                        || maxpause.is_some_and(|m| t - c.last > m)
                        || (maxevents > 0 && c.rows.len() >= maxevents);
                    if split {
                        let c = cur.take().expect("checked");
                        let ok = complete(&c);
                        done.push((c, ok));
                    }
                }
                match &mut cur {
                    Some(c) => {
                        c.rows.push(i);
                        c.last = t;
                    }
                    None => {
                        cur = Some(Txn {
                            rows: vec![i],
                            first: t,
                            last: t,
                        })
                    }
                }
                if ew.is_some() && ends[i] {
                    let c = cur.take().expect("just set");
                    let ok = complete(&c);
                    done.push((c, ok));
                }
            }
            if let Some(c) = cur {
                let ok = complete(&c);
                done.push((c, ok));
            }
        }
        done.retain(|(_, ok)| *ok || self.t.keepevicted);
        // Newest first; ties keep the order of their first events in the input.
        done.sort_by(|a, b| {
            b.0.first
                .cmp(&a.0.first)
                .then(b.0.rows[0].cmp(&a.0.rows[0]))
        });
        for (txn, ok) in &done {
            out.push(self.merge(txn, *ok));
        }
        self.rows.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, strs};
    use lode_spl::ast::{SearchExpr, Term};

    /// Rows newest first from (time, user, text).
    fn events(data: &[(i64, &str, &str)]) -> Vec<Row> {
        data.iter()
            .rev()
            .map(|(t, u, raw)| {
                let mut f = vec![
                    ("_raw".to_string(), Value::Str(raw.to_string())),
                    ("_time".to_string(), Value::Num(*t as f64)),
                ];
                if !u.is_empty() {
                    f.push(("user".to_string(), Value::Str(u.to_string())));
                }
                Row::from_fields(f)
            })
            .collect()
    }

    fn txn(fields: &[&str]) -> Transaction {
        Transaction {
            fields: fields.iter().map(|s| s.to_string()).collect(),
            maxspan: None,
            maxpause: None,
            maxevents: 1000,
            startswith: None,
            endswith: None,
            keepevicted: false,
            mvlist: false,
            delim: " ".into(),
        }
    }

    fn term(t: &str) -> TxnFilter {
        TxnFilter::Search(SearchExpr::Term(Term {
            text: t.into(),
            quoted: false,
            whole: false,
            case: false,
        }))
    }

    fn run(t: Transaction, rows: Vec<Row>) -> Vec<Row> {
        let mut op = TransactionOp::new(t, ctx(), Limits::default()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    fn data() -> Vec<Row> {
        events(&[
            (100, "a", "login a"),
            (105, "b", "login b"),
            (110, "a", "view a"),
            (130, "a", "logout a"),
            (200, "a", "login a"),
            (300, "", "noise"),
        ])
    }

    #[test]
    fn by_field_with_pause_and_merge() {
        let mut t = txn(&["user"]);
        t.maxpause = Some(60);
        let out = run(t, data());
        assert_eq!(strs(&out, "_time"), vec!["200", "105", "100"]);
        assert_eq!(strs(&out, "eventcount"), vec!["1", "1", "3"]);
        assert_eq!(strs(&out, "duration"), vec!["0", "0", "30"]);
        assert_eq!(strs(&out, "_raw")[2], "login a\nview a\nlogout a");
        assert!(out[0].peek("closed_txn").is_none());
    }

    #[test]
    fn start_end_and_evicted() {
        let mut t = txn(&["user"]);
        t.startswith = Some(term("login"));
        t.endswith = Some(term("logout"));
        let out = run(t.clone(), data());
        assert_eq!(strs(&out, "_time"), vec!["100"]);
        t.keepevicted = true;
        let out = run(t, data());
        assert_eq!(strs(&out, "_time"), vec!["200", "105", "100"]);
        assert_eq!(strs(&out, "closed_txn"), vec!["0", "0", "1"]);
    }

    #[test]
    fn no_fields_maxevents_and_mvlist() {
        let mut t = txn(&[]);
        t.maxevents = 2;
        t.mvlist = true;
        let out = run(t.clone(), data());
        assert_eq!(strs(&out, "eventcount"), vec!["2", "2", "2"]);
        assert_eq!(strs(&out, "user"), vec!["a", "a\na", "a\nb"]);
        t.mvlist = false;
        t.maxevents = 0;
        t.maxspan = Some(1000);
        let out = run(t, data());
        assert_eq!(strs(&out, "user"), vec!["a\nb"]);
        assert_eq!(strs(&out, "duration"), vec!["200"]);
    }
}
