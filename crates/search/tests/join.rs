//! `append`, `appendcols`, `union`, `join` and a mid-pipeline `collect` end to end, for what the
//! golden files cannot say: subsearch limits and their warnings, errors, index access rules
//! applied to nested searches, and what `collect` writes.

mod common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use common::*;
use lode_search::generate::collect::{CollectHandle, CollectSink};
use lode_search::plan::index::IndexAccess;
use lode_search::row::Row;
use lode_search::run::{RunOptions, SearchStats};
use lode_search::SearchError;

/// `etc/` and an index root with `main` (4 events) and `secret` (2 events).
struct Home {
    _dir: tempfile::TempDir,
    etc: PathBuf,
    root: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let etc = dir.path().join("etc");
        let root = dir.path().join("var/lib/lode");
        std::fs::create_dir_all(&etc).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        let ev =
            |dt: i64, host: &str, raw: &str| event((NOW_SECS - 1000 + dt) * SEC, host, "app", raw);
        write_index(
            &root,
            "main",
            &[Chunk {
                events: vec![
                    ev(0, "web01", "user=alice status=200"),
                    ev(10, "web02", "user=bob status=404"),
                    ev(20, "web01", "user=carol status=200"),
                    ev(30, "db01", "user=alice status=500"),
                ],
                roll: false,
            }],
        );
        write_index(
            &root,
            "secret",
            &[Chunk {
                events: vec![
                    ev(5, "vault", "user=alice clearance=top"),
                    ev(15, "vault", "user=bob clearance=low"),
                ],
                roll: false,
            }],
        );
        Home {
            _dir: dir,
            etc,
            root,
        }
    }

    fn opts(&self) -> RunOptions {
        RunOptions {
            batch_search_max_pipeline: 2,
            etc_dir: Some(self.etc.clone()),
            ..RunOptions::default()
        }
    }

    fn run_with(&self, q: &str, opts: &RunOptions) -> Result<(Vec<Row>, SearchStats), SearchError> {
        collect_with(&self.root, &request(q, false), opts)
    }

    fn csv(&self, q: &str, opts: &RunOptions) -> (Vec<String>, Vec<String>) {
        let (rows, stats) = self
            .run_with(q, opts)
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        (to_csv(&rows, stats.transforming), stats.warnings)
    }

    fn err(&self, q: &str) -> String {
        match self.run_with(q, &self.opts()) {
            Ok((rows, _)) => panic!("{q}: expected an error, got {} rows", rows.len()),
            Err(e) => e.to_string(),
        }
    }
}

#[test]
fn nested_searches_obey_index_access_rules() {
    let h = Home::new();
    let open = h.opts();
    let restricted = RunOptions {
        access: Some(IndexAccess {
            allowed: vec!["main".into()],
            default: vec!["main".into()],
        }),
        ..h.opts()
    };
    let queries = [
        "index=main | stats count | append [search index=secret | stats count]",
        "index=main | stats count by user | join user [search index=secret | table user clearance]",
        "index=main | stats count | appendcols [search index=secret | stats count AS secrets]",
        "| union index=secret [search index=secret] | stats count",
    ];
    let unrestricted: Vec<_> = queries.iter().map(|q| h.csv(q, &open).0).collect();
    assert_eq!(unrestricted[0], ["count", "4", "2"]);
    assert_eq!(
        unrestricted[1],
        ["user,count,clearance", "alice,2,top", "bob,1,low"]
    );
    assert_eq!(unrestricted[2], ["count,secrets", "4,2"]);
    assert_eq!(unrestricted[3], ["count", "4"]);
    let limited: Vec<_> = queries.iter().map(|q| h.csv(q, &restricted).0).collect();
    assert_eq!(limited[0], ["count", "4", "0"]);
    // Nothing joins: no rows, no columns.
    assert_eq!(limited[1], [""]);
    assert_eq!(limited[2], ["count,secrets", "4,0"]);
    assert_eq!(limited[3], ["count", "0"]);
}

#[test]
fn join_subsearch_is_limited_by_limits_conf() {
    let h = Home::new();
    let local = h.etc.join("system/local");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("limits.conf"), "[join]\nsubsearch_maxout = 1\n").unwrap();
    // Newest first: the subsearch keeps only alice's row on db01.
    let (rows, warnings) = h.csv(
        "index=main | stats count by user | join type=left user [search index=main | table user host]",
        &h.opts(),
    );
    assert_eq!(
        rows,
        ["user,count,host", "alice,2,db01", "bob,1,", "carol,1,"]
    );
    assert_eq!(
        warnings,
        ["[subsearch]: Subsearch produced 4 results, truncating to maxout 1."]
    );
    std::fs::write(
        local.join("limits.conf"),
        "[join]\nsubsearch_maxout = lots\n",
    )
    .unwrap();
    assert!(h
        .err("index=main | join user [search index=secret]")
        .contains("limits.conf [join] subsearch_maxout = lots"));
}

