//! Layout of `columns.dat` (version [`COLUMNS_VERSION`]; see docs/format/columns.md):
//!
//! ```text
//! body  = block × nblocks | head | head_len u64 | head_xxh3 u64 | version u32
//! block = zstd frames of a block body (module `block`): its time prefix, then the rest (one
//!         frame of the whole body in files written before 2026-11-26); checksummed in the head
//! head  = inner_len u64 | zstd frame of inner
//! inner = events varint | block_events varint | nblocks varint
//!         per block: clen varint | ulen varint | xxh3(compressed) u64 | min_time ivarint | max_time ivarint
//!         hosts | sources | sourcetypes          (count varint | str × count each)
//! ```
//!
//! Block `i` holds events `i·block_events ..` (the last one the rest); blocks follow each other
//! from offset 0, so offsets are the running sum of `clen`.

use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use crate::codec::{put_ivarint, put_str, put_varint, Reader};
use crate::columns::block::{decode_block, encode_block};
use crate::columns::Columns;
use crate::consts::{COLUMNS_BLOCK_EVENTS, COLUMNS_VERSION, MAX_LOADED_FILE, ZSTD_LEVEL};
use crate::error::StoreError;

/// Bytes after the head: `head_len u64 | head_xxh3 u64 | version u32`.
pub const TRAILER_LEN: u64 = 20;

/// One entry of the block table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    /// Start of the compressed block in the body, bytes.
    pub offset: u64,
    /// Compressed length, bytes.
    pub clen: u32,
    /// Uncompressed length, bytes.
    pub ulen: u32,
    /// xxh3-64 of the compressed bytes.
    pub checksum: u64,
    /// Event number of the block's first event.
    pub first: u32,
    /// Events in the block.
    pub count: u32,
    /// Smallest `_time` in the block, µs.
    pub min_time: i64,
    /// Largest `_time` in the block, µs.
    pub max_time: i64,
}

/// The decoded head: block table and dictionaries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    /// Events in the file.
    pub events: u32,
    /// Events per block (every block but the last holds exactly this many; never 0).
    pub block_events: u32,
    /// Block table, in event order.
    pub blocks: Vec<BlockEntry>,
    /// Host, source and sourcetype names by id.
    pub dicts: [Vec<String>; 3],
}

impl Head {
    /// Lengths of the host, source and sourcetype dictionaries.
    pub fn dict_lens(&self) -> [usize; 3] {
        [0, 1, 2].map(|i| self.dicts[i].len())
    }
}

impl Columns {
    /// Serialises the `columns.dat` body (see the module docs).
    pub fn encode(&self, out: &mut Vec<u8>) -> std::io::Result<()> {
        let dicts = [&self.hosts[..], &self.sources[..], &self.sourcetypes[..]];
        encode_parts(std::iter::once(self), dicts, out)
    }

    /// Parses and validates a whole body (every block checked and decoded).
    pub fn decode(path: &Path, body: &[u8]) -> Result<Columns, StoreError> {
        let body_len = body.len() as u64;
        let t = body_len.saturating_sub(TRAILER_LEN) as usize;
        let (head_len, head_sum) = parse_trailer(path, &body[t..], body_len)?;
        let head_start = t - head_len as usize;
        let head = parse_head(path, &body[head_start..t], head_sum, head_start as u64)?;
        decode_all(path, &head, &body[..head_start])
    }
}

