//! The planting schedule: which events carry which planted term, and the exact counts.
//!
//! Decisions depend only on the event number and the byte position, never on randomness, so a
//! corpus's planted counts are a pure function of its configuration:
//! - `rare`: the [`RARE_BURST`] events that follow each of [`RARE_AT`] (fractions of the corpus
//!   size; time advances with bytes, so each burst is a narrow time window);
//! - `super_sparse`: every [`SUPER_SPARSE_EVERY`]-th event (fewer for small corpora, see
//!   [`period`]);
//! - `sparse`: every [`SPARSE_EVERY`]-th event;
//! - `dense`: all events but every tenth (90 %).

use crate::summary::{Planted, Window};

/// The planted terms: `lode` + class + hex, found nowhere else in the corpus.
pub const TERMS: [(&str, &str); 4] = [
    ("rare", "lodeRARE7f3a"),
    ("super_sparse", "lodeSUPER0c5e"),
    ("sparse", "lodeSPARSE91d2"),
    ("dense", "lodeDENSE4b8e"),
];
/// Where the rare bursts start, as fractions of the target size.
pub const RARE_AT: [f64; 3] = [0.21, 0.53, 0.87];
/// Events per rare burst.
pub const RARE_BURST: u32 = 10;
/// One event in this many carries the super-sparse term (large corpora).
pub const SUPER_SPARSE_EVERY: u64 = 200_000;
/// One event in this many carries the sparse term (0.1 %).
pub const SPARSE_EVERY: u64 = 1_000;
/// Average event size used to estimate event counts, bytes (measured on the default mix).
pub const EST_EVENT_BYTES: u64 = 250;

/// The planting period for one-in-`every` events, shortened so that a small corpus still gets
/// at least about `min_hits` of them.
pub fn period(total_bytes: u64, every: u64, min_hits: u64) -> u64 {
    let estimate = total_bytes / EST_EVENT_BYTES;
    every.min(estimate / min_hits.max(1)).max(1)
}

/// The planted terms of one event (a subset of [`TERMS`], in order).
#[derive(Debug, Clone, Copy, Default)]
pub struct Tags {
    items: [&'static str; 4],
    len: usize,
}

impl Tags {
    /// The terms, in [`TERMS`] order.
    pub fn as_slice(&self) -> &[&'static str] {
        &self.items[..self.len]
    }
}

/// Decides the tags of each event and counts them.
#[derive(Debug, Clone)]
pub struct Planter {
    /// Byte positions where the rare bursts start.
    rare_starts: [u64; 3],
    /// Index of the next (or current) rare burst.
    rare_next: usize,
    /// Events still to tag in the current rare burst.
    rare_left: u32,
    /// Super-sparse period, events.
    super_every: u64,
    /// Sparse period, events.
    sparse_every: u64,
    /// Per class: windows so far (one per burst for rare, a single one otherwise).
    windows: [Vec<Window>; 4],
}

impl Planter {
    /// A schedule for a corpus of `total_bytes`.
    pub fn new(total_bytes: u64) -> Planter {
        Planter {
            rare_starts: RARE_AT.map(|f| (total_bytes as f64 * f) as u64),
            rare_next: 0,
            rare_left: 0,
            super_every: period(total_bytes, SUPER_SPARSE_EVERY, 3),
            sparse_every: period(total_bytes, SPARSE_EVERY, 30),
            windows: Default::default(),
        }
    }

    /// Tags of event number `event` (from 0), starting at byte `pos`, at `time_us`.
    #[inline]
    pub fn tags(&mut self, event: u64, pos: u64, time_us: i64) -> Tags {
        let mut t = Tags::default();
        if self.rare_left == 0 && self.rare_next < 3 && pos >= self.rare_starts[self.rare_next] {
            self.rare_left = RARE_BURST;
            self.windows[0].push(Window {
                first_us: time_us,
                last_us: time_us,
                events: 0,
            });
        }
        let hits = [
            self.rare_left > 0,
            event % self.super_every == self.super_every / 2,
            event % self.sparse_every == self.sparse_every / 2,
            event % 10 != 3,
        ];
        if self.rare_left > 0 {
            self.rare_left -= 1;
            if self.rare_left == 0 {
                self.rare_next += 1;
            }
        }
        for (class, hit) in hits.into_iter().enumerate() {
            if !hit {
                continue;
            }
            t.items[t.len] = TERMS[class].1;
            t.len += 1;
            let w = &mut self.windows[class];
            match w.last_mut() {
                Some(last) if class != 0 || last.events < u64::from(RARE_BURST) => {
                    last.last_us = time_us;
                    last.events += 1;
                }
                _ => w.push(Window {
                    first_us: time_us,
                    last_us: time_us,
                    events: 1,
                }),
            }
        }
        t
    }

    /// The planted terms with their exact counts so far.
    pub fn planted(&self) -> Vec<Planted> {
        TERMS
            .iter()
            .zip(&self.windows)
            .map(|(&(class, term), windows)| Planted {
                class: class.to_string(),
                term: term.to_string(),
                events: windows.iter().map(|w| w.events).sum(),
                tags_field: 0,
                search: term.to_string(),
                windows: windows.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(total: u64, events: u64) -> Vec<Planted> {
        let mut p = Planter::new(total);
        let step = total.checked_div(events).unwrap_or(0);
        for e in 0..events {
            p.tags(e, e * step, e as i64);
        }
        p.planted()
    }

    #[test]
    fn classes_have_their_selectivity() {
        let planted = run(1_000_000 * EST_EVENT_BYTES, 1_000_000);
        let count = |c: &str| planted.iter().find(|p| p.class == c).unwrap().events;
        assert_eq!(count("rare"), 30);
        assert_eq!(count("super_sparse"), 5);
        assert_eq!(count("sparse"), 1_000);
        assert_eq!(count("dense"), 900_000);
        let rare = &planted[0].windows;
        assert_eq!(rare.len(), 3);
        assert!(rare
            .iter()
            .all(|w| w.events == 10 && w.last_us - w.first_us == 9));
        assert_eq!(rare[1].first_us, 530_000);
    }

    #[test]
    fn small_corpora_still_get_sparse_hits() {
        let planted = run(10_000 * EST_EVENT_BYTES, 10_000);
        assert_eq!(planted[1].events, 3);
        assert!(planted[2].events >= 30);
        assert_eq!(run(0, 0).iter().map(|p| p.events).sum::<u64>(), 0);
    }
}
