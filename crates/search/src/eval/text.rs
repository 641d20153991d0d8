//! String functions: `lower`, `upper`, `len`, `substr`, `trim`/`ltrim`/`rtrim`, `like`, `match`,
//! `replace`, `urldecode`. A null argument gives null.

use super::pattern::Cache;
use crate::error::SearchError;
use crate::value::Value;

/// Calls the string function `name`, or returns `None` if it is not one of them.
pub fn call(name: &str, v: &[Value], patterns: &mut Cache) -> Option<Result<Value, SearchError>> {
    let known = matches!(
        name,
        "lower"
            | "upper"
            | "len"
            | "substr"
            | "trim"
            | "ltrim"
            | "rtrim"
            | "like"
            | "match"
            | "replace"
            | "urldecode"
    );
    if !known {
        return None;
    }
    if v.iter()
        .take(if name == "substr" { 3 } else { 2 })
        .any(Value::is_null)
    {
        return Some(Ok(Value::Null));
    }
    let s = v[0].as_str();
    Some(Ok(match name {
        "lower" => Value::Str(s.to_lowercase()),
        "upper" => Value::Str(s.to_uppercase()),
        "len" => Value::Num(s.chars().count() as f64),
        "urldecode" => Value::Str(urldecode(&s)),
        "substr" => substr(&s, v[1].to_num(), v.get(2).map(|x| x.to_num())),
        "trim" | "ltrim" | "rtrim" => {
            let chars: Vec<char> = match v.get(1) {
                Some(c) => c.as_str().chars().collect(),
                None => vec![' ', '\t', '\n', '\r'],
            };
            let f = |c: char| chars.contains(&c);
            Value::Str(
                match name {
                    "trim" => s.trim_matches(f),
                    "ltrim" => s.trim_start_matches(f),
                    _ => s.trim_end_matches(f),
                }
                .to_string(),
            )
        }
        "like" => match patterns.like(&v[1].as_str()) {
            Ok(re) => Value::Bool(re.is_match(&s)),
            Err(e) => return Some(Err(e)),
        },
        "match" => match patterns.regex(&v[1].as_str()) {
            Ok(re) => Value::Bool(re.is_match(&s)),
            Err(e) => return Some(Err(e)),
        },
        _ => {
            if v[2].is_null() {
                return Some(Ok(Value::Null));
            }
            let repl = backrefs(&v[2].as_str());
            match patterns.regex(&v[1].as_str()) {
                Ok(re) => Value::Str(re.replace_all(&s, repl.as_str()).into_owned()),
                Err(e) => return Some(Err(e)),
            }
        }
    }))
}

/// `substr(s, start[, len])`: 1-based `start` (0 acts as 1), negative counts from the end;
/// characters, not bytes. Non-numeric arguments give null.
fn substr(s: &str, start: Option<f64>, len: Option<Option<f64>>) -> Value {
    let Some(start) = start else {
        return Value::Null;
    };
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    let start = start.trunc() as i64;
    let from = if start < 0 {
        (n + start).max(0)
    } else {
        (start - 1).max(0)
    };
    let to = match len {
        None => n,
        Some(None) => return Value::Null,
        Some(Some(l)) if l < 0.0 => return Value::Null,
        Some(Some(l)) => from.saturating_add(l.trunc() as i64).min(n),
    };
    if from >= to {
        return Value::Str(String::new());
    }
    Value::Str(chars[from as usize..to as usize].iter().collect())
}

/// Converts PCRE replacement back-references `\1` to the regex crate's `${1}` (and `$` to `$$`).
fn backrefs(repl: &str) -> String {
    let mut out = String::with_capacity(repl.len() + 4);
    let mut it = repl.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.peek() {
                Some(d) if d.is_ascii_digit() => {
                    out.push_str("${");
                    out.push(*d);
                    it.next();
                    out.push('}');
                }
                Some(_) => out.extend(it.next()),
                None => out.push('\\'),
            },
            '$' => out.push_str("$$"),
            other => out.push(other),
        }
    }
    out
}

/// Decodes `%XX` escapes and `+` (a space in form encoding); malformed escapes are kept as
/// written and byte sequences that are not UTF-8 become U+FFFD.
fn urldecode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
