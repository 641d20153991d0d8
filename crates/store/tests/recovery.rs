//! Recovery: torn WAL tail, garbage after the last record, crash mid-roll, bad WAL header.

mod common;

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use common::{event, read_all};
use lode_event::Event;
use lode_store::{list_buckets, open_bucket, BucketKind, IndexConfig, IndexWriter};

fn all_events(dir: &Path) -> Vec<Event> {
    let mut out = Vec::new();
    for info in list_buckets(dir).unwrap() {
        out.extend(read_all(open_bucket(&info).unwrap().as_ref()));
    }
    out
}

fn hot_wal(dir: &Path) -> std::path::PathBuf {
    let hot = list_buckets(dir)
        .unwrap()
        .into_iter()
        .find(|b| b.kind == BucketKind::Hot)
        .unwrap();
    hot.path.join("wal.log")
}

/// Writes 3 batches of 10 events and leaves the hot bucket un-rolled (as a crash would).
fn three_batches(dir: &Path) -> Vec<Event> {
    let (w, _) = IndexWriter::open(dir, IndexConfig::default()).unwrap();
    let events: Vec<_> = (0..30).map(event).collect();
    for c in events.chunks(10) {
        w.append(c).unwrap();
    }
    drop(w);
    events
}

#[test]
fn truncated_wal_tail_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let events = three_batches(dir.path());
    let wal = hot_wal(dir.path());
    let len = std::fs::metadata(&wal).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&wal)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let (w, report) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert_eq!(report.replayed_events, 20);
    assert!(report.truncated_bytes > 0);
    // Appending after the cut continues a clean log.
    w.append(&events[20..]).unwrap();
    w.close().unwrap();
    assert_eq!(all_events(dir.path()), events);
}

#[test]
fn garbage_after_last_record_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let events = three_batches(dir.path());
    let wal = hot_wal(dir.path());
    let mut f = OpenOptions::new().append(true).open(&wal).unwrap();
    f.write_all(&[0xAB; 37]).unwrap();
    drop(f);
    // A reader tolerates the garbage already (a concurrently appended WAL looks the same).
    assert_eq!(all_events(dir.path()), events);
    let (w, report) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert_eq!(report.replayed_events, 30);
    assert_eq!(report.truncated_bytes, 37);
    w.append(&[event(99)]).unwrap();
    drop(w);
    let mut want = events.clone();
    want.push(event(99));
    assert_eq!(all_events(dir.path()), want);
}

#[test]
fn crash_between_rename_and_hot_delete_completes_the_roll() {
    let dir = tempfile::tempdir().unwrap();
    let events = three_batches(dir.path());
    let wal = hot_wal(dir.path());
    let saved = std::fs::read(&wal).unwrap();
    let hot_dir = wal.parent().unwrap().to_path_buf();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    w.close().unwrap();
    // Put the hot directory back, as if the crash came before its deletion.
    std::fs::create_dir(&hot_dir).unwrap();
    std::fs::write(hot_dir.join("wal.log"), saved).unwrap();
    let (w, report) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert_eq!(report.completed_rolls, 1);
    assert!(!hot_dir.exists());
    assert_eq!(all_events(dir.path()), events);
    // The next bucket gets a fresh id.
    w.append(&[event(100)]).unwrap();
    let ids: Vec<u64> = list_buckets(dir.path())
        .unwrap()
        .iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(ids, vec![0, 1]);
}

#[test]
fn crash_before_rename_discards_the_temp_dir() {
    let dir = tempfile::tempdir().unwrap();
    let events = three_batches(dir.path());
    let tmp = dir.path().join("tmp_0");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::write(tmp.join("journal.zst"), b"half written").unwrap();
    let (w, report) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert_eq!(report.replayed_events, 30);
    assert!(!tmp.exists());
    w.close().unwrap();
    assert_eq!(all_events(dir.path()), events);
}

#[test]
fn hot_bucket_with_bad_header_is_quarantined() {
    let dir = tempfile::tempdir().unwrap();
    three_batches(dir.path());
    let wal = hot_wal(dir.path());
    let mut bytes = std::fs::read(&wal).unwrap();
    bytes[0] ^= 0xFF;
    std::fs::write(&wal, bytes).unwrap();
    let (w, report) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert_eq!(report.quarantined.len(), 1);
    assert!(report.quarantined[0].starts_with(dir.path().join("quarantine")));
    w.append(&[event(1)]).unwrap();
    let infos = list_buckets(dir.path()).unwrap();
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].id, 1, "ids of quarantined buckets are not reused");
}
