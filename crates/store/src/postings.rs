//! Postings encoding: lexicon values and postings-file entries. See docs/format/lexicon.md.
//!
//! A lexicon value `v` with the low bit set is an inline posting: the term occurs in exactly one
//! event, number `v >> 1`, and has no postings entry (most terms of real logs are that rare).
//! Otherwise `v >> 1` is `block << 15 | offset`: the entry starts at `offset` in the
//! uncompressed postings block `block`. Blocks are ~32 KiB of entries, each compressed on its
//! own (zstd); the postings body is the compressed blocks then a block table in the slice-table
//! format (see journal.md) and its length u64. An entry is `kind u8 | len varint | data[len]`:
//! kind 0 = ascending event numbers as varint deltas (the first from 0), kind 1 = a roaring
//! bitmap in its portable serialization, kind 2 = runs of consecutive numbers as
//! `(gap varint, length − 1 varint)` pairs, the gap counted from the end of the previous run
//! (from 0 for the first). The writer picks the smallest.
//!
//! Terms with identical postings may share one entry (the terms writer, `bucket::write`, writes
//! an entry of at least [`crate::consts::SHARED_ENTRY_MIN_BYTES`] once): several terms can then
//! hold the same value, and a term's value may point before the previous term's.

use roaring::RoaringBitmap;

use crate::codec::{put_varint, Reader};

mod bitmap;

/// Entry kind: varint deltas.
pub const KIND_DELTAS: u8 = 0;
/// Entry kind: portable roaring bitmap.
pub const KIND_ROARING: u8 = 1;
/// Entry kind: runs of consecutive event numbers.
pub const KIND_RUNS: u8 = 2;
/// Entry kind: the numbers grouped by 2^16-number container, each group an entry of its own
/// (kind 0, 1 or 2, its numbers less the container's first), after a table of the groups'
/// container keys: a reader wanting a few containers (a newest-first window) skips the others
/// by their lengths instead of walking a long list from its start.
pub const KIND_CHUNKED: u8 = 3;
/// A deltas or runs entry of at least this many data bytes whose numbers lie in more than one
/// container is written chunked ([`KIND_CHUNKED`]), unless it is a list searches read whole
/// (the field terms the count pushdown walks, where the groups only cost: 10 % on the 10 GB
/// sparse `stats count by host`); roaring entries already locate their containers. Below it
/// a walk of the whole entry costs little.
pub const CHUNKED_MIN_BYTES: usize = 1024;

pub use crate::consts::POSTINGS_BLOCK_BYTES as BLOCK_TARGET_BYTES;
use crate::consts::ROARING_MIN_LEN;

/// `SERIAL_COOKIE_NO_RUNCONTAINER` of the roaring format: the first four bytes of the bitmaps
/// [`serialize_roaring`] writes and [`roaring_into`] reads.
const ROARING_COOKIE: u32 = 12346;

/// Bits of the in-block offset in a lexicon value (blocks close before 2^15 bytes).
const OFFSET_BITS: u32 = 15;
const _: () = assert!(BLOCK_TARGET_BYTES <= 1 << OFFSET_BITS);

/// What a lexicon value points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// The term occurs in this single event.
    Inline(u32),
    /// The entry is at byte `offset` of uncompressed block `block`.
    Entry {
        /// Block number.
        block: u64,
        /// Offset within the uncompressed block, bytes.
        offset: usize,
    },
}

/// Decodes a lexicon value.
pub fn decode_value(v: u64) -> Value {
    if v & 1 == 1 {
        Value::Inline((v >> 1) as u32)
    } else {
        let p = v >> 1;
        Value::Entry {
            block: p >> OFFSET_BITS,
            offset: (p & ((1 << OFFSET_BITS) - 1)) as usize,
        }
    }
}

/// The lexicon value of the entry at byte `offset` (below [`BLOCK_TARGET_BYTES`]) of
/// uncompressed postings block `block`.
pub fn entry_value(block: u64, offset: usize) -> u64 {
    debug_assert!(offset < BLOCK_TARGET_BYTES);
    ((block << OFFSET_BITS) | offset as u64) << 1
}

/// Encodes `list` (ascending, non-empty) for block `block` whose uncompressed bytes so far are
/// `postings` (must be shorter than [`BLOCK_TARGET_BYTES`]): returns the lexicon value,
/// appending an entry unless the value is inline.
pub fn encode_in_block(list: &[u32], block: u64, postings: &mut Vec<u8>) -> u64 {
    if let [one] = list {
        return ((*one as u64) << 1) | 1;
    }
    let value = entry_value(block, postings.len());
    encode_entry(list, postings, false);
    value
}

/// Encodes `list` (ascending, non-empty) on its own, for a writer that decides where the entry
/// goes: its inline lexicon value when it holds a single number, else `None` and the whole
/// entry (`kind | len | data`) in `entry` (cleared first). With `read_whole` (a list searches
/// read whole and intersect: the field terms `host::…`, `source::…`, `sourcetype::…` the count
/// pushdown tallies), the roaring layout, which decodes without per-number work, is kept while
/// it is at most a quarter larger than the smallest layout.
pub fn encode(list: &[u32], entry: &mut Vec<u8>, read_whole: bool) -> Option<u64> {
    entry.clear();
    if let [one] = list {
        return Some(((*one as u64) << 1) | 1);
    }
    encode_entry(list, entry, read_whole);
    None
}

/// Appends the entry of `list` (at least two numbers, strictly ascending) to `postings`. The
/// sizes of the three layouts are counted first (deltas and runs in one pass, roaring from its
/// container lengths) and only the one kept is written: a common term's list is long, and
/// writing each layout to compare them cost a roll and a merge a pass per layout.
fn encode_entry(list: &[u32], postings: &mut Vec<u8>, read_whole: bool) {
    let (deltas, ones) = delta_stats(list);
    let roaring = (list.len() >= ROARING_MIN_LEN).then(|| roaring_size(list));
    // Each run takes two varints, so with `list.len() − ones` runs the runs layout is at least
    // twice that many bytes: counted exactly only when that bound loses neither to the deltas
    // nor to the roaring bitmap (which wins over both when it is smaller than the bound).
    let runs_at_least = 2 * (list.len() - ones);
    let runs_may_win = runs_at_least < deltas && roaring.is_none_or(|r| r >= runs_at_least);
    let (mut kind, mut len) = match runs_may_win.then(|| runs_size(list)) {
        Some(runs) if runs < deltas => (KIND_RUNS, runs),
        _ => (KIND_DELTAS, deltas),
    };
    if let Some(roaring) = roaring {
        let slack = if read_whole { len / 4 } else { 0 };
        if roaring < len.saturating_add(slack) {
            (kind, len) = (KIND_ROARING, roaring);
        }
    }
    if !read_whole
        && kind != KIND_ROARING
        && len >= CHUNKED_MIN_BYTES
        && list[0] >> 16 != list[list.len() - 1] >> 16
    {
        return encode_chunked(list, postings);
    }
    postings.push(kind);
    put_varint(postings, len as u64);
    let start = postings.len();
    match kind {
        KIND_DELTAS => encode_deltas(list, len, postings),
        KIND_RUNS => encode_runs(list, postings),
        _ => serialize_roaring(list, postings),
    }
    debug_assert_eq!(postings.len() - start, len, "layout size counted wrong");
}

/// Appends `list` (strictly ascending, numbers in several containers) as a [`KIND_CHUNKED`]
/// entry: `count varint | key gap varint{count} | sub-entry{count}`, the first key's gap
/// counted from 0, each sub-entry the smallest layout of its container's numbers less
/// `key << 16` (one number is a deltas sub-entry).
fn encode_chunked(list: &[u32], postings: &mut Vec<u8>) {
    let (mut head, mut body, mut low) = (Vec::new(), Vec::new(), Vec::new());
    let (mut count, mut prev) = (0u64, 0u32);
    let mut rest = list;
    while let Some(&first) = rest.first() {
        let key = first >> 16;
        let end = rest.partition_point(|&n| n >> 16 == key);
        low.clear();
        low.extend(rest[..end].iter().map(|&n| n & 0xffff));
        encode_entry(&low, &mut body, false);
        put_varint(&mut head, u64::from(key - prev));
        prev = key;
        count += 1;
        rest = &rest[end..];
    }
    postings.push(KIND_CHUNKED);
    let mut count_bytes = Vec::new();
    put_varint(&mut count_bytes, count);
    put_varint(
        postings,
        (count_bytes.len() + head.len() + body.len()) as u64,
    );
    postings.extend_from_slice(&count_bytes);
    postings.extend_from_slice(&head);
    postings.extend_from_slice(&body);
}

/// One container's group of a [`KIND_CHUNKED`] entry: the container's first number, and its
/// sub-entry's kind and data.
struct Chunk<'a> {
    base: u32,
    kind: u8,
    data: &'a [u8],
}

/// The groups of [`KIND_CHUNKED`] entry data, in ascending container order; checks the table
/// (keys ascending within u16, at least one group, sub-entries of kinds 0–2 filling the data).
fn chunks(data: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
    let mut r = Reader::new(data);
    let n = r.varint()?;
    if n == 0 || n > 1 << 16 {
        return Err("chunked entry: group count out of range".into());
    }
    let mut keys = Vec::with_capacity(n as usize);
    let mut key = 0u64;
    for i in 0..n {
        let gap = r.varint()?;
        if i > 0 && gap == 0 {
            return Err("chunked entry: keys not ascending".into());
        }
        key += gap;
        if key > 0xffff {
            return Err("chunked entry: key out of range".into());
        }
        keys.push(key as u32);
    }
    let mut rest = &data[r.pos()..];
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let (kind, h, len) = parse_header(rest)?;
        if kind > KIND_RUNS {
            return Err("chunked entry: sub-entry of unknown kind".into());
        }
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| h.checked_add(l))
            .filter(|&e| e <= rest.len())
            .ok_or("chunked entry: sub-entry runs past the entry")?;
        out.push(Chunk {
            base: key << 16,
            kind,
            data: &rest[h..end],
        });
        rest = &rest[end..];
    }
    if !rest.is_empty() {
        return Err("chunked entry: bytes after its last sub-entry".into());
    }
    Ok(out)
}

/// What a group of a chunked entry hands on: ascending numbers, or a run `first..=last`.
enum Piece<'a> {
    Nums(&'a [u32]),
    Run(u32, u32),
}

