//! Helpers shared by the command tests, and tests of the executor itself.

use super::*;
use crate::value::Value;
use lode_spl::ast::{Agg, SortKey, SortMode, Stats};

/// A context at 2023-11-14T22:13:20Z in UTC with no time range.
pub fn ctx() -> ExecContext {
    ExecContext {
        now: 1_700_000_000_000_000,
        earliest: None,
        latest: None,
        tz: lode_time::Zone::Utc,
    }
}

/// Rows with one numeric field `name` (`None` = field absent).
pub fn num_rows(name: &str, vals: &[Option<f64>]) -> Vec<Row> {
    vals.iter()
        .map(|v| match v {
            Some(n) => Row::from_fields([(name.to_string(), Value::Num(*n))]),
            None => Row::new(),
        })
        .collect()
}

/// Rows with one string field `name`.
pub fn str_rows(name: &str, vals: &[&str]) -> Vec<Row> {
    vals.iter()
        .map(|v| Row::from_fields([(name.to_string(), Value::Str(v.to_string()))]))
        .collect()
}

/// Rows with the given columns; an empty string leaves the field out.
pub fn rows_of(cols: &[&str], data: &[&[&str]]) -> Vec<Row> {
    data.iter()
        .map(|vals| {
            Row::from_fields(
                cols.iter()
                    .zip(vals.iter())
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(c, v)| (c.to_string(), Value::Str(v.to_string()))),
            )
        })
        .collect()
}

/// The text of field `name` in each row (`""` when absent).
pub fn strs(rows: &[Row], name: &str) -> Vec<String> {
    rows.iter()
        .map(|r| r.peek(name).map(|v| v.to_string()).unwrap_or_default())
        .collect()
}

/// The field names of a row, in order.
pub fn names(row: &Row) -> Vec<&str> {
    row.fields().map(|(n, _)| n).collect()
}

/// An event row with `_raw = raw`, host `web01`, source `/var/log/app`, sourcetype `app`.
pub fn event_row(raw: &str) -> Row {
    let ev = lode_event::Event {
        time: 1_700_000_000_000_000,
        index_time: 1_700_000_000,
        raw: raw.to_string(),
        host: "web01".into(),
        source: "/var/log/app".into(),
        sourcetype: "app".into(),
        index: "main".into(),
        linecount: 1,
        fields: Vec::new(),
    };
    Row::from_event(ev, "0:0".into())
}

#[test]
fn head_stops_the_pipeline_and_later_ops_still_finish() {
    let cmds = vec![
        Command::Head(3),
        Command::Stats(Stats {
            aggs: vec![Agg {
                func: "count".into(),
                field: None,
                alias: None,
                eval: None,
            }],
            by: vec![],
            dedup_splitvals: false,
        }),
    ];
    let mut ex = Executor::new(&cmds, ctx()).unwrap();
    assert!(ex.is_transforming());
    let mut out = Vec::new();
    assert_eq!(
        ex.push(num_rows("x", &[Some(1.0), Some(2.0)]), &mut out)
            .unwrap(),
        Flow::Continue
    );
    assert_eq!(
        ex.push(num_rows("x", &[Some(3.0), Some(4.0)]), &mut out)
            .unwrap(),
        Flow::Stop
    );
    assert_eq!(
        ex.push(num_rows("x", &[Some(5.0)]), &mut out).unwrap(),
        Flow::Stop
    );
    assert!(out.is_empty());
    ex.finish(&mut out).unwrap();
    assert_eq!(strs(&out, "count"), vec!["3"]);
}

#[test]
fn held_rows_flow_through_later_commands() {
    let cmds = vec![
        Command::Sort {
            limit: None,
            keys: vec![SortKey {
                field: "x".into(),
                descending: true,
                mode: SortMode::Auto,
            }],
        },
        Command::Head(2),
    ];
    let mut ex = Executor::new(&cmds, ctx()).unwrap();
    assert!(!ex.is_transforming());
    assert_eq!(ex.required_fields(), None);
    let mut out = Vec::new();
    ex.push(num_rows("x", &[Some(1.0), Some(3.0), Some(2.0)]), &mut out)
        .unwrap();
    ex.finish(&mut out).unwrap();
    assert_eq!(strs(&out, "x"), vec!["3", "2"]);
}

#[test]
fn streaming_rows_are_emitted_at_once() {
    let mut ex = Executor::new(
        &[Command::Fields {
            remove: true,
            fields: vec!["y".into()],
        }],
        ctx(),
    )
    .unwrap();
    let mut out = Vec::new();
    ex.push(rows_of(&["x", "y"], &[&["1", "2"]]), &mut out)
        .unwrap();
    assert_eq!(names(&out[0]), vec!["x"]);
    let empty = Executor::new(&[], ctx()).unwrap();
    empty.finish(&mut out).unwrap();
    assert_eq!(out.len(), 1);
}

