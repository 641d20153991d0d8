//! Scan behaviour over real indexes: early stop, merge order, bloom skips, time pruning, corrupt
//! buckets, index selection. Every test also checks the naive twin gives the same rows.

mod common;

use common::*;
use lode_search::SearchError;

/// Non-overlapping warm buckets of `per` events each, `n` buckets, one event per second, then a
/// hot bucket of `per` more; bucket `b` holds the word `bucket<b>`.
fn sequential_corpus(root: &std::path::Path, n: usize, per: usize) {
    let mut chunks = Vec::new();
    for b in 0..=n {
        let events = (0..per)
            .map(|i| {
                let t = ((b * per + i) as i64 + 1_600_000_000) * SEC;
                event(
                    t,
                    &format!("web{}", i % 3),
                    "app",
                    &format!("bucket{b} seq={i} status=ok"),
                )
            })
            .collect();
        chunks.push(Chunk {
            events,
            roll: b < n,
        });
    }
    write_index(root, "main", &chunks);
}

#[test]
fn head_stops_early() {
    let dir = tempfile::tempdir().unwrap();
    sequential_corpus(dir.path(), 8, 2000);
    let (rows, stats) = same_as_naive(dir.path(), "status=ok | head 5");
    assert_eq!(rows.len(), 5);
    assert!(
        rows[0]
            .iter()
            .any(|f| f == "_raw=bucket8 seq=1999 status=ok"),
        "{:?}",
        rows[0]
    );
    assert!(
        stats.events_scanned <= 200,
        "scanned {}",
        stats.events_scanned
    );
    assert!(
        stats.buckets_read <= 2,
        "read {} buckets",
        stats.buckets_read
    );
    assert!(stats
        .explain
        .iter()
        .any(|l| l.contains("not opened (search stopped early)")));
}

#[test]
fn newest_first_across_overlapping_buckets() {
    let dir = tempfile::tempdir().unwrap();
    // Three buckets whose time ranges interleave: bucket k holds times ≡ k (mod 3), one hot.
    let chunks: Vec<Chunk> = (0..3)
        .map(|k| Chunk {
            events: (0..50)
                .map(|i| {
                    let t = (1_600_000_000 + (i * 3 + k) as i64) * SEC + 500;
                    event(t, "h", "st", &format!("n={} k={k}", i * 3 + k))
                })
                .collect(),
            roll: k < 2,
        })
        .collect();
    write_index(dir.path(), "main", &chunks);
    let (mut rows, stats) = collect(dir.path(), &request("*", false)).unwrap();
    assert_eq!(rows.len(), 150);
    let times: Vec<i64> = rows.iter().map(|r| r.time().unwrap()).collect();
    assert!(
        times.windows(2).all(|w| w[0] > w[1]),
        "not strictly newest first"
    );
    assert_eq!(stats.events_matched, 150);
    let (mut slow, _) = collect(dir.path(), &request("*", true)).unwrap();
    assert_eq!(flatten(&mut rows), flatten(&mut slow));
}

/// A newest-first read whose term query decides the clause exactly merges keys and reads only
/// the events it emits (rule LAZY-ROWS, `scan::merge`): over four buckets that interleave in
/// time a `head` reads the rows it hands on (the first batch of 16, which the `head` then
/// cuts), not a first chunk of 16 in each bucket, and gives the naive twin's rows.
#[test]
fn interleaved_buckets_read_only_the_rows_emitted() {
    let dir = tempfile::tempdir().unwrap();
    // Bucket k holds times ≡ k (mod 4); `word` on every event, `odd` on odd numbers.
    let chunks: Vec<Chunk> = (0..4)
        .map(|k| Chunk {
            events: (0..300)
                .map(|i| {
                    let n = i * 4 + k;
                    let t = (1_600_000_000 + n as i64) * SEC;
                    let odd = if n % 2 == 1 { " odd" } else { "" };
                    event(t, "h", "st", &format!("n={n} word{odd}"))
                })
                .collect(),
            roll: k < 3,
        })
        .collect();
    write_index(dir.path(), "main", &chunks);
    for (q, rows_want, most_scanned) in [
        ("word | head 10", 10, 16),
        ("word odd | head 7", 7, 16),
        ("word | head 600", 600, 1200),
        ("word n=1199 | head 5", 1, 1200),
    ] {
        let (rows, stats) = same_as_naive(dir.path(), q);
        assert_eq!(rows.len(), rows_want, "{q}");
        assert!(
            stats.events_scanned <= most_scanned,
            "{q}: scanned {}",
            stats.events_scanned
        );
    }
}

