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

/// Per-event columns of a whole block body.
const WHOLE: u64 = 9;

/// Appends the body of events `range` of `cols` to `out`. Returns how many of the appended
/// bytes the event count, first offset and `_time` column take: the body's time prefix, which
/// the writer compresses as a frame of its own (see [`crate::columns::file::decompress_times`]).
pub fn encode_block(cols: &Columns, range: Range<usize>, out: &mut Vec<u8>) -> usize {
    let start = out.len();
    put_varint(out, range.len() as u64);
    put_varint(
        out,
        cols.offset.get(range.start).copied().unwrap_or(0) as u64,
    );
    put_deltas(out, &cols.times[range.clone()]);
    let time_end = out.len() - start;
    put_deltas(out, &cols.index_times[range.clone()]);
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
    time_end
}

/// Appends `v` as zigzag deltas, the first from 0.
fn put_deltas(out: &mut Vec<u8>, v: &[i64]) {
    let mut prev = 0i64;
    for &x in v {
        put_ivarint(out, x.wrapping_sub(prev));
        prev = x;
    }
}

/// Reads a block body's event count, checked against `expect` (the block table's) and against
/// the body's `len`: every event takes at least one byte in each of the `columns` per-event
/// columns the body holds (9 in a whole body, 1 in a time prefix).
fn event_count(
    r: &mut Reader<'_>,
    expect: usize,
    len: usize,
    columns: u64,
) -> Result<usize, DecodeError> {
    let n = r.varint()?;
    if n != expect as u64 {
        return Err("block event count differs from the block table");
    }
    if n.saturating_mul(columns) > len as u64 {
        return Err("event count larger than the block");
    }
    Ok(expect)
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
    let n = event_count(&mut r, expect, body.len(), WHOLE)?;
    let first = u32::try_from(r.varint()?).map_err(|_| "slice offset exceeds u32")?;
    for v in [&mut into.times, &mut into.index_times] {
        time_column(&mut r, n, v)?;
    }
    let base = into.slice.len();
    let mut prev = 0u32;
    column(&mut r, n, &mut into.slice, |d| {
        let d = u32::try_from(d).map_err(|_| "slice delta exceeds u32")?;
        prev = prev.checked_add(d).ok_or("slice number overflow")?;
        Ok(prev)
    })?;
    u32_column(&mut r, n, 1 << 32, "value exceeds u32", &mut into.raw_len)?;
    // Each event's offset in its slice: the previous event's end, or 0 where the slice
    // changes (the block's first event starts at `first`).
    into.offset.reserve(n);
    let mut pos = first as u64;
    let mut last_slice = into.slice.get(base).copied();
    for (&slice, &len) in into.slice[base..].iter().zip(&into.raw_len[base..]) {
        if Some(slice) != last_slice {
            (pos, last_slice) = (0, Some(slice));
        }
        into.offset
            .push(u32::try_from(pos).map_err(|_| "slice offset exceeds u32")?);
        pos += len as u64;
    }
    for (v, limit) in [
        (&mut into.host, dict_lens[0]),
        (&mut into.source, dict_lens[1]),
        (&mut into.sourcetype, dict_lens[2]),
    ] {
        u32_column(&mut r, n, limit as u64, "dictionary id out of range", v)?;
    }
    u32_column(&mut r, n, 1 << 32, "value exceeds u32", &mut into.linecount)?;
    let start = *into.field_start.last().ok_or("field offsets missing")?;
    let mut end = start;
    column(&mut r, n, &mut into.field_start, |len| {
        end = end.checked_add(len).ok_or("field length overflow")?;
        Ok(end)
    })?;
    let blob_len = usize::try_from(end - start).map_err(|_| "field blob too long")?;
    into.field_blob.extend_from_slice(r.bytes(blob_len)?);
    if !r.is_empty() {
        return Err("trailing bytes after the field blob");
    }
    Ok(())
}

