//! Search-clause syntax of issue 4: each form parses to what it means and prints back to text
//! that parses to the same tree.

use lode_spl::{parse, print};

/// Parses `q`, prints it, parses the print, and checks both trees are the same; returns the
/// printed text.
fn round_trip(q: &str) -> String {
    let a = parse(q).unwrap_or_else(|e| panic!("{q:?}: {}", e.render(q)));
    let printed = print(&a);
    let b = parse(&printed).unwrap_or_else(|e| panic!("{printed:?}: {}", e.render(&printed)));
    assert_eq!(a, b, "{q:?} printed as {printed:?}");
    printed
}

#[test]
fn comments_vanish_anywhere() {
    let plain = parse("error host=web* | stats count by host | sort -count").unwrap();
    for q in [
        "```why``` error host=web* | stats count by host | sort -count",
        "error ```a | b``` host=web* | stats count by host | sort -count",
        "error host=web*```x``` | stats count ```(by what)``` by host | sort -count```end```",
        "error host=web* |```\nmulti\nline\n``` stats count by host | sort -count",
    ] {
        assert_eq!(parse(q).unwrap(), plain, "{q:?}");
        round_trip(q);
    }
    let with = parse("x | eval a=1 ```one``` + 2").unwrap();
    assert_eq!(with, parse("x | eval a=1 + 2").unwrap());
    // Inside quotes it is text.
    let printed = round_trip(r#"x | eval a="```not a comment```""#);
    assert!(printed.contains("```not a comment```"), "{printed}");
}

#[test]
fn unclosed_comment_is_an_error() {
    let q = "error ```forgot to close | head";
    let e = parse(q).unwrap_err();
    assert!(e.message.contains("Unclosed comment"), "{}", e.message);
    assert_eq!(&q[e.span.start..e.span.end], "```");
}

#[test]
fn case_and_term_directives_round_trip() {
    for q in [
        "CASE(Error) host=web*",
        r#"CASE("Disk Full") OR TERM(10.0.0.1)"#,
        "NOT CASE(ERR*)",
    ] {
        round_trip(q);
    }
    assert_eq!(round_trip("case(Error)"), "search CASE(Error)");
}

#[test]
fn index_time_bounds_round_trip() {
    round_trip("_index_earliest=-7d@w1 _index_latest=@mon+1h error");
    round_trip(r#"_index_latest="11/14/2023:22:20:00""#);
}
