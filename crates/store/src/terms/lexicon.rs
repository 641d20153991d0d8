//! The on-disk lexicon: sorted terms in independently compressed, front-coded blocks, located
//! by a small index of each block's first term. See docs/format/lexicon.md.
//!
//! A lookup reads the index once per open bucket (a few tens of KiB for a million terms), then
//! one block (~[`LEXICON_BLOCK_BYTES`] uncompressed); a prefix walk reads only the blocks whose
//! range meets the prefix. Naive twin: a `BTreeMap<Vec<u8>, u64>` (the property test compares).
//!
//! Body: `block* | index | index_xxh3 u64 | index_len u64`, where `index` is the slice table of
//! the blocks (slices.dat layout) followed by `(len varint | first term)` per block, and a block
//! is one zstd frame of entries `shared varint | suffix_len varint | suffix | value varint`
//! (`shared` bytes of the previous term in the block, 0 for the first). A value `v` is stored
//! as is when its low bit is 1 (an inline posting) and otherwise as `v − p`, where `p` is the
//! previous pointer value in the block (0 at its start): both are even, so the low bit still
//! tells the two apart, and ascending pointers cost the size of the entry before them.
//!
//! Shared entries: terms that always occur together have identical postings, and the terms
//! writer stores such an entry once, giving the later terms the earlier entry's pointer. That
//! pointer does not ascend, so it is stored as an escape: `0 varint | value varint`, the
//! absolute (even) value, leaving `p` as it was. A lexicon that may hold escapes says so with
//! [`SHARED_ENTRIES_FLAG`] in its index's block count (every lexicon written now); without the
//! flag (older files) a stored 0 is a delta like any other. In the flagged layout a fresh
//! pointer equal to `p` (only value 0, postings block 0 offset 0, at a block's start) is
//! written as the escape too, since its delta would be 0.
//!
//! Kinds: in a lexicon flagged with [`KINDS_FLAG`] (every one written now) each pointer value
//! (fresh or shared) is followed by `kinds varint`, the mask of the bucket's sourcetypes whose
//! events hold the term (see `bucket::write::EventKinds`): two terms whose masks share no bit
//! are in no event together, which an `And` learns without reading their postings.
use std::fs::File;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::bucket::build::SliceSink;
use crate::bucket::journal::{decode_slices, encode_slices, read_slice, JournalSink, SliceEntry};
use crate::codec::{put_varint, Reader};
use crate::consts::{
    magic, CHUNKED_ENTRIES_FLAG, INDEX_LEVEL, KINDS_FLAG, LEXICON_BLOCK_BYTES, SHARED_ENTRIES_FLAG,
};
use crate::error::{IoContext, StoreError};
use crate::footer::open_checked;

/// Writes a lexicon file from terms given in ascending order.
pub(crate) struct LexiconWriter {
    sink: JournalSink,
    block: Vec<u8>,
    /// Previous term of the current block.
    prev: Vec<u8>,
    /// Previous fresh pointer value of the current block (shared ones leave it).
    prev_ptr: u64,
    /// Largest fresh pointer value so far, of any block: a shared value must not exceed it.
    max_ptr: Option<u64>,
    /// Whether the file is in the shared-entries layout ([`SHARED_ENTRIES_FLAG`]); only tests
    /// write the older one.
    shared_layout: bool,
    /// Whether pointer values are followed by their term's kinds ([`KINDS_FLAG`]); only tests
    /// write lexicons without.
    kinds_layout: bool,
    /// First term of every block, `(len varint | bytes)*`.
    firsts: Vec<u8>,
    path: PathBuf,
}

impl LexiconWriter {
    /// Creates the file at `path`, in the shared-entries layout.
    pub fn create(path: &Path) -> Result<Self, StoreError> {
        Ok(LexiconWriter {
            sink: JournalSink::create(path, magic::LEXICON, INDEX_LEVEL)?,
            block: Vec::with_capacity(LEXICON_BLOCK_BYTES + 1024),
            prev: Vec::new(),
            prev_ptr: 0,
            max_ptr: None,
            shared_layout: true,
            kinds_layout: true,
            firsts: Vec::new(),
            path: path.to_path_buf(),
        })
    }

