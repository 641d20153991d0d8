//! Column blocks of a warm bucket: reading a few events decodes only their blocks, the blocks
//! read whole lately are bounded by events, blocks that start in the middle of a journal slice
//! read back exactly, damage in one block is a Corrupt error naming `columns.dat` (and fsck
//! finds it), and an unknown layout version is refused.

mod common;

use std::path::{Path, PathBuf};

use common::{event, owned, read_all};
use lode_store::consts::{COLUMNS_BLOCK_EVENTS, COLUMNS_FILE, COLUMNS_VERSION};
use lode_store::{
    fsck, list_buckets, BucketRead, IndexConfig, IndexWriter, StoreError, WarmBucket,
};

/// Events in the third, partial block of the test bucket.
const TAIL: u32 = 700;
const _: () = assert!(
    TAIL < COLUMNS_BLOCK_EVENTS,
    "the third block must be partial"
);
/// Events in the test bucket: two full blocks and part of a third.
const EVENTS: u64 = 2 * COLUMNS_BLOCK_EVENTS as u64 + TAIL as u64;

fn warm_bucket(dir: &Path) -> PathBuf {
    warm_bucket_of(dir, EVENTS)
}

/// A warm bucket of `n` test events in `dir`.
fn warm_bucket_of(dir: &Path, n: u64) -> PathBuf {
    let (w, _) = IndexWriter::open(dir, IndexConfig::default()).unwrap();
    let events: Vec<_> = (0..n).map(event).collect();
    for chunk in events.chunks(1000) {
        w.append(chunk).unwrap();
    }
    w.close().unwrap();
    list_buckets(dir).unwrap()[0].path.clone()
}

#[test]
fn reading_a_few_events_decodes_only_their_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let b = WarmBucket::open(&warm_bucket(dir.path())).unwrap();
    let cols = b.columns_file();
    assert_eq!(cols.head().blocks.len(), 3);
    assert_eq!(cols.blocks_decoded(), 0, "opening decodes no block");
    assert_eq!(cols.blocks_kept(), 0, "opening keeps nothing per block");
    let per = COLUMNS_BLOCK_EVENTS;
    // Two events of the last block, one of the first: blocks 2 and 0, never block 1.
    let ids = [5, 2 * per + 3, 2 * per + TAIL - 100];
    let mut got = Vec::new();
    b.read_events(&mut ids.iter().copied(), &mut |v| {
        got.push(owned(&v));
        true
    })
    .unwrap();
    let want: Vec<_> = ids.iter().map(|&i| event(i as u64)).collect();
    assert_eq!(got, want);
    // An event asked alone of its block is decoded alone; an event followed by another of the
    // same block has the whole block decoded at once: two decodes, none of block 1.
    assert_eq!(cols.blocks_decoded(), 2);
    assert_eq!(
        cols.kept_bytes(),
        0,
        "streamed blocks are not kept for the reader's life"
    );
    // Reading events streams: only the last few blocks read whole are kept (block 2 here), so
    // a scan of a large bucket does not hold every block. The time of a block's only asked event is read by walking the block,
    // keeping nothing (again if it is asked again)...
    let time = |n: u32| b.time(n).unwrap();
    assert_eq!(time(2 * per + 3), event(2 * per as u64 + 3).time);
    assert_eq!(time(6), event(6).time);
    assert_eq!(time(2 * per + 3), event(2 * per as u64 + 3).time);
    assert_eq!(cols.blocks_decoded(), 5);
    assert_eq!(cols.kept_bytes(), 0);
    assert_eq!(
        cols.blocks_kept(),
        0,
        "nothing is kept of a block for one event"
    );
    // ... a second event of the block decodes its time column, once, kept at 8 bytes per event
    // (what a reader cache charges)...
    assert_eq!(time(2 * per + 4), event(2 * per as u64 + 4).time);
    assert_eq!(time(2 * per + 5), event(2 * per as u64 + 5).time);
    assert_eq!(cols.blocks_decoded(), 6);
    assert_eq!(cols.kept_bytes(), 8 * TAIL as u64);
    assert_eq!(cols.blocks_kept(), 1);
    // ... and ids with times once more (the times are kept from that pass)...
    let f = b.indexed(2 * per + 5).unwrap();
    assert_eq!(f.time, event(2 * per as u64 + 5).time);
    assert_eq!(
        b.host_names()[f.host as usize],
        event(2 * per as u64 + 5).host
    );
    assert_eq!(
        b.indexed(2 * per + 9).unwrap().time,
        event(2 * per as u64 + 9).time
    );
    assert_eq!(cols.blocks_decoded(), 7);
    assert_eq!(
        cols.kept_bytes(),
        8 * TAIL as u64 + 3 * 4 * TAIL as u64,
        "times, then host/source/sourcetype"
    );
    // ... while reading events decodes block 0's one event again (the light columns do not
    // locate raw text); block 2 is among the recently read whole blocks.
    b.read_events(&mut ids.iter().copied(), &mut |_| true)
        .unwrap();
    assert_eq!(cols.blocks_decoded(), 8);
    assert!(matches!(b.time(EVENTS as u32), Err(StoreError::Limit(_))));
    // The dense accessors decode everything once, and answer the per-event ones after.
    assert_eq!(b.times().len(), EVENTS as usize);
    assert_eq!(cols.blocks_decoded(), 11);
    let whole = b.columns().unwrap().heap_bytes();
    assert!(whole > 8 * EVENTS, "{whole}");
    assert_eq!(
        cols.kept_bytes(),
        8 * TAIL as u64 + 3 * 4 * TAIL as u64 + whole
    );
    assert_eq!(b.time(per + 1).unwrap(), event(per as u64 + 1).time);
    assert_eq!(b.indexed(per + 1).unwrap().time, event(per as u64 + 1).time);
    assert_eq!(cols.blocks_decoded(), 11);
}

