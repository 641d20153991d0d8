//! Reading `indexes.conf` and `server.conf` into typed settings.

use std::path::Path;

use lode_conf::{Conf, ConfError, Stanza, Warning};
use lode_store::IndexConfig;

/// `maxDataSize = auto`, in MB of raw data per hot bucket (see the shipped indexes.conf).
pub const AUTO_MAX_DATA_MB: u64 = 128;

/// `lode.maxMergedDataSize = auto`, in MB of raw data per merged warm bucket.
pub const AUTO_MAX_MERGED_MB: u64 = 1024;

/// Most pipeline sets a node runs (each costs four threads and a hot bucket per index).
pub const MAX_PIPELINE_SETS: usize = 64;

/// Keys of indexes.conf that Lode reads.
const INDEX_KEYS: &[&str] = &[
    "maxDataSize",
    "maxEventsPerBucket",
    "maxHotSpanSecs",
    "maxHotIdleSecs",
    "lode.maxMergedDataSize",
    "lode.mergeGraceSecs",
];
/// Splunk keys accepted for compatibility but without effect on a single node (reported as such).
const INDEX_KEYS_IGNORED: &[&str] = &[
    "homePath",
    "coldPath",
    "thawedPath",
    "frozenTimePeriodInSecs",
    "maxTotalDataSizeMB",
    "maxWarmDBCount",
    "repFactor",
    "datatype",
    "disabled",
];

/// One index defined in indexes.conf.
#[derive(Debug, Clone)]
pub struct IndexSpec {
    /// The index name (the stanza name).
    pub name: String,
    /// Its bucket limits.
    pub config: IndexConfig,
}

/// Typed `server.conf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSettings {
    /// `[general] listen`: address of the HTTP API.
    pub listen: String,
    /// `[general] parallelIngestionPipelines`: number of pipeline sets (each with its own
    /// queues, stage threads and hot bucket per index); at least 1.
    pub pipeline_sets: usize,
    /// `[pipeline] batchEvents`: events per batch handed to the index writer.
    pub batch_events: usize,
    /// `[pipeline] queueCapacity`: capacity of each inter-stage queue.
    pub queue_capacity: usize,
    /// `[search] max_concurrent`: searches the server runs at once (0 = 2 × cores).
    pub search_max_concurrent: usize,
    /// `[search] max_queued`: searches waiting for a slot before new ones get 503.
    pub search_max_queued: usize,
    /// `[search] bucket_cache_mb`: byte budget of the warm-bucket reader cache, MiB (0 = off).
    pub search_bucket_cache_mb: u64,
    /// `[search] slice_cache_mb`: byte budget of the decompressed-slice cache, MiB (0 = off).
    pub search_slice_cache_mb: u64,
    /// `[search] process_memory_mb`: resident memory of the whole process, MiB, past which the
    /// two caches give way (down to a quarter of their budgets); 0 = no such target.
    pub search_process_memory_mb: u64,
    /// `[search] batch_search_max_pipeline`: parallel pipelines of a batch-mode search
    /// (0 = the number of cores).
    pub search_batch_max_pipeline: usize,
    /// `[sslConfig] enableSplunkdSSL`: the API over TLS (default true, as splunkd).
    pub ssl: bool,
    /// `[sslConfig] serverCert`: PEM certificate chain (empty: the generated self-signed one).
    pub server_cert: String,
    /// `[sslConfig] privKeyPath`: PEM key of `serverCert`.
    pub priv_key_path: String,
}

fn value<'a>(
    stanza: &'a Stanza,
    default: Option<&'a Stanza>,
    key: &str,
) -> Option<(&'a str, String)> {
    stanza
        .entry(key)
        .or_else(|| default.and_then(|d| d.entry(key)))
        .map(|e| (e.value.as_str(), format!("{}:{}", e.origin, e.line)))
}

