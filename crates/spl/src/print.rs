//! Canonical SPL text for a syntax tree.
//!
//! The output always starts with the `search` keyword (or `| ` when the first command is not a
//! search), quotes names and values only when they would not read back as one bare word, writes
//! options only when they differ from their defaults, and adds parentheses only where
//! precedence needs them. For every tree the parser produces, `parse(print(t)) == t`.

use std::fmt::Write;

mod clause;
mod compose;
mod data;
mod join;
mod reshape;

use crate::ast::{Agg, Command, Expr, Pipeline, SortKey, SortMode, TimeUnit, Timechart, Top};
use crate::lexer::{is_word, push_quoted, Mode};
use clause::{expr, search, Ctx};

/// Renders a pipeline as canonical SPL.
pub fn print(p: &Pipeline) -> String {
    let mut out = String::new();
    for (i, c) in p.commands.iter().enumerate() {
        match (i, c) {
            (0, Command::Search(_)) => {}
            (0, _) => out.push_str("| "),
            _ => out.push_str(" | "),
        }
        command(&mut out, c);
    }
    out
}

/// Renders one expression as it would be written in `eval`/`where`.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    expr(&mut out, e, 0);
    out
}

fn command(out: &mut String, c: &Command) {
    match c {
        Command::Search(None) => out.push_str("search *"),
        Command::Search(Some(e)) => {
            out.push_str("search ");
            search(out, e, Ctx::Top);
        }
        Command::Data(d) => data::data(out, d),
        Command::Where(e) => {
            out.push_str("where ");
            expr(out, e, 0);
        }
        Command::Append(_) | Command::AppendCols(_) | Command::Union(_) | Command::Join(_) => {
            join::join(out, c)
        }
        Command::Format(f) => compose::format(out, f),
        Command::Return(r) => compose::return_(out, r),
        Command::AppendPipe(cmds) => compose::appendpipe(out, cmds, command),
        Command::Eval(assignments) => {
            out.push_str("eval ");
            for (i, (name, e)) in assignments.iter().enumerate() {
                sep(out, i, ", ");
                push_name(out, name);
                out.push('=');
                expr(out, e, 0);
            }
        }
        Command::Fields { remove, fields } => {
            out.push_str(if *remove { "fields - " } else { "fields " });
            names(out, fields);
        }
        Command::Table(fields) => {
            out.push_str("table ");
            names(out, fields);
        }
        Command::Rename(pairs) => {
            out.push_str("rename ");
            for (i, (from, to)) in pairs.iter().enumerate() {
                sep(out, i, ", ");
                push_name(out, from);
                out.push_str(" AS ");
                push_name(out, to);
            }
        }
        Command::Sort { limit, keys } => {
            out.push_str("sort ");
            if let Some(n) = limit {
                let _ = write!(out, "{n} ");
            }
            for (i, k) in keys.iter().enumerate() {
                sep(out, i, ", ");
                sort_key(out, k);
            }
        }
        Command::Head(n) => {
            let _ = write!(out, "head {n}");
        }
        Command::Tail(n) => {
            let _ = write!(out, "tail {n}");
        }
        Command::Dedup {
            count,
            fields,
            keepempty,
            consecutive,
            sortby,
        } => {
            out.push_str("dedup ");
            if *count != 1 {
                let _ = write!(out, "{count} ");
            }
            names(out, fields);
            flag(out, "keepempty", *keepempty, false);
            flag(out, "consecutive", *consecutive, false);
            if !sortby.is_empty() {
                out.push_str(" sortby ");
                for (i, k) in sortby.iter().enumerate() {
                    sep(out, i, ", ");
                    sort_key(out, k);
                }
            }
        }
        Command::Rex {
            field,
            pattern,
            max_match,
            sed,
            offset_field,
        } => {
            out.push_str("rex ");
            if field != "_raw" {
                out.push_str("field=");
                push_name(out, field);
                out.push(' ');
            }
            if *max_match != 1 {
                let _ = write!(out, "max_match={max_match} ");
            }
            if *sed {
                out.push_str("mode=sed ");
            }
            if let Some(o) = offset_field {
                out.push_str("offset_field=");
                push_name(out, o);
                out.push(' ');
            }
            push_quoted(out, pattern, '"');
        }
        Command::Stats(s) | Command::EventStats(s) => {
            out.push_str(if matches!(c, Command::Stats(_)) {
                "stats "
            } else {
                "eventstats "
            });
            if s.dedup_splitvals {
                out.push_str("dedup_splitvals=t ");
            }
            aggs(out, &s.aggs);
            if !s.by.is_empty() {
                out.push_str(" by ");
                names(out, &s.by);
            }
        }
        Command::StreamStats(st) => {
            out.push_str("streamstats ");
            if st.window != 0 {
                let _ = write!(out, "window={} ", st.window);
            }
            if let Some(t) = st.time_window {
                let _ = write!(out, "time_window={} ", reshape::time_span(t));
            }
            for (key, value, default) in [
                ("current", st.current, true),
                ("global", st.global, true),
                ("reset_on_change", st.reset_on_change, false),
                ("allnum", st.allnum, false),
            ] {
                if value != default {
                    let _ = write!(out, "{key}={} ", if value { "t" } else { "f" });
                }
            }
            for (key, e) in [
                ("reset_before", &st.reset_before),
                ("reset_after", &st.reset_after),
            ] {
                if let Some(e) = e {
                    out.push_str(key);
                    out.push('=');
                    crate::lexer::push_quoted(out, &format!("({})", print_expr(e)), '"');
                    out.push(' ');
                }
            }
            aggs(out, &st.stats.aggs);
            if !st.stats.by.is_empty() {
                out.push_str(" by ");
                names(out, &st.stats.by);
            }
        }
        Command::Accum { field, alias } => {
            out.push_str("accum ");
            field_alias(out, field, alias);
        }
        Command::Delta { field, alias, p } => {
            out.push_str("delta ");
            field_alias(out, field, alias);
            if *p != 1 {
                let _ = write!(out, " p={p}");
            }
        }
        Command::Regex {
            field,
            negate,
            pattern,
        } => {
            out.push_str("regex ");
            if field != "_raw" || *negate {
                out.push_str(field);
                out.push_str(if *negate { "!=" } else { "=" });
            }
            push_quoted(out, pattern, '"');
        }
        Command::Reverse => out.push_str("reverse"),
        Command::FillNull { value, fields } => {
            out.push_str("fillnull");
            if value != "0" {
                out.push_str(" value=");
                push_name(out, value);
            }
            if !fields.is_empty() {
                out.push(' ');
                names(out, fields);
            }
        }
        Command::Timechart(t) => timechart(out, t),
        Command::Top(t) => top(out, t),
        Command::Bin(_)
        | Command::Chart(_)
        | Command::MakeMv { .. }
        | Command::MvExpand { .. }
        | Command::MvCombine { .. }
        | Command::NoMv(_)
        | Command::FillDown(_)
        | Command::AutoRegress { .. }
        | Command::AddTotals(_)
        | Command::AddColTotals { .. }
        | Command::Uniq
        | Command::Replace { .. }
        | Command::Convert { .. }
        | Command::Transaction(_)
        | Command::Spath { .. }
        | Command::Extract { .. }
        | Command::XmlKv => reshape::command(out, c),
    }
}

