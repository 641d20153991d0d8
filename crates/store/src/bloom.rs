//! A bloom filter over the terms of a bucket (xxh3).
//! See docs/format/bloom.md: `k u32 | nbits u64 | bits[nbits/8] | page sums` then the footer.
//!
//! *Paged* (flag [`PAGED`], written now): the bits are followed by the xxh3-64 of each 4 KiB page
//! of them, so a search reads one page per lookup ([`BloomFile`]) and still never trusts a
//! damaged bit: a bucket's filter is no longer read whole (with the 10 GB corpus, every search
//! read 67 MB of filters to skip buckets).
//!
//! Two layouts share the body. *Blocked* (written now, flag [`BLOCKED`] in `k`): each term sets
//! its `k` bits inside one 512-bit block (one cache line), chosen by multiply-shift over any
//! number of blocks, so the filter is sized to the term count exactly and an insert or probe
//! touches one cache line. *Classic* (older buckets, read only): `k` probes by double hashing over
//! a power-of-two bit count.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

use crate::codec::Reader;
use crate::consts::{magic, BLOOM_BITS_PER_TERM, BLOOM_HASHES};
use crate::error::{IoContext, StoreError};

/// Flag in the stored `k` marking the blocked layout.
pub const BLOCKED: u32 = 1 << 16;
/// Flag in the stored `k` marking page checksums after the bits (blocked layout only).
pub const PAGED: u32 = 1 << 17;
/// Bytes of bits per checksummed page (64 blocks).
pub const PAGE_BYTES: usize = 4096;
/// Bytes of the body header (`k u32 | nbits u64`).
const HEADER: usize = 12;
/// Bits per block of the blocked layout (a 64-byte cache line).
const BLOCK_BITS: u64 = 512;
/// 64-bit words per block.
const BLOCK_WORDS: usize = (BLOCK_BITS / 64) as usize;
/// Most probes the blocked layout takes from one 64-bit hash (9 bits each).
const MAX_BLOCKED_K: u32 = 7;

/// Bloom filter: no false negatives; false positives at about 1 % with the default sizing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bloom {
    /// Number of probes per term.
    k: u32,
    /// Whether the layout is blocked (else classic).
    blocked: bool,
    /// Bit array as 64-bit words: a multiple of [`BLOCK_WORDS`] (blocked) or a power of two of
    /// bits (classic).
    words: Vec<u64>,
}

impl Bloom {
    /// An empty (blocked) filter sized for `terms` distinct terms.
    pub fn with_capacity(terms: u64) -> Self {
        let want = terms.max(1).saturating_mul(BLOOM_BITS_PER_TERM);
        let blocks = want.div_ceil(BLOCK_BITS).max(1);
        Bloom {
            k: BLOOM_HASHES.min(MAX_BLOCKED_K),
            blocked: true,
            words: vec![0; blocks as usize * BLOCK_WORDS],
        }
    }

    /// Calls `f` with the (word index, bit mask) pairs of `term` while it returns true.
    #[inline]
    fn probes(&self, term: &[u8], mut f: impl FnMut(usize, u64) -> bool) -> bool {
        let nwords = self.words.len();
        if self.blocked {
            let (block, h2) = blocked_slot(term, (nwords / BLOCK_WORDS) as u64);
            let first = block as usize * BLOCK_WORDS;
            block_probes(self.k, h2, |w, m| f(first + w, m))
        } else {
            let h = xxh3_128(term);
            let (h1, h2) = (h as u64, (h >> 64) as u64);
            let h2 = h2 | 1;
            let mask = (nwords as u64 * 64) - 1;
            (0..self.k as u64).all(|i| {
                let bit = h1.wrapping_add(i.wrapping_mul(h2)) & mask;
                f((bit / 64) as usize, 1 << (bit % 64))
            })
        }
    }

