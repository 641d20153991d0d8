//! JSON functions: `json_object`, `json_array`, `json_extract`, `json_keys`, `json_valid`,
//! `json_set` and `spath(field, path)`.
//!
//! JSON text is parsed into [`J`], which keeps object keys in their written order and numbers as
//! written (so `1.50` stays `1.50`); output is compact (`{"a":1,"b":["x"]}`). Paths are Splunk's:
//! keys separated by `.`, array positions in braces (`a.b{0}.c`, negative from the end), and
//! `{}` for every element. An argument of `json_object`/`json_array` that is a string holding a
//! JSON object or array (such as the result of another JSON function) is embedded as JSON; other
//! strings become JSON strings.

use crate::error::SearchError;
use crate::value::{format_num, Value};

/// Deepest nesting parsed (deeper text counts as invalid JSON).
const MAX_DEPTH: usize = 128;

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
enum J {
    Null,
    Bool(bool),
    /// The number as written.
    Num(String),
    Str(String),
    Arr(Vec<J>),
    /// Members in written order.
    Obj(Vec<(String, J)>),
}

/// Calls the JSON function `name`, or returns `None` if it is not one of them.
pub fn call(name: &str, v: &[Value]) -> Option<Result<Value, SearchError>> {
    let text = |x: &Value| J::parse(&x.as_str());
    Some(Ok(match name {
        "json_object" => {
            let mut members = Vec::with_capacity(v.len() / 2);
            for pair in v.chunks(2) {
                if pair[0].is_null() {
                    return Some(Err(SearchError::User(
                        "json_object: a key is null; keys must be strings".to_string(),
                    )));
                }
                members.push((pair[0].as_str().into_owned(), J::from_value(&pair[1])));
            }
            Value::Str(J::Obj(members).to_string())
        }
        "json_array" => Value::Str(J::Arr(v.iter().map(J::from_value).collect()).to_string()),
        "json_valid" if v[0].is_null() => Value::Null,
        "json_valid" => Value::Bool(text(&v[0]).is_some()),
        _ if v.first().is_some_and(Value::is_null) => {
            return known(name).then_some(Ok(Value::Null))
        }
        "json_keys" => match text(&v[0]) {
            Some(J::Obj(m)) => {
                Value::Str(J::Arr(m.into_iter().map(|(k, _)| J::Str(k)).collect()).to_string())
            }
            _ => Value::Null,
        },
        "json_extract" => {
            let Some(root) = text(&v[0]) else {
                return Some(Ok(Value::Null));
            };
            match &v[1..] {
                [] => Value::Str(root.to_string()),
                [p] => match path(&p.as_str()) {
                    Ok(steps) => extract_one(&root, &steps),
                    Err(e) => return Some(Err(e)),
                },
                paths => {
                    let mut all = Vec::with_capacity(paths.len());
                    for p in paths {
                        let steps = match path(&p.as_str()) {
                            Ok(s) => s,
                            Err(e) => return Some(Err(e)),
                        };
                        let found = lookup(&root, &steps);
                        all.push(if fans_out(&steps) {
                            J::Arr(found.into_iter().cloned().collect())
                        } else {
                            found.first().map(|j| (*j).clone()).unwrap_or(J::Null)
                        });
                    }
                    Value::Str(J::Arr(all).to_string())
                }
            }
        }
        "json_set" => {
            let Some(mut root) = text(&v[0]) else {
                return Some(Ok(Value::Null));
            };
            for pair in v[1..].chunks(2) {
                let steps = match path(&pair[0].as_str()) {
                    Ok(s) => s,
                    Err(e) => return Some(Err(e)),
                };
                if fans_out(&steps) {
                    return Some(Err(SearchError::User(
                        "json_set: a path to set cannot contain '{}'".to_string(),
                    )));
                }
                set(&mut root, &steps, J::from_value(&pair[1]));
            }
            Value::Str(root.to_string())
        }
        "spath" => {
            let input = v[0].as_str();
            if crate::extract::xml::looks_like_xml(&input) {
                return Some(
                    crate::extract::xml::at_path(&input, &v[1].as_str()).map(|found| {
                        Value::from_values(
                            found
                                .unwrap_or_default()
                                .into_iter()
                                .map(Value::Str)
                                .collect(),
                        )
                    }),
                );
            }
            let Some(root) = text(&v[0]) else {
                return Some(Ok(Value::Null));
            };
            match path(&v[1].as_str()) {
                Ok(steps) => Value::from_values(
                    lookup(&root, &steps)
                        .into_iter()
                        .map(J::to_value)
                        .filter(|x| !x.is_null())
                        .collect(),
                ),
                Err(e) => return Some(Err(e)),
            }
        }
        _ => return None,
    }))
}

