//! `printf(format, args…)`: C's printf conversions as Splunk documents them — `%d %i %u %s %c
//! %f %F %e %E %g %G %x %X %o %%`, the flags `- + space 0 # '` (`'` groups thousands with
//! commas), a width and a precision (each may be `*`, taken from the arguments); length
//! modifiers (`l`, `ll`, `h`, …) are accepted and ignored.
//!
//! A conversion without an argument, or with a null one, prints nothing; a numeric conversion
//! of a value that is not a number prints the value as `%s` would.

use crate::error::SearchError;
use crate::value::Value;

/// Calls `printf`, or returns `None` for other names.
pub fn call(name: &str, v: &[Value]) -> Option<Result<Value, SearchError>> {
    if name != "printf" {
        return None;
    }
    if v[0].is_null() {
        return Some(Ok(Value::Null));
    }
    Some(printf(&v[0].as_str(), &v[1..]).map(Value::Str))
}

/// One conversion's flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    group: bool,
    width: usize,
    precision: Option<usize>,
}

/// Largest width or precision accepted (keeps a hostile format from allocating without bound).
const MAX_WIDTH: usize = 10_000;

fn printf(fmt: &str, args: &[Value]) -> Result<String, SearchError> {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut args = args.iter();
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut sp = Spec::default();
        while let Some(&f) = it.peek() {
            match f {
                '-' => sp.left = true,
                '+' => sp.plus = true,
                ' ' => sp.space = true,
                '0' => sp.zero = true,
                '#' => sp.alt = true,
                '\'' => sp.group = true,
                _ => break,
            }
            it.next();
        }
        let number = |it: &mut std::iter::Peekable<std::str::Chars>,
                      args: &mut std::slice::Iter<Value>|
         -> Result<Option<i64>, SearchError> {
            if it.peek() == Some(&'*') {
                it.next();
                return Ok(Some(
                    args.next().and_then(Value::to_num).unwrap_or(0.0) as i64
                ));
            }
            let mut n: Option<i64> = None;
            while let Some(d) = it.peek().and_then(|c| c.to_digit(10)) {
                n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as i64));
                it.next();
            }
            match n {
                Some(n) if n as usize > MAX_WIDTH => Err(SearchError::User(format!(
                    "printf: width or precision {n} is larger than {MAX_WIDTH}"
                ))),
                n => Ok(n),
            }
        };
        if let Some(w) = number(&mut it, &mut args)? {
            if w < 0 {
                sp.left = true;
            }
            sp.width = (w.unsigned_abs() as usize).min(MAX_WIDTH);
        }
        if it.peek() == Some(&'.') {
            it.next();
            let p = number(&mut it, &mut args)?.unwrap_or(0);
            sp.precision = (p >= 0).then_some((p as usize).min(MAX_WIDTH));
        }
        while matches!(it.peek(), Some('h' | 'l' | 'L' | 'q' | 'j' | 'z' | 't')) {
            it.next();
        }
        let Some(conv) = it.next() else {
            return Err(SearchError::User(format!(
                "printf: the format {fmt:?} ends inside a conversion"
            )));
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        if !"diuscfFeEgGxXo".contains(conv) {
            return Err(SearchError::User(format!(
                "printf: unknown conversion '%{conv}' in {fmt:?}"
            )));
        }
        let arg = match args.next() {
            Some(a) if !a.is_null() => a,
            _ => continue,
        };
        let body = convert(conv, &sp, arg);
        pad(&mut out, &body, &sp, conv);
    }
    Ok(out)
}

/// The text of one conversion before width padding: (sign or prefix, digits).
fn convert(conv: char, sp: &Spec, arg: &Value) -> (String, String) {
    let num = arg.to_num().filter(|_| !matches!(conv, 's' | 'c'));
    if matches!(conv, 's') || (num.is_none() && conv != 'c') {
        let s = arg.as_str();
        return match sp.precision {
            Some(p) => (String::new(), s.chars().take(p).collect()),
            None => (String::new(), s.into_owned()),
        };
    }
    if conv == 'c' {
        let c = match arg.to_num() {
            Some(n) => char::from_u32(n as u32)
                .map(String::from)
                .unwrap_or_default(),
            None => arg.as_str().chars().take(1).collect(),
        };
        return (String::new(), c);
    }
    let n = num.unwrap_or(0.0);
    let sign = |neg: bool| {
        if neg {
            "-"
        } else if sp.plus {
            "+"
        } else if sp.space {
            " "
        } else {
            ""
        }
        .to_string()
    };
    match conv {
        'd' | 'i' | 'u' => {
            let i = n.trunc();
            let mut digits = format!("{:.0}", i.abs());
            if let Some(p) = sp.precision {
                if p == 0 && i == 0.0 {
                    digits.clear();
                }
                while digits.len() < p {
                    digits.insert(0, '0');
                }
            }
            if sp.group {
                digits = group(&digits);
            }
            (sign(i < 0.0), digits)
        }
        'x' | 'X' | 'o' => {
            let u = n.trunc() as i64 as u64;
            let mut digits = match conv {
                'x' => format!("{u:x}"),
                'X' => format!("{u:X}"),
                _ => format!("{u:o}"),
            };
            if let Some(p) = sp.precision {
                while digits.len() < p {
                    digits.insert(0, '0');
                }
            }
            let prefix = match (sp.alt && u != 0, conv) {
                (true, 'x') => "0x",
                (true, 'X') => "0X",
                (true, _) if !digits.starts_with('0') => "0",
                _ => "",
            };
            (prefix.to_string(), digits)
        }
        _ => {
            if !n.is_finite() {
                let t = if n.is_nan() { "nan" } else { "inf" };
                let t = if conv.is_ascii_uppercase() {
                    t.to_uppercase()
                } else {
                    t.to_string()
                };
                return (sign(n < 0.0), t);
            }
            let p = sp.precision.unwrap_or(6);
            let mut digits = match conv.to_ascii_lowercase() {
                'f' => format!("{:.*}", p, n.abs()),
                'e' => exp(n.abs(), p),
                _ => general(n.abs(), p, sp.alt),
            };
            if conv.is_ascii_uppercase() {
                digits = digits.to_uppercase();
            }
            if sp.alt && p == 0 && !digits.contains('.') && conv.eq_ignore_ascii_case(&'f') {
                digits.push('.');
            }
            if sp.group && !conv.eq_ignore_ascii_case(&'e') && !digits.contains(['e', 'E']) {
                let (int, frac) = match digits.find('.') {
                    Some(i) => digits.split_at(i),
                    None => (digits.as_str(), ""),
                };
                digits = format!("{}{frac}", group(int));
            }
            (sign(n.is_sign_negative() && n != 0.0), digits)
        }
    }
}

