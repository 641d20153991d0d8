//! `addtotals` and `addcoltotals`.
//!
//! - Row totals (`addtotals`, `row=t` by default): each row gets `fieldname` (default `Total`) =
//!   the sum of its numeric fields (the listed ones, wildcards allowed, or all fields except
//!   internal `_` fields); a row with no numeric field gets none. Streams.
//! - Column totals (`addcoltotals`, or `addtotals col=t`): after the last row, one more row with
//!   the sum of each numeric field (in order of first appearance) and `labelfield=label` when
//!   `labelfield` is given. Holds all rows (limit `max_sort_rows`).

use super::glob::Glob;
use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Row and/or column totals.
pub struct AddTotalsOp {
    row: bool,
    col: bool,
    labelfield: Option<String>,
    label: String,
    fieldname: String,
    globs: Vec<Glob>,
    limits: Limits,
    /// Column sums in order of first appearance.
    sums: Vec<(String, f64)>,
    /// Rows held until the totals row (col).
    rows: Vec<Row>,
}

impl AddTotalsOp {
    /// `addtotals` options.
    pub fn new(
        row: bool,
        col: bool,
        labelfield: Option<String>,
        label: String,
        fieldname: String,
        fields: &[String],
        limits: Limits,
    ) -> AddTotalsOp {
        AddTotalsOp {
            row,
            col,
            labelfield,
            label,
            fieldname,
            globs: fields.iter().map(|f| Glob::new(f)).collect(),
            limits,
            sums: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// The summed (name, number) pairs of a row.
    fn numbers(&self, r: &mut Row) -> Vec<(String, f64)> {
        if self.globs.is_empty() || self.globs.iter().any(Glob::is_wild) {
            r.extract_all();
        } else {
            for g in &self.globs {
                r.get(g.text());
            }
        }
        r.fields()
            .filter(|(n, _)| {
                if self.globs.is_empty() {
                    !n.starts_with('_')
                } else {
                    self.globs.iter().any(|g| g.is_match(n))
                }
            })
            .filter_map(|(n, v)| match v {
                Value::Multi(_) => None,
                v => v.to_num().map(|x| (n.to_string(), x)),
            })
            .collect()
    }
}

impl Op for AddTotalsOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            if self.row {
                let nums: Vec<f64> = self
                    .numbers(&mut r)
                    .into_iter()
                    .filter(|(n, _)| *n != self.fieldname)
                    .map(|(_, x)| x)
                    .collect();
                if !nums.is_empty() {
                    r.set(&self.fieldname, Value::Num(nums.iter().sum()));
                }
            }
            if !self.col {
                out.push(r);
                continue;
            }
            for (n, x) in self.numbers(&mut r) {
                match self.sums.iter_mut().find(|(m, _)| *m == n) {
                    Some((_, s)) => *s += x,
                    None => self.sums.push((n, x)),
                }
            }
            if self.rows.len() >= self.limits.max_sort_rows {
                return Err(exceeded(
                    "addcoltotals",
                    "max_sort_rows",
                    self.limits.max_sort_rows,
                ));
            }
            self.rows.push(r);
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        if !self.col {
            return Ok(());
        }
        out.append(&mut self.rows);
        let mut total = Row::from_fields(
            std::mem::take(&mut self.sums)
                .into_iter()
                .map(|(n, s)| (n, Value::Num(s))),
        );
        if let Some(l) = &self.labelfield {
            total.set(l, Value::Str(self.label.clone()));
        }
        out.push(total);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{names, rows_of, strs};

    fn data() -> Vec<Row> {
        rows_of(
            &["h", "a", "b", "_x"],
            &[
                &["w1", "1", "2", "9"],
                &["w2", "x", "3.5", ""],
                &["w3", "", "", ""],
            ],
        )
    }

    fn run(op: &mut AddTotalsOp) -> Vec<Row> {
        let mut out = Vec::new();
        op.push(data(), &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    #[test]
    fn row_totals() {
        let d = Limits::default();
        let out = run(&mut AddTotalsOp::new(
            true,
            false,
            None,
            "Total".into(),
            "Total".into(),
            &[],
            d,
        ));
        assert_eq!(strs(&out, "Total"), vec!["3", "3.5", ""]);
        let out = run(&mut AddTotalsOp::new(
            true,
            false,
            None,
            "Total".into(),
            "S".into(),
            &["b*".into()],
            d,
        ));
        assert_eq!(strs(&out, "S"), vec!["2", "3.5", ""]);
    }

    #[test]
    fn column_totals() {
        let d = Limits::default();
        let out = run(&mut AddTotalsOp::new(
            false,
            true,
            Some("h".into()),
            "All".into(),
            "Total".into(),
            &[],
            d,
        ));
        assert_eq!(out.len(), 4);
        assert_eq!(names(&out[3]), vec!["a", "b", "h"]);
        assert_eq!(strs(&out, "b"), vec!["2", "3.5", "", "5.5"]);
        assert_eq!(strs(&out, "h"), vec!["w1", "w2", "w3", "All"]);
        let out = run(&mut AddTotalsOp::new(
            true,
            true,
            None,
            "Total".into(),
            "Total".into(),
            &[],
            d,
        ));
        assert_eq!(strs(&out, "Total"), vec!["3", "3.5", "", "6.5"]);
    }
}
