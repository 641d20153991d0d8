//! The event model every other Lode crate speaks, and the tokenizer that indexing and search must
//! share byte for byte.
//!
//! Given raw text, [`token::Tokenizer`] yields the terms that go into a bucket's lexicon; the
//! search side runs the very same routine over its search terms, so a term found by the index is
//! exactly a term the verifier would find in `_raw`.

pub mod punct;
pub mod token;

/// A default field's value (`host`, `source`, `sourcetype`, `index`): inline up to 23 bytes,
/// else shared, so the copy every event gets of its stream's values allocates nothing.
pub type MetaStr = smol_str::SmolStr;

/// Microseconds since the Unix epoch (UTC). `_time` is kept at this resolution.
pub type Micros = i64;

/// One event as it leaves the ingestion pipeline and enters an index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Event {
    /// `_time`: the event's timestamp, microseconds since the Unix epoch.
    pub time: Micros,
    /// `_indextime`: when the event was accepted, seconds since the Unix epoch.
    pub index_time: i64,
    /// `_raw`: the event text, valid UTF-8 (invalid input bytes were replaced at parsing).
    pub raw: String,
    /// `host` metadata field.
    pub host: MetaStr,
    /// `source` metadata field (file path, `http:<token name>`, `stdin`…).
    pub source: MetaStr,
    /// `sourcetype` metadata field.
    pub sourcetype: MetaStr,
    /// `index`: the name of the index the event is routed to.
    pub index: MetaStr,
    /// `linecount`: number of lines in `_raw` (1 for a single-line event).
    pub linecount: u32,
    /// Index-time fields (`WRITE_META`, HEC `fields`): indexed as `name::value` terms.
    pub fields: Vec<(String, String)>,
}

impl Event {
    /// `punct` of this event: see [`punct::punct`].
    pub fn punct(&self) -> String {
        let mut out = String::new();
        punct::punct(&self.raw, &mut out);
        out
    }

    /// Number of lines in `raw`, as `linecount` reports it.
    pub fn count_lines(raw: &str) -> u32 {
        let trimmed = raw.trim_end_matches(['\n', '\r']);
        1 + memchr::memchr_iter(b'\n', trimmed.as_bytes()).count() as u32
    }
}

/// The default fields every event carries and the index holds as `name::value` terms (and the
/// columns as dictionary ids), in that order: what [`Event::meta`] gives.
pub const META_FIELDS: [&str; 3] = ["host", "source", "sourcetype"];

impl Event {
    /// The values of [`META_FIELDS`], paired with their names.
    pub fn meta(&self) -> [(&'static str, &str); 3] {
        let [h, s, st] = META_FIELDS;
        [(h, &self.host), (s, &self.source), (st, &self.sourcetype)]
    }
}

/// Builds the lexicon term of an indexed field: `name::value`, lowercased as every term is.
pub fn field_term(name: &str, value: &str, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"::");
    out.extend_from_slice(value.as_bytes());
    out.make_ascii_lowercase();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linecount_ignores_trailing_newline() {
        assert_eq!(Event::count_lines("a"), 1);
        assert_eq!(Event::count_lines("a\n"), 1);
        assert_eq!(Event::count_lines("a\nb\r\nc"), 3);
    }

    #[test]
    fn field_terms_are_lowercase() {
        let mut t = Vec::new();
        field_term("host", "Web-01", &mut t);
        assert_eq!(t, b"host::web-01");
    }
}
