//! Per-event columns and the host/source/sourcetype dictionaries. See docs/format/columns.md.
//!
//! Body: `inner_len u64 | zstd frame of inner`. `inner` is `n varint`, then column after column
//! of `n` varints each: `time` and `index_time` as zigzag deltas from the previous event,
//! `slice` as a delta, `raw_len`, `host`, `source`, `sourcetype`, `linecount`, the byte length
//! of each event's fields; then the field blob; then three dictionaries (`count varint | str*`:
//! hosts, sources, sourcetypes). Offsets within slices are not stored: events fill slices in
//! order, so an event starts where the previous one of its slice ended.

use std::path::Path;

use crate::codec::{put_ivarint, put_str, put_varint, DecodeError, Reader};
use crate::error::StoreError;

/// Columns of a bucket, indexed by event number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    /// `_time`, µs since the epoch.
    pub times: Vec<i64>,
    /// `_indextime`, seconds since the epoch.
    pub index_times: Vec<i64>,
    /// Journal slice holding the raw text.
    pub slice: Vec<u32>,
    /// Offset of the raw text within the uncompressed slice, bytes.
    pub offset: Vec<u32>,
    /// Length of the raw text, bytes.
    pub raw_len: Vec<u32>,
    /// Host dictionary id.
    pub host: Vec<u32>,
    /// Source dictionary id.
    pub source: Vec<u32>,
    /// Sourcetype dictionary id.
    pub sourcetype: Vec<u32>,
    /// `linecount`.
    pub linecount: Vec<u32>,
    /// Start of each event's fields in `field_blob` (n + 1 entries), bytes.
    pub field_start: Vec<u64>,
    /// Index-time fields: `(name str | value str)*` per event.
    pub field_blob: Vec<u8>,
    /// Host names by id.
    pub hosts: Vec<String>,
    /// Source names by id.
    pub sources: Vec<String>,
    /// Sourcetype names by id.
    pub sourcetypes: Vec<String>,
}

