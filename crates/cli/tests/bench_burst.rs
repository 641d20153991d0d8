//! `lode bench --scenario burst`: ingest over HTTP while searches run, and what it reports.

mod common;

use common::Lode;

#[test]
fn burst_ingests_every_event_and_reports_its_searches_and_memory() {
    let lode = Lode::new();
    let json = lode.path().join("burst.json");
    // The bench's own home, kept to be searched afterwards.
    let kept = Lode::new();
    let home = kept.path();
    let r = lode.run(&[
        "bench",
        "--scenario",
        "burst",
        "--size",
        "2MB",
        "--keep",
        home.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("peak memory"), "{}", r.stdout);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let events = report["events"].as_u64().unwrap();
    assert!(events > 0, "{report}");
    // Every event the report counts is in the kept home's index, once.
    assert_eq!(kept.count("index=main"), events);
    for kind in report["searches"].as_array().unwrap() {
        assert_eq!(kind["errors"], 0, "{kind}");
    }
    let peak_mb = report["peak_rss_mb"].as_f64().unwrap();
    assert!(peak_mb > 0.0);
    // Percentiles of the samples: ascending, none above the peak.
    let ps: Vec<f64> = report["rss_percentiles_mb"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_f64().unwrap())
        .collect();
    assert_eq!(ps.len(), 3, "{report}");
    assert!(
        ps[0] > 0.0 && ps[0] <= ps[1] && ps[1] <= ps[2] && ps[2] <= peak_mb,
        "{report}"
    );
    assert!(report["give_backs"].is_u64() && report["give_back_ms"].as_f64().unwrap() >= 0.0);
    let peak = &report["caches_at_peak"];
    assert!(peak["rss"].as_u64().unwrap() > 0, "{peak}");
    // What ran at the peak: counts of rolls and merges (none or some).
    assert!(
        peak["rolls_running"].is_u64() && peak["merges_running"].is_u64(),
        "{peak}"
    );
    // The resident memory's parts and the allocator's figures (glibc's only).
    assert!(peak["rss_anon"].as_u64().unwrap() > 0, "{peak}");
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert!(peak["heap"]["in_use"].as_u64().unwrap() > 0, "{peak}");
    }
    let room = peak["cache_room_pct"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&room), "{peak}");
    // Every sample is in the kept home's trace: a header, then one line per sample, each with
    // as many fields as the header and a resident size.
    let trace = std::fs::read_to_string(home.join("burst-memory.tsv")).unwrap();
    let mut lines = trace.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(head[1], "rss_mb", "{trace}");
    let samples: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert!(!samples.is_empty(), "{trace}");
    for s in &samples {
        assert_eq!(s.len(), head.len(), "{trace}");
        assert!(s[1].parse::<f64>().unwrap() > 0.0, "{trace}");
    }
}