    /// Bytes of the bit array.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Adds a term.
    pub fn insert(&mut self, term: &[u8]) {
        let mut set = [(0usize, 0u64); 16];
        let mut n = 0;
        self.probes(term, |w, m| {
            set[n] = (w, m);
            n += 1;
            true
        });
        for &(w, m) in &set[..n] {
            self.words[w] |= m;
        }
    }

    /// A writer that fills this (blocked) filter with several inserts' cache misses in flight.
    pub fn writer(self) -> BloomWriter {
        debug_assert!(self.blocked, "only the blocked layout is written");
        BloomWriter {
            bloom: self,
            pending: [(0, 0); WRITER_LAG],
            n: 0,
        }
    }

    /// Whether the term may be present (false means certainly absent).
    pub fn may_contain(&self, term: &[u8]) -> bool {
        self.probes(term, |w, m| self.words[w] & m != 0)
    }

    /// Serialises the body (without footer); a blocked filter with its page checksums.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let put = |b: &[u8]| {
            out.extend_from_slice(b);
            Ok::<_, std::convert::Infallible>(())
        };
        match self.encode_with(put) {
            Ok(()) => {}
            Err(never) => match never {},
        }
    }

    /// [`Bloom::encode`] handing the body to `put` a page at a time, so that writing it to a
    /// file takes no second copy of the filter (a merged bucket's is megabytes, and it is
    /// written at the end of the merge, when the merge holds the most).
    pub fn encode_with<E>(&self, mut put: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        let k = if self.blocked {
            self.k | BLOCKED | PAGED
        } else {
            self.k
        };
        let mut head = [0u8; HEADER];
        head[..4].copy_from_slice(&k.to_le_bytes());
        head[4..].copy_from_slice(&(self.words.len() as u64 * 64).to_le_bytes());
        put(&head)?;
        let mut page = Vec::with_capacity(PAGE_BYTES);
        let mut sums = Vec::new();
        for words in self.words.chunks(PAGE_BYTES / 8) {
            page.clear();
            words
                .iter()
                .for_each(|w| page.extend_from_slice(&w.to_le_bytes()));
            if self.blocked {
                sums.extend_from_slice(&xxh3_64(&page).to_le_bytes());
            }
            put(&page)?;
        }
        put(&sums)
    }

    /// Parses a body written by [`Bloom::encode`] (any layout), checking every page checksum
    /// of a paged one.
    pub fn decode(body: &[u8]) -> Result<Self, &'static str> {
        let h = Header::parse(body, body.len() as u64)?;
        let bits = &body[HEADER..HEADER + h.bits_len as usize];
        if h.paged {
            let sums = &body[HEADER + bits.len()..];
            for (page, sum) in bits.chunks(PAGE_BYTES).zip(sums.chunks_exact(8)) {
                if xxh3_64(page).to_le_bytes() != sum {
                    return Err("bloom page fails its checksum");
                }
            }
        }
        let words = bits
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
            .collect();
        Ok(Bloom {
            k: h.k,
            blocked: h.blocked,
            words,
        })
    }
}

/// The block of `term` among `nblocks` and the hash its probes come from.
#[inline]
fn blocked_slot(term: &[u8], nblocks: u64) -> (u64, u64) {
    let h = xxh3_128(term);
    let (h1, h2) = (h as u64, (h >> 64) as u64);
    (((h1 as u128 * nblocks as u128) >> 64) as u64, h2)
}

/// Inserts a [`BloomWriter`] keeps in flight.
const WRITER_LAG: usize = 8;

/// Fills a blocked [`Bloom`] one term at a time, as a bucket's terms are written: each insert
/// finds its block and prefetches it, and sets its bits [`WRITER_LAG`] inserts later, so the
/// cache misses of several inserts overlap (a filter of millions of terms is far larger than
/// the cache, and a plain insert waits for its block). [`BloomWriter::finish`] sets the bits
/// still pending; the filter is only read after it.
pub struct BloomWriter {
    bloom: Bloom,
    /// `(first word of the block, probe hash)` of the last inserts, in a ring.
    pending: [(usize, u64); WRITER_LAG],
    /// Inserts so far.
    n: usize,
}

