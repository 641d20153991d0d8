//! A bloom filter over the terms of a bucket (xxh3).
//! See docs/format/bloom.md: `k u32 | nbits u64 | bits[nbits/8]` then the footer.
//!
//! Two layouts share the body. *Blocked* (written now, flag [`BLOCKED`] in `k`): each term sets
//! its `k` bits inside one 512-bit block (one cache line), chosen by multiply-shift over any
//! number of blocks, so the filter is sized to the term count exactly and an insert or probe
//! touches one cache line. *Classic* (older buckets, read only): `k` probes by double hashing over
//! a power-of-two bit count.

use xxhash_rust::xxh3::xxh3_128;

use crate::codec::Reader;
use crate::consts::{BLOOM_BITS_PER_TERM, BLOOM_HASHES};

/// Flag in the stored `k` marking the blocked layout.
pub const BLOCKED: u32 = 1 << 16;
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
        let h = xxh3_128(term);
        let (h1, h2) = (h as u64, (h >> 64) as u64);
        let nwords = self.words.len();
        if self.blocked {
            let blocks = (nwords / BLOCK_WORDS) as u64;
            let block = ((h1 as u128 * blocks as u128) >> 64) as usize * BLOCK_WORDS;
            (0..self.k).all(|i| {
                let bit = (h2 >> (9 * i)) & (BLOCK_BITS - 1);
                f(block + (bit / 64) as usize, 1 << (bit % 64))
            })
        } else {
            let h2 = h2 | 1;
            let mask = (nwords as u64 * 64) - 1;
            (0..self.k as u64).all(|i| {
                let bit = h1.wrapping_add(i.wrapping_mul(h2)) & mask;
                f((bit / 64) as usize, 1 << (bit % 64))
            })
        }
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

    /// Whether the term may be present (false means certainly absent).
    pub fn may_contain(&self, term: &[u8]) -> bool {
        self.probes(term, |w, m| self.words[w] & m != 0)
    }

    /// Serialises the body (without footer).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let k = if self.blocked {
            self.k | BLOCKED
        } else {
            self.k
        };
        out.extend_from_slice(&k.to_le_bytes());
        out.extend_from_slice(&(self.words.len() as u64 * 64).to_le_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    /// Parses a body written by [`Bloom::encode`] (either layout).
    pub fn decode(body: &[u8]) -> Result<Self, &'static str> {
        let mut r = Reader::new(body);
        let stored_k = r.u32()?;
        let nbits = r.u64()?;
        let blocked = stored_k & BLOCKED != 0;
        let k = stored_k & !BLOCKED;
        let max_k = if blocked { MAX_BLOCKED_K } else { 16 };
        if k == 0 || k > max_k || stored_k >> 17 != 0 {
            return Err("bloom probe count out of range");
        }
        let shape_ok = if blocked {
            nbits >= BLOCK_BITS && nbits % BLOCK_BITS == 0
        } else {
            nbits >= 64 && nbits.is_power_of_two()
        };
        if !shape_ok || nbits / 8 != (body.len() as u64 - 12) {
            return Err("bloom bit count does not match the file");
        }
        let words = body[12..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
            .collect();
        Ok(Bloom { k, blocked, words })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
        bad[..4].copy_from_slice(&(8 | BLOCKED).to_le_bytes());
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
