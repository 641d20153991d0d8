//! zstd decompression with one context per thread.
//!
//! Creating a decompression context (`ZSTD_createDCtx`, about 100 KiB of state) costs more than
//! decompressing one small lexicon, postings or column block: a profile of a sparse
//! `| stats count by host` spent a fifth of its time there. Every read path decompresses through
//! [`decompress`], which reuses this thread's context; dictionaries are passed per call as a
//! prepared [`Dict`], so the context never holds one.

use std::cell::RefCell;

use zstd::zstd_safe::{get_error_name, DCtx, DDict};

thread_local! {
    static DCTX: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
}

/// A zstd dictionary digested once for decompression (journal slices of one bucket), and its
/// bytes, from which a [`Near`] is laid out.
pub struct Dict {
    ddict: DDict<'static>,
    bytes: Box<[u8]>,
}

impl Dict {
    /// Digests `bytes` (and keeps them); `None` when they are empty (no dictionary).
    pub fn new(bytes: impl Into<Box<[u8]>>) -> Option<Dict> {
        let bytes = bytes.into();
        if bytes.is_empty() {
            return None;
        }
        let ddict = DDict::try_create(&bytes)?;
        Some(Dict { ddict, bytes })
    }
}

/// A dictionary's bytes with room for one frame's output right after them, digested by
/// reference. zstd then sees the dictionary as the text before the output, and a match into it
/// is an ordinary in-window copy; with a [`Dict`] the dictionary is a separate segment, and
/// each match into it (most matches of a 16 KiB slice) is a `memmove` call. Journal slices
/// decompress ~20 % faster this way (1.46–1.64 → 1.71–1.97 GB/s in a standalone program over
/// the generator's corpus). Setting one up costs about as much as decompressing a slice (the
/// copy and ~4 µs of digesting), so a read lays one out only once it decompresses many slices.
pub struct Near<'a> {
    ddict: DDict<'a>,
    out: &'a mut [u8],
}

/// Where one read keeps a dictionary's [`Near`]: laid out in the caller's buffer once the read
/// has decompressed [`NEAR_AFTER`] frames with that dictionary.
pub struct NearSlot<'a> {
    uses: usize,
    spare: Option<&'a mut Vec<u8>>,
    near: Option<Near<'a>>,
}

/// Frames a read decompresses with a dictionary before it lays the dictionary out in a
/// [`Near`]: that costs about as much as decompressing one 16 KiB slice and saves ~20 % of
/// each later one, so a read of a few slices (a `head 10`, a rare term) is better off without.
const NEAR_AFTER: usize = 8;

impl<'a> NearSlot<'a> {
    /// A slot that lays its [`Near`] out in `buf`.
    pub fn new(buf: &'a mut Vec<u8>) -> Self {
        NearSlot {
            uses: 0,
            spare: Some(buf),
            near: None,
        }
    }

    /// Counts one more frame of `len` bytes to decompress with `dict`, and gives the [`Near`]
    /// to decompress it in, if there is one by now with room for it. A slot serves one
    /// dictionary: `dict` must be the same at every call.
    pub fn for_frame(&mut self, dict: &Dict, len: usize) -> Option<&mut Near<'a>> {
        self.uses += 1;
        if self.uses >= NEAR_AFTER && self.near.is_none() {
            if let Some(buf) = self.spare.take() {
                self.near = Some(Near::new(dict, crate::consts::SLICE_TARGET_BYTES, buf));
            }
        }
        self.near.as_mut().filter(|n| len <= n.room())
    }

    /// The first `len` bytes of the [`Near`]'s output (empty without one).
    pub fn output(&self, len: usize) -> &[u8] {
        self.near.as_ref().map_or(&[][..], |n| n.output(len))
    }
}

impl<'a> Near<'a> {
    /// Lays out `dict` in `buf` (resized to the dictionary plus `room` bytes) and digests it in
    /// place. zstd refuses only what it could not digest, and these bytes were digested once
    /// already by [`Dict::new`] (the digest is deterministic).
    pub fn new(dict: &Dict, room: usize, buf: &'a mut Vec<u8>) -> Near<'a> {
        buf.clear();
        buf.extend_from_slice(&dict.bytes);
        buf.resize(dict.bytes.len() + room, 0);
        let (head, out) = buf.split_at_mut(dict.bytes.len());
        let ddict = DDict::create_by_reference(head);
        Near { ddict, out }
    }

    /// The first `len` bytes of the output (what [`Near::decompress`] gave last, when `len` is
    /// its length; empty beyond the room).
    pub fn output(&self, len: usize) -> &[u8] {
        self.out.get(..len).unwrap_or_default()
    }

    /// Bytes one frame may decompress to here.
    pub fn room(&self) -> usize {
        self.out.len()
    }

    /// Decompresses the frame `src` (made with this dictionary, or none) to exactly `len`
    /// bytes, at most [`Near::room`]; as [`decompress`] does otherwise.
    pub fn decompress(&mut self, src: &[u8], len: usize) -> Result<&[u8], String> {
        let ddict = &self.ddict;
        let out = self
            .out
            .get_mut(..len)
            .ok_or("frame larger than the room")?;
        let run = |ctx: &mut DCtx<'static>| ctx.decompress_using_ddict(&mut *out, src, ddict);
        exactly(with_ctx(run)?, len)?;
        Ok(&self.out[..len])
    }
}

impl std::fmt::Debug for Dict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Dict")
    }
}

