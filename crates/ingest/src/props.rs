//! One props.conf stanza compiled into a partial set of index-time settings. Stanzas are layered
//! key by key (`[default]` < `[<sourcetype>]` < `[host::…]` < `[source::…]`) in
//! [`crate::settings`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use lode_conf::{Entry, Stanza, Warning};
use lode_time::extract::{ExtractConfig, Extractor, Mode};
use lode_time::Zone;
use regex::Regex;

use crate::error::SettingsError;
use crate::sed::SedCmd;
use crate::transform::{parse_bool, warning, Transform};

/// How the raw stream is cut into lines/events (`LINE_BREAKER`).
#[derive(Debug, Clone)]
pub enum Breaker {
    /// The default `([\r\n]+)`: a memchr fast path.
    Newlines,
    /// Any other regex; its first capture group is the text removed between events.
    Regex(regex::bytes::Regex),
}

/// Source encoding (`CHARSET`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// UTF-8 (also `AUTO`); invalid sequences become U+FFFD.
    Utf8,
    /// ISO-8859-1: each byte is the code point of the same value.
    Latin1,
}

/// Settings one stanza sets; `None` = not set here (a lower layer decides).
#[derive(Debug, Clone, Default)]
pub(crate) struct Partial {
    pub charset: Option<Charset>,
    pub breaker: Option<Breaker>,
    pub lookbehind: Option<usize>,
    pub truncate: Option<usize>,
    pub should_linemerge: Option<bool>,
    pub break_only_before_date: Option<bool>,
    pub break_only_before: Option<Option<Regex>>,
    pub must_break_after: Option<Option<Regex>>,
    pub must_not_break_after: Option<Option<Regex>>,
    pub must_not_break_before: Option<Option<Regex>>,
    pub max_events: Option<usize>,
    pub time_prefix: Option<Option<String>>,
    pub time_format: Option<Option<String>>,
    pub max_lookahead: Option<usize>,
    pub tz: Option<Zone>,
    pub mode: Option<Mode>,
    pub max_days_ago: Option<u32>,
    pub max_days_hence: Option<u32>,
    pub annotate_punct: Option<bool>,
    /// `SEDCMD-<class>` by class; an empty value (`None`) disables a lower layer's class.
    pub sed: BTreeMap<String, Option<Arc<SedCmd>>>,
    /// `TRANSFORMS-<class>` by class, stanzas in listed order.
    pub transforms: BTreeMap<String, Vec<Arc<Transform>>>,
    /// `sourcetype = …` in a source/host stanza: assigns the sourcetype.
    pub sourcetype: Option<String>,
    /// `priority = N`: order among pattern stanzas of the same kind (higher wins).
    pub priority: i64,
}

/// Search-time and other keys that are valid in props.conf but not used at index time: accepted
/// without a warning.
const SEARCH_TIME: &[&str] = &[
    "KV_MODE",
    "category",
    "description",
    "pulldown_type",
    "AUTO_KV_JSON",
    "KV_TRIM_SPACES",
    "rename",
    "SEGMENTATION",
    "MATCH_LIMIT",
    "DEPTH_LIMIT",
    "LEARN_SOURCETYPE",
    "LEARN_MODEL",
    "maxDist",
    "given_type",
    "is_valid",
    "invalid_cause",
    "NO_BINARY_CHECK",
    "detect_trailing_nulls",
    "BREAK_ONLY_AFTER",
    "ADD_EXTRA_TIME_FIELDS",
    "termFrequencyWeightedDist",
    "JSON_TRIM_BRACES_IN_ARRAY_NAMES",
];
const SEARCH_TIME_PREFIXES: &[&str] = &[
    "EXTRACT-",
    "REPORT-",
    "FIELDALIAS-",
    "EVAL-",
    "LOOKUP-",
    "LOOKUP_",
    "SEGMENTATION-",
    "MORE_THAN",
    "LESS_THAN",
];
/// Index-time keys of Splunk that Lode does not implement: reported, since they change results.
const UNSUPPORTED: &[&str] = &[
    "MAX_DIFF_SECS_AGO",
    "MAX_DIFF_SECS_HENCE",
    "EVENT_BREAKER_ENABLE",
    "EVENT_BREAKER",
    "INDEXED_EXTRACTIONS",
    "FIELD_DELIMITER",
    "FIELD_NAMES",
    "FIELD_QUOTE",
    "HEADER_FIELD_LINE_NUMBER",
    "HEADER_FIELD_DELIMITER",
    "HEADER_FIELD_QUOTE",
    "TIMESTAMP_FIELDS",
    "PREAMBLE_REGEX",
    "FIELD_HEADER_REGEX",
    "MISSING_VALUE_REGEX",
    "CHECK_FOR_HEADER",
    "CHECK_METHOD",
    "initCrcLength",
    "unarchive_cmd",
    "unarchive_sourcetype",
    "PREFIX_SOURCETYPE",
    "TZ_ALIAS",
    "HEADER_MODE",
    "METRIC-SCHEMA-TRANSFORMS",
    "METRICS_PROTOCOL",
    "STATSD-DIM-TRANSFORMS",
    "SEGMENTATION",
];

