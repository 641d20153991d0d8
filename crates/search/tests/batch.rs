//! Batch mode: split searches read buckets with several pipelines and merge partial states.
//! Rows, stats and explain lines must not depend on the number of pipelines; corrupt buckets are
//! still skipped; limits hold over the merged state, not per worker.

mod common;

use common::*;
use lode_search::ops::Limits;
use lode_search::run::RunOptions;
use lode_search::SearchError;

/// `n` warm buckets and a hot one of `per` events each, one event per second; event `i` of
/// bucket `b` has host `h<b>-<i % hosts>` (so every bucket has its own hosts) and user `u<i%5>`.
fn corpus(root: &std::path::Path, n: usize, per: usize, hosts: usize) {
    let chunks: Vec<Chunk> = (0..=n)
        .map(|b| Chunk {
            events: (0..per)
                .map(|i| {
                    let t = ((b * per + i) as i64 + 1_600_000_000) * SEC;
                    event(
                        t,
                        &format!("h{b}-{}", i % hosts),
                        "app",
                        &format!("bucket{b} seq={i} user=u{} bytes={}", i % 5, i * 3),
                    )
                })
                .collect(),
            roll: b < n,
        })
        .collect();
    write_index(root, "main", &chunks);
}

/// Runs `q` with 1, 2 and 4 pipelines; asserts rows, stats and explain agree; returns them.
fn same_for_all_pipelines(
    root: &std::path::Path,
    q: &str,
) -> (Vec<Vec<String>>, lode_search::run::SearchStats) {
    let mut first: Option<(Vec<Vec<String>>, lode_search::run::SearchStats)> = None;
    for &n in PIPELINES {
        let (mut rows, mut stats) = collect_with(root, &request(q, false), &pipelines(n)).unwrap();
        let rows = flatten(&mut rows);
        // The explain line naming the order mentions the pipeline count; the rest must agree.
        stats.explain.retain(|l| !l.starts_with("order:"));
        match &first {
            None => first = Some((rows, stats)),
            Some((r0, s0)) => {
                assert_eq!(&rows, r0, "{q}: rows differ with {n} pipelines");
                assert_eq!(&stats, s0, "{q}: stats differ with {n} pipelines");
            }
        }
    }
    first.expect("at least one pipeline count")
}

#[test]
fn results_do_not_depend_on_pipelines() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 9, 300, 3);
    for q in [
        "seq=* | stats count sum(bytes) avg(bytes) dc(user) by user",
        "* | top limit=3 user",
        "* | rare host",
        "* | timechart span=10m count by user",
        "* | timechart count",
        "bucket3 OR bucket7 | stats earliest(seq) latest(seq) min(bytes) max(bytes)",
        "* | eval k=bytes % 7 | stats count by k | sort - count | head 3",
    ] {
        let (rows, stats) = same_for_all_pipelines(dir.path(), q);
        assert!(!rows.is_empty(), "{q}");
        let (mut naive, _) = collect(dir.path(), &request(q, true)).unwrap();
        assert_eq!(
            rows,
            flatten(&mut naive),
            "{q}: differs from the naive twin"
        );
        assert!(stats.transforming);
    }
    let (_, stats) = same_for_all_pipelines(dir.path(), "* | stats count");
    assert_eq!(stats.buckets_read, 10);
    assert_eq!(stats.events_matched, 3000);
}

#[test]
fn explain_names_the_batch_pipelines() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 2, 10, 2);
    let (_, stats) = collect_with(
        dir.path(),
        &request("* | stats count by host", false),
        &pipelines(3),
    )
    .unwrap();
    assert!(
        stats
            .explain
            .iter()
            .any(|l| l == "order: batch, 3 pipelines (partial/final split)"),
        "{:?}",
        stats.explain
    );
    let (_, stats) = collect(dir.path(), &request("* | head 2 | stats count", false)).unwrap();
    assert!(stats
        .explain
        .iter()
        .any(|l| l.starts_with("order: newest first")));
}

#[test]
fn corrupt_bucket_is_skipped_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 5, 20, 2);
    let mut warm: Vec<_> = std::fs::read_dir(dir.path().join("main"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("db_"))
        .collect();
    warm.sort();
    for f in std::fs::read_dir(&warm[2]).unwrap() {
        let path = f.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        if let Some(b) = bytes.get_mut(mid) {
            *b ^= 0x5a;
        }
        std::fs::write(&path, bytes).unwrap();
    }
    let (rows, stats) = same_for_all_pipelines(dir.path(), "seq=* | stats count");
    assert_eq!(rows, vec![vec!["count=100".to_string()]]);
    assert_eq!(stats.buckets_corrupt, 1);
    assert_eq!(stats.warnings.len(), 1, "{:?}", stats.warnings);
}

#[test]
fn group_limit_holds_across_workers() {
    let dir = tempfile::tempdir().unwrap();
    // 8 buckets × 10 hosts each = 80 groups; each bucket alone stays under the limit.
    corpus(dir.path(), 7, 40, 10);
    let limited = |max_groups: usize, n: usize| RunOptions {
        batch_search_max_pipeline: n,
        limits: Limits {
            max_groups,
            ..Limits::default()
        },
        ..RunOptions::default()
    };
    for q in [
        "* | stats count by host",
        "* | top host",
        "* | timechart span=1s count",
    ] {
        for &n in PIPELINES {
            let r = collect_with(dir.path(), &request(q, false), &limited(50, n));
            assert!(
                matches!(r, Err(SearchError::Limit(_))),
                "{q} with {n} pipelines: {:?}",
                r.map(|(rows, _)| rows.len())
            );
        }
    }
    for &n in PIPELINES {
        let (rows, _) = collect_with(
            dir.path(),
            &request("* | stats count by host", false),
            &limited(80, n),
        )
        .unwrap();
        assert_eq!(rows.len(), 80);
    }
}
