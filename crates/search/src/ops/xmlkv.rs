//! `xmlkv`: every innermost element `<key …>value</key>` of `_raw` (its text holding no `<`)
//! becomes the field `key` = value; a key met several times gives a multivalue. Fields already
//! present are kept.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use regex::Regex;

/// Extracts XML leaf elements.
pub struct XmlKvOp {
    re: Regex,
}

impl XmlKvOp {
    /// The element pattern.
    pub fn new() -> XmlKvOp {
        XmlKvOp {
            re: Regex::new(r"<([A-Za-z_][\w.:-]*)(?:\s[^<>]*)?>([^<]*)</([A-Za-z_][\w.:-]*)\s*>")
                .expect("a valid pattern"),
        }
    }
}

impl Op for XmlKvOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            let Some(raw) = r.get("_raw").map(|v| v.as_str().into_owned()) else {
                continue;
            };
            let mut found: Vec<(String, Vec<Value>)> = Vec::new();
            for c in self.re.captures_iter(&raw) {
                if c[1] != c[3] {
                    continue;
                }
                let v = Value::Str(c[2].trim().to_string());
                match found.iter_mut().find(|(k, _)| *k == c[1]) {
                    Some((_, vals)) => vals.push(v),
                    None => found.push((c[1].to_string(), vec![v])),
                }
            }
            for (k, vals) in found {
                if r.get(&k).is_none() {
                    r.set(&k, Value::from_values(vals));
                }
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::strs;

    #[test]
    fn leaf_elements() {
        let raw = r#"<ev><user id="3">bob</user><code>7</code><code>8</code><x><y>z</y></x></ev>"#;
        let rows = vec![Row::from_fields([(
            "_raw".to_string(),
            Value::Str(raw.into()),
        )])];
        let mut out = Vec::new();
        XmlKvOp::new().push(rows, &mut out).unwrap();
        assert_eq!(strs(&out, "user"), vec!["bob"]);
        assert_eq!(strs(&out, "code"), vec!["7\n8"]);
        assert_eq!(strs(&out, "y"), vec!["z"]);
        assert!(out[0].peek("ev").is_none());
    }
}