/// Hands the numbers of group `c` (with its base added) to `f`, ascending; checks that they
/// stay inside the group's container.
fn chunk_pieces(
    c: &Chunk<'_>,
    buf: &mut [u32; DELTAS_CHUNK],
    f: &mut dyn FnMut(Piece<'_>),
) -> Result<(), String> {
    let top = u64::from(c.base | 0xffff);
    let mut outside = false;
    match c.kind {
        KIND_DELTAS => {
            deltas_in_chunks(c.data, u64::from(c.base), buf, |nums| {
                if nums.last().is_some_and(|&n| u64::from(n) > top) {
                    outside = true;
                } else {
                    f(Piece::Nums(nums));
                }
            })?;
        }
        KIND_RUNS => {
            for_each_run(KIND_RUNS, c.data, |first, last| {
                if u64::from(last) + u64::from(c.base) > top {
                    outside = true;
                } else {
                    f(Piece::Run(c.base + first, c.base + last));
                }
            })?;
        }
        _ => {
            let mut nums = Vec::new();
            roaring_into(c.data, &mut nums)?;
            if nums.last().is_some_and(|&n| n > 0xffff) {
                outside = true;
            } else {
                nums.iter_mut().for_each(|n| *n += c.base);
                f(Piece::Nums(&nums));
            }
        }
    }
    if outside {
        return Err("chunked entry: a number outside its group's container".into());
    }
    Ok(())
}

/// The largest number of group `c`.
fn chunk_max(c: &Chunk<'_>, buf: &mut [u32; DELTAS_CHUNK]) -> Result<Option<u32>, String> {
    let mut max = None;
    chunk_pieces(c, buf, &mut |p| {
        max = match p {
            Piece::Nums(n) => n.last().copied().or(max),
            Piece::Run(_, last) => Some(last),
        }
    })?;
    Ok(max)
}

/// Pushes every number of group `c` into `b`.
fn build_chunk(
    c: &Chunk<'_>,
    b: &mut bitmap::Build,
    buf: &mut [u32; DELTAS_CHUNK],
) -> Result<(), String> {
    chunk_pieces(c, buf, &mut |p| match p {
        Piece::Nums(n) => b.push_sorted(n),
        Piece::Run(first, last) => b.push_run(first, last),
    })
}

/// Bytes of `v` as a LEB128 varint.
#[inline]
fn varint_len(v: u32) -> usize {
    1 + (31 - (v | 1).leading_zeros() as usize) / 7
}

/// [`varint_len`] by comparisons, which vectorise where a bit scan does not.
#[inline]
fn varint_len_cmp(v: u32) -> u32 {
    1 + u32::from(v >= 1 << 7)
        + u32::from(v >= 1 << 14)
        + u32::from(v >= 1 << 21)
        + u32::from(v >= 1 << 28)
}

/// Data bytes of `list` (non-empty, strictly ascending) as varint deltas, and how many of its
/// gaps are 1: one pass without a branch per number.
fn delta_stats(list: &[u32]) -> (usize, usize) {
    let (mut size, mut ones) = (varint_len(list[0]), 0usize);
    // In chunks whose 32-bit sums cannot overflow (at most 5 bytes a number).
    let mut from = 1;
    while from < list.len() {
        let to = (from + (1 << 24)).min(list.len());
        let (mut s, mut o) = (0u32, 0u32);
        for (&a, &b) in list[from - 1..to - 1].iter().zip(&list[from..to]) {
            let gap = b.wrapping_sub(a);
            s += varint_len_cmp(gap);
            o += u32::from(gap == 1);
        }
        size += s as usize;
        ones += o as usize;
        from = to;
    }
    (size, ones)
}

/// Data bytes of `list` (non-empty, strictly ascending) as runs, without a branch per number.
fn runs_size(list: &[u32]) -> usize {
    let first = list[0];
    let mut runs = varint_len(first);
    let (mut prev, mut run_first) = (first, first);
    for &x in &list[1..] {
        let gap = x - prev;
        // A run ends at `prev` (its length − 1) and the next starts `gap − 1` after it.
        let ends = usize::from(gap != 1).wrapping_neg();
        runs += (varint_len(prev - run_first) + varint_len(gap - 1)) & ends;
        run_first = (x & ends as u32) | (run_first & !ends as u32);
        prev = x;
    }
    runs + varint_len(prev - run_first)
}

/// Appends `list` (ascending) as varint deltas, the first from 0; `len` is their size in
/// bytes ([`delta_stats`]). Each varint is built in a word and stored whole, the next one
/// overwriting its spare bytes, so there is no branch per byte.
fn encode_deltas(list: &[u32], len: usize, out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + len + 8, 0);
    let buf = &mut out[start..];
    let mut at = 0;
    let mut prev = 0u32;
    for &x in list {
        let v = x - prev;
        prev = x;
        let n = varint_len(v);
        let v = u64::from(v);
        let groups = (v & 0x7f)
            | (v & 0x3f80) << 1
            | (v & 0x1f_c000) << 2
            | (v & 0xfe0_0000) << 3
            | (v & 0xf000_0000) << 4;
        // The continuation bit of every byte but the last.
        let more = 0x80_8080_8080u64 & ((1u64 << (8 * (n - 1))) - 1);
        buf[at..at + 8].copy_from_slice(&(groups | more).to_le_bytes());
        at += n;
    }
    out.truncate(start + at);
}

/// Number of `list`'s leading numbers in the 2^16-number roaring container of the first.
#[inline]
fn container_len(list: &[u32]) -> usize {
    let key = list[0] >> 16;
    list.partition_point(|&x| x >> 16 == key)
}

/// Bytes of a serialized roaring container of `n` numbers: an array of u16 up to 4096, else a
/// bitmap.
#[inline]
fn container_bytes(n: usize) -> usize {
    if n <= 4096 {
        2 * n
    } else {
        8192
    }
}

/// Appends the portable roaring serialization of `list` (ascending, without repeats) to `out`,
/// byte for byte what `RoaringBitmap::from_sorted_iter(list)` then `serialize_into` write,
/// without building the bitmap: the cookie without run containers and the container count,
/// `(key u16, cardinality − 1 u16)` per container, each container's offset u32 from the
/// start, then each container's numbers as u16 (up to 4096) or its 8 KiB bitmap. Naive twin:
/// the library (the property test compares the bytes).
fn serialize_roaring(list: &[u32], out: &mut Vec<u8>) {
    let containers = || {
        let mut rest = list;
        std::iter::from_fn(move || {
            (!rest.is_empty()).then(|| {
                let (c, r) = rest.split_at(container_len(rest));
                rest = r;
                c
            })
        })
    };
    let n = containers().count();
    out.extend_from_slice(&ROARING_COOKIE.to_le_bytes());
    out.extend_from_slice(&(n as u32).to_le_bytes());
    for c in containers() {
        out.extend_from_slice(&((c[0] >> 16) as u16).to_le_bytes());
        out.extend_from_slice(&((c.len() - 1) as u16).to_le_bytes());
    }
    let mut offset = 8 + 8 * n;
    for c in containers() {
        out.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += container_bytes(c.len());
    }
    for c in containers() {
        if c.len() <= 4096 {
            for &x in c {
                out.extend_from_slice(&(x as u16).to_le_bytes());
            }
        } else {
            let mut words = [0u64; 1024];
            for &x in c {
                let low = (x & 0xffff) as usize;
                words[low / 64] |= 1 << (low % 64);
            }
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
    }
}

/// Serialized size of the roaring bitmap of `list` (ascending), computed without building it:
/// an 8-byte header, then per 2^16-number container 8 bytes plus 2 bytes per number (array,
/// up to 4096 numbers) or 8 KiB (bitmap). Naive twin: `RoaringBitmap::serialized_size` (the
/// property test compares them).
fn roaring_size(list: &[u32]) -> usize {
    let mut size = 8;
    let mut rest = list;
    while !rest.is_empty() {
        let n = container_len(rest);
        size += 8 + container_bytes(n);
        rest = &rest[n..];
    }
    size
}

/// Reads the entry at `offset` of an uncompressed block.
pub fn decode_entry(block: &[u8], offset: usize) -> Result<RoaringBitmap, String> {
    let (kind, data) = entry_at(block, offset)?;
    decode_data(kind, data)
}

/// The numbers of the entry at `offset` of an uncompressed block that lie in the containers
/// `keys` (ascending 2^16-number container keys), and the entry's largest number. Only the
/// window's containers are built: a newest-first `head` over a common term needs the newest
/// container or two of a bucket, not the millions of numbers of its whole list. Checks the
/// entry as [`decode_entry`] does. Naive twin: [`decode_entry`] cut to the containers.
pub fn decode_entry_in(
    block: &[u8],
    offset: usize,
    keys: &[u16],
) -> Result<(RoaringBitmap, Option<u32>), String> {
    let (kind, data) = entry_at(block, offset)?;
    // Whether any of `keys` lies in `lo..=hi` (container keys).
    let meets = |lo: u32, hi: u32| {
        let i = keys.partition_point(|&k| u32::from(k) < lo);
        keys.get(i).is_some_and(|&k| u32::from(k) <= hi)
    };
    if kind == KIND_ROARING {
        return roaring_in(data, keys);
    }
    if kind == KIND_CHUNKED {
        let groups = chunks(data)?;
        let bm = bitmap::build(0, |b| {
            let mut buf = [0u32; DELTAS_CHUNK];
            groups
                .iter()
                .filter(|c| keys.binary_search(&((c.base >> 16) as u16)).is_ok())
                .try_for_each(|c| build_chunk(c, b, &mut buf))
        })?;
        let max = match groups.last() {
            Some(c) => chunk_max(c, &mut [0u32; DELTAS_CHUNK])?,
            None => None,
        };
        return Ok((bm, max));
    }
    let mut max = None;
    let bm = if kind == KIND_RUNS {
        bitmap::build(0, |b| {
            for_each_run(kind, data, |first, last| {
                max = Some(last);
                if !meets(first >> 16, last >> 16) {
                    return;
                }
                let from = keys.partition_point(|&k| u32::from(k) < first >> 16);
                for &k in keys[from..]
                    .iter()
                    .take_while(|&&k| u32::from(k) <= last >> 16)
                {
                    let lo = (u32::from(k) << 16).max(first);
                    let hi = (u32::from(k) << 16 | 0xffff).min(last);
                    b.push_run(lo, hi);
                }
            })
        })?
    } else {
        bitmap::build(0, |b| {
            let mut chunk = [0u32; DELTAS_CHUNK];
            deltas_in_chunks(data, 0, &mut chunk, |nums| {
                let (Some(&first), Some(&last)) = (nums.first(), nums.last()) else {
                    return;
                };
                max = Some(last);
                if !meets(first >> 16, last >> 16) {
                    return;
                }
                let mut rest = nums;
                while let Some(&n) = rest.first() {
                    let key = n >> 16;
                    let end = rest.partition_point(|&m| m >> 16 == key);
                    if keys.binary_search(&(key as u16)).is_ok() {
                        b.push_sorted(&rest[..end]);
                    }
                    rest = &rest[end..];
                }
            })
        })?
    };
    Ok((bm, max))
}

/// The kind and data of the entry at `offset` of an uncompressed block.
fn entry_at(block: &[u8], offset: usize) -> Result<(u8, &[u8]), &'static str> {
    let head = block.get(offset..).ok_or("entry offset beyond its block")?;
    let (kind, h, len) = parse_header(head)?;
    let data = usize::try_from(len)
        .ok()
        .and_then(|l| head.get(h..h.checked_add(l)?))
        .ok_or("entry runs past the end of its block")?;
    Ok((kind, data))
}