/// Decompresses the zstd frame `src` into `out` (cleared first), with `dict` when given; it
/// must decompress to exactly `len` bytes. A damaged frame is an error naming zstd's reason,
/// and so is one larger than `len`; a shorter one is an error too.
pub fn decompress(
    src: &[u8],
    dict: Option<&Dict>,
    len: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.clear();
    out.reserve(len);
    let res = with_ctx(|ctx| match dict {
        Some(d) => ctx.decompress_using_ddict(&mut *out, src, &d.ddict),
        None => ctx.decompress(&mut *out, src),
    })?;
    exactly(res, len)
}

/// zstd's answer as an error unless it decompressed exactly `len` bytes.
fn exactly(res: zstd::zstd_safe::SafeResult, len: usize) -> Result<(), String> {
    match res {
        Ok(n) if n == len => Ok(()),
        Ok(n) => Err(format!("decompresses to {n} bytes, not {len}")),
        Err(code) => Err(get_error_name(code).to_string()),
    }
}

/// Runs `run` with this thread's context (or one of its own when re-entered or during thread
/// teardown).
fn with_ctx<T>(mut run: impl FnMut(&mut DCtx<'static>) -> T) -> Result<T, String> {
    let res = DCTX.try_with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let ctx = match &mut *slot {
                Some(c) => c,
                None => slot.insert(new_ctx()?),
            };
            Ok::<_, &str>(run(ctx))
        }
        // Re-entered on this thread (not done today): a context of its own.
        Err(_) => Ok(run(&mut new_ctx()?)),
    });
    Ok(match res {
        Ok(r) => r?,
        // During thread teardown: a context of its own.
        Err(_) => run(&mut new_ctx()?),
    })
}

fn new_ctx() -> Result<DCtx<'static>, &'static str> {
    DCtx::try_create().ok_or("zstd could not create a context")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_and_without_a_dictionary() {
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("event {i} status={} ", i % 7).into_bytes())
            .collect();
        let plain = zstd::bulk::compress(&text, 3).unwrap();
        let mut out = Vec::new();
        for _ in 0..3 {
            assert_eq!(decompress(&plain, None, text.len(), &mut out), Ok(()));
            assert_eq!(out, text);
        }
        let samples: Vec<&[u8]> = text.chunks(1000).collect();
        let dict_bytes = zstd::dict::from_samples(&samples, 4096).unwrap();
        let with = zstd::bulk::Compressor::with_dictionary(3, &dict_bytes)
            .unwrap()
            .compress(&text[..5000])
            .unwrap();
        let dict = Dict::new(dict_bytes.as_slice()).unwrap();
        assert_eq!(decompress(&with, Some(&dict), 5000, &mut out), Ok(()));
        assert_eq!(out, &text[..5000]);
        // Without its dictionary the frame is refused, and the context stays usable.
        assert!(decompress(&with, None, 5000, &mut out).is_err());
        assert_eq!(decompress(&plain, None, text.len(), &mut out), Ok(()));
        // A frame that decompresses to another length than the one recorded is refused.
        assert!(decompress(&plain, None, text.len() + 1, &mut out).is_err());
        assert!(decompress(&plain, None, text.len() - 1, &mut out).is_err());
        assert!(Dict::new(Vec::new()).is_none());
    }

    /// A [`Near`] gives what [`decompress`] gives, frame after frame, and refuses what it
    /// refuses: a wrong length, a frame beyond its room, a frame of another dictionary.
    #[test]
    fn near_decompresses_as_decompress_does() {
        let text: Vec<u8> = (0..40_000u32)
            .flat_map(|i| format!("GET /item/{} status={} ", i % 97, i % 7).into_bytes())
            .collect();
        let samples: Vec<&[u8]> = text.chunks(1000).collect();
        let dict_bytes = zstd::dict::from_samples(&samples, 8192).unwrap();
        let dict = Dict::new(dict_bytes.as_slice()).unwrap();
        let mut c = zstd::bulk::Compressor::with_dictionary(4, &dict_bytes).unwrap();
        let mut buf = Vec::new();
        let mut near = Near::new(&dict, 4096, &mut buf);
        assert_eq!(near.room(), 4096);
        let mut out = Vec::new();
        for piece in text.chunks(4096).take(40) {
            let frame = c.compress(piece).unwrap();
            assert_eq!(near.decompress(&frame, piece.len()), Ok(piece));
            assert_eq!(near.output(piece.len()), piece);
            decompress(&frame, Some(&dict), piece.len(), &mut out).unwrap();
            assert_eq!(out, piece);
            assert!(near.decompress(&frame, piece.len() - 1).is_err());
        }
        let plain = zstd::bulk::compress(&text[..3000], 3).unwrap();
        assert_eq!(near.decompress(&plain, 3000), Ok(&text[..3000]));
        let long = c.compress(&text[..5000]).unwrap();
        assert!(near.decompress(&long, 5000).is_err());
        let other = zstd::dict::from_samples(&samples[1..], 4096).unwrap();
        let foreign = zstd::bulk::Compressor::with_dictionary(4, &other)
            .unwrap()
            .compress(&text[..4000])
            .unwrap();
        assert!(near.decompress(&foreign, 4000).is_err());
        assert_eq!(near.output(5000), b"");
    }
}
