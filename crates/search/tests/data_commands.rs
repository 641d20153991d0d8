//! Data commands end to end: generating commands (`makeresults`, `gentimes`, `inputlookup`,
//! `tstats`, `metadata`) and CSV lookups (`lookup`, `outputlookup`) over a real `$LODE_HOME`
//! layout (`etc/` for lookups and `transforms.conf`, `var/lib/lode` for indexes).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use lode_search::row::Row;
use lode_search::run::{RunOptions, SearchStats};
use lode_search::SearchError;

/// A home: `etc/` and the index root.
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
        Home {
            _dir: dir,
            etc,
            root,
        }
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.etc.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn opts(&self, pipelines: usize) -> RunOptions {
        RunOptions {
            batch_search_max_pipeline: pipelines,
            etc_dir: Some(self.etc.clone()),
            ..RunOptions::default()
        }
    }

    fn run(&self, q: &str) -> Result<(Vec<Row>, SearchStats), SearchError> {
        collect_with(&self.root, &request(q, false), &self.opts(1))
    }

    /// CSV lines of `q`; the same with 1, 2 and 4 pipelines and the naive scan.
    fn csv(&self, q: &str) -> Vec<String> {
        let mut first: Option<Vec<String>> = None;
        let ways = PIPELINES.iter().map(|&n| (false, n)).chain([(true, 1)]);
        for (force_scan, n) in ways {
            let (rows, stats) = collect_with(&self.root, &request(q, force_scan), &self.opts(n))
                .unwrap_or_else(|e| panic!("{q}: {e}"));
            let got = to_csv(&rows, stats.transforming);
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(&got, f, "{q}: {n} pipelines, naive={force_scan}"),
            }
        }
        first.unwrap_or_default()
    }

    fn err(&self, q: &str) -> String {
        match self.run(q) {
            Ok((rows, _)) => panic!("{q}: expected an error, got {} rows", rows.len()),
            Err(e) => e.to_string(),
        }
    }
}

fn web_events(root: &Path) {
    let evs = [
        (0, "web01", "GET /a status=200 user=alice ip=10.1.2.3"),
        (60, "web02", "GET /b status=404 user=BOB ip=192.168.0.9"),
        (120, "web01", "POST /c status=500 user=carol ip=10.9.9.9"),
        (180, "db01", "query slow user=dave ip=172.16.0.1"),
    ];
    let events: Vec<_> = evs
        .iter()
        .map(|(dt, h, raw)| event((NOW_SECS - 1000 + dt) * SEC, h, "access", raw))
        .collect();
    write_index(
        root,
        "main",
        &[
            Chunk {
                events: events[..2].to_vec(),
                roll: true,
            },
            Chunk {
                events: events[2..].to_vec(),
                roll: false,
            },
        ],
    );
}

#[test]
fn makeresults_rows_annotate_and_errors() {
    let h = Home::new();
    assert_eq!(
        h.csv("| makeresults"),
        vec!["_time".to_string(), NOW_SECS.to_string()]
    );
    assert_eq!(
        h.csv("| makeresults count=2 annotate=t | eval a=1"),
        vec![
            "_time,splunk_server,a".to_string(),
            format!("{NOW_SECS},lode,1"),
            format!("{NOW_SECS},lode,1"),
        ]
    );
    assert_eq!(h.csv("| makeresults count=0 | stats count"), ["count", "0"]);
    assert_eq!(
        h.err("| makeresults | makeresults"),
        "Error in 'makeresults' command: This command must be the first command of a search."
    );
    assert!(h.err("| makeresults count=x").contains("Invalid count 'x'"));
}

#[test]
fn gentimes_relative_days_and_default_end() {
    let h = Home::new();
    // now = 2023-11-14T22:13:20Z: today's midnight is 1699920000; the default end is it.
    let rows = h.csv("| gentimes start=-2 | table starttime");
    assert_eq!(rows, ["starttime", "1699747200", "1699833600"]);
    assert!(h
        .err("| gentimes start=13/45/2023")
        .contains("Invalid timestamp specified for start"));
    assert_eq!(h.csv("| gentimes start=0 | stats count"), ["count", "0"]);
}

