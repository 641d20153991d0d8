//! Decoded postings: the numbers of a deltas or runs entry turned into a roaring bitmap, each
//! container allocated once at its final size and in its smallest form.
//!
//! The library's builders (`insert_range`, `from_sorted_iter`, `push`) look up the container of
//! each number or run and grow arrays by doubling: decoding a term's list that way cost 5–10 ns
//! per number (`cargo bench -p lode-store --bench postings`), and was the largest item of the
//! 10 GB service scenario's profile. Here the numbers of one 2^16-number container are gathered
//! at a time (as an array, or as bits once it holds more than an array's 4096 numbers or starts
//! denser than that), counting its runs; when the container is complete its form is chosen as
//! the library's `optimize` would (runs, an array, or an 8 KiB bitmap, whichever is smallest)
//! and written in the portable serialization, which the library then reads into containers of
//! exactly that size.

use roaring::RoaringBitmap;

/// `SERIAL_COOKIE` of the roaring format: a serialization that has run containers.
const COOKIE_RUNS: u32 = 12347;
/// `SERIAL_COOKIE_NO_RUNCONTAINER`.
const COOKIE_NO_RUNS: u32 = super::ROARING_COOKIE;
/// Containers from which a serialization with run containers lists their offsets.
const OFFSETS_FROM: usize = 4;
/// Most numbers of an array container.
const ARRAY_MAX: u32 = 4096;
/// Bytes of a bitmap container.
const BITMAP_BYTES: usize = 8192;

/// Gathers ascending numbers and runs into the portable serialization of their bitmap.
pub(super) struct Build {
    /// `(key, cardinality − 1)` of each complete container, as the serialization lists them.
    descs: Vec<u8>,
    /// Whether each complete container is a run container.
    runs_flags: Vec<bool>,
    /// Bytes of each complete container.
    sizes: Vec<u32>,
    /// The complete containers, serialized, then the open one's numbers while it is an array.
    body: Vec<u8>,
    /// Key of the open container; `u32::MAX` before the first number.
    key: u32,
    /// Numbers in the open container.
    card: u32,
    /// Runs of consecutive numbers in the open container.
    nruns: u32,
    /// Low 16 bits of the open container's largest number.
    last: u16,
    /// The open container's bits, once it holds more than an array's numbers (or from its
    /// first numbers, when they come denser than that).
    words: Option<Box<[u64; 1024]>>,
    /// Where the open container's numbers start in `body` (while it is an array).
    open_at: usize,
}

impl Default for Build {
    fn default() -> Self {
        Build {
            descs: Vec::new(),
            runs_flags: Vec::new(),
            sizes: Vec::new(),
            body: Vec::new(),
            key: u32::MAX,
            card: 0,
            nruns: 0,
            last: 0,
            words: None,
            open_at: 0,
        }
    }
}

/// The bitmap of what `fill` pushes into a new builder whose body has room for `body_bytes`
/// (what the caller expects the containers to take: sized once, a long list's body is one
/// allocation, not a doubling series that leaves freed pieces in the allocator's arenas).
pub(super) fn build(
    body_bytes: usize,
    fill: impl FnOnce(&mut Build) -> Result<(), String>,
) -> Result<RoaringBitmap, String> {
    let mut b = Build {
        body: Vec::with_capacity(body_bytes),
        ..Build::default()
    };
    fill(&mut b)?;
    b.finish()
}

impl Build {
    /// Makes `key`'s container the open one, closing the one before.
    #[inline]
    fn open(&mut self, key: u32) {
        if key != self.key {
            self.close();
            self.key = key;
            self.open_at = self.body.len();
        }
    }

