//! Every loghub sample: extract all 2000 lines (the brief asks for at least 200) automatically and compare date and time with the
//! parsed columns of structured/<name>_2k.log_structured.csv. Also checks that the fast path
//! (remembered pattern) and the slow path (full scan) agree on all 2000 lines.

use lode_time::extract::{ExtractConfig, Extractor};
use lode_time::strptime::strftime;
use lode_time::Zone;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");

/// 2018-06-01T00:00:00Z: a "now" after every sample; the data are 2004–2017, so the test widens
/// MAX_DAYS_AGO to accept them.
const NOW: i64 = 1_527_811_200_000_000;

/// (system, CSV columns joined by a space, strftime layout rendering the same numbers/names).
/// Files without a year compare month/day/time only; epoch files compare the epoch column.
const SYSTEMS: &[(&str, &[&str], &str)] = &[
    ("Android", &["Date", "Time"], "%m-%d %H:%M:%S.%3N"),
    ("Apache", &["Time"], "%a %b %d %H:%M:%S %Y"),
    ("BGL", &["Timestamp"], "%s"),
    ("HDFS", &["Date", "Time"], "%y%m%d %H%M%S"),
    ("HPC", &["Time"], "%s"),
    ("Hadoop", &["Date", "Time"], "%Y-%m-%d %H:%M:%S,%3N"),
    ("HealthApp", &["Time"], "%Y%m%d-%H:%M:%S:%3N"),
    ("Linux", &["Month", "Date", "Time"], "%b %d %H:%M:%S"),
    ("Mac", &["Month", "Date", "Time"], "%b %d %H:%M:%S"),
    ("OpenSSH", &["Date", "Day", "Time"], "%b %d %H:%M:%S"),
    ("OpenStack", &["Date", "Time"], "%Y-%m-%d %H:%M:%S.%3N"),
    ("Proxifier", &["Time"], "%m.%d %H:%M:%S"),
    ("Spark", &["Date", "Time"], "%y/%m/%d %H:%M:%S"),
    ("Thunderbird", &["Timestamp"], "%s"),
    ("Windows", &["Date", "Time"], "%Y-%m-%d %H:%M:%S"),
    ("Zookeeper", &["Date", "Time"], "%Y-%m-%d %H:%M:%S,%3N"),
];

/// Splits one CSV record (RFC 4180 quoting, no embedded newlines in these files).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// Words of a date/time text, with numbers compared by value (`0:95` and `00:095` agree).
fn tokens(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(|t| match t.parse::<u64>() {
            Ok(n) => n.to_string(),
            Err(_) => t.to_ascii_lowercase(),
        })
        .collect()
}

fn read_lines(path: &str) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    String::from_utf8_lossy(&bytes)
        .split('\n')
        .map(|l| l.trim_end_matches('\r').to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn config() -> ExtractConfig {
    ExtractConfig {
        max_days_ago: 20_000,
        ..ExtractConfig::default()
    }
}

#[test]
fn every_loghub_file_every_line_matches_structured_columns() {
    for &(name, cols, layout) in SYSTEMS {
        let raw = read_lines(&format!("{DIR}{name}_2k.log"));
        let csv = read_lines(&format!("{DIR}structured/{name}_2k.log_structured.csv"));
        let header = csv_fields(&csv[0]);
        let idx: Vec<usize> = cols
            .iter()
            .map(|c| header.iter().position(|h| h == c).expect("column"))
            .collect();
        let mut ex = Extractor::new(config()).unwrap();
        for (n, (line, rec)) in raw.iter().zip(&csv[1..]).take(2000).enumerate() {
            let rec = csv_fields(rec);
            let expected: Vec<&str> = idx.iter().map(|&i| rec[i].as_str()).collect();
            let expected = tokens(&expected.join(" "));
            let found = ex
                .extract(line, NOW)
                .unwrap_or_else(|| panic!("{name} line {}: no time in {line:?}", n + 1));
            let got = tokens(&strftime(found.time, layout, Zone::Utc));
            assert_eq!(
                got,
                expected,
                "{name} line {}: {line:?} -> {found:?}",
                n + 1
            );
        }
    }
}

#[test]
fn fast_path_agrees_with_slow_path_on_all_lines() {
    for &(name, _, _) in SYSTEMS {
        let mut ex = Extractor::new(config()).unwrap();
        for line in read_lines(&format!("{DIR}{name}_2k.log")) {
            assert_eq!(
                ex.extract(&line, NOW),
                ex.extract_slow(&line, NOW),
                "{name}: {line:?}"
            );
        }
    }
}

#[test]
fn openstack_auto_mode_skips_the_file_name_stamp() {
    let line = "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi";
    let found = Extractor::new(config())
        .unwrap()
        .extract(line, NOW)
        .unwrap();
    assert_eq!(&line[found.start..found.end], "2017-05-16 00:00:00.008");
}
