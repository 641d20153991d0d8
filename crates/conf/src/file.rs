//! One `.conf` file: parsing text into stanzas and keys.

use std::sync::Arc;

use crate::{ConfError, DEFAULT_STANZA};

/// One `key = value` setting, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key as written (case preserved; Splunk keys are case-sensitive).
    pub key: String,
    /// The value, trimmed; continuation lines are joined with `\n`.
    pub value: String,
    /// The file the setting came from.
    pub origin: Arc<str>,
    /// 1-based line number of the key in `origin`.
    pub line: u32,
}

/// A `[name]` section: its settings in file order, each key at most once (a later duplicate
/// replaces the earlier value in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stanza {
    /// The text between the brackets, trimmed.
    pub name: String,
    entries: Vec<Entry>,
}

impl Stanza {
    /// An empty stanza named `name`.
    pub fn new(name: impl Into<String>) -> Stanza {
        Stanza {
            name: name.into(),
            entries: Vec::new(),
        }
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entry(key).map(|e| e.value.as_str())
    }

    /// The full entry of `key` (value, file, line), if set.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// All settings in file order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }

    /// Number of keys set.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no key is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sets a key: replaces the value (and origin) of an existing key in place, else appends.
    pub fn set(&mut self, entry: Entry) {
        match self.entries.iter_mut().find(|e| e.key == entry.key) {
            Some(old) => *old = entry,
            None => self.entries.push(entry),
        }
    }
}

/// A parsed `.conf` file: stanzas in order of first appearance. A header repeated later in the
/// file continues the same stanza.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfFile {
    /// Where the text came from, used in messages.
    pub origin: Arc<str>,
    stanzas: Vec<Stanza>,
}

impl ConfFile {
    /// Parses `text`; `origin` names it in errors and in every [`Entry`].
    pub fn parse(text: &str, origin: &str) -> Result<ConfFile, ConfError> {
        let origin: Arc<str> = Arc::from(origin);
        let mut file = ConfFile {
            origin: origin.clone(),
            stanzas: Vec::new(),
        };
        let mut current = file.stanza_index(DEFAULT_STANZA);
        let mut lines = text.lines().enumerate();
        while let Some((idx, raw)) = lines.next() {
            let line_no = idx as u32 + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if trimmed.starts_with('[') {
                let Some(close) = trimmed.rfind(']') else {
                    return Err(syntax(
                        &origin,
                        line_no,
                        "stanza header without closing `]`",
                    ));
                };
                let name = trimmed[1..close].trim();
                current = file.stanza_index(name);
                continue;
            }
            let mut logical = trimmed.to_string();
            while logical.ends_with('\\') {
                logical.pop();
                let Some((_, next)) = lines.next() else { break };
                logical.push('\n');
                logical.push_str(next.trim_end());
            }
            let Some(eq) = logical.find('=') else {
                return Err(syntax(
                    &origin,
                    line_no,
                    "expected `key = value` or `[stanza]`",
                ));
            };
            let key = logical[..eq].trim();
            if key.is_empty() {
                return Err(syntax(&origin, line_no, "empty key before `=`"));
            }
            let entry = Entry {
                key: key.to_string(),
                value: logical[eq + 1..].trim().to_string(),
                origin: origin.clone(),
                line: line_no,
            };
            file.stanzas[current].set(entry);
        }
        // An implicit [default] that received nothing is not reported.
        if file.stanzas[0].name == DEFAULT_STANZA && file.stanzas[0].is_empty() {
            let explicit = text.lines().any(|l| l.trim().starts_with("[default]"));
            if !explicit {
                file.stanzas.remove(0);
            }
        }
        Ok(file)
    }

