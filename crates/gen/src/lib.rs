//! Deterministic generator of realistic machine data with planted search targets.
//!
//! Given a [`GenConfig`] (seed, size, time range, hosts), [`Generator`] produces a corpus of four
//! [`Kind`]s interleaved by time — RFC 3164 syslog, Apache access_combined, JSON application
//! logs and multi-line log4j Java exceptions — and a [`GenSummary`] of exact counts: events per
//! kind and per host, and the [`Planted`] terms (`rare`, `super_sparse`, `sparse`, `dense`) with
//! the exact number of events containing each. The same configuration gives byte-identical
//! output. `lode gen` writes it with [`write_dir`]; `lode bench` streams it with
//! [`Generator::generate`] or [`Generator::generate_events`].
//!
//! Where each event names its host: syslog in the header (`Mmm dd HH:MM:SS host prog: …`),
//! access lines as the last field (`%v`), JSON as `"host"`, log4j after the level
//! (`date time LEVEL host [thread] logger - msg`).
//!
//! Planted terms are appended as ` tags=a,b` (syslog, log4j first line), as a `tags=a,b` query
//! parameter of the URL (access) or as a `"tags":[…]` array (JSON).
//!
//! ```
//! use lode_gen::{GenConfig, Generator, Kind};
//!
//! let mut generator = Generator::new(GenConfig::new(42, 200_000));
//! let mut syslog = Vec::new();
//! let summary = generator.generate(&mut |kind, chunk| {
//!     if kind == Kind::Syslog {
//!         syslog.extend_from_slice(chunk);
//!     }
//! });
//! assert!(summary.bytes >= 200_000 && summary.bytes < 202_000);
//! assert_eq!(summary.events_by_kind["syslog"], syslog.split(|&b| b == b'\n').count() as u64 - 1);
//! let dense = summary.planted.iter().find(|p| p.class == "dense").unwrap();
//! assert_eq!(dense.search, "lodeDENSE4b8e");
//! ```

mod clock;
mod config;
mod dir;
mod generator;
mod kind;
mod plant;
mod pools;
pub mod skew;
mod summary;
pub mod text;
mod vocab;

pub use config::{GenConfig, Kind, DEFAULT_HOSTS, DEFAULT_SPAN_SECS, DEFAULT_START_SECS};
pub use dir::{write_dir, MANIFEST};
pub use generator::{ChunkSink, GenEvent, Generator, CHUNK_BYTES};
pub use plant::TERMS as PLANTED_TERMS;
pub use summary::{GenSummary, Planted, Window};
