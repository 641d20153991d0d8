//! Search-time field extraction from `_raw` (SPLUNK.md §3.3): automatic `key=value` pairs
//! ([`kv`]) and JSON paths ([`json`]). [`crate::row::Row`] calls [`extract`] at most once per
//! row, on the first lookup of a field the row does not have.

pub mod json;
pub mod kv;
pub mod xml;

use crate::value::Value;

/// Whether an event is extracted as JSON: its sourcetype says so, or its text starts with `{`.
pub fn is_json(raw: &str, sourcetype: &str) -> bool {
    sourcetype == "_json" || sourcetype == "json" || raw.trim_start().starts_with('{')
}

/// Appends the search-time fields of `raw` to `out` (first occurrence of a name wins). JSON
/// events that fail to parse as JSON fall back to key=value extraction.
pub fn extract(raw: &str, sourcetype: &str, out: &mut Vec<(String, Value)>) {
    if is_json(raw, sourcetype) && json::extract(raw, out) {
        return;
    }
    kv::extract(raw, |k, v| {
        if !out.iter().any(|(n, _)| n == k) {
            out.push((k.to_string(), Value::Str(v.to_string())));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_detection_and_fallback() {
        let mut out = Vec::new();
        extract(r#"{"a": 1}"#, "x", &mut out);
        assert_eq!(out, vec![("a".to_string(), Value::Str("1".into()))]);
        out.clear();
        extract("{broken a=2", "x", &mut out);
        assert_eq!(out, vec![("a".to_string(), Value::Str("2".into()))]);
        assert!(is_json("x", "_json"));
        assert!(!is_json("x=1", "syslog"));
    }
}

#[cfg(test)]
mod throughput {
    /// Prints the extraction rate over every loghub sample (a figure for the report; nothing is
    /// asserted about speed). Run with `cargo test -p lode-search --release -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn kv_extraction_rate() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");
        let mut lines = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "log") {
                let text = std::fs::read_to_string(e.path()).unwrap();
                lines.extend(text.lines().map(str::to_string));
            }
        }
        let bytes: usize = lines.iter().map(String::len).sum();
        let mut out = Vec::new();
        let start = std::time::Instant::now();
        let rounds = 20;
        let mut pairs = 0;
        for _ in 0..rounds {
            for l in &lines {
                out.clear();
                super::extract(l, "x", &mut out);
                pairs += out.len();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "kv+punct-free extraction: {} lines, {:.1} MB/s, {:.2} M events/s, {} pairs",
            lines.len(),
            (bytes * rounds) as f64 / secs / 1e6,
            (lines.len() * rounds) as f64 / secs / 1e6,
            pairs / rounds
        );
    }
}