/// Checks the trailer (the last [`TRAILER_LEN`] bytes of a body of `body_len` bytes) and its
/// layout version; returns the head's length and checksum.
pub fn parse_trailer(path: &Path, trailer: &[u8], body_len: u64) -> Result<(u64, u64), StoreError> {
    if body_len < TRAILER_LEN || trailer.len() as u64 != TRAILER_LEN {
        return Err(StoreError::corrupt(
            path,
            "columns body shorter than its trailer",
        ));
    }
    let word = |i: usize| u64::from_le_bytes(trailer[i..i + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(trailer[16..20].try_into().expect("4 bytes"));
    if version != COLUMNS_VERSION {
        return Err(StoreError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: COLUMNS_VERSION,
        });
    }
    let head_len = word(0);
    if head_len > body_len - TRAILER_LEN {
        return Err(StoreError::corrupt(
            path,
            "columns head length out of range",
        ));
    }
    Ok((head_len, word(8)))
}

/// Verifies and parses the head; `blocks_len` is the byte length of the block area before it.
pub fn parse_head(path: &Path, head: &[u8], sum: u64, blocks_len: u64) -> Result<Head, StoreError> {
    let bad = |r: &str| StoreError::corrupt(path, format!("columns head: {r}"));
    if xxh3_64(head) != sum {
        return Err(bad("checksum mismatch"));
    }
    let inner = crate::packed::unpack(path, head)?;
    let mut r = Reader::new(&inner);
    let events = u32::try_from(r.varint().map_err(bad)?).map_err(|_| bad("events beyond u32"))?;
    let per = r.varint().map_err(bad)?;
    let nblocks = r.varint().map_err(bad)?;
    if per == 0 || per > u32::MAX as u64 || nblocks != (events as u64).div_ceil(per) {
        return Err(bad("block count does not match the event count"));
    }
    let mut blocks = Vec::with_capacity(nblocks as usize);
    let (mut offset, mut total) = (0u64, 0u64);
    for i in 0..nblocks {
        let clen = r.varint().map_err(bad)?;
        let ulen = r.varint().map_err(bad)?;
        let checksum = r.u64().map_err(bad)?;
        let min_time = r.ivarint().map_err(bad)?;
        let max_time = r.ivarint().map_err(bad)?;
        // zstd cannot expand more than ~2^17 times; a larger claim is damage, not data.
        total = total.saturating_add(ulen);
        if clen > u32::MAX as u64 || ulen > clen.saturating_mul(1 << 17) || total > MAX_LOADED_FILE
        {
            return Err(bad("implausible block length"));
        }
        let first = i * per;
        blocks.push(BlockEntry {
            offset,
            clen: clen as u32,
            ulen: ulen as u32,
            checksum,
            first: first as u32,
            count: (events as u64 - first).min(per) as u32,
            min_time,
            max_time,
        });
        offset += clen;
    }
    if offset != blocks_len {
        return Err(bad("blocks do not fill the space before the head"));
    }
    let mut dicts: [Vec<String>; 3] = Default::default();
    for d in &mut dicts {
        let count = r.varint().map_err(bad)?;
        if count > inner.len() as u64 {
            return Err(bad("dictionary larger than the head"));
        }
        for _ in 0..count {
            d.push(r.str().map_err(bad)?.to_string());
        }
    }
    if !r.is_empty() {
        return Err(bad("trailing bytes after the dictionaries"));
    }
    Ok(Head {
        events,
        block_events: per as u32,
        blocks,
        dicts,
    })
}

/// Verifies, decompresses and decodes one block's compressed bytes `comp`, appending its events
/// to `into`. `out` is a reusable decompression buffer.
pub fn decode_block_at(
    path: &Path,
    head: &Head,
    index: usize,
    comp: &[u8],
    out: &mut Vec<u8>,
    into: &mut Columns,
) -> Result<(), StoreError> {
    decompress_block(path, head, index, comp, out)?;
    let e = &head.blocks[index];
    let bad = |r: &str| StoreError::corrupt(path, format!("columns block {index}: {r}"));
    let base = into.len();
    decode_block(out, e.count as usize, head.dict_lens(), into).map_err(bad)?;
    if into.times[base..]
        .iter()
        .any(|&t| t < e.min_time || t > e.max_time)
    {
        return Err(bad("a time lies outside the block's range"));
    }
    Ok(())
}

/// Checks block `index`'s compressed bytes `comp` against the block table and decompresses
/// them into `out` (cleared first).
pub fn decompress_block(
    path: &Path,
    head: &Head,
    index: usize,
    comp: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StoreError> {
    let e = checked_block(path, head, index, comp)?;
    crate::dctx::decompress(comp, None, e.ulen as usize, out).map_err(|err| bad(path, index, &err))
}

/// Block `index`'s table entry, once its compressed bytes `comp` match its length and checksum.
fn checked_block<'h>(
    path: &Path,
    head: &'h Head,
    index: usize,
    comp: &[u8],
) -> Result<&'h BlockEntry, StoreError> {
    let e = &head.blocks[index];
    if comp.len() != e.clen as usize || xxh3_64(comp) != e.checksum {
        return Err(bad(path, index, "checksum mismatch"));
    }
    Ok(e)
}