#[test]
fn equal_times_have_one_deterministic_order() {
    let dir = tempfile::tempdir().unwrap();
    let t = 1_600_000_000 * SEC;
    let chunk = |w: &str, roll| Chunk {
        events: (0..5)
            .map(|i| event(t, "h", "st", &format!("{w} i={i}")))
            .collect(),
        roll,
    };
    write_index(
        dir.path(),
        "main",
        &[chunk("first", true), chunk("second", false)],
    );
    let (rows, _) = same_as_naive(dir.path(), "*");
    assert_eq!(rows.len(), 10);
    // Later bucket, then later event number, first.
    assert!(rows[0].iter().any(|f| f == "_raw=second i=4"));
    assert!(rows[9].iter().any(|f| f == "_raw=first i=0"));
}

#[test]
fn bloom_skips_buckets_without_the_term() {
    let dir = tempfile::tempdir().unwrap();
    sequential_corpus(dir.path(), 4, 50);
    let (rows, stats) = same_as_naive(dir.path(), "bucket2 | stats count");
    assert_eq!(rows, vec![vec!["count=50".to_string()]]);
    // Four other buckets (three warm with a bloom filter, one hot with an exact lexicon).
    assert_eq!(stats.buckets_skipped_bloom, 4, "{:#?}", stats.explain);
    assert_eq!(stats.buckets_read, 1);
    assert_eq!(stats.events_scanned, 50);
    assert!(stats
        .explain
        .iter()
        .any(|l| l.contains("bloom skip (no 'bucket2')")));
    assert!(stats
        .explain
        .iter()
        .any(|l| l.contains("index postings (50 candidates")));
}

#[test]
fn time_range_prunes_buckets_by_name() {
    let dir = tempfile::tempdir().unwrap();
    sequential_corpus(dir.path(), 4, 100);
    // Bucket 2 spans 1_600_000_200 ..= 1_600_000_299.
    let q = "earliest=1600000210 latest=1600000220 | stats count";
    let (rows, stats) = same_as_naive(dir.path(), q);
    assert_eq!(rows, vec![vec!["count=10".to_string()]]);
    assert_eq!(stats.buckets_pruned_time, 4, "{:#?}", stats.explain);
    assert_eq!(stats.events_candidate, 10);
    assert!(stats
        .explain
        .iter()
        .any(|l| l.contains("pruned by time (directory name)")));
}

#[test]
fn corrupt_bucket_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    sequential_corpus(dir.path(), 2, 20);
    let mut warm: Vec<_> = std::fs::read_dir(dir.path().join("main"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("db_"))
        .collect();
    warm.sort();
    for f in std::fs::read_dir(&warm[0]).unwrap() {
        let path = f.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        if let Some(b) = bytes.get_mut(mid) {
            *b ^= 0x5a;
        }
        std::fs::write(&path, bytes).unwrap();
    }
    for force in [false, true] {
        let (rows, stats) =
            collect(dir.path(), &request("status=ok | stats count", force)).unwrap();
        assert_eq!(
            flatten(&mut rows.clone()),
            vec![vec!["count=40".to_string()]],
            "force={force}"
        );
        assert_eq!(stats.buckets_corrupt, 1);
        assert_eq!(stats.warnings.len(), 1, "{:?}", stats.warnings);
        assert!(stats
            .explain
            .iter()
            .any(|l| l.starts_with("warning: bucket main/db_")));
    }
}

