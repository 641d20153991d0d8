//! The raw journal: independently zstd-compressed slices, and the slice table that locates them.
//! See docs/format/journal.md and docs/format/slices.md.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::bucket::build::SliceSink;
use crate::codec::Reader;
use crate::consts::ZSTD_LEVEL;
use crate::error::{IoContext, StoreError};
use crate::footer::FooterWriter;

/// Bytes per slice-table entry.
pub const SLICE_ENTRY_LEN: usize = 24;

/// Where one slice lies in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceEntry {
    /// Offset of the compressed slice in the journal body, bytes.
    pub offset: u64,
    /// Compressed length, bytes.
    pub clen: u32,
    /// Uncompressed length, bytes.
    pub ulen: u32,
    /// xxh3-64 of the compressed bytes (checked on every read).
    pub hash: u64,
}

/// Encodes the slice table body: `count u64 | (offset u64 | clen u32 | ulen u32 | xxh3 u64)*`.
pub fn encode_slices(slices: &[SliceEntry], out: &mut Vec<u8>) {
    out.extend_from_slice(&(slices.len() as u64).to_le_bytes());
    for s in slices {
        out.extend_from_slice(&s.offset.to_le_bytes());
        out.extend_from_slice(&s.clen.to_le_bytes());
        out.extend_from_slice(&s.ulen.to_le_bytes());
        out.extend_from_slice(&s.hash.to_le_bytes());
    }
}

/// Decodes a slice table and checks it against the journal body length (bytes).
pub fn decode_slices(
    path: &Path,
    body: &[u8],
    journal_len: u64,
) -> Result<Vec<SliceEntry>, StoreError> {
    let bad = |r: &str| StoreError::corrupt(path, r);
    let mut r = Reader::new(body);
    let n = r.u64().map_err(bad)?;
    if n.checked_mul(SLICE_ENTRY_LEN as u64) != Some(body.len() as u64 - 8) {
        return Err(bad("slice count does not match the file length"));
    }
    let mut out = Vec::with_capacity(n as usize);
    let mut expect = 0u64;
    for _ in 0..n {
        let e = SliceEntry {
            offset: r.u64().map_err(bad)?,
            clen: r.u32().map_err(bad)?,
            ulen: r.u32().map_err(bad)?,
            hash: r.u64().map_err(bad)?,
        };
        if e.offset != expect {
            return Err(bad("slices are not contiguous"));
        }
        expect += e.clen as u64;
        out.push(e);
    }
    if expect != journal_len {
        return Err(bad("slices do not cover the journal exactly"));
    }
    Ok(out)
}

/// Writes compressed slices to `journal.zst` and records the table.
pub(crate) struct JournalSink {
    pub out: FooterWriter,
    pub slices: Vec<SliceEntry>,
    comp: zstd::bulk::Compressor<'static>,
    path: PathBuf,
}

impl JournalSink {
    /// Creates the file (the journal, or the postings file, whose blocks use the same
    /// independently compressed, table-located layout).
    pub fn create(path: &Path, magic: [u8; 4]) -> Result<Self, StoreError> {
        Ok(JournalSink {
            out: FooterWriter::create(path, magic)?,
            slices: Vec::new(),
            comp: zstd::bulk::Compressor::new(ZSTD_LEVEL).at(path)?,
            path: path.to_path_buf(),
        })
    }
}

impl SliceSink for JournalSink {
    fn put(&mut self, _n: u32, raw: &[u8]) -> Result<(), StoreError> {
        let c = self.comp.compress(raw).at(&self.path)?;
        self.slices.push(SliceEntry {
            offset: self.out.position(),
            clen: c.len() as u32,
            ulen: raw.len() as u32,
            hash: xxh3_64(&c),
        });
        self.out.write(&c)
    }
}

/// Reads slice `e` of the journal into `out` (decompressed), verifying its checksum.
pub fn read_slice(
    path: &Path,
    file: &File,
    e: &SliceEntry,
    comp: &mut Vec<u8>,
    dec: &mut zstd::bulk::Decompressor<'static>,
    out: &mut Vec<u8>,
) -> Result<(), StoreError> {
    comp.resize(e.clen as usize, 0);
    file.read_exact_at(comp, e.offset).at(path)?;
    if xxh3_64(comp) != e.hash {
        return Err(StoreError::corrupt(
            path,
            format!("slice at {} fails its checksum", e.offset),
        ));
    }
    out.clear();
    out.reserve(e.ulen as usize);
    let n = dec
        .decompress_to_buffer(comp.as_slice(), out)
        .map_err(|err| StoreError::corrupt(path, format!("slice at {}: {err}", e.offset)))?;
    if n != e.ulen as usize {
        return Err(StoreError::corrupt(
            path,
            "slice decompresses to the wrong length",
        ));
    }
    Ok(())
}