fn users_lookup(h: &Home) {
    h.write(
        "apps/search/lookups/users.csv",
        "uid,name,team\nalice,Alice A,web\nbob,Bob B,web\ncarol,Carol C,\nalice,Alice Again,ops\n",
    );
    h.write(
        "apps/search/local/transforms.conf",
        "[users]\nfilename = users.csv\ncase_sensitive_match = false\nmax_matches = 1\n\n\
         [nets]\nfilename = nets.csv\nmatch_type = CIDR(net)\nmin_matches = 1\ndefault_match = outside\n\n\
         [hosts]\nfilename = hosts.csv\nmatch_type = WILDCARD(pattern)\n",
    );
    h.write(
        "system/lookups/nets.csv",
        "net,zone\n10.0.0.0/8,corp\n192.168.0.0/16,lab\n",
    );
    h.write(
        "apps/search/lookups/hosts.csv",
        "pattern,role\nweb*,frontend\ndb*,database\n",
    );
}

#[test]
fn lookup_definitions_files_and_outputs() {
    let h = Home::new();
    web_events(&h.root);
    users_lookup(&h);
    // Definition: case-insensitive, first match only.
    assert_eq!(
        h.csv("* | lookup users uid AS user OUTPUT name | table user name"),
        [
            "user,name",
            "dave,",
            "carol,Carol C",
            "BOB,Bob B",
            "alice,Alice A"
        ]
    );
    // File: case-sensitive, every match (multivalue), all other columns without OUTPUT.
    assert_eq!(
        h.csv("* | lookup users.csv uid AS user | table user name team"),
        [
            "user,name,team",
            "dave,,",
            "carol,Carol C,",
            "BOB,,",
            "alice,\"Alice A\nAlice Again\",\"web\nops\""
        ]
    );
    // CIDR with a default for misses; wildcard patterns; a lookup before stats runs on every
    // worker.
    assert_eq!(
        h.csv("* | lookup nets net AS ip OUTPUT zone | lookup hosts pattern AS host OUTPUT role | stats count by zone role"),
        [
            "zone,role,count",
            "corp,frontend,2",
            "lab,frontend,1",
            "outside,database,1"
        ]
    );
    // OUTPUTNEW keeps existing values.
    assert_eq!(
        h.csv("* | eval name=if(user==\"carol\", \"mine\", null()) | lookup users uid AS user OUTPUTNEW name | table user name"),
        [
            "user,name",
            "dave,",
            "carol,mine",
            "BOB,Bob B",
            "alice,Alice A"
        ]
    );
    assert!(h
        .err("* | lookup nope uid AS user")
        .contains("The lookup table 'nope' does not exist or is not available."));
    assert!(h
        .err("* | lookup users missing AS user")
        .contains("Could not find the field 'missing'"));
    assert!(h
        .err("* | lookup ../../secret.csv uid")
        .contains("Invalid lookup file name"));
    let no_etc = collect_with(
        &h.root,
        &request("* | lookup users uid", false),
        &RunOptions::default(),
    );
    assert!(no_etc.unwrap_err().to_string().contains("$LODE_HOME/etc"));
}

#[test]
fn inputlookup_filters_ranges_and_append() {
    let h = Home::new();
    users_lookup(&h);
    assert_eq!(
        h.csv("| inputlookup users"),
        [
            "uid,name,team",
            "alice,Alice A,web",
            "bob,Bob B,web",
            "carol,Carol C,",
            "alice,Alice Again,ops"
        ]
    );
    assert_eq!(
        h.csv("| inputlookup users.csv where team=web uid=b* | table name"),
        ["name", "Bob B"]
    );
    assert_eq!(
        h.csv("| inputlookup start=1 max=2 users | table uid"),
        ["uid", "bob", "carol"]
    );
    assert_eq!(
        h.csv("| makeresults | eval uid=\"first\" | inputlookup append=t users where uid=carol | table uid"),
        ["uid", "first", "carol"]
    );
    assert!(h.err("| inputlookup nope.csv").contains("does not exist"));
}

