//! JSON extraction (`KV_MODE=json`): every leaf becomes a field named by its path, objects joined
//! with `.` and arrays marked `{}` (`a.b`, `tags{}`, `items{}.id`). A path reached several times
//! (through arrays, or a dotted key colliding with a nested path) becomes a multivalue field:
//! array elements in document order, object members in key order (serde_json's sorted map).
//! Leaves are strings as Splunk keeps them: numbers as written, `true`/`false`, `null`.

use crate::value::Value;
use serde_json::Value as Json;

/// Parses `raw` as JSON and appends its fields to `out` (existing names are not replaced; new
/// values for a path seen in this document are added as further values). Returns false when
/// `raw` is not a JSON object or array, leaving `out` untouched.
pub fn extract(raw: &str, out: &mut Vec<(String, Value)>) -> bool {
    let Ok(doc) = serde_json::from_str::<Json>(raw.trim()) else {
        return false;
    };
    if !(doc.is_object() || doc.is_array()) {
        return false;
    }
    let before = out.len();
    let mut path = String::new();
    walk(&doc, &mut path, out, before);
    true
}

/// Depth-first walk; `path` is the current prefix (reused buffer), `fresh` the index of the first
/// field this document added (only those may gain further values).
fn walk(v: &Json, path: &mut String, out: &mut Vec<(String, Value)>, fresh: usize) {
    match v {
        Json::Object(map) => {
            for (k, child) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(child, path, out, fresh);
                path.truncate(len);
            }
        }
        Json::Array(items) => {
            let len = path.len();
            path.push_str("{}");
            for child in items {
                walk(child, path, out, fresh);
            }
            path.truncate(len);
        }
        leaf => {
            let text = match leaf {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            add(out, path, Value::Str(text), fresh);
        }
    }
}

fn add(out: &mut Vec<(String, Value)>, name: &str, v: Value, fresh: usize) {
    if let Some(pos) = out.iter().position(|(n, _)| n == name) {
        if pos < fresh {
            return;
        }
        let slot = &mut out[pos].1;
        match slot {
            Value::Multi(vals) => vals.push(v),
            other => {
                let first = std::mem::replace(other, Value::Null);
                *other = Value::Multi(vec![first, v]);
            }
        }
    } else {
        out.push((name.to_string(), v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.to_string())
    }

    fn get<'a>(out: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
        out.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    #[test]
    fn nested_objects_and_arrays() {
        let mut out = Vec::new();
        let raw = r#"{"a":{"b":{"c":1.50}},"tags":["x","y"],"items":[{"id":1},{"id":2}],"ok":true,"n":null}"#;
        assert!(extract(raw, &mut out));
        assert_eq!(get(&out, "a.b.c"), Some(&s("1.5")));
        assert_eq!(
            get(&out, "tags{}"),
            Some(&Value::Multi(vec![s("x"), s("y")]))
        );
        assert_eq!(
            get(&out, "items{}.id"),
            Some(&Value::Multi(vec![s("1"), s("2")]))
        );
        assert_eq!(get(&out, "ok"), Some(&s("true")));
        assert_eq!(get(&out, "n"), Some(&s("null")));
    }

    #[test]
    fn existing_fields_win() {
        let mut out = vec![("host".to_string(), s("h1"))];
        assert!(extract(r#"{"host":"h2","x":"1"}"#, &mut out));
        assert_eq!(get(&out, "host"), Some(&s("h1")));
        assert_eq!(get(&out, "x"), Some(&s("1")));
    }

    #[test]
    fn not_json() {
        let mut out = Vec::new();
        assert!(!extract("{oops", &mut out));
        assert!(!extract("42", &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn top_level_array_duplicates_and_dotted_keys() {
        let mut out = Vec::new();
        assert!(extract(r#"[{"a":1},{"a":2}]"#, &mut out));
        assert_eq!(get(&out, "{}.a"), Some(&Value::Multi(vec![s("1"), s("2")])));
        out.clear();
        assert!(extract(
            r#"{"a.b":"x","a":{"b":"y"},"e":[],"o":{}}"#,
            &mut out
        ));
        // Key order: "a" sorts before "a.b".
        assert_eq!(get(&out, "a.b"), Some(&Value::Multi(vec![s("y"), s("x")])));
        assert_eq!(get(&out, "e{}"), None);
        out.clear();
        assert!(extract(r#"{"m":[[1,2],[3]]}"#, &mut out));
        assert_eq!(
            get(&out, "m{}{}"),
            Some(&Value::Multi(vec![s("1"), s("2"), s("3")]))
        );
    }
}
