//! Human-readable rendering of plan pieces for `explain`.

use lode_store::TermQuery;

use super::time::TimeRange;

/// Renders a term query as a lispy-like boolean expression: `error AND (fail* OR host::web01)`.
pub fn describe(q: &TermQuery) -> String {
    let mut out = String::new();
    write_query(q, true, &mut out);
    out
}

fn write_query(q: &TermQuery, top: bool, out: &mut String) {
    match q {
        TermQuery::All => out.push_str("ALL"),
        TermQuery::Term(t) => out.push_str(&String::from_utf8_lossy(t)),
        TermQuery::Prefix(p) => {
            out.push_str(&String::from_utf8_lossy(p));
            out.push('*');
        }
        TermQuery::Glob(g) => {
            out.push_str("glob:");
            out.push_str(&String::from_utf8_lossy(g));
        }
        TermQuery::Not(inner) => {
            out.push_str("NOT ");
            write_query(inner, false, out);
        }
        TermQuery::And(items) => write_list(items, " AND ", top, out),
        TermQuery::Or(items) => write_list(items, " OR ", top, out),
    }
}

fn write_list(items: &[TermQuery], sep: &str, top: bool, out: &mut String) {
    if !top {
        out.push('(');
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        write_query(item, false, out);
    }
    if !top {
        out.push(')');
    }
}

/// Renders a time range in µs as `[earliest, latest)` with `-inf`/`+inf` for open ends.
pub fn describe_range(r: &TimeRange) -> String {
    let e = r.earliest.map_or("-inf".to_string(), |t| t.to_string());
    let l = r.latest.map_or("+inf".to_string(), |t| t.to_string());
    format!("[{e}, {l}) µs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_queries_are_parenthesised() {
        let q = TermQuery::And(vec![
            TermQuery::Term(b"error".to_vec()),
            TermQuery::Or(vec![
                TermQuery::Prefix(b"fail".to_vec()),
                TermQuery::Term(b"host::web01".to_vec()),
            ]),
            TermQuery::Not(Box::new(TermQuery::Glob(b"*bug".to_vec()))),
        ]);
        assert_eq!(
            describe(&q),
            "error AND (fail* OR host::web01) AND NOT glob:*bug"
        );
        assert_eq!(describe(&TermQuery::All), "ALL");
    }

    #[test]
    fn open_ranges() {
        let r = TimeRange {
            earliest: Some(5),
            latest: None,
        };
        assert_eq!(describe_range(&r), "[5, +inf) µs");
    }
}
