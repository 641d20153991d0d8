//! `makeresults [count=N] [annotate=t]`: N rows holding `_time` = the search start (whole
//! seconds); `annotate=t` adds `splunk_server` (Splunk's other annotation fields are null, and
//! Lode rows hold no null fields).
//!
//! `makeresults format=csv|json data="…"`: one row per CSV record (after the header line) or
//! JSON object (`[{…}, …]` or a single `{…}`), `count` ignored. Each row gets `_time` = the
//! search start unless the data sets `_time`; empty CSV cells and JSON nulls give no field, a
//! JSON array a multivalue, a nested object its JSON text.

use crate::ops::Limits;
use crate::row::Row;
use crate::value::Value;
use crate::SearchError;
use lode_event::Micros;
use lode_spl::ast::data::InlineData;
use serde_json::Value as Json;

/// The rows of `makeresults`.
pub fn rows(
    count: u64,
    annotate: bool,
    now: Micros,
    limits: Limits,
) -> Result<Vec<Row>, SearchError> {
    if count > limits.max_sort_rows as u64 {
        return Err(SearchError::Limit(format!(
            "makeresults: count={count} is more than max_sort_rows={}; lower the count or raise the limit",
            limits.max_sort_rows
        )));
    }
    let time = Value::Num(now.div_euclid(1_000_000) as f64);
    let row = if annotate {
        Row::from_fields([
            ("_time".to_string(), time),
            ("splunk_server".to_string(), Value::Str("lode".into())),
        ])
    } else {
        Row::from_fields([("_time".to_string(), time)])
    };
    Ok(vec![row; count as usize])
}

fn data_error(msg: String) -> SearchError {
    SearchError::User(format!("Error in 'makeresults' command: {msg}"))
}

/// The rows of `makeresults format=… data=…`.
pub fn data_rows(
    d: &InlineData,
    annotate: bool,
    now: Micros,
    limits: Limits,
) -> Result<Vec<Row>, SearchError> {
    let mut rows: Vec<Vec<(String, Value)>> = Vec::new();
    if d.json {
        let doc: Json = serde_json::from_str(d.text.trim())
            .map_err(|e| data_error(format!("the data is not valid JSON: {e}.")))?;
        let objects = match doc {
            Json::Array(items) => items,
            obj @ Json::Object(_) => vec![obj],
            _ => {
                return Err(data_error(
                    "JSON data must be an object or an array of objects.".into(),
                ))
            }
        };
        for o in objects {
            let Json::Object(map) = o else {
                return Err(data_error(
                    "JSON data must be an object or an array of objects.".into(),
                ));
            };
            rows.push(
                map.into_iter()
                    .filter_map(|(k, v)| json_value(v).map(|v| (k, v)))
                    .collect(),
            );
        }
    } else {
        let table = crate::lookup::csv::parse(d.text.trim_start_matches(['\r', '\n']));
        for cells in table.rows {
            rows.push(
                table
                    .header
                    .iter()
                    .zip(cells)
                    .filter(|(_, c)| !c.is_empty())
                    .map(|(h, c)| (h.clone(), Value::Str(c)))
                    .collect(),
            );
        }
    }
    if rows.len() > limits.max_sort_rows {
        return Err(SearchError::Limit(format!(
            "makeresults: {} rows of data are more than max_sort_rows={}; send fewer rows or raise the limit",
            rows.len(),
            limits.max_sort_rows
        )));
    }
    let time = Value::Num(now.div_euclid(1_000_000) as f64);
    Ok(rows
        .into_iter()
        .map(|fields| {
            let mut row = Row::from_fields(fields);
            if row.peek("_time").is_none() {
                row.set("_time", time.clone());
            }
            if annotate && row.peek("splunk_server").is_none() {
                row.set("splunk_server", Value::Str("lode".into()));
            }
            row
        })
        .collect())
}

/// A JSON value as a field value: scalars as text or numbers, arrays as multivalues (of their
/// non-null items), objects as JSON text, null as no value.
fn json_value(v: Json) -> Option<Value> {
    match v {
        Json::Null => None,
        Json::Bool(b) => Some(Value::Str(b.to_string())),
        Json::Number(n) => Some(
            n.as_f64()
                .map_or_else(|| Value::Str(n.to_string()), Value::Num),
        ),
        Json::String(s) => Some(Value::Str(s)),
        Json::Array(items) => {
            let vals: Vec<Value> = items.into_iter().filter_map(json_value).collect();
            (!vals.is_empty()).then(|| Value::from_values(vals))
        }
        obj @ Json::Object(_) => Some(Value::Str(obj.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[Row], f: &str) -> Vec<String> {
        rows.iter()
            .map(|r| r.peek(f).map(|v| v.to_string()).unwrap_or_default())
            .collect()
    }

    #[test]
    fn csv_and_json_data() {
        let lim = Limits::default();
        let csv = InlineData {
            json: false,
            text: "name,age\nAnna,22\n\"Bo, b\",\n".into(),
        };
        let rows = data_rows(&csv, false, 5_000_000, lim).unwrap();
        assert_eq!(texts(&rows, "name"), ["Anna", "Bo, b"]);
        assert_eq!(texts(&rows, "age"), ["22", ""]);
        assert_eq!(texts(&rows, "_time"), ["5", "5"]);
        let json = InlineData {
            json: true,
            text:
                r#"[{"a": 1, "b": [1, "x"], "c": {"d": null}, "e": null, "_time": 7}, {"a": "z"}]"#
                    .into(),
        };
        let rows = data_rows(&json, true, 5_000_000, lim).unwrap();
        assert_eq!(texts(&rows, "a"), ["1", "z"]);
        assert_eq!(texts(&rows, "b"), ["1\nx", ""]);
        assert_eq!(texts(&rows, "c"), [r#"{"d":null}"#, ""]);
        assert_eq!(texts(&rows, "e"), ["", ""]);
        assert_eq!(texts(&rows, "_time"), ["7", "5"]);
        assert_eq!(texts(&rows, "splunk_server"), ["lode", "lode"]);
        for bad in ["[1]", "3", "{"] {
            let d = InlineData {
                json: true,
                text: bad.into(),
            };
            let e = data_rows(&d, false, 0, lim).unwrap_err().to_string();
            assert!(e.contains("Error in 'makeresults' command"), "{e}");
        }
    }
}
