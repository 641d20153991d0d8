//! Result rows as search text: Splunk's `format` (the implicit last step of every subsearch) and
//! `return`.

use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::{Format, Return, ReturnItem};

/// `name="value"` with `"` and `\` escaped.
fn pair(out: &mut String, name: &str, v: &Value) {
    out.push_str(name);
    out.push('=');
    quoted(out, &v.as_str());
}

fn quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// One field of a row: `f="v"`, `( f="a" OR f="b" )` for a multivalue, or the value itself
/// for the `search` and `query` fields; `None` for internal and empty fields.
fn column(name: &str, v: &Value, mvsep: &str) -> Option<String> {
    if name.starts_with('_') || v.is_null() {
        return None;
    }
    let mut out = String::new();
    if name == "search" || name == "query" {
        let vals: Vec<String> = v.iter_values().map(|x| x.as_str().into_owned()).collect();
        return Some(vals.join(&format!(" {mvsep} ")));
    }
    match v {
        Value::Multi(vals) => {
            out.push_str("( ");
            for (i, x) in vals.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                    out.push_str(mvsep);
                    out.push(' ');
                }
                pair(&mut out, name, x);
            }
            out.push_str(" )");
        }
        _ => pair(&mut out, name, v),
    }
    Some(out)
}

/// The search string `format` makes of `rows` (Splunk's layout:
/// `( ( a="1" AND b="2" ) OR ( a="3" ) )`); `emptystr` when no row has a formattable field.
pub fn format_rows(rows: &[Row], f: &Format) -> String {
    let [row_prefix, col_prefix, col_sep, col_end, row_sep, row_end] = &f.parts;
    let take = if f.maxresults == 0 {
        rows.len()
    } else {
        (f.maxresults as usize).min(rows.len())
    };
    let mut formatted = Vec::new();
    for r in &rows[..take] {
        let cols: Vec<String> = r
            .fields()
            .filter_map(|(n, v)| column(n, v, &f.mvsep))
            .collect();
        if cols.is_empty() {
            continue;
        }
        formatted.push(format!(
            "{col_prefix} {} {col_end}",
            cols.join(&format!(" {col_sep} "))
        ));
    }
    if formatted.is_empty() {
        return f.emptystr.clone();
    }
    format!(
        "{row_prefix} {} {row_end}",
        formatted.join(&format!(" {row_sep} "))
    )
}

/// The search text of a finished subsearch: when every row is just a `search` or `query` field
/// (the output of `format` or `return`), those values verbatim; otherwise [`format_rows`] with
/// the defaults.
pub fn subsearch_text(rows: &[Row]) -> String {
    let verbatim = !rows.is_empty()
        && rows.iter().all(|r| {
            let mut visible = r.fields().filter(|(n, _)| !n.starts_with('_'));
            matches!((visible.next(), visible.next()), (Some((n, _)), None) if n == "search" || n == "query")
        });
    if verbatim {
        let parts: Vec<String> = rows
            .iter()
            .filter_map(|r| {
                r.fields()
                    .find(|(n, _)| *n == "search" || *n == "query")
                    .map(|(_, v)| v.as_str().into_owned())
            })
            .collect();
        return parts.join(" OR ");
    }
    format_rows(rows, &Format::default())
}

/// The search text `return` makes of the first `count` rows: per row `f="v"`, `alias="v"` or the
/// bare value, space separated; several rows as `(…) OR (…)`.
pub fn return_rows(rows: &[Row], r: &Return) -> String {
    let mut parts = Vec::new();
    for row in rows.iter().take(r.count as usize) {
        let mut items = Vec::new();
        for item in &r.items {
            let (name, field) = match item {
                ReturnItem::Field(f) => (Some(f.as_str()), f),
                ReturnItem::Alias(a, f) => (Some(a.as_str()), f),
                ReturnItem::Value(f) => (None, f),
            };
            let Some(v) = row.peek(field).filter(|v| !v.is_null()) else {
                continue;
            };
            let mut s = String::new();
            match name {
                Some(n) => pair(&mut s, n, v),
                None => s.push_str(&v.as_str()),
            }
            items.push(s);
        }
        if !items.is_empty() {
            parts.push(items.join(" "));
        }
    }
    match parts.len() {
        1 => parts.pop().unwrap_or_default(),
        _ => parts
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" OR "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fields: &[(&str, Value)]) -> Row {
        Row::from_fields(fields.iter().map(|(n, v)| (n.to_string(), v.clone())))
    }

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn default_format_layout() {
        let rows = [
            row(&[("a", s("1")), ("b", s("x y")), ("_time", Value::Num(1.0))]),
            row(&[("a", Value::Num(3.0))]),
        ];
        assert_eq!(
            format_rows(&rows, &Format::default()),
            r#"( ( a="1" AND b="x y" ) OR ( a="3" ) )"#
        );
        assert_eq!(format_rows(&[], &Format::default()), "NOT ()");
        assert_eq!(
            format_rows(&[row(&[("_raw", s("x"))])], &Format::default()),
            "NOT ()"
        );
    }

    #[test]
    fn format_options_multivalue_and_search_field() {
        let rows = [
            row(&[("a", Value::Multi(vec![s("p"), s("q\"")]))]),
            row(&[("search", s("x=1 OR y=2"))]),
        ];
        let f = Format {
            mvsep: "||".into(),
            maxresults: 0,
            parts: ["[", "{", "&&", "}", "^", "]"].map(String::from),
            emptystr: "none".into(),
        };
        assert_eq!(
            format_rows(&rows, &f),
            r#"[ { ( a="p" || a="q\"" ) } ^ { x=1 OR y=2 } ]"#
        );
        let one = Format {
            maxresults: 1,
            ..Format::default()
        };
        assert_eq!(format_rows(&rows, &one), r#"( ( ( a="p" OR a="q\"" ) ) )"#);
    }

    #[test]
    fn subsearch_uses_search_field_verbatim() {
        assert_eq!(
            subsearch_text(&[row(&[("search", s("( ( a=\"1\" ) )"))])]),
            r#"( ( a="1" ) )"#
        );
        assert_eq!(subsearch_text(&[]), "NOT ()");
        assert_eq!(
            subsearch_text(&[row(&[("host", s("h1"))])]),
            r#"( ( host="h1" ) )"#
        );
    }

    #[test]
    fn return_forms() {
        let rows = [
            row(&[("ip", s("10.0.0.1")), ("user", s("bob"))]),
            row(&[("ip", s("10.0.0.2")), ("user", s("eve"))]),
        ];
        let r = |count, items| Return { count, items };
        assert_eq!(
            return_rows(&rows, &r(1, vec![ReturnItem::Field("ip".into())])),
            r#"ip="10.0.0.1""#
        );
        assert_eq!(
            return_rows(
                &rows,
                &r(
                    2,
                    vec![
                        ReturnItem::Alias("src".into(), "ip".into()),
                        ReturnItem::Value("user".into())
                    ]
                )
            ),
            r#"(src="10.0.0.1" bob) OR (src="10.0.0.2" eve)"#
        );
        assert_eq!(
            return_rows(&[], &r(1, vec![ReturnItem::Field("ip".into())])),
            ""
        );
    }
}