fn known(name: &str) -> bool {
    matches!(name, "json_keys" | "json_extract" | "json_set" | "spath")
}

/// `json_extract(json, path)`: a scalar as a field value, an object or array as JSON text;
/// with `{}`, a JSON array of what was found.
fn extract_one(root: &J, steps: &[Step]) -> Value {
    let found = lookup(root, steps);
    if fans_out(steps) {
        return Value::Str(J::Arr(found.into_iter().cloned().collect()).to_string());
    }
    found.first().map(|j| j.to_value()).unwrap_or(Value::Null)
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    /// `{n}`; negative counts from the end.
    Index(i64),
    /// `{}`.
    All,
}

fn fans_out(steps: &[Step]) -> bool {
    steps.contains(&Step::All)
}

/// Parses `a.b{0}.c{}`.
fn path(p: &str) -> Result<Vec<Step>, SearchError> {
    let bad = || {
        SearchError::User(format!(
            "invalid JSON path {p:?} (expected a form like a.b{{0}}.c)"
        ))
    };
    let mut steps = Vec::new();
    if p.is_empty() {
        return Ok(steps);
    }
    for seg in p.split('.') {
        let (key, mut rest) = match seg.find('{') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if !key.is_empty() {
            steps.push(Step::Key(key.to_string()));
        } else if rest.is_empty() {
            return Err(bad());
        }
        while !rest.is_empty() {
            let close = rest.find('}').ok_or_else(bad)?;
            if !rest.starts_with('{') {
                return Err(bad());
            }
            let inner = rest[1..close].trim();
            steps.push(if inner.is_empty() {
                Step::All
            } else {
                Step::Index(inner.parse().map_err(|_| bad())?)
            });
            rest = &rest[close + 1..];
        }
    }
    Ok(steps)
}

/// Every value `steps` reaches from `root`, in document order.
fn lookup<'a>(root: &'a J, steps: &[Step]) -> Vec<&'a J> {
    let mut cur = vec![root];
    for step in steps {
        let mut next = Vec::new();
        for j in cur {
            match (step, j) {
                (Step::Key(k), J::Obj(m)) => {
                    next.extend(m.iter().find(|(n, _)| n == k).map(|x| &x.1))
                }
                (Step::Index(i), J::Arr(a)) => next.extend(index(a.len(), *i).map(|i| &a[i])),
                (Step::All, J::Arr(a)) => next.extend(a.iter()),
                _ => {}
            }
        }
        cur = next;
    }
    cur
}

fn index(len: usize, i: i64) -> Option<usize> {
    let i = if i < 0 { len as i64 + i } else { i };
    (0..len as i64).contains(&i).then_some(i as usize)
}

/// Sets the value at `steps`, creating missing object members (and objects in place of nulls
/// on the way); a step that does not fit the document leaves it unchanged.
fn set(root: &mut J, steps: &[Step], value: J) {
    let Some((first, rest)) = steps.split_first() else {
        *root = value;
        return;
    };
    if *root == J::Null {
        if let Step::Key(_) = first {
            *root = J::Obj(Vec::new());
        }
    }
    match (first, root) {
        (Step::Key(k), J::Obj(m)) => {
            let i = match m.iter().position(|(n, _)| n == k) {
                Some(i) => i,
                None => {
                    m.push((k.clone(), J::Null));
                    m.len() - 1
                }
            };
            set(&mut m[i].1, rest, value);
        }
        (Step::Index(i), J::Arr(a)) => {
            if let Some(i) = index(a.len(), *i) {
                set(&mut a[i], rest, value);
            }
        }
        _ => {}
    }
}

impl J {
    /// Parses a whole JSON text (surrounding white space allowed); `None` if invalid.
    fn parse(s: &str) -> Option<J> {
        let mut p = Parser {
            b: s.as_bytes(),
            i: 0,
        };
        let j = p.value(0)?;
        p.ws();
        (p.i == p.b.len()).then_some(j)
    }

    /// JSON for a field value (see the module comment for strings holding JSON).
    fn from_value(v: &Value) -> J {
        match v {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Num(n) if n.is_finite() => {
                let mut s = String::new();
                let _ = format_num(*n, &mut s);
                J::Num(s)
            }
            Value::Num(_) => J::Null,
            Value::Str(s) => {
                let t = s.trim_start();
                if t.starts_with(['{', '[']) {
                    if let Some(j) = J::parse(s) {
                        return j;
                    }
                }
                J::Str(s.clone())
            }
            Value::Multi(m) => J::Arr(m.iter().map(J::from_value).collect()),
        }
    }