#[test]
fn append_maxout_truncates_with_a_warning() {
    let h = Home::new();
    let (rows, warnings) = h.csv(
        "index=main | stats count | append maxout=1 [search index=secret | table user]",
        &h.opts(),
    );
    assert_eq!(rows, ["count,user", "4,", ",bob"]);
    assert_eq!(
        warnings,
        ["[subsearch]: Subsearch produced 2 results, truncating to maxout 1."]
    );
    // Under the default limit nothing is said.
    let (_, warnings) = h.csv("index=main | append [search index=secret]", &h.opts());
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn event_results_keep_their_order_and_fields() {
    let h = Home::new();
    // Event searches: the main events newest first, then the subsearch's.
    let (rows, _) = h.csv(
        "index=main status=200 | append [search index=secret user=bob] | table host user",
        &h.opts(),
    );
    assert_eq!(
        rows,
        ["host,user", "web01,carol", "web01,alice", "vault,bob"]
    );
    // Joined event rows get the subsearch's extracted fields.
    let (rows, _) = h.csv(
        "index=main | join user [search index=secret] | table user status clearance",
        &h.opts(),
    );
    assert_eq!(
        rows,
        [
            "user,status,clearance",
            "alice,500,top",
            "bob,404,low",
            "alice,200,top"
        ]
    );
}

#[test]
fn after_generating_commands_too() {
    let h = Home::new();
    let (rows, _) = h.csv(
        "| tstats count where index=main | append [| tstats count where index=secret]",
        &h.opts(),
    );
    assert_eq!(rows, ["count", "4", "2"]);
    let (rows, _) = h.csv(
        "| makeresults | eval user=\"bob\" | join user [search index=secret] | table user clearance",
        &h.opts(),
    );
    assert_eq!(rows, ["user,clearance", "bob,low"]);
}

#[test]
fn errors_are_clear() {
    let h = Home::new();
    assert!(h
        .err("index=main | join usetime=t user [search index=secret]")
        .contains("usetime"));
    assert_eq!(
        h.err("index=main | append [search index=secret | nosuch]"),
        "Unknown search command 'nosuch'."
    );
    // A nested subsearch is checked when it runs; the message names the command.
    let e = h.err("index=main | append [search [search index=secret | fields user] | nosuch]");
    assert!(
        e.contains("Error in 'append' command: subsearch: Unknown search command 'nosuch'."),
        "{e}"
    );
    assert!(h
        .err("index=main | join user")
        .contains("'join' needs a subsearch in square brackets."));
}

/// A sink that keeps what `collect` writes.
#[derive(Default)]
struct Recorder(Mutex<Vec<lode_event::Event>>);

impl CollectSink for Recorder {
    fn write(&self, events: Vec<lode_event::Event>) -> Result<u64, String> {
        let n = events.len() as u64;
        self.0.lock().unwrap().extend(events);
        Ok(n)
    }
}

#[test]
fn collect_before_the_last_command_writes_and_passes_rows_on() {
    let h = Home::new();
    std::fs::create_dir_all(h.root.join("summary")).unwrap();
    let rec = Arc::new(Recorder::default());
    let opts = RunOptions {
        collect: Some(CollectHandle(rec.clone())),
        ..h.opts()
    };
    let (rows, _) = h.csv(
        "index=main | stats count by host | collect index=summary | eval n=count*10 | table host n",
        &opts,
    );
    assert_eq!(rows, ["host,n", "db01,10", "web01,20", "web02,10"]);
    let written = rec.0.lock().unwrap().clone();
    assert_eq!(written.len(), 3);
    assert_eq!(
        written[1].raw,
        "11/14/2023 22:13:20 +0000, host=\"web01\", count=\"2\""
    );
    assert_eq!(written[1].index, "summary");
    // Event searches too (newest first), rows unchanged.
    let (rows, _) = h.csv(
        "index=main status=200 | collect index=summary | table user",
        &opts,
    );
    assert_eq!(rows, ["user", "carol", "alice"]);
    assert_eq!(rec.0.lock().unwrap().len(), 5);
    assert_eq!(rec.0.lock().unwrap()[3].raw, "user=carol status=200");
    // Still needs a sink and an existing index.
    assert!(h
        .err("index=main | collect index=summary | head 1")
        .contains("cannot write to indexes"));
    assert!(h
        .err("index=main | collect index=nope | head 1")
        .contains("The index 'nope' does not exist."));
}
