//! Regular expressions for `match`, `replace`, `like` and `rex`: PCRE-style syntax converted to
//! the `regex` crate's, compiled once per distinct pattern per command.

use crate::error::SearchError;
use regex::Regex;
use std::collections::HashMap;

/// Most distinct patterns kept compiled by one evaluator (patterns computed per row could
/// otherwise grow the cache without bound).
const MAX_CACHED: usize = 256;

/// Compiles a PCRE-style pattern: `(?<name>…)` groups become `(?P<name>…)`. Errors are user
/// errors quoting the pattern.
pub fn compile_regex(pat: &str) -> Result<Regex, SearchError> {
    let mut conv = String::with_capacity(pat.len() + 8);
    let b = pat.as_bytes();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i..].starts_with(b"(?<") && !matches!(b.get(i + 3), Some(b'=') | Some(b'!')) {
            conv.push_str(&pat[last..i]);
            conv.push_str("(?P<");
            i += 3;
            last = i;
            continue;
        }
        i += 1;
    }
    conv.push_str(&pat[last.min(pat.len())..]);
    Regex::new(&conv)
        .map_err(|e| SearchError::User(format!("invalid regular expression {pat:?}: {e}")))
}

/// Converts a `like` pattern (`%` any run, `_` one character, everything else literal) to an
/// anchored regex.
fn like_to_regex(pat: &str) -> String {
    let mut re = String::from("(?s)^");
    for c in pat.chars() {
        match c {
            '%' => re.push_str(".*"),
            '_' => re.push('.'),
            other => re.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
        }
    }
    re.push('$');
    re
}

/// Compiled patterns by their text (`like` patterns keyed with a prefix byte).
#[derive(Default)]
pub struct Cache {
    map: HashMap<String, Regex>,
}

impl Cache {
    /// The compiled regex for `pat`.
    pub fn regex(&mut self, pat: &str) -> Result<&Regex, SearchError> {
        self.get_or(pat.to_string(), || compile_regex(pat))
    }

    /// The compiled form of a `like` pattern.
    pub fn like(&mut self, pat: &str) -> Result<&Regex, SearchError> {
        self.get_or(format!("\u{0}{pat}"), || compile_regex(&like_to_regex(pat)))
    }

    fn get_or(
        &mut self,
        key: String,
        make: impl FnOnce() -> Result<Regex, SearchError>,
    ) -> Result<&Regex, SearchError> {
        if !self.map.contains_key(&key) {
            if self.map.len() >= MAX_CACHED {
                self.map.clear();
            }
            let re = make()?;
            self.map.insert(key.clone(), re);
        }
        self.map
            .get(&key)
            .ok_or_else(|| SearchError::User("internal: regex cache miss".to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcre_named_groups() {
        let re = compile_regex(r"user=(?<user>\w+").unwrap_err();
        assert!(re.to_string().contains("invalid regular expression"));
        let re = compile_regex(r"user=(?<user>\w+)").unwrap();
        assert_eq!(&re.captures("user=bob").unwrap()["user"], "bob");
        // An escaped parenthesis is not a group opener.
        assert!(compile_regex(r"a\(?<b").unwrap().is_match("a<b"));
    }

    #[test]
    fn like_patterns() {
        let mut c = Cache::default();
        assert!(c.like("a%c").unwrap().is_match("abbbc"));
        assert!(c.like("a_c").unwrap().is_match("abc"));
        assert!(!c.like("a_c").unwrap().is_match("abbc"));
        assert!(c.like("1.5%").unwrap().is_match("1.50"));
        assert!(!c.like("1.5%").unwrap().is_match("105"));
    }
}
