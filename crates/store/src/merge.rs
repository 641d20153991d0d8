//! Merging warm buckets into larger ones, as Lucene merges segments and VictoriaLogs merges
//! parts: a hot bucket stays small (its term index is built in memory), while searches see few
//! large warm buckets (every bucket a search consults costs a bloom check, a lexicon lookup and
//! a postings read, whatever it holds).
//!
//! A merge takes warm buckets of *contiguous ids* `first..=last` (no id between them is hot,
//! missing or being rolled) and writes one bucket holding all their events in id order, then
//! event order: event `n` of the source at position `k` becomes `base_k + n`. It streams, holding
//! one source's columns and a few runs of terms' postings (up to 256 K numbers each, or one
//! longer list) at a time:
//!
//! - journal: the sources' compressed slices are copied as they are, each keeping the zstd
//!   dictionary it was compressed with (`slices.dat` then lists several, one copy of identical
//!   ones: consecutive buckets of a lane share one; slice numbers shift by the slices of the
//!   sources before) — recompressing was a quarter of a merge's time;
//! - columns: events are copied into blocks of the merged bucket, dictionary ids remapped to
//!   the merged dictionaries, slice numbers shifted;
//! - terms: the sources' lexicons are walked together in term order (a k-way merge); each
//!   term's postings are the sources' postings shifted by their bases, concatenated. This is
//!   most of a merge's work, so it runs on a thread of its own beside the journal and columns
//!   (the bases come from the sources' metadata), and hands the merged terms in runs to a
//!   third thread that encodes and writes them;
//! - metadata: counts added, time ranges and per-value statistics combined.
//!
//! Publication (docs/DURABILITY.md, "Merges"): the bucket is built in `tmp_<first>-<last>/`,
//! fsynced, renamed to `db_<max>_<min>_<first>-<last>/` and the index directory fsynced. From that
//! rename on, [`crate::layout::list_buckets`] hides the sources (the merged name covers their
//! ids), so a search lists either the sources or the merged bucket, never both. The sources are
//! deleted later ([`remove_covered`]), after a grace period for searches that listed them
//! before the rename; recovery deletes any left by a crash. A crash before the rename leaves a
//! `tmp_` directory that recovery deletes; the sources are intact.

use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::bucket::journal::{Dicts, SliceEntry};
use crate::bucket::slice_table::encode_slices_file;
use crate::bucket::warm::{BlockScratch, WarmBucket};
use crate::bucket::write::TermsWriter;
use crate::bucket::BucketRead;
use crate::columns::file::Encoder;
use crate::columns::Columns;
use crate::consts::{magic, COLUMNS_BLOCK_EVENTS, COLUMNS_FILE, JOURNAL_FILE, SLICES_FILE};
use crate::error::{IoContext, StoreError};
use crate::footer::{append_footer, write_file, FooterWriter};
use crate::layout::{
    covered, fsync_dir, list_buckets, merged_name, scan_buckets, tmp_merge_name, BucketInfo,
    BucketKind,
};
use crate::meta::{BucketMeta, ValueStats};
use crate::terms::lexicon::{BlockEntries, LexScratch};
use crate::terms::order_key;

/// The error of a merged bucket that would pass a format limit (`what`).
fn limit(what: &str) -> StoreError {
    StoreError::Limit(format!("merged bucket would exceed {what}"))
}

/// Polled by a merge between its steps, from more than one thread: true stops it.
pub type Cancel<'a> = dyn Fn() -> bool + Sync + 'a;

