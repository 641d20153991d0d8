//! Verification of every file of every bucket, and quarantine of damaged buckets.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::bucket::hot::HotBucket;
use crate::bucket::warm::WarmBucket;
use crate::bucket::BucketRead;
use crate::consts::{magic, QUARANTINE_DIR, WARM_FILES};
use crate::error::{IoContext, StoreError};
use crate::footer::verify_streaming;
use crate::layout::{fsync_dir, list_buckets, BucketKind};

/// One problem found by [`fsck`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsckProblem {
    /// The bucket directory.
    pub bucket: PathBuf,
    /// The damaged file (or the bucket directory when the problem spans files).
    pub file: PathBuf,
    /// What is wrong.
    pub problem: String,
    /// Where the bucket was moved, when quarantine was asked for.
    pub quarantined_to: Option<PathBuf>,
}

impl fmt::Display for FsckProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.problem)?;
        if let Some(q) = &self.quarantined_to {
            write!(f, " (bucket moved to {})", q.display())?;
        }
        Ok(())
    }
}

fn magic_of(name: &str) -> [u8; 4] {
    match name {
        crate::consts::META_FILE => magic::META,
        crate::consts::COLUMNS_FILE => magic::COLUMNS,
        crate::consts::SLICES_FILE => magic::SLICES,
        crate::consts::JOURNAL_FILE => magic::JOURNAL,
        crate::consts::LEXICON_FILE => magic::LEXICON,
        crate::consts::POSTINGS_FILE => magic::POSTINGS,
        _ => magic::BLOOM,
    }
}

fn problem_of(bucket: &Path, e: StoreError) -> FsckProblem {
    let file = match &e {
        StoreError::Io { path, .. }
        | StoreError::Corrupt { path, .. }
        | StoreError::Version { path, .. } => path.clone(),
        _ => bucket.to_path_buf(),
    };
    let problem = match e {
        StoreError::Corrupt { reason, .. } => reason,
        StoreError::Io { source, .. } => format!("I/O error: {source}"),
        other => other.to_string(),
    };
    FsckProblem {
        bucket: bucket.to_path_buf(),
        file,
        problem,
        quarantined_to: None,
    }
}

/// Verifies one warm bucket completely: every footer and checksum, then the cross-checks of
/// opening it, then every postings list and every journal slice.
pub fn check_warm(path: &Path) -> Vec<FsckProblem> {
    let mut out = Vec::new();
    for name in WARM_FILES {
        if let Err(e) = verify_streaming(&path.join(name), magic_of(name)) {
            out.push(problem_of(path, e));
        }
    }
    if !out.is_empty() {
        return out;
    }
    let b = match WarmBucket::open(path) {
        Ok(b) => b,
        Err(e) => return vec![problem_of(path, e)],
    };
    let lexicon = match b
        .journal_table()
        .and_then(|_| b.prepare())
        .and_then(|()| b.lexicon())
    {
        Ok(l) => l,
        Err(e) => return vec![problem_of(path, e)],
    };
    let mut scratch = crate::bucket::warm::BlockScratch::default();
    // Each postings list decodes, and each kinds mask is the one its events make (rule KINDS
    // answers `And`s from them: a wrong one would hide events).
    let kinds = match crate::bucket::kinds::of_buckets(&[(&b, 0)]) {
        Ok(k) => k,
        Err(e) => return vec![problem_of(path, e)],
    };
    let mut list = Vec::new();
    let walked = lexicon.walk_kinds(
        b"",
        &mut crate::terms::lexicon::LexScratch::default(),
        &mut |term, value, stored| {
            let bits = b.postings_at(value, &mut scratch)?;
            if let Some(stored) = stored {
                list.clear();
                list.extend(bits.iter());
                if kinds.mask(&list) != stored {
                    return Err(StoreError::corrupt(
                        path.join(crate::consts::LEXICON_FILE),
                        format!(
                            "kinds mask of term {:?} differs from its events'",
                            String::from_utf8_lossy(term)
                        ),
                    ));
                }
            }
            Ok(true)
        },
    );
    if let Err(e) = walked {
        return vec![problem_of(path, e)];
    }
    let n = b.meta().event_count as u32;
    if let Err(e) = b.read_events(&mut (0..n), &mut |_| true) {
        out.push(problem_of(path, e));
    }
    out
}

/// Verifies every file of every bucket of `index_dir`; with `quarantine`, moves each damaged
/// warm bucket to `quarantine/` (hot buckets are repaired or quarantined by the writer's
/// recovery, which holds the lock). A torn WAL tail is not a problem: recovery cuts it.
pub fn fsck(index_dir: &Path, quarantine: bool) -> Result<Vec<FsckProblem>, StoreError> {
    let mut all = Vec::new();
    for info in list_buckets(index_dir)? {
        let mut problems = match info.kind {
            BucketKind::Warm => check_warm(&info.path),
            BucketKind::Hot => match HotBucket::open(&info.path) {
                Ok(_) => Vec::new(),
                Err(e) => vec![problem_of(&info.path, e)],
            },
        };
        if quarantine && info.kind == BucketKind::Warm && !problems.is_empty() {
            let to = quarantine_bucket(index_dir, &info.path)?;
            for p in &mut problems {
                p.quarantined_to = Some(to.clone());
            }
        }
        all.extend(problems);
    }
    Ok(all)
}

/// Moves `bucket` into `index_dir/quarantine/` (keeping its name, suffixed if taken) and fsyncs
/// both directories. Returns the new path.
pub fn quarantine_bucket(index_dir: &Path, bucket: &Path) -> Result<PathBuf, StoreError> {
    let qdir = index_dir.join(QUARANTINE_DIR);
    std::fs::create_dir_all(&qdir).at(&qdir)?;
    let name = bucket
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bucket".into());
    let mut to = qdir.join(&name);
    let mut n = 1;
    while to.exists() {
        to = qdir.join(format!("{name}.{n}"));
        n += 1;
    }
    std::fs::rename(bucket, &to).at(bucket)?;
    fsync_dir(&qdir)?;
    fsync_dir(index_dir)?;
    Ok(to)
}
