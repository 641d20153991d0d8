//! The raw journal: independently zstd-compressed slices, and the slice table that locates them.
//! See docs/format/journal.md and docs/format/slices.md.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;
use zstd::zstd_safe::{CParameter, ParamSwitch};

use crate::bucket::build::SliceSink;
use crate::codec::Reader;
use crate::consts::{
    JOURNAL_DICT_BYTES, JOURNAL_DICT_MIN_BYTES, JOURNAL_DICT_SAMPLE, JOURNAL_DICT_TRAIN_BYTES,
    JOURNAL_LEVEL, READ_AHEAD_BYTES, ZSTD_LEVEL,
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

impl SliceEntry {
    /// Decodes one [`SLICE_ENTRY_LEN`]-byte entry as [`encode_slices`] writes it.
    pub fn decode(b: &[u8; SLICE_ENTRY_LEN]) -> SliceEntry {
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4"));
        let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8"));
        SliceEntry {
            offset: u64_at(0),
            clen: u32_at(8),
            ulen: u32_at(12),
            hash: u64_at(16),
        }
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
    for b in body[8..].chunks_exact(SLICE_ENTRY_LEN) {
        let e = SliceEntry::decode(b.try_into().expect("an entry"));
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

/// Encodes the body of `slices.dat` in the first layout: the slice table, then the journal's
/// zstd dictionary and its length u64 (0 when the slices are compressed without one). Buckets
/// are written in the indexed layout now ([`crate::bucket::slice_table`]); this and the merged
/// layout below are still read.
#[cfg(test)]
pub(crate) fn encode_slices_file_single(slices: &[SliceEntry], dict: &[u8], out: &mut Vec<u8>) {
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

/// Last u64 of a `slices.dat` body holding several dictionaries (a merged bucket's): never a
/// dictionary length, which is what the single-dictionary layout ends with.
const MULTI: u64 = u64::MAX;

/// The journal's zstd dictionaries and which one each slice was compressed with. A bucket
/// written from events has one (possibly empty: none); a merged bucket keeps each source's,
/// since it copies their compressed slices as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dicts {
    /// Dictionary bytes; an empty one means "compressed without".
    pub dicts: Vec<Vec<u8>>,
    /// Dictionary of each slice; empty when there is one dictionary for all.
    pub of_slice: Vec<u32>,
}

impl Dicts {
    /// Index into [`Dicts::dicts`] of slice `n`.
    pub fn index(&self, n: usize) -> usize {
        self.of_slice.get(n).map_or(0, |&d| d as usize)
    }

    /// Total dictionary bytes.
    pub fn bytes(&self) -> usize {
        self.dicts.iter().map(Vec::len).sum()
    }
}

/// Encodes the body of `slices.dat` with several dictionaries: the slice table, each slice's
/// dictionary number (u32), the dictionaries, their lengths (u64 each), their count (u64) and
/// the marker `u64::MAX`.
#[cfg(test)]
pub(crate) fn encode_slices_file_multi(slices: &[SliceEntry], dicts: &Dicts, out: &mut Vec<u8>) {
    debug_assert_eq!(dicts.of_slice.len(), slices.len());
    encode_slices(slices, out);
    for d in &dicts.of_slice {
        out.extend_from_slice(&d.to_le_bytes());
    }
    for d in &dicts.dicts {
        out.extend_from_slice(d);
    }
    for d in &dicts.dicts {
        out.extend_from_slice(&(d.len() as u64).to_le_bytes());
    }
    out.extend_from_slice(&(dicts.dicts.len() as u64).to_le_bytes());
    out.extend_from_slice(&MULTI.to_le_bytes());
}

/// Decodes a `slices.dat` body of either layout against the journal body length: the slice
/// table and the dictionaries.
pub fn parse_slices_file(
    path: &Path,
    body: &[u8],
    journal_len: u64,
) -> Result<(Vec<SliceEntry>, Dicts), StoreError> {
    let bad = |r: &str| StoreError::corrupt(path, r);
    let u64_at = |end: usize| -> Result<u64, StoreError> {
        end.checked_sub(8)
            .and_then(|s| body.get(s..end))
            .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
            .ok_or_else(|| bad("slice file too short"))
    };
    if u64_at(body.len())? != MULTI {
        let (table, dict) = split_slices_file(path, body)?;
        let slices = decode_slices(path, table, journal_len)?;
        let dicts = Dicts {
            dicts: vec![dict.to_vec()],
            of_slice: Vec::new(),
        };
        return Ok((slices, dicts));
    }
    let mut end = body.len() - 8;
    let n = usize::try_from(u64_at(end)?)
        .ok()
        .filter(|&n| n <= body.len() / 8)
        .ok_or_else(|| bad("dictionary count out of range"))?;
    end -= 8;
    let lens_at = end
        .checked_sub(8 * n)
        .ok_or_else(|| bad("dictionary lengths out of range"))?;
    let mut lens = Vec::with_capacity(n);
    for i in 0..n {
        lens.push(u64_at(lens_at + 8 * (i + 1))?);
    }
    let total = lens
        .iter()
        .try_fold(0u64, |a, &l| a.checked_add(l))
        .and_then(|t| usize::try_from(t).ok())
        .ok_or_else(|| bad("dictionary lengths out of range"))?;
    let dicts_at = lens_at
        .checked_sub(total)
        .ok_or_else(|| bad("dictionary lengths out of range"))?;
    let mut dicts = Vec::with_capacity(n);
    let mut at = dicts_at;
    for l in lens {
        dicts.push(body[at..at + l as usize].to_vec());
        at += l as usize;
    }
    // The table's count says how many dictionary numbers precede the dictionaries.
    let count = usize::try_from(u64_at(8)?).map_err(|_| bad("slice count out of range"))?;
    let table_len = count
        .checked_mul(SLICE_ENTRY_LEN)
        .and_then(|l| l.checked_add(8))
        .filter(|&l| l.checked_add(count * 4) == Some(dicts_at))
        .ok_or_else(|| bad("slice count does not match the file length"))?;
    let slices = decode_slices(path, &body[..table_len], journal_len)?;
    let of_slice: Vec<u32> = body[table_len..dicts_at]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    if of_slice.iter().any(|&d| d as usize >= n) {
        return Err(bad("a slice names a missing dictionary"));
    }
    Ok((slices, Dicts { dicts, of_slice }))
}

/// Trains a zstd dictionary of at most [`JOURNAL_DICT_BYTES`] on every other
/// [`JOURNAL_DICT_SAMPLE`]-byte piece of `slices` (half the bytes train as well as all of them
/// on the generated corpus, at half the CPU). Empty (no dictionary) when the slices hold less
/// than [`JOURNAL_DICT_MIN_BYTES`], where one would cost more than it saves, or when training
/// fails (too uniform data); the slices are then compressed without one.
pub(crate) fn train_dictionary<S: AsRef<[u8]>>(slices: &[S]) -> Vec<u8> {
    let total: usize = slices.iter().map(|s| s.as_ref().len()).sum();
    if total < JOURNAL_DICT_MIN_BYTES {
        return Vec::new();
    }
    let (data, sizes) = dictionary_sample(slices, total);
    train_fast_cover(&data, &sizes).unwrap_or_default()
}

/// Every other [`JOURNAL_DICT_SAMPLE`]-byte piece of `slices` (`total` bytes), back to back,
/// and each piece's length: what a dictionary is trained on.
fn dictionary_sample<S: AsRef<[u8]>>(slices: &[S], total: usize) -> (Vec<u8>, Vec<usize>) {
    let mut data = Vec::with_capacity(total / 2 + JOURNAL_DICT_SAMPLE);
    let mut sizes = Vec::new();
    let pieces = slices
        .iter()
        .flat_map(|s| s.as_ref().chunks(JOURNAL_DICT_SAMPLE));
    for piece in pieces.step_by(2) {
        data.extend_from_slice(piece);
        sizes.push(piece.len());
    }
    (data, sizes)
}

/// zstd's fastCover trainer with fixed parameters (segments of 1,500 bytes, 8-byte d-mers),
/// on `data`, the samples back to back, `sizes` long each; `None` when training fails.
///
/// `ZDICT_trainFromBuffer`, which the zstd crate calls, searches four segment sizes and keeps
/// the one whose dictionary compresses a held-out quarter best: four trainings and a trial
/// compression. On 16 KiB slices of the generated corpus its choices were 1,024–1,998 bytes;
/// one training at 1,500 compressed the slices that followed within ±0.5 % of its
/// dictionary's size, in a quarter to a fifth of the time (200 MB interleaved as the bench
/// ingests it: 9.69 → 9.68 % of raw, 0.280 → 0.052 s per training).
#[allow(unsafe_code)]
fn train_fast_cover(data: &[u8], sizes: &[usize]) -> Option<Vec<u8>> {
    if sizes.iter().sum::<usize>() != data.len() {
        return None;
    }
    let count = u32::try_from(sizes.len()).ok()?;
    let params = zstd_sys::ZDICT_fastCover_params_t {
        k: 1500,
        d: 8,
        f: 20,
        steps: 0,
        nbThreads: 0,
        splitPoint: 0.0,
        accel: 1,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: zstd_sys::ZDICT_params_t {
            compressionLevel: 0,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    let mut dict = vec![0u8; JOURNAL_DICT_BYTES];
    // SAFETY: `dict` is writable for `dict.len()` bytes; `data` holds `count` samples whose
    // lengths, read from `sizes` (`count` of them), sum to `data.len()` (checked above). The
    // trainer writes at most `dict.len()` bytes and returns their number or an error code; it
    // keeps no pointer after it returns.
    let written = unsafe {
        zstd_sys::ZDICT_trainFromBuffer_fastCover(
            dict.as_mut_ptr().cast(),
            dict.len(),
            data.as_ptr().cast(),
            sizes.as_ptr(),
            count,
            params,
        )
    };
    // SAFETY: `ZDICT_isError` only inspects the value.
    if unsafe { zstd_sys::ZDICT_isError(written) } != 0 || written > dict.len() {
        return None;
    }
    dict.truncate(written);
    Some(dict)
}

/// The compressor of journal slices: with `dict` at [`JOURNAL_LEVEL`], without one (`dict`
/// empty) at [`ZSTD_LEVEL`].
///
/// With the dictionary, matches of at least 6 bytes are looked up in hash chains rather than
/// level 4's row match finder: 16 KiB slices of the interleaved mixed corpus compressed
/// 5–11 % faster into 0.6 % smaller frames (alternated in one process, session 14).
pub(crate) fn slice_compressor(dict: &[u8]) -> std::io::Result<zstd::bulk::Compressor<'static>> {
    if dict.is_empty() {
        return zstd::bulk::Compressor::new(ZSTD_LEVEL);
    }
    let mut c = zstd::bulk::Compressor::with_dictionary(JOURNAL_LEVEL, dict)?;
    c.set_parameter(CParameter::MinMatch(6))?;
    c.set_parameter(CParameter::UseRowMatchFinder(ParamSwitch::Disable))?;
    Ok(c)
}

/// Trains the journal dictionary on `held` (a journal's first slices, held back raw) and
/// compresses them with it: the dictionary (empty: none), a compressor with it for the slices
/// that follow, and the frames of the held slices, in order. What a hot bucket
/// (`bucket::hot`) and a warm write ([`JournalSink`]) each do once their first slices are in.
pub(crate) fn train_and_compress<S: AsRef<[u8]>>(
    held: &[S],
) -> std::io::Result<(Vec<u8>, zstd::bulk::Compressor<'static>, Vec<Vec<u8>>)> {
    let dict = train_dictionary(held);
    let (comp, frames) = compress_held(&dict, held)?;
    Ok((dict, comp, frames))
}

/// Compresses `held` (slices held back raw) with `dict` (empty: none): a compressor with it for
/// the slices that follow, and the held slices' frames, in order.
pub(crate) fn compress_held<S: AsRef<[u8]>>(
    dict: &[u8],
    held: &[S],
) -> std::io::Result<(zstd::bulk::Compressor<'static>, Vec<Vec<u8>>)> {
    let mut comp = slice_compressor(dict)?;
    let frames = held
        .iter()
        .map(|s| comp.compress(s.as_ref()))
        .collect::<std::io::Result<_>>()?;
    Ok((comp, frames))
}

/// Writes compressed slices to `journal.zst` and records the table.
///
/// With a dictionary ([`JournalSink::with_dictionary`]) the first slices, up to
/// [`JOURNAL_DICT_TRAIN_BYTES`], are held back and a zstd dictionary is trained on them; every
/// slice is then compressed with it. Slices of 16 KiB compress as if each had the
/// dictionary's context of the bucket before it (measured ~7 % smaller on the generated mixed
/// corpus, 25 % for Java logs), while a read still decompresses one slice. A hot bucket trains
/// its dictionary and compresses its slices while it fills (`bucket::hot`); its roll opens the
/// sink with that dictionary ([`JournalSink::with_trained_dictionary`]) and copies the frames
/// ([`JournalSink::put_compressed`]).
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
    /// Creates the file (the journal, or the postings or lexicon file, whose blocks use the
    /// same independently compressed, table-located layout), compressing without a dictionary
    /// at zstd `level`.
    pub fn create(path: &Path, magic: [u8; 4], level: i32) -> Result<Self, StoreError> {
        Ok(JournalSink {
            out: FooterWriter::create(path, magic)?,
            slices: Vec::new(),
            comp: zstd::bulk::Compressor::new(level).at(path)?,
            path: path.to_path_buf(),
            pending: None,
            pending_bytes: 0,
            dict: Vec::new(),
        })
    }

    /// Sets zstd's shortest match (`ZSTD_c_minMatch`, 3–7) for the slices compressed from now
    /// on.
    pub fn min_match(mut self, bytes: u32) -> Result<Self, StoreError> {
        self.comp
            .set_parameter(zstd::zstd_safe::CParameter::MinMatch(bytes))
            .at(&self.path)?;
        Ok(self)
    }

    /// Creates the journal, compressing with a dictionary trained on its first slices.
    pub fn with_dictionary(path: &Path, magic: [u8; 4]) -> Result<Self, StoreError> {
        let mut s = Self::create(path, magic, ZSTD_LEVEL)?;
        s.pending = Some(Vec::new());
        Ok(s)
    }

    /// Creates the journal, compressing with `dict` (empty: none), already trained.
    pub fn with_trained_dictionary(
        path: &Path,
        magic: [u8; 4],
        dict: Vec<u8>,
    ) -> Result<Self, StoreError> {
        let mut s = Self::create(path, magic, ZSTD_LEVEL)?;
        if !dict.is_empty() {
            s.comp = slice_compressor(&dict).at(path)?;
        }
        s.dict = dict;
        Ok(s)
    }

    /// Trains the dictionary on the held-back slices (when there are enough) and writes them.
    fn flush_pending(&mut self) -> Result<(), StoreError> {
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        let (dict, comp, frames) = train_and_compress(&pending).at(&self.path)?;
        (self.dict, self.comp) = (dict, comp);
        for (raw, frame) in pending.iter().zip(&frames) {
            self.put_compressed(raw.len() as u32, frame)?;
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
        self.put_compressed(raw.len() as u32, &c)
    }

    /// Appends `frame`, a slice of `ulen` bytes compressed already with this sink's dictionary.
    /// For a sink created with its dictionary ([`JournalSink::with_trained_dictionary`]), never
    /// one still holding slices back to train.
    pub fn put_compressed(&mut self, ulen: u32, frame: &[u8]) -> Result<(), StoreError> {
        debug_assert!(self.pending.is_none(), "frame given to a training sink");
        self.slices.push(SliceEntry {
            offset: self.out.position(),
            clen: frame.len() as u32,
            ulen,
            hash: xxh3_64(frame),
        });
        self.out.write(frame)
    }
}

impl JournalSink {
    /// Reads slice `n` (already put) back into `out`, decompressed and checked as a reader
    /// would (`comp` holds the compressed bytes). For a sink compressing without a dictionary
    /// (postings, lexicon).
    pub fn read_back(
        &mut self,
        n: usize,
        comp: &mut Vec<u8>,
        out: &mut Vec<u8>,
    ) -> Result<(), StoreError> {
        debug_assert!(self.pending.is_none() && self.dict.is_empty());
        let e = *self.slices.get(n).ok_or_else(|| {
            StoreError::corrupt(&self.path, format!("no block {n} written to read back"))
        })?;
        let file = self.out.written()?;
        read_slice(&self.path, file, &e, comp, None, out)
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
    decompress_slice(path, comp, e, dict, out)
}

/// Compressed bytes a read takes ahead of where it is: a dense read takes a journal's slices
/// in file order, ~1.6 KB each, and one `pread` per slice cost more in system calls than the
/// copying (8 % of a dense search's cycles). Reads that jump keep reading one slice at a time.
#[derive(Default)]
pub(crate) struct ReadAhead {
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    at: u64,
    /// Where the last slice asked for ended.
    last_end: Option<u64>,
}

impl ReadAhead {
    /// The compressed bytes of slice `e`: from the bytes read ahead when they hold it, else
    /// read, with up to [`READ_AHEAD_BYTES`] more when `e` starts where the last slice ended.
    fn bytes(&mut self, path: &Path, file: &File, e: &SliceEntry) -> Result<&[u8], StoreError> {
        let (start, len) = (e.offset, e.clen as usize);
        let sequential = self.last_end == Some(start);
        self.last_end = start.checked_add(len as u64);
        let held = start
            .checked_sub(self.at)
            .and_then(|off| usize::try_from(off).ok())
            .filter(|&off| {
                off.checked_add(len)
                    .is_some_and(|end| end <= self.buf.len())
            });
        let off = match held {
            Some(off) => off,
            None => {
                let want = if sequential {
                    len.max(READ_AHEAD_BYTES)
                } else {
                    len
                };
                self.buf.resize(want, 0);
                self.at = start;
                let mut got = 0;
                while got < want {
                    match file.read_at(&mut self.buf[got..], start + got as u64) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(err) => {
                            self.buf.clear();
                            return Err(err).at(path);
                        }
                    }
                }
                self.buf.truncate(got);
                if got < len {
                    self.buf.clear();
                    let eof = std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
                    return Err(eof).at(path);
                }
                0
            }
        };
        Ok(&self.buf[off..off + len])
    }
}

/// [`read_slice`] through a [`ReadAhead`].
pub(crate) fn read_slice_ahead(
    path: &Path,
    file: &File,
    e: &SliceEntry,
    ahead: &mut ReadAhead,
    dict: Option<&crate::dctx::Dict>,
    out: &mut Vec<u8>,
) -> Result<(), StoreError> {
    let comp = ahead.bytes(path, file, e)?;
    decompress_slice(path, comp, e, dict, out)
}

/// As [`read_slice_ahead`], decompressing into `near` (whose dictionary must be the slice's).
pub(crate) fn read_slice_near<'n>(
    path: &Path,
    file: &File,
    e: &SliceEntry,
    ahead: &mut ReadAhead,
    near: &'n mut crate::dctx::Near<'_>,
) -> Result<&'n [u8], StoreError> {
    let comp = checked(path, ahead.bytes(path, file, e)?, e)?;
    near.decompress(comp, e.ulen as usize)
        .map_err(|err| slice_error(path, e, err))
}

/// Checks the compressed bytes of slice `e` against its checksum and decompresses them.
fn decompress_slice(
    path: &Path,
    comp: &[u8],
    e: &SliceEntry,
    dict: Option<&crate::dctx::Dict>,
    out: &mut Vec<u8>,
) -> Result<(), StoreError> {
    let comp = checked(path, comp, e)?;
    crate::dctx::decompress(comp, dict, e.ulen as usize, out)
        .map_err(|err| slice_error(path, e, err))
}

/// `comp` if it has slice `e`'s checksum.
fn checked<'c>(path: &Path, comp: &'c [u8], e: &SliceEntry) -> Result<&'c [u8], StoreError> {
    if xxh3_64(comp) != e.hash {
        return Err(StoreError::corrupt(
            path,
            format!("slice at {} fails its checksum", e.offset),
        ));
    }
    Ok(comp)
}

fn slice_error(path: &Path, e: &SliceEntry, err: String) -> StoreError {
    StoreError::corrupt(path, format!("slice at {}: {err}", e.offset))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 16 KiB slices of log lines varied enough to train on: `n` bytes from line `from`.
    fn log_slices(from: u64, n: usize) -> Vec<Vec<u8>> {
        let mut text = Vec::new();
        let mut i = from;
        while text.len() < n {
            let line = format!(
                "2024-01-01T00:{:02}:{:02} host=web{} user=u{} GET /api/v{}/items?id={} status={} \
                 took={}ms agent=\"Mozilla/5.0 ({})\"\n",
                i / 60 % 60,
                i % 60,
                i % 4,
                i * 7 % 113,
                i % 3,
                i * 2_654_435_761 % 1_000_003,
                [200, 200, 404, 500][i as usize % 4],
                i * 13 % 997,
                ["X11; Linux x86_64", "Windows NT 10.0", "Macintosh"][i as usize % 3],
            );
            text.extend_from_slice(line.as_bytes());
            i += 1;
        }
        text.chunks(crate::consts::SLICE_TARGET_BYTES)
            .map(<[u8]>::to_vec)
            .collect()
    }

    /// The fixed-parameter trainer makes a dictionary that shrinks later slices well below
    /// what they compress to without one; bad input is refused, not trained on.
    #[test]
    fn trained_dictionary_compresses_later_slices() {
        let held = log_slices(0, JOURNAL_DICT_TRAIN_BYTES);
        let dict = train_dictionary(&held);
        assert!(
            !dict.is_empty() && dict.len() <= JOURNAL_DICT_BYTES,
            "{}",
            dict.len()
        );
        let later = log_slices(1_000_000, 2 << 20);
        let size = |dict: &[u8]| -> usize {
            let mut c = slice_compressor(dict).unwrap();
            later.iter().map(|s| c.compress(s).unwrap().len()).sum()
        };
        // About as good as the dictionary of zstd's own searching trainer, and better than none.
        let (data, sizes) = dictionary_sample(&held, JOURNAL_DICT_TRAIN_BYTES);
        let searched = zstd::dict::from_continuous(&data, &sizes, JOURNAL_DICT_BYTES).unwrap();
        let (with, best, without) = (size(&dict), size(&searched), size(&[]));
        assert!(with * 100 < best * 103, "{with} fixed, {best} searched");
        assert!(with * 100 < without * 95, "{with} with, {without} without");
        // Too few bytes: no dictionary. Sizes that do not add up: refused before zstd sees them.
        assert!(train_dictionary(&log_slices(0, JOURNAL_DICT_MIN_BYTES / 2)).is_empty());
        assert_eq!(train_fast_cover(b"abcdef", &[4, 4]), None);
    }

    /// Contiguous entries of the given compressed lengths (made-up lengths and hashes).
    pub(crate) fn entries(lens: &[u32]) -> Vec<SliceEntry> {
        let mut at = 0;
        lens.iter()
            .map(|&l| {
                let e = SliceEntry {
                    offset: at,
                    clen: l,
                    ulen: l * 3,
                    hash: at ^ 0x5a5a,
                };
                at += l as u64;
                e
            })
            .collect()
    }

    /// Read-ahead gives each slice exactly its bytes, in order, out of order, and again; a
    /// slice past the end of a cut file is an error, not short bytes.
    #[test]
    fn read_ahead_gives_each_slice_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.zst");
        // Slices of 1..=700 bytes: several read-aheads' worth, each byte numbered by position.
        let lens: Vec<u32> = (0..1200u32).map(|i| 1 + (i * 37) % 700).collect();
        let total: u64 = lens.iter().map(|&l| l as u64).sum();
        assert!(total > 2 * READ_AHEAD_BYTES as u64);
        let data: Vec<u8> = (0..total).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let slices = entries(&lens);
        let want = |e: &SliceEntry| &data[e.offset as usize..(e.offset + e.clen as u64) as usize];
        let mut ahead = ReadAhead::default();
        let order = (0..1200).chain([1199, 0, 7, 6, 5, 600, 601, 602, 3]);
        for i in order {
            let e = &slices[i];
            assert_eq!(ahead.bytes(&path, &file, e).unwrap(), want(e), "slice {i}");
        }
        // The file cut inside the last slices: reading them fails.
        std::fs::write(&path, &data[..data.len() - 10]).unwrap();
        let file = File::open(&path).unwrap();
        let mut ahead = ReadAhead::default();
        for e in &slices[..1199] {
            assert_eq!(ahead.bytes(&path, &file, e).unwrap(), want(e));
        }
        assert!(ahead.bytes(&path, &file, &slices[1199]).is_err());
    }

    #[test]
    fn both_layouts_parse_and_damage_is_an_error() {
        let p = Path::new("slices.dat");
        let slices = entries(&[10, 20, 5]);
        let mut single = Vec::new();
        encode_slices_file_single(&slices, b"dict", &mut single);
        let (s, d) = parse_slices_file(p, &single, 35).unwrap();
        assert_eq!(s, slices);
        assert_eq!(d.dicts, vec![b"dict".to_vec()]);
        assert_eq!((d.index(0), d.index(2)), (0, 0));

        let dicts = Dicts {
            dicts: vec![b"one".to_vec(), Vec::new(), b"three!".to_vec()],
            of_slice: vec![2, 0, 1],
        };
        let mut multi = Vec::new();
        encode_slices_file_multi(&slices, &dicts, &mut multi);
        let (s, d) = parse_slices_file(p, &multi, 35).unwrap();
        assert_eq!((s, d.clone()), (slices.clone(), dicts));
        assert_eq!(d.bytes(), 9);
        // Every truncation and every flipped byte is refused or decodes to something checked,
        // never a panic.
        for cut in 0..multi.len() {
            let _ = parse_slices_file(p, &multi[..cut], 35);
        }
        for i in 0..multi.len() {
            let mut bad = multi.clone();
            bad[i] ^= 0x41;
            let _ = parse_slices_file(p, &bad, 35);
        }
        // A slice naming a missing dictionary.
        let mut bad = multi.clone();
        let at = 8 + 3 * SLICE_ENTRY_LEN;
        bad[at..at + 4].copy_from_slice(&7u32.to_le_bytes());
        assert!(parse_slices_file(p, &bad, 35).is_err());
        assert!(parse_slices_file(p, &multi, 36).is_err());
    }
}
