//! One JSON object per line from application services.

use super::{range, uniform, EventCtx};
use crate::pools::Pools;
use crate::text::{push_hex, push_u64};
use crate::vocab::{JSON_MSGS, SERVICES, USERS};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

const LEVELS: [&str; 4] = ["INFO", "WARN", "ERROR", "DEBUG"];

/// Appends one JSON line (without newline).
pub fn write(out: &mut Vec<u8>, rng: &mut ChaCha8Rng, p: &Pools, ev: &EventCtx) {
    out.extend_from_slice(b"{\"timestamp\":\"");
    ev.civil.push_iso_millis(out);
    let level = match rng.next_u32() % 100 {
        0..=79 => 0,
        80..=88 => 1,
        89..=92 => 2,
        _ => 3,
    };
    out.extend_from_slice(b"\",\"level\":\"");
    out.extend_from_slice(LEVELS[level].as_bytes());
    out.extend_from_slice(b"\",\"host\":\"");
    out.extend_from_slice(p.hosts[ev.host].as_bytes());
    out.extend_from_slice(b"\",\"service\":\"");
    out.extend_from_slice(SERVICES[p.services.pick(rng.next_u64())].as_bytes());
    out.extend_from_slice(b"\",\"user\":\"");
    out.extend_from_slice(USERS[p.users.pick(rng.next_u64())].as_bytes());
    let r = rng.next_u64();
    let (latency, status) = match level {
        1 => (
            range(rng, 800, 4_000),
            [429u64, 404, 409, 200][(r & 3) as usize],
        ),
        2 => (
            if r & 4 == 0 {
                30_000
            } else {
                range(rng, 5, 2_000)
            },
            [500u64, 502, 503, 504][(r & 3) as usize],
        ),
        // Skewed: the product of two uniforms concentrates on small latencies.
        _ => (
            2 + (r & 0x1ff) * ((r >> 9) & 0x1ff) / 512,
            [200u64, 200, 201, 204][((r >> 20) & 3) as usize],
        ),
    };
    out.extend_from_slice(b"\",\"latency_ms\":");
    push_u64(out, latency);
    out.extend_from_slice(b",\"status\":");
    push_u64(out, status);
    out.extend_from_slice(b",\"msg\":\"");
    out.extend_from_slice(uniform(rng, JSON_MSGS[level]).as_bytes());
    out.extend_from_slice(b"\",\"trace_id\":\"");
    push_hex(out, rng.next_u64(), 16);
    out.push(b'"');
    let tags = ev.tags.as_slice();
    if !tags.is_empty() {
        out.extend_from_slice(b",\"tags\":[");
        for (i, t) in tags.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(t.as_bytes());
            out.push(b'"');
        }
        out.push(b']');
    }
    out.push(b'}');
}