/// Appends `list` (ascending) as runs: `(gap, len - 1)` varint pairs.
fn encode_runs(list: &[u32], out: &mut Vec<u8>) {
    let mut next = 0u32; // first number after the previous run
    let mut i = 0;
    while i < list.len() {
        let start = list[i];
        let mut j = i + 1;
        while j < list.len() && list[j] == list[j - 1] + 1 {
            j += 1;
        }
        put_varint(out, (start - next) as u64);
        put_varint(out, (j - i - 1) as u64);
        next = list[j - 1] + 1;
        i = j;
    }
}

/// Parses an entry header (`kind`, data length) from the first bytes of an entry; returns
/// `(kind, header_len, data_len)`.
pub fn parse_header(head: &[u8]) -> Result<(u8, usize, u64), &'static str> {
    let mut r = Reader::new(head);
    let kind = r.bytes(1)?[0];
    if kind > KIND_CHUNKED {
        return Err("unknown postings kind");
    }
    let len = r.varint()?;
    Ok((kind, r.pos(), len))
}

/// Decodes entry data of `kind` into a bitmap, each container allocated once in its smallest
/// form (`bitmap`): a reader cache charges decoded postings at their serialized size, and the
/// library's own builders grow arrays by doubling (1 GB `lode bench --scenario burst`: 38 MB of
/// array containers at the peak) and look up the container of every number.
pub fn decode_data(kind: u8, data: &[u8]) -> Result<RoaringBitmap, String> {
    match kind {
        KIND_ROARING => RoaringBitmap::deserialize_from(data).map_err(|e| e.to_string()),
        KIND_RUNS => bitmap::build(0, |b| {
            for_each_run(kind, data, |first, last| b.push_run(first, last))
        }),
        KIND_CHUNKED => bitmap::build(2 * data.len() + 2, |b| {
            let mut buf = [0u32; DELTAS_CHUNK];
            chunks(data)?
                .iter()
                .try_for_each(|c| build_chunk(c, b, &mut buf))
        }),
        // Each container takes at most two bytes per number, and each number at least a byte.
        _ => bitmap::build(2 * data.len() + 2, |b| {
            let mut chunk = [0u32; DELTAS_CHUNK];
            deltas_in_chunks(data, 0, &mut chunk, |nums| b.push_sorted(nums))
        }),
    }
}

/// The bitmap of `list` (ascending; a number not above the one before is skipped), each
/// container allocated once in its smallest form: what a hot bucket's term index hands a
/// search (the library's `from_sorted_iter` grows arrays by doubling, one allocation each time).
pub fn bitmap_of_sorted(list: impl Iterator<Item = u32>) -> RoaringBitmap {
    let built = bitmap::build(0, |b| {
        let mut chunk = [0u32; DELTAS_CHUNK];
        let mut n = 0;
        let mut last: Option<u32> = None;
        for x in list {
            if last.is_some_and(|l| x <= l) {
                continue;
            }
            last = Some(x);
            chunk[n] = x;
            n += 1;
            if n == DELTAS_CHUNK {
                b.push_sorted(&chunk);
                n = 0;
            }
        }
        b.push_sorted(&chunk[..n]);
        Ok(())
    });
    built.expect("a builder fed ascending numbers serializes a sound bitmap")
}

/// Appends the event numbers of the entry at `offset` of an uncompressed block to `out`,
/// ascending, without building a bitmap: what a merge, which rewrites every list, reads.
pub fn decode_entry_into(block: &[u8], offset: usize, out: &mut Vec<u32>) -> Result<(), String> {
    let (kind, data) = entry_at(block, offset)?;
    let mut buf = [0u32; DELTAS_CHUNK];
    match kind {
        KIND_ROARING => roaring_into(data, out),
        KIND_DELTAS => deltas_in_chunks(data, 0, &mut buf, |nums| out.extend_from_slice(nums)),
        KIND_CHUNKED => chunks(data)?.iter().try_for_each(|c| {
            chunk_pieces(c, &mut buf, &mut |p| match p {
                Piece::Nums(nums) => out.extend_from_slice(nums),
                Piece::Run(first, last) => out.extend(first..=last),
            })
        }),
        _ => for_each_run(kind, data, |first, last| {
            if first == last {
                out.push(first);
            } else {
                out.extend(first..=last);
            }
        }),
    }
}

/// Appends the numbers of a portable roaring serialization to `out`, read straight from the
/// bytes (a merge reads every long list this way; building the bitmap first cost twice as
/// much). The layout [`serialize_roaring`] writes is read here; another one (with run
/// containers) goes through the library. Checks what the library checks: keys and array values
/// strictly ascending, each bitmap holding its cardinality, every length within the data.
fn roaring_into(data: &[u8], out: &mut Vec<u32>) -> Result<(), String> {
    let u32_at = |at: usize| -> Result<u32, String> {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .ok_or_else(|| "roaring bitmap cut short".to_string())
    };
    if u32_at(0)? != ROARING_COOKIE {
        let bm = RoaringBitmap::deserialize_from(data).map_err(|e| e.to_string())?;
        out.extend(bm.iter());
        return Ok(());
    }
    let n = u32_at(4)? as usize;
    if n > 1 << 16 {
        return Err("roaring bitmap: too many containers".into());
    }
    // Descriptions (key, cardinality − 1), then offsets, then the containers in order.
    let descs = data.get(8..8 + 4 * n).ok_or("roaring bitmap cut short")?;
    let mut at = 8 + 8 * n;
    let mut prev_key: Option<u16> = None;
    for d in descs.chunks_exact(4) {
        let key = u16::from_le_bytes([d[0], d[1]]);
        let card = usize::from(u16::from_le_bytes([d[2], d[3]])) + 1;
        if prev_key.is_some_and(|p| p >= key) {
            return Err("roaring bitmap: keys not ascending".into());
        }
        prev_key = Some(key);
        let high = u32::from(key) << 16;
        if card <= 4096 {
            let bytes = data
                .get(at..at + 2 * card)
                .ok_or("roaring bitmap cut short")?;
            let mut prev: Option<u16> = None;
            for v in bytes.chunks_exact(2) {
                let v = u16::from_le_bytes([v[0], v[1]]);
                if prev.is_some_and(|p| p >= v) {
                    return Err("roaring bitmap: values not ascending".into());
                }
                prev = Some(v);
                out.push(high | u32::from(v));
            }
            at += 2 * card;
        } else {
            let bytes = data.get(at..at + 8192).ok_or("roaring bitmap cut short")?;
            let before = out.len();
            for (i, w) in bytes.chunks_exact(8).enumerate() {
                let mut w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
                while w != 0 {
                    out.push(high | (i as u32) << 6 | w.trailing_zeros());
                    w &= w - 1;
                }
            }
            if out.len() - before != card {
                return Err("roaring bitmap: cardinality differs from its bits".into());
            }
            at += 8192;
        }
    }
    Ok(())
}

/// One container of a portable roaring serialization in the layout [`serialize_roaring`]
/// writes: its description (key, cardinality − 1) and bytes.
struct Container<'a> {
    key: u16,
    card: usize,
    desc: &'a [u8],
    bytes: &'a [u8],
}

/// The containers of a portable roaring serialization in the layout [`serialize_roaring`]
/// writes, checking that keys ascend and that each container lies within the data; `None` for
/// another layout (with run containers), which the library reads.
fn containers(data: &[u8]) -> Result<Option<Vec<Container<'_>>>, String> {
    let cut_short = || "roaring bitmap cut short".to_string();
    let u32_at = |at: usize| -> Result<u32, String> {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .ok_or_else(cut_short)
    };
    if u32_at(0)? != ROARING_COOKIE {
        return Ok(None);
    }
    let n = u32_at(4)? as usize;
    if n > 1 << 16 {
        return Err("roaring bitmap: too many containers".into());
    }
    let descs = data.get(8..8 + 4 * n).ok_or_else(cut_short)?;
    let mut out = Vec::with_capacity(n);
    let mut at = 8 + 8 * n;
    let mut prev_key: Option<u16> = None;
    for desc in descs.chunks_exact(4) {
        let key = u16::from_le_bytes([desc[0], desc[1]]);
        if prev_key.is_some_and(|p| p >= key) {
            return Err("roaring bitmap: keys not ascending".into());
        }
        prev_key = Some(key);
        let card = usize::from(u16::from_le_bytes([desc[2], desc[3]])) + 1;
        let len = if card <= 4096 { 2 * card } else { 8192 };
        let bytes = data.get(at..at + len).ok_or_else(cut_short)?;
        at += len;
        out.push(Container {
            key,
            card,
            desc,
            bytes,
        });
    }
    Ok(Some(out))
}