    /// Creates the file at `path` in the layout before shared entries (no flag, no escape), as
    /// older binaries wrote it.
    #[cfg(test)]
    pub fn create_unshared(path: &Path) -> Result<Self, StoreError> {
        let mut w = Self::create(path)?;
        w.shared_layout = false;
        w.kinds_layout = false;
        Ok(w)
    }

    /// Creates the file at `path` in the layout before kinds (shared entries, no kinds), as
    /// older binaries wrote it.
    #[cfg(test)]
    pub fn create_without_kinds(path: &Path) -> Result<Self, StoreError> {
        let mut w = Self::create(path)?;
        w.kinds_layout = false;
        Ok(w)
    }

    /// Adds `term` (greater than every earlier one) with its lexicon value: an inline posting
    /// (low bit 1) or a pointer to a postings entry written for this term (ascending with the
    /// terms). A pointer to an earlier term's entry goes through [`LexiconWriter::insert_shared`].
    /// `kinds`: the term's kinds mask, stored beside a pointer (an inline posting has none).
    pub fn insert(&mut self, term: &[u8], value: u64, kinds: u64) -> Result<(), StoreError> {
        self.put_term(term)?;
        if value & 1 == 1 {
            put_varint(&mut self.block, value);
            return Ok(());
        }
        let d = value
            .checked_sub(self.prev_ptr)
            .ok_or_else(|| StoreError::corrupt(&self.path, "postings pointers not ascending"))?;
        if d == 0 && self.shared_layout {
            // A 0 delta is the escape in this layout.
            put_varint(&mut self.block, 0);
            put_varint(&mut self.block, value);
        } else {
            put_varint(&mut self.block, d);
        }
        self.put_kinds(kinds);
        self.prev_ptr = value;
        self.max_ptr = self.max_ptr.max(Some(value));
        Ok(())
    }

    /// Adds `term` (greater than every earlier one) with `value`, the pointer already given to
    /// an earlier term whose postings entry is byte-identical to this term's: stored as the
    /// escape `0 | value`, it leaves the pointer deltas of the block as they were. `kinds`: as
    /// for [`LexiconWriter::insert`].
    pub fn insert_shared(&mut self, term: &[u8], value: u64, kinds: u64) -> Result<(), StoreError> {
        if !self.shared_layout || value & 1 == 1 || self.max_ptr.is_none_or(|m| value > m) {
            return Err(StoreError::corrupt(
                &self.path,
                format!("shared value {value} is not an earlier postings pointer"),
            ));
        }
        self.put_term(term)?;
        put_varint(&mut self.block, 0);
        put_varint(&mut self.block, value);
        self.put_kinds(kinds);
        Ok(())
    }

    /// Appends a pointer's kinds, in the layout that has them.
    fn put_kinds(&mut self, kinds: u64) {
        if self.kinds_layout {
            put_varint(&mut self.block, kinds);
        }
    }

    /// Appends the front-coded `term` to the block (closing the block first when it is full);
    /// its value follows.
    fn put_term(&mut self, term: &[u8]) -> Result<(), StoreError> {
        if !self.block.is_empty() && term <= self.prev.as_slice() {
            return Err(StoreError::corrupt(
                &self.path,
                "lexicon terms not ascending",
            ));
        }
        if self.block.len() >= LEXICON_BLOCK_BYTES {
            self.flush()?;
        }
        let shared = if self.block.is_empty() {
            put_varint(&mut self.firsts, term.len() as u64);
            self.firsts.extend_from_slice(term);
            0
        } else {
            self.prev
                .iter()
                .zip(term)
                .take_while(|(a, b)| a == b)
                .count()
        };
        put_varint(&mut self.block, shared as u64);
        put_varint(&mut self.block, (term.len() - shared) as u64);
        self.block.extend_from_slice(&term[shared..]);
        self.prev.clear();
        self.prev.extend_from_slice(term);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        let n = self.sink.slices.len() as u32;
        self.sink.put(n, &self.block)?;
        self.block.clear();
        self.prev_ptr = 0;
        Ok(())
    }

