//! Matching result rows against a lookup table and writing the output fields.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Definition, MatchType, Table};
use crate::error::SearchError;
use crate::eval::net::Cidr;
use crate::row::Row;
use crate::value::Value;

/// One input (match) column.
struct Input {
    /// Column index in the table.
    col: usize,
    /// The row's field.
    field: String,
    /// How it matches.
    how: MatchType,
}

/// A table prepared for matching rows: `lookup <table> inputs… OUTPUT outputs…`.
pub struct Matcher {
    table: Arc<Table>,
    inputs: Vec<Input>,
    /// (column index, row field).
    outputs: Vec<(usize, String)>,
    output_new: bool,
    case_sensitive: bool,
    max_matches: usize,
    min_matches: usize,
    default_match: String,
    /// With only exact inputs: table rows by their (case-folded) input values.
    index: Option<HashMap<Vec<String>, Vec<usize>>>,
    /// Parsed CIDR cells, per table row and input (`None`: not a CIDR input or not a block).
    cidrs: Vec<Vec<Option<Cidr>>>,
}

impl Matcher {
    /// Prepares `table` (of `def`) for the given (column, field) inputs and outputs; empty
    /// `outputs` = every column that is not an input, under its own name.
    pub fn new(
        def: &Definition,
        table: Arc<Table>,
        inputs: &[(String, String)],
        outputs: &[(String, String)],
        output_new: bool,
    ) -> Result<Matcher, SearchError> {
        let column = |c: &str| {
            table.column(c).ok_or_else(|| {
                SearchError::User(format!(
                    "Could not find the field '{c}' in the lookup table '{}'.",
                    def.name
                ))
            })
        };
        let inputs = inputs
            .iter()
            .map(|(c, f)| {
                Ok(Input {
                    col: column(c)?,
                    field: f.clone(),
                    how: def.match_type(c),
                })
            })
            .collect::<Result<Vec<_>, SearchError>>()?;
        let outputs = if outputs.is_empty() {
            table
                .header
                .iter()
                .enumerate()
                .filter(|(i, _)| !inputs.iter().any(|inp| inp.col == *i))
                .map(|(i, h)| (i, h.clone()))
                .collect()
        } else {
            outputs
                .iter()
                .map(|(c, f)| Ok((column(c)?, f.clone())))
                .collect::<Result<Vec<_>, SearchError>>()?
        };
        let cidrs = table
            .rows
            .iter()
            .map(|r| {
                inputs
                    .iter()
                    .map(|i| match i.how {
                        MatchType::Cidr => Cidr::parse(&r[i.col]),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut m = Matcher {
            table,
            inputs,
            outputs,
            output_new,
            case_sensitive: def.case_sensitive,
            max_matches: def.max_matches.max(1),
            min_matches: def.min_matches,
            default_match: def.default_match.clone(),
            index: None,
            cidrs,
        };
        if m.inputs.iter().all(|i| i.how == MatchType::Exact) {
            let mut index: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
            for (n, r) in m.table.rows.iter().enumerate() {
                let key = m.inputs.iter().map(|i| m.fold(&r[i.col])).collect();
                index.entry(key).or_default().push(n);
            }
            m.index = Some(index);
        }
        Ok(m)
    }

    fn fold(&self, s: &str) -> String {
        if self.case_sensitive {
            s.to_string()
        } else {
            s.to_lowercase()
        }
    }

    /// Whether table cell `cell` (row `row`, input `k`) matches the row value `v`.
    fn cell_matches(&self, row: usize, k: usize, cell: &str, v: &str) -> bool {
        match self.inputs[k].how {
            MatchType::Exact => {
                if self.case_sensitive {
                    cell == v
                } else {
                    cell.to_lowercase() == v.to_lowercase()
                }
            }
            MatchType::Wildcard => {
                crate::matcher::wildcard_match(cell.as_bytes(), v.as_bytes(), !self.case_sensitive)
            }
            MatchType::Cidr => match (&self.cidrs[row][k], v.trim().parse()) {
                (Some(c), Ok(ip)) => c.contains(ip),
                _ => cell == v,
            },
        }
    }

    /// The matching table rows for `row`, in file order, at most `max_matches`.
    fn matches(&self, row: &mut Row) -> Vec<usize> {
        let mut values: Vec<Vec<String>> = Vec::with_capacity(self.inputs.len());
        for i in &self.inputs {
            match row.get(&i.field) {
                Some(v) => values.push(v.iter_values().map(|x| x.as_str().into_owned()).collect()),
                None => return Vec::new(),
            }
        }
        let mut found: Vec<usize> = Vec::new();
        if let Some(index) = &self.index {
            // Every combination of the row's values (multivalue inputs match any value).
            let mut keys: Vec<Vec<String>> = vec![Vec::new()];
            for vals in &values {
                keys = keys
                    .into_iter()
                    .flat_map(|k| {
                        vals.iter().map(move |v| {
                            let mut k = k.clone();
                            k.push(v.clone());
                            k
                        })
                    })
                    .take(1024)
                    .collect();
            }
            for k in keys {
                let k: Vec<String> = k.iter().map(|v| self.fold(v)).collect();
                if let Some(rows) = index.get(&k) {
                    found.extend(rows);
                }
            }
            found.sort_unstable();
            found.dedup();
        } else {
            for (n, r) in self.table.rows.iter().enumerate() {
                let all = self.inputs.iter().enumerate().all(|(k, i)| {
                    values[k]
                        .iter()
                        .any(|v| self.cell_matches(n, k, &r[i.col], v))
                });
                if all {
                    found.push(n);
                }
            }
        }
        found.truncate(self.max_matches);
        found
    }

    /// Looks `row` up and sets its output fields: `OUTPUT` replaces them (a miss removes them),
    /// `OUTPUTNEW` only fills the missing ones (rows that have them all are left alone).
    pub fn apply(&self, row: &mut Row) {
        if self.output_new && self.outputs.iter().all(|(_, f)| row.get(f).is_some()) {
            return;
        }
        let found = self.matches(row);
        for (col, field) in &self.outputs {
            let mut vals: Vec<Value> = found
                .iter()
                .map(|&n| &self.table.rows[n][*col])
                .filter(|c| !c.is_empty())
                .flat_map(|c| c.split('\n'))
                .map(|c| Value::Str(c.to_string()))
                .collect();
            if found.len() < self.min_matches && vals.is_empty() && !self.default_match.is_empty() {
                vals.push(Value::Str(self.default_match.clone()));
            }
            if self.output_new && row.get(field).is_some() {
                continue;
            }
            row.set(field, Value::from_values(vals));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup::csv::parse;
    use std::path::PathBuf;

    fn def() -> Definition {
        Definition {
            name: "t".into(),
            path: PathBuf::new(),
            case_sensitive: true,
            match_types: Vec::new(),
            max_matches: 1000,
            min_matches: 0,
            default_match: String::new(),
        }
    }

    fn row(fields: &[(&str, &str)]) -> Row {
        Row::from_fields(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), Value::Str(v.to_string()))),
        )
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn exact_case_multi_match_and_output_modes() {
        let t = Arc::new(parse("uid,name,dept\nu1,Ann,ops\nU2,Bob,dev\nu1,Ann2,\n"));
        let m = Matcher::new(&def(), t.clone(), &pairs(&[("uid", "user")]), &[], false).unwrap();
        let mut r = row(&[("user", "u1"), ("name", "old")]);
        m.apply(&mut r);
        assert_eq!(
            r.peek("name"),
            Some(&Value::Multi(vec![
                Value::Str("Ann".into()),
                Value::Str("Ann2".into())
            ]))
        );
        assert_eq!(r.peek("dept"), Some(&Value::Str("ops".into())));
        // OUTPUT: a miss removes the output fields; case matters by default.
        let mut miss = row(&[("user", "u2"), ("name", "old")]);
        m.apply(&mut miss);
        assert_eq!(miss.peek("name"), None);
        let mut ci = def();
        ci.case_sensitive = false;
        let m = Matcher::new(
            &ci,
            t.clone(),
            &pairs(&[("uid", "user")]),
            &pairs(&[("name", "n")]),
            true,
        )
        .unwrap();
        let mut r = row(&[("user", "u2")]);
        m.apply(&mut r);
        assert_eq!(r.peek("n"), Some(&Value::Str("Bob".into())));
        let mut kept = row(&[("user", "u2"), ("n", "mine")]);
        m.apply(&mut kept);
        assert_eq!(kept.peek("n"), Some(&Value::Str("mine".into())));
        assert!(Matcher::new(&def(), t, &pairs(&[("nope", "x")]), &[], false).is_err());
    }

    #[test]
    fn wildcard_cidr_max_and_default() {
        let t = Arc::new(parse(
            "net,pat,label\n10.0.0.0/8,*,ten\n10.1.0.0/16,web*,web\n0.0.0.0/0,*,any\n",
        ));
        let mut d = def();
        d.match_types = vec![
            ("net".into(), MatchType::Cidr),
            ("pat".into(), MatchType::Wildcard),
        ];
        d.max_matches = 2;
        let m = Matcher::new(
            &d,
            t.clone(),
            &pairs(&[("net", "ip"), ("pat", "host")]),
            &pairs(&[("label", "label")]),
            false,
        )
        .unwrap();
        let mut r = row(&[("ip", "10.1.2.3"), ("host", "web01")]);
        m.apply(&mut r);
        assert_eq!(
            r.peek("label"),
            Some(&Value::Multi(vec![
                Value::Str("ten".into()),
                Value::Str("web".into())
            ]))
        );
        d.match_types.truncate(1);
        d.min_matches = 1;
        d.default_match = "unknown".into();
        let m = Matcher::new(
            &d,
            t,
            &pairs(&[("pat", "host")]),
            &pairs(&[("label", "l")]),
            false,
        )
        .unwrap();
        let mut r = row(&[("host", "db01")]);
        m.apply(&mut r);
        assert_eq!(r.peek("l"), Some(&Value::Str("unknown".into())));
    }
}