impl BloomWriter {
    /// Adds a term.
    pub fn insert(&mut self, term: &[u8]) {
        let nblocks = (self.bloom.words.len() / BLOCK_WORDS) as u64;
        let (block, h2) = blocked_slot(term, nblocks);
        let first = block as usize * BLOCK_WORDS;
        crate::terms::prefetch(self.bloom.words[first..].as_ptr());
        let slot = self.n % WRITER_LAG;
        if self.n >= WRITER_LAG {
            let (first, h2) = self.pending[slot];
            self.set(first, h2);
        }
        self.pending[slot] = (first, h2);
        self.n += 1;
    }

    /// The filter, with every term inserted.
    pub fn finish(mut self) -> Bloom {
        for i in self.n.saturating_sub(WRITER_LAG)..self.n {
            let (first, h2) = self.pending[i % WRITER_LAG];
            self.set(first, h2);
        }
        self.bloom
    }

    fn set(&mut self, first: usize, h2: u64) {
        let words = &mut self.bloom.words[first..first + BLOCK_WORDS];
        block_probes(self.bloom.k, h2, |w, m| {
            words[w] |= m;
            true
        });
    }
}

/// Calls `f` with the (word within the block, bit mask) of each of `k` probes while it returns
/// true.
#[inline]
fn block_probes(k: u32, h2: u64, mut f: impl FnMut(usize, u64) -> bool) -> bool {
    (0..k).all(|i| {
        let bit = (h2 >> (9 * i)) & (BLOCK_BITS - 1);
        f((bit / 64) as usize, 1 << (bit % 64))
    })
}

/// The parsed body header, checked against the body length.
struct Header {
    k: u32,
    blocked: bool,
    paged: bool,
    bits_len: u64,
}

impl Header {
    fn parse(body: &[u8], body_len: u64) -> Result<Header, &'static str> {
        let mut r = Reader::new(body);
        let stored_k = r.u32()?;
        let nbits = r.u64()?;
        let blocked = stored_k & BLOCKED != 0;
        let paged = stored_k & PAGED != 0;
        let k = stored_k & !(BLOCKED | PAGED);
        let max_k = if blocked { MAX_BLOCKED_K } else { 16 };
        if k == 0 || k > max_k || stored_k >> 18 != 0 || (paged && !blocked) {
            return Err("bloom probe count out of range");
        }
        let shape_ok = if blocked {
            nbits >= BLOCK_BITS && nbits % BLOCK_BITS == 0
        } else {
            nbits >= 64 && nbits.is_power_of_two()
        };
        let bits_len = nbits / 8;
        let sums_len = if paged {
            bits_len.div_ceil(PAGE_BYTES as u64) * 8
        } else {
            0
        };
        if !shape_ok || Some(body_len) != (HEADER as u64 + bits_len).checked_add(sums_len) {
            return Err("bloom bit count does not match the file");
        }
        Ok(Header {
            k,
            blocked,
            paged,
            bits_len,
        })
    }
}

/// A warm bucket's bloom filter as a search uses it: a paged filter is read one checked page
/// per lookup; an older one is read and verified whole at open.
#[derive(Debug)]
pub enum BloomFile {
    /// Read whole (layouts without page checksums).
    Loaded(Bloom),
    /// Read page by page.
    Paged {
        /// The file, for messages.
        path: PathBuf,
        /// The open file.
        file: File,
        /// Probes per term.
        k: u32,
        /// Bytes of bits.
        bits_len: u64,
    },
}

