//! transforms.conf stanzas used at index time (`TRANSFORMS-<class>` in props.conf): masking,
//! routing, filtering and index-time fields.

use lode_conf::{Stanza, Warning};
use lode_event::Event;
use regex::Regex;

use crate::error::SettingsError;

/// Where a transform writes its formatted output (`DEST_KEY`, or `WRITE_META = true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dest {
    /// `DEST_KEY = queue`: `nullQueue` drops the event, `indexQueue` keeps it.
    Queue,
    /// `DEST_KEY = _MetaData:Index`: route to the named index.
    Index,
    /// `DEST_KEY = MetaData:Host` (`host::` prefix of FORMAT is stripped).
    Host,
    /// `DEST_KEY = MetaData:Source` (`source::` prefix stripped).
    Source,
    /// `DEST_KEY = MetaData:Sourcetype` (`sourcetype::` prefix stripped).
    Sourcetype,
    /// `DEST_KEY = _raw`: replace the event text.
    Raw,
    /// `WRITE_META = true` or `DEST_KEY = _meta`: `name::value` pairs become index-time fields.
    Meta,
    /// A routing key Lode does not implement (`_TCP_ROUTING`, `_SYSLOG_ROUTING`): no effect
    /// (a warning was reported when loading).
    Unsupported,
}

/// What a transform reads (`SOURCE_KEY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKey {
    /// `_raw` (default).
    Raw,
    /// `MetaData:Host`, seen as `host::<host>`.
    Host,
    /// `MetaData:Source`, seen as `source::<source>`.
    Source,
    /// `MetaData:Sourcetype`, seen as `sourcetype::<sourcetype>`.
    Sourcetype,
    /// `_MetaData:Index`, the index name.
    Index,
}

/// One compiled transforms.conf stanza.
#[derive(Debug, Clone)]
pub struct Transform {
    /// Stanza name.
    pub name: String,
    regex: Regex,
    /// FORMAT template (`$1`, `$0`, `${name}`), converted to `regex` expansion syntax.
    format: String,
    /// Destination of the formatted text.
    pub dest: Dest,
    source_key: SourceKey,
    /// Bytes of `_raw` scanned (`LOOKAHEAD`, default 4096).
    lookahead: usize,
    /// Output used when the regex does not match (`DEFAULT_VALUE`).
    default_value: Option<String>,
    /// `REPEAT_MATCH = true`: keep matching after the previous match (index-time fields).
    repeat: bool,
}

/// Keys of transforms.conf this crate understands, plus search-time keys it knows are not its
/// business (they are not reported as unknown).
const KNOWN: &[&str] = &[
    "REGEX",
    "FORMAT",
    "DEST_KEY",
    "WRITE_META",
    "SOURCE_KEY",
    "LOOKAHEAD",
    "DEFAULT_VALUE",
    "REPEAT_MATCH",
    "DELIMS",
    "FIELDS",
    "MV_ADD",
    "CLEAN_KEYS",
    "KEEP_EMPTY_VALS",
    "CAN_OPTIMIZE",
    "MATCH_LIMIT",
    "DEPTH_LIMIT",
    "filename",
    "external_cmd",
    "external_type",
    "fields_list",
    "match_type",
    "max_matches",
    "min_matches",
    "default_match",
    "case_sensitive_match",
    "collection",
    "time_field",
    "time_format",
    "max_offset_secs",
    "min_offset_secs",
    "batch_index_query",
    "allow_caching",
    "CLONE_SOURCETYPE",
    "INGEST_EVAL",
    "STOP_PROCESSING_IF",
];

