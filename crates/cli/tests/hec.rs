//! The HTTP Event Collector of a real `lode serve`, over TLS with the self-signed certificate it
//! generates: tokens made with `lode hec`, events sent as a Splunk client sends them, found by
//! `lode search`; a token disabled while the server runs is refused within a second or two.

mod common;

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use common::Lode;

const TOKEN: &str = "5f0c3a52-7d0e-4b1e-9a51-3b1c2d4e5f60";
const ACK_TOKEN: &str = "5f0c3a52-7d0e-4b1e-9a51-3b1c2d4e5f61";
const CHANNEL: &str = "0aa6b6c4-84f5-4b7e-a9a3-3c1c2d4e5f62";

/// Status and JSON body of a request (error statuses included).
fn call(req: ureq::Request, body: &str) -> (u16, serde_json::Value) {
    let resp = match req.send_string(body) {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("request failed: {e}"),
    };
    let status = resp.status();
    (status, resp.into_json().expect("JSON body"))
}

#[test]
fn collector_over_tls_end_to_end() {
    let lode = Lode::new();
    let r = lode.run(&[
        "hec",
        "create",
        "app",
        "--token",
        TOKEN,
        "--sourcetype",
        "app_json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), TOKEN);
    let r = lode.run(&["hec", "create", "acked", "--token", ACK_TOKEN, "--ack"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = lode.run(&["hec", "create", "app"]);
    assert_eq!(r.code, 4, "a duplicate name is a configuration error");
    assert!(r.stderr.contains("exists already"), "{}", r.stderr);
    let list = lode.run(&["hec", "list"]);
    assert!(list.stdout.contains("port 8088 (https)"), "{}", list.stdout);

    let mut server = lode
        .cmd(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--hec-listen",
            "127.0.0.1:0",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start server");
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("server output").expect("stderr");
        if let Some(u) = line.strip_prefix("lode: HTTP Event Collector at ") {
            break u.to_string();
        }
    };
    // Keep draining the server's stderr so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let agent = lode.agent();
    let auth = format!("Splunk {TOKEN}");

    let (s, v) = call(agent.get(&format!("{url}/services/collector/health")), "");
    assert_eq!((s, v["code"].as_i64()), (200, Some(17)));
    let body = r#"{"time":1700000000.5,"host":"web01","event":{"msg":"tls hello","user":"ann"},"fields":{"env":"prod"}}
{"time":"1700000001","event":"tls second"}"#;
    let (s, v) = call(
        agent
            .post(&format!("{url}/services/collector/event"))
            .set("Authorization", &auth)
            .set("Content-Type", "application/x-www-form-urlencoded"),
        body,
    );
    assert_eq!((s, v["code"].as_i64()), (200, Some(0)), "{v}");
    let (s, v) = call(
        agent
            .post(&format!("{url}/services/collector/event"))
            .set("Authorization", "Splunk wrong"),
        body,
    );
    assert_eq!((s, v["code"].as_i64()), (403, Some(4)), "{v}");

    // Acknowledgement: an id at once, true once durable.
    let ack_auth = format!("Splunk {ACK_TOKEN}");
    let (s, v) = call(
        agent
            .post(&format!("{url}/services/collector/event"))
            .set("Authorization", &ack_auth)
            .set("X-Splunk-Request-Channel", CHANNEL),
        r#"{"event":"tls acked"}"#,
    );
    assert_eq!((s, v["ackId"].as_u64()), (200, Some(0)), "{v}");
    let t0 = Instant::now();
    loop {
        let (s, v) = call(
            agent
                .post(&format!("{url}/services/collector/ack?channel={CHANNEL}"))
                .set("Authorization", &ack_auth),
            r#"{"acks":[0]}"#,
        );
        assert_eq!(s, 200, "{v}");
        if v["acks"]["0"] == true {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "never acknowledged");
        std::thread::sleep(Duration::from_millis(20));
    }

    assert_eq!(lode.count("tls"), 3);
    let rows = lode.search_json("\"tls hello\" | table host sourcetype source user env");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["host"], "web01");
    assert_eq!(rows[0]["sourcetype"], "app_json");
    assert_eq!(rows[0]["source"], "http:app");
    assert_eq!(rows[0]["user"], "ann");
    assert_eq!(rows[0]["env"], "prod");

    // Disabling the token takes effect without a restart.
    assert_eq!(lode.run(&["hec", "disable", "app"]).code, 0);
    let t0 = Instant::now();
    loop {
        let (s, v) = call(
            agent
                .post(&format!("{url}/services/collector/event"))
                .set("Authorization", &auth),
            r#"{"event":"after disable"}"#,
        );
        if s == 403 {
            assert_eq!(v["code"], 1, "{v}");
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "token still enabled"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    let pid = server.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    assert!(server.wait().unwrap().success());
    assert_eq!(lode.count("tls"), 3);
}