    /// Writes the last block, the index and the footer, and fsyncs.
    pub fn finish(mut self) -> Result<(), StoreError> {
        if !self.block.is_empty() {
            self.flush()?;
        }
        let mut index = Vec::new();
        encode_slices(&self.sink.slices, &mut index);
        if self.shared_layout {
            let mut count =
                self.sink.slices.len() as u64 | SHARED_ENTRIES_FLAG | CHUNKED_ENTRIES_FLAG;
            if self.kinds_layout {
                count |= KINDS_FLAG;
            }
            index[..8].copy_from_slice(&count.to_le_bytes());
        }
        index.extend_from_slice(&self.firsts);
        let hash = xxh3_64(&index);
        index.extend_from_slice(&hash.to_le_bytes());
        index.extend_from_slice(&(index.len() as u64 - 8).to_le_bytes());
        self.sink.out.write(&index)?;
        self.sink.out.finish().map(|_| ())
    }
}

/// What [`Lexicon::walk`] calls per `(term, value)`; returning `false` stops the walk.
pub type Visit<'a> = dyn FnMut(&[u8], u64) -> Result<bool, StoreError> + 'a;

/// [`Visit`] with the term's kinds mask (`None`: an inline value, or a lexicon without kinds).
type VisitKinds<'a> = dyn FnMut(&[u8], u64, Option<u64>) -> Result<bool, StoreError> + 'a;

/// The entries of one lexicon block ([`Lexicon::block_entries`]), their terms laid end to end
/// so that reading a block allocates nothing once the buffers have grown.
#[derive(Debug, Default)]
pub struct BlockEntries {
    /// The terms, concatenated.
    terms: Vec<u8>,
    /// Per entry: where its term ends in `terms` (it starts where the previous one ends) and
    /// its value.
    entries: Vec<(usize, u64)>,
}

impl BlockEntries {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `k`'s term and value.
    pub fn get(&self, k: usize) -> Option<(&[u8], u64)> {
        let &(end, value) = self.entries.get(k)?;
        let start = k.checked_sub(1).map_or(0, |p| self.entries[p].0);
        Some((&self.terms[start..end], value))
    }
}

/// An open lexicon: its index in memory, blocks read on demand.
pub struct Lexicon {
    path: PathBuf,
    file: File,
    blocks: Vec<SliceEntry>,
    /// First term of every block, concatenated; block `i` is `firsts[ends[i-1]..ends[i]]`.
    firsts: Vec<u8>,
    ends: Vec<usize>,
    /// Whether a stored value 0 is the shared-entry escape ([`SHARED_ENTRIES_FLAG`] was set).
    shared_layout: bool,
    /// Whether pointer values are followed by kinds ([`KINDS_FLAG`] was set).
    kinds_layout: bool,
}

/// Decompression state for lexicon reads: the last block read, known by number only, so a
/// scratch serves one lexicon.
#[derive(Default)]
pub struct LexScratch {
    comp: Vec<u8>,
    out: Vec<u8>,
    loaded: Option<usize>,
    term: Vec<u8>,
}

/// Bytes of the index of the lexicon file at `path` (what an open [`Lexicon`] keeps in memory),
/// read from its last 8 body bytes; 0 when unreadable.
pub fn index_len(path: &Path) -> u64 {
    use std::os::unix::fs::FileExt;
    let Ok((f, body_len)) = open_checked(path, magic::LEXICON) else {
        return 0;
    };
    let mut b = [0u8; 8];
    match body_len
        .checked_sub(8)
        .map(|at| f.read_exact_at(&mut b, at))
    {
        Some(Ok(())) => u64::from_le_bytes(b).min(body_len),
        _ => 0,
    }
}

