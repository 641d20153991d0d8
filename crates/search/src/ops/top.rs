//! `top`/`rare`: the most (least) frequent value combinations of the fields, per by-group, with
//! a count and a percentage of the group's rows that had all the fields (6 decimals, as Splunk
//! prints it: `33.333333`). Ties keep the combination seen first. Groups are output in
//! by-value order. With `useother=t`, the combinations beyond `limit` are summed into one more
//! row per group whose fields all hold `otherstr`.

use super::limits::{exceeded, Limits};
use super::stats::{cmp_keys, group_keys};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Top;
use std::collections::HashMap;

/// One by-group: total rows, and each combination's count and first-seen rank.
#[derive(Default)]
struct Group {
    total: u64,
    combos: HashMap<Vec<String>, (u64, usize)>,
}

/// Counts value combinations.
pub struct TopOp {
    top: Top,
    limits: Limits,
    groups: HashMap<Vec<String>, Group>,
    /// Combinations held over all groups (for the limit).
    held: usize,
    /// Scratch key buffers (reused).
    by_keys: Vec<Vec<String>>,
    field_keys: Vec<Vec<String>>,
}

impl TopOp {
    /// `top`/`rare` with its options.
    pub fn new(top: Top, limits: Limits) -> TopOp {
        TopOp {
            top,
            limits,
            groups: HashMap::new(),
            held: 0,
            by_keys: Vec::new(),
            field_keys: Vec::new(),
        }
    }
}

impl TopOp {
    /// An empty state with the same options (a worker's next partial).
    pub(super) fn empty_like(&self) -> TopOp {
        TopOp::new(self.top.clone(), self.limits)
    }

    /// Merges the partial state of rows that came AFTER this one's (the final half of a split
    /// search): counts add up, and combinations new to a group rank after the ones it has, in
    /// the order `other` first saw them, as if its rows had been pushed here.
    pub(super) fn merge(&mut self, other: TopOp) -> Result<(), SearchError> {
        for (bkey, og) in other.groups {
            let g = self.groups.entry(bkey).or_default();
            g.total += og.total;
            let mut combos: Vec<(Vec<String>, (u64, usize))> = og.combos.into_iter().collect();
            combos.sort_unstable_by_key(|c| c.1 .1);
            for (combo, (n, _)) in combos {
                let rank = g.combos.len();
                if !g.combos.contains_key(&combo) {
                    if self.held >= self.limits.max_groups {
                        return Err(exceeded(
                            if self.top.rare { "rare" } else { "top" },
                            "max_groups",
                            self.limits.max_groups,
                        ));
                    }
                    self.held += 1;
                }
                g.combos.entry(combo).or_insert((0, rank)).0 += n;
            }
        }
        Ok(())
    }
}

impl TopOp {
    /// Feeds counted rows (the count pushdown, [`crate::plan::columns::counts_suffice`]): each
    /// row stands for `count` events with the same field values, in the order of their first
    /// event, so combinations rank as they would row by row.
    pub(super) fn push_counted(&mut self, rows: Vec<(Row, u64)>) -> Result<(), SearchError> {
        let (mut bk, mut fk) = (
            std::mem::take(&mut self.by_keys),
            std::mem::take(&mut self.field_keys),
        );
        let r = rows
            .into_iter()
            .try_for_each(|(mut r, w)| self.add(&mut r, w, &mut bk, &mut fk));
        self.by_keys = bk;
        self.field_keys = fk;
        r
    }

    /// Adds `row`, standing for `w` identical rows (`bk`, `fk`: scratch).
    fn add(
        &mut self,
        r: &mut Row,
        w: u64,
        bk: &mut Vec<Vec<String>>,
        fk: &mut Vec<Vec<String>>,
    ) -> Result<(), SearchError> {
        group_keys(r, &self.top.by, bk);
        group_keys(r, &self.top.fields, fk);
        if fk.is_empty() {
            return Ok(());
        }
        for b in bk.iter() {
            let g = self.groups.entry(b.clone()).or_default();
            g.total += w;
            for f in fk.iter() {
                let rank = g.combos.len();
                if !g.combos.contains_key(f) {
                    if self.held >= self.limits.max_groups {
                        return Err(exceeded(
                            if self.top.rare { "rare" } else { "top" },
                            "max_groups",
                            self.limits.max_groups,
                        ));
                    }
                    self.held += 1;
                }
                g.combos.entry(f.clone()).or_insert((0, rank)).0 += w;
            }
        }
        Ok(())
    }
}