/// Merges `sources` (warm buckets of contiguous ids, in id order, at least two) of the index
/// directory `dir` into one bucket and publishes it; the sources stay on disk, hidden, until
/// [`remove_covered`]. `cancel` is polled between steps: when it returns true the merge stops,
/// removes its temporary directory and returns `Ok(None)`.
pub fn merge(
    dir: &Path,
    sources: &[BucketInfo],
    cancel: &Cancel<'_>,
) -> Result<Option<BucketInfo>, StoreError> {
    check_sources(dir, sources)?;
    let _running = crate::memory::Running::merge();
    let (first, last) = (sources[0].first_id, sources[sources.len() - 1].id);
    let tmp = dir.join(tmp_merge_name(first, last));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).at(&tmp)?;
    }
    std::fs::create_dir(&tmp).at(&tmp)?;
    let paths: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
    let written = write_merged(&tmp, &paths, last, cancel);
    crate::memory::give_back();
    let meta = match written {
        Ok(Some(m)) => m,
        Ok(None) => {
            std::fs::remove_dir_all(&tmp).at(&tmp)?;
            return Ok(None);
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    fsync_dir(&tmp)?;
    let (min, max) = (meta.min_secs(), meta.max_secs());
    let path = dir.join(merged_name(first, last, min, max));
    std::fs::rename(&tmp, &path).at(&path)?;
    fsync_dir(dir)?;
    Ok(Some(BucketInfo {
        path,
        id: last,
        first_id: first,
        kind: BucketKind::Warm,
        min_time_secs: min,
        max_time_secs: max,
    }))
}

/// Refuses anything but two or more warm buckets of `dir` with contiguous ids.
fn check_sources(dir: &Path, sources: &[BucketInfo]) -> Result<(), StoreError> {
    let bad = |r: &str| {
        Err(StoreError::Limit(format!(
            "cannot merge in {}: {r}",
            dir.display()
        )))
    };
    if sources.len() < 2 {
        return bad("a merge needs at least two buckets");
    }
    for (i, s) in sources.iter().enumerate() {
        if s.kind != BucketKind::Warm || s.path.parent() != Some(dir) {
            return bad("only warm buckets of this index can be merged");
        }
        if i > 0 && sources[i - 1].id.checked_add(1) != Some(s.first_id) {
            return bad("the buckets' ids are not contiguous");
        }
    }
    Ok(())
}

/// Merged dictionary of one metadata column: names in order of first appearance, with their
/// statistics.
#[derive(Default)]
struct Dict {
    ids: HashMap<String, u32>,
    stats: Vec<ValueStats>,
}

impl Dict {
    /// The merged id of each of a source's values (given by their statistics, in dictionary
    /// order), combining the statistics.
    fn remap(&mut self, source: &[ValueStats]) -> Vec<u32> {
        source
            .iter()
            .map(|s| {
                let id = *self.ids.entry(s.name.clone()).or_insert_with(|| {
                    self.stats.push(ValueStats {
                        name: s.name.clone(),
                        count: 0,
                        first_time: i64::MAX,
                        last_time: i64::MIN,
                    });
                    (self.stats.len() - 1) as u32
                });
                let m = &mut self.stats[id as usize];
                m.count += s.count;
                m.first_time = m.first_time.min(s.first_time);
                m.last_time = m.last_time.max(s.last_time);
                id
            })
            .collect()
    }

    fn names(&self) -> Vec<String> {
        self.stats.iter().map(|s| s.name.clone()).collect()
    }
}

/// Writes every file of the merged bucket `id` into `tmp` from the warm buckets at `sources`
/// (in order). `Ok(None)`: cancelled.
///
/// The terms (lexicon, postings, bloom filter: about two thirds of a merge's CPU, mostly
/// postings decoded and encoded again) are merged on a thread of their own beside the
/// journal, columns and metadata, which need only the sources' event counts from it: a merge
/// is the last single-threaded step of an ingest that ends (`IndexWriter::close`) and of a
/// roll that makes one due.
fn write_merged(
    tmp: &Path,
    sources: &[PathBuf],
    id: u64,
    cancel: &Cancel<'_>,
) -> Result<Option<BucketMeta>, StoreError> {
    // Each source's first event number in the merged bucket, from the metadata alone.
    let buckets = sources
        .iter()
        .map(|path| WarmBucket::open(path))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut bases, mut events, mut term_capacity) = (Vec::with_capacity(sources.len()), 0, 0);
    for m in buckets.iter().map(WarmBucket::meta) {
        let base = u32::try_from(events)
            .ok()
            .filter(|base| (*base as u64) + m.event_count < u32::MAX as u64)
            .ok_or_else(|| limit("2^32-1 events"))?;
        bases.push(base);
        events += m.event_count;
        term_capacity += m.term_count;
    }
    // Tells the terms thread to stop when this side fails.
    let failed = AtomicBool::new(false);
    let stop = || failed.load(Ordering::Relaxed) || cancel();
    let merge_terms = || merge_terms(tmp, sources, &bases, term_capacity, &stop);
    let (rest, terms) = std::thread::scope(|scope| {
        let terms = std::thread::Builder::new()
            .name("lode-merge-terms".into())
            .spawn_scoped(scope, merge_terms);
        let rest = write_rest(tmp, sources, buckets, id, cancel);
        if !matches!(rest, Ok(Some(_))) {
            failed.store(true, Ordering::Relaxed);
        }
        let terms = terms
            .ok()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        (rest, terms)
    });
    let Some(mut meta) = rest? else {
        return Ok(None);
    };
    // No thread to be had: merge the terms here.
    let Some(terms) = terms.unwrap_or_else(merge_terms)? else {
        return Ok(None);
    };
    meta.term_count = terms;
    meta.write(tmp)?;
    Ok(Some(meta))
}

