//! Multivalue functions: `mvcount`, `mvindex`, `mvjoin`, `mvappend`, `mvdedup`, `mvsort`,
//! `split`.

use crate::error::SearchError;
use crate::value::Value;

/// Calls the multivalue function `name`, or returns `None` if it is not one of them.
pub fn call(name: &str, v: &[Value]) -> Option<Result<Value, SearchError>> {
    Some(Ok(match name {
        "mvcount" => match &v[0] {
            Value::Null => Value::Null,
            Value::Multi(x) => Value::Num(x.len() as f64),
            _ => Value::Num(1.0),
        },
        "mvindex" => mvindex(v),
        "mvjoin" => {
            if v[0].is_null() {
                return Some(Ok(Value::Null));
            }
            let delim = v[1].as_str();
            let parts: Vec<String> = v[0]
                .iter_values()
                .map(|x| x.as_str().into_owned())
                .collect();
            Value::Str(parts.join(&delim))
        }
        "mvappend" => Value::from_values(v.iter().flat_map(|x| x.iter_values()).cloned().collect()),
        "mvdedup" => {
            let mut out: Vec<Value> = Vec::new();
            for x in v[0].iter_values() {
                if !out.contains(x) {
                    out.push(x.clone());
                }
            }
            Value::from_values(out)
        }
        "mvsort" => {
            let mut out: Vec<Value> = v[0].iter_values().cloned().collect();
            out.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            Value::from_values(out)
        }
        "split" => {
            if v[0].is_null() || v[1].is_null() {
                return Some(Ok(Value::Null));
            }
            let s = v[0].as_str();
            let d = v[1].as_str();
            let parts: Vec<Value> = if d.is_empty() {
                s.chars().map(|c| Value::Str(c.to_string())).collect()
            } else {
                s.split(d.as_ref())
                    .map(|p| Value::Str(p.to_string()))
                    .collect()
            };
            Value::from_values(parts)
        }
        _ => return None,
    }))
}

/// `mvindex(mv, start[, end])`: 0-based, negative from the end, `end` inclusive.
fn mvindex(v: &[Value]) -> Value {
    let vals: Vec<&Value> = v[0].iter_values().collect();
    let n = vals.len() as i64;
    let norm = |x: &Value| {
        x.to_num().map(|i| {
            let i = i.trunc() as i64;
            if i < 0 {
                n + i
            } else {
                i
            }
        })
    };
    let Some(start) = norm(&v[1]) else {
        return Value::Null;
    };
    let end = match v.get(2) {
        Some(e) => match norm(e) {
            Some(e) => e.min(n - 1),
            None => return Value::Null,
        },
        None => start,
    };
    if start < 0 || start >= n || end < start {
        return Value::Null;
    }
    Value::from_values(
        vals[start as usize..=end as usize]
            .iter()
            .map(|x| (*x).clone())
            .collect(),
    )
}
