//! Reader of a warm bucket: metadata, bloom, slice table and the columns head in memory; the
//! lexicon on first query; column blocks, postings blocks and journal slices read on demand with
//! positioned reads.

use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use roaring::RoaringBitmap;

use crate::bloom::BloomFile;
use crate::bucket::journal::{
    decode_slices, read_slice, read_slice_ahead, read_slice_near, ReadAhead, SliceEntry,
};
use crate::bucket::slice_table::{EntryChunk, JournalTable, SliceTable};
use crate::bucket::{read_events_with, BucketRead, EventView, IndexedFields, SliceSource};
use crate::columns::lazy::ColumnsFile;
use crate::columns::{Column, Columns};
use crate::consts::{
    magic, BLOOM_FILE, COLUMNS_FILE, JOURNAL_FILE, LEXICON_FILE, META_FILE, POSTINGS_FILE,
    SLICES_FILE,
};
use crate::dctx::NearSlot;
use crate::error::{IoContext, StoreError};
use crate::footer::open_checked;
use crate::meta::BucketMeta;
use crate::postings;
use crate::query::{eval, TermQuery, TermSource, Window};
use crate::terms::lexicon::{LexScratch, Lexicon};

/// An open warm bucket. Immutable; `Send + Sync`, so many searches may share it.
///
/// Opening reads only the metadata, the bloom filter, the slice table's tail and the columns
/// head (and checks the other footers). Slice table entries are read around the slices a search
/// decompresses, each journal dictionary on its first use, the lexicon on the first query and
/// each column block when one of its events is first read, so a search that the bloom filter
/// or the time range rules out costs a few small reads, and one reading a few events decodes a
/// few blocks.
pub struct WarmBucket {
    path: PathBuf,
    meta: BucketMeta,
    bloom: BloomFile,
    /// Loaded on first use; a failure is kept and reported on every use.
    /// Its block index, read on first use; blocks are read per lookup.
    lexicon: OnceLock<Result<Lexicon, StoreError>>,
    postings: File,
    /// Table of the compressed postings blocks.
    blocks: Vec<SliceEntry>,
    journal: File,
    /// Where each journal slice is, and the journal's zstd dictionaries (one, possibly empty,
    /// unless merged).
    slices: SliceTable,
    /// Columns, decoded block by block on demand.
    cols: ColumnsFile,
    /// This reader's key in the process-wide [`crate::slice_cache`].
    id: u64,
    /// Postings blocks this reader decompressed last, newest last, within
    /// [`RECENT_POSTINGS_BYTES`]: a newest-first read evaluates its terms over a window of the
    /// bucket and then, when that is not enough, over the whole of it, and each time reads the
    /// same blocks (a common word's block is hundreds of KiB).
    recent_postings: Mutex<VecDeque<(u64, Arc<Vec<u8>>)>>,
    /// Terms looked up in the lexicon and their values (`None`: absent), up to [`KNOWN_TERMS`]
    /// of at most [`KNOWN_TERM_LEN`] bytes (then forgotten all at once): each lookup
    /// decompresses a 16 KiB lexicon block, an `And` sizes its terms
    /// ([`TermSource::cost_hint`]) before reading them, a windowed read may evaluate its term
    /// twice, and searches ask a bucket for the same words again and again (the 10 GB service
    /// spent 7 % of its CPU in lookups when a reader remembered its last 32). With each, once
    /// asked, its entry's kind and size ([`WarmBucket::head_of`]): sizing an `And`'s terms read
    /// (and decompressed) a postings block per term, 14.5 % of the 10 GB service's CPU.
    known_terms: Mutex<std::collections::HashMap<Box<[u8]>, Known>>,
    /// The column blocks newest first ([`BucketRead::blocks_newest_first`]), sorted once.
    newest_first: OnceLock<super::NewestBlocks>,
    /// Each column block's newest event of each kind, made once the reader has answered
    /// [`KIND_TIMES_AFTER`] newest-first reads of some kinds only (`None`: the bucket has one
    /// kind, or its kinds could not be read, and every read takes the plain order).
    kind_times: OnceLock<Option<KindTimes>>,
    /// The newest-first orders of the kinds masks asked for (at most [`KIND_ORDERS`]; then
    /// forgotten all at once).
    kind_orders: Mutex<std::collections::HashMap<u64, super::NewestBlocks>>,
    /// Bytes of `kind_times` and `kind_orders`.
    kind_bytes: AtomicU64,
    /// Reads of some kinds asked for before `kind_times` is made ([`KIND_TIMES_AFTER`]).
    kind_asks: AtomicU64,
}

/// A bucket's newest event of each kind in each column block: `(bit, largest _time)` of block
/// `b`'s kinds are `times[at[b]..at[b + 1]]`.
struct KindTimes {
    /// Every kind bit of the bucket.
    all: u64,
    at: Vec<u32>,
    times: Vec<(u8, i64)>,
}

/// Kinds masks a warm reader keeps a newest-first block order of.
const KIND_ORDERS: usize = 16;

/// Reads of some kinds a warm reader answers in the plain order before it makes its table of
/// each block's newest event per kind. The table costs a pass over every block's time column
/// (a 1 GB home's `<dense word> | head 100` went from 4 to 75 ms when a search made it), which
/// a reader kept for many searches repays at once (the 10 GB service: +25–40 % searches per
/// second) and a one-off search never does.
pub const KIND_TIMES_AFTER: u64 = 8;