/// The containers `keys` (ascending) of a portable roaring serialization, and its largest
/// number: the chosen containers' bytes are copied into a serialization of their own, which the
/// library reads (checking them); the others are skipped by their sizes. A layout other than
/// the one [`serialize_roaring`] writes is read whole and cut.
fn roaring_in(data: &[u8], keys: &[u16]) -> Result<(RoaringBitmap, Option<u32>), String> {
    let Some(all) = containers(data)? else {
        let bm = RoaringBitmap::deserialize_from(data).map_err(|e| e.to_string())?;
        let max = bm.max();
        let mut mask = RoaringBitmap::new();
        for &k in keys {
            let lo = u32::from(k) << 16;
            mask.insert_range(lo..=lo | 0xffff);
        }
        return Ok((bm & mask, max));
    };
    // (description, bytes) of each chosen container.
    let chosen: Vec<(&[u8], &[u8])> = all
        .iter()
        .filter(|c| keys.binary_search(&c.key).is_ok())
        .map(|c| (c.desc, c.bytes))
        .collect();
    let max = match all.last() {
        None => None,
        Some(c) => Some(u32::from(c.key) << 16 | container_max(c.card, c.bytes)?),
    };
    if chosen.is_empty() {
        return Ok((RoaringBitmap::new(), max));
    }
    let body: usize = chosen.iter().map(|c| c.1.len()).sum();
    let mut ser = Vec::with_capacity(8 + 8 * chosen.len() + body);
    ser.extend_from_slice(&ROARING_COOKIE.to_le_bytes());
    ser.extend_from_slice(&(chosen.len() as u32).to_le_bytes());
    for (d, _) in &chosen {
        ser.extend_from_slice(d);
    }
    let mut off = (8 + 8 * chosen.len()) as u32;
    for (_, b) in &chosen {
        ser.extend_from_slice(&off.to_le_bytes());
        off += b.len() as u32;
    }
    for (_, b) in &chosen {
        ser.extend_from_slice(b);
    }
    let bm = RoaringBitmap::deserialize_from(&ser[..]).map_err(|e| e.to_string())?;
    Ok((bm, max))
}

/// Calls `hit(j)` for each `cands[j]` (ascending) that the entry at `offset` of an
/// uncompressed block holds, in order, walking the entry once without building a bitmap;
/// returns the entry's largest number. Checks the entry as [`decode_entry`] does.
pub fn hits_in_entry(
    block: &[u8],
    offset: usize,
    cands: &[u32],
    mut hit: impl FnMut(usize),
) -> Result<Option<u32>, String> {
    let (kind, data) = entry_at(block, offset)?;
    let mut j = 0;
    let mut last = None;
    let mut run = |first: u32, end: u32| {
        while j < cands.len() && cands[j] < first {
            j += 1;
        }
        while j < cands.len() && cands[j] <= end {
            hit(j);
            j += 1;
        }
        last = Some(end);
    };
    if kind == KIND_ROARING {
        let bm = RoaringBitmap::deserialize_from(data).map_err(|e| e.to_string())?;
        bm.iter().for_each(|n| run(n, n));
    } else {
        for_each_run(kind, data, &mut run)?;
    }
    Ok(last)
}

/// Calls `f(first, last)` for each run of consecutive numbers of entry data of `kind`
/// ([`KIND_RUNS`], [`KIND_DELTAS`] whose numbers come as runs of one, or [`KIND_CHUNKED`]
/// group by group), in ascending order;
/// checks that they ascend and stay below `u32::MAX`.
fn for_each_run(kind: u8, data: &[u8], mut f: impl FnMut(u32, u32)) -> Result<(), String> {
    if kind == KIND_CHUNKED {
        let mut buf = [0u32; DELTAS_CHUNK];
        return chunks(data)?.iter().try_for_each(|c| {
            chunk_pieces(c, &mut buf, &mut |p| match p {
                Piece::Nums(nums) => nums.iter().for_each(|&n| f(n, n)),
                Piece::Run(first, last) => f(first, last),
            })
        });
    }
    let mut r = Reader::new(data);
    if kind == KIND_RUNS {
        let mut next = 0u64;
        while !r.is_empty() {
            let start = next.checked_add(r.varint()?).ok_or("run overflow")?;
            let end = start.checked_add(r.varint()?).ok_or("run overflow")?;
            if end > u32::MAX as u64 - 1 {
                return Err("event number overflow".into());
            }
            f(start as u32, end as u32);
            next = end + 1;
        }
        return Ok(());
    }
    let mut chunk = [0u32; DELTAS_CHUNK];
    deltas_in_chunks(data, 0, &mut chunk, |nums| {
        nums.iter().for_each(|&n| f(n, n))
    })
}

/// The members of `among` that the entry at `offset` of an uncompressed block holds, and the
/// entry's largest number. A roaring entry is read whole and intersected a container at a time
/// (walking its members one by one cost the 10 GB service 7 % of its CPU); a deltas or runs
/// entry is walked against `among` without building its bitmap.
pub fn among_in_entry(
    block: &[u8],
    offset: usize,
    among: &RoaringBitmap,
) -> Result<(RoaringBitmap, Option<u32>), String> {
    let (kind, data) = entry_at(block, offset)?;
    if kind == KIND_ROARING {
        let bm = RoaringBitmap::deserialize_from(data).map_err(|e| e.to_string())?;
        let max = bm.max();
        return Ok((bm & among, max));
    }
    if kind == KIND_CHUNKED {
        // Only the groups of containers `among` has members in are walked (and the last, for
        // the entry's largest number).
        let groups = chunks(data)?;
        let mut hits = Vec::new();
        let mut cands = Vec::new();
        let buf = &mut [0u32; DELTAS_CHUNK];
        for c in &groups {
            let top = c.base | 0xffff;
            if among.range_cardinality(c.base..=top) == 0 {
                continue;
            }
            cands.clear();
            cands.extend(among.range(c.base..=top));
            let mut j = 0;
            let mut run = |first: u32, last: u32| {
                while j < cands.len() && cands[j] < first {
                    j += 1;
                }
                while j < cands.len() && cands[j] <= last {
                    hits.push(cands[j]);
                    j += 1;
                }
            };
            chunk_pieces(c, buf, &mut |p| match p {
                Piece::Nums(nums) => nums.iter().for_each(|&n| run(n, n)),
                Piece::Run(first, last) => run(first, last),
            })?;
        }
        let max = match groups.last() {
            Some(c) => chunk_max(c, buf)?,
            None => None,
        };
        return Ok((bitmap_of_sorted(hits.into_iter()), max));
    }
    let cands: Vec<u32> = among.iter().collect();
    let mut hits = Vec::new();
    let max = hits_in_entry(block, offset, &cands, |j| hits.push(cands[j]))?;
    Ok((bitmap_of_sorted(hits.into_iter()), max))
}

/// How many pieces the entry at `offset` of an uncompressed block holds — numbers of deltas
/// and roaring layouts, runs of the runs layout (so at least its runs, at most its numbers) —
/// counted without decoding them (varint ends, run pairs, container cardinalities) and only
/// until the count passes `limit` (then some count above it): whether an `And` starts from its
/// shortest term's runs or, when they are many, intersects bitmaps — told from the first
/// groups. A damaged entry gives an error or any count.
pub fn entry_len(block: &[u8], offset: usize, limit: u64) -> Result<u64, String> {
    let (kind, data) = entry_at(block, offset)?;
    data_len(kind, data, limit)
}

/// [`entry_len`] of entry data of `kind`.
fn data_len(kind: u8, data: &[u8], limit: u64) -> Result<u64, String> {
    let mut n = 0u64;
    match kind {
        KIND_DELTAS => {
            // A varint ends at each byte below 0x80; counted 4 KiB at a time.
            for part in data.chunks(4096) {
                n += part.iter().filter(|&&b| b & 0x80 == 0).count() as u64;
                if n > limit {
                    break;
                }
            }
        }
        KIND_RUNS => {
            let mut r = Reader::new(data);
            while !r.is_empty() && n <= limit {
                r.varint()?;
                r.varint()?;
                n += 1;
            }
        }
        KIND_CHUNKED => {
            for c in chunks(data)? {
                n += data_len(c.kind, c.data, limit - n)?;
                if n > limit {
                    break;
                }
            }
        }
        _ => {
            n = match containers(data)? {
                Some(all) => all.iter().map(|c| c.card as u64).sum(),
                None => RoaringBitmap::deserialize_from(data)
                    .map_err(|e| e.to_string())?
                    .len(),
            }
        }
    }
    Ok(n)
}

/// Appends the numbers of the entry at `offset` of an uncompressed block to `out` as runs
/// `(first, last)`, ascending, adjacent ones joined, and returns the entry's largest number:
/// the candidates an `And` of terms starts from ([`filter_runs_in_entry`] narrows them). A
/// sourcetype's word, a million numbers in long runs, is a few hundred runs. Checks the entry
/// as [`decode_entry`] does.
pub fn runs_into(
    block: &[u8],
    offset: usize,
    out: &mut Vec<(u32, u32)>,
) -> Result<Option<u32>, String> {
    let (kind, data) = entry_at(block, offset)?;
    match kind {
        KIND_ROARING => {
            let mut nums = Vec::new();
            roaring_into(data, &mut nums)?;
            nums.iter().for_each(|&n| join(out, n, n));
        }
        _ => for_each_run(kind, data, |first, last| join(out, first, last))?,
    }
    Ok(out.last().map(|r| r.1))
}

/// Appends the run `first..=last` (above every number of `out`) to `out`, joined to the last
/// run when adjacent.
#[inline]
fn join(out: &mut Vec<(u32, u32)>, first: u32, last: u32) {
    match out.last_mut() {
        Some(r) if r.1.checked_add(1) == Some(first) => r.1 = last,
        _ => out.push((first, last)),
    }
}

/// Narrows `cands` (ascending, disjoint runs) to the numbers the entry at `offset` of an
/// uncompressed block holds, as runs, and returns the entry's largest number, without building
/// a bitmap: what an `And` of several terms narrows its candidates by, term after term. A
/// roaring entry is read only where candidates lie (array values found by a binary search,
/// bitmap containers' set bits walked a word at a time), a chunked entry walks only the groups
/// of containers that hold candidates (testing a deltas group's numbers against the
/// candidates' bits when they are many, see [`PROBE_FROM`]), a deltas or runs entry is merged
/// with them (a slice of numbers by binary search when the candidates are few beside it).
/// Checks what it reads as [`decode_entry`] does. Naive twin: the candidates' numbers that the
/// list holds.
pub fn filter_runs_in_entry(
    block: &[u8],
    offset: usize,
    cands: &mut Vec<(u32, u32)>,
) -> Result<Option<u32>, String> {
    let (kind, data) = entry_at(block, offset)?;
    if kind == KIND_ROARING {
        return roaring_filter_runs(data, cands);
    }
    let mut keep = Keep::new(cands);
    let max = match kind {
        KIND_CHUNKED => {
            let groups = chunks(data)?;
            let buf = &mut [0u32; DELTAS_CHUNK];
            let mut probe: Option<Probe> = None;
            for c in &groups {
                let top = c.base | 0xffff;
                keep.skip_below(c.base);
                let meeting = keep.cands[keep.i..].partition_point(|r| r.0 <= top);
                if meeting == 0 {
                    continue;
                }
                if c.kind != KIND_DELTAS || meeting < PROBE_FROM || meeting * 16 < c.data.len() {
                    chunk_pieces(c, buf, &mut |p| match p {
                        Piece::Nums(nums) => keep.nums(nums),
                        Piece::Run(first, last) => keep.run(first, last),
                    })?;
                    continue;
                }
                let probe = probe.get_or_insert_with(Probe::new);
                let within = &keep.cands[keep.i..keep.i + meeting];
                probe.mark(within, c.base);
                let out = &mut keep.out;
                let walked = chunk_pieces(c, buf, &mut |p| match p {
                    Piece::Nums(nums) => probe.nums(nums, c.base, out),
                    Piece::Run(first, last) => probe.run(first, last, c.base, out),
                });
                probe.clear();
                walked?;
                // Runs going on into the next container stay for it.
                keep.skip_below(top.saturating_add(1));
            }
            match groups.last() {
                Some(c) => chunk_max(c, buf)?,
                None => None,
            }
        }
        KIND_DELTAS => {
            let mut max = None;
            deltas_in_chunks(data, 0, &mut [0u32; DELTAS_CHUNK], |nums| {
                keep.nums(nums);
                max = nums.last().copied().or(max);
            })?;
            max
        }
        _ => {
            let mut max = None;
            for_each_run(kind, data, |first, last| {
                keep.run(first, last);
                max = Some(last);
            })?;
            max
        }
    };
    *cands = keep.out;
    Ok(max)
}

