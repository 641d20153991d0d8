//! Every LogHub sample: the sourcetype guessed from the file name gives one event per line, and
//! the first and last events carry the times of the structured CSV.

mod common;

use chrono::{DateTime, NaiveDateTime};
use common::*;
use lode_ingest::{guess_sourcetype, process_bytes, Settings, SourceMeta};

/// Splits one CSV record (quotes with doubled quotes inside).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// How a system's CSV row gives its time: columns joined by a space, parsed with a chrono
/// format; `epoch` = seconds since 1970; `year` = whether the log line carries the year.
struct Spec {
    columns: &'static [&'static str],
    format: &'static str,
    year: bool,
}

fn spec(system: &str) -> Spec {
    let s = |columns, format, year| Spec {
        columns,
        format,
        year,
    };
    match system {
        "Android" => s(&["Date", "Time"], "%m-%d %H:%M:%S%.3f", false),
        "Apache" => s(&["Time"], "%a %b %d %H:%M:%S %Y", true),
        "BGL" | "Thunderbird" => s(&["Timestamp"], "epoch", true),
        "HPC" => s(&["Time"], "epoch", true),
        "HDFS" => s(&["Date", "Time"], "%y%m%d %H%M%S", true),
        "Hadoop" | "Zookeeper" => s(&["Date", "Time"], "%Y-%m-%d %H:%M:%S,%3f", true),
        "HealthApp" => s(&["Time"], "%Y%m%d-%H:%M:%S:%3f", true),
        "Linux" | "Mac" => s(&["Month", "Date", "Time"], "%b %d %H:%M:%S", false),
        "OpenSSH" => s(&["Date", "Day", "Time"], "%b %d %H:%M:%S", false),
        "OpenStack" => s(&["Date", "Time"], "%Y-%m-%d %H:%M:%S%.3f", true),
        "Proxifier" => s(&["Time"], "%m.%d %H:%M:%S", false),
        "Spark" => s(&["Date", "Time"], "%y/%m/%d %H:%M:%S", true),
        "Windows" => s(&["Date", "Time"], "%Y-%m-%d %H:%M:%S", true),
        other => panic!("no spec for {other}"),
    }
}

/// The expected time of a CSV row, printed as `[%Y-]%m-%d %H:%M:%S%.3f` (UTC).
fn expected(spec: &Spec, header: &[String], row: &[String]) -> String {
    let col = |name: &str| &row[header.iter().position(|h| h == name).unwrap()];
    let text = spec
        .columns
        .iter()
        .map(|c| col(c).as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let t = if spec.format == "epoch" {
        DateTime::from_timestamp(text.parse().unwrap(), 0)
            .unwrap()
            .naive_utc()
    } else if spec.year {
        NaiveDateTime::parse_from_str(&text, spec.format).unwrap()
    } else {
        NaiveDateTime::parse_from_str(&format!("2000 {text}"), &format!("%Y {}", spec.format))
            .unwrap()
    };
    print_time(t, spec.year)
}

fn print_time(t: NaiveDateTime, year: bool) -> String {
    t.format(if year {
        "%Y-%m-%d %H:%M:%S%.3f"
    } else {
        "%m-%d %H:%M:%S%.3f"
    })
    .to_string()
}

fn event_time(micros: i64, year: bool) -> String {
    print_time(
        DateTime::from_timestamp_micros(micros).unwrap().naive_utc(),
        year,
    )
}

#[test]
fn every_loghub_file_gives_one_event_per_line_with_csv_times() {
    let (settings, _) = Settings::builtin().unwrap();
    let mut checked = 0;
    let mut names: Vec<_> = std::fs::read_dir(loghub_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    for name in names {
        let name = name.to_string_lossy().to_string();
        let Some(system) = name.strip_suffix("_2k.log") else {
            continue;
        };
        let data = std::fs::read(format!("{}{name}", loghub_dir())).unwrap();
        let lines =
            data.iter().filter(|&&b| b == b'\n').count() + usize::from(data.last() != Some(&b'\n'));
        let sourcetype = guess_sourcetype(&name, &data[..data.len().min(4096)]);
        assert_eq!(sourcetype, format!("loghub:{}", system.to_lowercase()));
        let meta = SourceMeta {
            host: "h".into(),
            source: name.clone(),
            sourcetype,
            index: "main".into(),
        };
        let events = process_bytes(&settings, &meta, &data, NOW);
        assert_eq!(events.len(), lines, "{name}: event count");
        assert!(events.iter().all(|e| e.linecount == 1), "{name}: linecount");

        let csv =
            std::fs::read_to_string(format!("{}structured/{name}_structured.csv", loghub_dir()))
                .unwrap();
        let rows: Vec<Vec<String>> = csv.lines().map(csv_fields).collect();
        let spec = spec(system);
        for (event, row) in [
            (&events[0], &rows[1]),
            (&events[events.len() - 1], &rows[rows.len() - 1]),
        ] {
            assert_eq!(
                event_time(event.time, spec.year),
                expected(&spec, &rows[0], row),
                "{name}: {}",
                event.raw
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 16);
}
