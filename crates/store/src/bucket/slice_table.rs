//! The slice table of a warm bucket (`slices.dat`), read only as far as a search needs it.
//!
//! A merged bucket of a few GB of raw holds tens of thousands of 16 KiB slices and several
//! journal dictionaries: 1–2 MB of table. Reading and checksumming all of it on every open cost
//! a one-shot search more than reading its events. Buckets written now use the *indexed* layout
//! (docs/format/journal.md): each dictionary carries its own xxh3, so opening reads the footer
//! and the few bytes of the tail, a search reads table entries in chunks of [`CHUNK`] around the
//! slices it decompresses, and each dictionary is read and verified on first use. Entries need
//! no file checksum: each is checked for shape and against the journal when read, and the
//! slice it locates carries its own xxh3, checked before every decompression. The whole file
//! is still verified by `fsck` and by [`SliceTable::all`] (merges), and buckets in the two
//! earlier layouts are read and verified whole when they open, as before.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xxhash_rust::xxh3::xxh3_64;

use crate::bucket::journal::{
    decode_slices, encode_slices, parse_slices_file, Dicts, SliceEntry, SLICE_ENTRY_LEN,
};
use crate::consts::magic;
use crate::dctx::Dict;
use crate::error::{IoContext, StoreError};
use crate::footer::{open_checked, read_verified};

/// Last u64 of a `slices.dat` body in the indexed layout (never a dictionary length, and not
/// the merged layout's `u64::MAX`).
const INDEXED: u64 = u64::MAX - 1;

/// Table entries read at once around a slice a search needs (1.5 KiB).
const CHUNK: usize = 64;

/// The whole slice table: every entry and every dictionary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalTable {
    pub slices: Vec<SliceEntry>,
    pub dicts: Dicts,
}

/// Encodes the body of `slices.dat` in the indexed layout: the slice table, each slice's
/// dictionary number (u32; only with more than one dictionary), the dictionaries, each one's
/// length and xxh3 (u64 each), their count (u64) and the marker.
pub fn encode_slices_file(slices: &[SliceEntry], dicts: &Dicts, out: &mut Vec<u8>) {
    let one = [Vec::new()];
    let list: &[Vec<u8>] = if dicts.dicts.is_empty() {
        &one
    } else {
        &dicts.dicts
    };
    encode_slices(slices, out);
    if list.len() > 1 {
        debug_assert_eq!(dicts.of_slice.len(), slices.len());
        for d in &dicts.of_slice {
            out.extend_from_slice(&d.to_le_bytes());
        }
    }
    for d in list {
        out.extend_from_slice(d);
    }
    for d in list {
        out.extend_from_slice(&(d.len() as u64).to_le_bytes());
        out.extend_from_slice(&xxh3_64(d).to_le_bytes());
    }
    out.extend_from_slice(&(list.len() as u64).to_le_bytes());
    out.extend_from_slice(&INDEXED.to_le_bytes());
}

/// Reads `buf.len()` bytes at a body offset (from the file, or from bytes in memory).
type ReadAt<'a> = dyn Fn(&mut [u8], u64) -> Result<(), StoreError> + 'a;

/// Where the parts of an indexed-layout body lie.
#[derive(Debug)]
struct Layout {
    count: usize,
    /// Offset of the dictionary numbers, when there is more than one dictionary.
    dict_nos_at: Option<u64>,
    /// Each dictionary: offset, length, xxh3.
    dicts: Vec<(u64, usize, u64)>,
}