/// The intersection of ascending, disjoint candidate runs with the ascending runs (or numbers)
/// of a list, built as runs.
struct Keep<'a> {
    cands: &'a [(u32, u32)],
    /// Candidate runs before `i` end below everything still to come.
    i: usize,
    out: Vec<(u32, u32)>,
}

impl<'a> Keep<'a> {
    fn new(cands: &'a [(u32, u32)]) -> Keep<'a> {
        Keep {
            cands,
            i: 0,
            out: Vec::new(),
        }
    }

    /// The first candidate run not passed.
    fn next(&self) -> Option<(u32, u32)> {
        self.cands.get(self.i).copied()
    }

    /// Passes the candidate runs that end below `n`.
    fn skip_below(&mut self, n: u32) {
        while self.i < self.cands.len() && self.cands[self.i].1 < n {
            self.i += 1;
        }
    }

    /// Keeps what the candidates hold of `first..=last`.
    #[inline]
    fn run(&mut self, first: u32, last: u32) {
        self.skip_below(first);
        while let Some(&(a, b)) = self.cands.get(self.i) {
            if a > last {
                break;
            }
            join(&mut self.out, a.max(first), b.min(last));
            if b > last {
                break;
            }
            self.i += 1;
        }
    }

    /// Keeps the numbers of `nums` (ascending) the candidates hold: those of each candidate run
    /// found by two binary searches when the runs are few beside the numbers, else one merge.
    fn nums(&mut self, nums: &[u32]) {
        let (Some(&lo), Some(&hi)) = (nums.first(), nums.last()) else {
            return;
        };
        self.skip_below(lo);
        let meeting = self.cands[self.i..].partition_point(|r| r.0 <= hi);
        if meeting * 16 >= nums.len() {
            nums.iter().for_each(|&n| self.run(n, n));
            return;
        }
        let mut from = 0;
        while let Some(&(a, b)) = self.cands.get(self.i) {
            if a > hi {
                break;
            }
            let start = from + nums[from..].partition_point(|&x| x < a);
            let end = start + nums[start..].partition_point(|&x| x <= b);
            nums[start..end]
                .iter()
                .for_each(|&n| join(&mut self.out, n, n));
            from = end;
            if b > hi {
                break;
            }
            self.i += 1;
        }
    }
}

/// Candidate runs of one container from which [`filter_runs_in_entry`] marks them in a
/// [`Probe`] and tests each number of a deltas group there, instead of merging (where
/// `Keep::nums` would merge too: candidates not few beside the group's numbers). Each test is
/// a load and a shift, with no branch on which side moves. The service scenario's costliest
/// searches, `And`s of two common words of one sourcetype with nothing in common (~1,600
/// candidates against ~1,800 numbers a container), spent 65 % of their walk in the merge:
/// `cargo bench --bench postings` "postings and" 531 → 382–486 µs, the 10 GB service +7.6 %
/// searches per CPU-second.
const PROBE_FROM: usize = 32;

/// One container's candidates as bits (8 KiB): set by [`Probe::mark`], cleared whole.
struct Probe {
    words: Box<[u64; 1024]>,
}

impl Probe {
    fn new() -> Probe {
        Probe {
            words: Box::new([0; 1024]),
        }
    }

    /// Sets the bits of `runs` inside the container from `base`.
    fn mark(&mut self, runs: &[(u32, u32)], base: u32) {
        let top = base | 0xffff;
        for &(a, b) in runs {
            // Most candidates of a common word are single numbers.
            if a == b {
                let x = a - base;
                self.words[(x / 64) as usize] |= 1 << (x % 64);
                continue;
            }
            let (lo, hi) = (a.max(base) - base, b.min(top) - base);
            let (wl, wh) = ((lo / 64) as usize, (hi / 64) as usize);
            let first = !0u64 << (lo % 64);
            let last = !0u64 >> (63 - hi % 64);
            for w in wl..=wh {
                let mut m = !0u64;
                if w == wl {
                    m &= first;
                }
                if w == wh {
                    m &= last;
                }
                self.words[w] |= m;
            }
        }
    }

    /// Sets the bits of `nums` (ascending, inside the container from `base`).
    fn set(&mut self, nums: &[u32], base: u32) {
        for &n in nums {
            let x = n.wrapping_sub(base) & 0xffff;
            self.words[(x / 64) as usize] |= 1 << (x % 64);
        }
    }

    /// Clears every bit.
    fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Joins to `out` the marked numbers of `first..=last` (inside the container from `base`),
    /// as runs, a word at a time.
    fn run(&self, first: u32, last: u32, base: u32, out: &mut Vec<(u32, u32)>) {
        set_runs(
            |x| self.words[(x / 64) as usize] >> (x % 64),
            (first - base, last - base),
            base,
            out,
        );
    }