/// A size given in MB, or `auto` for `auto_mb`, in bytes.
fn size_mb(v: &str, key: &str, at: &str, auto_mb: u64) -> Result<u64, ConfError> {
    let mb = if v.trim() == "auto" {
        auto_mb
    } else {
        parse_num::<u64>(v, key, at)?
    };
    Ok(mb.saturating_mul(1024 * 1024))
}

fn parse_num<T: std::str::FromStr>(v: &str, key: &str, at: &str) -> Result<T, ConfError> {
    v.trim().parse().map_err(|_| ConfError::Syntax {
        origin: at.to_string(),
        line: 0,
        message: format!("{key} = {v:?} is not a valid number"),
    })
}

/// Reads the layered indexes.conf under `etc`. Returns the indexes (never `default`) and warnings
/// for keys Lode does not use.
pub fn load_indexes(etc: &Path) -> Result<(Vec<IndexSpec>, Vec<Warning>), ConfError> {
    let conf = Conf::load_layered(etc, "indexes.conf")?;
    let default = conf.stanza("default");
    let mut specs = Vec::new();
    let mut warnings = Vec::new();
    for stanza in conf.stanzas() {
        for e in stanza.entries() {
            if INDEX_KEYS_IGNORED.contains(&e.key.as_str()) {
                warnings.push(Warning {
                    origin: e.origin.to_string(),
                    line: e.line,
                    message: format!("indexes.conf key {} has no effect on a Lode node", e.key),
                });
            } else if !INDEX_KEYS.contains(&e.key.as_str()) {
                warnings.push(Warning {
                    origin: e.origin.to_string(),
                    line: e.line,
                    message: format!("unknown indexes.conf key {} (ignored)", e.key),
                });
            }
        }
        if stanza.name == "default" {
            continue;
        }
        if !valid_index_name(&stanza.name) {
            return Err(ConfError::Syntax {
                origin: "indexes.conf".into(),
                line: 0,
                message: format!(
                    "invalid index name [{}]: use letters, digits, '_' and '-', not starting with '-'",
                    stanza.name
                ),
            });
        }
        let mut config = IndexConfig {
            name: stanza.name.clone(),
            ..IndexConfig::default()
        };
        if let Some((v, at)) = value(stanza, default, "maxDataSize") {
            config.max_bucket_raw_bytes = size_mb(v, "maxDataSize", &at, AUTO_MAX_DATA_MB)?;
        }
        if let Some((v, at)) = value(stanza, default, "maxEventsPerBucket") {
            config.max_bucket_events = parse_num(v, "maxEventsPerBucket", &at)?;
        }
        if let Some((v, at)) = value(stanza, default, "maxHotSpanSecs") {
            config.max_hot_span_secs = parse_num(v, "maxHotSpanSecs", &at)?;
        }
        if let Some((v, at)) = value(stanza, default, "maxHotIdleSecs") {
            config.max_hot_idle_secs = parse_num(v, "maxHotIdleSecs", &at)?;
        }
        if let Some((v, at)) = value(stanza, default, "lode.maxMergedDataSize") {
            config.max_merged_raw_bytes =
                size_mb(v, "lode.maxMergedDataSize", &at, AUTO_MAX_MERGED_MB)?;
        }
        if let Some((v, at)) = value(stanza, default, "lode.mergeGraceSecs") {
            config.merge_grace_secs = parse_num(v, "lode.mergeGraceSecs", &at)?;
        }
        specs.push(IndexSpec {
            name: stanza.name.clone(),
            config,
        });
    }
    Ok((specs, warnings))
}

