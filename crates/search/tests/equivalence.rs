//! The equivalence property (STYLE practice 7): for random small corpora written with the real
//! index writer (warm and hot buckets overlapping in time, two indexes) and random searches, the
//! index path (`force_scan = false`: time pruning, bloom, postings, k-way merge) returns exactly
//! the rows of the naive twin (`force_scan = true`: every event through the matcher), with 1, 2
//! and 4 batch pipelines.

mod common;

use common::*;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "error",
    "Error",
    "warn",
    "info",
    "fail",
    "failed",
    "failure",
    "user",
    "admin",
    "10.0.0.1",
    "10.0.0.2",
    "a-b",
    "x.y.z",
    "login",
    "logout",
    "GET",
    "/api/v1",
    "disk",
    "status=200",
    "status=404",
    "status=ok",
    "user=bob",
    "user=Alice",
    "code=E1",
    "[core]",
    "(x)",
    "rc=0.5",
    "foo;bar;baz",
];
const HOSTS: &[&str] = &["web01", "web02", "db01"];
const SOURCETYPES: &[&str] = &["access", "syslog"];
const INDEXES: &[&str] = &["main", "web"];
const BASE_SECS: i64 = 1_600_000_000;

const ATOMS: &[&str] = &[
    "error",
    "ERROR",
    "fail",
    "failed",
    "login",
    "10.0.0.1",
    "x.y.z",
    "a-b",
    "admin",
    "nothere",
    "fail*",
    "log*",
    "10.0.*",
    "e*",
    "*ail*",
    "*rror",
    "f*d",
    "*",
    "\"user admin\"",
    "\"failed login\"",
    "\"0.0.1\"",
    "\"error\"",
    "\"rror wa\"",
    "host=web01",
    "host=web0*",
    "host=*2",
    "sourcetype=access",
    "sourcetype=sys*",
    "status=404",
    "status=ok",
    "user=bob",
    "user=ALICE",
    "code=E1",
    "status!=200",
    "status>300",
    "rc=0.5",
    "TERM(10.0.0.1)",
    "CASE(ERROR)",
    "CASE(error)",
    "CASE(Fail*)",
    "CASE(\"user admin\")",
    "```a comment``` error",
    "status IN (404, ok, \"5*\")",
    "user=*",
    "NOT user=bob",
    "user!=bob",
    "index=main",
    "index=web",
    "index=*",
    "earliest=1600000100",
    "latest=1600000400",
    "_index_earliest=1600000100",
    "_index_latest=1600000400",
    "\"[core]\"",
    "foo;bar",
    "bar;baz",
];
const SUFFIXES: &[&str] = &[
    "",
    "",
    " | head 3",
    " | stats count by host",
    " | stats count",
    " | head 7 | stats count by sourcetype",
    " | dedup host",
    " | top host",
    " | top limit=2 sourcetype by host",
    " | rare host",
    " | stats count dc(source) values(host) max(sourcetype) by sourcetype, index",
    " | rare limit=1 sourcetype by source",
    " | timechart count by host",
    " | timechart limit=1 count by sourcetype",
    " | stats dc(host) max(_time) earliest(host) by sourcetype",
    " | eval n=len(_raw) | where n > 20 | stats count by index | sort - count",
];

/// One generated event: time offset (ms), host, sourcetype, index, words.
type GenEvent = (u32, usize, usize, usize, Vec<usize>);

fn gen_event() -> impl Strategy<Value = GenEvent> {
    (
        0u32..600_000,
        0..HOSTS.len(),
        0..SOURCETYPES.len(),
        0..INDEXES.len(),
        prop::collection::vec(0..WORDS.len(), 1..6),
    )
}

fn clause() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(ATOMS).prop_map(str::to_string);
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("NOT {a}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} OR {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} {b}")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("{a} AND {b}")),
        ]
    })
}

fn query() -> impl Strategy<Value = String> {
    (clause(), prop::sample::select(SUFFIXES)).prop_map(|(c, s)| format!("{c}{s}"))
}

/// Writes the corpus: per index, the events in generated order, split into chunks after the
/// given positions; each chunk but maybe the last rolled to warm.
fn write_corpus(root: &std::path::Path, events: &[GenEvent], splits: &[(usize, bool)]) {
    for (ix, name) in INDEXES.iter().enumerate() {
        let evs: Vec<_> = events
            .iter()
            .filter(|e| e.3 == ix)
            .map(|(ms, h, st, _, words)| {
                let raw: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
                let t = BASE_SECS * SEC + i64::from(*ms) * 1000;
                event(t, HOSTS[*h], SOURCETYPES[*st], &raw.join(" "))
            })
            .collect();
        let mut chunks = Vec::new();
        let mut start = 0;
        for &(at, roll) in splits {
            let end = (start + at).min(evs.len());
            chunks.push(Chunk {
                events: evs[start..end].to_vec(),
                roll,
            });
            start = end;
        }
        chunks.push(Chunk {
            events: evs[start..].to_vec(),
            roll: false,
        });
        chunks.retain(|c| !c.events.is_empty() || c.roll);
        write_index(root, name, &chunks);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn index_path_equals_naive_twin(
        events in prop::collection::vec(gen_event(), 1..70),
        splits in prop::collection::vec((1usize..25, any::<bool>()), 0..4),
        queries in prop::collection::vec(query(), 8),
    ) {
        let dir = tempfile::tempdir().unwrap();
        write_corpus(dir.path(), &events, &splits);
        for q in &queries {
            let slow = collect(dir.path(), &request(q, true));
            let (mut slow, _) = slow.map_err(|e| TestCaseError::fail(format!("{q}: {e}")))?;
            let slow = flatten(&mut slow);
            for &n in PIPELINES {
                let fast = collect_with(dir.path(), &request(q, false), &pipelines(n));
                let (mut fast, stats) = match fast {
                    Ok(r) => r,
                    Err(e) => return Err(TestCaseError::fail(format!("{q}: {e}"))),
                };
                prop_assert_eq!(
                    &flatten(&mut fast),
                    &slow,
                    "query {} with {} pipelines, explain {:#?}",
                    q,
                    n,
                    stats.explain
                );
            }
        }
    }
}
