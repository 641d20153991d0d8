//! Field-name wildcards (`fields`, `table`, `rename`): `*` matches any run of characters.

use regex::Regex;

/// A compiled field-name pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    /// The pattern as written.
    text: String,
    /// Anchored regex with one capture group per `*`; `None` when there is no wildcard.
    re: Option<Regex>,
}

impl Glob {
    /// Compiles `text`.
    pub fn new(text: &str) -> Glob {
        let re = text.contains('*').then(|| {
            let parts: Vec<String> = text.split('*').map(regex::escape).collect();
            // Escaped literal parts joined by `(.*)` always form a valid regex.
            Regex::new(&format!("^{}$", parts.join("(.*)")))
                .unwrap_or_else(|_| Regex::new("^$").unwrap())
        });
        Glob {
            text: text.to_string(),
            re,
        }
    }

    /// The pattern as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the pattern has a wildcard.
    pub fn is_wild(&self) -> bool {
        self.re.is_some()
    }

    /// Whether `name` matches (case-sensitive, as field names are).
    pub fn is_match(&self, name: &str) -> bool {
        match &self.re {
            Some(re) => re.is_match(name),
            None => self.text == name,
        }
    }

    /// The texts the `*`s matched in `name`, or `None` when it does not match.
    pub fn captures(&self, name: &str) -> Option<Vec<String>> {
        match &self.re {
            Some(re) => re.captures(name).map(|c| {
                c.iter()
                    .skip(1)
                    .map(|m| m.map_or(String::new(), |m| m.as_str().to_string()))
                    .collect()
            }),
            None => (self.text == name).then(Vec::new),
        }
    }

    /// `self` with its `*`s replaced by `caps` in order (missing captures become empty; extra
    /// captures are dropped).
    pub fn fill(&self, caps: &[String]) -> String {
        let mut out = String::new();
        for (i, part) in self.text.split('*').enumerate() {
            if i > 0 {
                out.push_str(caps.get(i - 1).map_or("", |s| s.as_str()));
            }
            out.push_str(part);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_capture_fill() {
        let g = Glob::new("foo*_x*");
        assert!(g.is_match("foo1_x2"));
        assert!(!g.is_match("bar"));
        assert_eq!(
            g.captures("fooA_xB"),
            Some(vec!["A".to_string(), "B".to_string()])
        );
        assert_eq!(
            Glob::new("bar*-*").fill(&["A".into(), "B".into()]),
            "barA-B"
        );
        assert!(Glob::new("a.b").is_match("a.b"));
        assert!(!Glob::new("a.b").is_match("axb"));
        assert!(Glob::new("*").is_match(""));
    }
}
