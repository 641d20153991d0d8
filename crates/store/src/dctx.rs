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

/// A zstd dictionary digested once for decompression (journal slices of one bucket).
pub struct Dict(DDict<'static>);

impl Dict {
    /// Digests `bytes` (copied); `None` when they are empty (no dictionary).
    pub fn new(bytes: &[u8]) -> Option<Dict> {
        if bytes.is_empty() {
            return None;
        }
        DDict::try_create(bytes).map(Dict)
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
    let run = |ctx: &mut DCtx<'static>, out: &mut Vec<u8>| match dict {
        Some(d) => ctx.decompress_using_ddict(out, src, &d.0),
        None => ctx.decompress(out, src),
    };
    let res = DCTX.try_with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let ctx = match &mut *slot {
                Some(c) => c,
                None => slot.insert(DCtx::try_create().ok_or("zstd could not create a context")?),
            };
            Ok::<_, &str>(run(ctx, out))
        }
        // Re-entered on this thread (not done today): a context of its own.
        Err(_) => Ok(run(&mut new_ctx()?, out)),
    });
    let res = match res {
        Ok(r) => r?,
        // During thread teardown: a context of its own.
        Err(_) => run(&mut new_ctx()?, out),
    };
    match res {
        Ok(n) if n == len => Ok(()),
        Ok(n) => Err(format!("decompresses to {n} bytes, not {len}")),
        Err(code) => Err(get_error_name(code).to_string()),
    }
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
        let dict = Dict::new(&dict_bytes).unwrap();
        assert_eq!(decompress(&with, Some(&dict), 5000, &mut out), Ok(()));
        assert_eq!(out, &text[..5000]);
        // Without its dictionary the frame is refused, and the context stays usable.
        assert!(decompress(&with, None, 5000, &mut out).is_err());
        assert_eq!(decompress(&plain, None, text.len(), &mut out), Ok(()));
        // A frame that decompresses to another length than the one recorded is refused.
        assert!(decompress(&plain, None, text.len() + 1, &mut out).is_err());
        assert!(decompress(&plain, None, text.len() - 1, &mut out).is_err());
        assert!(Dict::new(&[]).is_none());
    }
}