impl Lexicon {
    /// Opens the lexicon at `path`: checks its footer, reads and verifies its index.
    pub fn open(path: &Path) -> Result<Lexicon, StoreError> {
        use std::os::unix::fs::FileExt;
        let bad = |r: &str| StoreError::corrupt(path, r);
        let (file, body_len) = open_checked(path, magic::LEXICON)?;
        if body_len < 24 {
            return Err(bad("lexicon body too short for its index"));
        }
        let mut tail = [0u8; 16];
        file.read_exact_at(&mut tail, body_len - 16).at(path)?;
        let hash = u64::from_le_bytes(tail[..8].try_into().expect("8"));
        let ilen = u64::from_le_bytes(tail[8..].try_into().expect("8"));
        if ilen < 8 || ilen > body_len - 16 {
            return Err(bad("lexicon index length out of range"));
        }
        let mut index = vec![0u8; ilen as usize];
        let blocks_len = body_len - 16 - ilen;
        file.read_exact_at(&mut index, blocks_len).at(path)?;
        if xxh3_64(&index) != hash {
            return Err(bad("lexicon index fails its checksum"));
        }
        let mut r = Reader::new(&index);
        let count = r.u64().map_err(bad)?;
        let shared_layout = count & SHARED_ENTRIES_FLAG != 0;
        let kinds_layout = count & KINDS_FLAG != 0;
        if kinds_layout && !shared_layout {
            return Err(bad("lexicon flags kinds without shared entries"));
        }
        let n = count & !(SHARED_ENTRIES_FLAG | CHUNKED_ENTRIES_FLAG | KINDS_FLAG);
        // The table as `decode_slices` reads it: the plain count.
        index[..8].copy_from_slice(&n.to_le_bytes());
        let table_len = n
            .checked_mul(crate::bucket::journal::SLICE_ENTRY_LEN as u64)
            .and_then(|l| l.checked_add(8))
            .filter(|&l| l <= ilen)
            .ok_or_else(|| bad("lexicon block count out of range"))?;
        let (table, rest) = index.split_at(table_len as usize);
        let blocks = decode_slices(path, table, blocks_len)?;
        let mut r = Reader::new(rest);
        let mut firsts = Vec::with_capacity(rest.len());
        let mut ends = Vec::with_capacity(blocks.len());
        for _ in 0..blocks.len() {
            let l = usize::try_from(r.varint().map_err(bad)?).map_err(|_| bad("term length"))?;
            let t = r.bytes(l).map_err(bad)?;
            let prev_start = ends.len().checked_sub(2).map_or(0, |j| ends[j]);
            if !ends.is_empty() && firsts[prev_start..] >= *t {
                return Err(bad("lexicon blocks not in term order"));
            }
            firsts.extend_from_slice(t);
            ends.push(firsts.len());
        }
        if !r.is_empty() {
            return Err(bad("trailing bytes after the lexicon index"));
        }
        Ok(Lexicon {
            path: path.to_path_buf(),
            file,
            blocks,
            firsts,
            ends,
            shared_layout,
            kinds_layout,
        })
    }