#[test]
fn blocks_starting_mid_slice_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let b = WarmBucket::open(&warm_bucket(dir.path())).unwrap();
    let full = b.columns().unwrap().clone();
    // The layout under test: a block boundary inside a journal slice, and slice changes
    // inside blocks.
    let per = COLUMNS_BLOCK_EVENTS as usize;
    assert!(
        (1..3).any(|k| full.offset[k * per] != 0),
        "no block starts mid-slice"
    );
    assert!(full.slice[0] != full.slice[per - 1]);
    let all = read_all(&b);
    assert_eq!(all, (0..EVENTS).map(event).collect::<Vec<_>>());
    // A fresh reader, block by block, agrees with the whole-file decode.
    let lazy = WarmBucket::open(b.path()).unwrap();
    for n in [
        0,
        per - 1,
        per,
        per + 1,
        2 * per - 1,
        2 * per,
        EVENTS as usize - 1,
    ] {
        assert_eq!(lazy.time(n as u32).unwrap(), full.times[n], "event {n}");
    }
    assert_eq!(read_all(&lazy), all);
}

#[test]
fn a_damaged_block_is_corrupt_and_found_by_fsck() {
    let dir = tempfile::tempdir().unwrap();
    let path = warm_bucket(dir.path()).join(COLUMNS_FILE);
    let head = WarmBucket::open(path.parent().unwrap())
        .unwrap()
        .columns_file()
        .head()
        .clone();
    let mut bytes = std::fs::read(&path).unwrap();
    let e = head.blocks[1];
    bytes[(e.offset + e.clen as u64 / 2) as usize] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
    let b = WarmBucket::open(path.parent().unwrap()).unwrap();
    let per = COLUMNS_BLOCK_EVENTS;
    // Blocks 0 and 2 are intact and readable.
    assert_eq!(b.time(0).unwrap(), event(0).time);
    b.read_events(&mut [2 * per + 1].into_iter(), &mut |_| true)
        .unwrap();
    for err in [
        b.time(per + 7).unwrap_err(),
        b.read_events(&mut [per].into_iter(), &mut |_| true)
            .unwrap_err(),
        b.prepare().unwrap_err(),
    ] {
        match err {
            StoreError::Corrupt { path: p, reason } => {
                assert_eq!(p, path);
                assert!(reason.contains("block 1"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
    let problems = fsck(dir.path(), false).unwrap();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].file, path);
}

#[test]
fn an_unknown_layout_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bucket = warm_bucket(dir.path());
    let path = bucket.join(COLUMNS_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    // The layout version is the last 4 bytes before the 24-byte footer.
    let at = bytes.len() - 24 - 4;
    assert_eq!(bytes[at..at + 4], COLUMNS_VERSION.to_le_bytes());
    bytes[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    match WarmBucket::open(&bucket) {
        Err(StoreError::Version {
            path: p,
            found: 1,
            supported,
        }) => {
            assert_eq!(p, path);
            assert_eq!(supported, COLUMNS_VERSION);
        }
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn recently_read_blocks_are_bounded_by_events() {
    // Two events of each of 70 blocks: each block is read whole and kept among the recent
    // ones, which hold 64 Ki events' worth (64 blocks of 1024 events).
    let dir = tempfile::tempdir().unwrap();
    let per = COLUMNS_BLOCK_EVENTS;
    let blocks = 64 * 1024 / per + 6;
    let b = WarmBucket::open(&warm_bucket_of(dir.path(), (blocks * per) as u64)).unwrap();
    let ids: Vec<u32> = (0..blocks).flat_map(|k| [k * per, k * per + 1]).collect();
    let mut got = 0u32;
    b.read_events(&mut ids.iter().copied(), &mut |v| {
        assert_eq!(owned(&v), event(ids[got as usize] as u64));
        got += 1;
        true
    })
    .unwrap();
    assert_eq!(got as usize, ids.len());
    let cols = b.columns_file();
    assert_eq!(cols.blocks_decoded(), blocks as u64, "each block once");
    assert_eq!(cols.recent_blocks_held(), (64 * 1024 / per) as usize);
}

/// The `_time`s of the first `len` events of block `block` of [`warm_bucket`].
fn times_of_block(block: u32, len: u32) -> Vec<i64> {
    (0..len)
        .map(|i| event((block * COLUMNS_BLOCK_EVENTS + i) as u64).time)
        .collect()
}

#[test]
fn block_times_are_kept_only_while_the_reader_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let b = WarmBucket::open(&warm_bucket(dir.path())).unwrap();
    let cols = b.columns_file();
    let per = COLUMNS_BLOCK_EVENTS;
    let want = times_of_block;
    let mut times = vec![-1; 5];
    // A keeping reader (as opened) decodes block 0's times once and keeps them.
    assert!(cols.keeping());
    assert!(b.block_times_into(0, &mut times).unwrap());
    assert_eq!(times, want(0, per));
    let kept = cols.kept_bytes();
    assert!(kept >= 8 * per as u64, "{kept}");
    assert!(b.block_times_into(0, &mut times).unwrap());
    assert_eq!(times, want(0, per));
    assert_eq!(cols.blocks_decoded(), 1, "kept times are not decoded again");
    // Let go by a cache: block 2's times are decoded for each call and kept nowhere; block 0's
    // kept ones still answer.
    b.stop_keeping();
    assert!(!cols.keeping());
    for _ in 0..2 {
        assert!(b.block_times_into(2, &mut times).unwrap());
        assert_eq!(times, want(2, TAIL));
    }
    assert_eq!(cols.blocks_decoded(), 3);
    assert_eq!(cols.kept_bytes(), kept);
    assert!(b.block_times_into(0, &mut times).unwrap());
    assert_eq!(times, want(0, per));
    assert_eq!(cols.blocks_decoded(), 3);
    // A block beyond the file is an error, whether kept or not.
    assert!(b.block_times_into(3, &mut times).is_err());
}

#[test]
fn a_reader_keeps_block_times_up_to_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let b = WarmBucket::open(&warm_bucket(dir.path())).unwrap();
    let cols = b.columns_file();
    let per = COLUMNS_BLOCK_EVENTS;
    let want = times_of_block;
    // Room for one block's times: block 0 is kept, block 1 decoded for each call.
    cols.keep_times_within(8 * per as u64);
    let mut times = Vec::new();
    assert!(b.block_times_into(0, &mut times).unwrap());
    assert_eq!(times, want(0, per));
    assert_eq!(cols.blocks_kept(), 1);
    let kept = cols.kept_bytes();
    for _ in 0..2 {
        assert!(b.block_times_into(1, &mut times).unwrap());
        assert_eq!(times, want(1, per));
    }
    assert_eq!(cols.blocks_decoded(), 3);
    assert_eq!(cols.blocks_kept(), 1);
    assert_eq!(cols.kept_bytes(), kept);
    // Still keeping (the id pass may), and block 0 answers from what it kept.
    assert!(cols.keeping());
    assert!(b.block_times_into(0, &mut times).unwrap());
    assert_eq!(times, want(0, per));
    assert_eq!(cols.blocks_decoded(), 3);
    // More room: block 1 is kept from its next read on.
    cols.keep_times_within(lode_store::columns::lazy::KEPT_TIMES_BYTES);
    for _ in 0..2 {
        assert!(b.block_times_into(1, &mut times).unwrap());
    }
    assert_eq!(cols.blocks_decoded(), 4);
    assert_eq!(cols.blocks_kept(), 2);
}
