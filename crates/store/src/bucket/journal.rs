//! The raw journal: independently zstd-compressed slices, and the slice table that locates them.
//! See docs/format/journal.md and docs/format/slices.md.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::bucket::build::SliceSink;
use crate::codec::Reader;
use crate::consts::{
    JOURNAL_DICT_BYTES, JOURNAL_DICT_SAMPLE, JOURNAL_DICT_TRAIN_BYTES, ZSTD_LEVEL,
};
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

/// Encodes the body of `slices.dat`: the slice table, then the journal's zstd dictionary and
/// its length u64 (0 when the slices are compressed without one).
pub fn encode_slices_file(slices: &[SliceEntry], dict: &[u8], out: &mut Vec<u8>) {
    encode_slices(slices, out);
    out.extend_from_slice(dict);
    out.extend_from_slice(&(dict.len() as u64).to_le_bytes());
}

/// Splits the body of `slices.dat` into the slice table and the dictionary.
pub fn split_slices_file<'a>(
    path: &Path,
    body: &'a [u8],
) -> Result<(&'a [u8], &'a [u8]), StoreError> {
    let bad = || StoreError::corrupt(path, "dictionary length out of range");
    let n = body.len().checked_sub(8).ok_or_else(bad)?;
    let dlen = u64::from_le_bytes(body[n..].try_into().expect("8"));
    let at = usize::try_from(dlen)
        .ok()
        .and_then(|d| n.checked_sub(d))
        .ok_or_else(bad)?;
    Ok((&body[..at], &body[at..n]))
}

/// Trains a zstd dictionary of at most [`JOURNAL_DICT_BYTES`] on every other
/// [`JOURNAL_DICT_SAMPLE`]-byte piece of `slices` (half the bytes train as well as all of them
/// on the generated corpus, at half the CPU); empty when training fails (too little or too
/// uniform data), and the slices are then compressed without one.
fn train(slices: &[Vec<u8>]) -> Vec<u8> {
    let all: Vec<u8> = slices.concat();
    let mut data = Vec::with_capacity(all.len() / 2 + JOURNAL_DICT_SAMPLE);
    let mut sizes = Vec::new();
    for piece in all.chunks(JOURNAL_DICT_SAMPLE).step_by(2) {
        data.extend_from_slice(piece);
        sizes.push(piece.len());
    }
    zstd::dict::from_continuous(&data, &sizes, JOURNAL_DICT_BYTES).unwrap_or_default()
}

/// Writes compressed slices to `journal.zst` and records the table.
///
/// With a dictionary ([`JournalSink::with_dictionary`]) the first slices, up to
/// [`JOURNAL_DICT_TRAIN_BYTES`], are held back and a zstd dictionary is trained on them; every
/// slice is then compressed with it. Slices of 128 KiB compress as if each had the
/// dictionary's context of the bucket before it (measured ~7 % smaller on the generated mixed
/// corpus, 25 % for Java logs), while a read still decompresses one slice.
pub(crate) struct JournalSink {
    pub out: FooterWriter,
    pub slices: Vec<SliceEntry>,
    comp: zstd::bulk::Compressor<'static>,
    path: PathBuf,
    /// Slices held back until the dictionary is trained; `None` once it is (or without one).
    pending: Option<Vec<Vec<u8>>>,
    pending_bytes: usize,
    /// The trained dictionary (empty: none).
    dict: Vec<u8>,
}

impl JournalSink {
    /// Creates the file (the journal, or the postings file, whose blocks use the same
    /// independently compressed, table-located layout), compressing without a dictionary.
    pub fn create(path: &Path, magic: [u8; 4]) -> Result<Self, StoreError> {
        Ok(JournalSink {
            out: FooterWriter::create(path, magic)?,
            slices: Vec::new(),
            comp: zstd::bulk::Compressor::new(ZSTD_LEVEL).at(path)?,
            path: path.to_path_buf(),
            pending: None,
            pending_bytes: 0,
            dict: Vec::new(),
        })
    }

    /// Creates the journal, compressing with a dictionary trained on its first slices.
    pub fn with_dictionary(path: &Path, magic: [u8; 4]) -> Result<Self, StoreError> {
        let mut s = Self::create(path, magic)?;
        s.pending = Some(Vec::new());
        Ok(s)
    }

    /// Trains the dictionary on the held-back slices (when there are enough) and writes them.
    fn flush_pending(&mut self) -> Result<(), StoreError> {
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        if self.pending_bytes >= JOURNAL_DICT_TRAIN_BYTES / 2 {
            self.dict = train(&pending);
            if !self.dict.is_empty() {
                self.comp = zstd::bulk::Compressor::with_dictionary(ZSTD_LEVEL, &self.dict)
                    .at(&self.path)?;
            }
        }
        for raw in &pending {
            self.compress(raw)?;
        }
        Ok(())
    }

    /// Writes any held-back slices, the footer, and fsyncs; returns the body length, the slice
    /// table and the dictionary (empty: none).
    pub fn finish(mut self) -> Result<(u64, Vec<SliceEntry>, Vec<u8>), StoreError> {
        self.flush_pending()?;
        let len = self.out.finish()?;
        Ok((len, self.slices, self.dict))
    }

    fn compress(&mut self, raw: &[u8]) -> Result<(), StoreError> {
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

impl SliceSink for JournalSink {
    fn put(&mut self, _n: u32, raw: &[u8]) -> Result<(), StoreError> {
        if let Some(p) = &mut self.pending {
            p.push(raw.to_vec());
            self.pending_bytes += raw.len();
            if self.pending_bytes >= JOURNAL_DICT_TRAIN_BYTES {
                self.flush_pending()?;
            }
            return Ok(());
        }
        self.compress(raw)
    }
}

/// Reads slice `e` of the journal into `out` (decompressed), verifying its checksum.
pub fn read_slice(
    path: &Path,
    file: &File,
    e: &SliceEntry,
    comp: &mut Vec<u8>,
    dict: Option<&crate::dctx::Dict>,
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
    let n = crate::dctx::decompress(comp, dict, e.ulen as usize, out)
        .map_err(|err| StoreError::corrupt(path, format!("slice at {}: {err}", e.offset)))?;
    if n != e.ulen as usize {
        return Err(StoreError::corrupt(
            path,
            "slice decompresses to the wrong length",
        ));
    }
    Ok(())
}
