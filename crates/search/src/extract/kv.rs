//! Automatic `key=value` extraction (`KV_MODE=auto`): a hand-written single pass over `_raw`.
//!
//! Grammar, scanned left to right without overlap (as `Regex::find_iter` would):
//! a key is `[A-Za-z_][A-Za-z0-9_.-]*` not preceded by a key character, followed by `=`, then
//! either `"quoted value"` (no escapes; a missing closing quote means no pair) or a non-empty run of
//! bytes other than ASCII white space and `, ; " & ' ) ] } >`. Key names are sanitised:
//! every non-alphanumeric byte becomes `_`. The naive twin (a regex tried at every position) is in
//! the tests and checked by proptest.

/// Whether `b` may appear in a key.
#[inline]
fn is_key(b: u8) -> bool {
    CLASS[b as usize] & KEY != 0
}

/// Whether `b` ends an unquoted value.
#[inline]
fn ends_value(b: u8) -> bool {
    CLASS[b as usize] & END != 0
}

/// [`CLASS`] bits: a key byte, a byte that ends an unquoted value.
const KEY: u8 = 1;
const END: u8 = 2;

/// Both byte classes of the grammar as one table: the scan asks one of them for nearly every
/// byte it passes, and a load is cheaper than a chain of comparisons.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-') {
            t[b] |= KEY;
        }
        if matches!(
            c,
            b' ' | b'\t'
                | b'\n'
                | b'\r'
                | 0x0b
                | 0x0c
                | b','
                | b';'
                | b'"'
                | b'&'
                | b'\''
                | b')'
                | b']'
                | b'}'
                | b'>'
        ) {
            t[b] |= END;
        }
        b += 1;
    }
    t
};

/// Calls `f(sanitised_key, value)` for every pair of `raw`, in order (duplicates included; the
/// caller keeps the first).
pub fn extract(raw: &str, mut f: impl FnMut(&str, &str)) {
    let mut key = String::new();
    scan(raw, |k, value| {
        key.clear();
        key.extend(k.bytes().map(|c| {
            if c.is_ascii_alphanumeric() {
                c as char
            } else {
                '_'
            }
        }));
        f(&key, value);
        false
    });
}

/// The value of the first pair whose sanitised key is `name` (what [`extract`] would give first
/// for that name), without allocating.
pub fn find<'a>(raw: &'a str, name: &str) -> Option<&'a str> {
    let mut found = None;
    scan(raw, |k, value| {
        let same = k.len() == name.len()
            && k.bytes().zip(name.bytes()).all(|(c, n)| {
                if c.is_ascii_alphanumeric() {
                    c == n
                } else {
                    n == b'_'
                }
            });
        if same {
            found = Some(value);
        }
        same
    });
    found
}

