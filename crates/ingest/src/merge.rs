//! Merging stage (Splunk's "aggregator"): joins lines into multi-line events when
//! `SHOULD_LINEMERGE = true`, extracts timestamps, counts lines.
//!
//! Time fallback, as Splunk: the timestamp found in the event; else the previous event's time of
//! the same stream; else the ingest time (`now`).

use std::sync::Arc;

use lode_event::{Event, MetaStr, Micros};
use lode_time::extract::{Extractor, Mode};

use crate::settings::{MergeRules, Resolved};
use crate::SourceMeta;

/// Index of events whose input names none (Splunk's default index).
pub const DEFAULT_INDEX: &str = "main";

/// Per-stream merger: turns the lines of the line breaker into events.
pub struct Merger {
    settings: Arc<Resolved>,
    /// The default fields every event of the stream gets: `host`, `source`, `sourcetype` (the
    /// settings') and `index` (never empty).
    host: MetaStr,
    source: MetaStr,
    sourcetype: MetaStr,
    index: MetaStr,
    extractor: Option<Extractor>,
    /// Time of the previous event of this stream, µs since the epoch.
    prev_time: Option<Micros>,
    /// Text of the event being merged (empty when none).
    current: String,
    /// Lines in `current`.
    lines: usize,
    /// Timestamp found in the first line of `current`, µs since the epoch.
    current_time: Option<Micros>,
    /// The previous line matched `MUST_BREAK_AFTER`.
    break_next: bool,
    /// A line matched `MUST_NOT_BREAK_AFTER` and `MUST_BREAK_AFTER` has not matched since.
    no_break: bool,
}

impl Merger {
    /// A merger for one stream.
    pub fn new(settings: Arc<Resolved>, meta: SourceMeta) -> Merger {
        let index = match meta.index.as_str() {
            "" => DEFAULT_INDEX,
            index => index,
        };
        // The configuration was validated when the settings were compiled; should it still fail,
        // the stream falls back to previous/ingest time rather than stopping.
        let extractor = match settings.time.mode {
            Mode::Auto => Extractor::new(settings.time.clone()).ok(),
            Mode::Current | Mode::None => None,
        };
        Merger {
            host: meta.host.into(),
            source: meta.source.into(),
            sourcetype: settings.sourcetype.as_str().into(),
            index: index.into(),
            settings,
            extractor,
            prev_time: None,
            current: String::new(),
            lines: 0,
            current_time: None,
            break_next: false,
            no_break: false,
        }
    }

    /// Takes one line (or one event when line merging is off); finished events go to `out`.
    pub fn push(&mut self, line: String, now: Micros, out: &mut Vec<Event>) {
        let settings = self.settings.clone();
        let Some(rules) = &settings.merge else {
            let found = self.extract(&line, now);
            self.emit(line, found, now, out);
            return;
        };
        let mut found = None;
        let starts_event = self.lines == 0 || self.breaks_before(rules, &line, now, &mut found);
        if starts_event {
            if self.lines > 0 {
                let text = std::mem::take(&mut self.current);
                let time = self.current_time.take();
                self.emit(text, time, now, out);
            }
            self.current_time = match found {
                Some(t) => t,
                None => self.extract(&line, now),
            };
            self.current = line;
            self.lines = 1;
        } else {
            self.current.push('\n');
            self.current.push_str(&line);
            self.lines += 1;
        }
        if let Some(re) = &rules.must_break_after {
            if re.is_match(self.current_last_line()) {
                self.break_next = true;
                self.no_break = false;
            }
        }
        if let Some(re) = &rules.must_not_break_after {
            if re.is_match(self.current_last_line()) {
                self.no_break = true;
            }
        }
    }

    /// End of stream: emits the event being merged.
    pub fn finish(&mut self, now: Micros, out: &mut Vec<Event>) {
        if self.lines > 0 {
            let text = std::mem::take(&mut self.current);
            let time = self.current_time.take();
            self.emit(text, time, now, out);
        }
        self.lines = 0;
        self.break_next = false;
        self.no_break = false;
    }

    fn current_last_line(&self) -> &str {
        self.current.rsplit('\n').next().unwrap_or("")
    }

    /// Whether `line` starts a new event. A timestamp extracted on the way is left in `found`.
    fn breaks_before(
        &mut self,
        rules: &MergeRules,
        line: &str,
        now: Micros,
        found: &mut Option<Option<Micros>>,
    ) -> bool {
        if self.lines >= rules.max_events {
            return true;
        }
        if std::mem::take(&mut self.break_next) {
            return true;
        }
        if self.no_break {
            return false;
        }
        if rules
            .must_not_break_before
            .as_ref()
            .is_some_and(|re| re.is_match(line))
        {
            return false;
        }
        if let Some(re) = &rules.break_only_before {
            return re.is_match(line);
        }
        if rules.break_only_before_date {
            let t = self.extract(line, now);
            *found = Some(t);
            return t.is_some();
        }
        true
    }

    fn extract(&mut self, text: &str, now: Micros) -> Option<Micros> {
        match self.settings.time.mode {
            Mode::Current => Some(now),
            Mode::None => None,
            Mode::Auto => self.extractor.as_mut()?.extract(text, now).map(|f| f.time),
        }
    }

    fn emit(&mut self, raw: String, found: Option<Micros>, now: Micros, out: &mut Vec<Event>) {
        let time = found.or(self.prev_time).unwrap_or(now);
        self.prev_time = Some(time);
        out.push(Event {
            time,
            index_time: now.div_euclid(1_000_000),
            linecount: Event::count_lines(&raw),
            raw,
            host: self.host.clone(),
            source: self.source.clone(),
            sourcetype: self.sourcetype.clone(),
            index: self.index.clone(),
            fields: Vec::new(),
        });
    }
}