    /// Bytes held in memory.
    pub fn heap_bytes(&self) -> usize {
        self.firsts.capacity()
            + self.ends.capacity() * 8
            + self.blocks.capacity() * size_of::<SliceEntry>()
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    fn first(&self, i: usize) -> &[u8] {
        let s = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.firsts[s..self.ends[i]]
    }

    /// The block that would hold `term`: the last whose first term is ≤ `term` (0 if none).
    fn block_of(&self, term: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.blocks.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.first(mid) <= term {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.saturating_sub(1)
    }

    fn load(&self, i: usize, s: &mut LexScratch) -> Result<(), StoreError> {
        if s.loaded != Some(i) {
            s.loaded = None;
            read_slice(
                &self.path,
                &self.file,
                &self.blocks[i],
                &mut s.comp,
                None,
                &mut s.out,
            )?;
            s.loaded = Some(i);
        }
        Ok(())
    }

    /// Value of `term`, if present; reads at most one block.
    pub fn get(&self, term: &[u8], s: &mut LexScratch) -> Result<Option<u64>, StoreError> {
        Ok(self.get_kinds(term, s)?.map(|(v, _)| v))
    }

    /// Value of `term` and its kinds mask (`None`: an inline value, or a lexicon written
    /// before kinds), if present; reads at most one block.
    pub fn get_kinds(
        &self,
        term: &[u8],
        s: &mut LexScratch,
    ) -> Result<Option<(u64, Option<u64>)>, StoreError> {
        let mut found = None;
        self.walk_kinds(term, s, &mut |t, v, k| {
            if t == term {
                found = Some((v, k));
            }
            Ok(false)
        })?;
        Ok(found)
    }

    /// Every `(term, value)` of block `i` (below [`Lexicon::block_count`]), in order, into
    /// `out` (cleared first): a merge walks its sources' lexicons block by block.
    pub fn block_entries(
        &self,
        i: usize,
        s: &mut LexScratch,
        out: &mut BlockEntries,
    ) -> Result<(), StoreError> {
        out.terms.clear();
        out.entries.clear();
        self.load(i, s)?;
        let mut term = std::mem::take(&mut s.term);
        let res = self.scan_block(i, &s.out, &mut term, b"", &mut |t, v, _| {
            out.terms.extend_from_slice(t);
            out.entries.push((out.terms.len(), v));
            Ok(true)
        });
        s.term = term;
        res.map(|_| ())
    }

    /// Calls `f` with every `(term, value)` from the first term ≥ `from`, in order, until `f`
    /// returns `false`; reads only the blocks it walks through.
    pub fn walk(
        &self,
        from: &[u8],
        s: &mut LexScratch,
        f: &mut Visit<'_>,
    ) -> Result<(), StoreError> {
        self.walk_kinds(from, s, &mut |t, v, _| f(t, v))
    }

    /// [`Lexicon::walk`], each term with its kinds.
    pub(crate) fn walk_kinds(
        &self,
        from: &[u8],
        s: &mut LexScratch,
        f: &mut VisitKinds<'_>,
    ) -> Result<(), StoreError> {
        if self.blocks.is_empty() {
            return Ok(());
        }
        for i in self.block_of(from)..self.blocks.len() {
            self.load(i, s)?;
            let mut term = std::mem::take(&mut s.term);
            let res = self.scan_block(i, &s.out, &mut term, from, f);
            s.term = term;
            if !res? {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Walks block `i` (decompressed in `block`); returns whether to go on to the next block.
    fn scan_block(
        &self,
        i: usize,
        block: &[u8],
        term: &mut Vec<u8>,
        from: &[u8],
        f: &mut VisitKinds<'_>,
    ) -> Result<bool, StoreError> {
        let bad = |r: &str| StoreError::corrupt(&self.path, format!("lexicon block {i}: {r}"));
        let mut r = Reader::new(block);
        let mut ptr = 0u64;
        term.clear();
        let mut first = true;
        let mut reached = from.is_empty();
        while !r.is_empty() {
            let shared = r.varint().map_err(bad)?;
            let slen = r.varint().map_err(bad)?;
            if shared > term.len() as u64 || (first && shared != 0) {
                return Err(bad("shared prefix longer than the previous term"));
            }
            let suffix = usize::try_from(slen)
                .map_err(|_| bad("term length"))
                .and_then(|l| r.bytes(l).map_err(bad))?;
            let after = term.get(shared as usize).copied();
            term.truncate(shared as usize);
            term.extend_from_slice(suffix);
            if first {
                if term.as_slice() != self.first(i) {
                    return Err(bad("first term differs from the index"));
                }
            } else if !match after {
                None => !suffix.is_empty(),
                Some(b) => suffix.first().is_some_and(|&c| c > b),
            } {
                return Err(bad("terms not ascending"));
            }
            first = false;
            let v = r.varint().map_err(bad)?;
            let value = if v & 1 == 1 {
                v
            } else if v == 0 && self.shared_layout {
                let shared = r.varint().map_err(bad)?;
                if shared & 1 == 1 {
                    return Err(bad("shared entry escape holds an inline value"));
                }
                shared
            } else {
                ptr = ptr.checked_add(v).ok_or_else(|| bad("pointer overflow"))?;
                ptr
            };
            let kinds = match value & 1 == 0 && self.kinds_layout {
                true => Some(r.varint().map_err(bad)?),
                false => None,
            };
            // Terms ascend: once one reaches `from`, the rest do.
            reached = reached || term.as_slice() >= from;
            if reached && !f(term, value, kinds)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Values as the terms writer hands them over: `(value, shared)`, where a shared value is
    /// an earlier pointer given again ([`LexiconWriter::insert_shared`]).
    type Puts = BTreeMap<Vec<u8>, (u64, bool)>;

    fn build(dir: &Path, puts: &Puts) -> PathBuf {
        let p = dir.join("lexicon.dat");
        fill(LexiconWriter::create(&p).unwrap(), puts);
        p
    }

    fn fill(mut w: LexiconWriter, puts: &Puts) {
        for (t, &(v, shared)) in puts {
            if shared {
                w.insert_shared(t, v, kinds_of(v)).unwrap();
            } else {
                w.insert(t, v, kinds_of(v)).unwrap();
            }
        }
        w.finish().unwrap();
    }

    /// The kinds mask the tests give a pointer value: from one to ten varint bytes.
    fn kinds_of(v: u64) -> u64 {
        (v >> 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (v % 64)
    }

    /// What `get_kinds` must return for `v` in a lexicon with kinds.
    fn with_kinds(v: u64) -> (u64, Option<u64>) {
        (v, (v & 1 == 0).then(|| kinds_of(v)))
    }

    /// The values alone: what a reader must return.
    fn plain(puts: &Puts) -> BTreeMap<Vec<u8>, u64> {
        puts.iter().map(|(t, &(v, _))| (t.clone(), v)).collect()
    }

    fn all(lex: &Lexicon, from: &[u8]) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::new();
        let mut s = LexScratch::default();
        lex.walk(from, &mut s, &mut |t, v| {
            out.push((t.to_vec(), v));
            Ok(true)
        })
        .unwrap();
        out
    }

    /// Ascending pointer values interleaved with inline ones and with shared ones (an earlier
    /// pointer again, from this block or an earlier one), as the bucket writer makes them. With
    /// an even seed the first pointer is 0 (postings block 0, offset 0), whose delta is 0.
    fn values(n: usize, seed: u64) -> Vec<(u64, bool)> {
        let mut ptr = 0u64;
        let mut fresh: Vec<u64> = Vec::new();
        (0..n as u64)
            .map(|i| {
                let x = (i.wrapping_mul(0x9E37_79B9) ^ seed) % 8;
                if x < 4 {
                    ((((i * 31 + seed) % 1_000_000) << 1) | 1, false)
                } else if x == 7 && !fresh.is_empty() {
                    let k = (i.wrapping_mul(seed + 7) >> 2) as usize % fresh.len();
                    (fresh[k], true)
                } else {
                    if !(fresh.is_empty() && seed.is_multiple_of(2)) {
                        ptr += (x * 40) << 1;
                    }
                    fresh.push(ptr);
                    (ptr, false)
                }
            })
            .collect()
    }

    #[test]
    fn empty_lexicon() {
        let dir = tempfile::tempdir().unwrap();
        let p = build(dir.path(), &BTreeMap::new());
        let lex = Lexicon::open(&p).unwrap();
        assert_eq!(lex.block_count(), 0);
        assert_eq!(lex.get(b"x", &mut LexScratch::default()).unwrap(), None);
        assert!(all(&lex, b"").is_empty());
    }

    #[test]
    fn older_layout_still_reads() {
        let dir = tempfile::tempdir().unwrap();
        let terms = (0..5000u32).map(|i| format!("t{i:06}").into_bytes());
        // No shared values in the older layout; the first pointer is 0 and is stored as the
        // delta 0, as older binaries wrote it.
        let puts: Puts = terms
            .zip(
                values(5000, 4)
                    .into_iter()
                    .map(|(v, s)| (v | s as u64, false)),
            )
            .collect();
        assert_eq!(puts.values().find(|p| p.0 & 1 == 0), Some(&(0, false)));
        let p = dir.path().join("lexicon.dat");
        fill(LexiconWriter::create_unshared(&p).unwrap(), &puts);
        let lex = Lexicon::open(&p).unwrap();
        assert!(!lex.shared_layout && !lex.kinds_layout && lex.block_count() > 1);
        assert_eq!(all(&lex, b""), plain(&puts).into_iter().collect::<Vec<_>>());
        let (t, &(v, _)) = puts.iter().find(|p| p.1 .0 & 1 == 0).unwrap();
        let mut s = LexScratch::default();
        assert_eq!(lex.get_kinds(t, &mut s).unwrap(), Some((v, None)));
        // Shared entries without kinds (the layout before kinds).
        let p = dir.path().join("no-kinds.dat");
        fill(LexiconWriter::create_without_kinds(&p).unwrap(), &puts);
        let lex = Lexicon::open(&p).unwrap();
        assert!(lex.shared_layout && !lex.kinds_layout);
        assert_eq!(all(&lex, b""), plain(&puts).into_iter().collect::<Vec<_>>());
        let mut s = LexScratch::default();
        assert_eq!(lex.get_kinds(t, &mut s).unwrap(), Some((v, None)));
        // The same values in the current layout: flagged, and read the same, with kinds.
        let now = tempfile::tempdir().unwrap();
        let lex = Lexicon::open(&build(now.path(), &puts)).unwrap();
        assert!(lex.shared_layout && lex.kinds_layout);
        assert_eq!(all(&lex, b""), plain(&puts).into_iter().collect::<Vec<_>>());
        let mut s = LexScratch::default();
        assert_eq!(lex.get_kinds(t, &mut s).unwrap(), Some(with_kinds(v)));
        // An older binary reads the flagged block count as a table beyond any index.
        const { assert!(SHARED_ENTRIES_FLAG.checked_mul(24).is_none()) };
        const { assert!(CHUNKED_ENTRIES_FLAG.checked_mul(24).is_none()) };
        const { assert!(KINDS_FLAG.checked_mul(24).is_none()) };
    }

    /// A lexicon of one block whose bytes are `block` and whose first term is `first`, in the
    /// layout before kinds (with or without shared entries) or the current one.
    fn raw_lexicon(path: &Path, block: &[u8], first: &[u8], shared_layout: bool, kinds: bool) {
        let mut w = LexiconWriter::create(path).unwrap();
        w.shared_layout = shared_layout;
        w.kinds_layout = kinds;
        put_varint(&mut w.firsts, first.len() as u64);
        w.firsts.extend_from_slice(first);
        w.block.extend_from_slice(block);
        w.finish().unwrap();
    }

    #[test]
    fn a_bad_escape_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lexicon.dat");
        let get_kinds = |block: &[u8], shared_layout, kinds| {
            raw_lexicon(&p, block, b"a", shared_layout, kinds);
            Lexicon::open(&p)
                .unwrap()
                .get_kinds(b"a", &mut LexScratch::default())
        };
        let get = |block: &[u8], shared_layout| {
            get_kinds(block, shared_layout, false).map(|f| f.map(|(v, _)| v))
        };
        // Term "a" (nothing shared, 1 byte), then its value.
        let entry = |v: &[u8]| [&[0, 1, b'a'][..], v].concat();
        assert_eq!(get(&entry(&[0, 4]), true).unwrap(), Some(4));
        assert_eq!(get(&entry(&[0, 0]), true).unwrap(), Some(0));
        // Without the flag, 0 is a delta, and what follows is the next entry.
        assert_eq!(get(&entry(&[0]), false).unwrap(), Some(0));
        // With kinds, a pointer's (fresh or shared) are read after it; an inline value has none.
        assert_eq!(
            get_kinds(&entry(&[8, 5]), true, true).unwrap(),
            Some((8, Some(5)))
        );
        assert_eq!(
            get_kinds(&entry(&[0, 4, 0x81, 1]), true, true).unwrap(),
            Some((4, Some(129)))
        );
        assert_eq!(
            get_kinds(&entry(&[7]), true, true).unwrap(),
            Some((7, None))
        );
        for bad in [entry(&[8]), entry(&[0, 4]), entry(&[8, 0x80])] {
            assert!(matches!(
                get_kinds(&bad, true, true),
                Err(StoreError::Corrupt { .. })
            ));
        }
        for (bad, why) in [
            (entry(&[0, 3]), "inline value"),
            (entry(&[0]), "truncated"),
            (entry(&[0, 0x80]), "truncated"),
            (
                entry(&[[0].as_slice(), &[0xff; 10], &[0x7f]].concat()),
                "too long",
            ),
        ] {
            match get(&bad, true) {
                Err(StoreError::Corrupt { reason, .. }) => {
                    assert!(reason.contains("block 0"), "{reason}")
                }
                other => panic!("{why}: {other:?}"),
            }
        }
        // The writer refuses a shared value that is no earlier pointer.
        let mut w = LexiconWriter::create(&p).unwrap();
        assert!(w.insert_shared(b"a", 0, 1).is_err());
        w.insert(b"b", 4, 1).unwrap();
        assert!(w.insert_shared(b"c", 5, 1).is_err());
        assert!(w.insert_shared(b"c", 6, 1).is_err());
        w.insert_shared(b"c", 4, 1).unwrap();
        let mut w = LexiconWriter::create_unshared(&p).unwrap();
        w.insert(b"b", 4, 1).unwrap();
        assert!(w.insert_shared(b"c", 4, 1).is_err());
    }

    #[test]
    fn many_blocks_and_every_damage_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let terms: Vec<Vec<u8>> = (0..20_000u32)
            .map(|i| format!("term{:08}x{}", i * 7, i % 13).into_bytes())
            .collect();
        let puts: Puts = terms.into_iter().zip(values(20_000, 3)).collect();
        assert!(puts.values().filter(|p| p.1).count() > 1000);
        let map = plain(&puts);
        let p = build(dir.path(), &puts);
        let lex = Lexicon::open(&p).unwrap();
        assert!(lex.block_count() > 4, "{} blocks", lex.block_count());
        let mut s = LexScratch::default();
        for (t, v) in map.iter().step_by(97) {
            assert_eq!(lex.get(t, &mut s).unwrap(), Some(*v));
        }
        assert_eq!(lex.get(b"term", &mut s).unwrap(), None);
        assert_eq!(lex.get(b"zzz", &mut s).unwrap(), None);
        let got = all(&lex, b"");
        assert_eq!(got.len(), map.len());
        assert!(index_len(&p) > 0);
        // Flip one byte anywhere: opening or reading gives an error (or the same answer when
        // the byte was not covered by a check on this path), never a panic.
        let bytes = std::fs::read(&p).unwrap();
        for at in (0..bytes.len()).step_by(bytes.len() / 300 + 1) {
            let mut b = bytes.clone();
            b[at] ^= 0x5a;
            let q = dir.path().join("bad.dat");
            std::fs::write(&q, &b).unwrap();
            if let Ok(l) = Lexicon::open(&q) {
                let mut out = Vec::new();
                let r = l.walk(b"", &mut LexScratch::default(), &mut |t, v| {
                    out.push((t.to_vec(), v));
                    Ok(true)
                });
                if r.is_ok() {
                    assert_eq!(out, got, "byte {at} changed the answer silently");
                }
            }
        }
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            let q = dir.path().join("cut.dat");
            std::fs::write(&q, &bytes[..cut]).unwrap();
            assert!(matches!(Lexicon::open(&q), Err(StoreError::Corrupt { .. })));
        }
    }

    proptest! {
        #[test]
        fn matches_a_btreemap(
            terms in proptest::collection::btree_set(
                proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b':'), 0u8..=255], 0..40),
                0..3000),
            probes in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), 0u8..=255], 0..6), 0..40),
            seed in 0u64..1000,
        ) {
            let n = terms.len();
            let puts: Puts = terms.into_iter().zip(values(n, seed)).collect();
            let map = plain(&puts);
            let dir = tempfile::tempdir().unwrap();
            let p = build(dir.path(), &puts);
            let lex = Lexicon::open(&p).unwrap();
            let mut s = LexScratch::default();
            for (t, v) in &map {
                prop_assert_eq!(lex.get_kinds(t, &mut s).unwrap(), Some(with_kinds(*v)));
            }
            for probe in &probes {
                prop_assert_eq!(lex.get(probe, &mut s).unwrap(), map.get(probe).copied());
                let want: Vec<(Vec<u8>, u64)> = map
                    .range(probe.clone()..)
                    .take_while(|(t, _)| t.starts_with(probe))
                    .map(|(t, v)| (t.clone(), *v))
                    .collect();
                let mut got = Vec::new();
                lex.walk(probe, &mut s, &mut |t, v| {
                    if !t.starts_with(probe) {
                        return Ok(false);
                    }
                    got.push((t.to_vec(), v));
                    Ok(true)
                }).unwrap();
                prop_assert_eq!(got, want);
            }
        }
    }
}
