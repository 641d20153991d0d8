//! The journal's zstd dictionary: a bucket large enough gets one (stored in `slices.dat`) and
//! reads back exactly, a small one is written without, and a damaged dictionary is a Corrupt
//! error naming `slices.dat` (fsck finds it), never a panic.

mod common;

use std::path::{Path, PathBuf};

use common::{event, read_all};
use lode_store::consts::{JOURNAL_DICT_TRAIN_BYTES, SLICES_FILE};
use lode_store::footer::{append_footer, read_verified};
use lode_store::{
    fsck, list_buckets, BucketRead, IndexConfig, IndexWriter, StoreError, WarmBucket,
};

fn warm_bucket(dir: &Path, events: u64) -> PathBuf {
    let (w, _) = IndexWriter::open(dir, IndexConfig::default()).unwrap();
    let all: Vec<_> = (0..events).map(event).collect();
    for chunk in all.chunks(2000) {
        w.append(chunk).unwrap();
    }
    w.close().unwrap();
    list_buckets(dir).unwrap()[0].path.clone()
}

fn dict_len(bucket: &Path) -> usize {
    WarmBucket::open(bucket).unwrap().journal_dict_len()
}

#[test]
fn large_bucket_has_a_dictionary_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    // ~60 bytes an event: more than the training bytes, so slices are written both from the
    // held-back set and after it.
    let n = (2 * JOURNAL_DICT_TRAIN_BYTES / 50) as u64;
    let path = warm_bucket(dir.path(), n);
    assert!(dict_len(&path) > 0, "no dictionary");
    let b = WarmBucket::open(&path).unwrap();
    assert!(b.meta().raw_bytes as usize > JOURNAL_DICT_TRAIN_BYTES);
    assert_eq!(read_all(&b), (0..n).map(event).collect::<Vec<_>>());
    assert!(fsck(dir.path(), false).unwrap().is_empty());

    // Damage in the dictionary fails its own checksum when a read first needs it (the bucket
    // opens: it reads only the table's tail), before any slice is decompressed with it.
    let p = path.join(SLICES_FILE);
    let good = std::fs::read(&p).unwrap();
    let mut bad = good.clone();
    // Body tail: dictionary | its length u64 and xxh3 u64 | count u64 | marker u64; footer.
    let at = good.len() - 24 - 32 - dict_len(&path) / 2;
    bad[at] ^= 0xff;
    std::fs::write(&p, &bad).unwrap();
    let b = WarmBucket::open(&path).unwrap();
    let read = b.read_events(&mut (0..1), &mut |_| true);
    assert!(matches!(read, Err(StoreError::Corrupt { .. })), "{read:?}");
    assert!(fsck(dir.path(), false)
        .unwrap()
        .iter()
        .any(|p| p.file.ends_with(SLICES_FILE)));
    std::fs::write(&p, &good).unwrap();
    // A dictionary length beyond the file is refused when opening.
    let mut body = read_verified(&p, lode_store::consts::magic::SLICES).unwrap();
    let l = body.len();
    body[l - 32..l - 24].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    append_footer(&mut body, lode_store::consts::magic::SLICES);
    std::fs::write(&p, &body).unwrap();
    assert!(matches!(
        WarmBucket::open(&path),
        Err(StoreError::Corrupt { .. })
    ));
    let problems = fsck(dir.path(), false).unwrap();
    assert!(problems.iter().any(|p| p.file.ends_with(SLICES_FILE)));
}

/// Past its first slices, a read decompresses each slice right after a copy of its dictionary
/// (`dctx::Near`); a slice too large for that room (an event over 16 KiB) is read the usual
/// way. Whole reads, reads of every 97th event and a read from the middle all give the events
/// written.
#[test]
fn slices_read_after_their_dictionary_and_large_ones_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let n = (2 * JOURNAL_DICT_TRAIN_BYTES / 50) as u64;
    let big = |i: u64| i % 5_000 == 4_999;
    let events: Vec<_> = (0..n)
        .map(|i| {
            let mut e = event(i);
            if big(i) {
                e.raw = format!("{} {}", e.raw, "payload ".repeat(2_600 + i as usize % 7));
            }
            e
        })
        .collect();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    for chunk in events.chunks(2000) {
        w.append(chunk).unwrap();
    }
    w.close().unwrap();
    let path = list_buckets(dir.path()).unwrap()[0].path.clone();
    assert!(dict_len(&path) > 0, "no dictionary");
    assert!(events.iter().any(|e| e.raw.len() > 20_000));
    let b = WarmBucket::open(&path).unwrap();
    assert_eq!(read_all(&b), events);
    for (from, step) in [(0, 97), (n as u32 / 2, 1), (4_999, 5_000)] {
        let mut got = Vec::new();
        b.read_events(&mut (from..n as u32).step_by(step), &mut |v| {
            got.push(common::owned(&v));
            true
        })
        .unwrap();
        let want: Vec<_> = events[from as usize..]
            .iter()
            .step_by(step)
            .cloned()
            .collect();
        assert_eq!(got, want, "from {from} by {step}");
    }
}

#[test]
fn small_bucket_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = warm_bucket(dir.path(), 500);
    assert_eq!(dict_len(&path), 0);
    let b = WarmBucket::open(&path).unwrap();
    assert_eq!(read_all(&b), (0..500).map(event).collect::<Vec<_>>());
}
