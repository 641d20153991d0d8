//! The footer every store file ends with: `magic[4] | version u32 | xxh3-64(body) u64 | body_len u64`
//! (all little-endian, 24 bytes). See docs/format/footer.md.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::consts::FORMAT_VERSION;
use crate::error::{IoContext, StoreError};

/// Length of the footer in bytes.
pub const FOOTER_LEN: usize = 24;

/// A decoded footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// xxh3-64 of the body.
    pub checksum: u64,
    /// Length of the body (everything before the footer), in bytes.
    pub body_len: u64,
}

/// Appends the footer for the body already in `buf`.
pub fn append_footer(buf: &mut Vec<u8>, magic: [u8; 4]) {
    let sum = xxh3_64(buf);
    let len = buf.len() as u64;
    push_footer(buf, magic, sum, len);
}

fn push_footer(buf: &mut Vec<u8>, magic: [u8; 4], sum: u64, len: u64) {
    buf.extend_from_slice(&magic);
    buf.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    buf.extend_from_slice(&sum.to_le_bytes());
    buf.extend_from_slice(&len.to_le_bytes());
}

/// Decodes and checks a footer (magic, version, length) without reading the body.
pub fn parse_footer(
    path: &Path,
    tail: &[u8],
    file_len: u64,
    magic: [u8; 4],
) -> Result<Footer, StoreError> {
    if tail.len() != FOOTER_LEN || file_len < FOOTER_LEN as u64 {
        return Err(StoreError::corrupt(
            path,
            format!("file of {file_len} bytes is shorter than its {FOOTER_LEN}-byte footer"),
        ));
    }
    if tail[0..4] != magic {
        return Err(StoreError::corrupt(
            path,
            format!("wrong magic {:?}, expected {:?}", &tail[0..4], magic),
        ));
    }
    let version = u32::from_le_bytes(tail[4..8].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(StoreError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let checksum = u64::from_le_bytes(tail[8..16].try_into().expect("8 bytes"));
    let body_len = u64::from_le_bytes(tail[16..24].try_into().expect("8 bytes"));
    if body_len != file_len - FOOTER_LEN as u64 {
        return Err(StoreError::corrupt(
            path,
            format!(
                "footer says body is {body_len} bytes but the file holds {}",
                file_len - FOOTER_LEN as u64
            ),
        ));
    }
    Ok(Footer { checksum, body_len })
}

/// Checks footer and checksum of a whole file held in `bytes`; returns the body.
pub fn verify<'a>(path: &Path, bytes: &'a [u8], magic: [u8; 4]) -> Result<&'a [u8], StoreError> {
    let n = bytes.len();
    let tail = &bytes[n.saturating_sub(FOOTER_LEN)..];
    let f = parse_footer(path, tail, n as u64, magic)?;
    let body = &bytes[..f.body_len as usize];
    if xxh3_64(body) != f.checksum {
        return Err(StoreError::corrupt(path, "checksum mismatch"));
    }
    Ok(body)
}

/// Reads a whole file and verifies it; returns the body (footer removed).
pub fn read_verified(path: &Path, magic: [u8; 4]) -> Result<Vec<u8>, StoreError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .at(path)?;
    let len = verify(path, &bytes, magic)?.len();
    bytes.truncate(len);
    Ok(bytes)
}

/// Opens a file and checks only its footer (for files read piecewise: journal, postings).
/// Returns the file and the body length; fsck verifies the checksum.
pub fn open_checked(path: &Path, magic: [u8; 4]) -> Result<(File, u64), StoreError> {
    let file = File::open(path).at(path)?;
    let len = file.metadata().at(path)?.len();
    let mut tail = [0u8; FOOTER_LEN];
    if len >= FOOTER_LEN as u64 {
        file.read_exact_at(&mut tail, len - FOOTER_LEN as u64)
            .at(path)?;
    }
    let f = parse_footer(
        path,
        &tail[..(len.min(FOOTER_LEN as u64) as usize)],
        len,
        magic,
    )?;
    Ok((file, f.body_len))
}

/// Verifies the checksum of a file by streaming it (fsck of large files).
pub fn verify_streaming(path: &Path, magic: [u8; 4]) -> Result<u64, StoreError> {
    let (mut file, body_len) = open_checked(path, magic)?;
    let mut tail = [0u8; FOOTER_LEN];
    file.read_exact_at(&mut tail, body_len).at(path)?;
    let want = u64::from_le_bytes(tail[8..16].try_into().expect("8 bytes"));
    let mut h = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = body_len;
    while left > 0 {
        let n = (left as usize).min(buf.len());
        file.read_exact(&mut buf[..n]).at(path)?;
        h.update(&buf[..n]);
        left -= n as u64;
    }
    if h.digest() != want {
        return Err(StoreError::corrupt(path, "checksum mismatch"));
    }
    Ok(body_len)
}

/// Writes `bytes` (body + footer) to a new file and fsyncs it.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut f = File::create(path).at(path)?;
    f.write_all(bytes).at(path)?;
    f.sync_all().at(path)
}

/// Streaming writer of a large file: hashes and counts the body as it goes, then appends the
/// footer and fsyncs on [`FooterWriter::finish`].
pub struct FooterWriter {
    path: PathBuf,
    out: BufWriter<File>,
    hash: Xxh3,
    /// Body bytes written so far.
    len: u64,
    magic: [u8; 4],
}

impl FooterWriter {
    /// Creates `path` (opened for reading too: see [`FooterWriter::written`]).
    pub fn create(path: &Path, magic: [u8; 4]) -> Result<Self, StoreError> {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .at(path)?;
        Ok(FooterWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, f),
            hash: Xxh3::new(),
            len: 0,
            magic,
        })
    }

    /// Body bytes written so far (the offset the next write lands at).
    pub fn position(&self) -> u64 {
        self.len
    }

    /// Appends body bytes.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.hash.update(bytes);
        self.len += bytes.len() as u64;
        self.out.write_all(bytes).at(&self.path)
    }

    /// The file with every body byte written so far in it (buffered ones flushed), for reading
    /// back what was written with positioned reads.
    pub fn written(&mut self) -> Result<&File, StoreError> {
        self.out.flush().at(&self.path)?;
        Ok(self.out.get_ref())
    }

    /// Appends the footer, flushes and fsyncs.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        let mut foot = Vec::with_capacity(FOOTER_LEN);
        push_footer(&mut foot, self.magic, self.hash.digest(), self.len);
        self.out.write_all(&foot).at(&self.path)?;
        let f = self
            .out
            .into_inner()
            .map_err(|e| StoreError::io(&self.path, e.into_error()))?;
        f.sync_all().at(&self.path)?;
        Ok(self.len)
    }
}