impl Partial {
    /// Compiles `stanza`. `transforms` holds the transforms.conf stanzas compiled so far by name
    /// (`compile_transform` fills it on first reference). Warnings go to `warnings`.
    pub fn compile(
        stanza: &Stanza,
        compile_transform: &mut TransformLookup<'_>,
        warnings: &mut Vec<Warning>,
    ) -> Result<Partial, SettingsError> {
        let mut p = Partial::default();
        for e in stanza.entries() {
            let bad = |message: String| SettingsError::Invalid {
                origin: e.origin.to_string(),
                line: e.line,
                stanza: stanza.name.clone(),
                key: e.key.clone(),
                message,
            };
            let v = e.value.as_str();
            let num = || {
                v.trim()
                    .parse::<usize>()
                    .map_err(|_| bad(format!("not a number: `{v}`")))
            };
            let boolean = || parse_bool(v).ok_or_else(|| bad(format!("not a boolean: `{v}`")));
            let opt_regex = || -> Result<Option<Regex>, SettingsError> {
                if v.is_empty() {
                    return Ok(None);
                }
                Regex::new(&format!("(?m){v}"))
                    .map(Some)
                    .map_err(|err| bad(format!("bad regex: {err}")))
            };
            let opt_text = || {
                if v.is_empty() {
                    None
                } else {
                    Some(v.to_string())
                }
            };
            match e.key.as_str() {
                "CHARSET" => {
                    p.charset = Some(charset(v).ok_or_else(|| {
                        bad(format!(
                            "unsupported charset `{v}` (UTF-8, AUTO, ISO-8859-1)"
                        ))
                    })?)
                }
                "LINE_BREAKER" => p.breaker = Some(breaker(v).map_err(bad)?),
                "LINE_BREAKER_LOOKBEHIND" => p.lookbehind = Some(num()?),
                "TRUNCATE" => p.truncate = Some(num()?),
                "SHOULD_LINEMERGE" => p.should_linemerge = Some(boolean()?),
                "BREAK_ONLY_BEFORE_DATE" => p.break_only_before_date = Some(boolean()?),
                "BREAK_ONLY_BEFORE" => p.break_only_before = Some(opt_regex()?),
                "MUST_BREAK_AFTER" => p.must_break_after = Some(opt_regex()?),
                "MUST_NOT_BREAK_AFTER" => p.must_not_break_after = Some(opt_regex()?),
                "MUST_NOT_BREAK_BEFORE" => p.must_not_break_before = Some(opt_regex()?),
                "MAX_EVENTS" => p.max_events = Some(num()?.max(1)),
                "TIME_PREFIX" => {
                    if !v.is_empty() {
                        Regex::new(v).map_err(|err| bad(format!("bad regex: {err}")))?;
                    }
                    p.time_prefix = Some(opt_text());
                }
                "TIME_FORMAT" => {
                    if !v.is_empty() {
                        let cfg = ExtractConfig {
                            time_format: Some(v.to_string()),
                            ..ExtractConfig::default()
                        };
                        Extractor::new(cfg).map_err(|err| bad(err.to_string()))?;
                    }
                    p.time_format = Some(opt_text());
                }
                "MAX_TIMESTAMP_LOOKAHEAD" => p.max_lookahead = Some(num()?),
                "TZ" => p.tz = Some(Zone::parse(v).map_err(|err| bad(err.to_string()))?),
                "DATETIME_CONFIG" => p.mode = Some(mode(v)),
                "MAX_DAYS_AGO" => p.max_days_ago = Some(num()?.min(u32::MAX as usize) as u32),
                "MAX_DAYS_HENCE" => p.max_days_hence = Some(num()?.min(u32::MAX as usize) as u32),
                "ANNOTATE_PUNCT" => p.annotate_punct = Some(boolean()?),
                "sourcetype" => p.sourcetype = opt_text(),
                "priority" => {
                    p.priority = v
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("not an integer: `{v}`")))?
                }
                k if k.starts_with("SEDCMD-") => {
                    let cmd = if v.is_empty() {
                        None
                    } else {
                        Some(Arc::new(SedCmd::parse(v).map_err(bad)?))
                    };
                    p.sed.insert(k["SEDCMD-".len()..].to_string(), cmd);
                }
                k if k.starts_with("TRANSFORMS-") => {
                    let mut list = Vec::new();
                    for name in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        match compile_transform(name)? {
                            Some(t) => list.push(t),
                            None => {
                                return Err(bad(format!("no stanza [{name}] in transforms.conf")))
                            }
                        }
                    }
                    p.transforms
                        .insert(k["TRANSFORMS-".len()..].to_string(), list);
                }
                k => report_other(stanza, e, k, warnings),
            }
        }
        Ok(p)
    }

    /// Layers `upper` over `self`: every setting `upper` sets replaces this one.
    pub fn overlay(&mut self, upper: &Partial) {
        macro_rules! take {
            ($($f:ident),*) => { $( if upper.$f.is_some() { self.$f = upper.$f.clone(); } )* };
        }
        take!(
            charset,
            breaker,
            lookbehind,
            truncate,
            should_linemerge,
            break_only_before_date,
            break_only_before,
            must_break_after,
            must_not_break_after,
            must_not_break_before,
            max_events,
            time_prefix,
            time_format,
            max_lookahead,
            tz,
            mode,
            max_days_ago,
            max_days_hence,
            annotate_punct,
            sourcetype
        );
        for (class, cmd) in &upper.sed {
            self.sed.insert(class.clone(), cmd.clone());
        }
        for (class, list) in &upper.transforms {
            self.transforms.insert(class.clone(), list.clone());
        }
    }
}

