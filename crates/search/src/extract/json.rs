//! JSON extraction (`KV_MODE=json`): every leaf becomes a field named by its path, objects joined
//! with `.` and arrays marked `{}` (`a.b`, `tags{}`, `items{}.id`). A path reached several times
//! (through arrays, or a dotted key colliding with a nested path) becomes a multivalue field:
//! array elements in document order, object members in key order (serde_json's sorted map).
//! Leaves are strings as Splunk keeps them: numbers as written, `true`/`false`, `null`.

use crate::value::Value;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;
use std::borrow::Cow;

/// Parses `raw` as JSON and appends its fields to `out` (existing names are not replaced; new
/// values for a path seen in this document are added as further values). Returns false when
/// `raw` is not a JSON object or array, leaving `out` untouched.
pub fn extract(raw: &str, out: &mut Vec<(String, Value)>) -> bool {
    let Ok(doc) = serde_json::from_str::<Json>(raw.trim()) else {
        return false;
    };
    if !(doc.is_object() || doc.is_array()) {
        return false;
    }
    let before = out.len();
    let mut path = String::new();
    walk(&doc, &mut path, out, before);
    true
}

/// Depth-first walk; `path` is the current prefix (reused buffer), `fresh` the index of the first
/// field this document added (only those may gain further values).
fn walk(v: &Json, path: &mut String, out: &mut Vec<(String, Value)>, fresh: usize) {
    match v {
        Json::Object(map) => {
            for (k, child) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(child, path, out, fresh);
                path.truncate(len);
            }
        }
        Json::Array(items) => {
            let len = path.len();
            path.push_str("{}");
            for child in items {
                walk(child, path, out, fresh);
            }
            path.truncate(len);
        }
        leaf => {
            let text = match leaf {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            add(out, path, Value::Str(text), fresh);
        }
    }
}

fn add(out: &mut Vec<(String, Value)>, name: &str, v: Value, fresh: usize) {
    if let Some(pos) = out.iter().position(|(n, _)| n == name) {
        if pos < fresh {
            return;
        }
        let slot = &mut out[pos].1;
        match slot {
            Value::Multi(vals) => vals.push(v),
            other => {
                let first = std::mem::replace(other, Value::Null);
                *other = Value::Multi(vec![first, v]);
            }
        }
    } else {
        out.push((name.to_string(), v));
    }
}

/// What [`find`] learned about one field of an event.
#[derive(Debug, PartialEq, Eq)]
pub enum Found<'a> {
    /// `raw` is not a JSON object or array ([`extract`] would return false).
    NotJson,
    /// The document repeats a key on the way to the field; [`extract`] keeps only the last
    /// (serde_json's map), which this walk does not reproduce: build the row instead.
    Undecided,
    /// The values [`extract`] would give the field (empty: no such field).
    Values(Vec<Cow<'a, str>>),
}

/// The values [`extract`] would give the field `name` of `raw`, without building the other
/// fields: one pass that validates the whole document as serde_json does, descends only into
/// members whose path can lead to `name` and borrows strings that have no escapes. Values come in
/// document order (not [`extract`]'s key order, which only orders multivalues).
pub fn find<'a>(raw: &'a str, name: &str) -> Found<'a> {
    let doc = raw.trim();
    if !(doc.starts_with('{') || doc.starts_with('[')) {
        return Found::NotJson;
    }
    match Scan::find(doc, name) {
        Ok(found) => found,
        Err(Fallback::Serde) => find_serde(doc, name),
        Err(Fallback::Extract) => find_by_extract(doc, name),
    }
}

/// [`find`] by building every field with [`extract`], the reference.
fn find_by_extract<'a>(doc: &'a str, name: &str) -> Found<'a> {
    let mut out = Vec::new();
    if !extract(doc, &mut out) {
        return Found::NotJson;
    }
    let vals = out
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| {
            v.iter_values()
                .map(|x| Cow::Owned(x.as_str().to_string()))
                .collect()
        })
        .unwrap_or_default();
    Found::Values(vals)
}

