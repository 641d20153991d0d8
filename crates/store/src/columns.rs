//! Per-event columns and the host/source/sourcetype dictionaries. See docs/format/columns.md.
//!
//! Body: `n u64`, then fixed-width little-endian arrays of `n` entries each: `time i64`,
//! `index_time i64`, `slice u32`, `offset u32`, `raw_len u32`, `host u32`, `source u32`,
//! `sourcetype u32`, `linecount u32`; then `field_start u64[n + 1]`, `field_blob_len u64`,
//! `field_blob`; then three dictionaries (`count varint | str*`: hosts, sources, sourcetypes).

use std::path::Path;

use crate::codec::{put_str, put_varint, DecodeError, Reader};
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

    /// Serialises the body.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        for v in [&self.times, &self.index_times] {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        for v in [
            &self.slice,
            &self.offset,
            &self.raw_len,
            &self.host,
            &self.source,
            &self.sourcetype,
            &self.linecount,
        ] {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        self.field_start
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        out.extend_from_slice(&(self.field_blob.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.field_blob);
        for d in [&self.hosts, &self.sources, &self.sourcetypes] {
            put_varint(out, d.len() as u64);
            d.iter().for_each(|s| put_str(out, s));
        }
    }

    /// Parses and validates a body (dictionary ids in range, field offsets monotone).
    pub fn decode(path: &Path, body: &[u8]) -> Result<Columns, StoreError> {
        Self::decode_inner(body).map_err(|r| StoreError::corrupt(path, r))
    }

    fn decode_inner(body: &[u8]) -> Result<Columns, DecodeError> {
        let mut r = Reader::new(body);
        let n = r.u64()?;
        // 8 + 8 + 7 * 4 + 8 bytes per event at least: reject counts the body cannot hold.
        if n.checked_mul(52).is_none_or(|b| b > body.len() as u64) {
            return Err("event count larger than the file");
        }
        let n = n as usize;
        let i64s = |r: &mut Reader| -> Result<Vec<i64>, DecodeError> {
            Ok(r.bytes(n * 8)?
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8")))
                .collect())
        };
        let u32s = |r: &mut Reader| -> Result<Vec<u32>, DecodeError> {
            Ok(r.bytes(n * 4)?
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
                .collect())
        };
        let times = i64s(&mut r)?;
        let index_times = i64s(&mut r)?;
        let slice = u32s(&mut r)?;
        let offset = u32s(&mut r)?;
        let raw_len = u32s(&mut r)?;
        let host = u32s(&mut r)?;
        let source = u32s(&mut r)?;
        let sourcetype = u32s(&mut r)?;
        let linecount = u32s(&mut r)?;
        let field_start: Vec<u64> = r
            .bytes((n + 1) * 8)?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
            .collect();
        let blob_len = r.u64()?;
        let field_blob = r
            .bytes(usize::try_from(blob_len).map_err(|_| "field blob too long")?)?
            .to_vec();
        if field_start[0] != 0
            || field_start.windows(2).any(|w| w[0] > w[1])
            || field_start[n] != blob_len
        {
            return Err("field offsets are not monotone within the field blob");
        }
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
