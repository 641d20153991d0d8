//! The term index's big table: `(arena offset, 32-bit hash)` pairs in open addressing with
//! linear probing, so a flush can prefetch the slots of the terms a few places ahead (a probe
//! of a table of tens of MB is a cache miss, and hashbrown's buckets are not addressable
//! before the lookup).
//!
//! A slot is `offset << 32 | hash`, or [`EMPTY`]. A term's probe starts at its hash's low bits
//! and walks on until its slot or an empty one: the 32-bit hash compared first filters all but
//! about one term in 4 billion before the arena is read. The table grows (doubling, rehashing
//! from the stored hashes, never reading the arena) before it is more than 7/8 full, as
//! hashbrown does; probes stay short because eight slots share a cache line.

use super::prefetch;

/// No term in this slot (no arena offset reaches `u32::MAX`: the arena stays below it).
const EMPTY: u64 = u64::MAX;

/// Open-addressing table of `(arena offset, hash)` slots.
#[derive(Default)]
pub(super) struct Table {
    /// A power of two of slots (none before the first insert).
    slots: Vec<u64>,
    /// Occupied slots.
    len: usize,
}

impl Table {
    #[inline]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The arena offset of the term with hash `h` for which `is(offset)` holds, if any.
    #[inline]
    pub fn find(&self, h: u32, mut is: impl FnMut(usize) -> bool) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.mask();
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return None;
            }
            if s as u32 == h && is((s >> 32) as usize) {
                return Some((s >> 32) as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// The arena offset in the first slot of `h`'s probe holding hash `h`, without comparing
    /// terms (for prefetching the arena entry a [`Table::find`] will read).
    #[inline]
    pub fn first_candidate(&self, h: u32) -> Option<usize> {
        self.find(h, |_| true)
    }

    /// Hints the CPU to load the slot where `h`'s probe starts.
    #[inline]
    pub fn prefetch(&self, h: u32) {
        if let Some(s) = self.slots.get(h as usize & self.mask()) {
            prefetch(s);
        }
    }

    /// Adds a term known to be absent: its arena offset `at` (below `u32::MAX`) and hash `h`.
    pub fn insert_unique(&mut self, h: u32, at: u32) {
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.grow();
        }
        self.put((at as u64) << 32 | h as u64);
        self.len += 1;
    }

    /// Doubles the slots (16 at first) and puts every term back, from its stored hash.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        for s in old.into_iter().filter(|&s| s != EMPTY) {
            self.put(s);
        }
    }

    /// Writes slot `s` into the first empty slot of its hash's probe (there is one: the table
    /// is never full).
    fn put(&mut self, s: u64) {
        let mask = self.mask();
        let mut i = s as u32 as usize & mask;
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = s;
    }

    /// Bytes of memory held.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every term inserted is found at its offset, however the hashes collide (a few bits
        /// of hash for many terms forces long probes and wrap-around); absent ones are not.
        #[test]
        fn finds_what_was_inserted(
            hashes in proptest::collection::vec(0u32..64, 0..300),
            high in proptest::bool::ANY,
        ) {
            let spread = |h: u32| if high { h.rotate_right(6) } else { h };
            let mut t = Table::default();
            for (at, &h) in hashes.iter().enumerate() {
                t.insert_unique(spread(h), at as u32);
            }
            for (at, &h) in hashes.iter().enumerate() {
                proptest::prop_assert_eq!(t.find(spread(h), |o| o == at), Some(at));
                let first = t.first_candidate(spread(h)).expect("present");
                proptest::prop_assert_eq!(spread(hashes[first]), spread(h));
            }
            proptest::prop_assert_eq!(t.find(spread(64), |_| true), None);
            proptest::prop_assert_eq!(t.find(spread(3), |o| o == hashes.len()), None);
            proptest::prop_assert!(t.len * 8 <= t.slots.len() * 7);
        }
    }
}