/// What a warm reader remembers of a term it looked up.
#[derive(Clone, Copy)]
struct Known {
    /// Its lexicon value (`None`: absent).
    value: Option<u64>,
    /// Its kinds mask, stored beside a pointer (`None`: an inline value, or a lexicon written
    /// before kinds).
    kinds: Option<u64>,
    /// Its entry's kind and bytes ([`WarmBucket::entry_head`]), once asked.
    head: Option<(Option<u8>, u64)>,
}

/// Lexicon lookups a warm reader remembers (see `WarmBucket::known_terms`).
pub const KNOWN_TERMS: usize = 1024;
/// Longest term a warm reader remembers the lookup of, bytes.
pub const KNOWN_TERM_LEN: usize = 64;
/// Most bytes a warm reader's remembered lookups take: each term's bytes and about 88 of
/// map slot (value, kinds and entry head) and allocation.
pub const KNOWN_TERMS_BYTES: u64 = (KNOWN_TERMS * (KNOWN_TERM_LEN + 88)) as u64;

/// Bytes of decompressed postings blocks a warm reader keeps (see
/// `WarmBucket::recent_postings`); a larger block is not kept.
pub const RECENT_POSTINGS_BYTES: usize = 1 << 20;

static NO_COLUMNS: OnceLock<Columns> = OnceLock::new();

impl WarmBucket {
    /// Opens the bucket directory `path`: verifies metadata and bloom filter (footer and
    /// checksum), the footers of journal, slice table, postings, lexicon and columns, and the
    /// slice table's layout (see [`SliceTable::open`]).
    /// Also reads the columns head (block table and dictionaries). The lexicon and column blocks
    /// are verified when first used (see [`BucketRead::prepare`]).
    pub fn open(path: &Path) -> Result<WarmBucket, StoreError> {
        let meta = BucketMeta::read(path)?;
        if meta.event_count > u32::MAX as u64 {
            return Err(StoreError::corrupt(
                path.join(META_FILE),
                "event count beyond u32",
            ));
        }
        let jpath = path.join(JOURNAL_FILE);
        let (journal, journal_len) = open_checked(&jpath, magic::JOURNAL)?;
        let slices = SliceTable::open(&path.join(SLICES_FILE), journal_len)?;
        open_checked(&path.join(LEXICON_FILE), magic::LEXICON)?;
        let ppath = path.join(POSTINGS_FILE);
        let (postings, postings_len) = open_checked(&ppath, magic::POSTINGS)?;
        let blocks = read_block_table(&ppath, &postings, postings_len)?;
        let bpath = path.join(BLOOM_FILE);
        let bloom = BloomFile::open(&bpath)?;
        let cols = ColumnsFile::open(&path.join(COLUMNS_FILE), meta.event_count)?;
        Ok(WarmBucket {
            path: path.to_path_buf(),
            meta,
            bloom,
            lexicon: OnceLock::new(),
            postings,
            blocks,
            journal,
            slices,
            cols,
            id: crate::slice_cache::reader_id(),
            recent_postings: Mutex::new(VecDeque::new()),
            known_terms: Mutex::new(std::collections::HashMap::new()),
            newest_first: OnceLock::new(),
            kind_times: OnceLock::new(),
            kind_orders: Mutex::new(std::collections::HashMap::new()),
            kind_bytes: AtomicU64::new(0),
            kind_asks: AtomicU64::new(0),
        })
    }

    /// Keeps no more block times decoded from now on (see `ColumnsFile::stop_keeping`): for a
    /// reader a cache let go of while searches still read it.
    pub fn stop_keeping(&self) {
        self.cols.stop_keeping();
    }

    /// Every column of every event, decoding all column blocks on first use.
    pub fn columns(&self) -> Result<&Columns, StoreError> {
        self.cols.full()
    }

    /// The columns file, read block by block on demand.
    pub fn columns_file(&self) -> &ColumnsFile {
        &self.cols
    }

    fn cols_or_empty(&self) -> &Columns {
        self.columns()
            .unwrap_or_else(|_| NO_COLUMNS.get_or_init(Columns::new))
    }

    /// The lexicon (term → postings value), reading its block index on first use.
    pub fn lexicon(&self) -> Result<&Lexicon, StoreError> {
        match self
            .lexicon
            .get_or_init(|| Lexicon::open(&self.path.join(LEXICON_FILE)))
        {
            Ok(m) => Ok(m),
            Err(e) => Err(e.duplicate()),
        }
    }

    /// Bytes of bloom filter the reader holds in memory (0 when it reads it page by page).
    pub fn bloom_bytes(&self) -> u64 {
        match &self.bloom {
            BloomFile::Loaded(b) => b.bytes(),
            BloomFile::Paged { .. } => 0,
        }
    }

    /// The bucket directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of journal slices.
    pub fn slice_count(&self) -> usize {
        self.slices.len()
    }

    /// The whole journal slice table and dictionaries, read and verified on first use.
    pub fn journal_table(&self) -> Result<&JournalTable, StoreError> {
        self.slices.all()
    }

    /// Bytes of the journal's zstd dictionaries (0: slices are compressed without one).
    pub fn journal_dict_len(&self) -> usize {
        self.slices.dict_bytes()
    }

    /// Bytes of the column blocks' newest-first order once a search asked for it
    /// ([`BucketRead::blocks_newest_first`]).
    pub fn block_order_bytes(&self) -> usize {
        self.cols.head().blocks.len() * size_of::<(i64, u32)>()
    }

