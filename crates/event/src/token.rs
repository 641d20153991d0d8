//! The segmenter: splits text into the terms of the lexicon.
//!
//! Like Splunk's default `segmenters.conf`, text is cut at *major* breakers (white space and
//! brackets, quotes, `|`, `;`, `,`, …) into major segments, and each major segment is cut again at
//! *minor* breakers (`/ : = @ . - $ # % \ _`). Both the major segment and each of its minor parts
//! are terms, so `10.0.0.1` is found as `10.0.0.1`, `10`, `0` and `1`. Terms are ASCII-lowercased:
//! search is case-insensitive. Bytes ≥ 0x80 are ordinary term bytes.
//!
//! Indexing and search both call [`Tokenizer::for_each`]; nothing else may split text into terms.

/// Terms longer than this many bytes are not put into the lexicon (they would only bloat it);
/// a search term longer than this cannot be answered from the index and is verified by scanning.
pub const MAX_TOKEN_LEN: usize = 128;

const MAJOR: u8 = 1;
const MINOR: u8 = 2;

const fn classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let major = b" \t\n\r\x0b\x0c[]<>(){}|!;,'\"*&?+`^~";
    let mut i = 0;
    while i < major.len() {
        t[major[i] as usize] = MAJOR;
        i += 1;
    }
    // Other ASCII control characters break too.
    let mut c = 0;
    while c < 0x20 {
        t[c] = MAJOR;
        c += 1;
    }
    t[0x7f] = MAJOR;
    let minor = b"/:=@.-$#%\\_";
    let mut j = 0;
    while j < minor.len() {
        t[minor[j] as usize] = MINOR;
        j += 1;
    }
    t
}

static CLASS: [u8; 256] = classes();

/// Whether `b` is a major breaker.
#[inline]
pub fn is_major(b: u8) -> bool {
    CLASS[b as usize] == MAJOR
}

/// Whether `b` is a minor breaker.
#[inline]
pub fn is_minor(b: u8) -> bool {
    CLASS[b as usize] == MINOR
}

/// Whether `text` is a single term as the tokenizer would emit it (no major breaker, not empty).
pub fn is_single_major_segment(text: &[u8]) -> bool {
    !text.is_empty() && !text.iter().any(|&b| is_major(b))
}

/// Reusable tokenizer; holds the lowercase buffer and the breaker masks so the hot loop does
/// not allocate.
#[derive(Debug, Default)]
pub struct Tokenizer {
    buf: Vec<u8>,
    /// Bit `i % 64` of word `i / 64` is set when byte `i` is a major breaker ...
    major: Vec<u64>,
    /// ... or a minor one.
    minor: Vec<u64>,
}

impl Tokenizer {
    /// A tokenizer with an empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `f` with every term of `text`, lowercased: each major segment, then, if the segment
    /// has minor breakers, each non-empty minor part. Terms may repeat; callers dedup.
    /// Terms longer than [`MAX_TOKEN_LEN`] are skipped.
    ///
    /// The bytes are classified first, 64 to a word of bits per class, without a branch per
    /// byte; segments are then found with bit scans, so a term costs a few instructions rather
    /// than a mispredicted branch at each of its ends.
    pub fn for_each(&mut self, text: &[u8], mut f: impl FnMut(&[u8])) {
        self.buf.clear();
        // Copy then lowercase in place: both vectorise (a mapped `extend` goes byte by byte).
        self.buf.extend_from_slice(text);
        self.buf.make_ascii_lowercase();
        classify(text, &mut self.major, &mut self.minor);
        let (buf, major, minor) = (&self.buf, &self.major, &self.minor);
        let n = buf.len();
        let mut i = next_clear(major, 0, n);
        while i < n {
            let end = next_set(major, i, n);
            let seg = &buf[i..end];
            if seg.len() <= MAX_TOKEN_LEN {
                f(seg);
            }
            if next_set(minor, i, end) < end {
                let mut j = next_clear(minor, i, end);
                while j < end {
                    let e = next_set(minor, j, end);
                    if e - j <= MAX_TOKEN_LEN {
                        f(&buf[j..e]);
                    }
                    j = next_clear(minor, e, end);
                }
            }
            i = next_clear(major, end, n);
        }
    }

    /// Collects the terms of `text` into owned strings (tests and the search planner).
    pub fn terms(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each(text.as_bytes(), |t| {
            out.push(String::from_utf8_lossy(t).into_owned())
        });
        out
    }
}

/// Fills `major` and `minor` with one bit per byte of `text` (see [`Tokenizer`]): with AVX2
/// where the processor has it, else byte by byte.
#[allow(unsafe_code)] // The call of the AVX2 version, after checking the processor has it.
fn classify(text: &[u8], major: &mut Vec<u64>, minor: &mut Vec<u64>) {
    major.clear();
    minor.clear();
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor supports AVX2 (checked just above).
        unsafe { avx2::classify(text, major, minor) };
        return;
    }
    classify_scalar(text, major, minor);
}

