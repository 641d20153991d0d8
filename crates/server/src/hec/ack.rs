//! Indexer acknowledgement: per channel, each accepted request gets the next `ackId` (from 0);
//! the id turns true once every event of the request is durable (written to the write-ahead log
//! and fdatasynced). An id reported true is forgotten; unknown ids are false. Channels and pending
//! ids are bounded, and a channel idle for [`CHANNEL_IDLE`] is dropped with its ids.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A channel unused this long is forgotten (Splunk's `maxIdleTime` default).
pub const CHANNEL_IDLE: Duration = Duration::from_secs(600);
/// Most channels at once.
pub const MAX_CHANNELS: usize = 10_000;
/// Most ids of one channel not yet reported true.
pub const MAX_PENDING_PER_CHANNEL: usize = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Accepted; not durable yet.
    Pending,
    /// Durable.
    Done,
    /// Writing failed: never true (the client resends after its timeout).
    Failed,
}

struct Channel {
    next: u64,
    ids: HashMap<u64, State>,
    used: Instant,
}

/// Why a new id could not be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// [`MAX_CHANNELS`] channels are in use.
    Channels,
    /// The channel has [`MAX_PENDING_PER_CHANNEL`] ids not yet reported.
    Pending,
}

/// Every channel's ids.
#[derive(Default)]
pub struct Acks {
    channels: HashMap<String, Channel>,
}

impl Acks {
    /// Drops channels idle since before `now - CHANNEL_IDLE`.
    fn expire(&mut self, now: Instant) {
        self.channels
            .retain(|_, c| now.duration_since(c.used) < CHANNEL_IDLE);
    }

    /// Gives the next id of `channel`, pending.
    pub fn start(&mut self, channel: &str, now: Instant) -> Result<u64, Full> {
        if !self.channels.contains_key(channel) {
            self.expire(now);
            if self.channels.len() >= MAX_CHANNELS {
                return Err(Full::Channels);
            }
        }
        let c = self
            .channels
            .entry(channel.to_string())
            .or_insert_with(|| Channel {
                next: 0,
                ids: HashMap::new(),
                used: now,
            });
        if c.ids.len() >= MAX_PENDING_PER_CHANNEL {
            return Err(Full::Pending);
        }
        c.used = now;
        let id = c.next;
        c.next += 1;
        c.ids.insert(id, State::Pending);
        Ok(id)
    }

    /// Records the outcome of `id` of `channel` (a no-op if the channel expired meanwhile).
    pub fn finish(&mut self, channel: &str, id: u64, durable: bool) {
        if let Some(s) = self
            .channels
            .get_mut(channel)
            .and_then(|c| c.ids.get_mut(&id))
        {
            *s = if durable { State::Done } else { State::Failed };
        }
    }

    /// The status of `ids` on `channel`; ids reported true are forgotten.
    pub fn query(&mut self, channel: &str, ids: &[u64], now: Instant) -> Vec<(u64, bool)> {
        let Some(c) = self.channels.get_mut(channel) else {
            return ids.iter().map(|&i| (i, false)).collect();
        };
        c.used = now;
        ids.iter()
            .map(|&i| {
                let done = c.ids.get(&i) == Some(&State::Done);
                if done {
                    c.ids.remove(&i);
                }
                (i, done)
            })
            .collect()
    }

    /// Number of channels.
    pub fn channels(&self) -> usize {
        self.channels.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_count_per_channel_and_turn_true_once_durable() {
        let mut a = Acks::default();
        let t = Instant::now();
        assert_eq!(a.start("c1", t), Ok(0));
        assert_eq!(a.start("c1", t), Ok(1));
        assert_eq!(a.start("c2", t), Ok(0));
        assert_eq!(
            a.query("c1", &[0, 1, 7], t),
            vec![(0, false), (1, false), (7, false)]
        );
        a.finish("c1", 0, true);
        a.finish("c1", 1, false);
        assert_eq!(a.query("c1", &[0, 1], t), vec![(0, true), (1, false)]);
        // Reported once, then forgotten.
        assert_eq!(a.query("c1", &[0], t), vec![(0, false)]);
        assert_eq!(a.query("nope", &[0], t), vec![(0, false)]);
    }

    #[test]
    fn idle_channels_expire_and_limits_hold() {
        let mut a = Acks::default();
        let t = Instant::now();
        a.start("old", t).unwrap();
        let later = t + CHANNEL_IDLE + Duration::from_secs(1);
        a.start("new", later).unwrap();
        assert_eq!(a.channels(), 1);
        for _ in 1..MAX_PENDING_PER_CHANNEL {
            a.start("new", later).unwrap();
        }
        assert_eq!(a.start("new", later), Err(Full::Pending));
    }
}
