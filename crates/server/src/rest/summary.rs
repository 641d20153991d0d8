//! A job's `summary` (per field: how many rows have it, distinct values, numeric range, the most
//! common values) and `timeline` (rows per time bucket), computed from its stored rows.

use std::collections::HashMap;
use std::fmt::Write;

use crate::format::Cell;

use super::atom::escape;
use super::output::Fields;

/// One field's figures.
#[derive(Debug, Default)]
struct FieldSummary {
    count: u64,
    numeric: u64,
    min: Option<f64>,
    max: Option<f64>,
    sum: f64,
    values: HashMap<String, u64>,
}

/// The summary of `rows` (`top` most common values per field) as Splunk's XML or as JSON.
pub fn summary(rows: &[Fields], top: usize, json: bool) -> String {
    let mut order: Vec<String> = Vec::new();
    let mut fields: HashMap<String, FieldSummary> = HashMap::new();
    for r in rows {
        for (k, c) in r {
            let f = fields.entry(k.clone()).or_insert_with(|| {
                order.push(k.clone());
                FieldSummary::default()
            });
            f.count += 1;
            let values: Vec<&str> = match c {
                Cell::One(s) => vec![s.as_str()],
                Cell::Many(v) => v.iter().map(String::as_str).collect(),
            };
            for v in values {
                *f.values.entry(v.to_string()).or_default() += 1;
                if let Ok(x) = v.trim().parse::<f64>() {
                    f.numeric += 1;
                    f.sum += x;
                    f.min = Some(f.min.map_or(x, |m| m.min(x)));
                    f.max = Some(f.max.map_or(x, |m| m.max(x)));
                }
            }
        }
    }
    let modes = |f: &FieldSummary| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = f.values.iter().map(|(k, n)| (k.clone(), *n)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(top);
        v
    };
    if json {
        let mut out = serde_json::Map::new();
        for k in &order {
            let f = &fields[k];
            let mut o = serde_json::json!({
                "count": f.count, "distinct_count": f.values.len(), "is_exact": true,
                "numeric_count": f.numeric,
                "modes": modes(f).into_iter()
                    .map(|(v, n)| serde_json::json!({"value": v, "count": n, "is_exact": true}))
                    .collect::<Vec<_>>(),
            });
            if f.numeric > 0 {
                o["min"] = f.min.unwrap_or_default().into();
                o["max"] = f.max.unwrap_or_default().into();
                o["mean"] = (f.sum / f.numeric as f64).into();
            }
            out.insert(k.clone(), o);
        }
        return serde_json::json!({"event_count": rows.len(), "fields": out}).to_string();
    }
    let mut out = format!(
        "<?xml version='1.0' encoding='UTF-8'?>\n<summary c=\"{}\">\n",
        rows.len()
    );
    for k in &order {
        let f = &fields[k];
        let _ = writeln!(
            out,
            "<field k=\"{}\" c=\"{}\" nc=\"{}\" dc=\"{}\" exact=\"1\">",
            escape(k),
            f.count,
            f.numeric,
            f.values.len()
        );
        if f.numeric > 0 {
            let _ = writeln!(
                out,
                "<min>{}</min><max>{}</max><mean>{}</mean>",
                f.min.unwrap_or_default(),
                f.max.unwrap_or_default(),
                f.sum / f.numeric as f64
            );
        }
        out.push_str("<modes>\n");
        for (v, n) in modes(f) {
            let _ = writeln!(
                out,
                "<value c=\"{n}\" exact=\"1\"><text>{}</text></value>",
                escape(&v)
            );
        }
        out.push_str("</modes>\n</field>\n");
    }
    out.push_str("</summary>\n");
    out
}

/// Rows per time bucket (`_time` of each row), in buckets sized to give at most ~100 of them.
pub fn timeline(rows: &[Fields], json: bool) -> String {
    let mut times: Vec<i64> = rows
        .iter()
        .filter_map(|r| r.iter().find(|(k, _)| k == "_time"))
        .filter_map(|(_, c)| match c {
            Cell::One(s) => chrono::DateTime::parse_from_rfc3339(s).ok(),
            Cell::Many(_) => None,
        })
        .map(|t| t.timestamp())
        .collect();
    times.sort_unstable();
    let span = match (times.first(), times.last()) {
        (Some(a), Some(b)) => {
            let range = (b - a).max(1);
            [1, 10, 60, 300, 600, 1800, 3600, 86400, 604_800, 2_592_000]
                .into_iter()
                .find(|s| range / s < 100)
                .unwrap_or(31_536_000)
        }
        _ => 1,
    };
    let mut buckets: Vec<(i64, u64)> = Vec::new();
    for t in times {
        let start = t - t.rem_euclid(span);
        match buckets.last_mut() {
            Some((s, n)) if *s == start => *n += 1,
            _ => buckets.push((start, 1)),
        }
    }
    if json {
        let b: Vec<serde_json::Value> = buckets
            .iter()
            .map(|(a, c)| serde_json::json!({"earliest_time": a, "duration": span, "total_count": c}))
            .collect();
        return serde_json::json!({"event_count": rows.len(), "buckets": b}).to_string();
    }
    let mut out = format!(
        "<?xml version='1.0' encoding='UTF-8'?>\n<timeline c=\"{}\">\n",
        rows.len()
    );
    for (a, c) in buckets {
        let iso = crate::format::format_time(a as f64);
        let _ = writeln!(
            out,
            "<bucket c=\"{c}\" a=\"{a}\" d=\"{span}\" t=\"{a}\" f=\"1\">{iso}</bucket>"
        );
    }
    out.push_str("</timeline>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Fields> {
        (0..5)
            .map(|i| {
                vec![
                    (
                        "_time".to_string(),
                        Cell::One(format!("2024-01-01T00:0{i}:00.000+00:00")),
                    ),
                    ("host".to_string(), Cell::One(format!("h{}", i % 2))),
                    ("n".to_string(), Cell::One(i.to_string())),
                ]
            })
            .collect()
    }

    #[test]
    fn summary_counts_and_modes() {
        let j: serde_json::Value = serde_json::from_str(&summary(&rows(), 10, true)).unwrap();
        assert_eq!(j["fields"]["host"]["distinct_count"], 2);
        assert_eq!(j["fields"]["host"]["modes"][0]["value"], "h0");
        assert_eq!(j["fields"]["host"]["modes"][0]["count"], 3);
        assert_eq!(j["fields"]["n"]["max"], 4.0);
        let x = summary(&rows(), 1, false);
        assert!(
            x.contains("<field k=\"host\" c=\"5\" nc=\"0\" dc=\"2\" exact=\"1\">"),
            "{x}"
        );
    }

    #[test]
    fn timeline_buckets_by_minute() {
        let j: serde_json::Value = serde_json::from_str(&timeline(&rows(), true)).unwrap();
        assert_eq!(j["buckets"].as_array().unwrap().len(), 5);
        assert_eq!(j["buckets"][0]["duration"], 10);
        let x = timeline(&rows(), false);
        assert!(
            x.starts_with("<?xml") && x.contains("<bucket c=\"1\""),
            "{x}"
        );
    }
}