/// Corruption of block `index` of `path`.
fn bad(path: &Path, index: usize, reason: &str) -> StoreError {
    StoreError::corrupt(path, format!("columns block {index}: {reason}"))
}

/// Checks block `index`'s compressed bytes `comp` like [`decompress_block`] and decompresses
/// into `out` (cleared first) at least the body's time prefix (event count, first offset,
/// `_time` column), for readers that want nothing else: a block written as several zstd frames
/// has that prefix in its first frame (~10 % of the body), which alone is decompressed; a block
/// of one frame is decompressed whole.
pub fn decompress_times(
    path: &Path,
    head: &Head,
    index: usize,
    comp: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StoreError> {
    let e = checked_block(path, head, index, comp)?;
    let bad = |r: &str| bad(path, index, r);
    let first = zstd::zstd_safe::find_frame_compressed_size(comp)
        .map_err(|code| bad(zstd::zstd_safe::get_error_name(code)))?;
    if first >= comp.len() {
        return crate::dctx::decompress(comp, None, e.ulen as usize, out).map_err(|err| bad(&err));
    }
    let first = &comp[..first];
    let len = match zstd::zstd_safe::get_frame_content_size(first) {
        Ok(Some(len)) if len < e.ulen as u64 => len as usize,
        _ => return Err(bad("first frame's length missing or over the block's")),
    };
    crate::dctx::decompress(first, None, len, out).map_err(|err| bad(&err))
}

/// Decodes every block of `blocks` (the body before the head) into one [`Columns`] with the
/// head's dictionaries.
pub fn decode_all(path: &Path, head: &Head, blocks: &[u8]) -> Result<Columns, StoreError> {
    let mut cols = Columns::new();
    let n = head.events as usize;
    // Exact sizes up front: growing ~40 MB of vectors block by block would copy and fault
    // pages again at every doubling.
    for v in [&mut cols.times, &mut cols.index_times] {
        v.reserve_exact(n);
    }
    for v in [
        &mut cols.slice,
        &mut cols.offset,
        &mut cols.raw_len,
        &mut cols.host,
        &mut cols.source,
        &mut cols.sourcetype,
        &mut cols.linecount,
    ] {
        v.reserve_exact(n);
    }
    cols.field_start.reserve_exact(n);
    let mut out = Vec::new();
    for (i, e) in head.blocks.iter().enumerate() {
        let comp = &blocks[e.offset as usize..(e.offset + e.clen as u64) as usize];
        decode_block_at(path, head, i, comp, &mut out, &mut cols)?;
    }
    [cols.hosts, cols.sources, cols.sourcetypes] = head.dicts.clone();
    Ok(cols)
}

/// Serialises the `columns.dat` body of `parts` laid end to end, with dictionaries `dicts`, without
/// joining them first (a hot bucket's frozen chunks: a roll would otherwise hold a second copy of
/// every column). Every part but the last must hold a whole number of blocks
/// ([`COLUMNS_BLOCK_EVENTS`] events each) and its own `field_start` offsets (from its own blob);
/// the parts' dictionary fields are ignored.
pub fn encode_parts<'a>(
    parts: impl Iterator<Item = &'a Columns>,
    dicts: [&[String]; 3],
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    let mut enc = Encoder::new(out)?;
    for part in parts {
        enc.push(part, out)?;
    }
    enc.finish(dicts, out)
}

/// Writes a `columns.dat` body part by part: [`Encoder::push`] compresses each part's blocks
/// into `out` as it comes, [`Encoder::finish`] appends the head. The parts follow
/// [`encode_parts`]'s rules. Nothing refers back to earlier bytes (the head holds blocks'
/// lengths, not offsets), so a caller may write `out` away and clear it between calls, as a
/// merge does, holding one part and its blocks at a time.
pub struct Encoder {
    base: usize,
    comp: zstd::bulk::Compressor<'static>,
    raw: Vec<u8>,
    table: Vec<u8>,
    nblocks: u64,
    events: usize,
    short: bool,
}

