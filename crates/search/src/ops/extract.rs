//! `extract`/`kv [pairdelim=s] [kvdelim=s]`: `key=value` pairs of `_raw` as fields. Without
//! delimiters this is the automatic extraction every event gets anyway. With them, `_raw` is
//! split at any character of `pairdelim` (default: white space), each piece at the first
//! character of `kvdelim` (default `=`); keys and values are trimmed, and a field already present
//! is kept.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Extracts key/value pairs.
pub struct ExtractOp {
    /// `(pairdelim, kvdelim)` when either is given.
    delims: Option<(Vec<char>, Vec<char>)>,
}

impl ExtractOp {
    /// `extract` options.
    pub fn new(pairdelim: Option<&str>, kvdelim: Option<&str>) -> ExtractOp {
        let delims = (pairdelim.is_some() || kvdelim.is_some()).then(|| {
            (
                pairdelim.map_or_else(|| vec![' ', '\t', '\n'], |p| p.chars().collect()),
                kvdelim.map_or_else(|| vec!['='], |k| k.chars().collect()),
            )
        });
        ExtractOp { delims }
    }
}

impl Op for ExtractOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            r.extract_all();
            let Some((pd, kd)) = &self.delims else {
                continue;
            };
            let Some(raw) = r.peek("_raw").map(|v| v.as_str().into_owned()) else {
                continue;
            };
            for piece in raw.split(|c| pd.contains(&c)) {
                let Some((k, v)) = piece.split_once(|c| kd.contains(&c)) else {
                    continue;
                };
                let (k, v) = (k.trim(), v.trim());
                if !k.is_empty() && r.peek(k).is_none() {
                    r.set(k, Value::Str(v.to_string()));
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
    fn custom_delimiters() {
        let rows = vec![Row::from_fields([(
            "_raw".to_string(),
            Value::Str("a: 1|b :two words| c|:x|a:9".into()),
        )])];
        let mut out = Vec::new();
        ExtractOp::new(Some("|"), Some(":"))
            .push(rows, &mut out)
            .unwrap();
        assert_eq!(strs(&out, "a"), vec!["1"]);
        assert_eq!(strs(&out, "b"), vec!["two words"]);
        assert!(out[0].peek("c").is_none());
    }
}