    /// Joins to `out` the numbers of `nums` (ascending, inside the container) that are marked.
    fn nums(&self, nums: &[u32], base: u32, out: &mut Vec<(u32, u32)>) {
        debug_assert_eq!(base & 0xffff, 0);
        let bit = |n: u32| self.words[(n & 0xffff) as usize / 64] >> (n % 64) & 1;
        let mut hits = [0u32; 256];
        for part in nums.chunks(hits.len()) {
            // Whether any is marked first, in a few instructions a number: most parts of an
            // `And` of two common words hold none.
            if part.iter().fold(0, |any, &n| any | bit(n)) == 0 {
                continue;
            }
            let mut k = 0;
            for &n in part {
                hits[k] = n;
                k += bit(n) as usize;
            }
            hits[..k].iter().for_each(|&n| join(out, n, n));
        }
    }
}

/// The numbers both chunked entries (at `a` and `b` of their uncompressed blocks) hold, as
/// runs, and each entry's largest number; `None` when either entry is not chunked. Container
/// by container: `a`'s group set as bits, `b`'s group tested against them; containers only one
/// entry has are not decoded. What an `And` of two common words starts from, without listing
/// the shorter one's runs first. Checks what it reads as [`decode_entry`] does. Naive twin: the
/// intersection of the two lists.
#[allow(clippy::type_complexity)]
pub fn and_chunked(
    (a_block, a): (&[u8], usize),
    (b_block, b): (&[u8], usize),
) -> Result<Option<(Vec<(u32, u32)>, Option<u32>, Option<u32>)>, String> {
    let (ka, da) = entry_at(a_block, a)?;
    let (kb, db) = entry_at(b_block, b)?;
    if ka != KIND_CHUNKED || kb != KIND_CHUNKED {
        return Ok(None);
    }
    let (ga, gb) = (chunks(da)?, chunks(db)?);
    let buf = &mut [0u32; DELTAS_CHUNK];
    let mut probe = Probe::new();
    let mut out = Vec::new();
    let mut j = 0;
    for c in &ga {
        while gb.get(j).is_some_and(|d| d.base < c.base) {
            j += 1;
        }
        let Some(d) = gb.get(j).filter(|d| d.base == c.base) else {
            continue;
        };
        let marked = chunk_pieces(c, buf, &mut |p| match p {
            Piece::Nums(nums) => probe.set(nums, c.base),
            Piece::Run(first, last) => probe.mark(&[(first, last)], c.base),
        });
        let tested = marked.and_then(|()| {
            chunk_pieces(d, buf, &mut |p| match p {
                Piece::Nums(nums) => probe.nums(nums, d.base, &mut out),
                Piece::Run(first, last) => probe.run(first, last, d.base, &mut out),
            })
        });
        probe.clear();
        tested?;
    }
    let max_a = match ga.last() {
        Some(c) => chunk_max(c, buf)?,
        None => None,
    };
    let max_b = match gb.last() {
        Some(c) => chunk_max(c, buf)?,
        None => None,
    };
    Ok(Some((out, max_a, max_b)))
}

/// Joins to `out` the runs of set bits from `lo` to `hi` of a container from `base`, a word at
/// a time: `word(x)` gives the container's bits from `x` to the end of x's 64-bit word.
#[inline]
fn set_runs(word: impl Fn(u32) -> u64, (lo, hi): (u32, u32), base: u32, out: &mut Vec<(u32, u32)>) {
    let mut x = lo;
    while x <= hi {
        let w = word(x);
        if w & 1 == 0 {
            // Past the zeros (to the word's end when no bit is left in it).
            x += if w == 0 {
                64 - x % 64
            } else {
                w.trailing_zeros()
            };
            continue;
        }
        // The ones from `x` to the end of this word at most; a run going on in the next word
        // is joined there.
        let end = (x + (!w).trailing_zeros() - 1).min(hi);
        join(out, base | x, base | end);
        x = end + 1;
    }
}

/// [`filter_runs_in_entry`] of a portable roaring serialization, read only where candidates
/// lie. The layout [`serialize_roaring`] writes is read in place; another one (with run
/// containers) through the library. Checks the keys and container lengths, and the largest
/// number.
fn roaring_filter_runs(data: &[u8], cands: &mut Vec<(u32, u32)>) -> Result<Option<u32>, String> {
    let Some(all) = containers(data)? else {
        let bm = RoaringBitmap::deserialize_from(data).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for &(a, b) in cands.iter() {
            bm.range(a..=b).for_each(|n| join(&mut out, n, n));
        }
        *cands = out;
        return Ok(bm.max());
    };
    let mut keep = Keep::new(cands);
    for c in &all {
        let high = u32::from(c.key) << 16;
        let top = high | 0xffff;
        keep.skip_below(high);
        while let Some((a, b)) = keep.next() {
            if a > top {
                break;
            }
            // The run's low halves within this container.
            let (lo, hi) = (a.max(high) - high, b.min(top) - high);
            if c.card <= 4096 {
                let value =
                    |k: usize| u32::from(u16::from_le_bytes([c.bytes[2 * k], c.bytes[2 * k + 1]]));
                let (mut k, mut end) = (0, c.card);
                while k < end {
                    let mid = (k + end) / 2;
                    if value(mid) < lo {
                        k = mid + 1;
                    } else {
                        end = mid;
                    }
                }
                while k < c.card && value(k) <= hi {
                    join(&mut keep.out, high | value(k), high | value(k));
                    k += 1;
                }
            } else {
                let word = |x: u32| {
                    let w = 8 * (x / 64) as usize;
                    u64::from_le_bytes(c.bytes[w..w + 8].try_into().expect("8 bytes")) >> (x % 64)
                };
                set_runs(word, (lo, hi), high, &mut keep.out);
            }
            if b > top {
                break;
            }
            keep.i += 1;
        }
    }
    *cands = keep.out;
    match all.last() {
        Some(c) => Ok(Some(
            u32::from(c.key) << 16 | container_max(c.card, c.bytes)?,
        )),
        None => Ok(None),
    }
}

/// The bitmap of `runs` (ascending, disjoint, not adjacent), each container allocated once in
/// its smallest form.
pub fn bitmap_of_runs(runs: &[(u32, u32)]) -> RoaringBitmap {
    let built = bitmap::build(0, |b| {
        runs.iter()
            .for_each(|&(first, last)| b.push_run(first, last));
        Ok(())
    });
    built.expect("a builder fed ascending runs serializes a sound bitmap")
}

/// The largest low half of a serialized roaring container of `card` numbers (an array of
/// `card` values when at most 4096, else 8 KiB of bits).
fn container_max(card: usize, bytes: &[u8]) -> Result<u32, String> {
    let low = if card <= 4096 {
        let b = &bytes[bytes.len() - 2..];
        Some(u32::from(u16::from_le_bytes([b[0], b[1]])))
    } else {
        bytes.chunks_exact(8).enumerate().rev().find_map(|(i, w)| {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            (w != 0).then(|| i as u32 * 64 + 63 - w.leading_zeros())
        })
    };
    low.ok_or_else(|| "roaring bitmap: empty container".to_string())
}

/// Numbers decoded before they are handed on: a tight loop fills a buffer on the stack, and
/// the consumer (a bitmap builder) takes a slice at a time.
const DELTAS_CHUNK: usize = 1024;

/// Decodes [`KIND_DELTAS`] entry data into `chunk` and hands each filled part to `take`, in
/// order; checks that the numbers ascend strictly and stay within u32. A common term's gaps
/// take one byte (eight of them are read with one load and one test, and summed by
/// [`gaps8`]) with a two-byte one now and then (read in the same loop), and a sparser term's
/// mostly two (read one at a time); longer ones are read through [`Reader::varint`].
fn deltas_in_chunks(
    data: &[u8],
    base: u64,
    chunk: &mut [u32; DELTAS_CHUNK],
    mut take: impl FnMut(&[u32]),
) -> Result<(), String> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LIMIT: u64 = u32::MAX as u64;
    if data.is_empty() {
        return Ok(());
    }
    // The first number is a gap from 0, and may be 0.
    let mut r = Reader::new(data);
    let mut prev = base.saturating_add(r.varint()?);
    let mut i = r.pos();
    let mut n = 0;
    loop {
        if prev > LIMIT {
            return Err("event number overflow".into());
        }
        if n == DELTAS_CHUNK {
            take(&chunk[..]);
            n = 0;
        }
        chunk[n] = prev as u32;
        n += 1;
        // Eight bytes at a time: the one-byte gaps before the first byte with its high bit set
        // (all eight when none has it), none 0 (a 0 byte is a repeated number), then the
        // two-byte gap that byte starts. A common term's gaps are mostly one byte with a
        // two-byte one every few words, where the walk used to leave this loop.
        while n + 9 <= DELTAS_CHUNK && prev <= LIMIT - 8 * 127 - 0x3fff {
            let Some(w) = data.get(i..i + 8) else { break };
            if w[0] & 0x80 != 0 {
                // A sparse term's gaps, mostly two bytes, are read one at a time below.
                break;
            }
            let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            let high = x & HIGH;
            if high == 0 {
                // Apart, so that the next load's address does not wait on this word.
                if x.wrapping_sub(ONES) & !x & HIGH != 0 {
                    return Err("postings not strictly ascending".into());
                }
                let out = (&mut chunk[n..n + 8]).try_into().expect("8 numbers");
                // In u32: `prev` is at most `LIMIT - 8 * 127` here.
                prev = u64::from(gaps8(x, prev as u32, out));
                n += 8;
                i += 8;
                continue;
            }
            // The bytes below the first high bit, and how many (at least one).
            let k = (high.trailing_zeros() / 8) as usize;
            let low = (1u64 << (8 * k)) - 1;
            if x.wrapping_sub(ONES) & !x & HIGH & low != 0 {
                return Err("postings not strictly ascending".into());
            }
            let out = (&mut chunk[n..n + 8]).try_into().expect("8 numbers");
            // The bytes past `k` count 0.
            prev = u64::from(gaps8(x & low, prev as u32, out));
            n += k;
            i += k;
            let (a, b) = (data[i], data.get(i + 1).copied().unwrap_or(0x80));
            if b & 0x80 != 0 {
                // Longer, or cut short: read below.
                break;
            }
            let gap = u64::from(a & 0x7f) | u64::from(b) << 7;
            if gap == 0 {
                return Err("postings not strictly ascending".into());
            }
            prev += gap;
            chunk[n] = prev as u32;
            n += 1;
            i += 2;
        }
        let gap = match data.get(i..i + 2) {
            // One or two bytes, without a branch on which (a sparse term's gaps mix them).
            Some(&[a, b]) if a & b & 0x80 == 0 => {
                let two = u64::from(a >> 7);
                i += 1 + two as usize;
                u64::from(a & 0x7f) | (u64::from(b) << 7 & 0u64.wrapping_sub(two))
            }
            _ if i >= data.len() => break,
            _ => {
                let mut r = Reader::new(&data[i..]);
                let gap = r.varint()?;
                i += r.pos();
                gap
            }
        };
        if gap == 0 {
            return Err("postings not strictly ascending".into());
        }
        prev = prev.saturating_add(gap);
    }
    take(&chunk[..n]);
    Ok(())
}

/// Writes to `out` the eight numbers that follow `prev` by the one-byte gaps of `x` (each below
/// 128, low byte first) and returns the last. With SSE2 on x86_64 (always there): the sums
/// within the word are taken in vector lanes, so the gaps do not wait on each other.
#[inline]
#[allow(unsafe_code)] // The call of the SSE2 version, which every x86_64 processor has.
fn gaps8(x: u64, prev: u32, out: &mut [u32; 8]) -> u32 {
    // SAFETY: SSE2 is part of the x86_64 baseline (the compiler assumes it for every target).
    #[cfg(target_arch = "x86_64")]
    return unsafe { gaps8_sse2(x, prev, out) };
    #[cfg(not(target_arch = "x86_64"))]
    return gaps8_scalar(x, prev, out);
}

/// [`gaps8`] a gap at a time. Naive twin of [`gaps8_sse2`].
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn gaps8_scalar(x: u64, mut prev: u32, out: &mut [u32; 8]) -> u32 {
    for (k, o) in out.iter_mut().enumerate() {
        prev += (x >> (8 * k) & 0xff) as u32;
        *o = prev;
    }
    prev
}

