//! Result rows as JSON objects, the way Splunk's JSON results show them: every value a string,
//! multivalue fields as arrays of strings, `_time` as ISO 8601 with milliseconds and offset.

use lode_search::row::Row;
use lode_search::value::Value;

/// `_time` (seconds since the epoch) as Splunk prints it: `2026-01-01T00:00:00.000+00:00`.
pub fn format_time(secs: f64) -> String {
    let micros = (secs * 1e6).round() as i64;
    lode_time::strptime::strftime(micros, "%Y-%m-%dT%H:%M:%S.%3N%:z", lode_time::Zone::Utc)
}

/// One output value: a single string or a multivalue list.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A single value.
    One(String),
    /// A multivalue field.
    Many(Vec<String>),
}

impl Cell {
    /// The values joined with `sep`.
    pub fn joined(&self, sep: &str) -> String {
        match self {
            Cell::One(s) => s.clone(),
            Cell::Many(v) => v.join(sep),
        }
    }
}

/// The output cell of field `name` holding `v`; `None` for null.
pub fn cell(name: &str, v: &Value) -> Option<Cell> {
    match v {
        Value::Null => None,
        Value::Multi(items) => Some(Cell::Many(items.iter().map(|i| i.to_string()).collect())),
        Value::Num(n) if name == "_time" => Some(Cell::One(format_time(*n))),
        other => Some(Cell::One(other.to_string())),
    }
}

/// The row as a JSON object (all fields, search-time extractions included).
pub fn row_json(row: &mut Row) -> serde_json::Map<String, serde_json::Value> {
    row.extract_all();
    let mut obj = serde_json::Map::new();
    for (name, v) in row.fields() {
        match cell(name, v) {
            Some(Cell::One(s)) => {
                obj.insert(name.to_string(), s.into());
            }
            Some(Cell::Many(items)) => {
                obj.insert(name.to_string(), items.into());
            }
            None => {}
        }
    }
    obj
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_format() {
        assert_eq!(
            format_time(1_700_000_000.5),
            "2023-11-14T22:13:20.500+00:00"
        );
    }

    #[test]
    fn cells() {
        assert_eq!(cell("x", &Value::Null), None);
        assert_eq!(cell("n", &Value::Num(3.0)), Some(Cell::One("3".into())));
        assert_eq!(
            cell(
                "m",
                &Value::Multi(vec![Value::Str("a".into()), Value::Str("b".into())])
            ),
            Some(Cell::Many(vec!["a".into(), "b".into()]))
        );
    }
}
