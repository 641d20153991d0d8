//! Whole-body zstd packing used by files loaded entirely into memory (columns, lexicon):
//! `inner_len u64 | zstd frame of inner` (level [`ZSTD_LEVEL`]).

use std::path::Path;

use crate::consts::{MAX_LOADED_FILE, ZSTD_LEVEL};
use crate::error::StoreError;

/// Appends the packed form of `inner` to `out`.
pub fn pack(inner: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
    out.extend_from_slice(&(inner.len() as u64).to_le_bytes());
    out.extend_from_slice(&zstd::bulk::compress(inner, ZSTD_LEVEL)?);
    Ok(())
}

/// Unpacks a body written by [`pack`], refusing implausible lengths.
pub fn unpack(path: &Path, body: &[u8]) -> Result<Vec<u8>, StoreError> {
    let bad = |r: String| StoreError::corrupt(path, r);
    if body.len() < 8 {
        return Err(bad("packed body too short".into()));
    }
    let ulen = u64::from_le_bytes(body[..8].try_into().expect("8"));
    // zstd cannot expand more than ~2^17 times; a larger claim is damage, not data.
    if ulen > MAX_LOADED_FILE || ulen > (body.len() as u64).saturating_mul(1 << 17) {
        return Err(bad(format!("implausible uncompressed length {ulen}")));
    }
    let mut inner = Vec::new();
    crate::dctx::decompress(&body[8..], None, ulen as usize, &mut inner)
        .map_err(|e| bad(format!("body does not decompress: {e}")))?;
    Ok(inner)
}