    /// Reads and parses a file; a missing file is an empty configuration, not an error.
    pub fn read(path: &std::path::Path) -> Result<ConfFile, ConfError> {
        let origin = path.display().to_string();
        match std::fs::read(path) {
            Ok(bytes) => ConfFile::parse(&String::from_utf8_lossy(&bytes), &origin),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfFile {
                origin: Arc::from(origin.as_str()),
                stanzas: Vec::new(),
            }),
            Err(source) => Err(ConfError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// The stanza named `name`, if present.
    pub fn stanza(&self, name: &str) -> Option<&Stanza> {
        self.stanzas.iter().find(|s| s.name == name)
    }

    /// All stanzas in order of first appearance.
    pub fn stanzas(&self) -> impl Iterator<Item = &Stanza> {
        self.stanzas.iter()
    }

    /// Moves the stanzas out.
    pub(crate) fn into_stanzas(self) -> Vec<Stanza> {
        self.stanzas
    }

    fn stanza_index(&mut self, name: &str) -> usize {
        match self.stanzas.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.stanzas.push(Stanza::new(name));
                self.stanzas.len() - 1
            }
        }
    }
}

fn syntax(origin: &str, line: u32, message: &str) -> ConfError {
    ConfError::Syntax {
        origin: origin.to_string(),
        line,
        message: message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stanzas_keys_comments_and_default() {
        let text =
            "top = 1\n# comment\n\n[syslog]\nTIME_FORMAT = %b %d\n  KEY=  v  \n[other]\nA=\n";
        let f = ConfFile::parse(text, "p.conf").unwrap();
        let names: Vec<_> = f.stanzas().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["default", "syslog", "other"]);
        assert_eq!(f.stanza("default").unwrap().get("top"), Some("1"));
        let s = f.stanza("syslog").unwrap();
        assert_eq!(s.get("TIME_FORMAT"), Some("%b %d"));
        assert_eq!(s.get("KEY"), Some("v"));
        assert_eq!(s.entry("KEY").unwrap().line, 6);
        assert_eq!(f.stanza("other").unwrap().get("A"), Some(""));
    }

    #[test]
    fn continuation_lines_join_with_newline() {
        let f = ConfFile::parse("[s]\nsearch = a \\\n  | b\nnext = 2\n", "x").unwrap();
        let s = f.stanza("s").unwrap();
        assert_eq!(s.get("search"), Some("a \n  | b"));
        assert_eq!(s.entry("next").unwrap().line, 4);
    }

    #[test]
    fn value_may_contain_equals_and_brackets() {
        let f = ConfFile::parse("[s]\nLINE_BREAKER = ([\\r\\n]+)\\d=x\n", "x").unwrap();
        assert_eq!(
            f.stanza("s").unwrap().get("LINE_BREAKER"),
            Some("([\\r\\n]+)\\d=x")
        );
    }

    #[test]
    fn repeated_stanza_and_key_later_wins_in_place() {
        let f = ConfFile::parse("[a]\nk=1\nj=2\n[b]\n[a]\nk=3\n", "x").unwrap();
        let a = f.stanza("a").unwrap();
        let keys: Vec<_> = a
            .entries()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(keys, [("k", "3"), ("j", "2")]);
        assert_eq!(f.stanzas().count(), 2);
    }

    #[test]
    fn malformed_line_names_file_and_line() {
        let err = ConfFile::parse("[a]\nok = 1\nthis is wrong\n", "etc/props.conf").unwrap_err();
        assert_eq!(
            err.to_string(),
            "etc/props.conf:3: expected `key = value` or `[stanza]`"
        );
        let err = ConfFile::parse("\n[a\n", "f").unwrap_err();
        assert!(matches!(err, ConfError::Syntax { line: 2, .. }));
        let err = ConfFile::parse("[a]\n = v\n", "f").unwrap_err();
        assert!(matches!(err, ConfError::Syntax { line: 2, .. }));
    }

    #[test]
    fn empty_text_has_no_stanzas() {
        assert_eq!(ConfFile::parse("", "x").unwrap().stanzas().count(), 0);
        assert_eq!(
            ConfFile::parse("# only\n", "x").unwrap().stanzas().count(),
            0
        );
    }
}
