//! Multivalue functions: `mvcount`, `mvindex`, `mvjoin`, `mvappend`, `mvdedup`, `mvsort`,
//! `mvfind`, `mvzip`, `mvrange`, `split`. (`mvfilter` and `mvmap` evaluate an expression per
//! value: see `lazy.rs`.)

use super::pattern::Cache;
use super::EvalCtx;
use crate::error::SearchError;
use crate::value::Value;

/// Most values `mvrange` makes (a larger range is an error naming this limit).
pub const MAX_RANGE: usize = 10_000;

/// Calls the multivalue function `name`, or returns `None` if it is not one of them.
pub fn call(
    name: &str,
    v: &[Value],
    patterns: &mut Cache,
    ctx: EvalCtx,
) -> Option<Result<Value, SearchError>> {
    Some(Ok(match name {
        "mvfind" => {
            if v[0].is_null() || v[1].is_null() {
                return Some(Ok(Value::Null));
            }
            let re = match patterns.regex(&v[1].as_str()) {
                Ok(re) => re,
                Err(e) => return Some(Err(e)),
            };
            v[0].iter_values()
                .position(|x| re.is_match(&x.as_str()))
                .map(|i| Value::Num(i as f64))
                .unwrap_or(Value::Null)
        }
        "mvzip" => {
            if v[0].is_null() || v[1].is_null() || v.get(2).is_some_and(Value::is_null) {
                return Some(Ok(Value::Null));
            }
            let delim = v.get(2).map(|d| d.as_str()).unwrap_or(",".into());
            Value::from_values(
                v[0].iter_values()
                    .zip(v[1].iter_values())
                    .map(|(a, b)| Value::Str(format!("{}{delim}{}", a.as_str(), b.as_str())))
                    .collect(),
            )
        }
        "mvrange" => return Some(mvrange(v, ctx)),
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

/// `mvrange(start, end[, step])`: `start`, `start+step`, … while before `end` (exclusive); the
/// step is a number (default 1; negative counts down) or a time span such as `7d` or `1mon`
/// applied to `start` as epoch seconds. Non-numeric bounds or a zero step give null.
fn mvrange(v: &[Value], ctx: EvalCtx) -> Result<Value, SearchError> {
    let (Some(start), Some(end)) = (v[0].to_num(), v[1].to_num()) else {
        return Ok(Value::Null);
    };
    let too_many = || {
        SearchError::User(format!(
            "mvrange: the range has more than {MAX_RANGE} values (the limit of mvrange)"
        ))
    };
    let mut out = Vec::new();
    match v.get(2) {
        None => range_num(start, end, 1.0, &mut out).ok_or_else(too_many)?,
        Some(Value::Null) => return Ok(Value::Null),
        Some(step) => match step.to_num() {
            Some(s) if s == 0.0 || !s.is_finite() => return Ok(Value::Null),
            Some(s) => range_num(start, end, s, &mut out).ok_or_else(too_many)?,
            None => {
                let span = step.as_str();
                let span = span.trim();
                if span.starts_with('-') || span.contains('@') {
                    return Err(SearchError::User(format!(
                        "mvrange: the step {span:?} must be a number or a positive span such as 7d"
                    )));
                }
                let mut t = (start * 1e6).round() as i64;
                let end = (end * 1e6).round() as i64;
                while t < end {
                    if out.len() >= MAX_RANGE {
                        return Err(too_many());
                    }
                    out.push(Value::Num(t as f64 / 1e6));
                    let next = lode_time::relative::resolve(&format!("+{span}"), t, ctx.tz)
                        .map_err(|e| SearchError::User(format!("mvrange: {e}")))?;
                    if next <= t {
                        break;
                    }
                    t = next;
                }
            }
        },
    }
    Ok(Value::from_values(out))
}

/// Pushes `start`, `start+step`, … before `end`; `None` past [`MAX_RANGE`] values.
fn range_num(start: f64, end: f64, step: f64, out: &mut Vec<Value>) -> Option<()> {
    let mut i = 0.0;
    loop {
        let x = start + i * step;
        if (step > 0.0 && x >= end) || (step < 0.0 && x <= end) {
            return Some(());
        }
        if out.len() >= MAX_RANGE {
            return None;
        }
        out.push(Value::Num(x));
        i += 1.0;
    }
}
