//! A classic bloom filter over the terms of a bucket (xxh3, double hashing).
//! See docs/format/bloom.md: `k u32 | nbits u64 | bits[nbits/8]` then the footer.

use xxhash_rust::xxh3::xxh3_128;

use crate::codec::Reader;
use crate::consts::{BLOOM_BITS_PER_TERM, BLOOM_HASHES};

/// Bloom filter: no false negatives; false positives at about 1 % with the default sizing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bloom {
    /// Number of probes per term.
    k: u32,
    /// Bit array as 64-bit words; its length in bits is a power of two.
    words: Vec<u64>,
}

impl Bloom {
    /// An empty filter sized for `terms` distinct terms.
    pub fn with_capacity(terms: u64) -> Self {
        let want = (terms.max(1) * BLOOM_BITS_PER_TERM).max(64);
        let nbits = want.next_power_of_two();
        Bloom {
            k: BLOOM_HASHES,
            words: vec![0; (nbits / 64) as usize],
        }
    }

    #[inline]
    fn probes(&self, term: &[u8]) -> impl Iterator<Item = usize> {
        let h = xxh3_128(term);
        let (h1, h2) = (h as u64, ((h >> 64) as u64) | 1);
        let mask = (self.words.len() as u64 * 64) - 1;
        (0..self.k as u64).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) & mask) as usize)
    }

    /// Adds a term.
    pub fn insert(&mut self, term: &[u8]) {
        let h = xxh3_128(term);
        let (h1, h2) = (h as u64, ((h >> 64) as u64) | 1);
        let mask = (self.words.len() as u64 * 64) - 1;
        for i in 0..self.k as u64 {
            let bit = (h1.wrapping_add(i.wrapping_mul(h2)) & mask) as usize;
            self.words[bit / 64] |= 1 << (bit % 64);
        }
    }

    /// Whether the term may be present (false means certainly absent).
    pub fn may_contain(&self, term: &[u8]) -> bool {
        self.probes(term)
            .all(|bit| self.words[bit / 64] & (1 << (bit % 64)) != 0)
    }

    /// Serialises the body (without footer).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&(self.words.len() as u64 * 64).to_le_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    /// Parses a body written by [`Bloom::encode`].
    pub fn decode(body: &[u8]) -> Result<Self, &'static str> {
        let mut r = Reader::new(body);
        let k = r.u32()?;
        let nbits = r.u64()?;
        if k == 0 || k > 16 {
            return Err("bloom probe count out of range");
        }
        if nbits < 64 || !nbits.is_power_of_two() || nbits / 8 != (body.len() as u64 - 12) {
            return Err("bloom bit count does not match the file");
        }
        let words = body[12..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
            .collect();
        Ok(Bloom { k, words })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn no_false_negatives(terms in proptest::collection::vec("[a-z0-9:.]{1,12}", 0..300)) {
            let mut b = Bloom::with_capacity(terms.len() as u64);
            for t in &terms { b.insert(t.as_bytes()); }
            let mut buf = Vec::new();
            b.encode(&mut buf);
            let b2 = Bloom::decode(&buf).unwrap();
            for t in &terms { prop_assert!(b2.may_contain(t.as_bytes())); }
        }
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
        assert!(fp < 300, "{fp} false positives out of 10000");
    }
}
