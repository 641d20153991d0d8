//! Parsing stage: line breaking, TRUNCATE, charset, chunk boundaries.

mod common;

use std::sync::Arc;

use common::*;
use lode_ingest::linebreak::LineBreaker;
use lode_ingest::SourceMeta;
use proptest::prelude::*;

const LINES: &str = "[lines]\nSHOULD_LINEMERGE = false\nDATETIME_CONFIG = NONE\n";

fn breaker(props: &str) -> LineBreaker {
    let (s, _) = settings_with(props, "");
    LineBreaker::new(s.resolve(&meta("lines")))
}

fn break_chunks(props: &str, chunks: &[&[u8]]) -> (Vec<String>, u64) {
    let mut b = breaker(props);
    let mut out = Vec::new();
    for c in chunks {
        b.push(c, &mut out);
    }
    b.finish(&mut out);
    (out, b.truncated)
}

#[test]
fn default_breaker_removes_newline_runs_and_skips_blank_events() {
    let (out, _) = break_chunks(LINES, &[b"a\r\nb\n\n\nc  \n \n\r\nd"]);
    assert_eq!(out, ["a", "b", "c  ", "d"]);
}

#[test]
fn empty_input_gives_no_events() {
    let (s, _) = settings_with("", "");
    assert!(run(&s, "lines", b"").is_empty());
    assert!(run(&s, "anything", b"\n\r\n").is_empty());
}

#[test]
fn custom_line_breaker_keeps_text_outside_the_group() {
    // Events start at "<date>|"; the newline before is removed, the date stays.
    let props = format!("{LINES}LINE_BREAKER = ([\\r\\n]+)\\d{{4}}-\n");
    let (out, _) = break_chunks(&props, &[b"2020-01 a\nmore\n2020-02 b\n2021-03 c"]);
    assert_eq!(out, ["2020-01 a\nmore", "2020-02 b", "2021-03 c"]);
    // An empty group: cut before each date, removing nothing.
    let props = format!("{LINES}LINE_BREAKER = ()2020-\n");
    let (out, _) = break_chunks(&props, &[b"2020-a 2020-b"]);
    assert_eq!(out, ["2020-a ", "2020-b"]);
    let props = format!("{LINES}LINE_BREAKER = (;;)\n");
    let (out, _) = break_chunks(&props, &[b"x;;y", b";", b";z"]);
    assert_eq!(out, ["x", "y", "z"]);
}

#[test]
fn truncate_cuts_events_and_counts_them() {
    let props = format!("{LINES}TRUNCATE = 5\n");
    let (out, truncated) = break_chunks(&props, &[b"0123456789\nabc\nabcdef"]);
    assert_eq!(out, ["01234", "abc", "abcde"]);
    assert_eq!(truncated, 2);
    // A multi-byte character is not split: "ééé" is 6 bytes, TRUNCATE 5 keeps two chars.
    let (out, _) = break_chunks(&props, &[("ééé\n".as_bytes())]);
    assert_eq!(out, ["éé"]);
    let props = format!("{LINES}TRUNCATE = 0\n");
    let (out, truncated) = break_chunks(&props, &[&[b'x'; 20_000]]);
    assert_eq!((out[0].len(), truncated), (20_000, 0));
}

#[test]
fn invalid_utf8_is_replaced_not_rejected() {
    let (out, _) = break_chunks(LINES, &[b"ok\n\xff\xfebad \xc3", b"\xa9 split\n"]);
    assert_eq!(out, ["ok", "\u{fffd}\u{fffd}bad é split"]);
    let (out, _) = break_chunks(&format!("{LINES}CHARSET = ISO-8859-1\n"), &[b"caf\xe9\n"]);
    assert_eq!(out, ["café"]);
}

#[test]
fn hundred_megabyte_line_is_truncated_in_bounded_memory() {
    let mut b = breaker(LINES);
    let chunk = vec![b'a'; 64 * 1024];
    let mut out = Vec::new();
    let mut max_buffered = 0;
    for _ in 0..(100 * 1024 * 1024 / chunk.len()) {
        b.push(&chunk, &mut out);
        max_buffered = max_buffered.max(b.buffered());
    }
    b.push(b"\nnext line\n", &mut out);
    b.finish(&mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].len(), 10_000);
    assert_eq!(out[1], "next line");
    assert_eq!(b.truncated, 1);
    assert!(
        max_buffered < 10_000 + 100 + 2 * chunk.len(),
        "buffered {max_buffered} bytes"
    );
}

/// Splits `data` at the given cut points.
fn chunked(data: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    cuts.sort();
    let mut out = Vec::new();
    let mut last = 0;
    for c in cuts {
        out.push(data[last..c].to_vec());
        last = c;
    }
    out.push(data[last..].to_vec());
    out
}

fn arb_data() -> impl Strategy<Value = Vec<u8>> {
    // Small alphabet so that breaks, long lines and multi-byte characters are frequent.
    let piece = prop_oneof![
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"ab".to_vec()),
        Just("é".as_bytes().to_vec()),
        Just(b"\xff".to_vec()),
        Just(b";;".to_vec()),
        Just(b"2020-".to_vec()),
        Just(b"xxxxxxxxxxxxxxxxxxxx".to_vec()),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(data in arb_data(), cuts in prop::collection::vec(0usize..2000, 0..8)) {
        for props in [
            format!("{LINES}TRUNCATE = 30\n"),
            format!("{LINES}TRUNCATE = 30\nLINE_BREAKER = (;;)\n"),
            format!("{LINES}TRUNCATE = 0\nLINE_BREAKER = ([\\r\\n]+)2020-\n"),
            format!("{LINES}TRUNCATE = 25\nLINE_BREAKER = ()2020-\n"),
        ] {
            let whole = break_chunks(&props, &[&data]);
            let parts = chunked(&data, &cuts);
            let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
            prop_assert_eq!(break_chunks(&props, &refs), whole);
        }
    }

    /// Naive twin: the memchr fast path equals the regex path for `([\r\n]+)`.
    #[test]
    fn fast_newline_path_equals_regex_path(data in arb_data(), cuts in prop::collection::vec(0usize..2000, 0..4)) {
        let parts = chunked(&data, &cuts);
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        let fast = break_chunks(&format!("{LINES}TRUNCATE = 30\n"), &refs);
        // Written differently so it does not take the fast path.
        let slow = break_chunks(&format!("{LINES}TRUNCATE = 30\nLINE_BREAKER = ((?:\\r|\\n)+)\n"), &refs);
        prop_assert_eq!(fast, slow);
    }
}

#[test]
fn resolved_settings_are_shared_per_stream_key() {
    let (s, _) = settings_with(LINES, "");
    let m = SourceMeta {
        sourcetype: "lines".into(),
        ..SourceMeta::default()
    };
    assert!(Arc::ptr_eq(&s.resolve(&m), &s.resolve(&m)));
}