/// [`classify`] byte by byte, without a branch per byte.
fn classify_scalar(text: &[u8], major: &mut Vec<u64>, minor: &mut Vec<u64>) {
    for chunk in text.chunks(64) {
        let (mut ma, mut mi) = (0u64, 0u64);
        for (k, &b) in chunk.iter().enumerate() {
            let c = u64::from(CLASS[b as usize]);
            ma |= (c & 1) << k;
            mi |= (c >> 1) << k;
        }
        major.push(ma);
        minor.push(mi);
    }
}

/// A byte's class from its two nibbles, 16 bytes at a time: bit `h` of `LO[class][l]` is set
/// when byte `h << 4 | l` is in the class, and `HI[h]` is `1 << h` (bytes from 0x80 up are
/// in no class). So a byte is in a class iff `LO[class][low nibble] & HI[high nibble] != 0`:
/// two table lookups (`vpshufb`) per class for 32 bytes.
const fn nibble_table(class: u8) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut b = 0;
    while b < 0x80 {
        if CLASS[b] == class {
            t[b & 15] |= 1 << (b >> 4);
        }
        b += 1;
    }
    t
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // Unaligned vector loads and `target_feature` functions; each says why it is sound.
mod avx2 {
    use super::{nibble_table, MAJOR, MINOR};
    use std::arch::x86_64::*;

    const HI: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0];
    const MAJOR_LO: [u8; 16] = nibble_table(MAJOR);
    const MINOR_LO: [u8; 16] = nibble_table(MINOR);

    /// A 16-byte table in both 128-bit lanes (`vpshufb` looks up within a lane).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn table(t: &[u8; 16]) -> __m256i {
        // SAFETY: `t` is 16 readable bytes; the load has no alignment requirement.
        let t = unsafe { _mm_loadu_si128(t.as_ptr().cast()) };
        _mm256_broadcastsi128_si256(t)
    }

    /// The major and minor bits of the 32 bytes in `v`, from the high-nibble table `hi_t` and
    /// the classes' low-nibble tables `lo_major` and `lo_minor`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bits32(v: __m256i, hi_t: __m256i, lo_major: __m256i, lo_minor: __m256i) -> (u32, u32) {
        let nib = _mm256_set1_epi8(0x0f);
        let lo = _mm256_and_si256(v, nib);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nib);
        let h = _mm256_shuffle_epi8(hi_t, hi);
        let zero = _mm256_setzero_si256();
        let ma = _mm256_and_si256(_mm256_shuffle_epi8(lo_major, lo), h);
        let mi = _mm256_and_si256(_mm256_shuffle_epi8(lo_minor, lo), h);
        // Bytes whose result is zero are not in the class: invert their mask.
        let not_ma = _mm256_movemask_epi8(_mm256_cmpeq_epi8(ma, zero)) as u32;
        let not_mi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(mi, zero)) as u32;
        (!not_ma, !not_mi)
    }

    /// [`super::classify`] 64 bytes at a time; a last partial chunk is read from a zero-padded
    /// copy (the padding's bits, past the text, are never scanned).
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn classify(text: &[u8], major: &mut Vec<u64>, minor: &mut Vec<u64>) {
        let (hi_t, lo_major, lo_minor) = (table(&HI), table(&MAJOR_LO), table(&MINOR_LO));
        let mut chunks = text.chunks_exact(64);
        let mut push = |c: &[u8]| {
            // SAFETY: `c` holds 64 bytes: both 32-byte unaligned loads are in bounds.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(c.as_ptr().cast()),
                    _mm256_loadu_si256(c.as_ptr().add(32).cast()),
                )
            };
            let (ma0, mi0) = bits32(a, hi_t, lo_major, lo_minor);
            let (ma1, mi1) = bits32(b, hi_t, lo_major, lo_minor);
            major.push(u64::from(ma0) | u64::from(ma1) << 32);
            minor.push(u64::from(mi0) | u64::from(mi1) << 32);
        };
        for c in &mut chunks {
            push(c);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 64];
            last[..rest.len()].copy_from_slice(rest);
            push(&last);
        }
    }
}

/// The first position in `from..limit` whose bit is set in `bits`, or `limit`.
#[inline]
fn next_set(bits: &[u64], from: usize, limit: usize) -> usize {
    scan(bits, from, limit, 0)
}

/// The first position in `from..limit` whose bit is clear in `bits`, or `limit`.
#[inline]
fn next_clear(bits: &[u64], from: usize, limit: usize) -> usize {
    scan(bits, from, limit, !0)
}