    /// Adds `nums` (ascending, above every number added so far; the callers check what they
    /// read before they push).
    pub(super) fn push_sorted(&mut self, mut nums: &[u32]) {
        while let Some(&first) = nums.first() {
            let key = first >> 16;
            let n = nums.partition_point(|&x| x >> 16 == key);
            let (these, rest) = nums.split_at(n);
            nums = rest;
            self.open(key);
            // Before the container's first number: two below any low half, so it starts a run.
            let mut prev = if self.card == 0 {
                -2
            } else {
                i32::from(self.last)
            };
            let mut breaks = 0;
            for &x in these {
                let low = (x & 0xffff) as i32;
                breaks += u32::from(low != prev + 1);
                prev = low;
            }
            self.nruns += breaks;
            self.last = prev as u16;
            // A container that starts as densely as a bitmap's (more than one number in 16)
            // is built as one from its first number: filling an array to convert it at 4096
            // numbers cost a common term's decode a quarter of its time.
            if self.card == 0 && self.words.is_none() && n > 1 {
                let span = (these[n - 1] - these[0]) as usize + 1;
                if n * 16 > span && n * 16 >= ARRAY_MAX as usize {
                    self.words = Some(Box::new([0; 1024]));
                }
            }
            self.card += n as u32;
            if self.words.is_none() && self.card > ARRAY_MAX {
                self.array_into_words();
            }
            if let Some(words) = &mut self.words {
                for &x in these {
                    let low = (x & 0xffff) as usize;
                    words[low / 64] |= 1 << (low % 64);
                }
            } else {
                let at = self.body.len();
                self.body.resize(at + 2 * n, 0);
                for (to, &x) in self.body[at..].chunks_exact_mut(2).zip(these) {
                    to.copy_from_slice(&(x as u16).to_le_bytes());
                }
            }
        }
    }

    /// Adds `first..=last`, which must lie above every number added so far.
    pub(super) fn push_run(&mut self, mut first: u32, last: u32) {
        debug_assert!(first <= last);
        loop {
            let key = first >> 16;
            let end = last.min(key << 16 | 0xffff);
            self.open(key);
            let (lo, hi) = (first as u16, end as u16);
            let joins = self.card > 0 && u32::from(self.last) + 1 == u32::from(lo);
            self.nruns += u32::from(!joins);
            self.last = hi;
            self.card += u32::from(hi - lo) + 1;
            if self.words.is_none() && self.card > ARRAY_MAX {
                self.array_into_words();
            }
            if let Some(words) = &mut self.words {
                set_bits(words, usize::from(lo), usize::from(hi));
            } else {
                let at = self.body.len();
                self.body.resize(at + 2 * usize::from(hi - lo) + 2, 0);
                for (to, x) in self.body[at..].chunks_exact_mut(2).zip(lo..=hi) {
                    to.copy_from_slice(&x.to_le_bytes());
                }
            }
            if end == last {
                return;
            }
            first = end + 1;
        }
    }

    /// Turns the open container's array (at the end of `body`) into bits.
    fn array_into_words(&mut self) {
        let words = self.words.insert(Box::new([0; 1024]));
        for v in self.body[self.open_at..].chunks_exact(2) {
            let low = usize::from(u16::from_le_bytes([v[0], v[1]]));
            words[low / 64] |= 1 << (low % 64);
        }
        self.body.truncate(self.open_at);
    }

    /// Writes the open container, if any, in its smallest form: runs when those are smaller
    /// than the array or the bitmap it was built as.
    fn close(&mut self) {
        if self.card == 0 {
            return;
        }
        let as_runs = 2 + 4 * self.nruns as usize;
        let mut words = self.words.take();
        if self.card <= ARRAY_MAX {
            // Built as a bitmap from a dense start, but an array's worth in the end.
            if let Some(w) = words.take() {
                for (i, &w) in w.iter().enumerate() {
                    let mut w = w;
                    while w != 0 {
                        let low = (i * 64) as u16 | w.trailing_zeros() as u16;
                        self.body.extend_from_slice(&low.to_le_bytes());
                        w &= w - 1;
                    }
                }
            }
        }
        let as_values = if words.is_some() {
            BITMAP_BYTES
        } else {
            2 * self.card as usize
        };
        let is_runs = as_runs < as_values;
        if is_runs {
            let runs = match &words {
                Some(w) => runs_of_words(w),
                None => runs_of_array(&self.body[self.open_at..]),
            };
            debug_assert_eq!(runs.len(), self.nruns as usize);
            self.body.truncate(self.open_at);
            self.body.reserve(as_runs);
            self.body
                .extend_from_slice(&(runs.len() as u16).to_le_bytes());
            for (lo, hi) in runs {
                self.body.extend_from_slice(&lo.to_le_bytes());
                self.body.extend_from_slice(&(hi - lo).to_le_bytes());
            }
        } else if let Some(w) = words {
            self.body.reserve(BITMAP_BYTES);
            self.body.extend(w.iter().flat_map(|w| w.to_le_bytes()));
        }
        self.descs
            .extend_from_slice(&(self.key as u16).to_le_bytes());
        self.descs
            .extend_from_slice(&((self.card - 1) as u16).to_le_bytes());
        self.runs_flags.push(is_runs);
        self.sizes.push((self.body.len() - self.open_at) as u32);
        self.card = 0;
        self.nruns = 0;
    }

