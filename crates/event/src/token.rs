//! The segmenter: splits text into the terms of the lexicon.
//!
//! Like Splunk's default `segmenters.conf`, text is cut at *major* breakers (white space and
//! brackets, quotes, `|`, `;`, `,`, …) into major segments, and each major segment is cut again at
//! *minor* breakers (`/ : = @ . - $ # % \ _`). Both the major segment and each of its minor parts
//! are terms, so `10.0.0.1` is found as `10.0.0.1`, `10`, `0` and `1`. Terms are ASCII-lowercased:
//! search is case-insensitive. Bytes ≥ 0x80 are ordinary term bytes.
//!
//! Indexing and search both call [`Tokenizer::for_each`]; nothing else may split text into terms.

/// Terms longer than this many bytes are not put into the lexicon (they would only bloat it);
/// a search term longer than this cannot be answered from the index and is verified by scanning.
pub const MAX_TOKEN_LEN: usize = 128;

const MAJOR: u8 = 1;
const MINOR: u8 = 2;

const fn classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let major = b" \t\n\r\x0b\x0c[]<>(){}|!;,'\"*&?+`^~";
    let mut i = 0;
    while i < major.len() {
        t[major[i] as usize] = MAJOR;
        i += 1;
    }
    // Other ASCII control characters break too.
    let mut c = 0;
    while c < 0x20 {
        t[c] = MAJOR;
        c += 1;
    }
    t[0x7f] = MAJOR;
    let minor = b"/:=@.-$#%\\_";
    let mut j = 0;
    while j < minor.len() {
        t[minor[j] as usize] = MINOR;
        j += 1;
    }
    t
}

static CLASS: [u8; 256] = classes();

/// Whether `b` is a major breaker.
#[inline]
pub fn is_major(b: u8) -> bool {
    CLASS[b as usize] == MAJOR
}

/// Whether `b` is a minor breaker.
#[inline]
pub fn is_minor(b: u8) -> bool {
    CLASS[b as usize] == MINOR
}

/// Whether `text` is a single term as the tokenizer would emit it (no major breaker, not empty).
pub fn is_single_major_segment(text: &[u8]) -> bool {
    !text.is_empty() && !text.iter().any(|&b| is_major(b))
}

/// Reusable tokenizer; holds the lowercase buffer so the hot loop does not allocate.
#[derive(Debug, Default)]
pub struct Tokenizer {
    buf: Vec<u8>,
}

impl Tokenizer {
    /// A tokenizer with an empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `f` with every term of `text`, lowercased: each major segment, then, if the segment
    /// has minor breakers, each non-empty minor part. Terms may repeat; callers dedup.
    /// Terms longer than [`MAX_TOKEN_LEN`] are skipped.
    pub fn for_each(&mut self, text: &[u8], mut f: impl FnMut(&[u8])) {
        self.buf.clear();
        // Copy then lowercase in place: both vectorise (a mapped `extend` goes byte by byte).
        self.buf.extend_from_slice(text);
        self.buf.make_ascii_lowercase();
        let buf = &self.buf;
        let n = buf.len();
        let mut i = 0;
        while i < n {
            while i < n && CLASS[buf[i] as usize] == MAJOR {
                i += 1;
            }
            let start = i;
            let mut has_minor = false;
            while i < n && CLASS[buf[i] as usize] != MAJOR {
                has_minor |= CLASS[buf[i] as usize] == MINOR;
                i += 1;
            }
            if start == i {
                continue;
            }
            let seg = &buf[start..i];
            if seg.len() <= MAX_TOKEN_LEN {
                f(seg);
            }
            if has_minor {
                let mut j = 0;
                while j < seg.len() {
                    while j < seg.len() && CLASS[seg[j] as usize] == MINOR {
                        j += 1;
                    }
                    let s = j;
                    while j < seg.len() && CLASS[seg[j] as usize] != MINOR {
                        j += 1;
                    }
                    if j > s && j - s <= MAX_TOKEN_LEN {
                        f(&seg[s..j]);
                    }
                }
            }
        }
    }

    /// Collects the terms of `text` into owned strings (tests and the search planner).
    pub fn terms(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each(text.as_bytes(), |t| {
            out.push(String::from_utf8_lossy(t).into_owned())
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majors_and_minors() {
        let mut t = Tokenizer::new();
        assert_eq!(
            t.terms("From 10.0.0.1: GET /a/b [ok]"),
            vec![
                "from",
                "10.0.0.1:",
                "10",
                "0",
                "0",
                "1",
                "get",
                "/a/b",
                "a",
                "b",
                "ok"
            ]
        );
    }

    #[test]
    fn lowercases_ascii_only() {
        let mut t = Tokenizer::new();
        assert_eq!(t.terms("ÉCOLE Error"), vec!["École", "error"]);
    }

    #[test]
    fn long_terms_are_skipped() {
        let mut t = Tokenizer::new();
        let long = "x".repeat(MAX_TOKEN_LEN + 1);
        assert_eq!(t.terms(&format!("a {long} b")), vec!["a", "b"]);
    }

    proptest::proptest! {
        /// Naive twin: split on major breakers, then on minor breakers, lowercase.
        #[test]
        fn matches_naive_split(s in "[ a-zA-Z0-9./:=_\\-\\[\\]\"|]{0,60}") {
            let mut naive = Vec::new();
            for seg in s.to_ascii_lowercase().split(|c: char| c.is_ascii() && is_major(c as u8)) {
                if seg.is_empty() { continue; }
                naive.push(seg.to_string());
                if seg.bytes().any(is_minor) {
                    for part in seg.split(|c: char| c.is_ascii() && is_minor(c as u8)) {
                        if !part.is_empty() { naive.push(part.to_string()); }
                    }
                }
            }
            let mut t = Tokenizer::new();
            proptest::prop_assert_eq!(t.terms(&s), naive);
        }
    }
}