/// Appends `n` values of a column to `v`, each below `limit` (else the error `what`).
#[inline]
fn u32_column(
    r: &mut Reader<'_>,
    n: usize,
    limit: u64,
    what: DecodeError,
    v: &mut Vec<u32>,
) -> Result<(), DecodeError> {
    column(
        r,
        n,
        v,
        |x| if x < limit { Ok(x as u32) } else { Err(what) },
    )
}

/// Appends `n` times of a column (zigzag deltas from 0) to `v`.
#[inline]
fn time_column(r: &mut Reader<'_>, n: usize, v: &mut Vec<i64>) -> Result<(), DecodeError> {
    let mut prev = 0i64;
    column(r, n, v, |u| {
        prev = prev.wrapping_add(crate::codec::unzigzag(u));
        Ok(prev)
    })
}

/// Appends `n` values of a column to `v`, each read as a varint and mapped by `f` (which may
/// refuse it; `v` is then as it was). The values are written into room made first, which
/// spares a capacity check and a length update per value.
#[inline(always)]
fn column<T: Copy + Default>(
    r: &mut Reader<'_>,
    n: usize,
    v: &mut Vec<T>,
    mut f: impl FnMut(u64) -> Result<T, DecodeError>,
) -> Result<(), DecodeError> {
    let base = v.len();
    v.resize(base + n, T::default());
    let mut room = v[base..].iter_mut();
    let read = r.varints(n, |x| {
        // `varints` gives exactly `n` values, one per slot.
        if let Some(slot) = room.next() {
            *slot = f(x)?;
        }
        Ok(())
    });
    if read.is_err() {
        v.truncate(base);
    }
    read
}

/// Decodes event `pos` alone of a block body into `into` (which must be empty: it ends up
/// holding that one event), walking the columns but keeping one value of each: a sparse read
/// that wants one event of a block pays a fraction of [`decode_block`]. Checks as it does.
pub fn decode_block_event(
    body: &[u8],
    expect: usize,
    pos: usize,
    dict_lens: [usize; 3],
    into: &mut Columns,
) -> Result<(), DecodeError> {
    let mut r = Reader::new(body);
    let n = event_count(&mut r, expect, body.len(), WHOLE)?;
    if pos >= n {
        return Err("event beyond the block");
    }
    let after = n - pos - 1;
    let first_offset = r.varint()?;
    for v in [&mut into.times, &mut into.index_times] {
        v.push(delta_sum(&mut r, pos)?);
        r.skip_varints(after)?;
    }
    // The slice of `pos`, and the first event of the block in that slice: the event's offset
    // is the lengths of the events from there (plus the block's first offset when that is the
    // block's first event).
    let (mut slice, mut start, mut j) = (0u32, 0usize, 0usize);
    r.varints(pos + 1, |d| {
        let d = u32::try_from(d).map_err(|_| "slice delta exceeds u32")?;
        slice = slice.checked_add(d).ok_or("slice number overflow")?;
        if j > 0 && d != 0 {
            start = j;
        }
        j += 1;
        Ok(())
    })?;
    r.skip_varints(after)?;
    let mut offset = if start == 0 { first_offset } else { 0 };
    j = 0;
    r.varints(pos, |l| {
        if j >= start {
            offset = offset.checked_add(l).ok_or("slice offset overflow")?;
        }
        j += 1;
        Ok(())
    })?;
    let raw_len = u32::try_from(r.varint()?).map_err(|_| "value exceeds u32")?;
    r.skip_varints(after)?;
    into.slice.push(slice);
    into.offset
        .push(u32::try_from(offset).map_err(|_| "slice offset exceeds u32")?);
    into.raw_len.push(raw_len);
    for (v, limit) in [
        (&mut into.host, dict_lens[0]),
        (&mut into.source, dict_lens[1]),
        (&mut into.sourcetype, dict_lens[2]),
    ] {
        v.push(id_at(&mut r, pos, n, limit)?);
    }
    let linecount = nth_varint(&mut r, pos, n)?;
    into.linecount
        .push(u32::try_from(linecount).map_err(|_| "value exceeds u32")?);
    let mut blob_at = 0u64;
    r.varints(pos, |l| {
        blob_at = blob_at.checked_add(l).ok_or("field length overflow")?;
        Ok(())
    })?;
    let len = r.varint()?;
    r.skip_varints(after)?;
    let blob = usize::try_from(blob_at)
        .ok()
        .and_then(|at| Some(at..at.checked_add(usize::try_from(len).ok()?)?))
        .and_then(|range| body.get(r.pos()..)?.get(range))
        .ok_or("field blob shorter than its lengths")?;
    let start = *into.field_start.last().ok_or("field offsets missing")?;
    into.field_start
        .push(start.checked_add(len).ok_or("field length overflow")?);
    into.field_blob.extend_from_slice(blob);
    Ok(())
}