impl Encoder {
    /// An encoder appending to `out` from its current end.
    pub fn new(out: &[u8]) -> std::io::Result<Encoder> {
        Ok(Encoder {
            base: out.len(),
            comp: zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
            raw: Vec::new(),
            table: Vec::new(),
            nblocks: 0,
            events: 0,
            short: false,
        })
    }

    /// Compresses the blocks of `part` into `out`.
    pub fn push(&mut self, part: &Columns, out: &mut Vec<u8>) -> std::io::Result<()> {
        if part.is_empty() {
            return Ok(());
        }
        debug_assert!(!self.short, "only the last part may end in a partial block");
        let step = COLUMNS_BLOCK_EVENTS as usize;
        for start in (0..part.len()).step_by(step) {
            let range = start..(start + step).min(part.len());
            self.short |= range.len() < step;
            self.raw.clear();
            let time_end = encode_block(part, range.clone(), &mut self.raw);
            // Two frames: the time prefix alone, then the rest (see `decompress_times`).
            let mut z = self.comp.compress(&self.raw[..time_end])?;
            z.extend_from_slice(&self.comp.compress(&self.raw[time_end..])?);
            let table = &mut self.table;
            put_varint(table, z.len() as u64);
            put_varint(table, self.raw.len() as u64);
            table.extend_from_slice(&xxh3_64(&z).to_le_bytes());
            let t = &part.times[range];
            put_ivarint(table, t.iter().copied().min().unwrap_or(0));
            put_ivarint(table, t.iter().copied().max().unwrap_or(0));
            out.extend_from_slice(&z);
            self.nblocks += 1;
        }
        self.events += part.len();
        Ok(())
    }