/// `field [AS alias]`.
fn field_alias(out: &mut String, field: &str, alias: &Option<String>) {
    push_name(out, field);
    if let Some(a) = alias {
        out.push_str(" AS ");
        push_name(out, a);
    }
}

pub(crate) fn sep(out: &mut String, i: usize, s: &str) {
    if i > 0 {
        out.push_str(s);
    }
}

/// ` key=t|f` when `value` differs from `default`.
fn flag(out: &mut String, key: &str, value: bool, default: bool) {
    if value != default {
        let _ = write!(out, " {key}={}", if value { "t" } else { "f" });
    }
}

/// A field name in command arguments: bare when it reads back as itself, else quoted.
fn push_name(out: &mut String, name: &str) {
    push_name_except(out, name, &[]);
}

/// [`push_name`], also quoting the (lowercase) words in `reserved`.
fn push_name_except(out: &mut String, name: &str, reserved: &[&str]) {
    let lower = name.to_ascii_lowercase();
    let reserved = matches!(lower.as_str(), "by" | "as" | "sortby")
        || reserved.contains(&lower.as_str())
        || name.starts_with(['+', '-'])
        || name.bytes().all(|b| b.is_ascii_digit());
    if !reserved && is_word(name, Mode::Args) {
        out.push_str(name);
    } else {
        push_quoted(out, name, '"');
    }
}