/// Reads the layout of a body of `body_len` bytes through `read_at` (a file or bytes in
/// memory); `None` when the body is in one of the earlier layouts.
fn layout(path: &Path, body_len: u64, read_at: &ReadAt<'_>) -> Result<Option<Layout>, StoreError> {
    let bad = |r: &str| StoreError::corrupt(path, r);
    if body_len < 16 {
        return Err(bad("slice file too short"));
    }
    let mut tail = [0u8; 16];
    read_at(&mut tail, body_len - 16)?;
    if u64_le(&tail[8..]) != INDEXED {
        return Ok(None);
    }
    let n = usize::try_from(u64_le(&tail[..8]))
        .ok()
        .filter(|&n| n >= 1 && (n as u64) <= (body_len - 16) / 16)
        .ok_or_else(|| bad("dictionary count out of range"))?;
    let spans_at = body_len - 16 - 16 * n as u64;
    let mut spans = vec![0u8; 16 * n];
    read_at(&mut spans, spans_at)?;
    let mut lens = Vec::with_capacity(n);
    let mut total = 0u64;
    for s in spans.chunks_exact(16) {
        let len = u64_le(&s[..8]);
        total = total
            .checked_add(len)
            .filter(|&t| t <= spans_at)
            .ok_or_else(|| bad("dictionary lengths out of range"))?;
        lens.push((len as usize, u64_le(&s[8..])));
    }
    let dicts_at = spans_at - total;
    let mut head = [0u8; 8];
    if dicts_at < 8 {
        return Err(bad("slice file too short"));
    }
    read_at(&mut head, 0)?;
    let count = u64_le(&head);
    let nos = if n > 1 { 4 } else { 0 };
    let table_end = count
        .checked_mul(24 + nos)
        .and_then(|b| b.checked_add(8))
        .filter(|&e| e == dicts_at)
        .ok_or_else(|| bad("slice count does not match the file length"))?;
    let mut at = dicts_at;
    let dicts = lens
        .into_iter()
        .map(|(len, hash)| {
            let d = (at, len, hash);
            at += len as u64;
            d
        })
        .collect();
    Ok(Some(Layout {
        count: usize::try_from(count).map_err(|_| bad("slice count out of range"))?,
        dict_nos_at: (n > 1).then_some(table_end - 4 * count),
        dicts,
    }))
}

/// `bytes` of a dictionary when they match the xxh3 the table records for it.
fn checked_dict<'a>(path: &Path, bytes: &'a [u8], hash: u64) -> Result<&'a [u8], StoreError> {
    if xxh3_64(bytes) != hash {
        return Err(StoreError::corrupt(
            path,
            "a journal dictionary fails its checksum",
        ));
    }
    Ok(bytes)
}

