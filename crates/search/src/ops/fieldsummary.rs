//! `fieldsummary [maxvals=N] [fields…]`: one row per field (search-time fields included,
//! internal `_` fields left out), sorted by name, with `count` (rows having it),
//! `distinct_count`, `is_exact`, `max`, `mean`, `min`, `numeric_count`, `stdev` (sample) and
//! `values`: Splunk's JSON text `[{"value":"x","count":N},…]`, most frequent first, at most
//! `maxvals` (0 = all). Distinct counts are exact in Lode, so `is_exact` is always 1.

use std::collections::{BTreeMap, HashMap};

use super::glob::Glob;
use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

#[derive(Default)]
struct FieldStats {
    count: u64,
    values: HashMap<String, u64>,
    numeric: u64,
    sum: f64,
    sumsq: f64,
    min: f64,
    max: f64,
}

/// Collects statistics of every field of every row.
pub struct FieldSummaryOp {
    maxvals: u64,
    globs: Vec<Glob>,
    fields: BTreeMap<String, FieldStats>,
    distinct: usize,
    limits: Limits,
}

impl FieldSummaryOp {
    /// A summary of `fields` (empty: all).
    pub fn new(maxvals: u64, fields: &[String], limits: Limits) -> FieldSummaryOp {
        FieldSummaryOp {
            maxvals,
            globs: fields.iter().map(|f| Glob::new(f)).collect(),
            fields: BTreeMap::new(),
            distinct: 0,
            limits,
        }
    }
}

impl Op for FieldSummaryOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            r.extract_all();
            for (name, v) in r.fields() {
                if name.starts_with('_')
                    || (!self.globs.is_empty() && !self.globs.iter().any(|g| g.is_match(name)))
                {
                    continue;
                }
                let st = self.fields.entry(name.to_string()).or_default();
                st.count += 1;
                for x in v.iter_values() {
                    let text = x.as_str();
                    match st.values.get_mut(text.as_ref()) {
                        Some(n) => *n += 1,
                        None => {
                            self.distinct += 1;
                            if self.distinct > self.limits.max_groups {
                                return Err(exceeded(
                                    "fieldsummary",
                                    "max_groups",
                                    self.limits.max_groups,
                                ));
                            }
                            st.values.insert(text.into_owned(), 1);
                        }
                    }
                    if let Some(n) = x.to_num().filter(|n| n.is_finite()) {
                        if st.numeric == 0 {
                            st.min = n;
                            st.max = n;
                        }
                        st.numeric += 1;
                        st.sum += n;
                        st.sumsq += n * n;
                        st.min = st.min.min(n);
                        st.max = st.max.max(n);
                    }
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        for (name, st) in std::mem::take(&mut self.fields) {
            let mut values: Vec<(String, u64)> = st.values.into_iter().collect();
            values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let distinct = values.len();
            if self.maxvals > 0 {
                values.truncate(self.maxvals.min(usize::MAX as u64) as usize);
            }
            let json: Vec<String> = values
                .iter()
                .map(|(v, n)| {
                    format!(
                        "{{\"value\":{},\"count\":{n}}}",
                        serde_json::Value::String(v.clone())
                    )
                })
                .collect();
            let num = |x: f64| {
                if st.numeric > 0 {
                    Value::Num(x)
                } else {
                    Value::Null
                }
            };
            let n = st.numeric as f64;
            let mean = if n > 0.0 { st.sum / n } else { 0.0 };
            let stdev = if n > 1.0 {
                ((st.sumsq - st.sum * st.sum / n) / (n - 1.0))
                    .max(0.0)
                    .sqrt()
            } else {
                0.0
            };
            let mut row = Row::new();
            row.set("field", Value::Str(name));
            row.set("count", Value::Num(st.count as f64));
            row.set("distinct_count", Value::Num(distinct as f64));
            row.set("is_exact", Value::Num(1.0));
            row.set("max", num(st.max));
            row.set("mean", num(mean));
            row.set("min", num(st.min));
            row.set("numeric_count", Value::Num(n));
            row.set("stdev", num(stdev));
            row.set("values", Value::Str(format!("[{}]", json.join(","))));
            out.push(row);
        }
        Ok(())
    }
}
