//! `SEDCMD-<class>`: sed-style edits of `_raw` at index time (masking).

use regex::Regex;

/// A compiled SEDCMD: `s/<regex>/<replacement>/[g|N]` or `y/<from>/<to>/`.
#[derive(Debug, Clone)]
pub enum SedCmd {
    /// Substitution; `\1`…`\9` in the replacement refer to capture groups.
    Substitute {
        /// The pattern.
        regex: Regex,
        /// Replacement in `regex` crate syntax (`${1}`, `$$`).
        replacement: String,
        /// Which match to replace: `None` = all (`g`), `Some(n)` = the n-th (1-based).
        which: Option<usize>,
    },
    /// Character translation: the i-th char of `from` becomes the i-th char of `to`.
    Translate {
        /// Source characters.
        from: Vec<char>,
        /// Replacement characters, same length as `from`.
        to: Vec<char>,
    },
}

impl SedCmd {
    /// Parses a SEDCMD value; the error text says what is wrong.
    pub fn parse(spec: &str) -> Result<SedCmd, String> {
        let mut chars = spec.trim().chars();
        let op = chars.next().ok_or("empty SEDCMD")?;
        let delim = chars
            .next()
            .ok_or("SEDCMD needs a delimiter after `s` or `y`")?;
        let parts = split_unescaped(chars.as_str(), delim);
        if parts.len() != 3 {
            return Err(format!("expected {op}{delim}…{delim}…{delim}[flags]"));
        }
        match op {
            's' => {
                let regex = Regex::new(&parts[0]).map_err(|e| format!("bad regex: {e}"))?;
                let flags = parts[2].trim();
                let which = match flags {
                    "g" => None,
                    "" => Some(1),
                    n => match n.parse::<usize>() {
                        Ok(n) if n > 0 => Some(n),
                        _ => return Err(format!("unknown flags `{n}` (expected g or a number)")),
                    },
                };
                Ok(SedCmd::Substitute {
                    regex,
                    replacement: convert_replacement(&parts[1]),
                    which,
                })
            }
            'y' => {
                let from: Vec<char> = parts[0].chars().collect();
                let to: Vec<char> = parts[1].chars().collect();
                if from.len() != to.len() {
                    return Err("y/// needs strings of equal length".to_string());
                }
                Ok(SedCmd::Translate { from, to })
            }
            other => Err(format!("unknown command `{other}` (expected s or y)")),
        }
    }

    /// Applies the edit to `raw` in place; `scratch` is a reusable buffer.
    pub fn apply(&self, raw: &mut String, scratch: &mut String) {
        match self {
            SedCmd::Substitute {
                regex,
                replacement,
                which,
            } => {
                scratch.clear();
                let mut last = 0;
                let mut changed = false;
                for (i, caps) in regex.captures_iter(raw).enumerate() {
                    if which.is_some_and(|n| n != i + 1) {
                        continue;
                    }
                    let Some(m) = caps.get(0) else { continue };
                    scratch.push_str(&raw[last..m.start()]);
                    caps.expand(replacement, scratch);
                    last = m.end();
                    changed = true;
                    if which.is_some() {
                        break;
                    }
                }
                if changed {
                    scratch.push_str(&raw[last..]);
                    std::mem::swap(raw, scratch);
                }
            }
            SedCmd::Translate { from, to } => {
                if !raw.chars().any(|c| from.contains(&c)) {
                    return;
                }
                scratch.clear();
                for c in raw.chars() {
                    match from.iter().position(|&f| f == c) {
                        Some(i) => scratch.push(to[i]),
                        None => scratch.push(c),
                    }
                }
                std::mem::swap(raw, scratch);
            }
        }
    }
}

/// Splits on `delim` not preceded by a backslash; `\<delim>` becomes `<delim>`.
fn split_unescaped(s: &str, delim: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&delim) {
            chars.next();
            if let Some(p) = parts.last_mut() {
                p.push(delim);
            }
        } else if c == delim {
            parts.push(String::new());
        } else if let Some(p) = parts.last_mut() {
            p.push(c);
        }
    }
    parts
}

/// sed replacement (`\1`, `&`-free) to `regex` syntax (`${1}`, `$$`).
fn convert_replacement(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(d) if d.is_ascii_digit() => {
                    out.push_str("${");
                    out.push(d);
                    out.push('}');
                }
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            '$' => out.push_str("$$"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(spec: &str, input: &str) -> String {
        let cmd = SedCmd::parse(spec).unwrap();
        let (mut raw, mut scratch) = (input.to_string(), String::new());
        cmd.apply(&mut raw, &mut scratch);
        raw
    }

    #[test]
    fn substitute_masks_all_first_or_nth() {
        let card = "card=4111111111111111 and 5500000000000004";
        assert_eq!(
            run(r"s/\d{12}(\d{4})/xxxxxxxxxxxx\1/g", card),
            "card=xxxxxxxxxxxx1111 and xxxxxxxxxxxx0004"
        );
        assert_eq!(
            run(r"s/\d{12}(\d{4})/X\1/", card),
            "card=X1111 and 5500000000000004"
        );
        assert_eq!(
            run(r"s/\d{12}(\d{4})/X\1/2", card),
            "card=4111111111111111 and X0004"
        );
        assert_eq!(run(r"s/a\/b/$5/g", "x a/b"), "x $5");
    }

    #[test]
    fn translate() {
        assert_eq!(run("y/abc/xyz/", "aabbcd"), "xxyyzd");
    }

    #[test]
    fn bad_commands_are_errors() {
        assert!(SedCmd::parse("s/(/x/g").unwrap_err().contains("bad regex"));
        assert!(SedCmd::parse("y/ab/x/").is_err());
        assert!(SedCmd::parse("q/a/b/").is_err());
        assert!(SedCmd::parse("s/a/b").is_err());
        assert!(SedCmd::parse("s/a/b/zz").is_err());
    }
}
