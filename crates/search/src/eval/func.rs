//! Function dispatch: argument-count checks, the lazily evaluated conditionals (`if`, `case`,
//! `coalesce`, `validate`) and type tests; the other families live in their own files (math,
//! text, time, multi, format (`printf`), hash, net (`cidrmatch`), json, and lazy: functions that
//! evaluate an argument per value or read the row).

use super::{format, hash, json, lazy, math, multi, net, text, time, truth, Evaluator};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Expr;

/// Least and most arguments of each function (`usize::MAX` = any number).
fn arity(name: &str) -> Option<(usize, usize)> {
    const ANY: usize = usize::MAX;
    Some(match name {
        "null" | "true" | "false" | "now" | "time" | "pi" | "random" => (0, 0),
        "lower" | "upper" | "len" | "isnull" | "isnotnull" | "isnum" | "isstr" | "isint"
        | "typeof" | "abs" | "floor" | "ceil" | "ceiling" | "sqrt" | "ln" | "exp" | "exact"
        | "mvcount" | "mvdedup" | "mvsort" | "mvfilter" | "urldecode" | "md5" | "sha1"
        | "sha256" | "sha512" | "searchmatch" | "json_keys" | "json_valid" => (1, 1),
        "like" | "match" | "strftime" | "strptime" | "relative_time" | "mvjoin" | "split"
        | "pow" | "nullif" | "cidrmatch" | "mvfind" | "mvmap" | "spath" => (2, 2),
        "if" | "replace" => (3, 3),
        "substr" | "mvindex" | "mvzip" | "mvrange" => (2, 3),
        "tonumber" | "tostring" | "round" | "log" | "trim" | "ltrim" | "rtrim" => (1, 2),
        "coalesce" | "mvappend" | "min" | "max" | "printf" | "json_extract" => (1, ANY),
        "json_object" | "json_array" => (0, ANY),
        "case" | "validate" | "in" => (2, ANY),
        "json_set" => (3, ANY),
        _ => return None,
    })
}

/// Functions whose arguments come in pairs (`case`, `validate`, `json_object`: an even count;
/// `json_set`: the JSON text and then pairs, an odd count).
fn parity(name: &str) -> Option<usize> {
    match name {
        "case" | "validate" | "json_object" => Some(0),
        "json_set" => Some(1),
        _ => None,
    }
}

/// Checks that `name` exists and accepts `n` arguments. The messages start as Splunk's do
/// ("The 'x' function is unsupported or undefined.", "The arguments to the 'x' function are
/// invalid.") and then say what was expected.
pub fn check_arity(name: &str, n: usize) -> Result<(), SearchError> {
    let Some((lo, hi)) = arity(name) else {
        return Err(SearchError::User(format!(
            "The '{name}' function is unsupported or undefined."
        )));
    };
    let parity_ok = parity(name).is_none_or(|p| n % 2 == p);
    if n < lo || n > hi || !parity_ok {
        let want = match (lo, hi, parity(name)) {
            (l, usize::MAX, Some(0)) => format!("an even number, at least {l},"),
            (l, usize::MAX, Some(_)) => format!("an odd number, at least {l},"),
            (l, h, _) if l == h => format!("{l}"),
            (l, usize::MAX, _) => format!("at least {l}"),
            (l, h, _) => format!("{l} to {h}"),
        };
        return Err(SearchError::User(format!(
            "The arguments to the '{name}' function are invalid: it takes {want} arguments, \
             but {n} were given."
        )));
    }
    Ok(())
}

/// Checks literal arguments that can be judged before any row is seen: a `searchmatch`
/// clause, a `cidrmatch` subnet, a `printf` format, a `tonumber` base.
pub fn check_literals(name: &str, args: &[Expr]) -> Result<(), SearchError> {
    if let ("tonumber", [_, Expr::Num(base)]) = (name, args) {
        let probe = [Value::Str("0".into()), Value::Num(*base)];
        return math::call(name, &probe)
            .unwrap_or(Ok(Value::Null))
            .map(|_| ());
    }
    lazy::check(name, args)?;
    match (name, args.first()) {
        ("printf", Some(Expr::Str(f))) => format::call(name, &[Value::Str(f.clone())])
            .unwrap_or(Ok(Value::Null))
            .map(|_| ()),
        ("searchmatch", Some(Expr::Str(s))) => lazy::parse_clause(s).map(|_| ()),
        ("cidrmatch", Some(Expr::Str(s))) => match net::Cidr::parse(s) {
            Some(_) => Ok(()),
            None => Err(SearchError::User(format!(
                "cidrmatch: {s:?} is not a subnet such as 10.0.0.0/8 or 2001:db8::/32"
            ))),
        },
        _ => Ok(()),
    }
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
        "validate" => {
            for pair in args.chunks(2) {
                if truth(&ev.eval(&pair[0], row)?) != Some(true) {
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
    if let Some(r) = lazy::call(ev, name, args, row) {
        return r;
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
        "isint" => Some(Value::Bool(is_int(&v[0]))),
        "random" => Some(ev.random()),
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
    if let Some(r) = multi::call(name, v, ev.patterns(), ctx) {
        return r;
    }
    if let Some(r) = format::call(name, v) {
        return r;
    }
    if let Some(r) = hash::call(name, v) {
        return r;
    }
    if let Some(r) = net::call(name, v) {
        return r;
    }
    if let Some(r) = json::call(name, v) {
        return r;
    }
    Err(SearchError::User(format!(
        "The '{name}' function is unsupported or undefined."
    )))
}

/// `isint`: a number without fraction, or a string written as an integer (`42`, `-7`).
fn is_int(v: &Value) -> bool {
    match v {
        Value::Num(n) => n.is_finite() && n.fract() == 0.0,
        Value::Str(s) => {
            let t = s.trim();
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        }
        Value::Multi(m) if m.len() == 1 => is_int(&m[0]),
        _ => false,
    }
}
