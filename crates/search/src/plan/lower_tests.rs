//! One test per lowering rule.

use super::*;
use lode_spl::ast::TimeBound;

fn t(s: &str) -> TermQuery {
    TermQuery::Term(s.as_bytes().to_vec())
}

fn word(s: &str) -> SearchExpr {
    SearchExpr::Term(Term {
        text: s.into(),
        quoted: false,
        whole: false,
        case: false,
    })
}

fn phrase(s: &str) -> SearchExpr {
    SearchExpr::Term(Term {
        text: s.into(),
        quoted: true,
        whole: false,
        case: false,
    })
}

fn cmp(field: &str, op: CmpOp, value: &str) -> SearchExpr {
    SearchExpr::Compare {
        field: field.into(),
        op,
        value: value.into(),
        quoted: false,
    }
}

fn low(e: &SearchExpr) -> Lowered {
    lower(Some(e))
}

#[test]
fn bare_term_is_exact_lowercased_term() {
    assert_eq!(
        low(&word("ERROR")),
        Lowered {
            query: t("error"),
            exact: true
        }
    );
    assert_eq!(
        low(&word("10.0.0.1")),
        Lowered {
            query: t("10.0.0.1"),
            exact: true
        }
    );
}

#[test]
fn too_long_term_scans() {
    let long = "x".repeat(MAX_TOKEN_LEN + 1);
    assert_eq!(low(&word(&long)).query, TermQuery::All);
}

#[test]
fn term_with_major_breakers_is_and_of_safe_tokens() {
    let q = low(&word("a[bc]d")).query;
    assert_eq!(q, t("bc"));
    assert!(!low(&word("a[bc]d")).exact);
}

#[test]
fn phrase_is_and_of_safe_tokens() {
    let l = low(&phrase("user admin logged in"));
    assert_eq!(l.query, TermQuery::And(vec![t("admin"), t("logged")]));
    assert!(!l.exact);
    assert_eq!(low(&phrase("one")).query, TermQuery::All);
}

#[test]
fn whole_term_is_an_exact_term() {
    let e = SearchExpr::Term(Term {
        text: "10.0.0.1".into(),
        quoted: false,
        whole: true,
        case: false,
    });
    assert_eq!(
        low(&e),
        Lowered {
            query: t("10.0.0.1"),
            exact: true
        }
    );
}

#[test]
fn trailing_wildcard_is_prefix() {
    assert_eq!(
        low(&word("Fail*")).query,
        TermQuery::Prefix(b"fail".to_vec())
    );
    assert_eq!(low(&word("f**")).query, TermQuery::Prefix(b"f".to_vec()));
}

#[test]
fn inner_wildcards_are_glob_with_literal() {
    assert_eq!(
        low(&word("*rror")).query,
        TermQuery::Glob(b"*rror".to_vec())
    );
    assert_eq!(
        low(&word("a**bc*")).query,
        TermQuery::Glob(b"a*bc*".to_vec())
    );
    assert_eq!(
        low(&word("*a*b*")),
        Lowered {
            query: TermQuery::All,
            exact: false
        }
    );
    assert_eq!(
        low(&word("*")),
        Lowered {
            query: TermQuery::All,
            exact: true
        }
    );
}

#[test]
fn wildcard_with_major_breaker_scans() {
    assert_eq!(low(&word("a(b*")).query, TermQuery::All);
}

#[test]
fn indexed_fields_are_field_terms() {
    assert_eq!(
        low(&cmp("host", CmpOp::Eq, "Web01")).query,
        t("host::web01")
    );
    assert_eq!(
        low(&cmp("sourcetype", CmpOp::Eq, "access*")).query,
        TermQuery::Prefix(b"sourcetype::access".to_vec())
    );
    assert_eq!(
        low(&cmp("host", CmpOp::Eq, "*01")).query,
        TermQuery::Glob(b"host::*01".to_vec())
    );
    assert_eq!(low(&cmp("host", CmpOp::Eq, "*")).query, TermQuery::All);
}

#[test]
fn plain_field_value_is_indexed_field_or_value_parts() {
    assert_eq!(
        low(&cmp("status", CmpOp::Eq, "OK")).query,
        TermQuery::Or(vec![t("status::ok"), t("ok")])
    );
    assert_eq!(
        low(&cmp("ip", CmpOp::Eq, "10.0.0.9")).query,
        TermQuery::Or(vec![
            t("ip::10.0.0.9"),
            TermQuery::And(vec![t("0"), t("10"), t("9")])
        ])
    );
}

