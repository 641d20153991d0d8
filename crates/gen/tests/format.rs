//! Realism: every event of every kind parses as its format, Java events are multi-line, and
//! values follow skewed distributions.

mod common;

use common::generate;
use lode_gen::{GenConfig, Kind};
use regex::Regex;
use std::collections::HashMap;

const MONTHS: &str = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";

fn corpus() -> common::Corpus {
    generate(GenConfig::new(77, 6_000_000))
}

#[test]
fn syslog_lines_are_rfc3164() {
    let re = Regex::new(&format!(
        r"^{MONTHS} [ 123]\d \d\d:\d\d:\d\d [a-z]+-\d{{3}} (?:sshd\[\d+\]|CRON\[\d+\]|systemd\[1\]|kernel|sudo): +\S.*$"
    ))
    .unwrap();
    let c = corpus();
    let events = c.events(Kind::Syslog);
    assert!(events.len() > 1_000);
    for e in &events {
        assert!(re.is_match(e), "{e:?}");
    }
    let failed = Regex::new(r"sshd\[\d+\]: Failed password for (?:invalid user )?[\w-]+ from (?:\d+\.){3}\d+ port \d+ ssh2").unwrap();
    let n = events.iter().filter(|e| failed.is_match(e)).count();
    assert!(
        n > events.len() / 10,
        "{n} failed logins of {}",
        events.len()
    );
}

#[test]
fn access_lines_are_combined_format_with_skewed_status() {
    let re = Regex::new(&format!(
        r#"^(?:\d{{1,3}}\.){{3}}\d{{1,3}} - (?:-|[\w.-]+) \[\d\d/{MONTHS}/\d{{4}}:\d\d:\d\d:\d\d \+0000\] "(?:GET|POST|PUT|DELETE|HEAD) /\S* HTTP/1\.1" (\d{{3}}) (?:\d+|-) "[^"]*" "[^"]+" web-\d{{3}}$"#
    ))
    .unwrap();
    let c = corpus();
    let mut status: HashMap<String, usize> = HashMap::new();
    let mut urls: HashMap<&str, usize> = HashMap::new();
    for e in c.events(Kind::Access) {
        let caps = re.captures(e).unwrap_or_else(|| panic!("{e:?}"));
        *status.entry(caps[1].to_string()).or_default() += 1;
        *urls.entry(e.split('"').nth(1).unwrap()).or_default() += 1;
    }
    let n = |s: &str| status.get(s).copied().unwrap_or(0);
    assert!(n("200") > 5 * n("304") && n("304") > n("404") && n("404") > n("500") && n("500") > 0);
    let mut counts: Vec<usize> = urls.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    assert!(
        counts[0] > 20 * counts[counts.len() / 2],
        "URLs are skewed: {:?}",
        &counts[..5]
    );
}

#[test]
fn json_lines_are_objects_with_typed_fields() {
    let ts = Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$").unwrap();
    let c = corpus();
    let events = c.events(Kind::Json);
    assert!(events.len() > 500);
    for e in events {
        let v: serde_json::Value =
            serde_json::from_str(e).unwrap_or_else(|err| panic!("{err}: {e}"));
        assert!(ts.is_match(v["timestamp"].as_str().unwrap()), "{e}");
        assert!(["INFO", "WARN", "ERROR", "DEBUG"].contains(&v["level"].as_str().unwrap()));
        for key in ["host", "service", "user", "msg", "trace_id"] {
            assert!(v[key].is_string(), "{key} in {e}");
        }
        assert!(v["latency_ms"].is_u64() && v["status"].is_u64(), "{e}");
    }
}

#[test]
fn java_events_are_multiline_exceptions() {
    let first = Regex::new(
        r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?:ERROR|WARN ) app-\d{3} \[[\w.-]+\] com\.acme\.[\w.]+ - \S.*$",
    )
    .unwrap();
    let rest = Regex::new(r"^(?:\tat [\w.$/]+\([\w.]+(?::\d+)?\)|\t\.\.\. \d+ more|Caused by: [\w.$]+: .+|[\w.$]+: .+)$").unwrap();
    let c = corpus();
    let events = c.events(Kind::Java);
    assert!(events.len() > 100);
    let mut caused = 0;
    for e in &events {
        let lines: Vec<&str> = e.split('\n').collect();
        assert!(lines.len() >= 5, "multi-line: {e:?}");
        assert!(first.is_match(lines[0]), "{:?}", lines[0]);
        for l in &lines[1..] {
            assert!(rest.is_match(l), "{l:?} in {e:?}");
        }
        assert!(lines[2].starts_with("\tat com.acme."));
        caused += usize::from(e.contains("\nCaused by: "));
    }
    assert!(caused > 0 && caused < events.len());
}

#[test]
fn hosts_and_users_are_skewed() {
    let s = corpus().summary;
    let mut counts: Vec<u64> = s.events_by_host.values().copied().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    assert!(counts.len() > 100, "{} hosts", counts.len());
    assert!(
        counts[0] > 5 * counts[counts.len() / 2],
        "{:?}",
        &counts[..5]
    );
    let users = Regex::new(r#""user":"([^"]+)""#).unwrap();
    let c = corpus();
    let mut by_user: HashMap<&str, usize> = HashMap::new();
    for e in c.events(Kind::Json) {
        *by_user
            .entry(users.captures(e).unwrap().get(1).unwrap().as_str())
            .or_default() += 1;
    }
    assert!(by_user["root"] > 5 * by_user.get("tomcat").copied().unwrap_or(0));
}