#[test]
fn index_selection_reads_only_named_indexes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, n) in [("main", 3), ("web", 4), ("_internal", 5)] {
        let events = (0..n)
            .map(|i| event((1_600_000_000 + i) * SEC, "h", "st", "x"))
            .collect();
        write_index(dir.path(), name, &[Chunk { events, roll: true }]);
    }
    let count = |q: &str| same_as_naive(dir.path(), q).0;
    assert_eq!(count("x | stats count"), vec![vec!["count=3".to_string()]]);
    assert_eq!(
        count("index=web x | stats count"),
        vec![vec!["count=4".to_string()]]
    );
    assert_eq!(
        count("index=* | stats count"),
        vec![vec!["count=7".to_string()]]
    );
    assert_eq!(
        count("index=_internal OR index=main | stats count"),
        vec![vec!["count=8".to_string()]]
    );
    assert!(count("index=nope | stats count")
        .iter()
        .all(|r| r == &vec!["count=0".to_string()]));
}

#[test]
fn parse_errors_surface_with_their_span() {
    let dir = tempfile::tempdir().unwrap();
    let err = collect(dir.path(), &request("error | nosuchcommand", false)).unwrap_err();
    match err {
        SearchError::Parse(e) => assert!(e.render("error | nosuchcommand").contains('^')),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn explain_shows_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    sequential_corpus(dir.path(), 1, 10);
    let (_, stats) = collect(dir.path(), &request("bucket0 fail* NOT debug", false)).unwrap();
    let text = stats.explain.join("\n");
    assert!(
        text.contains("term query: bucket0 AND fail* AND NOT debug"),
        "{text}"
    );
    assert!(text.contains("order: newest first"), "{text}");
}

/// Figures for the report (not asserted; `cargo test --release -- --ignored --nocapture`): the
/// 16 loghub samples (32 000 events) in 16 warm buckets, a rare term and a dense count through
/// the index path and the naive twin.
#[test]
#[ignore]
fn loghub_figures() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "log"));
    files.sort();
    let mut chunks = Vec::new();
    for (k, f) in files.iter().enumerate() {
        let host = f.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(f).unwrap();
        let events = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                event(
                    (1_600_000_000 + (k * 2000 + i) as i64) * SEC,
                    &host,
                    "loghub",
                    l,
                )
            })
            .collect();
        chunks.push(Chunk { events, roll: true });
    }
    write_index(dir.path(), "main", &chunks);
    for q in [
        "blk_-1030832046197982436",
        "error | stats count by host",
        "* | head 10",
    ] {
        for force in [false, true] {
            let start = std::time::Instant::now();
            let (rows, s) = collect(dir.path(), &request(q, force)).unwrap();
            println!(
                "{q:40} force_scan={force:5} rows={:4} buckets_read={:2} bloom_skips={:2} scanned={:6} in {:?}",
                rows.len(),
                s.buckets_read,
                s.buckets_skipped_bloom,
                s.events_scanned,
                start.elapsed()
            );
        }
    }
}