/// [`gaps8`] in SSE2 (part of x86_64): the bytes widened to eight u16 lanes, summed in three
/// shifted adds (at most 8 · 127), widened to u32 and offset by `prev`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "sse2")]
#[allow(unsafe_code)] // Two unaligned stores into `out`; the block says why they are sound.
fn gaps8_sse2(x: u64, prev: u32, out: &mut [u32; 8]) -> u32 {
    use std::arch::x86_64::*;
    let zero = _mm_setzero_si128();
    let v = _mm_unpacklo_epi8(_mm_cvtsi64_si128(x as i64), zero);
    let v = _mm_add_epi16(v, _mm_slli_si128::<2>(v));
    let v = _mm_add_epi16(v, _mm_slli_si128::<4>(v));
    let v = _mm_add_epi16(v, _mm_slli_si128::<8>(v));
    let p = _mm_set1_epi32(prev as i32);
    let lo = _mm_add_epi32(_mm_unpacklo_epi16(v, zero), p);
    let hi = _mm_add_epi32(_mm_unpackhi_epi16(v, zero), p);
    // SAFETY: `out` is eight u32, 32 writable bytes: the two 16-byte stores, which need no
    // alignment, write its first and last four.
    unsafe {
        _mm_storeu_si128(out.as_mut_ptr().cast(), lo);
        _mm_storeu_si128(out.as_mut_ptr().add(4).cast(), hi);
    }
    prev + _mm_extract_epi16::<7>(v) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn runs_chosen_for_consecutive_numbers() {
        let list: Vec<u32> = (1000..3000).collect();
        let mut postings = Vec::new();
        encode_in_block(&list, 0, &mut postings);
        assert_eq!(postings[0], KIND_RUNS);
        assert!(postings.len() < 8, "{} bytes", postings.len());
        // A tie (two bytes either way) keeps the deltas.
        let mut entry = Vec::new();
        encode(&[5, 6], &mut entry, false);
        assert_eq!(entry, [KIND_DELTAS, 2, 5, 1]);
    }

    #[test]
    fn among_in_a_roaring_entry_is_its_intersection() {
        // Every other number below 80,000: two bitmap containers, smaller than any other layout.
        let list: Vec<u32> = (0..40_000).map(|i| i * 2).collect();
        let mut entry = Vec::new();
        assert_eq!(encode(&list, &mut entry, false), None);
        assert_eq!(entry[0], KIND_ROARING);
        let among: RoaringBitmap = [0, 1, 2, 50_000, 79_998, 90_000].into_iter().collect();
        let (got, max) = among_in_entry(&entry, 0, &among).unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), [0, 2, 50_000, 79_998]);
        assert_eq!(max, Some(79_998));
    }

    #[test]
    fn bitmap_of_sorted_skips_what_does_not_ascend() {
        let list = [3u32, 3, 4, 2, 9, 70_000, 70_000, 70_001];
        let got = bitmap_of_sorted(list.into_iter());
        assert_eq!(got.iter().collect::<Vec<_>>(), [3, 4, 9, 70_000, 70_001]);
        let long: Vec<u32> = (0..5000).map(|i| i * 3).collect();
        assert_eq!(
            bitmap_of_sorted(long.iter().copied()),
            long.iter().copied().collect::<RoaringBitmap>()
        );
        assert!(bitmap_of_sorted(std::iter::empty()).is_empty());
    }

    #[test]
    fn deltas_refuse_repeats_and_overflow_wherever_they_fall() {
        // A repeated number (gap 0) after the first, in a run of one-byte gaps the decoder
        // reads eight at a time, among two-byte gaps, and at the end.
        let entry = |gaps: &[u64]| {
            let mut data = Vec::new();
            gaps.iter().for_each(|&g| put_varint(&mut data, g));
            let mut e = vec![KIND_DELTAS];
            put_varint(&mut e, data.len() as u64);
            e.extend_from_slice(&data);
            e
        };
        let ok: Vec<u64> = [0].into_iter().chain([1; 20]).chain([300; 5]).collect();
        assert_eq!(decode_entry(&entry(&ok), 0).unwrap().len(), 26);
        for at in [3, 12, 22, 25] {
            let mut bad = ok.clone();
            bad[at] = 0;
            assert!(decode_entry(&entry(&bad), 0).is_err(), "repeat at {at}");
            assert!(decode_entry_into(&entry(&bad), 0, &mut Vec::new()).is_err());
        }
        for big in [
            [u64::from(u32::MAX), 1].as_slice(),
            &[1 << 40],
            &[u64::from(u32::MAX) - 3, 1, 1, 1, 1, 1, 1, 1, 1],
        ] {
            assert!(decode_entry(&entry(big), 0).is_err(), "{big:?}");
        }
    }

    #[test]
    fn roaring_read_straight_refuses_repeats_and_unsorted_keys() {
        let serialized = |nums: &[u32]| {
            let bm: RoaringBitmap = nums.iter().copied().collect();
            let mut data = Vec::new();
            bm.serialize_into(&mut data).unwrap();
            data
        };
        // {5, 6}: one container; its values start after 8 + 8 bytes of header.
        let mut data = serialized(&[5, 6]);
        data[18] = 5;
        assert!(roaring_into(&data, &mut Vec::new()).is_err());
        // Keys 0 and 1 swapped.
        let mut data = serialized(&[5, 70_000]);
        data.swap(8, 12);
        assert!(roaring_into(&data, &mut Vec::new()).is_err());
        let mut ok = Vec::new();
        roaring_into(&serialized(&[5, 70_000]), &mut ok).unwrap();
        assert_eq!(ok, [5, 70_000]);
    }

    proptest! {
        #[test]
        fn eight_gaps_summed_in_vector_lanes_as_one_by_one(
            gaps in proptest::array::uniform8(0u8..128),
            prev in prop_oneof![0u32..1000, (u32::MAX - 8 * 127)..=(u32::MAX - 8 * 127)],
        ) {
            let x = u64::from_le_bytes(gaps);
            let (mut fast, mut slow) = ([0u32; 8], [0u32; 8]);
            let last = gaps8(x, prev, &mut fast);
            prop_assert_eq!(last, gaps8_scalar(x, prev, &mut slow));
            prop_assert_eq!(fast, slow);
        }

        #[test]
        fn deltas_of_mixed_widths_decode_as_written(
            gaps in proptest::collection::vec(
                prop_oneof![6 => 1u32..128, 2 => 128u32..16_384, 1 => 16_384u32..3_000_000],
                1..3000,
            ),
            first in 0u32..1000,
            bad in any::<prop::sample::Index>(),
            zero in prop_oneof![Just(vec![0u8]), Just(vec![0x80u8, 0])],
        ) {
            let mut list = vec![first];
            for g in &gaps {
                list.push(list.last().unwrap() + g);
            }
            let mut data = Vec::new();
            let mut prev = 0;
            for &x in &list {
                put_varint(&mut data, u64::from(x - prev));
                prev = x;
            }
            let mut got = Vec::new();
            deltas_in_chunks(&data, 0, &mut [0; DELTAS_CHUNK], |n| got.extend_from_slice(n))
                .unwrap();
            prop_assert_eq!(&got, &list);
            // A gap of 0, one byte or two, inserted after any gap but the first.
            let ends: Vec<usize> = (1..=data.len()).filter(|&e| data[e - 1] < 0x80).collect();
            let at = ends[bad.index(ends.len())];
            data.splice(at..at, zero);
            let r = deltas_in_chunks(&data, 0, &mut [0; DELTAS_CHUNK], |_| {});
            prop_assert!(r.is_err());
        }

        #[test]
        fn round_trip(
            mut list in proptest::collection::vec(0u32..200_000, 1..300),
            runs in proptest::collection::vec((0u32..300_000, 1u32..500), 0..4),
        ) {
            for (start, len) in runs {
                list.extend(start..start + len);
            }
            list.sort_unstable();
            list.dedup();
            let mut postings = vec![9u8; 3];
            let v = encode_in_block(&list, 5, &mut postings);
            let got: Vec<u32> = match decode_value(v) {
                Value::Inline(n) => vec![n],
                Value::Entry { block, offset } => {
                    prop_assert_eq!(block, 5);
                    prop_assert_eq!(offset, 3);
                    decode_entry(&postings, offset).unwrap().into_iter().collect()
                }
            };
            prop_assert_eq!(&got, &list);
            // Straight into a list (what a merge reads), after numbers already there, for the
            // layout the writer picks either way.
            for read_whole in [false, true] {
                let mut entry = Vec::new();
                if encode(&list, &mut entry, read_whole).is_none() {
                    let mut into = vec![7, 8];
                    decode_entry_into(&entry, 0, &mut into).unwrap();
                    prop_assert_eq!(&into[..2], &[7, 8]);
                    prop_assert_eq!(&into[2..], &list[..]);
                    let bm: Vec<u32> = decode_entry(&entry, 0).unwrap().into_iter().collect();
                    prop_assert_eq!(&bm, &list);
                }
            }
        }

        /// A roaring entry read straight into a list gives the library's numbers, with array
        /// and bitmap containers; damaged bytes never panic, and are not accepted where the
        /// library refuses them.
        #[test]
        fn roaring_read_straight_matches_the_library(
            set in proptest::collection::btree_set(0u32..100_000, 0..12_000),
            flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..3),
        ) {
            let bm: RoaringBitmap = set.iter().copied().collect();
            let mut data = Vec::new();
            bm.serialize_into(&mut data).unwrap();
            for (at, x) in &flips {
                let i = at.index(data.len());
                data[i] ^= x;
            }
            let mut ours = vec![1, 2];
            let got = roaring_into(&data, &mut ours);
            match (got, RoaringBitmap::deserialize_from(&data[..])) {
                (Ok(()), Ok(lib)) => {
                    prop_assert_eq!(&ours[..2], &[1, 2]);
                    prop_assert_eq!(ours[2..].to_vec(), lib.iter().collect::<Vec<_>>());
                }
                (Ok(()), Err(e)) => prop_assert!(false, "accepted what the library refuses: {e}"),
                (Err(e), _) => prop_assert!(!flips.is_empty(), "refused a sound bitmap: {e}"),
            }
        }

        /// `hits_in_entry` names exactly the candidates the list holds, in order, and the
        /// list's largest number, whichever kind the writer picked (sparse lists are deltas,
        /// dense ones roaring, long runs runs); `among_in_entry` gives them as a bitmap.
        #[test]
        fn hits_are_the_candidates_the_entry_holds(
            mut list in proptest::collection::vec(0u32..20_000, 1..3000),
            runs in proptest::collection::vec((0u32..30_000, 1u32..2000), 0..3),
            cands in proptest::collection::btree_set(0u32..32_000, 0..400),
        ) {
            for (start, len) in runs {
                list.extend(start..start + len);
            }
            list.sort_unstable();
            list.dedup();
            let cands: Vec<u32> = cands.into_iter().collect();
            for read_whole in [false, true] {
                let mut entry = Vec::new();
                if encode(&list, &mut entry, read_whole).is_none() {
                    let mut got = Vec::new();
                    let max = hits_in_entry(&entry, 0, &cands, |j| got.push(j)).unwrap();
                    let want: Vec<usize> = (0..cands.len())
                        .filter(|&j| list.binary_search(&cands[j]).is_ok())
                        .collect();
                    prop_assert_eq!(got, want);
                    prop_assert_eq!(max, list.last().copied());
                    let among: RoaringBitmap = cands.iter().copied().collect();
                    let full: RoaringBitmap = list.iter().copied().collect();
                    let (bits, max) = among_in_entry(&entry, 0, &among).unwrap();
                    prop_assert_eq!(bits, full & &among);
                    prop_assert_eq!(max, list.last().copied());
                }
            }
        }

        /// The entry the writer picks is byte for byte what writing every layout and keeping
        /// the smallest gives (the encoder counts sizes first; this twin writes them all),
        /// for lists with gaps of every varint length and runs.
        #[test]
        fn counted_layout_is_the_smallest_written_one(
            scale in 0usize..7,
            gaps in proptest::collection::vec(any::<u32>(), 1..12_000),
            start in prop_oneof![0u32..3, 0u32..u32::MAX / 2],
            read_whole in any::<bool>(),
        ) {
            // One gap scale per list, so that each layout wins somewhere and runs tie with
            // deltas (gaps of 1 or 2): runs, one-byte deltas, roaring bitmaps (long dense
            // lists) and arrays (gaps of two- and three-byte varints); gaps of five-byte
            // varints in short lists.
            let bound = [2u32, 3, 128, 16_384, 70_000, u32::MAX / 12_000, u32::MAX / 4][scale];
            let mut list = Vec::new();
            let mut x = start;
            for g in gaps {
                list.push(x);
                x = match x.checked_add(1 + g % bound) { Some(y) if y < u32::MAX => y, _ => break };
            }
            prop_assume!(list.len() >= 2);
            let mut got = Vec::new();
            prop_assert_eq!(encode(&list, &mut got, read_whole), None);
            prop_assert_eq!(got, smallest_twin(&list, read_whole));
        }

        /// Every reader of an entry gives its list, whatever layout the writer picked (chunked
        /// ones among them: long deltas or runs lists over several containers, with groups of
        /// every layout); a window's read is the list cut to the window's containers, with the
        /// list's largest number; damaged bytes never panic.
        #[test]
        fn every_read_of_an_entry_is_its_list(
            sparse in proptest::collection::btree_set(0u32..400_000, 1..3_000),
            runs in proptest::collection::vec((0u32..400_000, 1u32..70_000), 0..3),
            dense_from in proptest::option::of(0u32..300_000),
            keys in proptest::collection::btree_set(0u16..8, 0..5),
            cands in prop_oneof![
                proptest::collection::btree_set(0u32..500_000, 0..8),
                proptest::collection::btree_set(0u32..500_000, 0..600),
            ],
            flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..3),
            spans in proptest::collection::vec((0u32..500_000, 0u32..90_000), 0..48),
        ) {
            let mut set = sparse;
            for (start, len) in runs {
                set.extend(start..start + len);
            }
            if let Some(d) = dense_from {
                set.extend((d..d + 40_000).step_by(3));
            }
            let list: Vec<u32> = set.into_iter().collect();
            let keys: Vec<u16> = keys.into_iter().collect();
            let cands: Vec<u32> = cands.into_iter().collect();
            let among: RoaringBitmap = cands.iter().copied().collect();
            let full: RoaringBitmap = list.iter().copied().collect();
            let mut mask = RoaringBitmap::new();
            for &k in &keys {
                mask.insert_range(u32::from(k) << 16..(u32::from(k) + 1) << 16);
            }
            for read_whole in [false, true] {
                let mut entry = Vec::new();
                if encode(&list, &mut entry, read_whole).is_some() {
                    continue;
                }
                prop_assert_eq!(decode_entry(&entry, 0).unwrap(), full.clone());
                let mut into = Vec::new();
                decode_entry_into(&entry, 0, &mut into).unwrap();
                prop_assert_eq!(&into, &list);
                let mut hits = Vec::new();
                let max = hits_in_entry(&entry, 0, &cands, |j| hits.push(cands[j])).unwrap();
                prop_assert_eq!(max, list.last().copied());
                prop_assert_eq!(hits.iter().copied().collect::<RoaringBitmap>(), &full & &among);
                let (bits, max) = among_in_entry(&entry, 0, &among).unwrap();
                prop_assert_eq!(bits, &full & &among);
                prop_assert_eq!(max, list.last().copied());
                let (bits, max) = decode_entry_in(&entry, 0, &keys).unwrap();
                prop_assert_eq!(bits, &full & &mask);
                prop_assert_eq!(max, list.last().copied());
                let len = list.len() as u64;
                let runs = 1 + list.windows(2).filter(|w| w[1] != w[0] + 1).count() as u64;
                let pieces = entry_len(&entry, 0, u64::MAX).unwrap();
                prop_assert!(runs <= pieces && pieces <= len, "{runs} {pieces} {len}");
                for limit in [0, pieces / 3, pieces - 1, pieces] {
                    let n = entry_len(&entry, 0, limit).unwrap();
                    prop_assert!(if pieces > limit { n > limit } else { n == pieces }, "{n} {limit}");
                }
                // Candidates as runs, narrowed by the entry: the numbers both hold, as runs;
                // and the entry's own runs.
                let mut runs = Vec::new();
                cands.iter().for_each(|&n| join(&mut runs, n, n));
                let max = filter_runs_in_entry(&entry, 0, &mut runs).unwrap();
                prop_assert_eq!(max, list.last().copied());
                prop_assert_eq!(bitmap_of_runs(&runs), &full & &among);
                prop_assert!(runs.windows(2).all(|w| w[0].1 + 1 < w[1].0), "{runs:?}");
                let mut own = Vec::new();
                prop_assert_eq!(runs_into(&entry, 0, &mut own).unwrap(), list.last().copied());
                prop_assert_eq!(bitmap_of_runs(&own), full.clone());
                prop_assert!(own.windows(2).all(|w| w[0].1 + 1 < w[1].0), "{own:?}");
                // Long candidate runs (the tenth of each 64 Ki) narrowed by the entry.
                let mut wide: Vec<(u32, u32)> = (0..8u32).map(|k| (k << 16 | 300, k << 16 | 7000)).collect();
                let wide_bits = bitmap_of_runs(&wide);
                filter_runs_in_entry(&entry, 0, &mut wide).unwrap();
                prop_assert_eq!(bitmap_of_runs(&wide), &full & &wide_bits);
                // Two chunked entries intersected container by container.
                let other: Vec<u32> = spanned_list(&spans);
                let mut other_entry = Vec::new();
                if !other.is_empty() && encode(&other, &mut other_entry, read_whole).is_none() {
                    let other_bits: RoaringBitmap = other.iter().copied().collect();
                    for (x, y, xs, ys) in [
                        (&entry, &other_entry, &list, &other),
                        (&other_entry, &entry, &other, &list),
                    ] {
                        if let Some((runs, mx, my)) = and_chunked((x, 0), (y, 0)).unwrap() {
                            prop_assert_eq!(bitmap_of_runs(&runs), &full & &other_bits);
                            prop_assert!(runs.windows(2).all(|w| w[0].1 + 1 < w[1].0), "{runs:?}");
                            prop_assert_eq!((mx, my), (xs.last().copied(), ys.last().copied()));
                        } else {
                            prop_assert!(x[0] != KIND_CHUNKED || y[0] != KIND_CHUNKED);
                        }
                    }
                    let mut bad = other_entry.clone();
                    for (at, x) in &flips {
                        let i = at.index(bad.len());
                        bad[i] ^= x;
                    }
                    let _ = and_chunked((&entry, 0), (&bad, 0));
                    let _ = and_chunked((&bad, 0), (&entry, 0));
                }
                // Many candidate runs of any length, some across containers.
                let mut spanned = RoaringBitmap::new();
                for &(start, len) in &spans {
                    spanned.insert_range(start..=start + len);
                }
                let mut runs = Vec::new();
                spanned.iter().for_each(|n| join(&mut runs, n, n));
                filter_runs_in_entry(&entry, 0, &mut runs).unwrap();
                prop_assert_eq!(bitmap_of_runs(&runs), &full & &spanned);
                prop_assert!(runs.windows(2).all(|w| w[0].1 + 1 < w[1].0), "{runs:?}");
                // Damaged: any answer or an error, never a panic.
                let mut bad = entry.clone();
                for (at, x) in &flips {
                    let i = at.index(bad.len());
                    bad[i] ^= x;
                }
                let _ = decode_entry(&bad, 0);
                let _ = decode_entry_into(&bad, 0, &mut into);
                let _ = hits_in_entry(&bad, 0, &cands, |_| ());
                let _ = among_in_entry(&bad, 0, &among);
                let _ = decode_entry_in(&bad, 0, &keys);
                let _ = filter_runs_in_entry(&bad, 0, &mut vec![(0, 1 << 20)]);
                let _ = runs_into(&bad, 0, &mut Vec::new());
                let _ = entry_len(&bad, 0, u64::MAX);
            }
        }

        #[test]
        fn roaring_size_matches_the_library(
            mut list in proptest::collection::vec(0u32..400_000, 0..300),
            runs in proptest::collection::vec((0u32..300_000, 1u32..9000), 0..3),
        ) {
            for (start, len) in runs {
                list.extend(start..start + len);
            }
            list.sort_unstable();
            list.dedup();
            let bm = RoaringBitmap::from_sorted_iter(list.iter().copied()).unwrap();
            prop_assert_eq!(roaring_size(&list), bm.serialized_size());
            let mut want = Vec::new();
            bm.serialize_into(&mut want).unwrap();
            let mut got = vec![1, 2];
            serialize_roaring(&list, &mut got);
            prop_assert_eq!(&got[..2], &[1, 2]);
            prop_assert_eq!(&got[2..], &want[..]);
        }
    }

    /// A second list from `spans`: a short span whole, a longer one every 3rd to 42nd number
    /// (so its containers are deltas groups, runs or bitmaps).
    fn spanned_list(spans: &[(u32, u32)]) -> Vec<u32> {
        let mut set = std::collections::BTreeSet::new();
        for &(start, len) in spans {
            if len < 500 {
                set.extend(start..=start + len);
            } else {
                set.extend((start..=start + len).step_by(3 + (len % 40) as usize));
            }
        }
        set.into_iter().collect()
    }

    /// The entry of `list` (strictly ascending, at least one number) as writing every layout
    /// and keeping the smallest gives, chunked by container (each group the same way) when it
    /// is a deltas or runs entry of at least [`CHUNKED_MIN_BYTES`] over several containers and
    /// not `read_whole`.
    fn smallest_twin(list: &[u32], read_whole: bool) -> Vec<u8> {
        let mut want = Vec::new();
        for (kind, data) in [
            (KIND_DELTAS, {
                let (mut d, mut prev) = (Vec::new(), 0);
                for &x in list {
                    put_varint(&mut d, u64::from(x - prev));
                    prev = x;
                }
                d
            }),
            (KIND_RUNS, {
                let mut d = Vec::new();
                encode_runs(list, &mut d);
                d
            }),
        ] {
            if want.is_empty() || data.len() < want.len() - 1 {
                want = [&[kind][..], &data].concat();
            }
        }
        if list.len() >= ROARING_MIN_LEN {
            let mut r = Vec::new();
            serialize_roaring(list, &mut r);
            let slack = if read_whole { (want.len() - 1) / 4 } else { 0 };
            if r.len() < want.len() - 1 + slack {
                want = [&[KIND_ROARING][..], &r].concat();
            }
        }
        if !read_whole
            && want[0] != KIND_ROARING
            && want.len() > CHUNKED_MIN_BYTES
            && list[0] >> 16 != list[list.len() - 1] >> 16
        {
            let (mut head, mut body) = (Vec::new(), Vec::new());
            let mut keys: Vec<u32> = list.iter().map(|&n| n >> 16).collect();
            keys.dedup();
            put_varint(&mut head, keys.len() as u64);
            let mut prev = 0;
            for &k in &keys {
                put_varint(&mut head, u64::from(k - prev));
                prev = k;
                let low: Vec<u32> = list
                    .iter()
                    .filter(|&&n| n >> 16 == k)
                    .map(|&n| n & 0xffff)
                    .collect();
                body.extend(smallest_twin(&low, false));
            }
            want = [&[KIND_CHUNKED][..], &head, &body].concat();
        }
        let mut expect = vec![want[0]];
        put_varint(&mut expect, (want.len() - 1) as u64);
        expect.extend_from_slice(&want[1..]);
        expect
    }
}
