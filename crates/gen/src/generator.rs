//! The generation loop: one time-ordered stream of events of every kind, cut into per-kind
//! chunks ([`Generator::generate`]) or handed over one by one ([`Generator::generate_events`]).
//!
//! Time advances with bytes: the event starting at byte `b` of a `total`-byte corpus is stamped
//! at fraction `b / total` of the span, warped by a daily traffic pattern ([`Clock`]), so the
//! corpus covers `[start, start + span)`, times never decrease, and the size target is met to
//! within one event.

use crate::clock::Clock;
use crate::config::{GenConfig, Kind};
use crate::kind::{write_event, EventCtx};
use crate::plant::Planter;
use crate::pools::Pools;
use crate::skew::Skewed;
use crate::summary::{GenSummary, Planted};
use crate::text::Civil;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::convert::Infallible;

/// Chunk size of [`Generator::generate`], bytes: a chunk is handed over once it reaches this.
pub const CHUNK_BYTES: usize = 64 * 1024;
/// Share of events per kind, in [`Kind::ALL`] order (the Java events are the largest).
const KIND_WEIGHTS: [f64; 4] = [36.0, 38.0, 20.0, 6.0];
/// Mixed into the seed for the pools, so they do not share a stream with the events.
const POOL_SEED_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// One event of [`Generator::generate_events`].
#[derive(Debug, Clone, Copy)]
pub struct GenEvent<'a> {
    /// Kind (and so sourcetype) of the event.
    pub kind: Kind,
    /// Event time, microseconds since the Unix epoch (what the text's timestamp says, at the
    /// text's resolution or finer).
    pub time_us: i64,
    /// Host name (also written in the text).
    pub host: &'a str,
    /// Event text without the trailing newline; Java events span several lines.
    pub raw: &'a [u8],
}

/// A deterministic corpus generator; see the crate documentation.
#[derive(Debug, Clone)]
pub struct Generator {
    /// What to generate.
    cfg: GenConfig,
    /// Pre-rendered values, built from the seed.
    pools: Pools,
}

/// A consumer of chunks of [`Generator::try_generate`].
pub type ChunkSink<'f, E> = dyn FnMut(Kind, &[u8]) -> Result<(), E> + 'f;

type OnEvent<'f, E> = dyn FnMut(Kind, &str, i64, &mut Vec<u8>, usize) -> Result<(), E> + 'f;