/// The first position in `from..limit` whose bit differs from `flip`'s, or `limit`. `limit`
/// must not pass the bits.
#[inline]
fn scan(bits: &[u64], from: usize, limit: usize, flip: u64) -> usize {
    if from >= limit {
        return limit;
    }
    let mut w = from / 64;
    let mut word = (bits[w] ^ flip) & (!0u64 << (from % 64));
    loop {
        if word != 0 {
            return (w * 64 + word.trailing_zeros() as usize).min(limit);
        }
        w += 1;
        if w * 64 >= limit {
            return limit;
        }
        word = bits[w] ^ flip;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majors_and_minors() {
        let mut t = Tokenizer::new();
        assert_eq!(
            t.terms("From 10.0.0.1: GET /a/b [ok]"),
            vec![
                "from",
                "10.0.0.1:",
                "10",
                "0",
                "0",
                "1",
                "get",
                "/a/b",
                "a",
                "b",
                "ok"
            ]
        );
    }

    #[test]
    fn lowercases_ascii_only() {
        let mut t = Tokenizer::new();
        assert_eq!(t.terms("ÉCOLE Error"), vec!["École", "error"]);
    }

    #[test]
    fn long_terms_are_skipped() {
        let mut t = Tokenizer::new();
        let long = "x".repeat(MAX_TOKEN_LEN + 1);
        assert_eq!(t.terms(&format!("a {long} b")), vec!["a", "b"]);
    }

    /// Naive twin: split on major breakers, then on minor breakers, lowercase, skip long terms.
    fn naive(text: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for seg in text.to_ascii_lowercase().split(|&b| is_major(b)) {
            if seg.is_empty() {
                continue;
            }
            if seg.len() <= MAX_TOKEN_LEN {
                out.push(seg.to_vec());
            }
            if seg.iter().any(|&b| is_minor(b)) {
                for part in seg.split(|&b| is_minor(b)) {
                    if !part.is_empty() && part.len() <= MAX_TOKEN_LEN {
                        out.push(part.to_vec());
                    }
                }
            }
        }
        out
    }

    fn all_terms(text: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        Tokenizer::new().for_each(text, |t| out.push(t.to_vec()));
        out
    }

    #[test]
    fn terms_of_exactly_the_limit_are_kept() {
        let (x, y) = ("x".repeat(MAX_TOKEN_LEN), "y".repeat(MAX_TOKEN_LEN + 1));
        let text = format!("a.{x}.{y} {x}");
        assert_eq!(
            all_terms(text.as_bytes()),
            vec![b"a".to_vec(), x.clone().into(), x.into()]
        );
    }

    #[test]
    fn segments_across_words_of_bits() {
        // Terms ending, starting and running across the 64-byte words of the masks.
        for n in [62, 63, 64, 65, 127, 128, 129, 200] {
            let text = format!("{} a.b {}", "x".repeat(n), "y/".repeat(n));
            assert_eq!(all_terms(text.as_bytes()), naive(text.as_bytes()), "{n}");
        }
    }

    proptest::proptest! {
        #[test]
        fn matches_naive_split(s in "[ a-zA-Z0-9./:=_\\-\\[\\]\"|]{0,300}") {
            proptest::prop_assert_eq!(all_terms(s.as_bytes()), naive(s.as_bytes()));
        }

        /// Any bytes, with runs long enough to pass the term length limit.
        #[test]
        fn matches_naive_split_on_any_bytes(
            parts in proptest::collection::vec(
                (proptest::prelude::any::<u8>(), 1usize..140), 0..12)
        ) {
            let text: Vec<u8> = parts.iter()
                .flat_map(|&(b, n)| std::iter::repeat_n(b, if n > 3 { n % 7 + 1 } else { n * 60 }))
                .collect();
            proptest::prop_assert_eq!(all_terms(&text), naive(&text));
        }

        /// The vector classes equal the byte-by-byte ones (on the bits of the text: a vector
        /// pass may set bits past its end).
        #[test]
        fn classify_matches_scalar(text in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let (mut ma, mut mi, mut sa, mut si) = (vec![], vec![], vec![], vec![]);
            classify(&text, &mut ma, &mut mi);
            classify_scalar(&text, &mut sa, &mut si);
            let within = |bits: &mut Vec<u64>| {
                if text.len() % 64 != 0 {
                    if let Some(last) = bits.last_mut() {
                        *last &= (1u64 << (text.len() % 64)) - 1;
                    }
                }
            };
            within(&mut ma);
            within(&mut mi);
            proptest::prop_assert_eq!((ma, mi), (sa, si));
        }

        #[test]
        fn matches_naive_split_on_random_bytes(text in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            proptest::prop_assert_eq!(all_terms(&text), naive(&text));
        }
    }
}
