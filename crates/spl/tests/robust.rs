//! No input makes the parser panic, and every error points inside the input.

use lode_spl::{parse, parse_expr, print, ParseError};
use proptest::prelude::*;

/// Checks the outcome for `text`: an error's span lies within it on char boundaries and
/// renders; a success prints to text that parses back to the same tree.
fn check(
    text: &str,
    result: Result<lode_spl::ast::Pipeline, ParseError>,
) -> Result<(), TestCaseError> {
    match result {
        Ok(p) => {
            let printed = print(&p);
            prop_assert_eq!(
                parse(&printed),
                Ok(p),
                "{:?} printed as {:?}",
                text,
                printed
            );
        }
        Err(e) => {
            prop_assert!(
                e.span.start <= e.span.end && e.span.end <= text.len(),
                "{:?}: {:?}",
                text,
                e
            );
            prop_assert!(text.is_char_boundary(e.span.start) && text.is_char_boundary(e.span.end));
            prop_assert!(e.render(text).starts_with(&e.message));
        }
    }
    Ok(())
}

/// Fragments of SPL, so random sequences reach deep into the grammar.
const PIECES: &[&str] = &[
    "search ",
    "| ",
    "|",
    "where ",
    "eval ",
    "stats ",
    "timechart ",
    "top ",
    "rare ",
    "sort ",
    "head ",
    "tail ",
    "dedup ",
    "rex ",
    "fields ",
    "table ",
    "rename ",
    " AS ",
    " by ",
    "AND ",
    "OR ",
    "NOT ",
    "XOR ",
    "(",
    ")",
    "\"",
    "'",
    "\\",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    ",",
    "+",
    "-",
    "*",
    "/",
    "%",
    ".",
    "!",
    "[",
    "]",
    "count",
    "avg(x)",
    "span=5m",
    "limit=3",
    "x",
    "10.0.0.1",
    "1e3",
    "-1.5",
    "TERM(",
    "IN ",
    "earliest=",
    "-24h@h",
    "if(",
    "null()",
    " ",
    "é",
    "\n",
    "\t",
    "desc",
    "num(",
    "0",
    "99999999999999999999999",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        check(&text, parse(&text))?;
        if let Err(e) = parse_expr(&text) {
            prop_assert!(e.span.end <= text.len());
        }
    }

    #[test]
    fn random_spl_fragments_never_panic(idx in proptest::collection::vec(0..PIECES.len(), 0..40)) {
        let text: String = idx.iter().map(|&i| PIECES[i]).collect();
        check(&text, parse(&text))?;
        if let Err(e) = parse_expr(&text) {
            prop_assert!(e.span.end <= text.len());
        }
    }
}

/// Every line of the loghub samples, searched as a search clause and as a quoted phrase:
/// no panic, valid spans, and successful parses round-trip.
#[test]
fn loghub_lines_as_searches() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("skipped: no loghub samples at {dir}");
        return;
    };
    let mut lines = 0;
    let mut parsed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "log") {
            continue;
        }
        let Ok(content) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in content.lines() {
            lines += 1;
            let r = parse(line);
            parsed += usize::from(r.is_ok());
            check(line, r).unwrap();
            let phrase = format!("\"{}\"", line.replace('\\', "\\\\").replace('"', "\\\""));
            let p = parse(&phrase).unwrap();
            let lode_spl::ast::Command::Search(Some(lode_spl::ast::SearchExpr::Term(t))) =
                &p.commands[0]
            else {
                panic!("{phrase} gave {p:?}");
            };
            assert_eq!(t.text, line);
            assert!(t.quoted);
        }
    }
    assert!(lines > 0);
    eprintln!("{parsed} of {lines} loghub lines parse as searches");
}
