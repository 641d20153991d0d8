//! `punct`: the punctuation skeleton of an event, used to group events by shape.

/// Longest `punct` value kept, in characters (Splunk keeps about 30).
pub const MAX_PUNCT: usize = 30;

/// Writes the punctuation skeleton of `raw` into `out` (cleared first): every punctuation
/// character is kept, a space becomes `_`, a tab `t`, letters and digits are dropped; at most
/// [`MAX_PUNCT`] characters, and only from the first line.
pub fn punct(raw: &str, out: &mut String) {
    out.clear();
    let mut n = 0;
    for c in raw.chars() {
        if n >= MAX_PUNCT || c == '\n' || c == '\r' {
            break;
        }
        let keep = match c {
            ' ' => Some('_'),
            '\t' => Some('t'),
            c if c.is_ascii_punctuation() => Some(c),
            _ => None,
        };
        if let Some(k) = keep {
            out.push(k);
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn skeleton() {
        let mut s = String::new();
        super::punct(
            "127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /a\"",
            &mut s,
        );
        assert_eq!(s, "..._-_-_[//:::_-]_\"_/\"");
    }
}