impl Op for TopOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let (mut bk, mut fk) = (
            std::mem::take(&mut self.by_keys),
            std::mem::take(&mut self.field_keys),
        );
        let r = rows
            .into_iter()
            .try_for_each(|mut r| self.add(&mut r, 1, &mut bk, &mut fk));
        self.by_keys = bk;
        self.field_keys = fk;
        r.map(|()| Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let mut groups: Vec<(Vec<String>, Group)> = self.groups.drain().collect();
        groups.sort_by(|a, b| cmp_keys(&a.0, &b.0));
        let limit = if self.top.limit == 0 {
            usize::MAX
        } else {
            self.top.limit as usize
        };
        for (bkey, g) in groups {
            let mut combos: Vec<(Vec<String>, (u64, usize))> = g.combos.into_iter().collect();
            combos.sort_by(|a, b| {
                let by_count = if self.top.rare {
                    a.1 .0.cmp(&b.1 .0)
                } else {
                    b.1 .0.cmp(&a.1 .0)
                };
                by_count.then(a.1 .1.cmp(&b.1 .1))
            });
            let rest: u64 = combos.iter().skip(limit).map(|c| c.1 .0).sum();
            let other = (self.top.useother && combos.len() > limit).then(|| {
                let name = vec![self.top.otherstr.clone(); self.top.fields.len()];
                (name, (rest, 0))
            });
            for (fkey, (n, _)) in combos.into_iter().take(limit).chain(other) {
                let mut row = Row::new();
                for (f, v) in self.top.by.iter().zip(&bkey) {
                    row.set(f, Value::Str(v.clone()));
                }
                for (f, v) in self.top.fields.iter().zip(fkey) {
                    row.set(f, Value::Str(v));
                }
                if self.top.showcount {
                    row.set(&self.top.countfield, Value::Num(n as f64));
                }
                if self.top.showperc {
                    let pct = n as f64 * 100.0 / g.total.max(1) as f64;
                    row.set(&self.top.percentfield, Value::Str(format!("{pct:.6}")));
                }
                out.push(row);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{names, rows_of, strs};

    fn spec(rare: bool, fields: &[&str], by: &[&str], limit: u64) -> Top {
        Top {
            rare,
            fields: fields.iter().map(|s| s.to_string()).collect(),
            by: by.iter().map(|s| s.to_string()).collect(),
            limit,
            countfield: "count".into(),
            percentfield: "percent".into(),
            showcount: true,
            showperc: true,
            useother: false,
            otherstr: "OTHER".into(),
        }
    }

    fn run(t: Top, rows: Vec<Row>) -> Vec<Row> {
        let mut op = TopOp::new(t, Limits::default());
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    fn sample() -> Vec<Row> {
        rows_of(
            &["h", "s"],
            &[
                &["a", "x"],
                &["b", "x"],
                &["a", "y"],
                &["a", "x"],
                &["c", "y"],
                &["", "x"],
            ],
        )
    }

    #[test]
    fn top_counts_and_percent_format() {
        let out = run(spec(false, &["h"], &[], 10), sample());
        assert_eq!(names(&out[0]), vec!["h", "count", "percent"]);
        assert_eq!(strs(&out, "h"), vec!["a", "b", "c"]);
        assert_eq!(strs(&out, "count"), vec!["3", "1", "1"]);
        assert_eq!(
            strs(&out, "percent"),
            vec!["60.000000", "20.000000", "20.000000"]
        );
        let out = run(
            spec(false, &["s"], &[], 1),
            rows_of(&["s"], &[&["x"], &["y"], &["x"]]),
        );
        assert_eq!(strs(&out, "percent"), vec!["66.666667"]);
    }

    #[test]
    fn useother_sums_the_rest() {
        let mut t = spec(false, &["h"], &[], 1);
        t.useother = true;
        let out = run(t.clone(), sample());
        assert_eq!(strs(&out, "h"), vec!["a", "OTHER"]);
        assert_eq!(strs(&out, "count"), vec!["3", "2"]);
        assert_eq!(strs(&out, "percent"), vec!["60.000000", "40.000000"]);
        t.limit = 10;
        t.otherstr = "rest".into();
        let out = run(t, sample());
        assert_eq!(strs(&out, "h"), vec!["a", "b", "c"]);
    }

    #[test]
    fn rare_and_limit_and_by() {
        let out = run(spec(true, &["h"], &[], 2), sample());
        assert_eq!(strs(&out, "h"), vec!["b", "c"]);
        let out = run(spec(false, &["h"], &["s"], 1), sample());
        assert_eq!(strs(&out, "s"), vec!["x", "y"]);
        assert_eq!(strs(&out, "h"), vec!["a", "a"]);
        assert_eq!(strs(&out, "percent"), vec!["66.666667", "50.000000"]);
    }

    #[test]
    fn renamed_and_hidden_columns() {
        let mut t = spec(false, &["h", "s"], &[], 0);
        t.countfield = "n".into();
        t.showperc = false;
        let out = run(t, sample());
        assert_eq!(names(&out[0]), vec!["h", "s", "n"]);
        assert_eq!(out.len(), 4);
    }
}