fn names(out: &mut String, list: &[String]) {
    for (i, n) in list.iter().enumerate() {
        sep(out, i, ", ");
        push_name(out, n);
    }
}

fn sort_key(out: &mut String, k: &SortKey) {
    if k.descending {
        out.push('-');
    }
    let mode = match k.mode {
        SortMode::Auto => None,
        SortMode::Num => Some("num"),
        SortMode::Str => Some("str"),
    };
    match mode {
        Some(m) => {
            out.push_str(m);
            out.push('(');
            push_name(out, &k.field);
            out.push(')');
        }
        // A last key named `desc` would read back as the reversing suffix.
        None => push_name_except(out, &k.field, &["desc", "d"]),
    }
}

fn aggs(out: &mut String, list: &[Agg]) {
    for (i, a) in list.iter().enumerate() {
        sep(out, i, ", ");
        out.push_str(&a.func);
        if let Some(e) = &a.eval {
            out.push_str("(eval(");
            expr(out, e, 0);
            out.push_str("))");
        }
        if let Some(f) = &a.field {
            out.push('(');
            push_name(out, f);
            out.push(')');
        }
        if let Some(alias) = &a.alias {
            out.push_str(" AS ");
            push_name(out, alias);
        }
    }
}

fn timechart(out: &mut String, t: &Timechart) {
    out.push_str("timechart ");
    if let Some(s) = t.span {
        let unit = match s.unit {
            TimeUnit::Second => "s",
            TimeUnit::Minute => "m",
            TimeUnit::Hour => "h",
            TimeUnit::Day => "d",
            TimeUnit::Week => "w",
            TimeUnit::Month => "mon",
            TimeUnit::Year => "y",
        };
        let _ = write!(out, "span={}{unit} ", s.count);
    }
    if t.bins != 100 {
        let _ = write!(out, "bins={} ", t.bins);
    }
    if t.limit != 10 {
        let _ = write!(out, "limit={} ", t.limit);
    }
    if !t.useother {
        out.push_str("useother=f ");
    }
    if !t.usenull {
        out.push_str("usenull=f ");
    }
    if !t.cont {
        out.push_str("cont=f ");
    }
    aggs(out, &t.aggs);
    if let Some(by) = &t.by {
        out.push_str(" by ");
        push_name(out, by);
    }
}