/// Index names as Splunk allows them: lowercase letters, digits, `_` and `-`, not starting with
/// `-` or `_`-less restrictions beyond that (`_internal` is valid).
pub fn valid_index_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 80
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Reads the layered server.conf under `etc`.
pub fn load_server(etc: &Path) -> Result<(ServerSettings, Vec<Warning>), ConfError> {
    let conf = Conf::load_layered(etc, "server.conf")?;
    let mut s = ServerSettings {
        listen: "127.0.0.1:8089".into(),
        pipeline_sets: 1,
        batch_events: 8192,
        queue_capacity: 4,
        search_max_concurrent: 0,
        search_max_queued: 256,
        search_bucket_cache_mb: 128,
        search_slice_cache_mb: 32,
        search_process_memory_mb: 256,
        search_batch_max_pipeline: 0,
        ssl: true,
        server_cert: String::new(),
        priv_key_path: String::new(),
    };
    let mut warnings = Vec::new();
    for stanza in conf.stanzas() {
        for e in stanza.entries() {
            let at = format!("{}:{}", e.origin, e.line);
            match (stanza.name.as_str(), e.key.as_str()) {
                ("general", "listen") => s.listen = e.value.trim().to_string(),
                ("general", "parallelIngestionPipelines") => {
                    s.pipeline_sets = parse_num(&e.value, "parallelIngestionPipelines", &at)?
                }
                ("pipeline", "batchEvents") => {
                    s.batch_events = parse_num(&e.value, "batchEvents", &at)?
                }
                ("pipeline", "queueCapacity") => {
                    s.queue_capacity = parse_num(&e.value, "queueCapacity", &at)?
                }
                ("search", "max_concurrent") => {
                    s.search_max_concurrent = parse_num(&e.value, "max_concurrent", &at)?
                }
                ("search", "max_queued") => {
                    s.search_max_queued = parse_num(&e.value, "max_queued", &at)?
                }
                ("search", "bucket_cache_mb") => {
                    s.search_bucket_cache_mb = parse_num(&e.value, "bucket_cache_mb", &at)?
                }
                ("search", "slice_cache_mb") => {
                    s.search_slice_cache_mb = parse_num(&e.value, "slice_cache_mb", &at)?
                }
                ("search", "process_memory_mb") => {
                    s.search_process_memory_mb = parse_num(&e.value, "process_memory_mb", &at)?
                }
                ("sslConfig", "enableSplunkdSSL") => {
                    s.ssl = match lode_conf::parse_bool(&e.value) {
                        Some(b) => b,
                        None => {
                            return Err(ConfError::Syntax {
                                origin: e.origin.to_string(),
                                line: e.line,
                                message: format!(
                                    "enableSplunkdSSL = {}: expected true or false",
                                    e.value.trim()
                                ),
                            })
                        }
                    }
                }
                ("sslConfig", "serverCert") => s.server_cert = e.value.trim().to_string(),
                ("sslConfig", "privKeyPath") => s.priv_key_path = e.value.trim().to_string(),
                ("search", "batch_search_max_pipeline") => {
                    s.search_batch_max_pipeline =
                        parse_num(&e.value, "batch_search_max_pipeline", &at)?
                }
                _ => warnings.push(Warning {
                    origin: e.origin.to_string(),
                    line: e.line,
                    message: format!(
                        "unknown server.conf key [{}] {} (ignored)",
                        stanza.name, e.key
                    ),
                }),
            }
        }
    }
    if !(1..=MAX_PIPELINE_SETS).contains(&s.pipeline_sets) {
        return Err(ConfError::Syntax {
            origin: "server.conf".into(),
            line: 0,
            message: format!(
                "[general] parallelIngestionPipelines must be between 1 and {MAX_PIPELINE_SETS}"
            ),
        });
    }
    if s.batch_events == 0 || s.queue_capacity == 0 {
        return Err(ConfError::Syntax {
            origin: "server.conf".into(),
            line: 0,
            message: "[pipeline] batchEvents and queueCapacity must be at least 1".into(),
        });
    }
    Ok((s, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home_with(local_indexes: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let home = crate::Home::new(dir.path());
        home.ensure_layout().unwrap();
        std::fs::write(home.etc_local().join("indexes.conf"), local_indexes).unwrap();
        dir
    }

    #[test]
    fn shipped_indexes_and_local_overrides() {
        let dir = home_with(
            "[web]\nmaxDataSize = 10\nlode.maxMergedDataSize = 0\n[main]\nmaxHotIdleSecs = 5\n",
        );
        let (specs, warnings) = load_indexes(&dir.path().join("etc")).unwrap();
        let names: Vec<_> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["main", "_internal", "web"]);
        assert_eq!(specs[2].config.max_bucket_raw_bytes, 10 * 1024 * 1024);
        assert_eq!(specs[0].config.max_hot_idle_secs, 5);
        assert_eq!(
            specs[0].config.max_bucket_raw_bytes,
            AUTO_MAX_DATA_MB * 1024 * 1024
        );
        assert_eq!(
            specs[0].config.max_merged_raw_bytes,
            AUTO_MAX_MERGED_MB * 1024 * 1024
        );
        assert_eq!(specs[0].config.merge_grace_secs, 60);
        assert_eq!(specs[2].config.max_merged_raw_bytes, 0);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn unknown_and_ignored_keys_are_reported() {
        let dir = home_with("[web]\nhomePath = $SPLUNK_DB/web/db\nmaxDatSize = 3\n");
        let (_, warnings) = load_indexes(&dir.path().join("etc")).unwrap();
        let msgs: Vec<_> = warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("homePath"));
        assert!(msgs[1].contains("unknown indexes.conf key maxDatSize"));
    }

    #[test]
    fn process_memory_target() {
        let dir = home_with("");
        let etc = dir.path().join("etc");
        assert_eq!(load_server(&etc).unwrap().0.search_process_memory_mb, 256);
        let server = etc.join("system/local/server.conf");
        std::fs::write(&server, "[search]\nprocess_memory_mb = 0\n").unwrap();
        let (s, warnings) = load_server(&etc).unwrap();
        assert_eq!(s.search_process_memory_mb, 0);
        assert!(warnings.is_empty(), "{warnings:?}");
        std::fs::write(&server, "[search]\nprocess_memory_mb = lots\n").unwrap();
        let err = load_server(&etc).unwrap_err().to_string();
        assert!(err.contains("process_memory_mb"), "{err}");
    }

    #[test]
    fn parallel_ingestion_pipelines() {
        let dir = home_with("");
        let etc = dir.path().join("etc");
        assert_eq!(load_server(&etc).unwrap().0.pipeline_sets, 1);
        let server = etc.join("system/local/server.conf");
        std::fs::write(&server, "[general]\nparallelIngestionPipelines = 2\n").unwrap();
        let (s, warnings) = load_server(&etc).unwrap();
        assert_eq!(s.pipeline_sets, 2);
        assert!(warnings.is_empty(), "{warnings:?}");
        for bad in ["0", "65", "two"] {
            std::fs::write(
                &server,
                format!("[general]\nparallelIngestionPipelines = {bad}\n"),
            )
            .unwrap();
            let err = load_server(&etc).unwrap_err().to_string();
            assert!(err.contains("parallelIngestionPipelines"), "{err}");
        }
    }

    #[test]
    fn splunkd_ssl_takes_every_splunk_boolean() {
        let dir = home_with("");
        let etc = dir.path().join("etc");
        let server = etc.join("system/local/server.conf");
        for (v, want) in [("n", false), ("Y", true), ("0", false), ("true", true)] {
            std::fs::write(&server, format!("[sslConfig]\nenableSplunkdSSL = {v}\n")).unwrap();
            assert_eq!(load_server(&etc).unwrap().0.ssl, want, "{v}");
        }
        std::fs::write(&server, "[sslConfig]\nenableSplunkdSSL = maybe\n").unwrap();
        let err = load_server(&etc).unwrap_err().to_string();
        assert!(err.contains("enableSplunkdSSL = maybe"), "{err}");
    }

    #[test]
    fn bad_numbers_and_names_are_errors() {
        let dir = home_with("[web]\nmaxDataSize = lots\n");
        let err = load_indexes(&dir.path().join("etc"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("maxDataSize"), "{err}");
        let dir = home_with("[Web Logs]\n");
        assert!(load_indexes(&dir.path().join("etc")).is_err());
    }
}