    /// Appends the head (block table, dictionaries `dicts`) and the trailer.
    pub fn finish(self, dicts: [&[String]; 3], out: &mut Vec<u8>) -> std::io::Result<()> {
        let mut inner = Vec::with_capacity(self.table.len() + 64);
        put_varint(&mut inner, self.events as u64);
        put_varint(&mut inner, COLUMNS_BLOCK_EVENTS as u64);
        put_varint(&mut inner, self.nblocks);
        inner.extend_from_slice(&self.table);
        for d in dicts {
            put_varint(&mut inner, d.len() as u64);
            d.iter().for_each(|s| put_str(&mut inner, s));
        }
        let head_start = out.len();
        crate::packed::pack(&inner, out)?;
        let head_sum = xxh3_64(&out[head_start..]);
        let head_len = (out.len() - head_start) as u64;
        out.extend_from_slice(&head_len.to_le_bytes());
        out.extend_from_slice(&head_sum.to_le_bytes());
        out.extend_from_slice(&COLUMNS_VERSION.to_le_bytes());
        debug_assert!(out.len() > self.base);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::block::decode_block_light;

    /// `n` events with times that jump back and forth, two hosts, a field now and then.
    fn sample(n: usize) -> Columns {
        let mut c = Columns::new();
        [c.hosts, c.sources, c.sourcetypes] = [
            vec!["a".into(), "b".into()],
            vec!["s".into()],
            vec!["t".into()],
        ];
        for i in 0..n {
            c.times
                .push(1_700_000_000_000_000 + ((i * 7919) % 5000) as i64 * 1_000_003);
            c.index_times.push(1_700_000_000 + i as i64 / 100);
            c.slice.push(i as u32 / 50);
            c.offset.push((i as u32 % 50) * 80);
            c.raw_len.push(80);
            c.host.push((i % 2) as u32);
            c.source.push(0);
            c.sourcetype.push(0);
            c.linecount.push(1);
            if i % 9 == 0 {
                crate::codec::put_str(&mut c.field_blob, "k");
                crate::codec::put_str(&mut c.field_blob, &i.to_string());
            }
            c.field_start.push(c.field_blob.len() as u64);
        }
        c
    }

    /// A `columns.dat` body of `cols` and its head.
    fn written(cols: &Columns) -> (Vec<u8>, Head) {
        let mut body = Vec::new();
        let dicts =
            [0, 1, 2].map(|i| [&cols.hosts, &cols.sources, &cols.sourcetypes][i].as_slice());
        encode_parts(std::iter::once(cols), dicts, &mut body).unwrap();
        let path = Path::new("columns.dat");
        let end = body.len() as u64;
        let (head_len, sum) = parse_trailer(path, &body[body.len() - 20..], end).unwrap();
        let blocks_len = end - TRAILER_LEN - head_len;
        let head_bytes = &body[blocks_len as usize..(end - TRAILER_LEN) as usize];
        let head = parse_head(path, head_bytes, sum, blocks_len).unwrap();
        (body, head)
    }

    fn block<'a>(body: &'a [u8], e: &BlockEntry) -> &'a [u8] {
        &body[e.offset as usize..e.offset as usize + e.clen as usize]
    }

    /// Block `i` of `head` replaced by `comp` (offset kept, length and checksum updated).
    fn with_block(head: &Head, i: usize, comp: &[u8]) -> Head {
        let mut h = head.clone();
        h.blocks[i].clen = comp.len() as u32;
        h.blocks[i].checksum = xxh3_64(comp);
        h
    }

    #[test]
    fn a_block_is_its_time_prefix_then_the_rest_and_times_read_from_the_prefix() {
        let cols = sample(2 * COLUMNS_BLOCK_EVENTS as usize + 700);
        let (body, head) = written(&cols);
        let path = Path::new("columns.dat");
        assert_eq!(head.blocks.len(), 3);
        for (i, e) in head.blocks.iter().enumerate() {
            let comp = block(&body, e);
            let range = e.first as usize..(e.first + e.count) as usize;
            let mut raw = Vec::new();
            let time_end = encode_block(&cols, range.clone(), &mut raw);
            let mut whole = Vec::new();
            decompress_block(path, &head, i, comp, &mut whole).unwrap();
            assert_eq!(whole, raw, "block {i}: the frames decompress to the body");
            let mut prefix = Vec::new();
            decompress_times(path, &head, i, comp, &mut prefix).unwrap();
            assert_eq!(
                prefix,
                raw[..time_end],
                "block {i}: the first frame is the time prefix"
            );
            assert!(
                prefix.len() * 2 < whole.len(),
                "block {i}: {} of {}",
                prefix.len(),
                whole.len()
            );
            let mut times = Vec::new();
            decode_block_light(
                &prefix,
                e.count as usize,
                head.dict_lens(),
                &mut times,
                None,
            )
            .unwrap();
            assert_eq!(times, cols.times[range]);
            // One frame of the whole body (as written before): the whole body.
            let one = zstd::bulk::compress(&raw, ZSTD_LEVEL).unwrap();
            let old = with_block(&head, i, &one);
            decompress_times(path, &old, i, &one, &mut prefix).unwrap();
            assert_eq!(
                prefix, raw,
                "block {i}: a one-frame block decompresses whole"
            );
        }
    }

    #[test]
    fn a_first_frame_as_long_as_the_block_is_corrupt() {
        let cols = sample(100);
        let (body, head) = written(&cols);
        let path = Path::new("columns.dat");
        let mut raw = Vec::new();
        encode_block(&cols, 0..100, &mut raw);
        // The whole body in the first frame, then an empty one: the checksum holds, the
        // frames do not.
        let mut comp = zstd::bulk::compress(&raw, ZSTD_LEVEL).unwrap();
        comp.extend(zstd::bulk::compress(&[], ZSTD_LEVEL).unwrap());
        let bad = with_block(&head, 0, &comp);
        let err = decompress_times(path, &bad, 0, &comp, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("first frame"), "{err}");
        // And damage under the checksum is caught before any frame is looked at.
        let mut damaged = block(&body, &head.blocks[0]).to_vec();
        damaged[3] ^= 1;
        let err = decompress_times(path, &head, 0, &damaged, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }
}