    /// Bytes of the column blocks' newest-first orders of some kinds only, and of the table
    /// they are made from, once searches asked for them
    /// ([`BucketRead::blocks_newest_first_of`]).
    pub fn kind_order_bytes(&self) -> u64 {
        self.kind_bytes.load(Ordering::Relaxed)
    }

    /// The newest event of each kind of every column block, from the `sourcetype::…` terms'
    /// lists ([`super::kinds`]) and each block's time column (decoded and let go); `None` for
    /// a bucket of one kind.
    fn make_kind_times(&self) -> Result<Option<KindTimes>, StoreError> {
        let kinds = super::kinds::of_buckets(&[(self, 0)])?;
        if kinds.all().count_ones() <= 1 {
            return Ok(None);
        }
        let runs = kinds.runs();
        let head = self.cols.head();
        let per = head.block_events as usize;
        let mut t = KindTimes {
            all: kinds.all(),
            at: Vec::with_capacity(head.blocks.len() + 1),
            times: Vec::new(),
        };
        let mut r = 0;
        for b in 0..head.blocks.len() {
            let start = t.times.len();
            t.at.push(start as u32);
            let lo = b * per;
            self.cols.with_block_times(b, |times| {
                let hi = lo + times.len();
                while runs.get(r).is_some_and(|&(_, end, _)| (end as usize) <= lo) {
                    r += 1;
                }
                for &(first, end, bit) in runs.iter().skip(r) {
                    if first as usize >= hi {
                        break;
                    }
                    let part = &times[(first as usize).max(lo) - lo..(end as usize).min(hi) - lo];
                    let Some(&max) = part.iter().max() else {
                        continue;
                    };
                    match t.times[start..].iter_mut().find(|(k, _)| *k == bit) {
                        Some((_, m)) => *m = (*m).max(max),
                        None => t.times.push((bit, max)),
                    }
                }
            })?;
        }
        t.at.push(t.times.len() as u32);
        let bytes = t.at.capacity() * 4 + t.times.capacity() * size_of::<(u8, i64)>();
        self.kind_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        Ok(Some(t))
    }

    /// The column blocks holding events of the kinds of `kinds`, newest first by their newest
    /// such event; `None` when `kinds` has every kind of the bucket, or the reader has not yet
    /// answered [`KIND_TIMES_AFTER`] such reads (the plain order).
    fn kind_order(&self, kinds: u64) -> Option<super::NewestBlocks> {
        if kinds == u64::MAX {
            return None;
        }
        if self.kind_times.get().is_none()
            && self.kind_asks.fetch_add(1, Ordering::Relaxed) < KIND_TIMES_AFTER
        {
            return None;
        }
        let t = self
            .kind_times
            .get_or_init(|| self.make_kind_times().ok().flatten())
            .as_ref()?;
        if kinds & t.all == t.all {
            return None;
        }
        let mut held = self.kind_orders.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(o) = held.get(&kinds) {
            return Some(o.clone());
        }
        let mut order: Vec<(i64, u32)> =
            t.at.windows(2)
                .enumerate()
                .filter_map(|(b, w)| {
                    t.times[w[0] as usize..w[1] as usize]
                        .iter()
                        .filter(|&&(k, _)| kinds >> k & 1 == 1)
                        .map(|&(_, m)| m)
                        .max()
                        .map(|m| (m, b as u32))
                })
                .collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        let order: super::NewestBlocks = order.into();
        if held.len() >= KIND_ORDERS {
            let freed: usize = held.values().map(|o| o.len()).sum();
            self.kind_bytes
                .fetch_sub((freed * size_of::<(i64, u32)>()) as u64, Ordering::Relaxed);
            held.clear();
        }
        self.kind_bytes.fetch_add(
            (order.len() * size_of::<(i64, u32)>()) as u64,
            Ordering::Relaxed,
        );
        held.insert(kinds, order.clone());
        Some(order)
    }

    /// Bytes of slice table the reader holds in memory, dictionaries included: each twice, as
    /// zstd digested it and as bytes to lay out for long reads (`dctx::Near`).
    pub fn slice_table_bytes(&self) -> usize {
        self.slices.held_bytes() + 2 * self.slices.dict_bytes()
    }

    /// The journal file (its body: the compressed slices the slice table locates).
    pub(crate) fn journal_file(&self) -> &File {
        &self.journal
    }

    /// Reads the postings a lexicon value points at, validating them against the event count.
    /// `scratch` keeps the last two decompressed blocks (see [`BlockScratch`]).
    pub fn postings_at(
        &self,
        value: u64,
        scratch: &mut BlockScratch,
    ) -> Result<RoaringBitmap, StoreError> {
        self.read_postings(value, scratch, |at| {
            let bm = match at {
                PostingsAt::Inline(n) => RoaringBitmap::from_iter([n]),
                PostingsAt::Entry(block, offset) => postings::decode_entry(block, offset)?,
            };
            let max = bm.max();
            Ok((bm, max))
        })
    }

    /// Calls `f(i, value, scratch)` for each of `terms` (lowercased here) found in the
    /// lexicon, in order, sharing lexicon and postings blocks between neighbouring terms.
    fn term_values(
        &self,
        terms: &[Vec<u8>],
        mut f: impl FnMut(usize, u64, &mut BlockScratch) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let lexicon = self.lexicon()?;
        let (mut lex, mut blocks, mut lower) =
            (LexScratch::default(), BlockScratch::default(), Vec::new());
        for (i, t) in terms.iter().enumerate() {
            lower.clear();
            lower.extend(t.iter().map(u8::to_ascii_lowercase));
            if let Some(v) = lexicon.get(&lower, &mut lex)? {
                f(i, v, &mut blocks)?;
            }
        }
        Ok(())
    }

