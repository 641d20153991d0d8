//! Rolls and merges give freed memory back through the function the program registered
//! (`lode_store::memory::on_give_back`) once they let go of their large buffers (a test binary
//! of its own: the registration is process-wide).

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::event;
use lode_store::merge::merge;
use lode_store::{list_buckets, memory, IndexConfig, IndexWriter};

static GIVEN_BACK: AtomicU32 = AtomicU32::new(0);

fn count() {
    GIVEN_BACK.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn rolls_and_merges_give_memory_back() {
    memory::on_give_back(count);
    let dir = tempfile::tempdir().unwrap();
    let config = IndexConfig {
        max_merged_raw_bytes: 0,
        ..IndexConfig::default()
    };
    let (w, _) = IndexWriter::open(dir.path(), config).unwrap();
    assert_eq!(GIVEN_BACK.load(Ordering::Relaxed), 0);
    let events: Vec<_> = (0..4000).map(event).collect();
    w.append(&events[..2000]).unwrap();
    w.roll().unwrap();
    // After the columns, after the terms, and once the hot index is let go.
    let after_roll = GIVEN_BACK.load(Ordering::Relaxed);
    assert!(after_roll >= 3, "{after_roll}");
    w.append(&events[2000..]).unwrap();
    w.roll().unwrap();
    let before_merge = GIVEN_BACK.load(Ordering::Relaxed);
    assert!(before_merge >= 2 * after_roll, "{before_merge}");
    let sources = list_buckets(dir.path()).unwrap();
    assert_eq!(sources.len(), 2);
    let never = || false;
    merge(dir.path(), &sources, &never).unwrap().unwrap();
    assert!(GIVEN_BACK.load(Ordering::Relaxed) > before_merge);
    w.close().unwrap();
}