impl BloomFile {
    /// Opens `bloom.dat` at `path`: a paged filter checks its footer and header only.
    pub fn open(path: &Path) -> Result<BloomFile, StoreError> {
        let (file, body_len) = crate::footer::open_checked(path, magic::BLOOM)?;
        let mut head = [0u8; HEADER];
        if body_len >= HEADER as u64 {
            file.read_exact_at(&mut head, 0).at(path)?;
        }
        if u32::from_le_bytes(head[..4].try_into().expect("4")) & PAGED == 0 {
            let body = crate::footer::read_verified(path, magic::BLOOM)?;
            return Bloom::decode(&body)
                .map(BloomFile::Loaded)
                .map_err(|r| StoreError::corrupt(path, r));
        }
        let h = Header::parse(&head, body_len).map_err(|r| StoreError::corrupt(path, r))?;
        Ok(BloomFile::Paged {
            path: path.to_path_buf(),
            file,
            k: h.k,
            bits_len: h.bits_len,
        })
    }

    /// Whether `term` may be present (false means certainly absent). A page that cannot be
    /// read or fails its checksum answers "may be present" (the search then reads the bucket's
    /// lexicon, which reports damage itself) and is logged; fsck names it.
    pub fn may_contain(&self, term: &[u8]) -> bool {
        match self {
            BloomFile::Loaded(b) => b.may_contain(term),
            BloomFile::Paged {
                path,
                file,
                k,
                bits_len,
            } => {
                let (block, h2) = blocked_slot(term, bits_len / (BLOCK_BITS / 8));
                let at = block * (BLOCK_BITS / 8);
                let page = at / PAGE_BYTES as u64;
                let start = page * PAGE_BYTES as u64;
                let len = (bits_len - start).min(PAGE_BYTES as u64) as usize;
                let mut buf = [0u8; PAGE_BYTES];
                let mut sum = [0u8; 8];
                let sums_at = HEADER as u64 + bits_len + page * 8;
                let read = file
                    .read_exact_at(&mut buf[..len], HEADER as u64 + start)
                    .and_then(|()| file.read_exact_at(&mut sum, sums_at));
                if read.is_err() || xxh3_64(&buf[..len]).to_le_bytes() != sum {
                    tracing::warn!(
                        "{}: bloom page {page} cannot be read or fails its checksum",
                        path.display()
                    );
                    return true;
                }
                let off = (at - start) as usize;
                block_probes(*k, h2, |w, m| {
                    let b = &buf[off + w * 8..off + w * 8 + 8];
                    u64::from_le_bytes(b.try_into().expect("8")) & m != 0
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The writer's deferred inserts set exactly the bits of plain inserts, for term counts
    /// below, at and past its lag.
    #[test]
    fn writer_sets_the_bits_of_plain_inserts() {
        for n in [0, 1, WRITER_LAG - 1, WRITER_LAG, WRITER_LAG + 1, 1000] {
            let terms: Vec<String> = (0..n).map(|i| format!("term{i}")).collect();
            let mut plain = Bloom::with_capacity(n as u64);
            let mut w = Bloom::with_capacity(n as u64).writer();
            for t in &terms {
                plain.insert(t.as_bytes());
                w.insert(t.as_bytes());
            }
            let written = w.finish();
            assert_eq!(written, plain, "{n} terms");
            assert!(terms.iter().all(|t| written.may_contain(t.as_bytes())));
        }
    }

    /// A classic filter as older buckets hold (the layout is still read).
    fn classic(terms: &[&[u8]]) -> Bloom {
        let nbits = (terms.len() as u64 * 10).max(64).next_power_of_two();
        let mut b = Bloom {
            k: 7,
            blocked: false,
            words: vec![0; (nbits / 64) as usize],
        };
        for t in terms {
            b.insert(t);
        }
        b
    }

    proptest! {
        #[test]
        fn no_false_negatives(terms in proptest::collection::vec("[a-z0-9:.]{1,12}", 0..300)) {
            let mut b = Bloom::with_capacity(terms.len() as u64);
            for t in &terms { b.insert(t.as_bytes()); }
            let mut buf = Vec::new();
            b.encode(&mut buf);
            let b2 = Bloom::decode(&buf).unwrap();
            prop_assert_eq!(&b2, &b);
            for t in &terms { prop_assert!(b2.may_contain(t.as_bytes())); }
        }
    }

    proptest! {
        #[test]
        fn paged_file_answers_like_the_filter(
            terms in proptest::collection::vec("[a-z0-9:.]{1,12}", 0..3000),
            probes in proptest::collection::vec("[a-z0-9:.]{1,12}", 0..200),
        ) {
            let mut b = Bloom::with_capacity(terms.len() as u64);
            for t in &terms { b.insert(t.as_bytes()); }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("bloom.dat");
            let mut buf = Vec::new();
            b.encode(&mut buf);
            crate::footer::append_footer(&mut buf, magic::BLOOM);
            crate::footer::write_file(&path, &buf).unwrap();
            let f = BloomFile::open(&path).unwrap();
            let paged = matches!(f, BloomFile::Paged { .. });
            prop_assert!(paged);
            for t in terms.iter().chain(&probes) {
                prop_assert_eq!(f.may_contain(t.as_bytes()), b.may_contain(t.as_bytes()));
            }
        }
    }

    #[test]
    fn a_damaged_page_never_hides_a_term() {
        let mut b = Bloom::with_capacity(5000);
        let terms: Vec<String> = (0..5000).map(|i| format!("t{i}")).collect();
        terms.iter().for_each(|t| b.insert(t.as_bytes()));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bloom.dat");
        let mut buf = Vec::new();
        b.encode(&mut buf);
        // Clear every bit of the first page: its checksum no longer matches.
        buf[HEADER..HEADER + PAGE_BYTES].fill(0);
        assert!(Bloom::decode(&buf).is_err());
        crate::footer::append_footer(&mut buf, magic::BLOOM);
        crate::footer::write_file(&path, &buf).unwrap();
        let f = BloomFile::open(&path).unwrap();
        assert!(terms.iter().all(|t| f.may_contain(t.as_bytes())));
    }

    #[test]
    fn classic_layout_still_reads() {
        let terms: Vec<Vec<u8>> = (0..500).map(|i| format!("t{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = terms.iter().map(|t| t.as_slice()).collect();
        let b = classic(&refs);
        let mut buf = Vec::new();
        b.encode(&mut buf);
        assert_eq!(u32::from_le_bytes(buf[..4].try_into().unwrap()), 7);
        let b2 = Bloom::decode(&buf).unwrap();
        assert!(refs.iter().all(|t| b2.may_contain(t)));
    }

    #[test]
    fn sized_to_the_term_count() {
        // 100 000 terms at 10 bits: 1 000 448 bits (whole blocks), not 2^21.
        let b = Bloom::with_capacity(100_000);
        assert_eq!(b.words.len() as u64 * 64, 1_000_448);
    }

    #[test]
    fn damaged_headers_are_refused() {
        let mut buf = Vec::new();
        Bloom::with_capacity(10).encode(&mut buf);
        let mut bad = buf.clone();
        bad[..4].copy_from_slice(&(8 | BLOCKED | PAGED).to_le_bytes());
        assert!(Bloom::decode(&bad).is_err());
        let mut bad = buf.clone();
        bad[..4].copy_from_slice(&(7 | PAGED).to_le_bytes());
        assert!(Bloom::decode(&bad).is_err());
        let mut bad = buf.clone();
        bad[4..12].copy_from_slice(&(1000u64).to_le_bytes());
        assert!(Bloom::decode(&bad).is_err());
        assert!(Bloom::decode(&buf[..20]).is_err());
    }

    #[test]
    fn false_positive_rate_is_low() {
        let mut b = Bloom::with_capacity(10_000);
        for i in 0..10_000 {
            b.insert(format!("term{i}").as_bytes());
        }
        let fp = (0..10_000)
            .filter(|i| b.may_contain(format!("other{i}").as_bytes()))
            .count();
        assert!(fp < 200, "{fp} false positives out of 10000");
    }
}
