//! log4j events (`%d{ISO8601} %-5p %X{host} [%t] %c - %m%n%throwable`): a first line and a
//! multi-line stack trace with `Caused by:` blocks.

use super::{push_tags_kv, range, uniform, EventCtx};
use crate::pools::Pools;
use crate::text::push_u64;
use crate::vocab::{JAVA_MSGS, LOGGERS, THREADS};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// Appends one Java event (without the final newline).
pub fn write(out: &mut Vec<u8>, rng: &mut ChaCha8Rng, p: &Pools, ev: &EventCtx) {
    ev.civil.push_log4j(out);
    out.extend_from_slice(if rng.next_u32() % 100 < 85 {
        b" ERROR "
    } else {
        b" WARN  "
    });
    out.extend_from_slice(p.hosts[ev.host].as_bytes());
    out.extend_from_slice(b" [");
    out.extend_from_slice(uniform(rng, THREADS).as_bytes());
    push_u64(out, range(rng, 1, 200));
    out.extend_from_slice(b"] ");
    let stack = &p.stacks[p.stack_sel.pick(rng.next_u64())];
    out.extend_from_slice(LOGGERS[stack.logger].as_bytes());
    out.extend_from_slice(b" - ");
    out.extend_from_slice(uniform(rng, JAVA_MSGS).as_bytes());
    out.extend_from_slice(b" orderId=");
    push_u64(out, range(rng, 100_000, 900_000));
    push_tags_kv(out, &ev.tags);
    out.extend_from_slice(stack.text.as_bytes());
}