/// [`find`] through serde_json: the reference for every document [`Scan`] leaves to it.
fn find_serde<'a>(doc: &'a str, name: &str) -> Found<'a> {
    let mut st = FindState {
        target: name,
        path: String::new(),
        out: Vec::new(),
        repeated: false,
    };
    let mut de = serde_json::Deserializer::from_str(doc);
    let ok = Node { st: &mut st }.deserialize(&mut de).is_ok() && de.end().is_ok();
    match (ok, st.repeated) {
        (false, _) => Found::NotJson,
        (true, true) => Found::Undecided,
        (true, false) => Found::Values(st.out),
    }
}

/// The common case of [`find`] without serde_json: one pass over the bytes that checks the
/// strict JSON grammar (RFC 8259) and collects the field's values. It answers only when the
/// answer is certain, and otherwise says who should:
/// * [`find_serde`] (which validates and skips as this scan does, and reads numbers and escapes
///   as `extract` does) for a number on the way to the field, an escape in a key on the way or
///   in a value of the field;
/// * [`find_by_extract`] for anything `extract`'s whole parse may refuse where skipping a value
///   does not: a `\u` escape of a surrogate, a number that may overflow an f64 (an exponent of
///   three digits or more, or over 300 digits); and for a document the scan refuses (a
///   grammar error, a control character in a string, nesting deeper than [`SCAN_DEPTH`]).
///
/// Naive twin: [`extract`] (the property tests compare them, damaged documents included).
struct Scan<'a, 't> {
    s: &'a str,
    i: usize,
    target: &'t str,
    /// Path of the value being read, kept only while it can lead to `target`.
    path: String,
    out: Vec<Cow<'a, str>>,
    repeated: bool,
    /// Something on the field's way needs [`find_serde`].
    serde: bool,
    /// Something anywhere needs [`find_by_extract`].
    whole: bool,
}

/// Who answers a document [`Scan`] does not.
#[derive(Debug, PartialEq, Eq)]
enum Fallback {
    Serde,
    Extract,
}

/// Nesting [`Scan`] leaves to serde_json (whose own limit is 128).
const SCAN_DEPTH: usize = 100;