/// `_time` of event `pos` of a block body and, when `ids`, its host, source and sourcetype ids
/// (else 0s), walking past the other values without keeping them: one event's indexed fields
/// for less than [`decode_block_light`] costs. Without `ids`, `body` may be the body's time
/// prefix alone.
pub fn peek_indexed(
    body: &[u8],
    expect: usize,
    pos: usize,
    dict_lens: [usize; 3],
    ids: bool,
) -> Result<(i64, [u32; 3]), DecodeError> {
    let mut r = Reader::new(body);
    let n = event_count(&mut r, expect, body.len(), if ids { WHOLE } else { 1 })?;
    if pos >= n {
        return Err("event beyond the block");
    }
    r.varint()?; // where the first event starts in its slice
    let time = delta_sum(&mut r, pos)?;
    let mut out = [0u32; 3];
    if !ids {
        return Ok((time, out));
    }
    // The rest of the times, then index_time, slice and raw_len.
    r.skip_varints(n - pos - 1 + 3 * n)?;
    for (k, limit) in dict_lens.into_iter().enumerate() {
        out[k] = id_at(&mut r, pos, n, limit)?;
    }
    Ok((time, out))
}

/// The sum of the next `pos + 1` zigzag deltas: value `pos` of a delta-coded column read from
/// its start (the rest of the column is left unread).
fn delta_sum(r: &mut Reader<'_>, pos: usize) -> Result<i64, DecodeError> {
    let mut v = 0i64;
    r.varints(pos + 1, |u| {
        v = v.wrapping_add(crate::codec::unzigzag(u));
        Ok(())
    })?;
    Ok(v)
}

/// Value `pos` of the column of `n` varints starting at `r`, leaving `r` after the column.
fn nth_varint(r: &mut Reader<'_>, pos: usize, n: usize) -> Result<u64, DecodeError> {
    r.skip_varints(pos)?;
    let x = r.varint()?;
    r.skip_varints(n - pos - 1)?;
    Ok(x)
}

/// [`nth_varint`] of a dictionary id column, checked against the dictionary's length.
fn id_at(r: &mut Reader<'_>, pos: usize, n: usize, limit: usize) -> Result<u32, DecodeError> {
    let x = nth_varint(r, pos, n)?;
    if x >= limit as u64 {
        return Err("dictionary id out of range");
    }
    Ok(x as u32)
}

/// The host, source and sourcetype ids of a block's events.
pub type IdColumns = [Vec<u32>; 3];