    /// Calls `hit(j)` for each `cands[j]` (ascending) among the events a lexicon value points
    /// at, validated as [`WarmBucket::postings_at`] does, without building a bitmap.
    fn postings_hits(
        &self,
        value: u64,
        scratch: &mut BlockScratch,
        cands: &[u32],
        hit: &mut dyn FnMut(usize),
    ) -> Result<(), StoreError> {
        self.read_postings(value, scratch, |at| match at {
            PostingsAt::Inline(n) => {
                if let Ok(j) = cands.binary_search(&n) {
                    hit(j);
                }
                Ok(((), Some(n)))
            }
            PostingsAt::Entry(block, offset) => {
                Ok(((), postings::hits_in_entry(block, offset, cands, hit)?))
            }
        })
    }

    /// Appends the event numbers a lexicon value points at to `out` (ascending), validated as
    /// [`WarmBucket::postings_at`] does, without building a bitmap (a merge rewrites every
    /// term's list, most of them a single inline number).
    pub fn extend_postings(
        &self,
        value: u64,
        scratch: &mut BlockScratch,
        out: &mut Vec<u32>,
    ) -> Result<(), StoreError> {
        let start = out.len();
        self.read_postings(value, scratch, |at| {
            match at {
                PostingsAt::Inline(n) => out.push(n),
                PostingsAt::Entry(block, offset) => {
                    postings::decode_entry_into(block, offset, out)?
                }
            }
            Ok(((), out[start..].last().copied()))
        })
    }