impl Columns {
    /// Empty columns (with the leading `field_start` entry).
    pub fn new() -> Self {
        Columns {
            field_start: vec![0],
            ..Default::default()
        }
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Decodes the fields of event `i` into `out` (reused).
    pub fn fields_into(
        &self,
        i: usize,
        out: &mut Vec<(String, String)>,
    ) -> Result<(), DecodeError> {
        out.clear();
        let (s, e) = (
            self.field_start[i] as usize,
            self.field_start[i + 1] as usize,
        );
        let mut r = Reader::new(&self.field_blob[s..e]);
        while !r.is_empty() {
            let k = r.str()?;
            let v = r.str()?;
            out.push((k.to_string(), v.to_string()));
        }
        Ok(())
    }

    /// Serialises the body: `inner_len u64 | zstd(inner)` (see the module docs for `inner`).
    pub fn encode(&self, out: &mut Vec<u8>) -> std::io::Result<()> {
        let mut inner = Vec::with_capacity(self.len() * 12 + self.field_blob.len() + 64);
        put_varint(&mut inner, self.len() as u64);
        for v in [&self.times, &self.index_times] {
            let mut prev = 0i64;
            for &x in v.iter() {
                put_ivarint(&mut inner, x.wrapping_sub(prev));
                prev = x;
            }
        }
        let mut prev = 0u32;
        for &s in &self.slice {
            put_varint(&mut inner, s.wrapping_sub(prev) as u64);
            prev = s;
        }
        for v in [
            &self.raw_len,
            &self.host,
            &self.source,
            &self.sourcetype,
            &self.linecount,
        ] {
            v.iter().for_each(|&x| put_varint(&mut inner, x as u64));
        }
        for w in self.field_start.windows(2) {
            put_varint(&mut inner, w[1] - w[0]);
        }
        inner.extend_from_slice(&self.field_blob);
        for d in [&self.hosts, &self.sources, &self.sourcetypes] {
            put_varint(&mut inner, d.len() as u64);
            d.iter().for_each(|s| put_str(&mut inner, s));
        }
        crate::packed::pack(&inner, out)
    }

    /// Parses and validates a body (dictionary ids in range, field offsets monotone).
    pub fn decode(path: &Path, body: &[u8]) -> Result<Columns, StoreError> {
        let inner = crate::packed::unpack(path, body)?;
        Self::decode_inner(&inner).map_err(|r| StoreError::corrupt(path, r))
    }

    fn decode_inner(body: &[u8]) -> Result<Columns, DecodeError> {
        let mut r = Reader::new(body);
        let n = r.varint()?;
        // Every event takes at least 9 bytes: one varint in each of the 9 per-event columns
        // (time, index time, slice, raw length, host, source, sourcetype, linecount, fields).
        if n.checked_mul(9).is_none_or(|b| b > body.len() as u64) {
            return Err("event count larger than the file");
        }
        let n = n as usize;
        let deltas = |r: &mut Reader| -> Result<Vec<i64>, DecodeError> {
            let mut prev = 0i64;
            (0..n)
                .map(|_| {
                    prev = prev.wrapping_add(r.ivarint()?);
                    Ok(prev)
                })
                .collect()
        };
        let u32s = |r: &mut Reader| -> Result<Vec<u32>, DecodeError> {
            (0..n)
                .map(|_| u32::try_from(r.varint()?).map_err(|_| "value exceeds u32"))
                .collect()
        };
        let times = deltas(&mut r)?;
        let index_times = deltas(&mut r)?;
        let mut prev = 0u32;
        let mut slice = Vec::with_capacity(n);
        for _ in 0..n {
            let d = u32::try_from(r.varint()?).map_err(|_| "slice delta exceeds u32")?;
            prev = prev.checked_add(d).ok_or("slice number overflow")?;
            slice.push(prev);
        }
        let raw_len = u32s(&mut r)?;
        let host = u32s(&mut r)?;
        let source = u32s(&mut r)?;
        let sourcetype = u32s(&mut r)?;
        let linecount = u32s(&mut r)?;
        let mut offset = Vec::with_capacity(n);
        let mut pos = 0u64;
        for i in 0..n {
            if i > 0 && slice[i] != slice[i - 1] {
                pos = 0;
            }
            offset.push(u32::try_from(pos).map_err(|_| "slice offset exceeds u32")?);
            pos += raw_len[i] as u64;
        }
        let mut field_start = Vec::with_capacity(n + 1);
        field_start.push(0u64);
        let mut end = 0u64;
        for _ in 0..n {
            end = end
                .checked_add(r.varint()?)
                .ok_or("field length overflow")?;
            field_start.push(end);
        }
        let field_blob = r
            .bytes(usize::try_from(end).map_err(|_| "field blob too long")?)?
            .to_vec();
        let mut dicts: [Vec<String>; 3] = Default::default();
        for d in &mut dicts {
            let count = r.varint()?;
            if count > body.len() as u64 {
                return Err("dictionary larger than the file");
            }
            for _ in 0..count {
                d.push(r.str()?.to_string());
            }
        }
        if !r.is_empty() {
            return Err("trailing bytes after dictionaries");
        }
        let [hosts, sources, sourcetypes] = dicts;
        for (ids, d) in [
            (&host, &hosts),
            (&source, &sources),
            (&sourcetype, &sourcetypes),
        ] {
            if ids.iter().any(|&i| i as usize >= d.len()) {
                return Err("dictionary id out of range");
            }
        }
        Ok(Columns {
            times,
            index_times,
            slice,
            offset,
            raw_len,
            host,
            source,
            sourcetype,
            linecount,
            field_start,
            field_blob,
            hosts,
            sources,
            sourcetypes,
        })
    }

    /// Checks that every event's raw text lies within its slice, given each slice's
    /// uncompressed length in bytes.
    pub fn check_slices(&self, path: &Path, slice_lens: &[u32]) -> Result<(), StoreError> {
        for i in 0..self.len() {
            let Some(&ulen) = slice_lens.get(self.slice[i] as usize) else {
                return Err(StoreError::corrupt(
                    path,
                    format!("event {i} points at missing slice {}", self.slice[i]),
                ));
            };
            if self.offset[i] as u64 + self.raw_len[i] as u64 > ulen as u64 {
                return Err(StoreError::corrupt(
                    path,
                    format!("event {i} extends past the end of its slice"),
                ));
            }
        }
        Ok(())
    }
}
