//! Apache combined access lines, followed by the serving host (`LogFormat "%h %l %u %t \"%r\"
//! %>s %b \"%{Referer}i\" \"%{User-agent}i\" %v"`; Splunk's access_combined extraction keeps
//! the trailing field as `other`).

use super::{range, EventCtx};
use crate::pools::Pools;
use crate::text::push_u64;
use crate::vocab::{REFERERS, STATUSES, USERS, USER_AGENTS};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// Appends one access line (without newline).
pub fn write(out: &mut Vec<u8>, rng: &mut ChaCha8Rng, p: &Pools, ev: &EventCtx) {
    out.extend_from_slice(p.client_ips[p.client_sel.pick(rng.next_u64())].as_bytes());
    out.extend_from_slice(b" - ");
    if rng.next_u32() % 100 < 12 {
        out.extend_from_slice(USERS[p.users.pick(rng.next_u64())].as_bytes());
    } else {
        out.push(b'-');
    }
    out.extend_from_slice(b" [");
    ev.civil.push_apache(out);
    out.extend_from_slice(b"] \"");
    let url = &p.urls[p.url_sel.pick(rng.next_u64())];
    out.extend_from_slice(url.method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(url.path.as_bytes());
    let mut sep = if url.path.contains('?') { b'&' } else { b'?' };
    for (i, t) in ev.tags.as_slice().iter().enumerate() {
        if i == 0 {
            out.push(sep);
            out.extend_from_slice(b"tags=");
            sep = b',';
        } else {
            out.push(sep);
        }
        out.extend_from_slice(t.as_bytes());
    }
    out.extend_from_slice(b" HTTP/1.1\" ");
    let status = STATUSES[p.statuses.pick(rng.next_u64())].0;
    push_u64(out, u64::from(status));
    out.push(b' ');
    match status {
        304 => out.push(b'-'),
        301 | 302 => push_u64(out, range(rng, 180, 120)),
        200 | 201 => {
            // Mostly small responses with a long tail of large assets.
            let r = rng.next_u64();
            let size = 300 + (r & 0x3fff) * (1 + ((r >> 14) & 0x3f) * ((r >> 20) & 0x3) / 2);
            push_u64(out, size);
        }
        _ => push_u64(out, range(rng, 150, 900)),
    }
    out.extend_from_slice(b" \"");
    out.extend_from_slice(REFERERS[p.referers.pick(rng.next_u64())].as_bytes());
    out.extend_from_slice(b"\" \"");
    out.extend_from_slice(USER_AGENTS[p.agents.pick(rng.next_u64())].as_bytes());
    out.extend_from_slice(b"\" ");
    out.extend_from_slice(p.hosts[ev.host].as_bytes());
}