    /// The bitmap of every number added.
    fn finish(&mut self) -> Result<RoaringBitmap, String> {
        self.close();
        let n = self.sizes.len();
        let any_runs = self.runs_flags.iter().any(|&r| r);
        let mut head = Vec::with_capacity(8 + n.div_ceil(8) + 8 * n);
        let offsets = if any_runs {
            head.extend_from_slice(&(COOKIE_RUNS | ((n as u32 - 1) << 16)).to_le_bytes());
            let mut flags = vec![0u8; n.div_ceil(8)];
            for (i, _) in self.runs_flags.iter().enumerate().filter(|(_, &r)| r) {
                flags[i / 8] |= 1 << (i % 8);
            }
            head.extend_from_slice(&flags);
            n >= OFFSETS_FROM
        } else {
            head.extend_from_slice(&COOKIE_NO_RUNS.to_le_bytes());
            head.extend_from_slice(&(n as u32).to_le_bytes());
            true
        };
        head.extend_from_slice(&self.descs);
        if offsets {
            let mut at = (head.len() + 4 * n) as u32;
            for &size in &self.sizes {
                head.extend_from_slice(&at.to_le_bytes());
                at += size;
            }
        }
        // Unchecked: arrays ascend and bitmaps hold their cardinality by construction (the
        // library still checks keys and runs).
        RoaringBitmap::deserialize_unchecked_from(std::io::Read::chain(&head[..], &self.body[..]))
            .map_err(|e| e.to_string())
    }
}

/// The runs `(first, last)` of an array container's numbers (u16, little-endian, ascending).
fn runs_of_array(values: &[u8]) -> Vec<(u16, u16)> {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for v in values.chunks_exact(2) {
        let v = u16::from_le_bytes([v[0], v[1]]);
        match runs.last_mut() {
            Some(r) if u32::from(r.1) + 1 == u32::from(v) => r.1 = v,
            _ => runs.push((v, v)),
        }
    }
    runs
}

/// The runs `(first, last)` of a bitmap container's set bits.
fn runs_of_words(words: &[u64; 1024]) -> Vec<(u16, u16)> {
    let mut runs = Vec::new();
    let mut open: Option<usize> = None;
    for (i, &w) in words.iter().enumerate() {
        let mut bit = 0;
        while bit < 64 {
            // Skip to the next bit that differs from the state we are in.
            let rest = w >> bit;
            let step = if open.is_some() {
                (!rest).trailing_zeros()
            } else {
                rest.trailing_zeros()
            } as usize;
            bit = (bit + step).min(64);
            if bit == 64 {
                break;
            }
            let at = i * 64 + bit;
            match open.take() {
                Some(first) => runs.push((first as u16, (at - 1) as u16)),
                None => open = Some(at),
            }
        }
    }
    if let Some(first) = open {
        runs.push((first as u16, u16::MAX));
    }
    runs
}