#[test]
fn numeric_field_values_use_the_index() {
    // `=` compares text, as Splunk's lispy does: `status=404` needs the term `404`.
    assert_eq!(
        low(&cmp("status", CmpOp::Eq, "404")).query,
        TermQuery::Or(vec![t("status::404"), t("404")])
    );
    assert_eq!(low(&cmp("host", CmpOp::Eq, "1")).query, t("host::1"));
}

#[test]
fn non_plain_field_values_scan() {
    assert_eq!(low(&cmp("msg", CmpOp::Eq, "a b")).query, TermQuery::All);
    assert_eq!(low(&cmp("user", CmpOp::Eq, "adm*")).query, TermQuery::All);
}

#[test]
fn computed_fields_scan() {
    assert_eq!(low(&cmp("index", CmpOp::Eq, "main")).query, TermQuery::All);
    assert_eq!(low(&cmp("linecount", CmpOp::Eq, "2")).query, TermQuery::All);
}

#[test]
fn other_operators_scan() {
    for op in [CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
        assert_eq!(low(&cmp("host", op, "a")).query, TermQuery::All);
    }
}

#[test]
fn not_of_exact_is_complement() {
    let e = SearchExpr::Not(Box::new(word("debug")));
    assert_eq!(
        low(&e),
        Lowered {
            query: TermQuery::Not(Box::new(t("debug"))),
            exact: true
        }
    );
    let double = SearchExpr::Not(Box::new(e));
    assert_eq!(low(&double).query, t("debug"));
}

#[test]
fn not_of_superset_scans() {
    let e = SearchExpr::Not(Box::new(word("a[b c]d")));
    assert_eq!(low(&e).query, TermQuery::All);
    let e = SearchExpr::Not(Box::new(word("fail*")));
    assert_eq!(
        low(&e).query,
        TermQuery::Not(Box::new(TermQuery::Prefix(b"fail".to_vec())))
    );
}

#[test]
fn and_drops_scans_and_flattens() {
    let e = SearchExpr::And(vec![
        word("a"),
        SearchExpr::And(vec![word("b"), cmp("x", CmpOp::Ne, "1")]),
    ]);
    assert_eq!(
        low(&e),
        Lowered {
            query: TermQuery::And(vec![t("a"), t("b")]),
            exact: false
        }
    );
    let all = SearchExpr::And(vec![cmp("x", CmpOp::Gt, "1")]);
    assert_eq!(low(&all).query, TermQuery::All);
}

#[test]
fn or_with_scan_scans() {
    let e = SearchExpr::Or(vec![word("a"), cmp("x", CmpOp::Gt, "1")]);
    assert_eq!(low(&e).query, TermQuery::All);
    let e = SearchExpr::Or(vec![word("a"), SearchExpr::Or(vec![word("b"), word("c")])]);
    assert_eq!(
        low(&e),
        Lowered {
            query: TermQuery::Or(vec![t("a"), t("b"), t("c")]),
            exact: true
        }
    );
}

#[test]
fn time_bounds_are_always_true() {
    let tb = SearchExpr::TimeBound {
        bound: TimeBound::Earliest,
        value: "-1h".into(),
    };
    let e = SearchExpr::And(vec![tb.clone(), word("a")]);
    assert_eq!(
        low(&e),
        Lowered {
            query: t("a"),
            exact: true
        }
    );
    let e = SearchExpr::Or(vec![tb, word("fail*")]);
    assert_eq!(
        low(&e),
        Lowered {
            query: TermQuery::All,
            exact: true
        }
    );
}

#[test]
fn no_clause_selects_all_exactly() {
    assert_eq!(
        lower(None),
        Lowered {
            query: TermQuery::All,
            exact: true
        }
    );
}

#[test]
fn required_terms_are_top_level_and_terms() {
    let q = TermQuery::And(vec![
        t("a"),
        TermQuery::Prefix(b"b".to_vec()),
        TermQuery::Or(vec![t("c"), t("d")]),
        TermQuery::And(vec![t("e")]),
    ]);
    let mut out = Vec::new();
    required_terms(&q, &mut out);
    assert_eq!(out, vec![b"a".to_vec(), b"e".to_vec()]);
}

#[test]
fn case_term_is_the_lowercased_term_and_not_exact() {
    let e = SearchExpr::Term(Term {
        text: "ERROR".into(),
        quoted: false,
        whole: false,
        case: true,
    });
    assert_eq!(
        low(&e),
        Lowered {
            query: t("error"),
            exact: false
        }
    );
}
