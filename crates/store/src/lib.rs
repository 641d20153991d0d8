//! Indexes and buckets: write-ahead log, warm buckets, term index, bloom filters, fsck.
