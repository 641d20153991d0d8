//! props.conf + transforms.conf compiled once, and resolved per (sourcetype, source, host) with
//! Splunk's precedence: `[source::<glob>]` > `[host::<glob>]` > `[<sourcetype>]` > `[default]`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use lode_conf::{Conf, ConfFile, Warning, DEFAULT_STANZA};
use lode_time::extract::{ExtractConfig, Mode};
use lode_time::Zone;
use regex::Regex;

use crate::error::SettingsError;
use crate::glob::{Glob, GlobKind};
use crate::props::{Breaker, Charset, Partial, TransformCache};
use crate::sed::SedCmd;
use crate::transform::Transform;
use crate::{defaults, SourceMeta};

/// Line-merging rules (`SHOULD_LINEMERGE = true`).
#[derive(Debug, Clone)]
pub struct MergeRules {
    /// `BREAK_ONLY_BEFORE_DATE`: a new event starts only at a line with a timestamp.
    pub break_only_before_date: bool,
    /// `BREAK_ONLY_BEFORE`: a new event starts only at a line matching this.
    pub break_only_before: Option<Regex>,
    /// `MUST_BREAK_AFTER`: a line matching this ends its event.
    pub must_break_after: Option<Regex>,
    /// `MUST_NOT_BREAK_AFTER`: after a matching line, no break until `MUST_BREAK_AFTER` matches.
    pub must_not_break_after: Option<Regex>,
    /// `MUST_NOT_BREAK_BEFORE`: never break before a matching line.
    pub must_not_break_before: Option<Regex>,
    /// `MAX_EVENTS`: most lines in one merged event.
    pub max_events: usize,
}

/// The index-time settings of one stream, every default filled in.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The sourcetype the stream's events get (the input's, or a source/host stanza's).
    pub sourcetype: String,
    /// `CHARSET`.
    pub charset: Charset,
    /// `LINE_BREAKER`.
    pub breaker: Breaker,
    /// `LINE_BREAKER_LOOKBEHIND`, in bytes: how far back a search restarts across chunks.
    pub lookbehind: usize,
    /// `TRUNCATE`, in bytes (0 = no limit).
    pub truncate: usize,
    /// Merging rules when `SHOULD_LINEMERGE = true`, else `None`.
    pub merge: Option<MergeRules>,
    /// Timestamp extraction settings.
    pub time: ExtractConfig,
    /// `SEDCMD-*` in lexicographic class order.
    pub sed: Vec<Arc<SedCmd>>,
    /// `TRANSFORMS-*`: classes in lexicographic order, stanzas in listed order.
    pub transforms: Vec<Arc<Transform>>,
    /// `ANNOTATE_PUNCT` (punct itself is computed from `_raw` where needed).
    pub annotate_punct: bool,
}

/// Compiled props and transforms. Resolution is lazy and cached per (sourcetype, source, host).
pub struct Settings {
    base: Partial,
    default: Partial,
    sourcetypes: HashMap<String, Partial>,
    /// Host stanzas in application order (lowest precedence first).
    hosts: Vec<(Glob, Partial)>,
    /// Source stanzas in application order (lowest precedence first).
    sources: Vec<(Glob, Partial)>,
    /// Guards the cache of resolved settings, keyed by (sourcetype, source, host).
    cache: Mutex<HashMap<(String, String, String), Arc<Resolved>>>,
}

/// Most cached resolutions before the cache is cleared (bounded memory with many sources).
const CACHE_LIMIT: usize = 4096;