/// The position of the first byte from `i` on that is not JSON white space (RFC 8259: space,
/// tab, line feed, carriage return).
#[inline]
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// Length of the leading bytes of `b` that a JSON string holds as they are: up to the first
/// quote, backslash or control character (or the end). Eight bytes at a time: a byte equal to
/// `q` shows as a set top bit of `(x ^ q·1s) − 1s & !(x ^ q·1s) & 80s`, a byte below 0x20 as one
/// of `(x − 0x20·1s) & !x & 80s`; a borrow can set bits only above a true match, so the lowest
/// set bit is exact. Naive twin: the byte loop in the property test.
#[inline]
fn plain_run(b: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & TOPS;
    let mut i = 0;
    while let Some(w) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        let hit = zero(x ^ (ONES * b'"' as u64))
            | zero(x ^ (ONES * b'\\' as u64))
            | (x.wrapping_sub(ONES * 0x20) & !x & TOPS);
        if hit != 0 {
            return i + hit.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(b.len() - i)
}

impl<'a> Scan<'a, '_> {
    fn find(doc: &'a str, target: &str) -> Result<Found<'a>, Fallback> {
        let mut sc = Scan {
            s: doc,
            i: 0,
            target,
            path: String::new(),
            out: Vec::new(),
            repeated: false,
            serde: false,
            whole: false,
        };
        let read = sc.value(0, true);
        sc.ws();
        if read.is_none() || sc.i != doc.len() || sc.whole {
            return Err(Fallback::Extract);
        }
        if sc.serde {
            return Err(Fallback::Serde);
        }
        Ok(if sc.repeated {
            Found::Undecided
        } else {
            Found::Values(sc.out)
        })
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    #[inline]
    fn ws(&mut self) {
        self.i = skip_ws(self.s.as_bytes(), self.i);
    }

    /// Whether the value at `path` is the field itself.
    fn at_target(&self, lead: bool) -> bool {
        lead && self.path == self.target
    }

    /// Reads one value; `lead`: its path can lead to the target.
    fn value(&mut self, depth: usize, lead: bool) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'{' | b'[' if depth >= SCAN_DEPTH => None,
            b'{' => self.object(depth + 1, lead),
            b'[' => self.array(depth + 1, lead),
            b'"' => {
                let (text, escaped) = self.string()?;
                if self.at_target(lead) {
                    if escaped {
                        self.serde = true;
                    }
                    self.out.push(Cow::Borrowed(text));
                }
                Some(())
            }
            b't' => self.literal("true", lead),
            b'f' => self.literal("false", lead),
            b'n' => self.literal("null", lead),
            b'-' | b'0'..=b'9' => {
                self.serde |= lead;
                self.number()
            }
            _ => None,
        }
    }

    fn literal(&mut self, word: &'static str, lead: bool) -> Option<()> {
        if !self.s[self.i..].starts_with(word) {
            return None;
        }
        self.i += word.len();
        if self.at_target(lead) {
            self.out.push(Cow::Borrowed(word));
        }
        Some(())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Option<()> {
        let from = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.some_digits()?;
        }
        let mantissa = self.i - from;
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            let exp = self.i;
            self.some_digits()?;
            self.whole |= self.i - exp >= 3;
        }
        self.whole |= mantissa > 300;
        Some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let from = self.i;
        self.digits();
        (self.i > from).then_some(())
    }

    /// Reads a string (at its opening quote); returns its text between the quotes and whether
    /// it holds escapes (then the text is not its value).
    fn string(&mut self) -> Option<(&'a str, bool)> {
        let b = self.s.as_bytes();
        let start = self.i + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i += plain_run(&b[i..]);
            match *b.get(i)? {
                b'"' => break,
                b'\\' => {}
                _ => return None, // a control character
            }
            escaped = true;
            match *b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                    let cp = u16::from_str_radix(hex, 16).ok()?;
                    if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                        return None;
                    }
                    self.whole |= (0xD800..=0xDFFF).contains(&cp);
                    i += 6;
                }
                _ => return None,
            }
        }
        self.i = i + 1;
        Some((&self.s[start..i], escaped))
    }

    /// Reads the opening bracket of an object or array, and its closing one `close` when it
    /// is empty; returns whether items follow.
    fn open(&mut self, close: u8) -> Option<bool> {
        self.i += 1;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Some(false);
        }
        Some(true)
    }

    /// After an item of an object or array: `true` past a comma (another item follows),
    /// `false` past the closing `close`.
    fn more(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let c = self.peek()?;
        self.i += 1;
        match c {
            b',' => Some(true),
            c if c == close => Some(false),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize, lead: bool) -> Option<()> {
        if !self.open(b'}')? {
            return Some(());
        }
        let base = self.path.len();
        // Keys of this object that lead to the target, to notice one given twice.
        let mut leading: Vec<&'a str> = Vec::new();
        loop {
            self.ws();
            if self.peek()? != b'"' {
                return None;
            }
            let (key, escaped) = self.string()?;
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.i += 1;
            let mut child = false;
            if lead {
                // An escaped key is compared undecoded: a key on the way may be missed.
                self.serde |= escaped;
                // The key's path (`path.key`) leads to the target when the target goes on with
                // it; `path` itself is a prefix of the target here.
                let rest = match base {
                    0 => Some(self.target),
                    _ => self.target[base..].strip_prefix('.'),
                };
                child = rest.is_some_and(|r| r.starts_with(key));
                if child {
                    self.path.truncate(base);
                    if base > 0 {
                        self.path.push('.');
                    }
                    self.path.push_str(key);
                    if leading.contains(&key) {
                        self.repeated = true;
                    }
                    leading.push(key);
                }
            }
            self.value(depth, child)?;
            if !self.more(b'}')? {
                break;
            }
        }
        self.path.truncate(base);
        Some(())
    }

    fn array(&mut self, depth: usize, lead: bool) -> Option<()> {
        let base = self.path.len();
        let mut child = false;
        if lead {
            self.path.push_str("{}");
            child = self.target.starts_with(self.path.as_str());
        }
        let mut items = self.open(b']')?;
        while items {
            self.value(depth, child)?;
            items = self.more(b']')?;
        }
        self.path.truncate(base);
        Some(())
    }
}