/// Writes the journal, slice table and columns of the merged bucket `id` into `tmp` from the
/// warm buckets `buckets` (in order, opened from `sources`), and returns its metadata but the
/// term count. `Ok(None)`: cancelled.
fn write_rest(
    tmp: &Path,
    sources: &[PathBuf],
    buckets: Vec<WarmBucket>,
    id: u64,
    cancel: &Cancel<'_>,
) -> Result<Option<BucketMeta>, StoreError> {
    let jpath = tmp.join(JOURNAL_FILE);
    let mut journal = FooterWriter::create(&jpath, magic::JOURNAL)?;
    let mut slices: Vec<SliceEntry> = Vec::new();
    let mut jdicts = Dicts::default();
    let mut copy = vec![0u8; 1 << 20];
    let cols_path = tmp.join(COLUMNS_FILE);
    // The merged columns go to the file block by block: built whole in memory they were
    // ~1 % of the merged raw bytes, held until the end of the merge.
    let mut cols_file = FooterWriter::create(&cols_path, magic::COLUMNS)?;
    let mut cols_out = Vec::new();
    let mut enc = Encoder::new(&cols_out).at(&cols_path)?;
    let mut open = Columns::new();
    let mut dicts: [Dict; 3] = Default::default();
    let mut meta = BucketMeta {
        id,
        min_time: i64::MAX,
        max_time: i64::MIN,
        ..Default::default()
    };
    let mut slice_base = 0u32;
    // Journal, columns and metadata: one source at a time, each let go once copied.
    for (path, b) in sources.iter().zip(buckets) {
        if cancel() {
            return Ok(None);
        }
        let m = b.meta();
        meta.event_count += m.event_count;
        meta.raw_bytes += m.raw_bytes;
        meta.min_time = meta.min_time.min(m.min_time);
        meta.max_time = meta.max_time.max(m.max_time);
        let remap = [
            dicts[0].remap(&m.hosts),
            dicts[1].remap(&m.sources),
            dicts[2].remap(&m.sourcetypes),
        ];
        let nslices = u32::try_from(b.slice_count()).map_err(|_| limit("2^32 slices"))?;
        copy_journal(&b, &mut journal, &mut slices, &mut jdicts, &mut copy)?;
        let mapped = |k: usize, v: u32| {
            remap[k].get(v as usize).copied().ok_or_else(|| {
                StoreError::corrupt(path, "dictionary id beyond the metadata's values")
            })
        };
        // One decoded block of the source at a time.
        let file = b.columns_file();
        // Every event, once: the block table follows from the head's event count, checked
        // against meta.json at open, and each block's count is checked as it decodes.
        let mut cols = Columns::new();
        for block in 0..file.head().blocks.len() {
            file.decode_block(block, &mut cols)?;
            for i in 0..cols.len() {
                open.times.push(cols.times[i]);
                open.index_times.push(cols.index_times[i]);
                open.slice.push(slice_base + cols.slice[i]);
                open.offset.push(cols.offset[i]);
                open.raw_len.push(cols.raw_len[i]);
                open.host.push(mapped(0, cols.host[i])?);
                open.source.push(mapped(1, cols.source[i])?);
                open.sourcetype.push(mapped(2, cols.sourcetype[i])?);
                open.linecount.push(cols.linecount[i]);
                let (s, e) = (
                    cols.field_start[i] as usize,
                    cols.field_start[i + 1] as usize,
                );
                open.field_blob.extend_from_slice(&cols.field_blob[s..e]);
                open.field_start.push(open.field_blob.len() as u64);
                if open.len() == COLUMNS_BLOCK_EVENTS as usize {
                    enc.push(&open, &mut cols_out).at(&cols_path)?;
                    cols_file.write(&cols_out)?;
                    cols_out.clear();
                    open.clear();
                }
            }
        }
        slice_base = slice_base
            .checked_add(nslices)
            .ok_or_else(|| limit("2^32 slices"))?;
    }
    enc.push(&open, &mut cols_out).at(&cols_path)?;
    drop(open);
    let names = dicts.each_ref().map(Dict::names);
    enc.finish([&names[0], &names[1], &names[2]], &mut cols_out)
        .at(&cols_path)?;
    cols_file.write(&cols_out)?;
    drop(cols_out);
    cols_file.finish()?;

    journal.finish()?;
    let mut buf = Vec::new();
    encode_slices_file(&slices, &jdicts, &mut buf);
    append_footer(&mut buf, magic::SLICES);
    write_file(&tmp.join(SLICES_FILE), &buf)?;

    let [hosts, srcs, sourcetypes] = dicts;
    (meta.hosts, meta.sources, meta.sourcetypes) = (hosts.stats, srcs.stats, sourcetypes.stats);
    Ok(Some(meta))
}

