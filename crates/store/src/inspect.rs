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
    /// Of a warm bucket: lexicon blocks, lexicon index bytes and journal dictionary bytes.
    pub warm: Option<WarmLayout>,
}

/// How a warm bucket's lexicon and journal are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmLayout {
    /// Lexicon blocks.
    pub lexicon_blocks: usize,
    /// Bytes of the lexicon's block index (what a reader keeps in memory).
    pub lexicon_index_bytes: u64,
    /// Journal slices.
    pub slices: usize,
    /// Bytes of the journal's zstd dictionary (0: none).
    pub journal_dict_bytes: usize,
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
        if let Some(w) = &self.warm {
            writeln!(
                f,
                "lexicon     {} blocks, index {} bytes",
                w.lexicon_blocks, w.lexicon_index_bytes
            )?;
            writeln!(
                f,
                "journal     {} slices, dictionary {} bytes",
                w.slices, w.journal_dict_bytes
            )?;
        }
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
    let (meta, warm) = match name.0 {
        BucketKind::Warm => {
            let b = WarmBucket::open(bucket_dir)?;
            let lex = b.lexicon()?;
            let warm = WarmLayout {
                lexicon_blocks: lex.block_count(),
                lexicon_index_bytes: crate::terms::lexicon::index_len(
                    &bucket_dir.join(crate::consts::LEXICON_FILE),
                ),
                slices: b.slice_count(),
                journal_dict_bytes: b.journal_dict_len(),
            };
            (b.meta().clone(), Some(warm))
        }
        BucketKind::Hot => (HotBucket::open(bucket_dir)?.meta().clone(), None),
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
        warm,
    })
}
