//! Helpers shared by the integration tests: generate a corpus into memory and split it into
//! events by looking at the text only (independently of the generator's own boundaries).

#![allow(dead_code)]

use lode_gen::{GenConfig, GenSummary, Generator, Kind};

/// A corpus in memory: the bytes of each kind (in `Kind::ALL` order) and the summary.
pub struct Corpus {
    pub files: [Vec<u8>; 4],
    pub summary: GenSummary,
}

impl Corpus {
    pub fn file(&self, kind: Kind) -> &str {
        std::str::from_utf8(&self.files[kind as usize]).expect("corpus is UTF-8")
    }

    /// The events of `kind`: lines, except that a Java event runs until the next line starting
    /// with a date.
    pub fn events(&self, kind: Kind) -> Vec<&str> {
        split_events(kind, self.file(kind))
    }
}

pub fn generate(cfg: GenConfig) -> Corpus {
    let mut files: [Vec<u8>; 4] = Default::default();
    let summary = Generator::new(cfg).generate(&mut |kind, chunk| {
        assert!(chunk.ends_with(b"\n"), "chunks hold complete events");
        files[kind as usize].extend_from_slice(chunk)
    });
    Corpus { files, summary }
}

fn starts_with_date(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 11
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b' '
}

pub fn split_events(kind: Kind, text: &str) -> Vec<&str> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    if kind != Kind::Java {
        return text.split('\n').collect();
    }
    let mut events = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in text.split('\n') {
        if pos > 0 && starts_with_date(line) {
            events.push(&text[start..pos - 1]);
            start = pos;
        }
        pos += line.len() + 1;
    }
    events.push(&text[start..]);
    events
}
