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

/// Whether [`extract`] surely gives `raw` no field `name`, told without parsing: `name` is all
/// ASCII letters and digits, `raw` holds no backslash, and no occurrence of `name` in `raw` can
/// give the field. Such a name can only be a JSON top-level key or a `key=value` key written
/// exactly so (nested JSON paths hold `.` or `{}`, sanitised `key=value` keys hold `_` where the
/// text had another byte), and only a JSON escape could spell a key without its bytes. So an
/// occurrence can give the field only when `=` follows it (a `key=value` pair), or when it is the
/// JSON string `"name"` followed by `:` and a value that is neither an object nor an array (those
/// give `name.…` and `name{}` fields, never `name`; without backslashes every `"` of a valid
/// document delimits a string, so `"name"` there is that string). A JSON scan costs ~17
/// instructions a byte; this, well under one. Naive twin: [`extract`] (the property test).
pub fn surely_absent(raw: &str, name: &str) -> bool {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let b = raw.as_bytes();
    if memchr::memchr(b'\\', b).is_some() {
        return false;
    }
    // A search asks for the same few names event after event: keep the last name's searcher
    // (building one costs more than searching a short event).
    FINDER.with(|cell| {
        let mut cached = cell.borrow_mut();
        if cached
            .as_ref()
            .is_none_or(|f| f.needle() != name.as_bytes())
        {
            *cached = Some(memchr::memmem::Finder::new(name).into_owned());
        }
        cached
            .as_ref()
            .is_some_and(|f| f.find_iter(b).all(|at| cannot_give(b, at, at + name.len())))
    })
}

/// Whether the occurrence of a name at `b[at..end]` (in text without backslashes) surely gives
/// no field of that name: no `=` follows it, and it is not a JSON key `"name":` whose value
/// could be a leaf.
fn cannot_give(b: &[u8], at: usize, end: usize) -> bool {
    let next = b.get(end).copied();
    if next == Some(b'=') {
        return false;
    }
    if at == 0 || b[at - 1] != b'"' || next != Some(b'"') {
        return true;
    }
    let colon = json::skip_ws(b, end + 1);
    if b.get(colon) != Some(&b':') {
        // A string value, not a key.
        return true;
    }
    matches!(b.get(json::skip_ws(b, colon + 1)), Some(b'[' | b'{'))
}

thread_local! {
    static FINDER: std::cell::RefCell<Option<memchr::memmem::Finder<'static>>> =
        const { std::cell::RefCell::new(None) };
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

    proptest::proptest! {
        /// `surely_absent` never hides a field `extract` gives: random text over the bytes of
        /// both grammars, and JSON objects and `key=value` pairs whose keys are near the names
        /// asked.
        #[test]
        fn surely_absent_is_never_wrong(
            text in r#"[ab_A.\-=:,{}\[\]" \\u0-9]{0,30}"#,
            members in proptest::collection::vec((
                proptest::sample::select(vec!["a", "b", "ab", "A", "a.b", "a-b", "a_b", "a\\u0062", "ba"]),
                proptest::sample::select(vec![
                    "1", "\"x\"", "\"a\"", "\"ab\"", "{\"b\":2}", "[3,{\"a\":4}]", "[\"a\"]", "[]",
                    "{}", "null",
                ]),
                proptest::sample::select(vec![":", " : ", ":\n", "\t:\r"]),
            ), 0..4),
            name in proptest::sample::select(vec!["a", "b", "ab", "A", "B", "ba", "a_b", "ab1"]),
            st in proptest::sample::select(vec!["_json", "syslog"]),
        ) {
            let obj: Vec<String> =
                members.iter().map(|(k, v, colon)| format!("\"{k}\"{colon}{v}")).collect();
            let obj = format!("{{{}}}", obj.join(","));
            let pairs: Vec<String> = members.iter().map(|(k, v, _)| format!("{k}={v}")).collect();
            let pairs = pairs.join(" ");
            for raw in [text.as_str(), obj.as_str(), pairs.as_str()] {
                if surely_absent(raw, name) {
                    let mut out = Vec::new();
                    extract(raw, st, &mut out);
                    proptest::prop_assert!(
                        !out.iter().any(|(n, _)| n == name),
                        "{name} in {raw:?}: {out:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn surely_absent_answers() {
        // Keys holding containers give `tags{}` and `tags.a`, never `tags`.
        for raw in [
            r#"{"tags":["x"],"a":1}"#,
            r#"{"tags" : {"a":1}, "msg":"tags"}"#,
            r#"{"mytags":1,"tagsx":2}"#,
            "no such name",
        ] {
            assert!(surely_absent(raw, "tags"), "{raw}");
        }
        for raw in [
            r#"{"tags":"x"}"#,
            r#"{"tags":["x"],"tags":1}"#,
            r#"{"tags":null}"#,
            "a tags=1",
            r#"{"msg":"\u0074ags"}"#,
        ] {
            assert!(!surely_absent(raw, "tags"), "{raw}");
        }
        assert!(!surely_absent(r#"{"a.b":1}"#, "a.b"));
    }

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
