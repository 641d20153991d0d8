//! Layout of `columns.dat` (version [`COLUMNS_VERSION`]; see docs/format/columns.md):
//!
//! ```text
//! body  = block × nblocks | head | head_len u64 | head_xxh3 u64 | version u32
//! block = zstd frame of a block body (module `block`), checksummed in the head
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
    let e = &head.blocks[index];
    let bad = |r: &str| StoreError::corrupt(path, format!("columns block {index}: {r}"));
    if comp.len() != e.clen as usize || xxh3_64(comp) != e.checksum {
        return Err(bad("checksum mismatch"));
    }
    crate::dctx::decompress(comp, None, e.ulen as usize, out).map_err(|err| bad(&err))
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
/// into `out` as it comes (so a merge holds one part at a time), [`Encoder::finish`] appends
/// the head. The parts follow [`encode_parts`]'s rules.
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
            encode_block(part, range.clone(), &mut self.raw);
            let z = self.comp.compress(&self.raw)?;
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
