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

use std::fs::File;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::bucket::build::SliceSink;
use crate::bucket::journal::{decode_slices, encode_slices, read_slice, JournalSink, SliceEntry};
use crate::codec::{put_varint, Reader};
use crate::consts::{magic, LEXICON_BLOCK_BYTES};
use crate::error::{IoContext, StoreError};
use crate::footer::open_checked;

/// Writes a lexicon file from terms given in ascending order.
pub(crate) struct LexiconWriter {
    sink: JournalSink,
    block: Vec<u8>,
    /// Previous term of the current block.
    prev: Vec<u8>,
    /// Previous pointer value of the current block.
    prev_ptr: u64,
    /// First term of every block, `(len varint | bytes)*`.
    firsts: Vec<u8>,
    path: PathBuf,
}

impl LexiconWriter {
    /// Creates the file at `path`.
    pub fn create(path: &Path) -> Result<Self, StoreError> {
        Ok(LexiconWriter {
            sink: JournalSink::create(path, magic::LEXICON)?,
            block: Vec::with_capacity(LEXICON_BLOCK_BYTES + 1024),
            prev: Vec::new(),
            prev_ptr: 0,
            firsts: Vec::new(),
            path: path.to_path_buf(),
        })
    }

    /// Adds `term` (greater than every earlier one) with its lexicon value.
    pub fn insert(&mut self, term: &[u8], value: u64) -> Result<(), StoreError> {
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
        if value & 1 == 1 {
            put_varint(&mut self.block, value);
        } else {
            let d = value.checked_sub(self.prev_ptr).ok_or_else(|| {
                StoreError::corrupt(&self.path, "postings pointers not ascending")
            })?;
            put_varint(&mut self.block, d);
            self.prev_ptr = value;
        }
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

/// An open lexicon: its index in memory, blocks read on demand.
pub struct Lexicon {
    path: PathBuf,
    file: File,
    blocks: Vec<SliceEntry>,
    /// First term of every block, concatenated; block `i` is `firsts[ends[i-1]..ends[i]]`.
    firsts: Vec<u8>,
    ends: Vec<usize>,
}

/// Decompression state for lexicon reads: the last block read.
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
        let n = r.u64().map_err(bad)?;
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
        let mut found = None;
        self.walk(term, s, &mut |t, v| {
            if t == term {
                found = Some(v);
            }
            Ok(false)
        })?;
        Ok(found)
    }

    /// Every `(term, value)` of block `i` (below [`Lexicon::block_count`]), in order, into `out`
    /// (cleared first): a merge walks its sources' lexicons block by block.
    pub fn block_entries(
        &self,
        i: usize,
        s: &mut LexScratch,
        out: &mut Vec<(Vec<u8>, u64)>,
    ) -> Result<(), StoreError> {
        out.clear();
        self.load(i, s)?;
        let mut term = std::mem::take(&mut s.term);
        let res = self.scan_block(i, &s.out, &mut term, b"", &mut |t, v| {
            out.push((t.to_vec(), v));
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
        f: &mut Visit<'_>,
    ) -> Result<bool, StoreError> {
        let bad = |r: &str| StoreError::corrupt(&self.path, format!("lexicon block {i}: {r}"));
        let mut r = Reader::new(block);
        let mut ptr = 0u64;
        term.clear();
        let mut first = true;
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
            } else {
                ptr = ptr.checked_add(v).ok_or_else(|| bad("pointer overflow"))?;
                ptr
            };
            if term.as_slice() >= from && !f(term, value)? {
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

    fn build(dir: &Path, map: &BTreeMap<Vec<u8>, u64>) -> PathBuf {
        let p = dir.join("lexicon.dat");
        let mut w = LexiconWriter::create(&p).unwrap();
        for (t, v) in map {
            w.insert(t, *v).unwrap();
        }
        w.finish().unwrap();
        p
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

    /// Ascending pointer values interleaved with inline ones, as the bucket writer makes them.
    fn values(n: usize, seed: u64) -> Vec<u64> {
        let mut ptr = 0u64;
        (0..n as u64)
            .map(|i| {
                let x = (i.wrapping_mul(0x9E37_79B9) ^ seed) % 7;
                if x < 4 {
                    (((i * 31 + seed) % 1_000_000) << 1) | 1
                } else {
                    ptr += (x * 40) << 1;
                    ptr
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
    fn many_blocks_and_every_damage_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let terms: Vec<Vec<u8>> = (0..20_000u32)
            .map(|i| format!("term{:08}x{}", i * 7, i % 13).into_bytes())
            .collect();
        let map: BTreeMap<Vec<u8>, u64> = terms.into_iter().zip(values(20_000, 3)).collect();
        let p = build(dir.path(), &map);
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
            let map: BTreeMap<Vec<u8>, u64> = terms.into_iter().zip(values(n, seed)).collect();
            let dir = tempfile::tempdir().unwrap();
            let p = build(dir.path(), &map);
            let lex = Lexicon::open(&p).unwrap();
            let mut s = LexScratch::default();
            for (t, v) in &map {
                prop_assert_eq!(lex.get(t, &mut s).unwrap(), Some(*v));
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
