//! `[source::<glob>]` and `[host::<glob>]` stanza patterns.

use regex::Regex;

/// A compiled stanza pattern. Source patterns: `...` matches anything including `/`, `*` and `?`
/// match within one path segment. Host patterns: `*` matches anything, case-insensitively.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    regex: Regex,
    /// True when the pattern has no wildcard: literal stanzas win over pattern stanzas.
    pub literal: bool,
}

/// Which metadata a pattern applies to (the rules for `*` differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GlobKind {
    Source,
    Host,
}

impl Glob {
    /// Compiles `pattern`; returns the regex error text on failure.
    pub fn new(pattern: &str, kind: GlobKind) -> Result<Glob, String> {
        let mut re = String::with_capacity(pattern.len() * 2 + 8);
        re.push_str(if kind == GlobKind::Host {
            "(?is)^"
        } else {
            "(?s)^"
        });
        let mut literal = true;
        let mut rest = pattern;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with("...") {
                re.push_str(".*");
                rest = &rest[3..];
                literal = false;
                continue;
            }
            match (c, kind) {
                ('*', GlobKind::Source) => re.push_str("[^/]*"),
                ('*', GlobKind::Host) => re.push_str(".*"),
                ('?', GlobKind::Source) => re.push_str("[^/]"),
                ('?', GlobKind::Host) => re.push('.'),
                _ => {
                    let mut buf = [0u8; 4];
                    re.push_str(&regex::escape(c.encode_utf8(&mut buf)));
                }
            }
            if c == '*' || c == '?' {
                literal = false;
            }
            rest = &rest[c.len_utf8()..];
        }
        re.push('$');
        let regex = Regex::new(&re).map_err(|e| e.to_string())?;
        Ok(Glob { regex, literal })
    }

    /// True when `value` matches the whole pattern.
    pub fn matches(&self, value: &str) -> bool {
        self.regex.is_match(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_globs() {
        let g = Glob::new("/var/log/.../*.log", GlobKind::Source).unwrap();
        assert!(g.matches("/var/log/a/b/x.log"));
        assert!(g.matches("/var/log//x.log"));
        assert!(!g.matches("/var/log/x.txt"));
        let star = Glob::new("/var/log/*.log", GlobKind::Source).unwrap();
        assert!(star.matches("/var/log/x.log"));
        assert!(!star.matches("/var/log/a/x.log"));
        assert!(!star.literal);
        let lit = Glob::new("/tmp/a+b.log", GlobKind::Source).unwrap();
        assert!(lit.literal && lit.matches("/tmp/a+b.log") && !lit.matches("/tmp/aab.log"));
    }

    #[test]
    fn host_globs_are_case_insensitive() {
        let g = Glob::new("web*", GlobKind::Host).unwrap();
        assert!(g.matches("WEB-01.example.com"));
        assert!(!g.matches("db-01"));
    }
}