fn top(out: &mut String, t: &Top) {
    out.push_str(if t.rare { "rare " } else { "top " });
    if t.limit != 10 {
        let _ = write!(out, "limit={} ", t.limit);
    }
    if t.countfield != "count" {
        out.push_str("countfield=");
        push_name(out, &t.countfield);
        out.push(' ');
    }
    if t.percentfield != "percent" {
        out.push_str("percentfield=");
        push_name(out, &t.percentfield);
        out.push(' ');
    }
    if !t.showcount {
        out.push_str("showcount=f ");
    }
    if !t.showperc {
        out.push_str("showperc=f ");
    }
    if t.useother {
        out.push_str("useother=t ");
    }
    if t.otherstr != "OTHER" {
        out.push_str("otherstr=");
        push_name(out, &t.otherstr);
        out.push(' ');
    }
    names(out, &t.fields);
    if !t.by.is_empty() {
        out.push_str(" by ");
        names(out, &t.by);
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse, print};

    /// The canonical form of `q`.
    fn canon(q: &str) -> String {
        print(&parse(q).unwrap_or_else(|e| panic!("{}", e.render(q))))
    }

    #[test]
    fn search_clause_canonical_text() {
        assert_eq!(canon("a b OR c"), "search a b OR c");
        assert_eq!(canon("(a b) OR c"), "search (a b) OR c");
        assert_eq!(canon("a (b c)"), "search a (b c)");
        assert_eq!(canon("a OR (b OR c)"), "search a OR (b OR c)");
        assert_eq!(canon("NOT (a OR b) NOT c"), "search NOT (a OR b) NOT c");
        assert_eq!(canon("a AND b"), "search a b");
        assert_eq!(canon("((a))"), "search a");
        assert_eq!(canon(""), "search *");
        assert_eq!(
            canon(r#"x="a b" y="c" z=d* "p \"q\"" TERM(1.2) TERM("a b") earliest="-1d@d""#),
            r#"search x="a b" y="c" z=d* "p \"q\"" TERM(1.2) TERM("a b") earliest=-1d@d"#
        );
        assert_eq!(canon("f IN (a, \"b c\")"), r#"search f=a OR f="b c""#);
        assert_eq!(canon("\"AND\" \"x\\\\y\""), r#"search "AND" "x\y""#);
    }

    #[test]
    fn expressions_canonical_text() {
        assert_eq!(
            canon("x | where (a=1 OR b=2) AND NOT c"),
            "search x | where (a = 1 OR b = 2) AND NOT c"
        );
        assert_eq!(
            canon("x | eval a=(1+2)*-3, b='x y'.\"s\", c=-(4), d=a-(b-c), e=(NOT a)=b"),
            "search x | eval a=(1 + 2) * -3, b='x y' . \"s\", c=-(4), d=a - (b - c), e=(NOT a) = b"
        );
        assert_eq!(
            canon("x | eval n=1e20+0.0000001"),
            "search x | eval n=1e20 + 1e-7"
        );
        assert_eq!(
            canon("x | eval n=IF(a, true(), null())"),
            "search x | eval n=if(a, true(), null())"
        );
    }

    #[test]
    fn commands_canonical_text_omits_defaults() {
        assert_eq!(
            canon("x | STATS Count, Mean(b) As m BY h s"),
            "search x | stats count, mean(b) AS m by h, s"
        );
        assert_eq!(
            canon("x | timechart count span=1hr limit=10 useother=t"),
            "search x | timechart span=1h count"
        );
        assert_eq!(
            canon("x | timechart bins=5 usenull=f avg(b) by h"),
            "search x | timechart bins=5 usenull=f avg(b) by h"
        );
        assert_eq!(
            canon("x | top limit=10 showcount=t a by b | rare limit=2 countfield=n c"),
            "search x | top a by b | rare limit=2 countfield=n c"
        );
        assert_eq!(
            canon("x | sort - a +b num(c) desc | sort \"d\" | sort \"1\""),
            "search x | sort a, -b, -num(c) | sort \"d\" | sort \"1\""
        );
        assert_eq!(
            canon("x | dedup 1 a b keepempty=f | dedup 2 c consecutive=t"),
            "search x | dedup a, b | dedup 2 c consecutive=t"
        );
        assert_eq!(
            canon("x | rex field=_raw max_match=1 \"a\\\"b\" | rex field=\"m m\" \"(?<x>\\d)\""),
            r#"search x | rex "a\"b" | rex field="m m" "(?<x>\d)""#
        );
        assert_eq!(
            canon("x | fields + a | fields - b | table \"by\", c | rename a as b"),
            r#"search x | fields a | fields - b | table "by", c | rename a AS b"#
        );
        assert_eq!(canon("x | head | tail 3"), "search x | head 10 | tail 3");
    }
}
