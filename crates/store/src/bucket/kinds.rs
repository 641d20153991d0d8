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

use crate::bucket::warm::{BlockScratch, WarmBucket};
use crate::bucket::BucketRead;
use crate::error::StoreError;
use crate::terms::lexicon::LexScratch;

/// The bit shared by the sourcetypes after the 63rd.
const OTHER: u8 = 63;

/// Prefix of the terms that give an event its kind.
pub(crate) const SOURCETYPE_PREFIX: &[u8] = b"sourcetype::";

/// The kind of each event of a bucket being written, from which the terms writer makes each
/// term's mask.
///
/// Events of one kind come in long stretches (a batch from one source), so the kinds are held
/// as runs, a few bytes per batch; when they alternate more often than one run per 16 events
/// (a batch of mixed sourcetypes), as a byte per event instead.
pub(crate) struct EventKinds {
    events: u32,
    of: Of,
    /// Every bit some event has (set by [`EventKinds::seal`]).
    all: u64,
}

enum Of {
    /// Marked so far: `(first, end, bit)` of each stretch of consecutive events marked with one
    /// kind, in the order marked. Sealed: `(first, bit)` of runs covering every event,
    /// ascending, each lasting until the next one's first (`end` unused).
    Runs(Vec<(u32, u32, u8)>),
    /// The bit of each event.
    Bytes(Vec<u8>),
    /// Sealed with at most one bit: every mask is `all`.
    One,
}

impl EventKinds {
    /// `events` events, each of kind 63 until marked.
    pub fn new(events: u32) -> EventKinds {
        EventKinds {
            events,
            of: Of::Runs(Vec::new()),
            all: 0,
        }
    }

    /// Gives the events `nums` the bit of the `kind`-th sourcetype term (in term order).
    /// Numbers past the bucket's events are ignored.
    pub fn mark(&mut self, kind: usize, nums: impl Iterator<Item = u32>) {
        let bit = kind.min(OTHER as usize) as u8;
        for n in nums.filter(|&n| n < self.events) {
            match &mut self.of {
                Of::Runs(runs) => {
                    match runs.last_mut() {
                        Some((_, end, b)) if *end == n && *b == bit => *end += 1,
                        _ => runs.push((n, n + 1, bit)),
                    }
                    if runs.len() > (self.events / 16).max(64) as usize {
                        let mut of = vec![OTHER; self.events as usize];
                        for &(first, end, b) in runs.iter() {
                            of[first as usize..end as usize].fill(b);
                        }
                        self.of = Of::Bytes(of);
                    }
                }
                Of::Bytes(of) => of[n as usize] = bit,
                Of::One => unreachable!("marked after sealing"),
            }
        }
    }

    /// Ends the marking: notes which bits occur, and when only one does, lets the events' bits
    /// go (every mask is then that bit).
    pub fn seal(mut self) -> EventKinds {
        match &mut self.of {
            Of::Runs(marked) => {
                // Where stretches overlap (an event of two sourcetype terms, which the indexer
                // never makes), the one starting first keeps the event.
                marked.sort_by_key(|&(first, _, _)| first);
                let mut runs: Vec<(u32, u32, u8)> = Vec::with_capacity(marked.len() + 1);
                let mut at = 0;
                for &(first, end, bit) in marked.iter() {
                    if first > at {
                        runs.push((at, 0, OTHER));
                    }
                    if end > at {
                        runs.push((first.max(at), 0, bit));
                        at = end;
                    }
                }
                if at < self.events {
                    runs.push((at, 0, OTHER));
                }
                runs.dedup_by(|next, prev| next.2 == prev.2);
                self.all = runs.iter().fold(0u64, |a, &(_, _, k)| a | 1 << k);
                *marked = runs;
            }
            Of::Bytes(of) => self.all = of.iter().fold(0u64, |a, &k| a | 1 << k),
            Of::One => {}
        }
        if self.all.count_ones() <= 1 {
            self.of = Of::One;
        }
        self
    }

    /// Every bit some event has.
    pub fn all(&self) -> u64 {
        self.all
    }

    /// `(first, end, bit)` of runs of events of one kind covering every event, ascending
    /// (sealed kinds only).
    pub fn runs(&self) -> Vec<(u32, u32, u8)> {
        match &self.of {
            Of::One if self.events == 0 => Vec::new(),
            Of::One => vec![(0, self.events, self.all.trailing_zeros().min(63) as u8)],
            Of::Runs(runs) => runs
                .iter()
                .enumerate()
                .map(|(i, &(first, _, bit))| {
                    (first, runs.get(i + 1).map_or(self.events, |r| r.0), bit)
                })
                .collect(),
            Of::Bytes(of) => {
                let mut out: Vec<(u32, u32, u8)> = Vec::new();
                for (n, &bit) in of.iter().enumerate() {
                    match out.last_mut() {
                        Some((_, end, b)) if *b == bit => *end = n as u32 + 1,
                        _ => out.push((n as u32, n as u32 + 1, bit)),
                    }
                }
                out
            }
        }
    }