    /// Decodes what the lexicon value `value` points at with `decode`, which returns its result
    /// and the largest event number in it; a damaged entry or a number past the bucket's
    /// events is an error naming the postings file.
    fn read_postings<T>(
        &self,
        value: u64,
        scratch: &mut BlockScratch,
        decode: impl FnOnce(PostingsAt<'_>) -> Result<(T, Option<u32>), String>,
    ) -> Result<T, StoreError> {
        // The file's path is made only for a block read or an error: most values a merge
        // reads are inline.
        let path = || self.path.join(POSTINGS_FILE);
        let (at, entry) = match postings::decode_value(value) {
            postings::Value::Inline(n) => (PostingsAt::Inline(n), None),
            postings::Value::Entry { block, offset } => {
                let data = self.postings_block(block, scratch, &path())?;
                (PostingsAt::Entry(data, offset), Some((block, offset)))
            }
        };
        let (got, max) = decode(at).map_err(|r| {
            let reason = match entry {
                Some((block, offset)) => format!("postings block {block} offset {offset}: {r}"),
                None => r,
            };
            StoreError::corrupt(path(), reason)
        })?;
        self.check_largest(max, path)?;
        Ok(got)
    }

    /// An error naming the postings file `path` gives when `max`, the largest number an entry
    /// holds, is not an event of this bucket.
    fn check_largest(
        &self,
        max: Option<u32>,
        path: impl FnOnce() -> PathBuf,
    ) -> Result<(), StoreError> {
        if max.is_some_and(|m| m as u64 >= self.meta.event_count) {
            return Err(StoreError::corrupt(path(), "postings name a missing event"));
        }
        Ok(())
    }

    /// [`postings::and_chunked`] of the entries lexicon values `a` and `b` point at, checked
    /// as [`Self::read_postings`] checks one; `None` when either is not a chunked entry.
    fn and_two(
        &self,
        a: u64,
        b: u64,
        scratch: &mut BlockScratch,
    ) -> Result<Option<Vec<(u32, u32)>>, StoreError> {
        let (
            postings::Value::Entry {
                block: ba,
                offset: oa,
            },
            postings::Value::Entry {
                block: bb,
                offset: ob,
            },
        ) = (postings::decode_value(a), postings::decode_value(b))
        else {
            return Ok(None);
        };
        let path = self.path.join(POSTINGS_FILE);
        self.postings_block(ba, scratch, &path)?;
        // Held apart: reading `bb` may take the other slot.
        let da = Arc::clone(&scratch.slots[scratch.recent].1);
        let db = self.postings_block(bb, scratch, &path)?;
        let got = postings::and_chunked((&da, oa), (db, ob)).map_err(|r| {
            StoreError::corrupt(
                &path,
                format!("postings blocks {ba} and {bb}, offsets {oa} and {ob}: {r}"),
            )
        })?;
        let Some((runs, max_a, max_b)) = got else {
            return Ok(None);
        };
        self.check_largest(max_a.max(max_b), || path)?;
        Ok(Some(runs))
    }

    /// Postings block `block`, decompressed, from `scratch`, else from the reader's recent
    /// blocks, else read (and kept in both), replacing the block `scratch` used less recently.
    fn postings_block<'s>(
        &self,
        block: u64,
        scratch: &'s mut BlockScratch,
        p: &Path,
    ) -> Result<&'s [u8], StoreError> {
        let i = match scratch.slots.iter().position(|s| s.0 == Some(block)) {
            Some(i) => i,
            None => {
                let i = 1 - scratch.recent;
                scratch.slots[i].0 = None;
                let kept = self
                    .recent_postings
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .iter()
                    .find(|(b, _)| *b == block)
                    .map(|(_, d)| d.clone());
                let data = match kept {
                    Some(d) => d,
                    None => {
                        let e = usize::try_from(block)
                            .ok()
                            .and_then(|b| self.blocks.get(b))
                            .ok_or_else(|| {
                                StoreError::corrupt(p, format!("no postings block {block}"))
                            })?;
                        let mut out = Vec::new();
                        read_slice(p, &self.postings, e, &mut scratch.comp, None, &mut out)?;
                        let d = Arc::new(out);
                        self.keep_postings_block(block, &d);
                        d
                    }
                };
                scratch.slots[i] = (Some(block), data);
                i
            }
        };
        scratch.recent = i;
        Ok(&scratch.slots[i].1)
    }

    /// The kind of the postings entry lexicon value `v` points at (`None` for an inline value)
    /// and its bytes (header and data; 1 for an inline value).
    fn entry_head(&self, v: u64) -> Result<(Option<u8>, u64), StoreError> {
        self.read_postings(v, &mut BlockScratch::default(), |at| match at {
            PostingsAt::Inline(n) => Ok(((None, 1), Some(n))),
            PostingsAt::Entry(block, offset) => {
                let head = block.get(offset..).ok_or("entry offset beyond its block")?;
                let (kind, h, len) = postings::parse_header(head)?;
                Ok(((Some(kind), h as u64 + len), None))
            }
        })
    }

    /// The lexicon value of `term` (lowercased), from the lookups remembered or the lexicon.
    fn lookup(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(self.lookup_kinds(term)?.map(|(v, _)| v))
    }

    /// [`WarmBucket::lookup`], with the term's kinds mask when the lexicon has one for it.
    fn lookup_kinds(&self, term: &[u8]) -> Result<Option<(u64, Option<u64>)>, StoreError> {
        if let Some(k) = self.known().get(term) {
            return Ok(k.value.map(|v| (v, k.kinds)));
        }
        let found = self
            .lexicon()?
            .get_kinds(term, &mut LexScratch::default())?;
        if term.len() <= KNOWN_TERM_LEN {
            let mut k = self.known();
            if k.len() >= KNOWN_TERMS {
                k.clear();
            }
            k.insert(
                term.into(),
                Known {
                    value: found.map(|(v, _)| v),
                    kinds: found.and_then(|(_, k)| k),
                    head: None,
                },
            );
        }
        Ok(found)
    }

    /// The lexicon value of `term` (lowercased) and its entry's kind and bytes (see
    /// [`WarmBucket::entry_head`]), remembered with the lookup; `None` when absent.
    fn head_of(&self, term: &[u8]) -> Result<Option<(u64, Option<u8>, u64)>, StoreError> {
        let Some(v) = self.lookup(term)? else {
            return Ok(None);
        };
        if let Some((kind, bytes)) = self.known().get(term).and_then(|k| k.head) {
            return Ok(Some((v, kind, bytes)));
        }
        let (kind, bytes) = self.entry_head(v)?;
        if let Some(k) = self.known().get_mut(term) {
            k.head = Some((kind, bytes));
        }
        Ok(Some((v, kind, bytes)))
    }

    fn known(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Box<[u8]>, Known>> {
        self.known_terms.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps decompressed postings block `block` among the recent ones, dropping the oldest
    /// beyond [`RECENT_POSTINGS_BYTES`].
    fn keep_postings_block(&self, block: u64, data: &Arc<Vec<u8>>) {
        if data.len() > RECENT_POSTINGS_BYTES {
            return;
        }
        let mut recent = self
            .recent_postings
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if recent.iter().any(|(b, _)| *b == block) {
            return;
        }
        recent.push_back((block, data.clone()));
        let mut held: usize = recent.iter().map(|(_, d)| d.len()).sum();
        while held > RECENT_POSTINGS_BYTES {
            let Some((_, d)) = recent.pop_front() else {
                break;
            };
            held -= d.len();
        }
    }

    /// Lexicon lookups this reader remembers (a diagnostic for tests).
    pub fn known_terms_held(&self) -> usize {
        self.known().len()
    }

    /// Of the lookups remembered, those remembered with their entry's kind and size (a
    /// diagnostic for tests).
    pub fn known_heads_held(&self) -> usize {
        self.known().values().filter(|k| k.head.is_some()).count()
    }

    /// Decompressed postings blocks this reader keeps, and their bytes (a diagnostic for tests).
    pub fn recent_postings_held(&self) -> (usize, usize) {
        let recent = self
            .recent_postings
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        (recent.len(), recent.iter().map(|(_, d)| d.len()).sum())
    }
}

/// An `And` of terms whose shortest list is in more pieces (numbers, or runs of the runs
/// layout) than one per this many events is left to intersect the terms' bitmaps
/// ([`TermSource::terms_and`] answers `None`): the density from which roaring keeps a
/// container as bits.
const DENSE_AND_FROM: u64 = 16;

/// Mean run length (numbers) from which an `And`'s dense candidates are intersected with a
/// roaring list as bitmaps rather than probed (see [`TermSource::terms_and`]).
const LONG_RUN: u64 = 64;

/// What a lexicon value points at, read ([`WarmBucket::read_postings`]): the single event
/// number of an inline value, or the decompressed postings block and the entry's offset in it.
enum PostingsAt<'a> {
    Inline(u32),
    Entry(&'a [u8], usize),
}

/// Decompression state for postings reads: the last two blocks read. A walk in term order
/// (a prefix query, a merge, fsck) reads the postings blocks one after the other, but a term
/// sharing an earlier term's entry points back to an earlier block; keeping two, the walk's
/// block is still there when it returns. A scratch serves one bucket: it knows its blocks by
/// number only, so another bucket's read would get this one's block.
#[derive(Default)]
pub struct BlockScratch {
    comp: Vec<u8>,
    /// Two decompressed blocks, each with its number (`None`: empty or being read).
    slots: [(Option<u64>, Arc<Vec<u8>>); 2],
    /// The slot used last.
    recent: usize,
}

/// Reads the block table at the end of the postings body (`table | table_len u64`).
fn read_block_table(
    path: &Path,
    file: &File,
    body_len: u64,
) -> Result<Vec<SliceEntry>, StoreError> {
    let bad = |r: &str| StoreError::corrupt(path, r);
    if body_len < 16 {
        return Err(bad("postings body too short for its block table"));
    }
    let mut tl = [0u8; 8];
    file.read_exact_at(&mut tl, body_len - 8).at(path)?;
    let tl = u64::from_le_bytes(tl);
    if tl < 8 || tl > body_len - 8 {
        return Err(bad("block table length out of range"));
    }
    let mut table = vec![0u8; tl as usize];
    file.read_exact_at(&mut table, body_len - 8 - tl).at(path)?;
    decode_slices(path, &table, body_len - 8 - tl)
}

impl TermSource for WarmBucket {
    fn event_count(&self) -> u32 {
        self.meta.event_count as u32
    }

    fn postings(&self, term: &[u8]) -> Result<Arc<RoaringBitmap>, StoreError> {
        Ok(Arc::new(match self.lookup(term)? {
            Some(v) => self.postings_at(v, &mut BlockScratch::default())?,
            None => RoaringBitmap::new(),
        }))
    }

    fn postings_among(
        &self,
        term: &[u8],
        among: &RoaringBitmap,
    ) -> Result<RoaringBitmap, StoreError> {
        let Some(v) = self.lookup(term)? else {
            return Ok(RoaringBitmap::new());
        };
        self.read_postings(v, &mut BlockScratch::default(), |at| match at {
            PostingsAt::Inline(n) => Ok((
                RoaringBitmap::from_iter(among.contains(n).then_some(n)),
                Some(n),
            )),
            PostingsAt::Entry(block, offset) => postings::among_in_entry(block, offset, among),
        })
    }

    fn cost_hint(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(Some(self.head_of(term)?.map_or(0, |(_, _, bytes)| bytes)))
    }

    /// From the lexicon: no kind for an absent term, its mask for a pointer.
    fn term_kinds(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(match self.lookup_kinds(term)? {
            None => Some(0),
            Some((_, kinds)) => kinds,
        })
    }

    /// The shortest list read as runs of candidates, then narrowed by each longer one in turn
    /// (`postings::filter_runs_in_entry`): no term's bitmap is built, and a roaring list is
    /// read only inside the candidate runs.
    fn terms_and(&self, terms: &[Vec<u8>]) -> Result<Option<RoaringBitmap>, StoreError> {
        let mut order = Vec::with_capacity(terms.len());
        for t in terms {
            let Some((v, kind, cost)) = self.head_of(t)? else {
                return Ok(Some(RoaringBitmap::new()));
            };
            order.push((cost, kind, v));
        }
        order.sort_unstable();
        // The shortest in many pieces (more than one per DENSE_AND_FROM events, or a roaring
        // entry): intersecting bitmaps a container at a time beats listing its runs. A
        // sourcetype's word in long runs is listed.
        let Some(&(_, kind, v)) = order.first() else {
            return Ok(None);
        };
        let dense = |n: u64| n.saturating_mul(DENSE_AND_FROM) > self.meta.event_count;
        // One scratch for every read here: the shortest entry's block, counted and then listed,
        // is decompressed once.
        let mut scratch = BlockScratch::default();
        if kind == Some(postings::KIND_ROARING)
            || (kind.is_some()
                && dense(self.read_postings(v, &mut scratch, |at| match at {
                    PostingsAt::Inline(n) => Ok((1, Some(n))),
                    PostingsAt::Entry(block, offset) => {
                        let limit = self.meta.event_count / DENSE_AND_FROM;
                        Ok((postings::entry_len(block, offset, limit)?, None))
                    }
                })?))
        {
            return Ok(None);
        }
        // The two shortest both chunked: intersected a container at a time, without listing
        // the shorter's runs first (`cargo bench --bench postings` "postings and": 377 →
        // 221 µs).
        let both = match order.get(1) {
            Some(&(_, k2, v2))
                if kind == Some(postings::KIND_CHUNKED) && k2 == Some(postings::KIND_CHUNKED) =>
            {
                self.and_two(v, v2, &mut scratch)?
            }
            _ => None,
        };
        let rest = if both.is_some() { 2 } else { 1 };
        // Else candidates as runs: a sourcetype's word is a few hundred of them.
        let mut cands: Vec<(u32, u32)> = match both {
            Some(runs) => runs,
            None => {
                let mut cands = Vec::new();
                self.read_postings(v, &mut scratch, |at| match at {
                    PostingsAt::Inline(n) => {
                        cands.push((n, n));
                        Ok(((), Some(n)))
                    }
                    PostingsAt::Entry(block, offset) => {
                        Ok(((), postings::runs_into(block, offset, &mut cands)?))
                    }
                })?;
                cands
            }
        };
        // Once the candidates are many numbers in long runs (a dense word of a sourcetype) and
        // the next list is a roaring bitmap, the rest is intersected as bitmaps: the runs would
        // split into as many pieces as the bitmap has (`tags http`: 184 → 270 M instructions
        // probed), while building the runs' bitmap fills words. Short runs are probed: their
        // bitmap costs a run each, more than the probes (`java user`: 94 against 157 M).
        let mut bits: Option<RoaringBitmap> = None;
        for &(_, kind, v) in order.get(rest..).unwrap_or_default() {
            if bits.is_none() && kind == Some(postings::KIND_ROARING) {
                let numbers: u64 = cands.iter().map(|&(a, b)| u64::from(b - a) + 1).sum();
                if dense(numbers) && (cands.len() as u64).saturating_mul(LONG_RUN) < numbers {
                    bits = Some(postings::bitmap_of_runs(&cands));
                }
            }
            if let Some(acc) = &mut bits {
                *acc &= &self.postings_at(v, &mut scratch)?;
                if acc.is_empty() {
                    break;
                }
                continue;
            }
            if cands.is_empty() {
                break;
            }
            self.read_postings(v, &mut scratch, |at| match at {
                PostingsAt::Inline(n) => {
                    let held = cands.iter().any(|&(a, b)| a <= n && n <= b);
                    cands.clear();
                    if held {
                        cands.push((n, n));
                    }
                    Ok(((), Some(n)))
                }
                PostingsAt::Entry(block, offset) => Ok((
                    (),
                    postings::filter_runs_in_entry(block, offset, &mut cands)?,
                )),
            })?;
        }
        Ok(Some(
            bits.unwrap_or_else(|| postings::bitmap_of_runs(&cands)),
        ))
    }

    fn postings_in(&self, term: &[u8], window: &Window) -> Result<Arc<RoaringBitmap>, StoreError> {
        let Some(v) = self.lookup(term)? else {
            return Ok(Arc::new(RoaringBitmap::new()));
        };
        let bits = self.read_postings(v, &mut BlockScratch::default(), |at| match at {
            PostingsAt::Inline(n) => Ok((
                RoaringBitmap::from_iter(window.contains(n).then_some(n)),
                Some(n),
            )),
            PostingsAt::Entry(block, offset) => {
                postings::decode_entry_in(block, offset, window.keys())
            }
        })?;
        Ok(Arc::new(bits))
    }

    fn union_prefixed(
        &self,
        prefix: &[u8],
        accept: &mut dyn FnMut(&[u8]) -> bool,
        out: &mut RoaringBitmap,
    ) -> Result<(), StoreError> {
        let mut scratch = BlockScratch::default();
        self.lexicon()?
            .walk(prefix, &mut LexScratch::default(), &mut |term, value| {
                if !term.starts_with(prefix) {
                    return Ok(false);
                }
                if accept(term) {
                    *out |= self.postings_at(value, &mut scratch)?;
                }
                Ok(true)
            })
    }
}

/// Per-call decompression state of `read_events`.
pub(crate) struct WarmScratch<'a> {
    /// Slice table entries around the last slice read.
    entries: EntryChunk,
    ahead: ReadAhead,
    out: Vec<u8>,
    /// The current slice when it came from (or went to) the slice cache; else it is in `out`,
    /// or in a dictionary's `Near` when `in_near` says so.
    shared: Option<Arc<[u8]>>,
    /// The dictionary whose `Near` holds the current slice, and the slice's length.
    in_near: Option<(usize, usize)>,
    /// Slice currently in `out`, `shared` or a `Near`.
    loaded: Option<u32>,
    /// Slices this read decompressed that were offered to the slice cache.
    offered: usize,
    /// Each dictionary's `Near`, laid out once this read decompresses enough slices with it.
    near: Vec<NearSlot<'a>>,
}