/// Decodes only `_time` of a block body (appended to `times`) and, when `ids` is given, the
/// host, source and sourcetype ids (appended to each), skipping the other columns: what time
/// ordering and sparse counting read, at a fraction of [`decode_block`]'s work. Checks the
/// event count against `expect` and the ids against `dict_lens`. Without `ids`, `body` may be
/// the body's time prefix alone.
pub fn decode_block_light(
    body: &[u8],
    expect: usize,
    dict_lens: [usize; 3],
    times: &mut Vec<i64>,
    ids: Option<&mut IdColumns>,
) -> Result<(), DecodeError> {
    let mut r = Reader::new(body);
    let columns = if ids.is_some() { WHOLE } else { 1 };
    let n = event_count(&mut r, expect, body.len(), columns)?;
    r.varint()?; // where the first event starts in its slice
    time_column(&mut r, n, times)?;
    let Some(ids) = ids else {
        return Ok(());
    };
    // index_time, slice and raw_len lie between the times and the ids.
    r.skip_varints(3 * n)?;
    for (v, limit) in ids.iter_mut().zip(dict_lens) {
        u32_column(&mut r, n, limit as u64, "dictionary id out of range", v)?;
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
    fn one_event_decodes_like_the_whole_block() {
        let c = sample(300);
        let mut buf = Vec::new();
        for r in [0..1, 0..300, 17..230, 40..41] {
            buf.clear();
            encode_block(&c, r.clone(), &mut buf);
            let mut whole = Columns::new();
            decode_block(&buf, r.len(), [2, 1, 1], &mut whole).unwrap();
            for pos in 0..r.len() {
                let mut one = Columns::new();
                decode_block_event(&buf, r.len(), pos, [2, 1, 1], &mut one).unwrap();
                assert_eq!(one.len(), 1);
                assert_eq!(one.times[0], whole.times[pos], "block {r:?} event {pos}");
                assert_eq!(one.index_times[0], whole.index_times[pos]);
                assert_eq!(one.slice[0], whole.slice[pos]);
                assert_eq!(one.offset[0], whole.offset[pos], "block {r:?} event {pos}");
                assert_eq!(one.raw_len[0], whole.raw_len[pos]);
                assert_eq!(one.host[0], whole.host[pos]);
                assert_eq!(one.linecount[0], whole.linecount[pos]);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                one.fields_into(0, &mut a).unwrap();
                whole.fields_into(pos, &mut b).unwrap();
                assert_eq!(a, b);
            }
            let mut one = Columns::new();
            assert!(decode_block_event(&buf, r.len(), r.len(), [2, 1, 1], &mut one).is_err());
            for pos in [0, r.len() / 2, r.len() - 1] {
                let i = r.start + pos;
                let want = (c.times[i], [c.host[i], c.source[i], c.sourcetype[i]]);
                let got = peek_indexed(&buf, r.len(), pos, [2, 1, 1], true).unwrap();
                assert_eq!(got, want);
                let got = peek_indexed(&buf, r.len(), pos, [2, 1, 1], false).unwrap();
                assert_eq!(got, (c.times[i], [0; 3]));
            }
            assert!(peek_indexed(&buf, r.len(), r.len(), [2, 1, 1], true).is_err());
            let mut one = Columns::new();
            let half = &buf[..buf.len() / 2];
            assert!(decode_block_event(half, r.len(), r.len() - 1, [2, 1, 1], &mut one).is_err());
        }
    }

    #[test]
    fn light_decode_reads_the_same_times_and_ids() {
        let c = sample(300);
        let mut buf = Vec::new();
        for r in [0..1, 0..300, 17..230] {
            buf.clear();
            encode_block(&c, r.clone(), &mut buf);
            let mut times = Vec::new();
            decode_block_light(&buf, r.len(), [2, 1, 1], &mut times, None).unwrap();
            assert_eq!(times, c.times[r.clone()]);
            let mut times = Vec::new();
            let mut ids = IdColumns::default();
            decode_block_light(&buf, r.len(), [2, 1, 1], &mut times, Some(&mut ids)).unwrap();
            assert_eq!(times, c.times[r.clone()]);
            assert_eq!(ids[0], c.host[r.clone()]);
            assert_eq!(ids[1], c.source[r.clone()]);
            assert_eq!(ids[2], c.sourcetype[r.clone()]);
            let mut ids = IdColumns::default();
            assert!(
                decode_block_light(&buf, r.len(), [1, 1, 1], &mut Vec::new(), Some(&mut ids))
                    .is_err()
                    || c.host[r.clone()].iter().all(|&h| h == 0)
            );
            assert!(
                decode_block_light(&buf, r.len() + 1, [2, 1, 1], &mut Vec::new(), None).is_err()
            );
        }
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
