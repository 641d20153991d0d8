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
    assert!(report["peak_rss_mb"].as_f64().unwrap() > 0.0);
    let peak = &report["caches_at_peak"];
    assert!(peak["rss"].as_u64().unwrap() > 0, "{peak}");
    // What ran at the peak: counts of rolls and merges (none or some).
    assert!(
        peak["rolls_running"].is_u64() && peak["merges_running"].is_u64(),
        "{peak}"
    );
}
