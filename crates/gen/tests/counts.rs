//! Exactness of the summary: determinism, size, planted term counts (with the search
//! tokenizer), per-kind and per-host counts, time order, and `write_dir`.

mod common;

use common::{generate, split_events};
use lode_event::token::Tokenizer;
use lode_gen::text::Civil;
use lode_gen::{write_dir, GenConfig, GenSummary, Generator, Kind, MANIFEST};
use regex::Regex;
use std::collections::BTreeMap;

const MB: u64 = 1_000_000;

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let a = generate(GenConfig::new(11, 3 * MB));
    let b = generate(GenConfig::new(11, 3 * MB));
    assert!(a.files == b.files, "same config must give identical output");
    assert_eq!(a.summary, b.summary);
    let c = generate(GenConfig::new(12, 3 * MB));
    assert!(a.files != c.files);
    // A second run of the same generator starts over.
    let mut g = Generator::new(GenConfig::new(11, 3 * MB));
    let mut n = 0u64;
    g.generate(&mut |_, c| n += c.len() as u64);
    let again = g.generate(&mut |_, _| {});
    assert_eq!(again, a.summary);
    assert_eq!(n, a.summary.bytes);
}

#[test]
fn size_is_within_one_percent() {
    for bytes in [50_000, 2 * MB, 9 * MB] {
        let c = generate(GenConfig::new(3, bytes));
        let written: u64 = c.files.iter().map(|f| f.len() as u64).sum();
        assert_eq!(written, c.summary.bytes);
        let err = (written as f64 - bytes as f64).abs() / bytes as f64;
        assert!(err < 0.01, "{written} bytes for {bytes} requested");
    }
    let empty = generate(GenConfig::new(3, 0));
    assert_eq!((empty.summary.bytes, empty.summary.events), (0, 0));
    assert!(empty.files.iter().all(Vec::is_empty));
}

fn host_of(kind: Kind, event: &str, res: &[Regex; 4]) -> String {
    let re = &res[kind as usize];
    let caps = re
        .captures(event)
        .unwrap_or_else(|| panic!("no host in {event:?}"));
    caps[1].to_string()
}