fn u64_le(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Decodes a whole `slices.dat` body of any layout against the journal body length.
pub fn parse_table(path: &Path, body: &[u8], journal_len: u64) -> Result<JournalTable, StoreError> {
    let read_at = |buf: &mut [u8], at: u64| -> Result<(), StoreError> {
        let src = usize::try_from(at)
            .ok()
            .and_then(|a| body.get(a..a + buf.len()))
            .ok_or_else(|| StoreError::corrupt(path, "slice file too short"))?;
        buf.copy_from_slice(src);
        Ok(())
    };
    let Some(l) = layout(path, body.len() as u64, &read_at)? else {
        let (slices, dicts) = parse_slices_file(path, body, journal_len)?;
        return Ok(JournalTable { slices, dicts });
    };
    let bad = |r: &str| StoreError::corrupt(path, r);
    let table_len = 8 + 24 * l.count;
    let slices = decode_slices(path, &body[..table_len], journal_len)?;
    let mut dicts = Vec::with_capacity(l.dicts.len());
    for &(at, len, hash) in &l.dicts {
        dicts.push(checked_dict(path, &body[at as usize..at as usize + len], hash)?.to_vec());
    }
    let of_slice = match l.dict_nos_at {
        Some(at) => {
            let nos: Vec<u32> = body[at as usize..at as usize + 4 * l.count]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
                .collect();
            if nos.iter().any(|&d| d as usize >= dicts.len()) {
                return Err(bad("a slice names a missing dictionary"));
            }
            nos
        }
        None => Vec::new(),
    };
    Ok(JournalTable {
        slices,
        dicts: Dicts { dicts, of_slice },
    })
}

/// Table entries a read keeps between slices: the chunk around the last slice it looked up.
#[derive(Default)]
pub struct EntryChunk {
    first: usize,
    entries: Vec<SliceEntry>,
    dict_nos: Vec<u32>,
    buf: Vec<u8>,
}

/// An open `slices.dat`.
pub struct SliceTable {
    path: PathBuf,
    file: File,
    journal_len: u64,
    count: usize,
    /// `None`: an earlier layout, read whole at open into `all`.
    layout: Option<Layout>,
    all: OnceLock<Result<JournalTable, StoreError>>,
    /// Each dictionary, read, verified and digested for decompression on first use (`None`:
    /// an empty one), so opening a bucket that a search reads no event of costs no digest.
    digested: Vec<OnceLock<Result<Option<Dict>, StoreError>>>,
}

impl SliceTable {
    /// Opens `path` for a journal body of `journal_len` bytes: the footer and tail (indexed
    /// layout; the last entry is checked to end the journal), or the whole verified file
    /// (earlier layouts).
    pub fn open(path: &Path, journal_len: u64) -> Result<SliceTable, StoreError> {
        let (file, body_len) = open_checked(path, magic::SLICES)?;
        let read_at = |buf: &mut [u8], at: u64| file.read_exact_at(buf, at).at(path);
        let layout = layout(path, body_len, &read_at)?;
        let all = OnceLock::new();
        let (count, ndicts) = match &layout {
            Some(l) => (l.count, l.dicts.len()),
            None => {
                let body = read_verified(path, magic::SLICES)?;
                let t = parse_table(path, &body, journal_len)?;
                let sizes = (t.slices.len(), t.dicts.dicts.len());
                let _ = all.set(Ok(t));
                sizes
            }
        };
        let table = SliceTable {
            path: path.to_path_buf(),
            file,
            journal_len,
            count,
            layout,
            all,
            digested: (0..ndicts).map(|_| OnceLock::new()).collect(),
        };
        if table.layout.is_some() {
            let ends = match count.checked_sub(1) {
                Some(last) => {
                    let e = table.entry(last as u32, &mut EntryChunk::default())?.0;
                    e.offset + e.clen as u64
                }
                None => 0,
            };
            if ends != journal_len {
                return Err(StoreError::corrupt(
                    path,
                    "slices do not cover the journal exactly",
                ));
            }
        }
        Ok(table)
    }

    /// Number of slices.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the journal has no slice.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes of the journal's dictionaries (0: slices are compressed without one).
    pub fn dict_bytes(&self) -> usize {
        match &self.layout {
            Some(l) => l.dicts.iter().map(|d| d.1).sum(),
            // Earlier layouts: the whole table was read at open.
            None => self.all().map_or(0, |t| t.dicts.bytes()),
        }
    }

    /// Bytes of table held in memory (the whole table once read; dictionaries are charged by
    /// the caller through [`SliceTable::dict_bytes`]).
    pub fn held_bytes(&self) -> usize {
        match self.all.get() {
            Some(Ok(t)) => t.slices.len() * std::mem::size_of::<SliceEntry>(),
            _ => 0,
        }
    }

    /// The whole table, read and verified (file checksum included) on first use.
    pub fn all(&self) -> Result<&JournalTable, StoreError> {
        let t = self.all.get_or_init(|| {
            let body = read_verified(&self.path, magic::SLICES)?;
            parse_table(&self.path, &body, self.journal_len)
        });
        t.as_ref().map_err(StoreError::duplicate)
    }

    /// Slice `n`'s entry and dictionary number, from the whole table when it is in memory,
    /// else from `chunk` (read from the file when `n` lies outside it).
    pub fn entry(&self, n: u32, chunk: &mut EntryChunk) -> Result<(SliceEntry, usize), StoreError> {
        let n = n as usize;
        let missing = || StoreError::corrupt(&self.path, format!("no slice {n}"));
        let Some(l) = &self.layout else {
            // Earlier layouts: the whole table was read at open.
            let t = self.all()?;
            let e = t.slices.get(n).ok_or_else(missing)?;
            return Ok((*e, t.dicts.index(n)));
        };
        if n >= self.count {
            return Err(missing());
        }
        if !(chunk.first..chunk.first + chunk.entries.len()).contains(&n) {
            self.read_chunk(l, n / CHUNK * CHUNK, chunk)?;
        }
        let i = n - chunk.first;
        Ok((
            chunk.entries[i],
            chunk.dict_nos.get(i).map_or(0, |&d| d as usize),
        ))
    }

    /// Reads the entries (and dictionary numbers) of slices `first..first + CHUNK` into
    /// `chunk`, checking that they are contiguous and lie within the journal.
    fn read_chunk(
        &self,
        l: &Layout,
        first: usize,
        chunk: &mut EntryChunk,
    ) -> Result<(), StoreError> {
        let bad = |r: &str| StoreError::corrupt(&self.path, r);
        let k = CHUNK.min(self.count - first);
        chunk.entries.clear();
        chunk.dict_nos.clear();
        chunk.buf.resize(SLICE_ENTRY_LEN * k, 0);
        self.file
            .read_exact_at(&mut chunk.buf, 8 + (SLICE_ENTRY_LEN * first) as u64)
            .at(&self.path)?;
        let mut prev_end = None;
        for b in chunk.buf.chunks_exact(SLICE_ENTRY_LEN) {
            let e = SliceEntry::decode(b.try_into().expect("an entry"));
            let end = e.offset.checked_add(e.clen as u64);
            if end.is_none_or(|end| end > self.journal_len)
                || prev_end.is_some_and(|p| p != e.offset)
                || (first == 0 && prev_end.is_none() && e.offset != 0)
            {
                chunk.entries.clear();
                return Err(bad("slices are not contiguous"));
            }
            prev_end = end;
            chunk.entries.push(e);
        }
        if let Some(at) = l.dict_nos_at {
            chunk.buf.resize(4 * k, 0);
            self.file
                .read_exact_at(&mut chunk.buf, at + 4 * first as u64)
                .at(&self.path)?;
            for c in chunk.buf.chunks_exact(4) {
                let d = u32::from_le_bytes(c.try_into().expect("4"));
                if d as usize >= l.dicts.len() {
                    chunk.entries.clear();
                    return Err(bad("a slice names a missing dictionary"));
                }
                chunk.dict_nos.push(d);
            }
        }
        chunk.first = first;
        Ok(())
    }

    /// Number of dictionaries.
    pub fn dict_count(&self) -> usize {
        self.digested.len()
    }

    /// Dictionary `i`, read, verified and digested on first use (`None`: slices compressed
    /// without one).
    pub fn dict(&self, i: usize) -> Result<Option<&Dict>, StoreError> {
        let bad = |r: &str| StoreError::corrupt(&self.path, r);
        let cell = self
            .digested
            .get(i)
            .ok_or_else(|| bad("a slice names a missing dictionary"))?;
        let digest = |bytes: Vec<u8>| {
            let empty = bytes.is_empty();
            match Dict::new(bytes) {
                None if !empty => Err(bad("the journal dictionary could not be loaded")),
                d => Ok(d),
            }
        };
        let d = cell.get_or_init(|| match &self.layout {
            Some(l) => {
                let (at, len, hash) = l.dicts[i];
                let mut b = vec![0u8; len];
                self.file.read_exact_at(&mut b, at).at(&self.path)?;
                checked_dict(&self.path, &b, hash)?;
                digest(b)
            }
            // Earlier layouts: the whole table was read (and verified) at open.
            None => digest(self.all()?.dicts.dicts[i].clone()),
        });
        match d {
            Ok(d) => Ok(d.as_ref()),
            Err(e) => Err(e.duplicate()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bucket::journal::tests::entries;
    use crate::footer::append_footer;

    fn write(dir: &Path, body: &[u8]) -> PathBuf {
        let p = dir.join("slices.dat");
        let mut b = body.to_vec();
        append_footer(&mut b, magic::SLICES);
        std::fs::write(&p, b).unwrap();
        p
    }

    #[test]
    fn lazy_lookups_match_the_whole_table() {
        let dir = tempfile::tempdir().unwrap();
        let lens: Vec<u32> = (0..200).map(|i| 10 + i % 7).collect();
        let slices = entries(&lens);
        let total: u64 = lens.iter().map(|&l| l as u64).sum();
        for dicts in [
            Dicts::default(),
            Dicts {
                dicts: vec![b"only".to_vec()],
                of_slice: Vec::new(),
            },
            Dicts {
                dicts: vec![b"one".to_vec(), Vec::new(), b"three!".to_vec()],
                of_slice: (0..200).map(|i| i % 3).collect(),
            },
        ] {
            let mut body = Vec::new();
            encode_slices_file(&slices, &dicts, &mut body);
            let p = write(dir.path(), &body);
            let t = SliceTable::open(&p, total).unwrap();
            assert_eq!(t.len(), 200);
            assert_eq!(t.held_bytes(), 0, "nothing read but the tail");
            let mut chunk = EntryChunk::default();
            // Newest first, as event searches read, then oldest first.
            for n in (0..200).rev().chain(0..200) {
                let (e, d) = t.entry(n, &mut chunk).unwrap();
                assert_eq!(e, slices[n as usize]);
                assert_eq!(d, dicts.index(n as usize));
            }
            assert!(t.entry(200, &mut chunk).is_err());
            let all = t.all().unwrap();
            assert_eq!(all.slices, slices);
            let want = if dicts.dicts.is_empty() {
                vec![Vec::new()]
            } else {
                dicts.dicts.clone()
            };
            assert_eq!(all.dicts.dicts, want);
            assert_eq!(t.dict_bytes(), want.iter().map(Vec::len).sum::<usize>());
            // The journal must end where the last slice does.
            assert!(SliceTable::open(&p, total + 1).is_err());
        }
    }

    #[test]
    fn earlier_layouts_still_open() {
        let dir = tempfile::tempdir().unwrap();
        let slices = entries(&[10, 20, 5]);
        let mut single = Vec::new();
        crate::bucket::journal::encode_slices_file_single(&slices, b"dict", &mut single);
        let t = SliceTable::open(&write(dir.path(), &single), 35).unwrap();
        assert_eq!(t.entry(2, &mut EntryChunk::default()).unwrap().0, slices[2]);
        assert_eq!(t.dict_bytes(), 4);
        let dicts = Dicts {
            dicts: vec![b"one".to_vec(), Vec::new()],
            of_slice: vec![1, 0, 1],
        };
        let mut multi = Vec::new();
        crate::bucket::journal::encode_slices_file_multi(&slices, &dicts, &mut multi);
        let t = SliceTable::open(&write(dir.path(), &multi), 35).unwrap();
        assert_eq!(
            t.entry(1, &mut EntryChunk::default()).unwrap(),
            (slices[1], 0)
        );
        assert_eq!(t.all().unwrap().dicts, dicts);
    }

    #[test]
    fn damage_is_an_error_never_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let lens: Vec<u32> = (0..70).map(|i| 5 + i % 4).collect();
        let total: u64 = lens.iter().map(|&l| l as u64).sum();
        let slices = entries(&lens);
        let dicts = Dicts {
            dicts: vec![b"one".to_vec(), b"two".to_vec()],
            of_slice: (0..70).map(|i| i % 2).collect(),
        };
        let mut body = Vec::new();
        encode_slices_file(&slices, &dicts, &mut body);
        assert!(parse_table(Path::new("x"), &body, total).is_ok());
        let exercise = |b: &[u8]| {
            let _ = parse_table(Path::new("x"), b, total);
            if let Ok(t) = SliceTable::open(&write(dir.path(), b), total) {
                let mut chunk = EntryChunk::default();
                for n in 0..72 {
                    let _ = t.entry(n, &mut chunk);
                }
                for i in 0..3 {
                    let _ = t.dict(i);
                }
                let _ = t.all();
            }
        };
        for cut in 0..body.len() {
            exercise(&body[..cut]);
        }
        for i in 0..body.len() {
            let mut bad = body.clone();
            bad[i] ^= 0x41;
            exercise(&bad);
        }
        // A damaged dictionary is refused when it is first used, and by the whole-table read.
        let mut bad = body.clone();
        let at = 8 + 70 * 28;
        bad[at] ^= 1;
        assert!(parse_table(Path::new("x"), &bad, total).is_err());
        let t = SliceTable::open(&write(dir.path(), &bad), total).unwrap();
        assert!(matches!(t.dict(0), Err(StoreError::Corrupt { .. })));
        assert!(t.all().is_err());
        // A slice naming a missing dictionary.
        let mut bad = body.clone();
        let at = 8 + 70 * 24;
        bad[at..at + 4].copy_from_slice(&7u32.to_le_bytes());
        let t = SliceTable::open(&write(dir.path(), &bad), total).unwrap();
        assert!(t.entry(0, &mut EntryChunk::default()).is_err());
        assert!(t.entry(1, &mut EntryChunk::default()).is_err());
    }
}