impl<'a> WarmScratch<'a> {
    /// Scratch whose `Near` layouts go to `bufs` (one per dictionary of the bucket).
    fn new(bufs: &'a mut [Vec<u8>]) -> Self {
        WarmScratch {
            entries: EntryChunk::default(),
            ahead: ReadAhead::default(),
            out: Vec::new(),
            shared: None,
            in_near: None,
            loaded: None,
            offered: 0,
            near: bufs.iter_mut().map(NearSlot::new).collect(),
        }
    }
}

/// Slices one read offers to the slice cache: a `head 10` reads a few, a scan of a whole
/// bucket thousands — only its first ones are kept, so it does not push out everything else.
const OFFERED_PER_READ: usize = 8;

impl SliceSource for WarmBucket {
    type Scratch<'a> = WarmScratch<'a>;

    fn slice<'s>(&'s self, n: u32, s: &'s mut WarmScratch<'_>) -> Result<&'s [u8], StoreError> {
        if s.loaded != Some(n) {
            s.loaded = None;
            s.shared = None;
            s.in_near = None;
            let cache = crate::slice_cache::global();
            if let Some(bytes) = cache.get(self.id, n) {
                s.shared = Some(bytes);
            } else {
                let (e, d) = self.slices.entry(n, &mut s.entries)?;
                let jp = self.path.join(JOURNAL_FILE);
                let dict = self.slices.dict(d)?;
                let near = match (dict, s.near.get_mut(d)) {
                    (Some(dict), Some(slot)) => slot.for_frame(dict, e.ulen as usize),
                    _ => None,
                };
                let fresh: &[u8] = match near {
                    Some(near) => {
                        s.in_near = Some((d, e.ulen as usize));
                        read_slice_near(&jp, &self.journal, &e, &mut s.ahead, near)?
                    }
                    None => {
                        read_slice_ahead(&jp, &self.journal, &e, &mut s.ahead, dict, &mut s.out)?;
                        &s.out
                    }
                };
                if cache.is_on() && s.offered < OFFERED_PER_READ {
                    s.offered += 1;
                    let bytes: Arc<[u8]> = fresh.into();
                    cache.put(self.id, n, bytes.clone());
                    s.shared = Some(bytes);
                    s.in_near = None;
                }
            }
            s.loaded = Some(n);
        }
        Ok(match (&s.shared, s.in_near) {
            (Some(bytes), _) => bytes,
            (None, Some((d, len))) => s.near.get(d).map_or(&[][..], |slot| slot.output(len)),
            (None, None) => &s.out,
        })
    }
}

