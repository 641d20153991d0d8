//! Parsing stage: charset conversion, line breaking (`LINE_BREAKER`) and `TRUNCATE`, across the
//! chunk boundaries of a stream.
//!
//! Fast path: the default breaker `([\r\n]+)` is found with `memchr2`. Slow path: any other
//! `LINE_BREAKER` regex. Naive twin: the regex path with `([\r\n]+)` gives the same events (a
//! property test checks it, and that any chunking gives the same events as one chunk).
//!
//! Memory is bounded: an event longer than `TRUNCATE` is emitted truncated as soon as its first
//! `TRUNCATE` bytes are known, and the rest is discarded up to the next break, keeping only
//! `LINE_BREAKER_LOOKBEHIND` bytes between chunks.

use std::sync::Arc;

use memchr::memchr2;

use crate::props::{Breaker, Charset};
use crate::settings::Resolved;

/// Per-stream line breaker. Feed chunks with [`LineBreaker::push`], then call
/// [`LineBreaker::finish`] at end of stream.
pub struct LineBreaker {
    settings: Arc<Resolved>,
    /// Bytes not yet emitted; `buf[start..]` is the current, unterminated event.
    buf: Vec<u8>,
    /// Offset in `buf` where the current event begins.
    start: usize,
    /// Offset in `buf` where the next break search begins (≥ `start`).
    scan: usize,
    /// The current event was already emitted truncated: its remaining bytes are dropped.
    discarding: bool,
    /// Events cut at `TRUNCATE` so far.
    pub truncated: u64,
}

impl LineBreaker {
    /// A breaker for one stream with these settings.
    pub fn new(settings: Arc<Resolved>) -> LineBreaker {
        LineBreaker {
            settings,
            buf: Vec::new(),
            start: 0,
            scan: 0,
            discarding: false,
            truncated: 0,
        }
    }

    /// Adds a chunk; complete events are appended to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<String>) {
        self.buf.extend_from_slice(chunk);
        self.drain(false, out);
    }

    /// End of stream: the partial event (if any) is emitted.
    pub fn finish(&mut self, out: &mut Vec<String>) {
        self.drain(true, out);
        self.buf.clear();
        self.start = 0;
        self.scan = 0;
        self.discarding = false;
    }

    /// Bytes currently buffered (bounded by TRUNCATE + lookbehind + one chunk).
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    fn drain(&mut self, last: bool, out: &mut Vec<String>) {
        loop {
            match self.find(self.scan) {
                Some((gs, ge, me)) if me < self.buf.len() || last => {
                    if self.discarding {
                        self.discarding = false;
                    } else {
                        self.emit(self.start, gs, out);
                    }
                    // The next event starts after the group; the next search after the match, so
                    // that a break with an empty group still makes progress.
                    self.start = ge;
                    self.scan = me;
                }
                Some((gs, _, _)) => {
                    // The match touches the end of the data: more input may extend it.
                    self.scan = gs.max(self.start);
                    break;
                }
                None => {
                    let lookbehind = self.settings.lookbehind.max(1);
                    self.scan = self.buf.len().saturating_sub(lookbehind).max(self.start);
                    break;
                }
            }
        }
        if last {
            if !self.discarding && self.start < self.buf.len() {
                self.emit(self.start, self.buf.len(), out);
            }
            self.start = self.buf.len();
            self.scan = self.start;
            return;
        }
        // Bytes before `scan` contain no break: the event is at least that long.
        let limit = self.settings.truncate;
        if limit > 0 && !self.discarding && self.scan - self.start > limit {
            // `emit` cuts at TRUNCATE and counts the event as truncated.
            self.emit(self.start, self.scan, out);
            self.discarding = true;
        }
        if self.discarding {
            self.start = self.scan;
        }
        if self.start > 0 && (self.start >= self.buf.len() / 2 || self.start > 1 << 20) {
            self.buf.drain(..self.start);
            self.scan -= self.start;
            self.start = 0;
        }
    }

    /// The next break at or after `from`: (group start, group end, match end).
    fn find(&self, from: usize) -> Option<(usize, usize, usize)> {
        let hay = &self.buf[from..];
        match &self.settings.breaker {
            Breaker::Newlines => {
                let i = memchr2(b'\r', b'\n', hay)?;
                let n = hay[i..]
                    .iter()
                    .take_while(|&&b| b == b'\r' || b == b'\n')
                    .count();
                Some((from + i, from + i + n, from + i + n))
            }
            Breaker::Regex(re) => {
                let mut at = 0;
                loop {
                    let caps = re.captures_at(hay, at)?;
                    let whole = caps.get(0)?;
                    match caps.get(1) {
                        // An empty break would loop forever: skip it.
                        Some(g) if g.end() > g.start() || whole.end() > whole.start() => {
                            return Some((from + g.start(), from + g.end(), from + whole.end()))
                        }
                        _ => {
                            at = whole.end() + 1;
                            if at > hay.len() {
                                return None;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Emits `buf[from..to]` as one event: truncated to `TRUNCATE` at a character boundary,
    /// decoded, skipped when blank.
    fn emit(&mut self, from: usize, to: usize, out: &mut Vec<String>) {
        let mut bytes = &self.buf[from..to];
        let limit = self.settings.truncate;
        if limit > 0 && bytes.len() > limit {
            let mut cut = limit;
            if self.settings.charset == Charset::Utf8 {
                // Back off to the start of a UTF-8 sequence (at most 3 continuation bytes).
                while cut > limit.saturating_sub(3) && cut > 0 && (bytes[cut] & 0xC0) == 0x80 {
                    cut -= 1;
                }
            }
            bytes = &bytes[..cut];
            self.truncated += 1;
        }
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return;
        }
        let text = match self.settings.charset {
            // Validation alone is faster than the lossy decoder; invalid input takes the slow path.
            Charset::Utf8 => match std::str::from_utf8(bytes) {
                Ok(text) => text.to_owned(),
                Err(_) => String::from_utf8_lossy(bytes).into_owned(),
            },
            Charset::Latin1 => bytes.iter().map(|&b| b as char).collect(),
        };
        out.push(text);
    }
}
