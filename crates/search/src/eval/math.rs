//! Numeric functions and conversions: `round`, `abs`, `floor`, `ceil(ing)`, `sqrt`, `pow`, `ln`,
//! `log`, `exp`, `pi`, `min`, `max`, `exact`, `tonumber`, `tostring`. Non-numeric input gives
//! null. (`random` lives on the evaluator, which owns its state.)

use crate::error::SearchError;
use crate::value::{cmp_auto, parse_num, Value};

/// Calls the numeric function `name`, or returns `None` if it is not one of them.
pub fn call(name: &str, v: &[Value]) -> Option<Result<Value, SearchError>> {
    let num = |i: usize| v.get(i).and_then(Value::to_num);
    let out = |x: Option<f64>| {
        Some(Ok(x
            .filter(|n| n.is_finite())
            .map(Value::Num)
            .unwrap_or(Value::Null)))
    };
    match name {
        "pi" => out(Some(std::f64::consts::PI)),
        "abs" => out(num(0).map(f64::abs)),
        // Numbers are already kept and printed at full double precision.
        "exact" => out(num(0)),
        "floor" => out(num(0).map(f64::floor)),
        "ceil" | "ceiling" => out(num(0).map(f64::ceil)),
        "sqrt" => out(num(0).filter(|x| *x >= 0.0).map(f64::sqrt)),
        "exp" => out(num(0).map(f64::exp)),
        "ln" => out(num(0).filter(|x| *x > 0.0).map(f64::ln)),
        "log" => {
            let base = if v.len() > 1 { num(1) } else { Some(10.0) };
            out(num(0)
                .zip(base)
                .filter(|(x, b)| *x > 0.0 && *b > 0.0)
                .map(|(x, b)| x.log(b)))
        }
        "pow" => out(num(0).zip(num(1)).map(|(x, y)| x.powf(y))),
        "round" => {
            let digits = if v.len() > 1 { num(1) } else { Some(0.0) };
            out(num(0).zip(digits).map(|(x, d)| round(x, d as i32)))
        }
        "min" | "max" => {
            let vals: Vec<&Value> = v.iter().flat_map(|x| x.iter_values()).collect();
            let pick = if name == "min" {
                vals.into_iter().min_by(|a, b| cmp_auto(a, b))
            } else {
                vals.into_iter().max_by(|a, b| cmp_auto(a, b))
            };
            Some(Ok(pick.cloned().unwrap_or(Value::Null)))
        }
        "tonumber" => Some(tonumber(v)),
        "tostring" => Some(tostring(v)),
        _ => None,
    }
}

/// Rounds half away from zero to `d` decimal places.
fn round(x: f64, d: i32) -> f64 {
    if d >= 16 {
        return x;
    }
    let m = 10f64.powi(d.max(-308));
    (x * m).round() / m
}

fn tonumber(v: &[Value]) -> Result<Value, SearchError> {
    let base = match v.get(1) {
        None => 10,
        Some(b) => match b.to_num() {
            Some(b) if (2.0..=36.0).contains(&b) && b.fract() == 0.0 => b as u32,
            _ => {
                return Err(SearchError::User(
                    "tonumber: the base must be an integer from 2 to 36".into(),
                ))
            }
        },
    };
    if v[0].is_null() {
        return Ok(Value::Null);
    }
    let s = v[0].as_str();
    let t = s.trim();
    if base == 10 {
        return Ok(parse_num(t).map(Value::Num).unwrap_or(Value::Null));
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let digits = if base == 16 {
        digits.trim_start_matches("0x").trim_start_matches("0X")
    } else {
        digits
    };
    Ok(match i64::from_str_radix(digits, base) {
        Ok(n) => Value::Num(if neg { -(n as f64) } else { n as f64 }),
        Err(_) => Value::Null,
    })
}

fn tostring(v: &[Value]) -> Result<Value, SearchError> {
    if v[0].is_null() {
        return Ok(Value::Null);
    }
    let Some(fmt) = v.get(1) else {
        return Ok(Value::Str(v[0].as_str().into_owned()));
    };
    let Some(n) = v[0].to_num() else {
        return Ok(Value::Str(v[0].as_str().into_owned()));
    };
    Ok(Value::Str(match fmt.as_str().as_ref() {
        "hex" => {
            let i = n.trunc() as i64;
            if i < 0 {
                format!("-0x{:X}", i.unsigned_abs())
            } else {
                format!("0x{i:X}")
            }
        }
        "commas" => commas(n),
        "duration" => duration(n),
        other => {
            return Err(SearchError::User(format!(
                "tostring: unknown format {other:?} (expected \"hex\", \"commas\" or \"duration\")"
            )))
        }
    }))
}

/// `1234567.891` → `1,234,567.89`; integers get no fraction.
fn commas(n: f64) -> String {
    let text = if n.fract() == 0.0 {
        format!("{}", n.abs() as i64)
    } else {
        format!("{:.2}", n.abs())
    };
    let (int, frac) = text
        .split_once('.')
        .map(|(a, b)| (a, Some(b)))
        .unwrap_or((&text, None));
    let mut out = String::new();
    if n < 0.0 {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// Seconds as `[D+]HH:MM:SS`.
fn duration(n: f64) -> String {
    let total = n.trunc().abs() as i64;
    let sign = if n < 0.0 { "-" } else { "" };
    let (d, h, m, s) = (
        total / 86_400,
        total % 86_400 / 3600,
        total % 3600 / 60,
        total % 60,
    );
    if d > 0 {
        format!("{sign}{d}+{h:02}:{m:02}:{s:02}")
    } else {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    }
}
