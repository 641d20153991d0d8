//! The crash test of `crash.rs` with two pipeline sets (`parallelIngestionPipelines = 2` in
//! etc/system/local/server.conf) and two concurrent clients: a `lode serve` child is killed with
//! SIGKILL at random moments, repeatedly, while both sets append to their own hot bucket. A batch
//! counts as accepted only when the server answered 200 with its event count; after every kill
//! each accepted event must be searchable exactly once, and both sets' hot buckets must have
//! received data. `GET /lode/metrics` reports the queues of both sets.

mod common;

use common::Lode;

/// Hot bucket directories of `main` holding at least one WAL record.
fn hot_buckets_with_data(lode: &Lode) -> usize {
    let dir = lode.path().join("var/lib/lode/main");
    lode_store::list_buckets(&dir)
        .unwrap()
        .iter()
        .filter(|b| b.kind == lode_store::BucketKind::Hot)
        .filter(|b| {
            let wal = b.path.join(lode_store::consts::WAL_FILE);
            std::fs::metadata(wal).is_ok_and(|m| m.len() > 16)
        })
        .count()
}

#[test]
fn two_pipeline_sets_lose_no_acknowledged_event_on_sigkill() {
    let lode = Lode::new();
    lode.write_local("server.conf", "[general]\nparallelIngestionPipelines = 2\n");
    common::crash::run(
        &lode,
        4,
        2,
        |round, url| {
            if round == 0 {
                let m: serde_json::Value = lode
                    .agent()
                    .get(&format!("{url}/lode/metrics"))
                    .set("Authorization", &lode.server_auth())
                    .call()
                    .expect("metrics")
                    .into_json()
                    .expect("metrics JSON");
                assert_eq!(m["pipeline_sets"], 2, "{m}");
                let queues = m["queues"].as_array().expect("queues");
                assert_eq!(queues.len(), 8, "{m}");
                assert_eq!(queues[0]["group"], "queue");
                assert_eq!(queues[0]["name"], "parsingqueue");
                assert_eq!(queues[7]["ingest_pipe"], 1);
            }
        },
        |round| {
            if round == 0 {
                assert_eq!(
                    hot_buckets_with_data(&lode),
                    2,
                    "both sets' hot buckets got data"
                );
            }
        },
    );
}