fn host_regexes() -> [Regex; 4] {
    [
        Regex::new(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (\S+) ").unwrap(),
        Regex::new(r" (\S+)$").unwrap(),
        Regex::new(r#""host":"([^"]+)""#).unwrap(),
        Regex::new(r"^\S+ \S+ (?:ERROR|WARN ) (\S+) \[").unwrap(),
    ]
}

/// Counts, by scanning the text with the search tokenizer, the events holding each term.
fn count_terms(c: &common::Corpus, terms: &[String]) -> BTreeMap<String, u64> {
    let mut tok = Tokenizer::new();
    let mut counts: BTreeMap<String, u64> = terms.iter().map(|t| (t.clone(), 0)).collect();
    let lower: Vec<Vec<u8>> = terms
        .iter()
        .map(|t| t.to_ascii_lowercase().into_bytes())
        .collect();
    for kind in Kind::ALL {
        for event in c.events(kind) {
            let mut seen = vec![false; terms.len()];
            tok.for_each(event.as_bytes(), |t| {
                for (i, want) in lower.iter().enumerate() {
                    seen[i] |= t == want.as_slice();
                }
            });
            for (i, s) in seen.iter().enumerate() {
                *counts.get_mut(&terms[i]).unwrap() += u64::from(*s);
            }
        }
    }
    counts
}

#[test]
fn planted_kind_and_host_counts_are_exact() {
    let c = generate(GenConfig::new(5, 12 * MB));
    let s = &c.summary;
    let terms: Vec<String> = s.planted.iter().map(|p| p.term.clone()).collect();
    let classes: Vec<&str> = s.planted.iter().map(|p| p.class.as_str()).collect();
    assert_eq!(classes, ["rare", "super_sparse", "sparse", "dense"]);
    let counted = count_terms(&c, &terms);
    for p in &s.planted {
        assert_eq!(counted[&p.term], p.events, "{} ({})", p.term, p.class);
        assert_eq!(p.search, p.term);
        assert!(p.term.to_ascii_lowercase().starts_with("lode"));
    }
    let by_class = |c: &str| s.planted.iter().find(|p| p.class == c).unwrap().events;
    assert_eq!(by_class("rare"), 30);
    assert!(
        (3..=10).contains(&by_class("super_sparse")),
        "{}",
        by_class("super_sparse")
    );
    let sparse = by_class("sparse") as f64 / s.events as f64;
    assert!((0.0005..0.002).contains(&sparse), "sparse share {sparse}");
    let dense = by_class("dense") as f64 / s.events as f64;
    assert!((0.89..0.91).contains(&dense), "dense share {dense}");

    let res = host_regexes();
    let mut hosts: BTreeMap<String, u64> = BTreeMap::new();
    let mut total = 0;
    for kind in Kind::ALL {
        let events = c.events(kind);
        assert_eq!(
            events.len() as u64,
            s.events_by_kind[kind.sourcetype()],
            "{kind:?}"
        );
        total += events.len() as u64;
        for e in events {
            *hosts.entry(host_of(kind, e, &res)).or_default() += 1;
        }
    }
    assert_eq!(total, s.events);
    assert_eq!(hosts, s.events_by_host);
}

#[test]
fn rare_term_sits_in_three_narrow_windows() {
    let s = generate(GenConfig::new(9, 8 * MB)).summary;
    let rare = &s.planted[0];
    assert_eq!(rare.windows.len(), 3);
    let span_us = s.config.span_secs * 1_000_000;
    for w in &rare.windows {
        assert_eq!(w.events, 10);
        assert!(w.last_us - w.first_us < span_us / 1_000, "{w:?}");
    }
    let dense = &s.planted[3].windows;
    assert_eq!(dense.len(), 1);
    assert!(dense[0].last_us - dense[0].first_us > span_us * 99 / 100);
}

#[test]
fn events_api_matches_chunks_and_time_is_ordered() {
    let cfg = GenConfig {
        hosts: 7,
        ..GenConfig::new(21, 2 * MB)
    };
    let chunks = generate(cfg);
    let mut files: [Vec<u8>; 4] = Default::default();
    let mut last = i64::MIN;
    let start = cfg.start_time_secs * 1_000_000;
    let end = start + cfg.span_secs * 1_000_000;
    let summary = Generator::new(cfg)
        .generate_events(&mut |e| {
            assert!(e.time_us >= last && e.time_us >= start && e.time_us < end);
            last = e.time_us;
            let raw = std::str::from_utf8(e.raw).unwrap();
            assert!(raw.contains(e.host));
            // The text's timestamp says the event's time.
            let civil = Civil::from_micros(e.time_us);
            let mut ts = Vec::new();
            match e.kind {
                Kind::Syslog => civil.push_syslog(&mut ts),
                Kind::Access => civil.push_apache(&mut ts),
                Kind::Json => civil.push_iso_millis(&mut ts),
                Kind::Java => civil.push_log4j(&mut ts),
            }
            assert!(raw.contains(std::str::from_utf8(&ts).unwrap()), "{raw}");
            assert_eq!(
                split_events(e.kind, std::str::from_utf8(e.raw).unwrap()).len(),
                1
            );
            files[e.kind as usize].extend_from_slice(e.raw);
            files[e.kind as usize].push(b'\n');
            Ok::<(), ()>(())
        })
        .unwrap();
    assert!(files == chunks.files);
    assert_eq!(summary, chunks.summary);
    assert!(summary.events_by_host.len() <= 7);
    assert!(summary.last_time_us - summary.first_time_us > cfg.span_secs * 990_000);
    // An error stops generation and is returned.
    let mut seen = 0;
    let stopped = Generator::new(cfg).generate_events(&mut |_| {
        seen += 1;
        if seen == 5 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!((stopped, seen), (Err("stop"), 5));
}

#[test]
fn write_dir_writes_files_and_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    let cfg = GenConfig::new(4, MB);
    let mut reports = Vec::new();
    let s = write_dir(cfg, &out, &mut |b| reports.push(b)).unwrap();
    assert!(reports.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(reports.last(), Some(&s.bytes));
    let mut total = 0;
    for kind in Kind::ALL {
        let text = std::fs::read(out.join(kind.file_name())).unwrap();
        assert_eq!(text, generate(cfg).files[kind as usize]);
        total += text.len() as u64;
    }
    assert_eq!(total, s.bytes);
    let manifest: GenSummary =
        serde_json::from_slice(&std::fs::read(out.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(manifest, s);
    // A file in the way of the directory is an error naming the path.
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, b"x").unwrap();
    let err = write_dir(cfg, &blocked, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("file"), "{err}");
}

#[test]
fn one_host_and_empty_span_are_handled() {
    let cfg = GenConfig {
        hosts: 1,
        span_secs: 0,
        ..GenConfig::new(8, 300_000)
    };
    let c = generate(cfg);
    let s = &c.summary;
    assert_eq!(s.events_by_host.len(), 1);
    assert_eq!(s.events_by_host.values().sum::<u64>(), s.events);
    assert_eq!(s.first_time_us, cfg.start_time_secs * 1_000_000);
    assert_eq!(s.last_time_us, s.first_time_us);
    let terms: Vec<String> = s.planted.iter().map(|p| p.term.clone()).collect();
    let counted = count_terms(&c, &terms);
    assert!(s.planted.iter().all(|p| counted[&p.term] == p.events));
}
