//! Bad input gets a clear error or the documented handling, and nothing accepted is lost.

mod common;

use common::Lode;

#[test]
fn spl_syntax_error_has_caret_and_exit_code_3() {
    let lode = Lode::new();
    let r = lode.run(&["search", "error | stats count by"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains('^'), "no caret in {:?}", r.stderr);
    let r = lode.run(&["search", "error | frobnicate x"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stderr.contains("Unknown search command 'frobnicate'"),
        "{}",
        r.stderr
    );
}

#[test]
fn empty_file_adds_nothing_and_succeeds() {
    let lode = Lode::new();
    let f = lode.path().join("empty.log");
    std::fs::write(&f, b"").unwrap();
    let r = lode.run(&["add", "oneshot", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Added 0 events"), "{}", r.stdout);
}

#[test]
fn binary_file_is_skipped_with_a_message() {
    let lode = Lode::new();
    let f = lode.path().join("blob.bin");
    std::fs::write(&f, [0u8, 159, 146, 150, 0, 1, 2, 3]).unwrap();
    let r = lode.run(&["add", "oneshot", f.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("binary file"), "{}", r.stderr);
    assert_eq!(lode.count("index=main"), 0);
}

#[test]
fn invalid_utf8_is_replaced_not_rejected() {
    let lode = Lode::new();
    let f = lode.path().join("latin1.log");
    std::fs::write(
        &f,
        b"2024-03-01T10:00:00Z caf\xe9 ordered\n2024-03-01T10:00:01Z second line\n",
    )
    .unwrap();
    let r = lode.run(&[
        "add",
        "oneshot",
        f.to_str().unwrap(),
        "--sourcetype",
        "plain",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows = lode.search_json("ordered");
    assert_eq!(rows.len(), 1);
    assert!(rows[0]["_raw"]
        .as_str()
        .unwrap()
        .contains("caf\u{fffd} ordered"));
}

#[test]
fn malformed_props_conf_is_a_config_error_with_line() {
    let lode = Lode::new();
    lode.write_local(
        "props.conf",
        "[mytype]\nSHOULD_LINEMERGE = false\nthis line is not a setting\n",
    );
    let f = lode.path().join("a.log");
    std::fs::write(&f, b"hello\n").unwrap();
    let r = lode.run(&["add", "oneshot", f.to_str().unwrap()]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("props.conf:3"), "{}", r.stderr);
}

#[test]
fn unknown_props_key_is_reported_not_ignored() {
    let lode = Lode::new();
    lode.write_local("props.conf", "[mytype]\nSHOULD_LINEMERG = false\n");
    let f = lode.path().join("a.log");
    std::fs::write(&f, b"hello\n").unwrap();
    let r = lode.run(&[
        "add",
        "oneshot",
        f.to_str().unwrap(),
        "--sourcetype",
        "mytype",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("SHOULD_LINEMERG"), "{}", r.stderr);
}

#[test]
fn unknown_index_is_refused() {
    let lode = Lode::new();
    let f = lode.path().join("a.log");
    std::fs::write(&f, b"hello\n").unwrap();
    let r = lode.run(&["add", "oneshot", f.to_str().unwrap(), "--index", "nosuch"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("nosuch"), "{}", r.stderr);
}

#[test]
fn huge_single_line_is_truncated() {
    let lode = Lode::new();
    let f = lode.path().join("huge.log");
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::fs::File::create(&f).unwrap());
        w.write_all(b"2024-03-01T10:00:00Z start ").unwrap();
        let block = vec![b'x'; 1 << 20];
        for _ in 0..100 {
            w.write_all(&block).unwrap();
        }
        w.write_all(b" end\n2024-03-01T10:00:01Z after\n").unwrap();
    }
    let r = lode.run(&[
        "add",
        "oneshot",
        f.to_str().unwrap(),
        "--sourcetype",
        "plain",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("truncated"), "{}", r.stdout);
    let rows = lode.search_json("start");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["_raw"].as_str().unwrap().len(), 10_000);
    assert_eq!(lode.count("after"), 1);
}

#[test]
fn corrupt_bucket_is_found_by_fsck_skipped_by_search_and_quarantined() {
    let lode = Lode::new();
    let f = lode.path().join("a.log");
    std::fs::write(
        &f,
        b"2024-03-01T10:00:00Z alpha one\n2024-03-01T10:00:01Z alpha two\n",
    )
    .unwrap();
    assert_eq!(lode.run(&["add", "oneshot", f.to_str().unwrap()]).code, 0);
    let main = lode.path().join("var/lib/lode/main");
    let bucket = std::fs::read_dir(&main)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("db_"))
        .expect("a warm bucket after oneshot");
    assert_eq!(lode.run(&["fsck"]).code, 0);
    // Flip one byte in the middle of every file of the bucket.
    for file in std::fs::read_dir(&bucket).unwrap() {
        let p = file.unwrap().path();
        if p.is_file() {
            let mut data = std::fs::read(&p).unwrap();
            let mid = data.len() / 2;
            data[mid] ^= 0x5a;
            std::fs::write(&p, data).unwrap();
        }
    }
    let r = lode.run(&["fsck"]);
    assert_eq!(r.code, 5, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains(&bucket.file_name().unwrap().to_string_lossy().to_string()),
        "{}",
        r.stdout
    );
    let s = lode.run(&["search", "alpha"]);
    assert_eq!(
        s.code, 0,
        "search must survive a corrupt bucket: {}",
        s.stderr
    );
    let q = lode.run(&["fsck", "--quarantine"]);
    assert_eq!(q.code, 5);
    assert!(!bucket.exists());
    assert_eq!(lode.run(&["fsck"]).code, 0);
}

#[test]
fn bench_refuses_to_ingest_into_a_kept_home_with_data() {
    let lode = Lode::new();
    let f = lode.path().join("one.log");
    std::fs::write(&f, b"2024-03-01T10:00:00Z hello\n").unwrap();
    let r = lode.run(&["add", "oneshot", f.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let home = lode.path().to_str().unwrap().to_string();
    let r = lode.run(&["bench", "--size", "1MB", "--runs", "1", "--keep", &home]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("already holds index data"),
        "{}",
        r.stderr
    );
    assert_eq!(lode.count("index=main"), 1);
}
