//! Function dispatch: argument-count checks, the lazily evaluated conditionals (`if`, `case`,
//! `coalesce`) and type tests; the other families live in their own files.

use super::{math, multi, text, time, truth, Evaluator};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Expr;

/// Least and most arguments of each function (`usize::MAX` = any number).
fn arity(name: &str) -> Option<(usize, usize)> {
    const ANY: usize = usize::MAX;
    Some(match name {
        "null" | "true" | "false" | "now" | "time" | "pi" => (0, 0),
        "lower" | "upper" | "len" | "isnull" | "isnotnull" | "isnum" | "isstr" | "typeof"
        | "abs" | "floor" | "ceil" | "ceiling" | "sqrt" | "ln" | "exp" | "mvcount" | "mvdedup"
        | "mvsort" => (1, 1),
        "like" | "match" | "strftime" | "strptime" | "relative_time" | "mvjoin" | "split"
        | "pow" | "nullif" => (2, 2),
        "if" | "replace" => (3, 3),
        "substr" | "mvindex" => (2, 3),
        "tonumber" | "tostring" | "round" | "log" | "trim" | "ltrim" | "rtrim" => (1, 2),
        "coalesce" | "mvappend" | "min" | "max" => (1, ANY),
        "case" => (2, ANY),
        "in" => (2, ANY),
        _ => return None,
    })
}

/// Checks that `name` exists and accepts `n` arguments.
pub fn check_arity(name: &str, n: usize) -> Result<(), SearchError> {
    let Some((lo, hi)) = arity(name) else {
        return Err(SearchError::User(format!("unknown eval function '{name}'")));
    };
    let even_ok = name != "case" || n.is_multiple_of(2);
    if n < lo || n > hi || !even_ok {
        let want = match (lo, hi) {
            (l, h) if l == h => format!("{l}"),
            (l, usize::MAX) if name == "case" => format!("an even number, at least {l},"),
            (l, usize::MAX) => format!("at least {l}"),
            (l, h) => format!("{l} to {h}"),
        };
        return Err(SearchError::User(format!(
            "the function '{name}' takes {want} arguments, but {n} were given"
        )));
    }
    Ok(())
}

/// Calls `name(args)` on `row`.
pub fn call(
    ev: &mut Evaluator,
    name: &str,
    args: &[Expr],
    row: &mut Row,
) -> Result<Value, SearchError> {
    check_arity(name, args.len())?;
    match name {
        "if" => {
            let c = truth(&ev.eval(&args[0], row)?) == Some(true);
            return ev.eval(&args[if c { 1 } else { 2 }], row);
        }
        "case" => {
            for pair in args.chunks(2) {
                if truth(&ev.eval(&pair[0], row)?) == Some(true) {
                    return ev.eval(&pair[1], row);
                }
            }
            return Ok(Value::Null);
        }
        "coalesce" => {
            for a in args {
                let v = ev.eval(a, row)?;
                if !v.is_null() {
                    return Ok(v);
                }
            }
            return Ok(Value::Null);
        }
        _ => {}
    }
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(ev.eval(a, row)?);
    }
    let v = &vals[..];
    let simple = match name {
        "null" => Some(Value::Null),
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "isnull" => Some(Value::Bool(v[0].is_null())),
        "isnotnull" => Some(Value::Bool(!v[0].is_null())),
        "isnum" => Some(Value::Bool(v[0].to_num().is_some())),
        "isstr" => Some(Value::Bool(
            matches!(v[0], Value::Str(_)) && v[0].to_num().is_none(),
        )),
        "typeof" => Some(Value::Str(
            match &v[0] {
                Value::Null => "Null",
                Value::Bool(_) => "Boolean",
                Value::Multi(_) => "Multivalue",
                x if x.to_num().is_some() => "Number",
                _ => "String",
            }
            .to_string(),
        )),
        "nullif" => Some(if super::compare(lode_spl::ast::CmpOp::Eq, &v[0], &v[1]) {
            Value::Null
        } else {
            v[0].clone()
        }),
        "in" => Some(if v[0].is_null() {
            Value::Null
        } else {
            Value::Bool(v[1..].iter().any(|x| x.as_str() == v[0].as_str()))
        }),
        _ => None,
    };
    if let Some(x) = simple {
        return Ok(x);
    }
    let ctx = ev.ctx();
    if let Some(r) = text::call(name, v, ev.patterns()) {
        return r;
    }
    if let Some(r) = math::call(name, v) {
        return r;
    }
    if let Some(r) = time::call(name, v, ctx) {
        return r;
    }
    if let Some(r) = multi::call(name, v) {
        return r;
    }
    Err(SearchError::User(format!("unknown eval function '{name}'")))
}
