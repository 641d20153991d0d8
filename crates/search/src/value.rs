//! Field values of result rows and their Splunk formatting and ordering.
//!
//! Fields are strings until used numerically: [`Value::to_num`] parses a string on demand, and
//! comparisons are numeric only when both sides are numbers.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

/// One field value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// No value (a missing field, `null()`).
    Null,
    /// A boolean (eval comparisons); prints as `true`/`false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A multivalue field.
    Multi(Vec<Value>),
}

impl Value {
    /// The value as a number: numbers, numeric strings (surrounding spaces allowed), and a
    /// one-element multivalue holding one; `None` otherwise.
    pub fn to_num(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Str(s) => parse_num(s),
            Value::Multi(v) if v.len() == 1 => v[0].to_num(),
            _ => None,
        }
    }

    /// Whether this is [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value as text: `""` for null, Splunk number formatting, multivalues joined by newline.
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            Value::Str(s) => Cow::Borrowed(s),
            Value::Null => Cow::Borrowed(""),
            Value::Bool(true) => Cow::Borrowed("true"),
            Value::Bool(false) => Cow::Borrowed("false"),
            other => Cow::Owned(other.to_string()),
        }
    }

    /// The values of this field: each element of a multivalue, nothing for null, else itself.
    pub fn iter_values(&self) -> std::slice::Iter<'_, Value> {
        match self {
            Value::Multi(v) => v.iter(),
            Value::Null => [].iter(),
            other => std::slice::from_ref(other).iter(),
        }
    }

    /// A value from a list: null when empty, the single value when one, else a multivalue.
    pub fn from_values(mut v: Vec<Value>) -> Value {
        match v.len() {
            0 => Value::Null,
            1 => v.pop().unwrap_or(Value::Null),
            _ => Value::Multi(v),
        }
    }
}

/// Parses a number as Splunk reads numeric strings: decimal with optional sign, fraction and
/// exponent; surrounding white space allowed; `inf`/`nan` words are not numbers.
pub fn parse_num(s: &str) -> Option<f64> {
    let t = s.trim();
    let first = t.bytes().next()?;
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return None;
    }
    if !t.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    if t.bytes()
        .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E')
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Writes a number as Splunk prints it: integers without a fraction, others in the shortest
/// form that round-trips.
pub fn format_num(n: f64, f: &mut impl fmt::Write) -> fmt::Result {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e17 {
        write!(f, "{}", n as i64)
    } else {
        write!(f, "{n}")
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Num(n) => format_num(*n, f),
            Value::Str(s) => f.write_str(s),
            Value::Multi(v) => {
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str("\n")?;
                    }
                    write!(f, "{x}")?;
                }
                Ok(())
            }
        }
    }
}

/// Splunk's automatic order: nulls first, then numbers numerically, then strings
/// lexicographically (byte order). Total, so it can drive a stable sort.
pub fn cmp_auto(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    match (a.to_num(), b.to_num()) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.as_str().cmp(&b.as_str()),
    }
}

/// Order of two strings under [`cmp_auto`] without building values.
pub fn cmp_auto_str(a: &str, b: &str) -> Ordering {
    match (parse_num(a), parse_num(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_print_without_fraction() {
        assert_eq!(Value::Num(3.0).to_string(), "3");
        assert_eq!(Value::Num(-12.0).to_string(), "-12");
        assert_eq!(Value::Num(2.5).to_string(), "2.5");
        assert_eq!(Value::Num(0.1 + 0.2).to_string(), "0.30000000000000004");
    }

    #[test]
    fn multivalue_joins_with_newline() {
        let v = Value::Multi(vec![Value::Str("a".into()), Value::Num(1.0)]);
        assert_eq!(v.to_string(), "a\n1");
        assert_eq!(v.as_str(), "a\n1");
    }

    #[test]
    fn numeric_strings() {
        assert_eq!(Value::Str(" 42 ".into()).to_num(), Some(42.0));
        assert_eq!(Value::Str("1e3".into()).to_num(), Some(1000.0));
        assert_eq!(Value::Str("-0.5".into()).to_num(), Some(-0.5));
        assert_eq!(Value::Str("inf".into()).to_num(), None);
        assert_eq!(Value::Str("12abc".into()).to_num(), None);
        assert_eq!(Value::Str("".into()).to_num(), None);
        assert_eq!(Value::Null.to_num(), None);
        assert!(Value::Null.is_null());
        assert_eq!(Value::Null.as_str(), "");
    }

    #[test]
    fn auto_order_numbers_before_strings() {
        let mut v = [
            Value::Str("b".into()),
            Value::Str("10".into()),
            Value::Num(9.0),
            Value::Str("a".into()),
            Value::Null,
        ];
        v.sort_by(cmp_auto);
        let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(s, vec!["", "9", "10", "a", "b"]);
        assert_eq!(cmp_auto_str("9", "10"), Ordering::Less);
        assert_eq!(cmp_auto_str("x", "10"), Ordering::Greater);
    }
}