/// Sets bits `lo..=hi` of a bitmap container's words.
fn set_bits(words: &mut [u64; 1024], lo: usize, hi: usize) {
    let (first, last) = (lo / 64, hi / 64);
    let low_mask = !0u64 << (lo % 64);
    let high_mask = !0u64 >> (63 - hi % 64);
    if first == last {
        words[first] |= low_mask & high_mask;
        return;
    }
    words[first] |= low_mask;
    for w in &mut words[first + 1..last] {
        *w = !0;
    }
    words[last] |= high_mask;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Smallest bytes of each 2^16-number container of `nums` (ascending): runs, an array
    /// of up to 4096 numbers, or a bitmap. Naive twin of [`Build::close`]'s choice.
    fn smallest_forms(nums: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        let mut rest = nums;
        while let Some(&first) = rest.first() {
            let n = rest.partition_point(|&x| x >> 16 == first >> 16);
            let (c, r) = rest.split_at(n);
            let runs = 1 + c.windows(2).filter(|w| w[1] != w[0] + 1).count();
            let values = if n <= 4096 { 2 * n } else { 8192 };
            out.push((2 + 4 * runs).min(values) as u32);
            rest = r;
        }
        out
    }

    proptest! {
        /// The bitmap built from runs holds exactly their numbers, each container in its
        /// smallest form, whether the runs are pushed whole or their numbers in chunks.
        #[test]
        fn builds_the_bitmap_of_the_runs_in_smallest_forms(
            runs in proptest::collection::vec((0u32..9000, 0u32..7000), 0..60),
            base in prop_oneof![Just(0u32), 0u32..u32::MAX - 2_000_000, Just(u32::MAX - 900_000)],
            chunk in 1usize..5000,
        ) {
            let mut want = RoaringBitmap::new();
            let mut list = Vec::new();
            let mut at = base;
            for (gap, len) in runs {
                let first = at + gap + u32::from(!list.is_empty());
                let last = first + len / 4 * (len % 4);
                want.insert_range(first..=last);
                list.push((first, last));
                at = last;
            }
            let got = build(0, |b| {
                list.iter().for_each(|&(f, l)| b.push_run(f, l));
                Ok(())
            }).unwrap();
            prop_assert_eq!(&got, &want);
            let nums: Vec<u32> = want.iter().collect();
            let chunked = build(0, |b| {
                nums.chunks(chunk).for_each(|c| b.push_sorted(c));
                Ok(())
            }).unwrap();
            prop_assert_eq!(&chunked, &want);
            for by_runs in [true, false] {
                let mut b = Build::default();
                if by_runs {
                    list.iter().for_each(|&(f, l)| b.push_run(f, l));
                } else {
                    nums.chunks(chunk).for_each(|c| b.push_sorted(c));
                }
                b.close();
                prop_assert_eq!(&b.sizes, &smallest_forms(&nums));
            }
        }
    }

    #[test]
    fn a_dense_start_that_ends_small_is_an_array() {
        // 501 even numbers: dense enough at the start to be built as a bitmap, but an array's
        // worth (and more runs than an array's bytes) in the end.
        let nums: Vec<u32> = (0..=1000).step_by(2).chain([70_000]).collect();
        let mut b = Build::default();
        b.push_sorted(&nums[..501]);
        assert!(b.words.is_some(), "built as a bitmap from its dense start");
        b.push_sorted(&nums[501..]);
        b.close();
        assert_eq!(b.sizes, [2 * 501, 2]);
        assert_eq!(b.runs_flags, [false, false]);
        let got = build(0, |b| {
            b.push_sorted(&nums);
            Ok(())
        })
        .unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), nums);
    }

    #[test]
    fn set_bits_within_and_across_words() {
        let mut w = [0u64; 1024];
        set_bits(&mut w, 3, 5);
        set_bits(&mut w, 60, 130);
        set_bits(&mut w, 65_535, 65_535);
        assert_eq!(w[0], 0b111000 | !0 << 60);
        assert_eq!(w[1], !0);
        assert_eq!(w[2], 0b111);
        assert_eq!(w[1023], 1 << 63);
        assert_eq!(w.iter().map(|x| x.count_ones()).sum::<u32>(), 3 + 71 + 1);
    }
}