impl Transform {
    /// Compiles a stanza used at index time. Unknown keys are appended to `warnings`.
    pub fn compile(
        stanza: &Stanza,
        warnings: &mut Vec<Warning>,
    ) -> Result<Transform, SettingsError> {
        for e in stanza.entries() {
            if !KNOWN.contains(&e.key.as_str()) {
                warnings.push(warning(
                    e,
                    format!("[{}] unknown transforms.conf key `{}`", stanza.name, e.key),
                ));
            }
        }
        let invalid = |key: &str, message: String| {
            let (origin, line) = stanza
                .entry(key)
                .map_or((String::new(), 0), |e| (e.origin.to_string(), e.line));
            SettingsError::Invalid {
                origin,
                line,
                stanza: stanza.name.clone(),
                key: key.to_string(),
                message,
            }
        };
        let regex_text = stanza
            .get("REGEX")
            .ok_or_else(|| invalid("REGEX", "index-time transform needs REGEX".into()))?;
        let regex =
            Regex::new(regex_text).map_err(|e| invalid("REGEX", format!("bad regex: {e}")))?;
        let write_meta = stanza
            .get("WRITE_META")
            .is_some_and(|v| parse_bool(v) == Some(true));
        let dest = match (write_meta, stanza.get("DEST_KEY")) {
            (true, _) | (false, Some("_meta")) => Dest::Meta,
            (false, Some("queue")) => Dest::Queue,
            (false, Some("_MetaData:Index")) => Dest::Index,
            (false, Some("MetaData:Host")) => Dest::Host,
            (false, Some("MetaData:Source")) => Dest::Source,
            (false, Some("MetaData:Sourcetype")) => Dest::Sourcetype,
            (false, Some("_raw")) => Dest::Raw,
            (false, Some(k @ ("_TCP_ROUTING" | "_SYSLOG_ROUTING"))) => {
                if let Some(e) = stanza.entry("DEST_KEY") {
                    warnings.push(warning(
                        e,
                        format!(
                            "[{}] DEST_KEY {k} is not supported by Lode; ignored",
                            stanza.name
                        ),
                    ));
                }
                Dest::Unsupported
            }
            (false, Some(other)) => {
                return Err(invalid("DEST_KEY", format!("unknown DEST_KEY `{other}`")))
            }
            (false, None) => {
                return Err(invalid(
                    "DEST_KEY",
                    "index-time transform needs DEST_KEY or WRITE_META = true".into(),
                ))
            }
        };
        let source_key = match stanza.get("SOURCE_KEY").unwrap_or("_raw") {
            "_raw" => SourceKey::Raw,
            "MetaData:Host" => SourceKey::Host,
            "MetaData:Source" => SourceKey::Source,
            "MetaData:Sourcetype" => SourceKey::Sourcetype,
            "_MetaData:Index" => SourceKey::Index,
            other => {
                return Err(invalid(
                    "SOURCE_KEY",
                    format!("unsupported SOURCE_KEY `{other}`"),
                ))
            }
        };
        let lookahead = match stanza.get("LOOKAHEAD") {
            None => 4096,
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| invalid("LOOKAHEAD", format!("not a byte count: `{v}`")))?,
        };
        let repeat = match stanza.get("REPEAT_MATCH") {
            None => false,
            Some(v) => parse_bool(v)
                .ok_or_else(|| invalid("REPEAT_MATCH", format!("not a boolean: `{v}`")))?,
        };
        let format = match stanza.get("FORMAT") {
            Some(f) => f.to_string(),
            None if dest == Dest::Meta => format!("{}::$1", stanza.name),
            None => "$1".to_string(),
        };
        Ok(Transform {
            name: stanza.name.clone(),
            regex,
            format: convert_format(&format),
            dest,
            source_key,
            lookahead,
            default_value: stanza.get("DEFAULT_VALUE").map(str::to_string),
            repeat,
        })
    }

    /// Applies the transform to `event`. `null_queue` tracks the queue decision across the
    /// transforms of one event (the last queue transform that matched wins). `scratch` is reused.
    pub fn apply(&self, event: &mut Event, null_queue: &mut bool, scratch: &mut String) {
        if self.source_key == SourceKey::Raw {
            let raw = std::mem::take(&mut event.raw);
            let mut end = self.lookahead.min(raw.len());
            while !raw.is_char_boundary(end) {
                end -= 1;
            }
            if !self.apply_on(&raw[..end], event, null_queue, scratch) {
                event.raw = raw;
            } else if end < raw.len() {
                // Deliberate difference from Splunk, which keeps only the rewritten first
                // LOOKAHEAD bytes: the unscanned tail is kept instead of silently lost.
                event.raw.push_str(&raw[end..]);
            }
            return;
        }
        let subject = match self.source_key {
            SourceKey::Host => format!("host::{}", event.host),
            SourceKey::Source => format!("source::{}", event.source),
            SourceKey::Sourcetype => format!("sourcetype::{}", event.sourcetype),
            SourceKey::Index | SourceKey::Raw => event.index.to_string(),
        };
        self.apply_on(&subject, event, null_queue, scratch);
    }

    /// Runs the regex over `subject` and writes each output; returns true when `_raw` was
    /// replaced.
    fn apply_on(
        &self,
        subject: &str,
        event: &mut Event,
        null_queue: &mut bool,
        scratch: &mut String,
    ) -> bool {
        let mut any = false;
        let mut wrote_raw = false;
        for caps in self.regex.captures_iter(subject) {
            any = true;
            scratch.clear();
            caps.expand(&self.format, scratch);
            wrote_raw |= self.write(scratch, event, null_queue);
            if !self.repeat {
                break;
            }
        }
        if !any {
            if let Some(v) = &self.default_value {
                wrote_raw |= self.write(v, event, null_queue);
            }
        }
        wrote_raw
    }

    /// Writes one formatted output to the destination; returns true when it replaced `_raw`.
    fn write(&self, out: &str, event: &mut Event, null_queue: &mut bool) -> bool {
        match self.dest {
            Dest::Queue => match out.trim() {
                "nullQueue" => *null_queue = true,
                "indexQueue" => *null_queue = false,
                _ => {}
            },
            Dest::Index => event.index = out.trim().into(),
            Dest::Host => event.host = strip(out, "host::").into(),
            Dest::Source => event.source = strip(out, "source::").into(),
            Dest::Sourcetype => event.sourcetype = strip(out, "sourcetype::").into(),
            Dest::Raw => {
                event.raw = out.to_string();
                return true;
            }
            Dest::Meta => parse_meta(out, &mut event.fields),
            Dest::Unsupported => {}
        }
        false
    }
}

