//! The hot indexes a writer holds are counted in `lode_store::memory` while they are held and
//! withdrawn when their roll lets go of them (its own test binary: the figure is process-wide).

mod common;

use common::event;
use lode_store::memory::hot_bytes;
use lode_store::{IndexConfig, IndexWriter};

#[test]
fn hot_indexes_report_their_memory_until_they_roll() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert_eq!(hot_bytes(), 0);
    let events: Vec<_> = (0..20_000).map(event).collect();
    w.append(&events[..10_000]).unwrap();
    let half = hot_bytes();
    let raw: usize = events[..10_000].iter().map(|e| e.raw.len()).sum();
    // Postings, columns and slices of 10,000 events: more than their raw text.
    assert!(half > raw as u64, "{half} <= {raw}");
    w.append(&events[10_000..]).unwrap();
    assert!(hot_bytes() > half, "{} <= {half}", hot_bytes());
    w.roll().unwrap();
    assert_eq!(hot_bytes(), 0);
    w.append(&events[..100]).unwrap();
    assert!(hot_bytes() > 0);
    drop(w);
    assert_eq!(hot_bytes(), 0);
}