/// Appends the compressed slices of `b` to `out` as they are, their table entries (offsets
/// shifted) to `slices` and their dictionaries to `dicts`.
fn copy_journal(
    b: &WarmBucket,
    out: &mut FooterWriter,
    slices: &mut Vec<SliceEntry>,
    dicts: &mut Dicts,
    buf: &mut [u8],
) -> Result<(), StoreError> {
    let base = out.position();
    let table = b.journal_table()?;
    let d = &table.dicts;
    // One copy of identical dictionaries (consecutive buckets of a lane share one, see
    // `JOURNAL_DICT_REUSE`): each of this bucket's dictionaries as a merged number.
    let mut merged = Vec::with_capacity(d.dicts.len());
    for dict in &d.dicts {
        let at = match dicts.dicts.iter().position(|have| have == dict) {
            Some(at) => at,
            None => {
                dicts.dicts.push(dict.clone());
                dicts.dicts.len() - 1
            }
        };
        merged.push(
            u32::try_from(at)
                .map_err(|_| StoreError::Limit("too many journal dictionaries".into()))?,
        );
    }
    for (n, e) in table.slices.iter().enumerate() {
        slices.push(SliceEntry {
            offset: base + e.offset,
            ..*e
        });
        let no = merged
            .get(d.index(n))
            .ok_or_else(|| StoreError::corrupt(b.path(), "a slice names a missing dictionary"))?;
        dicts.of_slice.push(*no);
    }
    // The slices cover the journal body exactly (checked by `journal_table`).
    let len = table.slices.last().map_or(0, |e| e.offset + e.clen as u64);
    let path = b.path().join(JOURNAL_FILE);
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(buf.len() as u64) as usize;
        b.journal_file()
            .read_exact_at(&mut buf[..n], at)
            .at(&path)?;
        out.write(&buf[..n])?;
        at += n as u64;
    }
    Ok(())
}

/// One source's lexicon, walked block by block.
struct Cursor {
    bucket: WarmBucket,
    base: u32,
    /// The next lexicon block to read.
    block: usize,
    /// The entries of the block read last, and the position of the current one in them.
    entries: BlockEntries,
    pos: usize,
    /// The current term's [`order_key`]: compared before the terms themselves (most terms
    /// differ within their first 8 bytes).
    key: u64,
    lex: LexScratch,
    postings: BlockScratch,
}

impl Cursor {
    /// The current `(term, value)`; `None` once the lexicon is used up.
    fn current(&self) -> Option<(&[u8], u64)> {
        self.entries.get(self.pos)
    }

    /// Moves to the next entry, loading the next block when this one is used up.
    fn advance(&mut self) -> Result<(), StoreError> {
        self.pos += 1;
        self.fill()
    }

