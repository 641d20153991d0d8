//! `lode bench --scenario service`: the searches it reports, split by words and by whether they
//! found rows.

mod common;

use common::Lode;

#[test]
fn service_reports_its_searches_by_words_and_rows() {
    let lode = Lode::new();
    let json = lode.path().join("service.json");
    let r = lode.run(&[
        "bench",
        "--scenario",
        "service",
        "--size",
        "2MB",
        "--seconds",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("share of time"), "{}", r.stdout);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["errors"], 0, "{report}");
    let classes = report["by_query"].as_array().unwrap();
    let searches: u64 = classes
        .iter()
        .map(|c| c["searches"].as_u64().unwrap())
        .sum();
    assert!(searches > 0);
    assert_eq!(searches, report["searches"].as_u64().unwrap());
    let share: f64 = classes
        .iter()
        .map(|c| c["share_of_time"].as_f64().unwrap())
        .sum();
    assert!((share - 1.0).abs() < 1e-6, "{share}");
    for c in classes {
        let words = c["words"].as_u64().unwrap();
        assert!((1..=3).contains(&words), "{c}");
    }
    // The words are drawn from indexed events: most one-word searches find them.
    let found_one = classes
        .iter()
        .find(|c| c["words"] == 1 && c["found"] == true)
        .expect("one-word searches that found rows");
    assert!(found_one["searches"].as_u64().unwrap() > 0);
}
