//! Ingestion pipeline: parsing, merging, typing, with bounded queues.