#[test]
fn outputlookup_writes_appends_and_reads_back() {
    let h = Home::new();
    web_events(&h.root);
    assert_eq!(
        h.csv("* | stats count by host | outputlookup hosts_seen.csv"),
        ["host,count", "db01,1", "web01,2", "web02,1"]
    );
    let path = h.etc.join("apps/search/lookups/hosts_seen.csv");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "host,count\ndb01,1\nweb01,2\nweb02,1\n"
    );
    h.run("| makeresults | eval host=\"new\", extra=\"x\" | fields - _time | outputlookup append=t hosts_seen.csv")
        .unwrap();
    assert_eq!(
        h.csv("| inputlookup hosts_seen.csv"),
        [
            "host,count,extra",
            "db01,1,",
            "web01,2,",
            "web02,1,",
            "new,,x"
        ]
    );
    // Empty results: the file stays with override_if_empty=f, is emptied otherwise.
    h.run("| makeresults count=0 | outputlookup override_if_empty=f hosts_seen.csv")
        .unwrap();
    assert!(path.metadata().unwrap().len() > 20);
    h.run("| makeresults count=0 | outputlookup hosts_seen.csv")
        .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    h.run("| makeresults count=0 | outputlookup create_empty=f never.csv")
        .unwrap();
    assert!(!h.etc.join("apps/search/lookups/never.csv").exists());
    // Through a definition, into its filename.
    h.write(
        "system/local/transforms.conf",
        "[seen]\nfilename = seen_def.csv\n",
    );
    h.run("| makeresults | eval a=1 | outputlookup seen")
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(h.etc.join("apps/search/lookups/seen_def.csv")).unwrap(),
        "_time,a\n1700000000,1\n"
    );
    assert!(h
        .err("| makeresults | outputlookup ../x.csv")
        .contains("Invalid lookup file name"));
    // No temporary files left behind.
    let left: Vec<_> = std::fs::read_dir(h.etc.join("apps/search/lookups"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(left.is_empty());
}

fn second_index(root: &Path) {
    let events: Vec<_> = (0..6)
        .map(|i| {
            let mut e = event(
                (NOW_SECS - 5000 + i * 700) * SEC,
                if i % 2 == 0 { "app1" } else { "app2" },
                if i < 3 { "json" } else { "text" },
                &format!("line {i} status={}", 200 + i),
            );
            e.source = format!("/var/log/app{}.log", i % 3).into();
            e
        })
        .collect();
    write_index(
        root,
        "web",
        &[
            Chunk {
                events: events[..4].to_vec(),
                roll: true,
            },
            Chunk {
                events: events[4..].to_vec(),
                roll: false,
            },
        ],
    );
}

#[test]
fn tstats_equals_search_stats_from_the_index_alone() {
    let h = Home::new();
    web_events(&h.root);
    second_index(&h.root);
    let pairs = [
        ("| tstats count", "* | stats count"),
        (
            "| tstats count where index=main by host",
            "index=main | stats count by host",
        ),
        (
            "| tstats count dc(host) AS hosts where index=* host=web* OR host=app1 by sourcetype",
            "index=* host=web* OR host=app1 | stats count dc(host) AS hosts by sourcetype",
        ),
        (
            "| tstats count where index=* by index, source",
            "index=* | stats count by index, source",
        ),
        (
            "| tstats min(_time) AS first max(_time) AS last values(sourcetype) where index=web by host",
            "index=web | stats min(_time) AS first max(_time) AS last values(sourcetype) by host",
        ),
        (
            "| tstats count where index=nothing",
            "index=nothing | stats count",
        ),
    ];
    for (t, s) in pairs {
        assert_eq!(h.csv(t), h.csv(s), "{t}");
    }
    let (_, stats) = h.run("| tstats count where index=* by host").unwrap();
    assert!(
        stats
            .explain
            .iter()
            .any(|l| l.starts_with("tstats: answered as") || l.contains("stats pushdown")),
        "{:?}",
        stats.explain
    );
    assert!(stats
        .explain
        .iter()
        .any(|l| l.contains("stats pushdown") || l.contains("no raw slice")));
    // With _time: one row per time bucket and value that has events.
    assert_eq!(
        h.csv("| tstats count by _time span=1m"),
        [
            "_time,count",
            "1699998960,1",
            "1699999020,1",
            "1699999080,1",
            "1699999140,1"
        ]
    );
    assert_eq!(
        h.csv("| tstats count where index=main by _time, host span=1h | eval n=count*10"),
        [
            "_time,host,count,n",
            "1699995600,db01,1,10",
            "1699995600,web01,2,20",
            "1699995600,web02,1,10"
        ]
    );
    assert_eq!(
        h.csv("| tstats count where index=web by sourcetype, _time span=1h"),
        [
            "sourcetype,_time,count",
            "json,1699992000,1",
            "json,1699995600,2",
            "text,1699995600,3"
        ]
    );
    // `status` and `user` are not index-time fields here: no event has them, as in Splunk.
    assert_eq!(h.csv("| tstats count where status=200"), ["count", "0"]);
    assert_eq!(h.csv("| tstats count by user"), [""], "no rows");
    assert!(h
        .err("| tstats count sum(host) by host, _time")
        .contains("give span="));
    assert_eq!(
        h.csv("| tstats count dc(source) where index=* by _time, index, host span=1h"),
        h.csv("index=* | bin _time span=1h | stats count dc(source) by _time, index, host")
    );
}

#[test]
fn metadata_from_bucket_metadata() {
    let h = Home::new();
    web_events(&h.root);
    second_index(&h.root);
    assert_eq!(
        h.csv("| metadata type=hosts"),
        [
            "firstTime,host,lastTime,recentTime,totalCount,type",
            "1699999180,db01,1699999180,1699999180,1,hosts",
            "1699999000,web01,1699999120,1699999120,2,hosts",
            "1699999060,web02,1699999060,1699999060,1,hosts"
        ]
    );
    assert_eq!(
        h.csv("| metadata type=sourcetypes index=web index=main | sort - totalCount | table sourcetype totalCount"),
        [
            "sourcetype,totalCount",
            "access,4",
            "json,3",
            "text,3"
        ]
    );
    assert_eq!(
        h.csv("| metadata type=sources index=w*"),
        [
            "firstTime,source,lastTime,recentTime,totalCount,type",
            "1699995000,/var/log/app0.log,1699997100,1699997100,2,sources",
            "1699995700,/var/log/app1.log,1699997800,1699997800,2,sources",
            "1699996400,/var/log/app2.log,1699998500,1699998500,2,sources"
        ]
    );
    // The time range leaves out values with no event in it.
    let mut req = request("| metadata type=hosts index=web", false);
    req.earliest = Some("1699997500".into());
    let (rows, _) = collect_with(&h.root, &req, &h.opts(1)).unwrap();
    // (Per-bucket statistics: the hot bucket's app1 and app2 only.)
    assert_eq!(
        to_csv(&rows, true)[1..],
        [
            "1699997800,app1,1699997800,1699997800,1,hosts",
            "1699998500,app2,1699998500,1699998500,1,hosts"
        ]
    );
}

#[test]
fn outputcsv_inputcsv_round_trip_under_var_run() {
    let h = Home::new();
    web_events(&h.root);
    h.run("* | table host status | outputcsv results").unwrap();
    let file = h.etc.parent().unwrap().join("var/run/lode/csv/results.csv");
    assert!(file.is_file());
    assert_eq!(
        h.csv("| inputcsv results where status>=404"),
        ["host,status", "web01,500", "web02,404"]
    );
    assert_eq!(
        h.csv("| inputcsv max=1 results.csv | table host"),
        ["host", "db01"]
    );
    assert_eq!(
        h.csv("| makeresults | eval host=\"x\" | inputcsv append=t start=3 results | table host"),
        ["host", "x", "web01"]
    );
    assert!(h.err("| inputcsv missing").contains("could not be opened"));
    assert!(h
        .err("* | outputcsv ../../etc/passwd")
        .contains("Invalid lookup file name"));
    // fieldsummary over events: search-time fields included, internal ones left out.
    let rows = h.csv("* | fieldsummary | table field count distinct_count");
    assert!(rows.contains(&"user,4,4".to_string()), "{rows:?}");
    assert!(rows.contains(&"host,4,3".to_string()), "{rows:?}");
    assert!(!rows.iter().any(|r| r.starts_with('_')), "{rows:?}");
}

/// A sink that keeps what `collect` writes.
#[derive(Default)]
struct Recorder(std::sync::Mutex<Vec<lode_event::Event>>);

impl lode_search::generate::collect::CollectSink for Recorder {
    fn write(&self, events: Vec<lode_event::Event>) -> Result<u64, String> {
        let n = events.len() as u64;
        self.0.lock().unwrap().extend(events);
        Ok(n)
    }
}

#[test]
fn collect_writes_stash_events_into_an_existing_index() {
    use lode_search::generate::collect::CollectHandle;
    let h = Home::new();
    web_events(&h.root);
    std::fs::create_dir_all(h.root.join("summary")).unwrap();
    let rec = std::sync::Arc::new(Recorder::default());
    let opts = RunOptions {
        collect: Some(CollectHandle(rec.clone())),
        ..h.opts(2)
    };
    let q = "* | stats count by host | collect index=summary marker=\"report=daily\"";
    let (rows, _) = collect_with(&h.root, &request(q, false), &opts).unwrap();
    assert_eq!(
        to_csv(&rows, true),
        ["host,count", "db01,1", "web01,2", "web02,1"]
    );
    let events = rec.0.lock().unwrap().clone();
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[1].raw,
        "11/14/2023 22:13:20 +0000, host=\"web01\", count=\"2\", report=daily"
    );
    assert_eq!(
        (
            events[1].index.as_str(),
            events[1].sourcetype.as_str(),
            events[1].host.as_str()
        ),
        ("summary", "stash", "lode")
    );
    assert_eq!(events[1].time, NOW_SECS * SEC);
    // Written, the events read back as key=value fields.
    let evs: Vec<_> = events
        .into_iter()
        .map(|mut e| {
            e.index = "summary".into();
            e
        })
        .collect();
    write_index(
        &h.root,
        "summary",
        &[Chunk {
            events: evs,
            roll: false,
        }],
    );
    assert_eq!(
        h.csv("index=summary sourcetype=stash report=daily | stats sum(count) AS total"),
        ["total", "4"]
    );
    // Event rows keep their _raw; testmode writes nothing and shows it.
    let before = rec.0.lock().unwrap().len();
    let (mut rows, _) = collect_with(
        &h.root,
        &request("host=db01 | collect index=summary testmode=t", false),
        &opts,
    )
    .unwrap();
    assert_eq!(rec.0.lock().unwrap().len(), before);
    assert_eq!(
        rows[0].get("_raw").unwrap().to_string(),
        "query slow user=dave ip=172.16.0.1"
    );
    assert!(h
        .err("* | collect index=nope")
        .contains("The index 'nope' does not exist."));
    assert!(h
        .err("* | collect index=summary")
        .contains("cannot write to indexes"));
}
