//! Damaged warm-bucket files give Corrupt/Version errors (never panics), fsck names the file,
//! and quarantine moves the bucket away.

mod common;

use std::path::{Path, PathBuf};

use common::event;
use lode_store::consts::WARM_FILES;
use lode_store::{
    fsck, list_buckets, open_bucket, BucketRead, IndexConfig, IndexWriter, StoreError, TermQuery,
};

fn warm_bucket(dir: &Path) -> PathBuf {
    let (w, _) = IndexWriter::open(dir, IndexConfig::default()).unwrap();
    w.append(&(0..3000).map(event).collect::<Vec<_>>()).unwrap();
    w.close().unwrap();
    list_buckets(dir).unwrap()[0].path.clone()
}

/// Opens and fully exercises a bucket; returns the first error.
fn exercise(b: &Path) -> Result<(), StoreError> {
    let info = lode_store::BucketInfo {
        path: b.to_path_buf(),
        id: 0,
        first_id: 0,
        kind: lode_store::BucketKind::Warm,
        min_time_secs: 0,
        max_time_secs: 0,
    };
    let r = open_bucket(&info)?;
    let n = r.meta().event_count as u32;
    r.read_events(&mut (0..n), &mut |_| true)?;
    for t in ["error", "host::web-01", "seq=5", "info"] {
        r.eval(&TermQuery::Term(t.as_bytes().to_vec()))?;
    }
    r.eval(&TermQuery::Glob(b"*".to_vec()))?;
    Ok(())
}

fn damage(kind: &str, bytes: &mut Vec<u8>) {
    let n = bytes.len();
    match kind {
        "flip" => bytes[n / 2] ^= 0x40,
        "truncate" => bytes.truncate(n * 2 / 3),
        "magic" => bytes[n - 24] ^= 0xFF,
        "version" => bytes[n - 20..n - 16].copy_from_slice(&99u32.to_le_bytes()),
        _ => unreachable!(),
    }
}

#[test]
fn every_file_every_damage_is_reported() {
    for file in WARM_FILES {
        for kind in ["flip", "truncate", "magic", "version"] {
            let dir = tempfile::tempdir().unwrap();
            let b = warm_bucket(dir.path());
            assert!(fsck(dir.path(), false).unwrap().is_empty());
            let path = b.join(file);
            let mut bytes = std::fs::read(&path).unwrap();
            damage(kind, &mut bytes);
            std::fs::write(&path, bytes).unwrap();
            let err = exercise(&b);
            let problems = fsck(dir.path(), false).unwrap();
            assert_eq!(problems.len(), 1, "{file} {kind}: {problems:?}");
            assert_eq!(problems[0].file, path, "{file} {kind}");
            match kind {
                "version" => {
                    assert!(
                        matches!(err, Err(StoreError::Version { found: 99, .. })),
                        "{file}: {err:?}"
                    );
                    assert!(problems[0].problem.contains("version 99"));
                }
                // Journal, postings and bloom filter are checked piecewise on read: a flipped
                // byte may sit in a part the exercise does not touch, but fsck always finds it.
                // (A bloom page failing its checksum answers "may be present".)
                "flip" if file == "postings.dat" || file == "bloom.dat" => {
                    assert!(
                        matches!(err, Ok(()) | Err(StoreError::Corrupt { .. })),
                        "{err:?}"
                    )
                }
                _ => assert!(
                    matches!(err, Err(StoreError::Corrupt { .. })),
                    "{file} {kind}: {err:?}"
                ),
            }
        }
    }
}

#[test]
fn quarantine_moves_the_damaged_bucket() {
    let dir = tempfile::tempdir().unwrap();
    let b = warm_bucket(dir.path());
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    w.append(&[event(1)]).unwrap();
    w.close().unwrap();
    let path = b.join("columns.dat");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let problems = fsck(dir.path(), true).unwrap();
    assert_eq!(problems.len(), 1);
    let moved = problems[0].quarantined_to.clone().unwrap();
    assert_eq!(
        moved,
        dir.path().join("quarantine").join(b.file_name().unwrap())
    );
    assert!(moved.join("columns.dat").exists());
    let left = list_buckets(dir.path()).unwrap();
    assert_eq!(left.len(), 1);
    assert!(fsck(dir.path(), false).unwrap().is_empty());
}

#[test]
fn bytes_after_the_body_are_not_trusted() {
    // Random bytes instead of a bucket file never panic the reader.
    let dir = tempfile::tempdir().unwrap();
    let b = warm_bucket(dir.path());
    for file in WARM_FILES {
        for len in [0usize, 3, 24, 100] {
            let path = b.join(file);
            let saved = std::fs::read(&path).unwrap();
            let junk: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            std::fs::write(&path, junk).unwrap();
            assert!(exercise(&b).is_err(), "{file} {len}");
            std::fs::write(&path, saved).unwrap();
        }
    }
    assert!(exercise(&b).is_ok());
}

fn _assert_send_sync(b: Box<dyn BucketRead + Send + Sync>) -> impl Send + Sync {
    b
}
