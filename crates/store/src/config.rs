//! Per-index settings of the writer.

/// Limits that decide when the hot bucket rolls to warm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexConfig {
    /// Index name (for messages; the directory is given separately).
    pub name: String,
    /// Roll once the hot bucket holds this many bytes of `_raw` (uncompressed). Bounds the memory
    /// a roll needs (the term index is built in memory) and the WAL a hot reader replays.
    pub max_bucket_raw_bytes: u64,
    /// Roll once the hot bucket holds this many events (at most `u32::MAX - 1`: event numbers
    /// are u32).
    pub max_bucket_events: u64,
    /// Roll once the hot bucket's events span more than this many seconds of `_time`, so time
    /// pruning by directory name stays effective.
    pub max_hot_span_secs: i64,
    /// [`crate::IndexWriter::roll_if_idle`] rolls a bucket that received nothing for this many
    /// seconds (0 = never).
    pub max_hot_idle_secs: u64,
    /// Warm buckets are merged in the background into buckets of up to this many bytes of
    /// `_raw` (see [`crate::merge`]); 0 = never merge.
    pub max_merged_raw_bytes: u64,
    /// The sources of a merge are deleted this many seconds after the merged bucket is
    /// published (searches that listed them before keep finding them), or when the writer
    /// closes.
    pub merge_grace_secs: u64,
}

impl Default for IndexConfig {
    /// `main`; 128 MiB of raw per bucket (the hot index takes ~0.8 bytes per byte of raw, and a
    /// background roll holds it while the next bucket fills; a hot reader replays at most
    /// 128 MiB); 16 M events (columns of ~1 GB at most); 90 days of span
    /// (Splunk's `maxHotSpanSecs` default); 600 s idle, so a quiet index soon gets the bloom
    /// filter and compressed journal of a warm bucket instead of being replayed by every search.
    /// Warm buckets are merged into buckets of up to 1 GiB of raw, their sources deleted 60 s
    /// later.
    fn default() -> Self {
        IndexConfig {
            name: "main".to_string(),
            max_bucket_raw_bytes: 128 * 1024 * 1024,
            max_bucket_events: 16 * 1024 * 1024,
            max_hot_span_secs: 90 * 24 * 3600,
            max_hot_idle_secs: 600,
            max_merged_raw_bytes: 1024 * 1024 * 1024,
            merge_grace_secs: 60,
        }
    }
}
