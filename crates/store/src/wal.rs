//! The write-ahead log of a hot bucket: a header then checksummed records, each one batch of
//! events. See docs/format/wal.md.
//!
//! `header = "LODEWAL\0" | version u32 | reserved u32` (16 bytes);
//! `record = len u32 | xxh3_64_with_seed(payload, seed = len) u64 | payload[len]`.
//! A reader stops at the first record that is short or fails its checksum: everything before
//! it was acknowledged (fsynced) or is a complete record that simply was not acknowledged yet.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use lode_event::Event;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::codec;
use crate::consts::{magic, FORMAT_VERSION, MAX_WAL_RECORD};
use crate::error::{IoContext, StoreError};

/// Length of the WAL header in bytes.
pub const HEADER_LEN: usize = 16;
/// Length of a record header (`len` + checksum) in bytes.
pub const RECORD_HEADER_LEN: usize = 12;

/// Appends one record holding `events` to `out` (header filled in after the payload).
pub fn encode_record(out: &mut Vec<u8>, events: &[Event]) {
    let start = out.len();
    out.extend_from_slice(&[0u8; RECORD_HEADER_LEN]);
    codec::put_batch(out, events);
    let payload_len = out.len() - start - RECORD_HEADER_LEN;
    let sum = xxh3_64_with_seed(&out[start + RECORD_HEADER_LEN..], payload_len as u64);
    out[start..start + 4].copy_from_slice(&(payload_len as u32).to_le_bytes());
    out[start + 4..start + 12].copy_from_slice(&sum.to_le_bytes());
}

/// The header bytes of a new WAL.
pub fn header() -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&magic::WAL);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h
}

/// Result of scanning a WAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// Offset just after the last valid record, in bytes.
    pub valid_len: u64,
    /// Length of the file when read, in bytes; `file_len - valid_len` is the torn or garbage tail.
    pub file_len: u64,
    /// Number of valid records.
    pub records: u64,
}

/// Reads the whole WAL at `path` and calls `f` with the payload of each valid record, in order.
/// A bad header is an error (`Corrupt`/`Version`); a bad record ends the scan.
pub fn scan(
    path: &Path,
    f: impl FnMut(&[u8]) -> Result<(), StoreError>,
) -> Result<Scan, StoreError> {
    scan_from(path, HEADER_LEN as u64, f)
}

/// Like [`scan`], but starts at byte `start`, which must be the end of a valid record (or the
/// header): used to catch up with records appended since an earlier scan. The header is
/// checked every time.
pub fn scan_from(
    path: &Path,
    start: u64,
    mut f: impl FnMut(&[u8]) -> Result<(), StoreError>,
) -> Result<Scan, StoreError> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::open(path).at(path)?;
    let mut head = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut head)
        .at(path)?;
    check_header(path, &head)?;
    let start = start.max(HEADER_LEN as u64);
    // Records are read one at a time (a 1 MiB buffer and one payload) rather than the whole
    // file at once: a WAL is as large as its hot bucket's raw data (256 MB by default).
    let file_len = file.metadata().at(path)?.len().max(start);
    file.seek(SeekFrom::Start(start)).at(path)?;
    let mut rd = std::io::BufReader::with_capacity(1 << 20, file.take(file_len - start));
    let mut payload = Vec::new();
    let mut pos = 0u64;
    let mut records = 0;
    loop {
        let mut head = [0u8; RECORD_HEADER_LEN];
        if !read_full(&mut rd, &mut head).at(path)? {
            break;
        }
        let len = u32::from_le_bytes(head[..4].try_into().expect("4")) as usize;
        let sum = u64::from_le_bytes(head[4..12].try_into().expect("8"));
        let left = file_len - start - pos - RECORD_HEADER_LEN as u64;
        if len > MAX_WAL_RECORD || left < len as u64 {
            break;
        }
        payload.resize(len, 0);
        if !read_full(&mut rd, &mut payload).at(path)? {
            break;
        }
        if xxh3_64_with_seed(&payload, len as u64) != sum {
            break;
        }
        f(&payload)?;
        pos += (RECORD_HEADER_LEN + len) as u64;
        records += 1;
    }
    Ok(Scan {
        valid_len: start + pos,
        file_len,
        records,
    })
}

/// Fills `buf`; false when the input ends first (a torn tail, not an error).
fn read_full(rd: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    match rd.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

fn check_header(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if bytes.len() < HEADER_LEN || bytes[..8] != magic::WAL {
        return Err(StoreError::corrupt(path, "missing or wrong WAL header"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4"));
    if version != FORMAT_VERSION {
        return Err(StoreError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    Ok(())
}

/// Decodes every event of every valid record of the WAL at `path`.
pub fn for_each_event(
    path: &Path,
    f: impl FnMut(&Event) -> Result<(), StoreError>,
) -> Result<Scan, StoreError> {
    for_each_event_from(path, HEADER_LEN as u64, f)
}

/// Decodes every event of the valid records from byte `start` (see [`scan_from`]).
pub fn for_each_event_from(
    path: &Path,
    start: u64,
    mut f: impl FnMut(&Event) -> Result<(), StoreError>,
) -> Result<Scan, StoreError> {
    let mut scratch = Event::default();
    let mut inner: Option<StoreError> = None;
    let scan = scan_from(path, start, |payload| {
        let r = codec::for_each_in_batch(payload, &mut scratch, |e| {
            f(e).map_err(|err| {
                inner = Some(err);
                "callback failed"
            })
        });
        match r {
            Ok(()) => Ok(()),
            Err(_) if inner.is_some() => Err(inner.take().expect("set")),
            Err(reason) => Err(StoreError::corrupt(
                path,
                format!("checksummed WAL record does not decode: {reason}"),
            )),
        }
    })?;
    Ok(scan)
}

/// Append handle of a WAL (owned by the index writer).
#[derive(Debug)]
pub struct WalWriter {
    path: PathBuf,
    file: File,
    /// Current length of the file in bytes.
    len: u64,
}

impl WalWriter {
    /// Creates a new WAL with its header, fsyncing the file.
    pub fn create(path: &Path) -> Result<Self, StoreError> {
        let mut file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(path)
            .at(path)?;
        file.write_all(&header()).at(path)?;
        file.sync_all().at(path)?;
        Ok(WalWriter {
            path: path.to_path_buf(),
            file,
            len: HEADER_LEN as u64,
        })
    }

    /// Opens an existing WAL for appending after cutting it to `valid_len` (the torn tail).
    pub fn open_truncated(path: &Path, valid_len: u64) -> Result<Self, StoreError> {
        let file = OpenOptions::new().write(true).open(path).at(path)?;
        let len = file.metadata().at(path)?.len();
        if len != valid_len {
            file.set_len(valid_len).at(path)?;
            file.sync_all().at(path)?;
        }
        let mut w = WalWriter {
            path: path.to_path_buf(),
            file,
            len: valid_len,
        };
        use std::io::Seek;
        w.file
            .seek(std::io::SeekFrom::Start(valid_len))
            .at(&w.path)?;
        Ok(w)
    }

    /// Writes encoded records (not yet durable).
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.file.write_all(bytes).at(&self.path)?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Makes everything written durable (`fdatasync`).
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.file.sync_data().at(&self.path)
    }

    /// Current length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no record was written yet.
    pub fn is_empty(&self) -> bool {
        self.len <= HEADER_LEN as u64
    }

    /// Path of the WAL file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
