//! A human-readable summary of one bucket.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::bucket::hot::HotBucket;
use crate::bucket::warm::WarmBucket;
use crate::bucket::BucketRead;
use crate::error::{IoContext, StoreError};
use crate::layout::{parse_name, BucketKind};
use crate::meta::{BucketMeta, ValueStats};

/// Summary of a bucket, printed by `lode inspect`.
#[derive(Debug, Clone)]
pub struct BucketSummary {
    /// The bucket directory.
    pub path: PathBuf,
    /// Hot or warm.
    pub kind: BucketKind,
    /// Files and their sizes in bytes, sorted by name.
    pub files: Vec<(String, u64)>,
    /// The bucket's metadata (time range µs, events, raw bytes, terms, per-value stats).
    pub meta: BucketMeta,
    /// Sum of the file sizes, bytes.
    pub stored_bytes: u64,
}

fn top(stats: &[ValueStats], n: usize) -> Vec<&ValueStats> {
    let mut v: Vec<&ValueStats> = stats.iter().collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    v.truncate(n);
    v
}

impl fmt::Display for BucketSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.meta;
        writeln!(
            f,
            "bucket {} ({:?}, id {})",
            self.path.display(),
            self.kind,
            m.id
        )?;
        writeln!(
            f,
            "time range  {} .. {} (µs since epoch)",
            m.min_time, m.max_time
        )?;
        writeln!(f, "events      {}", m.event_count)?;
        writeln!(f, "terms       {}", m.term_count)?;
        let pct = if m.raw_bytes > 0 {
            self.stored_bytes as f64 * 100.0 / m.raw_bytes as f64
        } else {
            0.0
        };
        writeln!(
            f,
            "raw bytes   {}  stored bytes {}  ({pct:.1} % of raw)",
            m.raw_bytes, self.stored_bytes
        )?;
        writeln!(f, "files:")?;
        for (name, size) in &self.files {
            writeln!(f, "  {name:<14} {size:>12}")?;
        }
        for (label, stats) in [("hosts", &m.hosts), ("sourcetypes", &m.sourcetypes)] {
            writeln!(f, "top {label}:")?;
            for s in top(stats, 5) {
                writeln!(f, "  {:<30} {:>10}", s.name, s.count)?;
            }
        }
        Ok(())
    }
}

/// Summarises the bucket directory `bucket_dir` (opening it, so damage is reported as errors).
pub fn inspect(bucket_dir: &Path) -> Result<BucketSummary, StoreError> {
    let name = bucket_dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_name)
        .ok_or_else(|| StoreError::UnknownIndex(bucket_dir.display().to_string()))?;
    let meta = match name.0 {
        BucketKind::Warm => WarmBucket::open(bucket_dir)?.meta().clone(),
        BucketKind::Hot => HotBucket::open(bucket_dir)?.meta().clone(),
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(bucket_dir).at(bucket_dir)? {
        let entry = entry.at(bucket_dir)?;
        let len = entry.metadata().at(&entry.path())?.len();
        files.push((entry.file_name().to_string_lossy().into_owned(), len));
    }
    files.sort();
    Ok(BucketSummary {
        path: bucket_dir.to_path_buf(),
        kind: name.0,
        stored_bytes: files.iter().map(|f| f.1).sum(),
        files,
        meta,
    })
}
