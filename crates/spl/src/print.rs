//! Canonical SPL text for a syntax tree.
//!
//! The output always starts with the `search` keyword (or `| ` when the first command is not a
//! search), quotes names and values only when they would not read back as one bare word, writes
//! options only when they differ from their defaults, and adds parentheses only where
//! precedence needs them. For every tree the parser produces, `parse(print(t)) == t`.

use std::fmt::Write;

use crate::ast::{
    Agg, BinOp, CmpOp, Command, Expr, Pipeline, SearchExpr, SortKey, SortMode, TimeBound, TimeUnit,
    Timechart, Top, UnaryOp,
};
use crate::lexer::{ident_end, is_word, push_quoted, Mode};

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
        Command::Where(e) => {
            out.push_str("where ");
            expr(out, e, 0);
        }
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
        } => {
            out.push_str("dedup ");
            if *count != 1 {
                let _ = write!(out, "{count} ");
            }
            names(out, fields);
            flag(out, "keepempty", *keepempty, false);
            flag(out, "consecutive", *consecutive, false);
        }
        Command::Rex {
            field,
            pattern,
            max_match,
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
            push_quoted(out, pattern, '"');
        }
        Command::Stats(s) => {
            out.push_str("stats ");
            aggs(out, &s.aggs);
            if !s.by.is_empty() {
                out.push_str(" by ");
                names(out, &s.by);
            }
        }
        Command::Timechart(t) => timechart(out, t),
        Command::Top(t) => top(out, t),
    }
}

fn sep(out: &mut String, i: usize, s: &str) {
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
    names(out, &t.fields);
    if !t.by.is_empty() {
        out.push_str(" by ");
        names(out, &t.by);
    }
}

/// Where a search node sits, for deciding parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// The whole clause.
    Top,
    /// An item of an `AND` list.
    And,
    /// An item of an `OR` list.
    Or,
    /// The operand of `NOT`.
    Not,
}

fn search(out: &mut String, e: &SearchExpr, ctx: Ctx) {
    match e {
        SearchExpr::And(items) | SearchExpr::Or(items) => {
            let is_and = matches!(e, SearchExpr::And(_));
            let parens = ctx == Ctx::Not || ctx == Ctx::Or || (is_and && ctx == Ctx::And);
            let (joiner, inner) = if is_and {
                (" ", Ctx::And)
            } else {
                (" OR ", Ctx::Or)
            };
            if parens {
                out.push('(');
            }
            for (i, item) in items.iter().enumerate() {
                sep(out, i, joiner);
                search(out, item, inner);
            }
            if parens {
                out.push(')');
            }
        }
        SearchExpr::Not(inner) => {
            out.push_str("NOT ");
            search(out, inner, Ctx::Not);
        }
        SearchExpr::Term(t) => {
            if t.whole {
                out.push_str("TERM(");
            }
            let bare = !t.quoted
                && is_word(&t.text, Mode::Search)
                && !matches!(t.text.as_str(), "AND" | "OR" | "NOT");
            if bare {
                out.push_str(&t.text);
            } else {
                push_quoted(out, &t.text, '"');
            }
            if t.whole {
                out.push(')');
            }
        }
        SearchExpr::Compare {
            field,
            op,
            value,
            quoted,
        } => {
            out.push_str(field);
            out.push_str(cmp_op(*op));
            search_value(out, value, *quoted);
        }
        SearchExpr::TimeBound { bound, value } => {
            out.push_str(match bound {
                TimeBound::Earliest => "earliest=",
                TimeBound::Latest => "latest=",
            });
            search_value(out, value, false);
        }
    }
}

fn search_value(out: &mut String, value: &str, quoted: bool) {
    if !quoted && is_word(value, Mode::Search) {
        out.push_str(value);
    } else {
        push_quoted(out, value, '"');
    }
}

fn is_keyword(s: &str) -> bool {
    matches!(s, "AND" | "OR" | "NOT" | "XOR")
}

fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Binding strength of an expression node (higher binds tighter).
fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, _, _) => bin_prec(*op),
        Expr::Unary(UnaryOp::Not, _) => 4,
        Expr::Unary(UnaryOp::Neg, _) => 8,
        _ => 9,
    }
}

fn bin_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::Xor => 2,
        BinOp::And => 3,
        BinOp::Cmp(_) => 5,
        BinOp::Add | BinOp::Sub | BinOp::Concat => 6,
        BinOp::Mul | BinOp::Div | BinOp::Mod => 7,
    }
}

/// Writes `e`, in parentheses if it binds looser than `min`.
fn expr(out: &mut String, e: &Expr, min: u8) {
    let own = prec(e);
    if own < min {
        out.push('(');
    }
    match e {
        Expr::Str(s) => push_quoted(out, s, '"'),
        Expr::Num(v) => push_num(out, *v),
        Expr::Bool(b) => out.push_str(if *b { "true()" } else { "false()" }),
        Expr::Null => out.push_str("null()"),
        Expr::Field(name) => {
            let bare = !name.is_empty() && ident_end(name, 0) == name.len() && !is_keyword(name);
            if bare {
                out.push_str(name);
            } else {
                push_quoted(out, name, '\'');
            }
        }
        Expr::Unary(UnaryOp::Not, inner) => {
            out.push_str("NOT ");
            expr(out, inner, 4);
        }
        Expr::Unary(UnaryOp::Neg, inner) => {
            out.push('-');
            // `-1` would read back as the literal -1, so a negated number keeps its parentheses.
            expr(
                out,
                inner,
                if matches!(**inner, Expr::Num(_)) {
                    10
                } else {
                    8
                },
            );
        }
        Expr::Binary(op, l, r) => {
            expr(out, l, own);
            out.push(' ');
            out.push_str(match op {
                BinOp::Or => "OR",
                BinOp::Xor => "XOR",
                BinOp::And => "AND",
                BinOp::Cmp(c) => cmp_op(*c),
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Concat => ".",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Mod => "%",
            });
            out.push(' ');
            expr(out, r, own + 1);
        }
        Expr::Call(name, args) => {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                sep(out, i, ", ");
                expr(out, a, 0);
            }
            out.push(')');
        }
    }
    if own < min {
        out.push(')');
    }
}

/// A number that reads back to the same `f64`: plain digits in the usual range, exponent
/// notation for very large or small magnitudes.
fn push_num(out: &mut String, v: f64) {
    let a = v.abs();
    if a != 0.0 && !(1e-6..1e16).contains(&a) {
        let _ = write!(out, "{v:e}");
    } else {
        let _ = write!(out, "{v}");
    }
}
