//! Event writers, one module per [`Kind`]; each appends one complete event (with its trailing
//! newline) to a caller-owned buffer.

mod access;
mod java;
mod json;
mod syslog;

use crate::config::Kind;
use crate::plant::Tags;
use crate::pools::Pools;
use crate::text::Civil;
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// Everything about one event that is decided before its text.
#[derive(Debug, Clone, Copy)]
pub struct EventCtx {
    /// Event time in calendar fields (UTC).
    pub civil: Civil,
    /// Microseconds since the start of the corpus.
    pub elapsed_us: i64,
    /// Index into [`Pools::hosts`].
    pub host: usize,
    /// Planted terms to include.
    pub tags: Tags,
}

/// Appends one event of `kind` to `out`, newline included.
pub fn write_event(
    kind: Kind,
    out: &mut Vec<u8>,
    rng: &mut ChaCha8Rng,
    pools: &Pools,
    ev: &EventCtx,
) {
    match kind {
        Kind::Syslog => syslog::write(out, rng, pools, ev),
        Kind::Access => access::write(out, rng, pools, ev),
        Kind::Json => json::write(out, rng, pools, ev),
        Kind::Java => java::write(out, rng, pools, ev),
    }
    out.push(b'\n');
}

/// A uniformly chosen entry of `list`.
#[inline]
fn uniform<'a>(rng: &mut ChaCha8Rng, list: &[&'a str]) -> &'a str {
    list[((u64::from(rng.next_u32()) * list.len() as u64) >> 32) as usize]
}

/// A number in `lo..lo + n`.
#[inline]
fn range(rng: &mut ChaCha8Rng, lo: u64, n: u64) -> u64 {
    lo + ((u64::from(rng.next_u32()) * n) >> 32)
}

/// Appends ` tags=a,b` when there are planted terms (syslog and log4j lines).
fn push_tags_kv(out: &mut Vec<u8>, tags: &Tags) {
    for (i, t) in tags.as_slice().iter().enumerate() {
        out.extend_from_slice(if i == 0 { b" tags=" } else { b"," });
        out.extend_from_slice(t.as_bytes());
    }
}