/// The grammar: calls `f(raw_key, value)` for every pair in order until `f` returns true.
fn scan<'a>(raw: &'a str, mut f: impl FnMut(&'a str, &'a str) -> bool) {
    let b = raw.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        let Some(off) = memchr::memchr(b'=', &b[i..]) else {
            return;
        };
        let eq = i + off;
        let mut k0 = eq;
        while k0 > i && is_key(b[k0 - 1]) {
            k0 -= 1;
        }
        let boundary = k0 == 0 || !is_key(b[k0 - 1]);
        let key_ok = k0 < eq && boundary && (b[k0].is_ascii_alphabetic() || b[k0] == b'_');
        if !key_ok {
            i = eq + 1;
            continue;
        }
        let vstart = eq + 1;
        let (value, end) = if b.get(vstart) == Some(&b'"') {
            match memchr::memchr(b'"', &b[vstart + 1..]) {
                Some(len) => (&raw[vstart + 1..vstart + 1 + len], vstart + len + 2),
                None => {
                    i = eq + 1;
                    continue;
                }
            }
        } else {
            let len = b[vstart..]
                .iter()
                .position(|&c| ends_value(c))
                .unwrap_or(n - vstart);
            if len == 0 {
                i = eq + 1;
                continue;
            }
            (&raw[vstart..vstart + len], vstart + len)
        };
        if f(&raw[k0..eq], value) {
            return;
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(raw: &str) -> Vec<(String, String)> {
        let mut v = Vec::new();
        extract(raw, |k, x| v.push((k.to_string(), x.to_string())));
        v
    }

    fn p(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    /// Naive twin: the grammar as a regex, tried at every start position, jumping past matches.
    fn naive(raw: &str) -> Vec<(String, String)> {
        let re = regex::Regex::new(
            r#"^([A-Za-z_][A-Za-z0-9_.\-]*)=(?:"([^"]*)"|([^ \t\n\r\x0B\x0C,;"&')\]}>]+))"#,
        )
        .unwrap();
        let b = raw.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < raw.len() {
            if !raw.is_char_boundary(i) {
                i += 1;
                continue;
            }
            let boundary = i == 0 || !is_key(b[i - 1]);
            if boundary {
                if let Some(c) = re.captures(&raw[i..]) {
                    let key: String = c[1]
                        .chars()
                        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
                        .collect();
                    let val = c.get(2).or(c.get(3)).map(|m| m.as_str()).unwrap_or("");
                    out.push((key, val.to_string()));
                    i += c.get(0).map(|m| m.end()).unwrap_or(1);
                    continue;
                }
            }
            i += 1;
        }
        out
    }

    #[test]
    fn simple_and_quoted() {
        assert_eq!(
            pairs(r#"user=bob action="log in" status=200, x=1;y=2"#),
            vec![
                p("user", "bob"),
                p("action", "log in"),
                p("status", "200"),
                p("x", "1"),
                p("y", "2")
            ]
        );
    }

    #[test]
    fn names_are_sanitised_and_bounded() {
        assert_eq!(pairs("a.b-c=1 9x=2 -k=3"), vec![p("a_b_c", "1")]);
        assert_eq!(pairs("[uid=7]"), vec![p("uid", "7")]);
        assert_eq!(pairs(r#"a="x"b=2"#), vec![p("a", "x"), p("b", "2")]);
    }

    #[test]
    fn empty_and_unclosed_values() {
        assert_eq!(pairs("a= b=1"), vec![p("b", "1")]);
        assert_eq!(pairs(r#"a="" b="open"#), vec![p("a", "")]);
        assert_eq!(
            pairs("url=http://h/?q=1&r=2"),
            vec![p("url", "http://h/?q=1"), p("r", "2")]
        );
        assert_eq!(pairs("=== x"), vec![]);
    }

    #[test]
    fn duplicates_are_reported_in_order() {
        assert_eq!(pairs("a=1 a=2"), vec![p("a", "1"), p("a", "2")]);
    }

    #[test]
    fn loghub_openssh_line() {
        let raw = "Dec 10 06:55:48 LabSZ sshd[24200]: pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=173.234.31.186  user=root";
        let got = pairs(raw);
        assert_eq!(
            got,
            vec![
                p("uid", "0"),
                p("euid", "0"),
                p("tty", "ssh"),
                p("rhost", "173.234.31.186"),
                p("user", "root")
            ]
        );
    }

    /// The byte table against the grammar's classes as the naive twin's regex spells them.
    #[test]
    fn byte_classes_are_the_grammars() {
        let key = regex::bytes::Regex::new(r"^[A-Za-z0-9_.\-]$").unwrap();
        let end = regex::bytes::Regex::new(r#"^[ \t\n\r\x0B\x0C,;"&')\]}>]$"#).unwrap();
        for b in 0..=255u8 {
            assert_eq!(is_key(b), key.is_match(&[b]), "key byte {b:#04x}");
            assert_eq!(ends_value(b), end.is_match(&[b]), "value end {b:#04x}");
        }
    }

    proptest::proptest! {
        #[test]
        fn matches_naive_twin(s in r#"[a-c_.=" ,;\-0-9&\]é]{0,40}"#) {
            proptest::prop_assert_eq!(pairs(&s), naive(&s));
        }

        /// `find` gives what the first extracted pair of that (sanitised) name holds.
        #[test]
        fn find_is_first_extracted(s in r#"[a-c_.=" ,;\-0-9&\]é]{0,40}"#, name in "[a-c_]{1,3}") {
            let first = pairs(&s).into_iter().find(|(k, _)| *k == name).map(|(_, v)| v);
            proptest::prop_assert_eq!(find(&s, &name).map(str::to_string), first);
        }
    }
}