/// The read-ahead thread and inline preparation give the same rows, counts and explain lines,
/// and the naive twin's rows, whether the search reads everything or stops early.
#[test]
fn read_ahead_threaded_or_inline_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    sequential_corpus(dir.path(), 6, 500);
    for q in [
        "status=ok | head 5",
        "status=ok | head 1200",
        "bucket3 OR bucket5",
        "*",
    ] {
        let (mut slow, _) = collect(dir.path(), &request(q, true)).unwrap();
        let want = flatten(&mut slow);
        let mut seen = Vec::new();
        for read_ahead in [Some(true), Some(false), None] {
            let opts = lode_search::run::RunOptions {
                read_ahead,
                ..Default::default()
            };
            let (mut rows, stats) = collect_with(dir.path(), &request(q, false), &opts).unwrap();
            assert_eq!(flatten(&mut rows), want, "{q} {read_ahead:?}");
            seen.push((stats.buckets_read, stats.events_scanned, stats.explain));
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{q}: {seen:#?}");
    }
}

/// A newest-first read of a bucket over several roaring containers evaluates its term query a
/// window of containers at a time (rule NEWEST-WINDOW, `scan::candidates::Windowed`): rows,
/// however far a search reads, are the naive twin's, and a `head` on a common word counts only
/// the candidates of the containers it evaluated.
#[test]
fn windowed_reads_of_a_large_bucket_match_the_naive_twin() {
    let dir = tempfile::tempdir().unwrap();
    // Four streams of 50,000 events one after the other in arrival order (four containers of
    // event numbers), each over the same hour: the newest events lie at the end of each
    // stream, so a newest-first read needs all four containers' newest blocks.
    const STREAM: usize = 50_000;
    let events = (0..4 * STREAM)
        .map(|i| {
            let (s, k) = (i / STREAM, i % STREAM);
            let t = 1_600_000_000 * SEC + (k as i64 * 4 + s as i64) * SEC / 50;
            let mut raw = format!("s{s} n{k}");
            for (word, every) in [("common", 3), ("mid", 211), ("alpha", 2), ("beta", 5)] {
                if k % every == 0 {
                    raw.push(' ');
                    raw.push_str(word);
                }
            }
            if k == 7 || k == 40_000 {
                raw.push_str(" rare");
            }
            event(t, "web", "app", &raw)
        })
        .collect();
    write_index(dir.path(), "main", &[Chunk { events, roll: true }]);
    for q in [
        "common | head 10",
        "mid | head 30",
        "common mid | head 20",
        "alpha beta | head 10",
        "rare | head 5",
        // Only in containers the first window leaves out.
        "s0 | head 5",
        "s1 rare | head 5",
        "common NOT mid | head 50",
        "mid | head 700",
        "s2 mid",
        // A stream's run (dense in numbers, one piece) and a roaring word: intersected as
        // bitmaps from the roaring list on (`TermSource::terms_and`).
        "s3 alpha | head 20",
        "s0 beta alpha | head 30",
        "s1 alpha beta mid",
    ] {
        let (rows, stats) = same_as_naive(dir.path(), q);
        assert!(!rows.is_empty(), "{q}");
        if q == "common | head 10" {
            // The first window: the newest block's container (3: events 196,608–199,999),
            // then the next newest's (2, stream 2's end), 22,976 of the bucket's 66,668
            // candidates.
            assert_eq!(stats.events_candidate, 22_976, "{q}");
            let mut req = request(q, false);
            req.explain = true;
            let (_, stats) = collect(dir.path(), &req).unwrap();
            assert!(
                stats
                    .explain
                    .iter()
                    .any(|l| l
                        .contains("newest first by window (22976 candidates in the 68928 events")),
                "{:#?}",
                stats.explain
            );
        }
    }
}

/// Column blocks made of several stretches of ascending times (batches of two sources at
/// different times, their edges not on the 1,024-event blocks): a newest-first read keys the
/// newest candidates of each stretch and parks the rest (`scan::cursor::BlockOrder`), and
/// gives the naive twin's rows however far it reads, equal times included.
#[test]
fn blocks_of_several_ascending_stretches_read_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let (mut events, mut clock, mut seed) = (Vec::new(), [0i64; 2], 7u64);
    let mut batch = 0usize;
    while events.len() < 9_000 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let size = [1, 17, 300, 700, 64][(seed >> 33) as usize % 5];
        let source = batch % 2;
        for _ in 0..size {
            let i = events.len();
            // Two events a second per source, the second source a day later.
            let t = (1_600_000_000 + source as i64 * 86_400 + clock[source] / 2) * SEC;
            clock[source] += 1;
            let mut raw = format!("s{source} n{i}");
            for (word, every) in [("dense", 3), ("mid", 7)] {
                if i % every != 1 {
                    raw.push(' ');
                    raw.push_str(word);
                }
            }
            events.push(event(t, "h", "st", &raw));
        }
        batch += 1;
    }
    write_index(dir.path(), "main", &[Chunk { events, roll: true }]);
    for q in [
        "dense | head 1",
        "dense | head 10",
        "dense | head 100",
        "dense | head 1500",
        "mid | head 40",
        "dense mid | head 300",
        "s0 dense | head 20",
        "dense",
    ] {
        let (rows, _) = same_as_naive(dir.path(), q);
        assert!(!rows.is_empty(), "{q}");
    }
}