impl Generator {
    /// A generator for `cfg`; builds the value pools (a few milliseconds).
    pub fn new(cfg: GenConfig) -> Generator {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ POOL_SEED_SALT);
        let pools = Pools::new(&mut rng, cfg.hosts);
        Generator { cfg, pools }
    }

    /// The configuration.
    pub fn config(&self) -> &GenConfig {
        &self.cfg
    }

    /// Streams the corpus: calls `f(kind, chunk)` with chunks of complete events of one kind
    /// (each about [`CHUNK_BYTES`], the last ones shorter), the events of all kinds interleaved
    /// by time over the whole span. The four chunk buffers are allocated once per call and
    /// reused. Every call produces the same bytes.
    pub fn generate(&mut self, f: &mut dyn FnMut(Kind, &[u8])) -> GenSummary {
        let result: Result<GenSummary, Infallible> = self.try_generate(&mut |kind, chunk| {
            f(kind, chunk);
            Ok(())
        });
        match result {
            Ok(summary) => summary,
            Err(never) => match never {},
        }
    }

    /// [`Generator::generate`] with a fallible consumer: the first error stops generation and
    /// is returned.
    pub fn try_generate<E>(&mut self, f: &mut ChunkSink<'_, E>) -> Result<GenSummary, E> {
        let mut bufs: [Vec<u8>; 4] =
            std::array::from_fn(|_| Vec::with_capacity(CHUNK_BYTES + 16 * 1024));
        let summary = self.run(&mut bufs, &mut |kind, _host, _time, buf, _start| {
            if buf.len() >= CHUNK_BYTES {
                f(kind, buf)?;
                buf.clear();
            }
            Ok(())
        })?;
        for kind in Kind::ALL {
            let buf = &bufs[kind as usize];
            if !buf.is_empty() {
                f(kind, buf)?;
            }
        }
        Ok(summary)
    }

    /// The same corpus event by event, in time order (for feeding a pipeline with exact host
    /// and time metadata). The first error of `f` stops generation and is returned.
    pub fn generate_events<E>(
        &mut self,
        f: &mut dyn FnMut(&GenEvent<'_>) -> Result<(), E>,
    ) -> Result<GenSummary, E> {
        let mut bufs: [Vec<u8>; 4] = std::array::from_fn(|_| Vec::with_capacity(16 * 1024));
        self.run(&mut bufs, &mut |kind, host, time_us, buf, start| {
            let end = buf.len() - 1; // drop the newline
            f(&GenEvent {
                kind,
                time_us,
                host,
                raw: &buf[start..end],
            })?;
            buf.clear();
            Ok(())
        })
    }

    /// The generation loop: appends each event to `bufs[kind]` and calls `on_event(kind, host,
    /// time_us, buf, start_of_event)`, which may drain the buffer.
    fn run<E>(
        &self,
        bufs: &mut [Vec<u8>; 4],
        on_event: &mut OnEvent<'_, E>,
    ) -> Result<GenSummary, E> {
        let cfg = &self.cfg;
        let pools = &self.pools;
        let total = cfg.total_bytes;
        let start_us = cfg.start_time_secs.saturating_mul(1_000_000);
        let span_us = cfg.span_secs.max(0).saturating_mul(1_000_000);
        let total_f = total.max(1) as f64;
        let mut clock = Clock::new(start_us, span_us);
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let mut planter = Planter::new(total);
        let kinds = Skewed::weighted(&KIND_WEIGHTS);
        let mut by_host = vec![0u64; pools.hosts.len()];
        let mut by_kind = [0u64; 4];
        // Per planted class: events whose `tags` key=value field is that term.
        let mut tags_field = [0u64; 4];
        let (mut bytes, mut events) = (0u64, 0u64);
        let (mut first_us, mut last_us) = (0i64, 0i64);
        let mut civil = Civil::from_micros(start_us);
        let mut civil_sec = start_us.div_euclid(1_000_000);
        while bytes < total {
            let time_us = clock.time_at(bytes as f64 / total_f);
            let elapsed_us = time_us - start_us;
            let sec = time_us.div_euclid(1_000_000);
            if sec == civil_sec {
                civil.micros = time_us.rem_euclid(1_000_000) as u32;
            } else {
                civil = Civil::from_micros(time_us);
                civil_sec = sec;
            }
            let kind = Kind::ALL[kinds.pick(rng.next_u64())];
            let host = pools.host_sets[kind as usize].pick(rng.next_u64());
            let tags = planter.tags(events, bytes, time_us);
            if !matches!(kind, Kind::Json) {
                if let Some(first) = tags.as_slice().first() {
                    if let Some(c) = crate::plant::TERMS.iter().position(|(_, t)| t == first) {
                        tags_field[c] += 1;
                    }
                }
            }
            let ev = EventCtx {
                civil,
                elapsed_us,
                host,
                tags,
            };
            let buf = &mut bufs[kind as usize];
            let start = buf.len();
            write_event(kind, buf, &mut rng, pools, &ev);
            bytes += (buf.len() - start) as u64;
            if events == 0 {
                first_us = time_us;
            }
            last_us = time_us;
            events += 1;
            by_host[host] += 1;
            by_kind[kind as usize] += 1;
            on_event(kind, &pools.hosts[host], time_us, buf, start)?;
        }
        Ok(GenSummary {
            bytes,
            events,
            events_by_kind: Kind::ALL
                .iter()
                .map(|k| (k.sourcetype().to_string(), by_kind[*k as usize]))
                .collect(),
            events_by_host: pools
                .hosts
                .iter()
                .zip(&by_host)
                .filter(|(_, &n)| n > 0)
                .map(|(h, &n)| (h.clone(), n))
                .collect::<BTreeMap<_, _>>(),
            planted: planter
                .planted()
                .into_iter()
                .zip(tags_field)
                .map(|(p, n)| Planted { tags_field: n, ..p })
                .collect(),
            config: *cfg,
            first_time_us: first_us,
            last_time_us: last_us,
        })
    }
}