pub(crate) use lode_conf::parse_bool;

pub(crate) fn warning(e: &lode_conf::Entry, message: String) -> Warning {
    Warning {
        origin: e.origin.to_string(),
        line: e.line,
        message,
    }
}

fn strip<'a>(s: &'a str, prefix: &str) -> &'a str {
    s.trim().strip_prefix(prefix).unwrap_or(s.trim())
}

/// FORMAT (`$1`, `$name`) to `regex` expansion syntax: group numbers are braced so that `$1x`
/// is group 1 followed by `x`, as Splunk reads it.
fn convert_format(f: &str) -> String {
    let mut out = String::with_capacity(f.len() + 8);
    let bytes = f.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            out.push_str("${");
            out.push_str(&f[start..end]);
            out.push('}');
            i = end;
        } else {
            let c = f[i..].chars().next().unwrap_or('$');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Parses `name::value name2::"quoted value"` into index-time fields.
fn parse_meta(out: &str, fields: &mut Vec<(String, String)>) {
    let mut rest = out.trim_start();
    while let Some(sep) = rest.find("::") {
        let name = rest[..sep].trim();
        let after = &rest[sep + 2..];
        let (value, next) = match after.strip_prefix('"') {
            Some(q) => match q.find('"') {
                Some(close) => (&q[..close], &q[close + 1..]),
                None => (q, ""),
            },
            None => match after.find(char::is_whitespace) {
                Some(ws) => (&after[..ws], &after[ws..]),
                None => (after, ""),
            },
        };
        if !name.is_empty() && !name.contains(char::is_whitespace) {
            fields.push((name.to_string(), value.to_string()));
        }
        rest = next.trim_start();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lode_conf::ConfFile;

    fn compile(text: &str) -> Result<Transform, SettingsError> {
        let f = ConfFile::parse(text, "transforms.conf").unwrap();
        let stanza = f.stanzas().next().unwrap().clone();
        Transform::compile(&stanza, &mut Vec::new())
    }

    fn event(raw: &str) -> Event {
        Event {
            raw: raw.into(),
            host: "h1".into(),
            source: "/var/log/a.log".into(),
            index: "main".into(),
            ..Event::default()
        }
    }

    #[test]
    fn routes_masks_and_writes_meta() {
        let t = compile("[r]\nREGEX = user=(\\w+)\nFORMAT = sec_$1\nDEST_KEY = _MetaData:Index\n")
            .unwrap();
        let (mut ev, mut null, mut s) = (event("login user=bob ok"), false, String::new());
        t.apply(&mut ev, &mut null, &mut s);
        assert_eq!(ev.index, "sec_bob");
        assert_eq!(ev.raw, "login user=bob ok");

        let m = compile("[m]\nREGEX = (.*)pw=\\S+(.*)\nFORMAT = $1pw=###$2\nDEST_KEY = _raw\n")
            .unwrap();
        let mut ev = event("a pw=secret b");
        m.apply(&mut ev, &mut null, &mut s);
        assert_eq!(ev.raw, "a pw=### b");

        let w = compile(
            "[w]\nREGEX = (\\w+)=(\\d+)\nFORMAT = $1::$2\nWRITE_META = true\nREPEAT_MATCH = true\n",
        )
        .unwrap();
        let mut ev = event("a=1 b=2 c=x");
        w.apply(&mut ev, &mut null, &mut s);
        assert_eq!(
            ev.fields,
            [
                ("a".to_string(), "1".to_string()),
                ("b".to_string(), "2".to_string())
            ]
        );
        assert!(!null);
    }

    #[test]
    fn source_key_and_default_value() {
        let t = compile("[h]\nSOURCE_KEY = MetaData:Source\nREGEX = ^source::/var/log/(\\w+)\nFORMAT = host::$1\nDEST_KEY = MetaData:Host\n").unwrap();
        let (mut ev, mut null, mut s) = (event("x"), false, String::new());
        t.apply(&mut ev, &mut null, &mut s);
        assert_eq!(ev.host, "a");
        let d = compile("[d]\nREGEX = nomatch\nDEFAULT_VALUE = env::prod\nWRITE_META = true\n")
            .unwrap();
        d.apply(&mut ev, &mut null, &mut s);
        assert_eq!(ev.fields, [("env".to_string(), "prod".to_string())]);
    }

    #[test]
    fn raw_rewrite_keeps_the_tail_beyond_lookahead() {
        let m = compile("[m]\nREGEX = ^(.*)pw=\\S+(.*)$\nFORMAT = $1pw=###$2\nDEST_KEY = _raw\nLOOKAHEAD = 12\n").unwrap();
        let (mut ev, mut null, mut s) =
            (event("a pw=secret and a long tail"), false, String::new());
        m.apply(&mut ev, &mut null, &mut s);
        assert_eq!(ev.raw, "a pw=### and a long tail");
    }

    #[test]
    fn quoted_meta_values() {
        let mut f = Vec::new();
        parse_meta("a::\"x y\" b::z", &mut f);
        assert_eq!(
            f,
            [
                ("a".to_string(), "x y".to_string()),
                ("b".to_string(), "z".to_string())
            ]
        );
    }

    #[test]
    fn errors_name_stanza_and_key() {
        let e = compile("[bad]\nREGEX = (unclosed\nDEST_KEY = queue\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("transforms.conf:2: [bad] REGEX: bad regex"),
            "{e}"
        );
        let e = compile("[nodest]\nREGEX = x\n").unwrap_err().to_string();
        assert!(e.contains("[nodest] DEST_KEY"), "{e}");
    }
}
