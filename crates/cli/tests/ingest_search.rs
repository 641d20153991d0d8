//! End to end: LogHub files in, searches out, through the CLI and through a running server.

mod common;

use std::time::{Duration, Instant};

use common::{line_count, loghub, Lode};

#[test]
fn every_loghub_file_ingests_with_its_line_count() {
    let lode = Lode::new();
    let dir = loghub();
    let r = lode.run(&["add", "oneshot", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 16);
    let rows = lode.search_json("index=main | stats count by source");
    for f in &files {
        let source = std::fs::canonicalize(f).unwrap().display().to_string();
        let row = rows
            .iter()
            .find(|r| r["source"].as_str() == Some(source.as_str()))
            .unwrap_or_else(|| panic!("no events for {source}"));
        let count: u64 = row["count"].as_str().unwrap().parse().unwrap();
        assert_eq!(count, line_count(f), "{}", f.display());
    }
}

#[test]
fn output_formats() {
    let lode = Lode::new();
    let f = lode.path().join("app.log");
    std::fs::write(&f, "2024-03-01T10:00:00Z user=ann action=login\n2024-03-01T10:00:05Z user=bob action=login\n2024-03-01T10:01:00Z user=ann action=logout\n").unwrap();
    assert_eq!(
        lode.run(&["add", "oneshot", f.to_str().unwrap(), "--sourcetype", "app"])
            .code,
        0
    );
    let csv = lode.run(&[
        "search",
        "index=main | stats count by user",
        "--output",
        "csv",
    ]);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    assert_eq!(csv.stdout, "user,count\r\nann,2\r\nbob,1\r\n");
    let raw = lode.run(&["search", "action=login", "--output", "raw"]);
    assert_eq!(
        raw.stdout,
        "2024-03-01T10:00:05Z user=bob action=login\n2024-03-01T10:00:00Z user=ann action=login\n"
    );
    let rows = lode.search_json("user=ann | head 1");
    assert_eq!(rows[0]["_time"], "2024-03-01T10:01:00.000+00:00");
    assert_eq!(rows[0]["user"], "ann");
    let table = lode.run(&["search", "index=main | stats count by action"]);
    assert!(table.stdout.starts_with("action"), "{}", table.stdout);
}

#[test]
fn writes_go_through_a_running_server() {
    let lode = Lode::new();
    let mut server = lode
        .cmd(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--hec-listen",
            "127.0.0.1:0",
        ])
        .spawn()
        .expect("start server");
    let info = lode.path().join("var/run/lode/server.json");
    let t0 = Instant::now();
    while !info.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let f = lode.path().join("a.log");
    std::fs::write(
        &f,
        "2024-03-01T10:00:00Z via server one\n2024-03-01T10:00:01Z via server two\n",
    )
    .unwrap();
    let r = lode.run(&["add", "oneshot", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Added 2 events"), "{}", r.stdout);
    // Acknowledged events are searchable while the server holds them in its hot bucket.
    assert_eq!(lode.count("via server"), 2);
    // Graceful stop rolls the hot bucket; the data stays.
    let pid = server.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = server.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(lode.count("via server"), 2);
    // The server's own log went into _internal.
    assert!(lode.count("index=_internal \"lode server started\"") >= 1);
}