    /// The mask of a term whose events are `list` (ascending, within the bucket): the bits of
    /// their kinds. Stops early once every kind is seen.
    pub fn mask(&self, list: &[u32]) -> u64 {
        let mut m = 0u64;
        match &self.of {
            Of::One => return self.all,
            Of::Bytes(of) => {
                for part in list.chunks(256) {
                    for &n in part {
                        m |= 1 << of.get(n as usize).copied().unwrap_or(OTHER);
                    }
                    if m == self.all {
                        break;
                    }
                }
            }
            Of::Runs(runs) => {
                // The run holding `n` and where the next one starts.
                let find = |n: u32| {
                    let r = runs.partition_point(|&(first, _, _)| first <= n).max(1) - 1;
                    (runs[r].2, runs.get(r + 1).map_or(u32::MAX, |x| x.0))
                };
                let mut next = 0;
                for &n in list {
                    if n >= next {
                        let (bit, end) = find(n);
                        m |= 1 << bit;
                        if m == self.all {
                            break;
                        }
                        next = end;
                    }
                }
            }
        }
        m
    }
}

/// The kinds of the events of warm buckets laid end to end, each `(bucket, base)` numbering its
/// events from `base` (a merge's sources; one bucket from 0 for `fsck`): the `sourcetype::…`
/// terms of them all, in term order, each with every bucket's events.
pub(crate) fn of_buckets(buckets: &[(&WarmBucket, u32)]) -> Result<EventKinds, StoreError> {
    let mut held: Vec<(Vec<u8>, usize, u64)> = Vec::new();
    for (k, (b, _)) in buckets.iter().enumerate() {
        b.lexicon()?.walk(
            SOURCETYPE_PREFIX,
            &mut LexScratch::default(),
            &mut |t, value| {
                let more = t.starts_with(SOURCETYPE_PREFIX);
                if more {
                    held.push((t.to_vec(), k, value));
                }
                Ok(more)
            },
        )?;
    }
    held.sort_unstable();
    let events: u64 = buckets.iter().map(|(b, _)| b.meta().event_count).sum();
    let events = u32::try_from(events)
        .map_err(|_| StoreError::Limit(format!("{events} events in one bucket")))?;
    let mut kinds = EventKinds::new(events);
    let mut kind = 0;
    for (i, (term, k, value)) in held.iter().enumerate() {
        if i > 0 && held[i - 1].0 != *term {
            kind += 1;
        }
        let (b, base) = buckets[*k];
        // A scratch of its own: a scratch keeps the block it read by number, whatever bucket.
        let list = b.postings_at(*value, &mut BlockScratch::default())?;
        kinds.mark(kind, list.iter().map(|n| n.saturating_add(base)));
    }
    Ok(kinds.seal())
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
        assert!(matches!(k.of, Of::One));
        assert_eq!(k.mask(&[5, 999]), 1);
        // An empty bucket: no kind at all.
        assert_eq!(EventKinds::new(0).seal().mask(&[]), 0);
    }

    proptest::proptest! {
        /// Held as runs or as bytes, a mask is the OR of its events' bits (an unmarked event's
        /// is bit 63).
        #[test]
        fn a_mask_is_the_or_of_its_events_bits(
            stretches in proptest::collection::vec((0usize..80, 1u32..40), 0..200),
            lists in proptest::collection::vec(proptest::collection::btree_set(0u32..3000, 0..50), 1..10),
        ) {
            // Each stretch: a kind (70 and above: unmarked) over that many events.
            let mut of = Vec::new();
            for &(kind, len) in &stretches {
                of.extend(std::iter::repeat_n(kind, len as usize));
            }
            let events = of.len() as u32;
            let mut k = EventKinds::new(events);
            for kind in 0..70 {
                k.mark(kind, (0..events).filter(|&n| of[n as usize] == kind));
            }
            let k = k.seal();
            let bit = |n: u32| 1u64 << of.get(n as usize).map_or(OTHER as usize, |&k| k.min(63));
            for list in lists {
                let list: Vec<u32> = list.into_iter().filter(|&n| n < events).collect();
                let want = list.iter().fold(0u64, |m, &n| m | bit(n));
                // A single kind gives its bit even to an empty list.
                let got = k.mask(&list);
                proptest::prop_assert!(got == want || (list.is_empty() && got == k.all));
            }
        }
    }
}