    /// A field value: strings unquoted, numbers and booleans as written, null as null,
    /// objects and arrays as compact JSON text.
    fn to_value(&self) -> Value {
        match self {
            J::Null => Value::Null,
            J::Bool(b) => Value::Str(b.to_string()),
            J::Num(n) => Value::Str(n.clone()),
            J::Str(s) => Value::Str(s.clone()),
            other => Value::Str(other.to_string()),
        }
    }
}

impl std::fmt::Display for J {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            J::Null => f.write_str("null"),
            J::Bool(b) => write!(f, "{b}"),
            J::Num(n) => f.write_str(n),
            J::Str(s) => quote(s, f),
            J::Arr(a) => {
                f.write_str("[")?;
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            J::Obj(m) => {
                f.write_str("{")?;
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    quote(k, f)?;
                    write!(f, ":{x}")?;
                }
                f.write_str("}")
            }
        }
    }
}

fn quote(s: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

/// A recursive-descent JSON parser over bytes (depth-limited).
struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn lit(&mut self, word: &str, j: J) -> Option<J> {
        self.b[self.i..].starts_with(word.as_bytes()).then(|| {
            self.i += word.len();
            j
        })
    }

    fn value(&mut self, depth: usize) -> Option<J> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.i)? {
            b'n' => self.lit("null", J::Null),
            b't' => self.lit("true", J::Bool(true)),
            b'f' => self.lit("false", J::Bool(false)),
            b'"' => self.string().map(J::Str),
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                if self.eat(b']') {
                    return Some(J::Arr(a));
                }
                loop {
                    a.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Some(J::Arr(a));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut m = Vec::new();
                if self.eat(b'}') {
                    return Some(J::Obj(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    m.push((k, self.value(depth + 1)?));
                    if self.eat(b'}') {
                        return Some(J::Obj(m));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            _ => self.number(),
        }
    }

    fn number(&mut self) -> Option<J> {
        let start = self.i;
        while self
            .b
            .get(self.i)
            .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
        {
            self.i += 1;
        }
        let t = std::str::from_utf8(&self.b[start..self.i]).ok()?;
        let body = t.strip_prefix('-').unwrap_or(t);
        let lead_ok = body.starts_with(|c: char| c.is_ascii_digit())
            && !(body.len() > 1 && body.starts_with('0') && body.as_bytes()[1].is_ascii_digit());
        (lead_ok && t.parse::<f64>().is_ok()).then(|| J::Num(t.to_string()))
    }

    fn string(&mut self) -> Option<String> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode()?,
                        _ => return None,
                    };
                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
                c if c < 0x20 => return None,
                c => out.push(c),
            }
        }
    }

    /// The code point of `\uXXXX` (with a following low surrogate when needed).
    fn unicode(&mut self) -> Option<char> {
        let hex4 = |p: &mut Self| -> Option<u32> {
            let h = p.b.get(p.i..p.i + 4)?;
            p.i += 4;
            u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
        };
        let hi = hex4(self)?;
        if (0xD800..0xDC00).contains(&hi) {
            if self.b.get(self.i..self.i + 2)? != b"\\u" {
                return None;
            }
            self.i += 2;
            let lo = hex4(self)?;
            if !(0xDC00..0xE000).contains(&lo) {
                return None;
            }
            return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
        }
        char::from_u32(hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_keep_order_and_numbers() {
        let t = r#" { "b" : 1.50, "a" : [true, null, "x\"y\u00e9"], "c": {} } "#;
        let j = J::parse(t).unwrap();
        assert_eq!(
            j.to_string(),
            r#"{"b":1.50,"a":[true,null,"x\"yé"],"c":{}}"#
        );
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1 2",
            "\"\\x\"",
            "nul",
            "{\"a\":1,}",
        ] {
            assert!(J::parse(bad).is_none(), "{bad}");
        }
        let deep = "[".repeat(MAX_DEPTH + 2) + &"]".repeat(MAX_DEPTH + 2);
        assert!(J::parse(&deep).is_none());
        assert_eq!(J::parse("\"\\ud83d\\ude00\"").unwrap(), J::Str("😀".into()));
    }

    #[test]
    fn paths() {
        assert_eq!(
            path("a.b{0}.c{}{-1}").unwrap(),
            vec![
                Step::Key("a".into()),
                Step::Key("b".into()),
                Step::Index(0),
                Step::Key("c".into()),
                Step::All,
                Step::Index(-1)
            ]
        );
        assert_eq!(path("{1}").unwrap(), vec![Step::Index(1)]);
        for bad in ["a..b", "a{x}", "a{0", "a{0}b"] {
            assert!(path(bad).is_err(), "{bad}");
        }
    }
}
