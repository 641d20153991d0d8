//! Admission control for searches: a fixed number run at once, a bounded FIFO waits, the rest are
//! refused with 503 and Splunk's wording.
//!
//! Fairness between searches comes from three things: admission is first come, first served
//! (tokio's semaphore hands permits to waiters in order, and a newcomer cannot take a permit
//! while others wait); every running search has its own thread on tokio's blocking pool, so the
//! operating system time-slices long and short searches alike and a long search delays a short
//! one by at most its share of the cores, never by its whole run; and the reactor threads only
//! move bytes, so health checks and ingest requests are answered while every search slot is
//! busy.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// A running search's slot; the slot frees when this is dropped.
pub type SearchPermit = OwnedSemaphorePermit;

/// Limits on concurrent searches. Shared by every request (`Arc` inside [`crate::AppState`]).
#[derive(Debug)]
pub struct SearchLimiter {
    /// Searches allowed to run at once.
    max_running: usize,
    /// Searches allowed to wait for a slot.
    max_queued: usize,
    /// One permit per running search.
    slots: Arc<Semaphore>,
    /// Searches waiting now.
    queued: AtomicUsize,
}

/// Decrements the waiting count when the wait ends, also when the request is dropped mid-wait.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl SearchLimiter {
    /// `max_running` searches at once (0 = twice the cores), `max_queued` waiting.
    pub fn new(max_running: usize, max_queued: usize) -> SearchLimiter {
        let max_running = if max_running == 0 {
            2 * std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            max_running
        };
        SearchLimiter {
            max_running,
            max_queued,
            slots: Arc::new(Semaphore::new(max_running)),
            queued: AtomicUsize::new(0),
        }
    }

    /// Searches allowed to run at once.
    pub fn max_running(&self) -> usize {
        self.max_running
    }

    /// Searches allowed to wait.
    pub fn max_queued(&self) -> usize {
        self.max_queued
    }

    /// Searches running now.
    pub fn running(&self) -> usize {
        self.max_running - self.slots.available_permits()
    }

    /// Searches waiting now.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// Waits for a slot in arrival order. When `max_queued` searches already wait, fails at once
    /// with [`ApiError::Unavailable`] (503) in Splunk's words.
    pub async fn acquire(&self) -> Result<SearchPermit, ApiError> {
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return Ok(p);
        }
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.max_queued {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(self.refusal());
        }
        let _waiting = Waiting(&self.queued);
        self.slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ApiError::Unavailable("Server is shutting down".into()))
    }

    /// The 503 text: Splunk's message for a full search quota, with its key=value details.
    fn refusal(&self) -> ApiError {
        ApiError::Unavailable(format!(
            "Search not executed: The maximum number of concurrent historical searches on this \
             instance has been reached. concurrency_category=\"historical\", \
             concurrency_context=\"instance-wide\", current_concurrency={}, \
             concurrency_limit={}, queued={}, queue_limit={}",
            self.running(),
            self.max_running,
            self.queued(),
            self.max_queued
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn full_queue_is_refused_and_slots_come_back() {
        let l = Arc::new(SearchLimiter::new(1, 1));
        let first = l.acquire().await.unwrap();
        assert_eq!(l.running(), 1);
        let l2 = l.clone();
        let waiter = tokio::spawn(async move { l2.acquire().await.map(|_| ()) });
        while l.queued() == 0 {
            tokio::task::yield_now().await;
        }
        let err = l.acquire().await.unwrap_err();
        assert!(matches!(err, ApiError::Unavailable(_)));
        assert!(err.to_string().contains("concurrency_limit=1"), "{err}");
        drop(first);
        waiter.await.unwrap().unwrap();
        assert_eq!((l.running(), l.queued()), (0, 0));
    }

    #[tokio::test]
    async fn waiters_are_served_in_arrival_order() {
        let l = Arc::new(SearchLimiter::new(1, 8));
        let held = l.acquire().await.unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for i in 0..4 {
            let (l2, tx) = (l.clone(), tx.clone());
            tokio::spawn(async move {
                let _p = l2.acquire().await.unwrap();
                tx.send(i).unwrap();
            });
            while l.queued() <= i {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        let mut order = Vec::new();
        for _ in 0..4 {
            order.push(rx.recv().await.unwrap());
        }
        assert_eq!(order, [0, 1, 2, 3]);
    }

    #[test]
    fn zero_means_twice_the_cores() {
        let l = SearchLimiter::new(0, 0);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(l.max_running(), 2 * cores);
    }
}
