//! Indexes and buckets: write-ahead log, warm buckets, term index, bloom filters, fsck.
//!
//! Given events, [`IndexWriter`] makes them durable in the write-ahead log of the hot bucket and
//! rolls full hot buckets into immutable warm buckets (compressed raw journal, columns, lexicon,
//! postings, bloom filter, metadata). Given an index directory, [`list_buckets`] and
//! [`open_bucket`] give searches a [`BucketRead`] per bucket, answering [`TermQuery`]s with event
//! numbers and reading events back as [`EventView`]s. [`fsck`] verifies every file and
//! quarantines damaged buckets; [`inspect`] summarises one. Byte layouts: docs/format/;
//! crash safety: docs/DURABILITY.md.

pub mod bloom;
pub mod bucket;
pub mod codec;
pub mod columns;
pub mod config;
pub mod consts;
pub mod dctx;
pub mod error;
pub mod footer;
pub mod fsck;
pub mod inspect;
pub mod layout;
pub mod memory;
pub mod merge;
mod merger;
pub mod meta;
pub mod packed;
pub mod postings;
pub mod query;
mod recover;
pub mod slice_cache;
pub mod terms;
pub mod wal;
pub mod writer;

pub use bucket::hot::HotBucket;
pub use bucket::warm::WarmBucket;
pub use bucket::{open_bucket, BucketRead, EventView};
pub use config::IndexConfig;
pub use error::StoreError;
pub use fsck::{fsck, FsckProblem};
pub use inspect::{inspect, BucketSummary};
pub use layout::{list_buckets, BucketInfo, BucketKind};
pub use meta::{BucketMeta, ValueStats};
pub use query::TermQuery;
pub use writer::{IndexWriter, RecoveryReport};
