//! Timestamps: strptime/strftime with Splunk's letters, automatic recognition, relative time modifiers.
//!
//! Every instant is a [`Micros`]: microseconds since the Unix epoch, UTC. Wall-clock conversions go
//! through a [`Zone`]. The crate has three consumers:
//! * ingestion uses [`extract::Extractor`] once per event (fast path: the pattern that matched the
//!   previous event is tried first at the same offset; slow path: every known pattern at every
//!   word boundary inside the lookahead window);
//! * search uses [`relative::resolve`] for `earliest=`/`latest=` and [`strptime::strftime`] for output;
//! * both use [`strptime::TimeFormat`] for explicit `TIME_FORMAT`/`strptime()` formats.

mod civil;
mod error;
pub mod extract;
pub mod relative;
pub mod strptime;
mod zone;

pub use error::TimeError;
pub use zone::Zone;

/// Microseconds since 1970-01-01T00:00:00Z.
pub type Micros = i64;

/// Microseconds in one second.
pub const MICROS_PER_SEC: i64 = 1_000_000;
/// Microseconds in one day (86 400 s).
pub const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SEC;
