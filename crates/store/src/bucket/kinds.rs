//! Kinds: which of a bucket's sourcetypes the events holding a term have, as a 64-bit mask the
//! lexicon keeps beside the term's postings pointer ([`crate::consts::KINDS_FLAG`],
//! docs/format/lexicon.md).
//!
//! Bit `i` stands for the bucket's `i`-th `sourcetype::…` term in term order, for `i` below 63;
//! bit 63 for every later one, and for an event without such a term (the indexer gives every
//! event one). A term's mask has the bit of each of its events, so two terms whose masks share
//! no bit are in no event together. Different kinds of data have different words: an `And` of
//! an access log's `khtml` and a Java log's `validate` is answered from the lexicon alone,
//! without reading either list, and so is `sourcetype=x word` when no event of `x` has the word
//! (`lode_store::query`, rule KINDS). Whatever the bits stand for, the rule holds as long as
//! every mask of a bucket is made from the same [`EventKinds`].

/// The bit shared by the sourcetypes after the 63rd.
const OTHER: u8 = 63;

/// Prefix of the terms that give an event its kind.
pub(crate) const SOURCETYPE_PREFIX: &[u8] = b"sourcetype::";

/// The kind of each event of a bucket being written, from which the terms writer makes each
/// term's mask.
pub(crate) struct EventKinds {
    /// The bit of each event; emptied by [`EventKinds::seal`] when every event has the same one.
    of: Vec<u8>,
    /// Every bit some event has (set by [`EventKinds::seal`]).
    all: u64,
}

impl EventKinds {
    /// `events` events, each of kind 63 until marked.
    pub fn new(events: u32) -> EventKinds {
        EventKinds {
            of: vec![OTHER; events as usize],
            all: 0,
        }
    }

    /// Gives the events `nums` the bit of the `kind`-th sourcetype term (in term order).
    /// Numbers past the bucket's events are ignored.
    pub fn mark(&mut self, kind: usize, nums: impl Iterator<Item = u32>) {
        let bit = kind.min(OTHER as usize) as u8;
        for n in nums {
            if let Some(k) = self.of.get_mut(n as usize) {
                *k = bit;
            }
        }
    }

    /// Ends the marking: notes which bits occur, and when only one does, lets the events' bits
    /// go (every mask is then that bit).
    pub fn seal(mut self) -> EventKinds {
        self.all = self.of.iter().fold(0u64, |a, &k| a | 1 << k);
        if self.all.count_ones() <= 1 {
            self.of = Vec::new();
        }
        self
    }

    /// The mask of a term whose events are `list` (ascending, within the bucket): the bits of
    /// their kinds. Stops early once every kind is seen.
    pub fn mask(&self, list: &[u32]) -> u64 {
        if self.of.is_empty() {
            return self.all;
        }
        let mut m = 0u64;
        for part in list.chunks(256) {
            for &n in part {
                m |= 1 << self.of.get(n as usize).copied().unwrap_or(OTHER);
            }
            if m == self.all {
                break;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mask_has_the_bit_of_each_event_of_its_term() {
        // Events 0..10: kinds a (even) and b (odd); event 9 unmarked.
        let mut k = EventKinds::new(10);
        k.mark(0, [0, 2, 4, 6, 8].into_iter());
        k.mark(1, [1, 3, 5, 7, 99].into_iter());
        let k = k.seal();
        assert_eq!(k.all, 0b11 | 1 << 63);
        assert_eq!(k.mask(&[2, 4]), 0b01);
        assert_eq!(k.mask(&[3]), 0b10);
        assert_eq!(k.mask(&[1, 2]), 0b11);
        assert_eq!(k.mask(&[8, 9]), 0b01 | 1 << 63);
        assert_eq!(k.mask(&[]), 0);
        // Sourcetypes past the 63rd share bit 63.
        let mut k = EventKinds::new(100);
        for kind in 0..100 {
            k.mark(kind, std::iter::once(kind as u32));
        }
        let k = k.seal();
        assert_eq!(k.all, u64::MAX);
        assert_eq!(k.mask(&[62]), 1 << 62);
        assert_eq!(k.mask(&[63, 99]), 1 << 63);
    }

    #[test]
    fn one_kind_gives_every_term_its_bit() {
        let mut k = EventKinds::new(1000);
        k.mark(0, 0..1000);
        let k = k.seal();
        assert!(k.of.is_empty());
        assert_eq!(k.mask(&[5, 999]), 1);
        // An empty bucket: no kind at all.
        assert_eq!(EventKinds::new(0).seal().mask(&[]), 0);
    }
}
