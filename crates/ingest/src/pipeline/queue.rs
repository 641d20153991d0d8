//! Bounded queues that count their fill level and how often a producer had to wait, exported as
//! Splunk `metrics.log`-style figures (`group=queue, name=parsingqueue, current_size, max_size,
//! largest_size, blocked`).
//!
//! A queue is a crossbeam `bounded` channel. Its producer side ([`Metered`]) first tries to send
//! without waiting; when the queue is full it counts one *block* and then waits, so a slow
//! consumer slows the producer and nothing is dropped. The gauge reads the channel's own length
//! through a receiver kept by the gauge only while the consumer stage runs: when the consumer
//! thread ends (even by panic), [`ProbeGuard`] drops that receiver, so producers still see the
//! queue disconnect instead of waiting forever.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, SendError, Sender, TrySendError};

/// Reads the current length of a queue.
type Probe = Box<dyn Fn() -> usize + Send + Sync>;

/// Fill level and blocking counters of one queue.
pub(crate) struct Gauge {
    /// Splunk's queue name (`parsingqueue`, `aggqueue`, `typingqueue`, `indexqueue`).
    pub(crate) name: &'static str,
    /// Messages the queue holds before its producer waits.
    pub(crate) capacity: usize,
    /// Sends that found the queue full and had to wait.
    blocked: AtomicU64,
    /// Highest length seen right after a send, in messages.
    largest: AtomicUsize,
    /// Guards the length probe; `None` once the consumer stage has ended.
    probe: Mutex<Option<Probe>>,
}

/// A snapshot of one queue's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueMetrics {
    /// Pipeline set the queue belongs to (Splunk's `ingest_pipe`), from 0.
    pub set: usize,
    /// Splunk's queue name: `parsingqueue` (input → parsing), `aggqueue` (→ merging),
    /// `typingqueue` (→ typing), `indexqueue` (→ indexing).
    pub name: &'static str,
    /// Messages in the queue now (chunks for `parsingqueue`, batches after it).
    pub current_size: usize,
    /// Capacity of the queue, in messages.
    pub max_size: usize,
    /// Highest length observed right after a send since the pipeline started, in messages.
    pub largest_size: usize,
    /// Number of sends that found the queue full and waited (backpressure events).
    pub blocked: u64,
}

impl Gauge {
    fn new(name: &'static str, capacity: usize) -> Gauge {
        Gauge {
            name,
            capacity,
            blocked: AtomicU64::new(0),
            largest: AtomicUsize::new(0),
            probe: Mutex::new(None),
        }
    }

    /// The figures of this queue now.
    pub(crate) fn snapshot(&self, set: usize) -> QueueMetrics {
        let current = self
            .probe
            .lock()
            .map(|p| p.as_ref().map_or(0, |f| f()))
            .unwrap_or(0);
        QueueMetrics {
            set,
            name: self.name,
            current_size: current,
            max_size: self.capacity,
            largest_size: self.largest.load(Ordering::Relaxed),
            blocked: self.blocked.load(Ordering::Relaxed),
        }
    }

    fn clear_probe(&self) {
        match self.probe.lock() {
            Ok(mut p) => *p = None,
            Err(poisoned) => *poisoned.into_inner() = None,
        }
    }
}

/// The producer side of a metered queue.
pub(crate) struct Metered<T> {
    tx: Sender<T>,
    gauge: Arc<Gauge>,
}

impl<T> Clone for Metered<T> {
    fn clone(&self) -> Self {
        Metered {
            tx: self.tx.clone(),
            gauge: self.gauge.clone(),
        }
    }
}

impl<T> Metered<T> {
    /// Sends `msg`, waiting while the queue is full (counted once as a block). Fails only when
    /// the consumer is gone.
    pub(crate) fn send(&self, msg: T) -> Result<(), SendError<T>> {
        match self.tx.try_send(msg) {
            Ok(()) => {}
            Err(TrySendError::Full(msg)) => {
                self.gauge.blocked.fetch_add(1, Ordering::Relaxed);
                self.tx.send(msg)?;
            }
            Err(TrySendError::Disconnected(msg)) => return Err(SendError(msg)),
        }
        self.gauge
            .largest
            .fetch_max(self.tx.len(), Ordering::Relaxed);
        Ok(())
    }
}

/// Clears a gauge's probe when the consumer stage ends (normally or by panic).
pub(crate) struct ProbeGuard(Arc<Gauge>);

impl Drop for ProbeGuard {
    fn drop(&mut self) {
        self.0.clear_probe();
    }
}

/// A new metered queue: the producer side, the consumer side, the guard the consumer thread must
/// hold for as long as it reads, and the gauge.
pub(crate) fn metered<T: Send + 'static>(
    name: &'static str,
    capacity: usize,
) -> (Metered<T>, Receiver<T>, ProbeGuard, Arc<Gauge>) {
    let (tx, rx) = crossbeam_channel::bounded(capacity);
    let gauge = Arc::new(Gauge::new(name, capacity));
    let probe_rx = rx.clone();
    if let Ok(mut p) = gauge.probe.lock() {
        *p = Some(Box::new(move || probe_rx.len()));
    }
    let metered = Metered {
        tx,
        gauge: gauge.clone(),
    };
    (metered, rx, ProbeGuard(gauge.clone()), gauge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_queue_counts_a_block_and_waits() {
        let (tx, rx, guard, gauge) = metered::<u32>("parsingqueue", 2);
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        let s = gauge.snapshot(0);
        assert_eq!((s.current_size, s.max_size, s.largest_size), (2, 2, 2));
        assert_eq!(s.blocked, 0);
        let producer = {
            let tx = tx.clone();
            std::thread::spawn(move || tx.send(3))
        };
        // The producer cannot finish before a message is taken out.
        while gauge.snapshot(0).blocked == 0 {
            std::thread::yield_now();
        }
        assert_eq!(rx.recv().unwrap(), 1);
        producer.join().unwrap().unwrap();
        let s = gauge.snapshot(0);
        assert_eq!(s.blocked, 1);
        assert!(s.largest_size <= 2);
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), [2, 3]);
        drop(guard);
        assert_eq!(gauge.snapshot(0).current_size, 0);
    }

    #[test]
    fn consumer_gone_disconnects_producers() {
        let (tx, rx, guard, _gauge) = metered::<u32>("aggqueue", 1);
        drop(rx);
        drop(guard);
        assert!(tx.send(1).is_err());
    }
}