    /// Loads blocks until the position names an entry or the lexicon is used up.
    fn fill(&mut self) -> Result<(), StoreError> {
        while self.pos >= self.entries.len() {
            let lexicon = self.bucket.lexicon()?;
            if self.block >= lexicon.block_count() {
                return Ok(());
            }
            lexicon.block_entries(self.block, &mut self.lex, &mut self.entries)?;
            self.block += 1;
            self.pos = 0;
        }
        self.key = self.current().map_or(0, |(t, _)| order_key(t));
        Ok(())
    }
}

/// Writes lexicon, postings and bloom filter of the merged bucket: the sources' terms in
/// order, each with the sources' postings shifted by their `bases`. Returns the number of
/// distinct terms (`None`: cancelled).
///
/// A merge has a handful of sources, so the smallest current term is found by comparing them
/// all, which reads the terms where their blocks hold them (a heap would need each term
/// copied out).
fn merge_terms(
    tmp: &Path,
    sources: &[PathBuf],
    bases: &[u32],
    capacity: u64,
    cancel: &Cancel<'_>,
) -> Result<Option<u64>, StoreError> {
    let mut cursors = Vec::with_capacity(sources.len());
    for (path, &base) in sources.iter().zip(bases) {
        let mut c = Cursor {
            bucket: WarmBucket::open(path)?,
            base,
            block: 0,
            entries: BlockEntries::default(),
            pos: 0,
            key: 0,
            lex: LexScratch::default(),
            postings: BlockScratch::default(),
        };
        c.fill()?;
        cursors.push(c);
    }
    let sources: Vec<(&WarmBucket, u32)> = cursors.iter().map(|c| (&c.bucket, c.base)).collect();
    let w = TermsWriter::create(tmp, capacity, crate::bucket::kinds::of_buckets(&sources)?)?;
    // Merged terms go to the writing thread in runs; used runs come back to be filled again.
    let (to_writer, runs) = std::sync::mpsc::sync_channel::<TermRun>(2);
    let (give_back, used) = std::sync::mpsc::channel::<TermRun>();
    let write = move || write_runs(w, runs, give_back);
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("lode-merge-write".into())
            .spawn_scoped(scope, write);
        let writer = writer.map_err(|e| StoreError::io(tmp, e))?;
        let read = read_runs(&mut cursors, &to_writer, &used, cancel);
        drop(to_writer);
        let written = writer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        match read? {
            // Cancelled, or the writer failed (its error is the one to report).
            false => written.and(Ok(None)),
            true => written.map(Some),
        }
    })
}

/// Terms with their merged postings, handed from the k-way merge to the writing thread.
#[derive(Default)]
struct TermRun {
    /// The terms' bytes, one after the other, and where each ends.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// The postings, one after the other, and where each list ends.
    nums: Vec<u32>,
    list_ends: Vec<usize>,
}

/// Terms per [`TermRun`] ...
const RUN_TERMS: usize = 4096;
/// ... unless their postings reach this many numbers first (1 MiB): with at most four runs
/// alive (one filling, two queued, one being written), a merge's memory stays near what one
/// term's postings at a time took.
const RUN_NUMS: usize = 1 << 18;

/// Walks the cursors' terms in order, each with its sources' postings shifted and
/// concatenated, and sends them to the writer in runs. Returns false when cancelled or when
/// the writer stopped taking runs (it failed).
fn read_runs(
    cursors: &mut [Cursor],
    to_writer: &std::sync::mpsc::SyncSender<TermRun>,
    used: &std::sync::mpsc::Receiver<TermRun>,
    cancel: &Cancel<'_>,
) -> Result<bool, StoreError> {
    let mut run = TermRun::default();
    let mut done = 0u64;
    loop {
        // The first source holding the smallest term; sources holding it too come after it.
        let mut first: Option<(usize, u64, &[u8])> = None;
        for (k, c) in cursors.iter().enumerate() {
            if let Some((t, _)) = c.current() {
                if first.is_none_or(|(_, key, min)| (c.key, t) < (key, min)) {
                    first = Some((k, c.key, t));
                }
            }
        }
        let Some((first, key, min)) = first else {
            break;
        };
        let term_start = run.bytes.len();
        run.bytes.extend_from_slice(min);
        run.ends.push(run.bytes.len());
        for c in &mut cursors[first..] {
            if c.key != key {
                continue;
            }
            let Some((t, value)) = c.current() else {
                continue;
            };
            if t != &run.bytes[term_start..] {
                continue;
            }
            let start = run.nums.len();
            c.bucket
                .extend_postings(value, &mut c.postings, &mut run.nums)?;
            run.nums[start..].iter_mut().for_each(|n| *n += c.base);
            c.advance()?;
        }
        run.list_ends.push(run.nums.len());
        done += 1;
        if run.ends.len() == RUN_TERMS || run.nums.len() >= RUN_NUMS {
            let next = used.try_recv().unwrap_or_default();
            if to_writer.send(std::mem::replace(&mut run, next)).is_err() {
                return Ok(false);
            }
        }
        if done.is_multiple_of(65_536) && cancel() {
            return Ok(false);
        }
    }
    Ok(to_writer.send(run).is_ok())
}