/// `%e`: `d.ddde±XX` with `p` fraction digits (at least two exponent digits, as C).
fn exp(x: f64, p: usize) -> String {
    let s = format!("{:.*e}", p, x);
    let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%g`: `%e` when the exponent is below -4 or at least the precision, else `%f`; trailing
/// zeros removed unless `#`.
fn general(x: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let e = if x == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, x);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let mut s = if e < -4 || e >= p as i64 {
        exp(x, p - 1)
    } else {
        format!("{:.*}", (p as i64 - 1 - e).max(0) as usize, x)
    };
    if !alt {
        let (mant, tail) = match s.find('e') {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        if mant.contains('.') {
            let m = mant.trim_end_matches('0').trim_end_matches('.');
            s = format!("{m}{tail}");
        }
    }
    s
}

/// Inserts commas every three digits from the right.
fn group(int: &str) -> String {
    let mut out = String::with_capacity(int.len() + int.len() / 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Appends `prefix` + `digits` padded to the width: spaces on the left (or right with `-`),
/// or zeros between sign and digits with `0` on a numeric conversion.
fn pad(out: &mut String, (prefix, digits): &(String, String), sp: &Spec, conv: char) {
    let len = prefix.chars().count() + digits.chars().count();
    let fill = sp.width.saturating_sub(len);
    let numeric = !matches!(conv, 's' | 'c');
    let int_prec = matches!(conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o') && sp.precision.is_some();
    if sp.left {
        out.push_str(prefix);
        out.push_str(digits);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if sp.zero && numeric && !int_prec && digits.starts_with(|c: char| c.is_ascii_digit()) {
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(prefix);
        out.push_str(digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(fmt: &str, args: &[Value]) -> String {
        printf(fmt, args).unwrap()
    }

    fn n(x: f64) -> Value {
        Value::Num(x)
    }

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn integers_and_flags() {
        assert_eq!(p("%d", &[n(42.9)]), "42");
        assert_eq!(
            p("%5d|%-5d|%05d", &[n(42.0), n(42.0), n(-42.0)]),
            "   42|42   |-0042"
        );
        assert_eq!(p("%+d % d", &[n(5.0), n(5.0)]), "+5  5");
        assert_eq!(p("%'d", &[n(1234567.0)]), "1,234,567");
        assert_eq!(p("%.3d", &[n(7.0)]), "007");
        assert_eq!(p("%i", &[s("12")]), "12");
        assert_eq!(
            p(
                "%x %X %#x %o %#o",
                &[n(255.0), n(255.0), n(255.0), n(8.0), n(8.0)]
            ),
            "ff FF 0xff 10 010"
        );
        assert_eq!(p("%*d", &[n(4.0), n(1.0)]), "   1");
        assert_eq!(p("%ld", &[n(3.0)]), "3");
    }

    #[test]
    fn floats() {
        assert_eq!(p("%f", &[n(1.23456)]), "1.234560");
        assert_eq!(p("%.2f", &[n(2.675)]), "2.67");
        assert_eq!(p("%8.3f|", &[n(-1.5)]), "  -1.500|");
        assert_eq!(p("%'.2f", &[n(1234567.891)]), "1,234,567.89");
        assert_eq!(p("%e", &[n(12345.678)]), "1.234568e+04");
        assert_eq!(p("%.2E", &[n(0.000123)]), "1.23E-04");
        assert_eq!(
            p("%g %g %g", &[n(100000.0), n(1e6), n(0.0001)]),
            "100000 1e+06 0.0001"
        );
        assert_eq!(p("%g %G", &[n(3.5), n(1e-5)]), "3.5 1E-05");
        assert_eq!(p("%.3g", &[n(1.23456)]), "1.23");
    }

    #[test]
    fn strings_chars_percent() {
        assert_eq!(p("%s=%s", &[s("a"), n(1.5)]), "a=1.5");
        assert_eq!(
            p("%-4s|%4s|%.2s", &[s("ab"), s("ab"), s("abcd")]),
            "ab  |  ab|ab"
        );
        assert_eq!(p("%c%c", &[n(65.0), s("bcd")]), "Ab");
        assert_eq!(p("100%%", &[]), "100%");
        // Missing and null arguments print nothing; non-numbers print as strings.
        assert_eq!(p("[%d][%s]", &[Value::Null]), "[][]");
        assert_eq!(p("%d", &[s("abc")]), "abc");
    }

    #[test]
    fn bad_formats_are_errors() {
        assert!(printf("%q", &[]).is_err());
        assert!(printf("abc %", &[]).is_err());
        assert!(printf("%99999999d", &[n(1.0)]).is_err());
    }
}
