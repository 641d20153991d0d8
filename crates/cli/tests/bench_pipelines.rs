//! `lode bench --scenario pipelines`: set counts, pinning to as many CPUs as sets, rounds.

mod common;

use common::Lode;

#[test]
fn pipelines_pin_each_run_to_as_many_cpus_as_sets() {
    let lode = Lode::new();
    let json = lode.path().join("pipelines.json");
    let r = lode.run(&[
        "bench",
        "--scenario",
        "pipelines",
        "--size",
        "2MB",
        "--sets",
        "1,2",
        "--pin",
        "--rounds",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("median of 2 rounds"), "{}", r.stdout);
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    let cores = std::thread::available_parallelism().unwrap().get() as u64;
    let got: Vec<(u64, u64, usize)> = runs
        .iter()
        .map(|r| {
            (
                r["sets"].as_u64().unwrap(),
                r["cpus"].as_u64().unwrap(),
                r["round_seconds"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(got, vec![(1, 1, 2), (2, cores.min(2), 2)]);
    // Both runs stored the same (the scenario itself refuses a run that lost or doubled events).
    assert!(runs[0]["events"].as_u64().unwrap() > 0);
    assert_eq!(runs[0]["events"], runs[1]["events"]);
    assert_eq!(report["rounds"], 2);
}

#[test]
fn pipelines_refuse_zero_sets_and_rounds() {
    let lode = Lode::new();
    for bad in [["--sets", "0"], ["--rounds", "0"], ["--sets", "x"]] {
        let r = lode.run(&[
            "bench",
            "--scenario",
            "pipelines",
            "--size",
            "1MB",
            bad[0],
            bad[1],
        ]);
        assert_eq!(r.code, 2, "{bad:?}: {}", r.stderr);
        assert!(r.stderr.contains(bad[0]), "{bad:?}: {}", r.stderr);
    }
}
