//! The uncompressed body of one columns block (see docs/format/columns.md):
//!
//! ```text
//! n varint | first_offset varint
//! time zigzag-delta × n | index_time zigzag-delta × n | slice delta × n
//! raw_len × n | host × n | source × n | sourcetype × n | linecount × n | fields_len × n
//! field blob
//! ```
//!
//! Deltas start from 0 in every block, so a block decodes without its neighbours.
//! `first_offset` is where the block's first event starts in its slice; the others follow from
//! `raw_len` (events fill a slice in order, a new slice starts at 0).

use std::ops::Range;

use crate::codec::{put_ivarint, put_varint, DecodeError, Reader};
use crate::columns::Columns;

/// Appends the body of events `range` of `cols` to `out`.
pub fn encode_block(cols: &Columns, range: Range<usize>, out: &mut Vec<u8>) {
    put_varint(out, range.len() as u64);
    put_varint(
        out,
        cols.offset.get(range.start).copied().unwrap_or(0) as u64,
    );
    for v in [&cols.times[range.clone()], &cols.index_times[range.clone()]] {
        let mut prev = 0i64;
        for &x in v {
            put_ivarint(out, x.wrapping_sub(prev));
            prev = x;
        }
    }
    let mut prev = 0u32;
    for &s in &cols.slice[range.clone()] {
        put_varint(out, s.wrapping_sub(prev) as u64);
        prev = s;
    }
    for v in [
        &cols.raw_len,
        &cols.host,
        &cols.source,
        &cols.sourcetype,
        &cols.linecount,
    ] {
        v[range.clone()]
            .iter()
            .for_each(|&x| put_varint(out, x as u64));
    }
    for w in cols.field_start[range.start..=range.end].windows(2) {
        put_varint(out, w[1] - w[0]);
    }
    let (s, e) = (
        cols.field_start[range.start] as usize,
        cols.field_start[range.end] as usize,
    );
    out.extend_from_slice(&cols.field_blob[s..e]);
}

/// Decodes a block body, appending its events to `into` (whose dictionaries are not touched).
/// Checks the event count against `expect` and every dictionary id against `dict_lens`
/// (hosts, sources, sourcetypes). On error `into` may hold part of the block.
pub fn decode_block(
    body: &[u8],
    expect: usize,
    dict_lens: [usize; 3],
    into: &mut Columns,
) -> Result<(), DecodeError> {
    let mut r = Reader::new(body);
    let n = r.varint()?;
    if n != expect as u64 {
        return Err("block event count differs from the block table");
    }
    // Every event takes at least 9 bytes: one varint in each of the 9 per-event columns.
    if n.saturating_mul(9) > body.len() as u64 {
        return Err("event count larger than the block");
    }
    let n = expect;
    let mut pos = u32::try_from(r.varint()?).map_err(|_| "slice offset exceeds u32")? as u64;
    for v in [&mut into.times, &mut into.index_times] {
        v.reserve(n);
        let mut prev = 0i64;
        for _ in 0..n {
            prev = prev.wrapping_add(r.ivarint()?);
            v.push(prev);
        }
    }
    let base = into.slice.len();
    into.slice.reserve(n);
    let mut prev = 0u32;
    for _ in 0..n {
        let d = u32::try_from(r.varint()?).map_err(|_| "slice delta exceeds u32")?;
        prev = prev.checked_add(d).ok_or("slice number overflow")?;
        into.slice.push(prev);
    }
    for (v, limit) in [
        (&mut into.raw_len, u32::MAX as usize),
        (&mut into.host, dict_lens[0]),
        (&mut into.source, dict_lens[1]),
        (&mut into.sourcetype, dict_lens[2]),
        (&mut into.linecount, u32::MAX as usize),
    ] {
        v.reserve(n);
        for _ in 0..n {
            let x = u32::try_from(r.varint()?).map_err(|_| "value exceeds u32")?;
            if limit != u32::MAX as usize && x as usize >= limit {
                return Err("dictionary id out of range");
            }
            v.push(x);
        }
    }
    into.offset.reserve(n);
    for i in base..base + n {
        if i > base && into.slice[i] != into.slice[i - 1] {
            pos = 0;
        }
        into.offset
            .push(u32::try_from(pos).map_err(|_| "slice offset exceeds u32")?);
        pos += into.raw_len[i] as u64;
    }
    let start = *into.field_start.last().ok_or("field offsets missing")?;
    let mut end = start;
    into.field_start.reserve(n);
    for _ in 0..n {
        end = end
            .checked_add(r.varint()?)
            .ok_or("field length overflow")?;
        into.field_start.push(end);
    }
    let blob_len = usize::try_from(end - start).map_err(|_| "field blob too long")?;
    into.field_blob.extend_from_slice(r.bytes(blob_len)?);
    if !r.is_empty() {
        return Err("trailing bytes after the field blob");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Columns {
        let mut c = Columns::new();
        c.hosts = vec!["a".into(), "b".into()];
        c.sources = vec!["s".into()];
        c.sourcetypes = vec!["t".into()];
        let (mut slice, mut off) = (0u32, 0u32);
        for i in 0..n {
            let len = 10 + (i as u32 * 7) % 50;
            if off + len > 200 {
                slice += 1;
                off = 0;
            }
            c.times.push(1_000_000 - i as i64 * 3);
            c.index_times.push(50 + i as i64);
            c.slice.push(slice);
            c.offset.push(off);
            off += len;
            c.raw_len.push(len);
            c.host.push((i % 2) as u32);
            c.source.push(0);
            c.sourcetype.push(0);
            c.linecount.push(1 + (i % 3) as u32);
            if i % 4 == 0 {
                crate::codec::put_str(&mut c.field_blob, "k");
                crate::codec::put_str(&mut c.field_blob, &i.to_string());
            }
            c.field_start.push(c.field_blob.len() as u64);
        }
        c
    }

    #[test]
    fn blocks_decode_to_the_same_columns_even_mid_slice() {
        let c = sample(100);
        let mut back = Columns::new();
        let mut buf = Vec::new();
        for r in [0..33, 33..34, 34..100] {
            buf.clear();
            encode_block(&c, r.clone(), &mut buf);
            decode_block(&buf, r.len(), [2, 1, 1], &mut back).unwrap();
        }
        back.hosts.clone_from(&c.hosts);
        back.sources.clone_from(&c.sources);
        back.sourcetypes.clone_from(&c.sourcetypes);
        assert_eq!(back, c);
    }

    #[test]
    fn damaged_blocks_are_errors() {
        let c = sample(20);
        let mut buf = Vec::new();
        encode_block(&c, 0..20, &mut buf);
        assert!(decode_block(&buf, 19, [2, 1, 1], &mut Columns::new()).is_err());
        assert!(decode_block(&buf, 20, [1, 1, 1], &mut Columns::new()).is_err());
        assert!(decode_block(&buf[..buf.len() - 1], 20, [2, 1, 1], &mut Columns::new()).is_err());
        buf.push(0);
        assert!(decode_block(&buf, 20, [2, 1, 1], &mut Columns::new()).is_err());
    }
}