/// Adds the terms of every run received to `w`, giving each run back emptied, and finishes
/// the files once the runs end.
fn write_runs(
    mut w: TermsWriter,
    runs: std::sync::mpsc::Receiver<TermRun>,
    give_back: std::sync::mpsc::Sender<TermRun>,
) -> Result<u64, StoreError> {
    for mut run in runs {
        let (mut term_start, mut list_start) = (0, 0);
        for (&end, &list_end) in run.ends.iter().zip(&run.list_ends) {
            w.add(&run.bytes[term_start..end], &run.nums[list_start..list_end])?;
            (term_start, list_start) = (end, list_end);
        }
        // A run that held a list of many numbers is not kept at that size.
        if run.nums.capacity() > 2 * RUN_NUMS {
            run = TermRun::default();
        }
        run.bytes.clear();
        run.ends.clear();
        run.nums.clear();
        run.list_ends.clear();
        // The reader may be gone already (it finished): the run is then dropped.
        let _ = give_back.send(run);
    }
    w.finish()
}

/// Deletes every warm bucket of `dir` that a merged bucket covers (the sources of finished
/// merges) and fsyncs the directory. Returns how many it deleted. Searches of this process
/// that still hold an opened source keep reading it (its files stay open); one that listed a
/// source but had not opened it gets [`StoreError::Merged`].
pub fn remove_covered(dir: &Path) -> Result<u32, StoreError> {
    let mut all = scan_buckets(dir)?;
    // Hot twins of rolled buckets are the roll's (or recovery's) to delete.
    all.retain(|b| b.kind == BucketKind::Warm);
    let mut removed = 0;
    for (b, hidden) in all.iter().zip(covered(&all)) {
        if hidden {
            std::fs::remove_dir_all(&b.path).at(&b.path)?;
            removed += 1;
        }
    }
    if removed > 0 {
        fsync_dir(dir)?;
    }
    Ok(removed)
}

/// The merges worth doing now in `dir`: groups of at least two warm buckets of contiguous ids,
/// each smaller than half of `target` bytes of raw, oldest first, adding buckets while the
/// group stays within `target`; a group is returned once it holds at least three quarters of
/// `target` (so each event is merged about once). Reads the metadata of the warm buckets.
pub fn plan(dir: &Path, target: u64) -> Result<Vec<Vec<BucketInfo>>, StoreError> {
    let buckets = list_buckets(dir)?;
    let mut out = Vec::new();
    let mut group: Vec<BucketInfo> = Vec::new();
    let mut total = 0u64;
    let flush = |group: &mut Vec<BucketInfo>, total: &mut u64, out: &mut Vec<Vec<BucketInfo>>| {
        if group.len() >= 2 && *total >= target / 4 * 3 {
            out.push(std::mem::take(group));
        }
        group.clear();
        *total = 0;
    };
    for b in buckets {
        let raw = match b.kind {
            BucketKind::Hot => None,
            BucketKind::Warm => Some(BucketMeta::read(&b.path)?.raw_bytes),
        };
        let contiguous = group.last().is_some_and(|l| l.id + 1 == b.first_id);
        let Some(raw) = raw.filter(|&r| r < target / 2) else {
            flush(&mut group, &mut total, &mut out);
            continue;
        };
        if !contiguous || total + raw > target {
            flush(&mut group, &mut total, &mut out);
        }
        group.push(b);
        total += raw;
    }
    flush(&mut group, &mut total, &mut out);
    Ok(out)
}