impl BucketRead for WarmBucket {
    fn meta(&self) -> &BucketMeta {
        &self.meta
    }
    fn prepare(&self) -> Result<(), StoreError> {
        self.columns().map(|_| ())
    }
    fn may_contain(&self, term: &[u8]) -> bool {
        let term = term.to_ascii_lowercase();
        // A remembered lookup answers exactly, without the filter's page read and checksum
        // (3 % of the 10 GB service's CPU, where every word is remembered in every bucket).
        if let Some(k) = self.known().get(term.as_slice()) {
            return k.value.is_some();
        }
        self.bloom.may_contain(&term)
    }
    fn eval(&self, q: &TermQuery) -> Result<RoaringBitmap, StoreError> {
        eval(self, q)
    }
    fn eval_in(&self, q: &TermQuery, window: &Window) -> Result<Arc<RoaringBitmap>, StoreError> {
        crate::query::eval_in(self, q, window)
    }
    fn term_cost(&self, term: &[u8]) -> Result<Option<u64>, StoreError> {
        self.cost_hint(&term.to_ascii_lowercase())
    }
    fn term_postings(&self, terms: &[Vec<u8>]) -> Result<Vec<RoaringBitmap>, StoreError> {
        let mut out = vec![RoaringBitmap::new(); terms.len()];
        self.term_values(terms, |i, v, blocks| {
            out[i] = self.postings_at(v, blocks)?;
            Ok(())
        })?;
        Ok(out)
    }
    fn term_hits(
        &self,
        terms: &[Vec<u8>],
        cands: &[u32],
        hit: &mut dyn FnMut(usize, usize),
    ) -> Result<(), StoreError> {
        self.term_values(terms, |i, v, blocks| {
            self.postings_hits(v, blocks, cands, &mut |j| hit(i, j))
        })
    }
    fn times(&self) -> Column<'_, i64> {
        Column::flat(&self.cols_or_empty().times)
    }
    fn time_blocks(&self) -> Option<(u32, Vec<(i64, i64)>)> {
        let head = self.cols.head();
        let ranges = head
            .blocks
            .iter()
            .map(|b| (b.min_time, b.max_time))
            .collect();
        Some((head.block_events, ranges))
    }
    fn blocks_newest_first(&self) -> Option<(u32, super::NewestBlocks)> {
        let order = self.newest_first.get_or_init(|| {
            let (_, ranges) = self.time_blocks().unwrap_or_default();
            super::newest_first(&ranges)
        });
        Some((self.cols.head().block_events, order.clone()))
    }
    fn blocks_newest_first_of(&self, kinds: u64) -> Option<(u32, super::NewestBlocks)> {
        match self.kind_order(kinds) {
            Some(order) => Some((self.cols.head().block_events, order)),
            None => self.blocks_newest_first(),
        }
    }
    fn query_kinds(&self, q: &TermQuery) -> u64 {
        crate::query::kinds_of(self, q).unwrap_or(u64::MAX)
    }
    fn time(&self, n: u32) -> Result<i64, StoreError> {
        self.cols.time(n)
    }
    fn block_times_into(&self, b: u32, out: &mut Vec<i64>) -> Result<bool, StoreError> {
        self.cols.block_times_into(b as usize, out).map(|()| true)
    }
    fn indexed(&self, n: u32) -> Result<IndexedFields, StoreError> {
        self.cols.indexed(n)
    }
    fn index_fields(&self, n: u32, out: &mut Vec<(String, String)>) -> Result<(), StoreError> {
        self.cols.index_fields(n, out)
    }
    fn host_ids(&self) -> Column<'_, u32> {
        Column::flat(&self.cols_or_empty().host)
    }
    fn host_names(&self) -> &[String] {
        &self.cols.head().dicts[0]
    }
    fn source_ids(&self) -> Column<'_, u32> {
        Column::flat(&self.cols_or_empty().source)
    }
    fn source_names(&self) -> &[String] {
        &self.cols.head().dicts[1]
    }
    fn sourcetype_ids(&self) -> Column<'_, u32> {
        Column::flat(&self.cols_or_empty().sourcetype)
    }
    fn sourcetype_names(&self) -> &[String] {
        &self.cols.head().dicts[2]
    }
    fn read_events(
        &self,
        ids: &mut dyn Iterator<Item = u32>,
        f: &mut dyn FnMut(EventView<'_>) -> bool,
    ) -> Result<(), StoreError> {
        let mut bufs = vec![Vec::new(); self.slices.dict_count()];
        let mut scratch = WarmScratch::new(&mut bufs);
        read_events_with(&self.path, &self.cols, self, &mut scratch, ids, f)
    }
}