#[test]
fn columns_for_events_and_tables() {
    let mut ev = event_row("user=bob");
    ev.extract_all();
    let cols = columns(&[ev], false);
    assert_eq!(cols.first().map(String::as_str), Some("_time"));
    assert_eq!(cols.last().map(String::as_str), Some("_raw"));
    assert!(cols.contains(&"user".to_string()) && !cols.contains(&"_cd".to_string()));
    let rows = rows_of(&["b", "a"], &[&["1", ""], &["2", "3"]]);
    assert_eq!(columns(&rows, true), vec!["b", "a"]);
    assert_eq!(columns(&rows, false), vec!["b", "a"]);
}

/// Runs `query` (parsed by `lode_spl::parse`) over `rows`: the leading search through the
/// matcher, the rest through the executor.
fn query(text: &str, rows: Vec<Row>) -> (Vec<Row>, bool) {
    let p = lode_spl::parse(text).unwrap();
    let (first, rest) = p.commands.split_first().unwrap();
    let Command::Search(expr) = first else {
        panic!("no leading search")
    };
    let kept: Vec<Row> = rows
        .into_iter()
        .filter_map(|mut r| {
            expr.as_ref()
                .is_none_or(|e| crate::matcher::matches(e, &mut r))
                .then_some(r)
        })
        .collect();
    let mut ex = Executor::new(rest, ctx()).unwrap();
    let t = ex.is_transforming();
    let mut out = Vec::new();
    for chunk in kept.chunks(100) {
        if ex.push(chunk.to_vec(), &mut out).unwrap() == Flow::Stop {
            break;
        }
    }
    ex.finish(&mut out).unwrap();
    (out, t)
}

fn loghub(name: &str) -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");
    let text = std::fs::read_to_string(format!("{path}{name}_2k.log")).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let ev = lode_event::Event {
                time: 1_700_000_000_000_000 - i as i64 * 1_000_000,
                raw: l.to_string(),
                host: "LabSZ".into(),
                sourcetype: name.to_lowercase().into(),
                index: "main".into(),
                linecount: 1,
                ..Default::default()
            };
            Row::from_event(ev, format!("0:{i}"))
        })
        .collect()
}

#[test]
fn loghub_phrase_count_matches_naive() {
    let rows = loghub("OpenSSH");
    let naive = rows
        .iter()
        .filter(|r| r.peek("_raw").unwrap().as_str().contains("Failed password"))
        .count();
    let (out, t) = query("\"failed password\" | stats count", rows);
    assert!(t);
    assert_eq!(strs(&out, "count"), vec![naive.to_string()]);
}

#[test]
fn loghub_kv_stats_match_naive() {
    let rows = loghub("OpenSSH");
    let re = regex::Regex::new(r"(?:^|[^A-Za-z0-9_.\-])user=([^ ,;]+)").unwrap();
    let mut naive: std::collections::BTreeMap<String, u64> = Default::default();
    for r in &rows {
        if let Some(c) = re.captures(&r.peek("_raw").unwrap().as_str()) {
            *naive.entry(c[1].to_string()).or_default() += 1;
        }
    }
    let (out, _) = query(
        "search rhost=* user=* | stats count by user | sort - count",
        rows,
    );
    assert_eq!(out[0].peek("user").unwrap().as_str(), "root");
    let got: u64 = strs(&out, "count")
        .iter()
        .map(|c| c.parse::<u64>().unwrap())
        .sum();
    assert_eq!(got, naive.values().sum::<u64>());
    assert_eq!(strs(&out, "count")[0], naive["root"].to_string());
}

#[test]
fn loghub_rex_top_and_head() {
    let rows = loghub("OpenSSH");
    let (out, _) = query(
        r#"search Failed password | rex "from (?<ip>\d+\.\d+\.\d+\.\d+) port" | top limit=2 ip"#,
        rows.clone(),
    );
    assert_eq!(out.len(), 2);
    assert_eq!(names(&out[0]), vec!["ip", "count", "percent"]);
    let (out, t) = query("sshd | head 5 | eval n=len(_raw) | table _time, n", rows);
    assert!(!t);
    assert_eq!(out.len(), 5);
    assert_eq!(columns(&out, t), vec!["_time", "n"]);
}

#[test]
fn required_fields_of_parsed_pipelines() {
    let p = lode_spl::parse("error | eval kb=bytes/1024 | stats avg(kb) by host").unwrap();
    let ex = Executor::new(&p.commands[1..], ctx()).unwrap();
    let req = ex.required_fields().unwrap();
    assert!(req.contains(&"bytes".to_string()) && req.contains(&"host".to_string()));
    let p = lode_spl::parse("error | eval kb=bytes/1024").unwrap();
    assert_eq!(
        Executor::new(&p.commands[1..], ctx())
            .unwrap()
            .required_fields(),
        None
    );
}
