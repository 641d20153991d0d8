//! The node: configuration, index writers and the pipeline sets, opened together on one home.
//!
//! With `parallelIngestionPipelines = N` the node runs N pipeline sets; every index writer gets N
//! lanes and set `i` writes to lane `i` of every index, so sets share no lock on the write path.

use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use lode_event::Event;
use lode_ingest::{
    PipelineConfig, Pipelines, QueueMetrics, Settings, Sink, SourceMeta, StreamReport,
};
use lode_store::{IndexWriter, RecoveryReport};

use crate::config;
use crate::metrics::{MetricsLogger, METRICS_EVERY};
use crate::sink::{StoreSink, Writers};
use crate::Home;

/// Bytes read from an input per pipeline chunk.
const READ_CHUNK: usize = 256 * 1024;

/// Why the node could not start or do its work.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// A configuration file is malformed.
    #[error("{0}")]
    Config(String),
    /// Opening or writing an index failed.
    #[error(transparent)]
    Store(#[from] lode_store::StoreError),
    /// The ingestion pipeline failed.
    #[error(transparent)]
    Ingest(#[from] lode_ingest::IngestError),
    /// Data was sent to an index that is not defined.
    #[error("index '{0}' does not exist")]
    UnknownIndex(String),
    /// Reading an input or the home failed.
    #[error("{0}")]
    Io(String),
}

/// What one call of [`Node::ingest`] did.
pub type IngestSummary = StreamReport;

/// An open node. Dropping it without [`Node::close`] leaves hot buckets to be recovered from
/// their write-ahead logs at the next start (nothing accepted is lost either way).
pub struct Node {
    home: Home,
    writers: Writers,
    /// The pipeline sets; shared with the metrics logger.
    pipelines: Option<Arc<Pipelines>>,
    /// Logs queue metrics every [`METRICS_EVERY`]; stopped before the pipelines shut down.
    metrics_logger: Option<MetricsLogger>,
    warnings: Vec<String>,
    recovery: Vec<(String, RecoveryReport)>,
    server: config::ServerSettings,
    /// props/transforms, for events that skip the pipeline's first stages.
    settings: Arc<Settings>,
    /// Lane of the next [`Node::write_events`] call (round robin).
    next_lane: AtomicUsize,
}

impl Node {
    /// Creates the home layout if needed, loads the configuration, opens (and recovers) every
    /// index and starts the pipeline.
    pub fn open(home: &Home) -> Result<Node, NodeError> {
        home.ensure_layout()
            .map_err(|e| NodeError::Io(format!("cannot prepare {}: {e}", home.root().display())))?;
        let etc = home.etc();
        let mut warnings = Vec::new();
        let (specs, w) =
            config::load_indexes(&etc).map_err(|e| NodeError::Config(e.to_string()))?;
        warnings.extend(
            w.into_iter()
                .map(|w| format!("{}:{}: {}", w.origin, w.line, w.message)),
        );
        let (server, w) =
            config::load_server(&etc).map_err(|e| NodeError::Config(e.to_string()))?;
        warnings.extend(
            w.into_iter()
                .map(|w| format!("{}:{}: {}", w.origin, w.line, w.message)),
        );
        let (settings, w) = Settings::load(&etc).map_err(|e| NodeError::Config(e.to_string()))?;
        warnings.extend(
            w.into_iter()
                .map(|w| format!("{}:{}: {}", w.origin, w.line, w.message)),
        );

        let mut writers = HashMap::new();
        let mut recovery = Vec::new();
        for spec in specs {
            let dir = home.index_root().join(&spec.name);
            let (writer, report) =
                IndexWriter::open_lanes(&dir, spec.config, server.pipeline_sets)?;
            recovery.push((spec.name.clone(), report));
            writers.insert(spec.name, Arc::new(writer));
        }
        let writers: Writers = Arc::new(std::sync::RwLock::new(writers));
        let settings = Arc::new(settings);
        let cfg = PipelineConfig {
            settings: settings.clone(),
            queue_capacity: server.queue_capacity,
            batch_events: server.batch_events,
        };
        let pipelines = Arc::new(Pipelines::start(cfg, server.pipeline_sets, |lane| {
            Box::new(StoreSink::new(writers.clone(), lane))
        }));
        let logger = MetricsLogger::start_tracing(pipelines.clone(), METRICS_EVERY);
        Ok(Node {
            home: home.clone(),
            writers,
            pipelines: Some(pipelines),
            metrics_logger: Some(logger),
            warnings,
            recovery,
            server,
            settings,
            next_lane: AtomicUsize::new(0),
        })
    }

    /// The home this node runs on.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// Configuration warnings (unknown keys and the like), as `file:line: message`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What recovery did when each index was opened.
    pub fn recovery(&self) -> &[(String, RecoveryReport)] {
        &self.recovery
    }

    /// The typed server.conf.
    pub fn server_settings(&self) -> &config::ServerSettings {
        &self.server
    }

    /// Whether `index` is defined.
    pub fn has_index(&self, index: &str) -> bool {
        crate::sink::writer(&self.writers, index).is_some()
    }

    /// Number of pipeline sets.
    pub fn pipeline_sets(&self) -> usize {
        self.pipelines.as_ref().map_or(0, |p| p.len())
    }

    /// Fill level and blocking counts of every queue of every pipeline set.
    pub fn queue_metrics(&self) -> Vec<QueueMetrics> {
        self.pipelines
            .as_ref()
            .map(|p| p.metrics())
            .unwrap_or_default()
    }

    /// Reads `input` to its end through one pipeline set (the least loaded) as one stream, and
    /// returns once every event of it is durable. `progress` is called with the number of bytes
    /// read each time.
    pub fn ingest(
        &self,
        meta: SourceMeta,
        input: &mut dyn Read,
        progress: &mut dyn FnMut(u64),
    ) -> Result<StreamReport, NodeError> {
        if !self.has_index(&meta.index) {
            return Err(NodeError::UnknownIndex(meta.index));
        }
        let pipeline = self
            .pipelines
            .as_ref()
            .ok_or_else(|| NodeError::Io("the node is closing".into()))?;
        let mut stream = pipeline.open_stream(meta);
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(NodeError::Io(format!("reading the input failed: {e}"))),
            };
            stream.send(&buf[..n])?;
            progress(n as u64);
        }
        Ok(stream.finish()?)
    }

    /// Writes events that arrive already formed — HEC's JSON endpoint: no line breaking, line
    /// merging or timestamping — after the typing stage (`SEDCMD-*`, `TRANSFORMS-*` of each
    /// event's sourcetype, source and host), and returns once they are durable. Every event's
    /// index (after routing transforms) must exist, else nothing is written. Returns the number
    /// written (events sent to the nullQueue are not).
    pub fn write_events(&self, events: Vec<Event>) -> Result<u64, NodeError> {
        self.write_events_timed(events, &[])
    }

    /// [`Node::write_events`], where event `i` with `find_time[i]` set gets its `_time` from its
    /// text by its sourcetype's timestamp rules (HEC's `auto_extract_timestamp=true` for events
    /// without `time`), keeping the time it has when none is found.
    pub fn write_events_timed(
        &self,
        mut events: Vec<Event>,
        find_time: &[bool],
    ) -> Result<u64, NodeError> {
        let mut scratch = String::new();
        let mut meta = SourceMeta::default();
        let mut resolved = None;
        let mut extractor: Option<lode_time::extract::Extractor> = None;
        let mut i = 0;
        events.retain_mut(|e| {
            let find = find_time.get(i).copied().unwrap_or(false);
            i += 1;
            let same = resolved.is_some()
                && meta.sourcetype == e.sourcetype
                && meta.source == e.source
                && meta.host == e.host;
            if !same {
                meta = SourceMeta {
                    host: e.host.to_string(),
                    source: e.source.to_string(),
                    sourcetype: e.sourcetype.to_string(),
                    index: e.index.to_string(),
                };
                resolved = Some(self.settings.resolve(&meta));
                extractor = None;
            }
            let r = resolved.as_ref().expect("resolved above");
            if find {
                if extractor.is_none() && r.time.mode == lode_time::extract::Mode::Auto {
                    extractor = lode_time::extract::Extractor::new(r.time.clone()).ok();
                }
                if let Some(found) = extractor.as_mut().and_then(|x| x.extract(&e.raw, e.time)) {
                    e.time = found.time;
                }
            }
            lode_ingest::typing::type_event(r, e, &mut scratch)
        });
        if let Some(bad) = events.iter().find(|e| !self.has_index(&e.index)) {
            return Err(NodeError::UnknownIndex(bad.index.to_string()));
        }
        let n = events.len() as u64;
        if n == 0 {
            return Ok(0);
        }
        let sets = self.pipeline_sets().max(1);
        let lane = self.next_lane.fetch_add(1, Ordering::Relaxed) % sets;
        StoreSink::new(self.writers.clone(), lane)
            .write(events)
            .map_err(|e| NodeError::Io(e.to_string()))?;
        Ok(n)
    }

    /// The writers, by name (a snapshot).
    fn all_writers(&self) -> Vec<(String, Arc<IndexWriter>)> {
        self.writers
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Names of the indexes, sorted.
    pub fn index_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.all_writers().into_iter().map(|(k, _)| k).collect();
        v.sort();
        v
    }

    /// Creates index `name` while running: appends `[name]` to
    /// `etc/system/local/indexes.conf` (so a restart keeps it) and opens its writer.
    pub fn create_index(&self, name: &str) -> Result<(), NodeError> {
        if !config::valid_index_name(name) {
            return Err(NodeError::Config(format!(
                "invalid index name '{name}': use lowercase letters, digits, '_' and '-', not starting with '-'"
            )));
        }
        let mut map = self.writers.write().unwrap_or_else(|p| p.into_inner());
        if map.contains_key(name) {
            return Err(NodeError::Config(format!("index '{name}' exists already")));
        }
        let local = self.home.etc_local();
        std::fs::create_dir_all(&local)
            .map_err(|e| NodeError::Io(format!("cannot create {}: {e}", local.display())))?;
        let path = local.join("indexes.conf");
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| NodeError::Io(format!("cannot write {}: {e}", path.display())))?;
            writeln!(f, "\n[{name}]")
                .and_then(|_| f.sync_all())
                .map_err(|e| NodeError::Io(format!("cannot write {}: {e}", path.display())))?;
        }
        let (specs, _) =
            config::load_indexes(&self.home.etc()).map_err(|e| NodeError::Config(e.to_string()))?;
        let spec = specs
            .into_iter()
            .find(|s| s.name == name)
            .ok_or_else(|| NodeError::Config(format!("index '{name}' was not defined")))?;
        let dir = self.home.index_root().join(name);
        let (writer, _) = IndexWriter::open_lanes(&dir, spec.config, self.server.pipeline_sets)?;
        map.insert(name.to_string(), Arc::new(writer));
        Ok(())
    }

    /// Rolls the hot buckets of `index` (or of every index) to warm.
    pub fn roll(&self, index: Option<&str>) -> Result<(), NodeError> {
        match index {
            Some(name) => crate::sink::writer(&self.writers, name)
                .ok_or_else(|| NodeError::UnknownIndex(name.into()))?
                .roll()?,
            None => {
                for (_, w) in self.all_writers() {
                    w.roll()?;
                }
            }
        }
        Ok(())
    }

    /// Rolls hot buckets that have been idle longer than their index's `maxHotIdleSecs`.
    pub fn roll_idle(&self, now_secs: i64) -> Result<(), NodeError> {
        for (_, w) in self.all_writers() {
            w.roll_if_idle(now_secs)?;
        }
        Ok(())
    }

    /// Drains the pipeline, then rolls every hot bucket and releases the indexes.
    pub fn close(mut self) -> Result<(), NodeError> {
        drop(self.metrics_logger.take());
        if let Some(p) = self.pipelines.take() {
            Arc::try_unwrap(p)
                .map_err(|_| NodeError::Io("pipelines still in use at close".into()))?
                .shutdown()?;
        }
        let writers = std::mem::take(&mut *self.writers.write().unwrap_or_else(|p| p.into_inner()));
        for (_, w) in writers {
            let w = Arc::try_unwrap(w)
                .map_err(|_| NodeError::Io("index writers still in use at close".into()))?;
            w.close()?;
        }
        Ok(())
    }
}