fn report_other(stanza: &Stanza, e: &Entry, key: &str, warnings: &mut Vec<Warning>) {
    if SEARCH_TIME.contains(&key) || SEARCH_TIME_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return;
    }
    let message = if UNSUPPORTED.contains(&key) {
        format!("[{}] {key} is not supported by Lode; ignored", stanza.name)
    } else {
        format!("[{}] unknown props.conf key `{key}`; ignored", stanza.name)
    };
    warnings.push(warning(e, message));
}

fn charset(v: &str) -> Option<Charset> {
    match v.trim().to_ascii_uppercase().as_str() {
        "UTF-8" | "UTF8" | "AUTO" | "US-ASCII" | "ASCII" => Some(Charset::Utf8),
        "ISO-8859-1" | "LATIN-1" | "LATIN1" | "ISO8859-1" => Some(Charset::Latin1),
        _ => None,
    }
}

/// Default breaker text; recognised to take the memchr fast path.
pub(crate) const DEFAULT_BREAKER: &str = r"([\r\n]+)";

fn breaker(v: &str) -> Result<Breaker, String> {
    if v == DEFAULT_BREAKER || v == r"([\n\r]+)" {
        return Ok(Breaker::Newlines);
    }
    let re = regex::bytes::Regex::new(v).map_err(|e| format!("bad regex: {e}"))?;
    if re.captures_len() < 2 {
        return Err("LINE_BREAKER needs a capturing group".to_string());
    }
    Ok(Breaker::Regex(re))
}

fn mode(v: &str) -> Mode {
    match v.trim().to_ascii_uppercase().as_str() {
        "CURRENT" => Mode::Current,
        "NONE" => Mode::None,
        _ => Mode::Auto,
    }
}

/// Finds (compiling on first use) the transforms.conf stanza of a name; `Ok(None)` = no such
/// stanza.
pub(crate) type TransformLookup<'a> =
    dyn FnMut(&str) -> Result<Option<Arc<Transform>>, SettingsError> + 'a;

/// Compiled transforms by name, filled on first reference.
pub(crate) type TransformCache = HashMap<String, Arc<Transform>>;