struct FindState<'t, 'a> {
    target: &'t str,
    /// Path of the value being visited (`a.b{}`, as [`extract`] names fields).
    path: String,
    out: Vec<Cow<'a, str>>,
    /// A key on the way to `target` occurred twice in one object.
    repeated: bool,
}

impl FindState<'_, '_> {
    /// Whether the value at `path` can hold a leaf named `target`.
    fn leads(&self) -> bool {
        self.target.starts_with(self.path.as_str())
    }
}

/// Visits one value (a seed and its own visitor).
struct Node<'s, 't, 'a> {
    st: &'s mut FindState<'t, 'a>,
}

impl<'de, 's, 't> DeserializeSeed<'de> for Node<'s, 't, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Node<'_, '_, '_> {
    fn leaf(self, text: impl FnOnce() -> String) {
        if self.st.path == self.st.target {
            self.st.out.push(Cow::Owned(text()));
        }
    }
}

impl<'de, 's, 't> Visitor<'de> for Node<'s, 't, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        if self.st.path == self.st.target {
            self.st.out.push(Cow::Borrowed(v));
        }
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.leaf(|| v.to_string());
        Ok(())
    }
    fn visit_string<E>(self, v: String) -> Result<(), E> {
        self.leaf(|| v);
        Ok(())
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.leaf(|| v.to_string());
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.leaf(|| Json::from(v).to_string());
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.leaf(|| Json::from(v).to_string());
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // What serde_json's Value holds for a parsed float, printed as `extract` prints it.
        self.leaf(|| {
            serde_json::Number::from_f64(v)
                .map_or(Json::Null, Json::Number)
                .to_string()
        });
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.leaf(|| "null".to_string());
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let base = self.st.path.len();
        self.st.path.push_str("{}");
        if self.st.leads() {
            while seq.next_element_seed(Node { st: &mut *self.st })?.is_some() {}
        } else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
        }
        self.st.path.truncate(base);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let base = self.st.path.len();
        // Keys of this object that lead to the target, to notice one given twice.
        let mut leading: Vec<Cow<'de, str>> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            self.st.path.truncate(base);
            if base > 0 {
                self.st.path.push('.');
            }
            self.st.path.push_str(&key);
            if self.st.leads() {
                if leading.contains(&key) {
                    self.st.repeated = true;
                }
                leading.push(key);
                map.next_value_seed(Node { st: &mut *self.st })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        self.st.path.truncate(base);
        Ok(())
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.to_string())
    }

    fn get<'a>(out: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
        out.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    #[test]
    fn nested_objects_and_arrays() {
        let mut out = Vec::new();
        let raw = r#"{"a":{"b":{"c":1.50}},"tags":["x","y"],"items":[{"id":1},{"id":2}],"ok":true,"n":null}"#;
        assert!(extract(raw, &mut out));
        assert_eq!(get(&out, "a.b.c"), Some(&s("1.5")));
        assert_eq!(
            get(&out, "tags{}"),
            Some(&Value::Multi(vec![s("x"), s("y")]))
        );
        assert_eq!(
            get(&out, "items{}.id"),
            Some(&Value::Multi(vec![s("1"), s("2")]))
        );
        assert_eq!(get(&out, "ok"), Some(&s("true")));
        assert_eq!(get(&out, "n"), Some(&s("null")));
    }

    #[test]
    fn existing_fields_win() {
        let mut out = vec![("host".to_string(), s("h1"))];
        assert!(extract(r#"{"host":"h2","x":"1"}"#, &mut out));
        assert_eq!(get(&out, "host"), Some(&s("h1")));
        assert_eq!(get(&out, "x"), Some(&s("1")));
    }

    /// `find`'s values as a set, against `extract`'s field of the same name.
    fn agree(raw: &str, name: &str) {
        let mut out = Vec::new();
        let parsed = extract(raw, &mut out);
        match find(raw, name) {
            Found::NotJson => assert!(!parsed, "{raw}"),
            Found::Undecided => assert!(parsed, "{raw}"),
            Found::Values(vals) => {
                assert!(parsed, "{raw}");
                let mut got: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
                let mut want: Vec<String> = get(&out, name)
                    .map(|v| v.iter_values().map(|x| x.as_str().to_string()).collect())
                    .unwrap_or_default();
                got.sort();
                want.sort();
                assert_eq!(got, want, "{name} in {raw}");
            }
        }
    }

    #[test]
    fn find_agrees_with_extract() {
        let doc = r#" {"a":{"b":{"c":1.50}},"tags":["x","y"],"items":[{"id":1},{"id":2e0}],"ok":true,"n":null,"a.b":{"c":"q\"z"},"esc\u0041":"v","big":18446744073709551615,"neg":-3} "#;
        for name in [
            "a.b.c",
            "tags",
            "tags{}",
            "items{}.id",
            "ok",
            "n",
            "escA",
            "big",
            "neg",
            "a",
            "a.b",
            "missing",
            "{}",
            "",
        ] {
            agree(doc, name);
        }
        agree(r#"[{"a":1},{"a":2},3]"#, "{}.a");
        agree(r#"[{"a":1},{"a":2},3]"#, "{}");
        agree(r#"{"m":[[1,2],[3]]}"#, "m{}{}");
        agree("{oops", "oops");
        agree("42", "x");
        agree(r#"{"a":1} trailing"#, "a");
        agree(r#"{"a":1,"b":[1,2,}"#, "a");
        // A repeated key on the path: extract keeps the last.
        assert_eq!(find(r#"{"a":1,"a":2}"#, "a"), Found::Undecided);
        assert_eq!(
            find(r#"{"a":{"b":1},"a":{"b":2}}"#, "a.b"),
            Found::Undecided
        );
        // Repeated keys elsewhere do not matter.
        agree(r#"{"x":1,"x":2,"a":"v"}"#, "a");
        // Strings without escapes are borrowed.
        match find(r#"{"a":"plain"}"#, "a") {
            Found::Values(v) => assert!(matches!(v[0], Cow::Borrowed("plain"))),
            other => panic!("{other:?}"),
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;
        use proptest::{collection, sample};

        fn json() -> impl Strategy<Value = String> {
            let key = sample::select(vec!["a", "b", "a.b", "c", "t", "A", "b\\n"]);
            let leaf = prop_oneof![
                Just("null".to_string()),
                Just("true".to_string()),
                any::<i32>().prop_map(|n| n.to_string()),
                (any::<i16>(), 0u8..4).prop_map(|(n, e)| format!("{n}.5e{e}")),
                "[a-z\\\"]{0,4}"
                    .prop_map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))),
            ];
            leaf.prop_recursive(4, 24, 4, move |inner| {
                prop_oneof![
                    collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
                    collection::vec((key.clone(), inner), 0..4).prop_map(|v| {
                        let members: Vec<String> =
                            v.into_iter().map(|(k, x)| format!("\"{k}\":{x}")).collect();
                        format!("{{{}}}", members.join(","))
                    }),
                ]
            })
        }

        /// The scan, and whoever it passes the document to, answer as `extract`.
        fn scan_agrees(doc: &str, name: &str) {
            if doc.trim().starts_with(['{', '[']) {
                agree(doc, name);
            }
        }

        proptest! {
            #[test]
            fn plain_run_stops_where_the_byte_loop_does(b in collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), 0u8..0x20, 0x20u8..=0xff, 0x20u8..0x7f],
                0..40,
            )) {
                let naive = b
                    .iter()
                    .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                    .unwrap_or(b.len());
                prop_assert_eq!(plain_run(&b), naive);
            }

            #[test]
            fn scan_is_serde(doc in json(), name in sample::select(vec![
                "a", "b", "a.b", "a.b.c", "t{}", "a{}", "{}.a", "b{}.a.b", "A", "{}", "b\\n",
            ]), cut in 0usize..64, byte in sample::select(vec![
                b'"', b'\\', b',', b':', b'}', b']', b'{', b'[', b'e', b'-', b'.', b'0', b' ', b'u', 1,
            ])) {
                scan_agrees(&doc, name);
                // Damaged: a byte replaced or the text cut short.
                let at = cut % (doc.len() + 1);
                let mut bad = doc.clone().into_bytes();
                if at < bad.len() {
                    bad[at] = byte;
                }
                if let Ok(bad) = String::from_utf8(bad) {
                    scan_agrees(&bad, name);
                }
                scan_agrees(doc.get(..at).unwrap_or(&doc), name);
            }

            #[test]
            fn find_is_extract(doc in json(), name in sample::select(vec![
                "a", "b", "a.b", "a.b.c", "c", "t{}", "a{}", "{}.a", "a.a", "b{}.a.b", "A", "{}", "b\\n",
            ])) {
                agree(&doc, name);
            }
        }
    }

    #[test]
    fn the_scan_answers_plain_documents_and_passes_the_rest_on() {
        let plain = r#" {"time":"2026-01-01T00:00:00Z","level":"info","n":12,"x":-1.5e3,
            "tags":["lodeDENSE4b8e","b"],"req":{"id":"9f","ok":true,"v":null},"esc":"a\"b"} "#;
        for (name, want) in [
            ("tags{}", vec!["lodeDENSE4b8e", "b"]),
            ("req.id", vec!["9f"]),
            ("req.ok", vec!["true"]),
            ("req.v", vec!["null"]),
            ("missing", vec![]),
            ("tags", vec![]),
        ] {
            let want = Found::Values(want.into_iter().map(Cow::Borrowed).collect());
            assert_eq!(Scan::find(plain.trim(), name), Ok(want), "{name}");
        }
        // serde_json's skipping reads these as `extract` does.
        for (doc, name) in [
            (plain, "n"),
            (plain, "x"),
            (plain, "esc"),
            (r#"{"r\u0065q":{"id":"1"}}"#, "req.id"),
        ] {
            assert_eq!(Scan::find(doc.trim(), name), Err(Fallback::Serde), "{name}");
            agree(doc, name);
        }
        // `extract` decides: where skipping and parsing differ, and whatever the scan refuses.
        let deep = format!(
            "{}1{}",
            "[".repeat(SCAN_DEPTH + 1),
            "]".repeat(SCAN_DEPTH + 1)
        );
        for (doc, name) in [
            (r#"{"a":"\ud800","b":"1"}"#, "b"),
            (r#"{"x":1e999,"a":"v"}"#, "a"),
            (r#"{"x":1e-999,"a":"v"}"#, "a"),
            ("{\"a\":\"x\u{1}\",\"b\":\"1\"}", "b"),
            (r#"{"a":1,"b":01}"#, "a"),
            (r#"{"a":[1,],"b":"1"}"#, "b"),
            (deep.as_str(), "a"),
        ] {
            assert_eq!(
                Scan::find(doc.trim(), name),
                Err(Fallback::Extract),
                "{doc}"
            );
            agree(doc, name);
        }
    }

    #[test]
    fn not_json() {
        let mut out = Vec::new();
        assert!(!extract("{oops", &mut out));
        assert!(!extract("42", &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn top_level_array_duplicates_and_dotted_keys() {
        let mut out = Vec::new();
        assert!(extract(r#"[{"a":1},{"a":2}]"#, &mut out));
        assert_eq!(get(&out, "{}.a"), Some(&Value::Multi(vec![s("1"), s("2")])));
        out.clear();
        assert!(extract(
            r#"{"a.b":"x","a":{"b":"y"},"e":[],"o":{}}"#,
            &mut out
        ));
        // Key order: "a" sorts before "a.b".
        assert_eq!(get(&out, "a.b"), Some(&Value::Multi(vec![s("y"), s("x")])));
        assert_eq!(get(&out, "e{}"), None);
        out.clear();
        assert!(extract(r#"{"m":[[1,2],[3]]}"#, &mut out));
        assert_eq!(
            get(&out, "m{}{}"),
            Some(&Value::Multi(vec![s("1"), s("2"), s("3")]))
        );
    }
}