impl Settings {
    /// Compiles layered props and transforms. Warnings (unknown keys…) are returned for the
    /// caller to print; invalid values are errors naming file, line, stanza and key.
    pub fn from_confs(
        props: &Conf,
        transforms: &Conf,
    ) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let mut warnings = Vec::new();
        let mut cache = TransformCache::new();
        let mut transform_warnings = Vec::new();
        let mut compile_t = |name: &str| -> Result<Option<Arc<Transform>>, SettingsError> {
            if let Some(t) = cache.get(name) {
                return Ok(Some(t.clone()));
            }
            let Some(stanza) = transforms.stanza(name) else {
                return Ok(None);
            };
            let t = Arc::new(Transform::compile(stanza, &mut transform_warnings)?);
            cache.insert(name.to_string(), t.clone());
            Ok(Some(t))
        };
        let mut settings = Settings {
            base: Partial::default(),
            default: Partial::default(),
            sourcetypes: HashMap::new(),
            hosts: Vec::new(),
            sources: Vec::new(),
            cache: Mutex::new(HashMap::new()),
        };
        let mut hosts = Vec::new();
        let mut sources = Vec::new();
        for stanza in props.stanzas() {
            let partial = Partial::compile(stanza, &mut compile_t, &mut warnings)?;
            let glob = |pattern: &str, kind| {
                Glob::new(pattern, kind).map_err(|message| SettingsError::Invalid {
                    origin: stanza
                        .entries()
                        .next()
                        .map(|e| e.origin.to_string())
                        .unwrap_or_default(),
                    line: stanza.entries().next().map_or(0, |e| e.line),
                    stanza: stanza.name.clone(),
                    key: "(stanza name)".into(),
                    message,
                })
            };
            if let Some(p) = stanza.name.strip_prefix("source::") {
                sources.push((p.to_string(), glob(p, GlobKind::Source)?, partial));
            } else if let Some(p) = stanza.name.strip_prefix("host::") {
                hosts.push((p.to_string(), glob(p, GlobKind::Host)?, partial));
            } else if stanza.name == DEFAULT_STANZA {
                settings.default = partial;
            } else {
                settings.sourcetypes.insert(stanza.name.clone(), partial);
            }
        }
        warnings.extend(transform_warnings);
        settings.hosts = order(hosts);
        settings.sources = order(sources);
        Ok((settings, warnings))
    }

    /// Only the shipped defaults ([`defaults::DEFAULT_PROPS`], [`defaults::DEFAULT_TRANSFORMS`]).
    pub fn builtin() -> Result<(Settings, Vec<Warning>), SettingsError> {
        let props = ConfFile::parse(defaults::DEFAULT_PROPS, "<builtin>/props.conf")?;
        let transforms =
            ConfFile::parse(defaults::DEFAULT_TRANSFORMS, "<builtin>/transforms.conf")?;
        Settings::from_confs(
            &Conf::from_layers([props]),
            &Conf::from_layers([transforms]),
        )
    }

    /// Loads `<etc>/system/{default,local}/{props,transforms}.conf`. When the default layer file
    /// is missing, the shipped defaults take its place.
    pub fn load(etc_dir: &Path) -> Result<(Settings, Vec<Warning>), SettingsError> {
        let load = |name: &str, builtin: &str| -> Result<Conf, SettingsError> {
            let default_path = etc_dir.join("system/default").join(name);
            let default = if default_path.exists() {
                ConfFile::read(&default_path)?
            } else {
                ConfFile::parse(builtin, &format!("<builtin>/{name}"))?
            };
            let local = ConfFile::read(&etc_dir.join("system/local").join(name))?;
            Ok(Conf::from_layers([default, local]))
        };
        let props = load("props.conf", defaults::DEFAULT_PROPS)?;
        let transforms = load("transforms.conf", defaults::DEFAULT_TRANSFORMS)?;
        Settings::from_confs(&props, &transforms)
    }

    /// The settings for a stream with this metadata (cached).
    pub fn resolve(&self, meta: &SourceMeta) -> Arc<Resolved> {
        let key = (
            meta.sourcetype.clone(),
            meta.source.clone(),
            meta.host.clone(),
        );
        if let Ok(cache) = self.cache.lock() {
            if let Some(r) = cache.get(&key) {
                return r.clone();
            }
        }
        let resolved = Arc::new(self.resolve_uncached(meta));
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(key, resolved.clone());
        }
        resolved
    }

    fn resolve_uncached(&self, meta: &SourceMeta) -> Resolved {
        let hosts: Vec<&Partial> = self
            .hosts
            .iter()
            .filter(|(g, _)| g.matches(&meta.host))
            .map(|(_, p)| p)
            .collect();
        let sources: Vec<&Partial> = self
            .sources
            .iter()
            .filter(|(g, _)| g.matches(&meta.source))
            .map(|(_, p)| p)
            .collect();
        let mut sourcetype = meta.sourcetype.clone();
        if sourcetype.is_empty() {
            for p in hosts.iter().chain(&sources) {
                if let Some(st) = &p.sourcetype {
                    sourcetype = st.clone();
                }
            }
        }
        if sourcetype.is_empty() {
            sourcetype = crate::guess::guess_sourcetype(&meta.source, b"");
        }
        let mut p = self.base.clone();
        p.overlay(&self.default);
        if let Some(st) = self.sourcetypes.get(&sourcetype) {
            p.overlay(st);
        }
        for layer in hosts.into_iter().chain(sources) {
            p.overlay(layer);
        }
        finish(p, sourcetype)
    }
}

/// Sorts pattern stanzas into application order: lowest precedence first. Literal stanzas beat
/// patterns; then higher `priority`; then the lexicographically first name wins (applied last).
fn order(mut v: Vec<(String, Glob, Partial)>) -> Vec<(Glob, Partial)> {
    v.sort_by(|a, b| {
        (a.1.literal, a.2.priority, std::cmp::Reverse(&a.0)).cmp(&(
            b.1.literal,
            b.2.priority,
            std::cmp::Reverse(&b.0),
        ))
    });
    v.into_iter().map(|(_, g, p)| (g, p)).collect()
}

/// Fills defaults (Splunk's `system/default/props.conf` values) for anything unset.
fn finish(p: Partial, sourcetype: String) -> Resolved {
    let merge = p.should_linemerge.unwrap_or(true).then(|| MergeRules {
        break_only_before_date: p.break_only_before_date.unwrap_or(true),
        break_only_before: p.break_only_before.clone().flatten(),
        must_break_after: p.must_break_after.clone().flatten(),
        must_not_break_after: p.must_not_break_after.clone().flatten(),
        must_not_break_before: p.must_not_break_before.clone().flatten(),
        max_events: p.max_events.unwrap_or(256),
    });
    let time = ExtractConfig {
        time_prefix: p.time_prefix.flatten(),
        time_format: p.time_format.flatten(),
        max_lookahead: p.max_lookahead.unwrap_or(128),
        tz: p.tz.unwrap_or(Zone::Utc),
        mode: p.mode.unwrap_or(Mode::Auto),
        max_days_ago: p.max_days_ago.unwrap_or(2000),
        max_days_hence: p.max_days_hence.unwrap_or(2),
    };
    Resolved {
        sourcetype,
        charset: p.charset.unwrap_or(Charset::Utf8),
        breaker: p.breaker.unwrap_or(Breaker::Newlines),
        lookbehind: p.lookbehind.unwrap_or(100),
        truncate: p.truncate.unwrap_or(10_000),
        merge,
        time,
        sed: p.sed.into_values().flatten().collect(),
        transforms: p.transforms.into_values().flatten().collect(),
        annotate_punct: p.annotate_punct.unwrap_or(true),
    }
}
