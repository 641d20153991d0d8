//! Batching verified rows into the executor and emitting its final rows to the caller.
//!
//! The sink owns the batch buffer; each full batch is handed (by value) to
//! [`Executor::push`], whose final rows go to the caller's `emit` at once. Batches start small
//! and double up to [`MAX_BATCH`], so a satisfied `head` stops the scan after little work. Once
//! the executor answers [`Flow::Stop`] the sink drops further rows and [`Sink::stopped`] tells the
//! scan to stop reading.

use crate::ops::{Executor, Flow};
use crate::row::Row;
use crate::SearchError;

/// Rows in the first batch.
const FIRST_BATCH: usize = 16;
/// Rows in a full-size batch.
pub const MAX_BATCH: usize = 1000;

/// Collects rows into batches for the executor.
pub struct Sink<'a> {
    exec: Executor,
    emit: &'a mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
    /// Rows waiting for the next push.
    batch: Vec<Row>,
    /// Size at which `batch` is pushed.
    limit: usize,
    /// Final rows from the executor, emitted after each push (reused buffer).
    out: Vec<Row>,
    /// The executor wants no more input.
    stopped: bool,
    /// Rows emitted so far.
    rows_out: u64,
}

impl<'a> Sink<'a> {
    /// A sink feeding `exec` and emitting to `emit`.
    pub fn new(
        exec: Executor,
        emit: &'a mut dyn FnMut(Vec<Row>) -> Result<(), SearchError>,
    ) -> Self {
        Sink {
            exec,
            emit,
            batch: Vec::new(),
            limit: FIRST_BATCH,
            out: Vec::new(),
            stopped: false,
            rows_out: 0,
        }
    }

    /// Whether the executor wants no more rows.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Adds one verified row; pushes the batch when full.
    pub fn push(&mut self, row: Row) -> Result<(), SearchError> {
        if self.stopped {
            return Ok(());
        }
        self.batch.push(row);
        if self.batch.len() >= self.limit {
            self.flush()?;
        }
        Ok(())
    }

    /// Pushes the pending batch (if any) and emits the executor's final rows.
    pub fn flush(&mut self) -> Result<(), SearchError> {
        if self.batch.is_empty() || self.stopped {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(self.limit * 2));
        self.limit = (self.limit * 2).min(MAX_BATCH);
        if self.exec.push(batch, &mut self.out)? == Flow::Stop {
            self.stopped = true;
            self.batch.clear();
        }
        self.emit_out()
    }

    fn emit_out(&mut self) -> Result<(), SearchError> {
        if self.out.is_empty() {
            return Ok(());
        }
        self.rows_out += self.out.len() as u64;
        (self.emit)(std::mem::take(&mut self.out))
    }

    /// End of input: pushes what is pending, finishes the executor, emits its last rows; returns
    /// the number of rows emitted in all.
    pub fn finish(mut self) -> Result<u64, SearchError> {
        self.flush()?;
        let Sink {
            exec,
            emit,
            mut out,
            mut rows_out,
            ..
        } = self;
        exec.finish(&mut out)?;
        if !out.is_empty() {
            rows_out += out.len() as u64;
            emit(out)?;
        }
        Ok(rows_out)
    }
}
