//! Time functions: `now`, `time`, `strftime`, `strptime`, `relative_time`. Times are epoch
//! seconds (with fraction) as `_time` is.

use super::EvalCtx;
use crate::error::SearchError;
use crate::value::Value;
use lode_time::strptime::{strftime, TimeFormat};

fn secs(us: i64) -> Value {
    Value::Num(us as f64 / 1e6)
}

fn micros(v: &Value) -> Option<i64> {
    v.to_num()
        .filter(|n| n.is_finite())
        .map(|n| (n * 1e6).round() as i64)
}

/// Calls the time function `name`, or returns `None` if it is not one of them.
pub fn call(name: &str, v: &[Value], ctx: EvalCtx) -> Option<Result<Value, SearchError>> {
    Some(Ok(match name {
        "now" => secs(ctx.now),
        "time" => {
            let d = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            Value::Num(d.as_micros() as f64 / 1e6)
        }
        "strftime" => match micros(&v[0]) {
            Some(t) if !v[1].is_null() => Value::Str(strftime(t, &v[1].as_str(), ctx.tz)),
            _ => Value::Null,
        },
        "strptime" => {
            if v[0].is_null() || v[1].is_null() {
                return Some(Ok(Value::Null));
            }
            let fmt = match TimeFormat::new(&v[1].as_str()) {
                Ok(f) => f,
                Err(e) => return Some(Err(SearchError::User(format!("strptime: {e}")))),
            };
            match fmt.parse_prefix(&v[0].as_str(), ctx.tz, ctx.now) {
                Some((t, _)) => secs(t),
                None => Value::Null,
            }
        }
        "relative_time" => match micros(&v[0]) {
            Some(t) if !v[1].is_null() => {
                match lode_time::relative::resolve(&v[1].as_str(), t, ctx.tz) {
                    Ok(r) => secs(r),
                    Err(_) => Value::Null,
                }
            }
            _ => Value::Null,
        },
        _ => return None,
    }))
}
