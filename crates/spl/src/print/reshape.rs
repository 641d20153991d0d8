//! Canonical text of the reshaping commands (`bin`, `chart`, `makemv`, … `convert`).

use std::fmt::Write;

use super::clause::{expr, search, Ctx};
use super::{aggs, flag, names, push_name, push_name_except, sep};
use crate::ast::{
    AddTotals, Bin, BinSpan, Chart, Command, Conversion, TimeSpan, TimeUnit, Transaction, TxnFilter,
};
use crate::lexer::push_quoted;

/// Renders one of this module's commands (nothing for any other command).
pub(super) fn command(out: &mut String, c: &Command) {
    match c {
        Command::Bin(b) => bin(out, b),
        Command::Chart(ch) => chart(out, ch),
        Command::MakeMv {
            field,
            delim,
            tokenizer,
            allowempty,
            setsv,
        } => {
            out.push_str("makemv ");
            if delim != " " {
                option(out, "delim", delim);
            }
            if let Some(t) = tokenizer {
                out.push_str("tokenizer=");
                push_quoted(out, t, '"');
                out.push(' ');
            }
            push_name(out, field);
            flag(out, "allowempty", *allowempty, false);
            flag(out, "setsv", *setsv, false);
        }
        Command::MvExpand { field, limit } => {
            out.push_str("mvexpand ");
            push_name(out, field);
            if let Some(n) = limit {
                let _ = write!(out, " limit={n}");
            }
        }
        Command::MvCombine { field, delim } => {
            out.push_str("mvcombine ");
            if delim != " " {
                option(out, "delim", delim);
            }
            push_name(out, field);
        }
        Command::NoMv(field) => {
            out.push_str("nomv ");
            push_name(out, field);
        }
        Command::FillDown(fields) => {
            out.push_str("filldown");
            if !fields.is_empty() {
                out.push(' ');
                names(out, fields);
            }
        }
        Command::AutoRegress {
            field,
            alias,
            from,
            to,
        } => {
            out.push_str("autoregress ");
            push_name(out, field);
            if let Some(a) = alias {
                out.push_str(" AS ");
                push_name(out, a);
            }
            if from != to {
                let _ = write!(out, " p={from}-{to}");
            } else if *from != 1 {
                let _ = write!(out, " p={from}");
            }
        }
        Command::AddTotals(a) => addtotals(out, a),
        Command::AddColTotals {
            labelfield,
            label,
            fields,
        } => {
            out.push_str("addcoltotals");
            if let Some(l) = labelfield {
                out.push(' ');
                option(out, "labelfield", l);
                out.pop();
            }
            if label != "Total" {
                out.push(' ');
                option(out, "label", label);
                out.pop();
            }
            if !fields.is_empty() {
                out.push(' ');
                names(out, fields);
            }
        }
        Command::Uniq => out.push_str("uniq"),
        Command::Replace { pairs, fields } => {
            out.push_str("replace ");
            for (i, (from, to)) in pairs.iter().enumerate() {
                sep(out, i, ", ");
                push_quoted(out, from, '"');
                out.push_str(" WITH ");
                push_quoted(out, to, '"');
            }
            if !fields.is_empty() {
                out.push_str(" IN ");
                names(out, fields);
            }
        }
        Command::Convert { timeformat, items } => {
            out.push_str("convert ");
            if timeformat != "%m/%d/%Y %H:%M:%S" {
                out.push_str("timeformat=");
                push_quoted(out, timeformat, '"');
                out.push(' ');
            }
            for (i, Conversion { func, field, alias }) in items.iter().enumerate() {
                sep(out, i, ", ");
                out.push_str(func);
                out.push('(');
                push_name(out, field);
                out.push(')');
                if let Some(a) = alias {
                    out.push_str(" AS ");
                    push_name(out, a);
                }
            }
        }
        Command::Transaction(t) => transaction(out, t),
        Command::Spath {
            input,
            output,
            path,
        } => {
            out.push_str("spath");
            if input != "_raw" {
                out.push(' ');
                option(out, "input", input);
                out.pop();
            }
            if let Some(o) = output {
                out.push(' ');
                option(out, "output", o);
                out.pop();
            }
            if let Some(p) = path {
                out.push(' ');
                option(out, "path", p);
                out.pop();
            }
        }
        Command::Extract { pairdelim, kvdelim } => {
            out.push_str("extract");
            for (k, v) in [("pairdelim", pairdelim), ("kvdelim", kvdelim)] {
                if let Some(v) = v {
                    out.push(' ');
                    option(out, k, v);
                    out.pop();
                }
            }
        }
        Command::XmlKv => out.push_str("xmlkv"),
        _ => {}
    }
}

fn txn_filter(out: &mut String, key: &str, f: &TxnFilter) {
    out.push(' ');
    out.push_str(key);
    out.push('=');
    match f {
        TxnFilter::Eval(e) => {
            out.push_str("eval(");
            expr(out, e, 0);
            out.push(')');
        }
        TxnFilter::Search(e) => {
            let mut text = String::new();
            search(&mut text, e, Ctx::Top);
            push_quoted(out, &text, '"');
        }
    }
}

fn transaction(out: &mut String, t: &Transaction) {
    out.push_str("transaction");
    if !t.fields.is_empty() {
        out.push(' ');
        names(out, &t.fields);
    }
    if let Some(s) = t.maxspan {
        let _ = write!(out, " maxspan={s}");
    }
    if let Some(s) = t.maxpause {
        let _ = write!(out, " maxpause={s}");
    }
    if t.maxevents != 1000 {
        let _ = write!(out, " maxevents={}", t.maxevents);
    }
    if let Some(f) = &t.startswith {
        txn_filter(out, "startswith", f);
    }
    if let Some(f) = &t.endswith {
        txn_filter(out, "endswith", f);
    }
    flag(out, "keepevicted", t.keepevicted, false);
    flag(out, "mvlist", t.mvlist, false);
    if t.delim != " " {
        out.push(' ');
        option(out, "delim", &t.delim);
        out.pop();
    }
}

/// `key=value ` (value quoted when needed).
fn option(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push('=');
    push_name(out, value);
    out.push(' ');
}

/// The text of a time span (`5m`).
pub(super) fn time_span(s: TimeSpan) -> String {
    let unit = match s.unit {
        TimeUnit::Second => "s",
        TimeUnit::Minute => "m",
        TimeUnit::Hour => "h",
        TimeUnit::Day => "d",
        TimeUnit::Week => "w",
        TimeUnit::Month => "mon",
        TimeUnit::Year => "y",
    };
    format!("{}{unit}", s.count)
}

fn bin_span(s: BinSpan) -> String {
    match s {
        BinSpan::Num(v) => format!("{v}"),
        BinSpan::Time(t) => time_span(t),
        BinSpan::Log { coef, base } => {
            let mut t = String::new();
            if coef != 1.0 {
                let _ = write!(t, "{coef}");
            }
            t.push_str("log");
            if base != 10.0 {
                let _ = write!(t, "{base}");
            }
            t
        }
    }
}

fn bin(out: &mut String, b: &Bin) {
    out.push_str("bin ");
    if let Some(s) = b.span {
        let _ = write!(out, "span={} ", bin_span(s));
    }
    if let Some(s) = b.minspan {
        let _ = write!(out, "minspan={} ", bin_span(s));
    }
    if let Some(n) = b.bins {
        let _ = write!(out, "bins={n} ");
    }
    if let Some(v) = b.start {
        let _ = write!(out, "start={v} ");
    }
    if let Some(v) = b.end {
        let _ = write!(out, "end={v} ");
    }
    if let Some(a) = &b.aligntime {
        option(out, "aligntime", a);
    }
    push_name(out, &b.field);
    if let Some(a) = &b.alias {
        out.push_str(" AS ");
        push_name(out, a);
    }
}

fn chart(out: &mut String, c: &Chart) {
    out.push_str("chart ");
    if c.bottom {
        let _ = write!(out, "limit=bottom{} ", c.limit);
    } else if c.limit != 10 {
        let _ = write!(out, "limit={} ", c.limit);
    }
    if !c.useother {
        out.push_str("useother=f ");
    }
    if c.otherstr != "OTHER" {
        option(out, "otherstr", &c.otherstr);
    }
    if !c.usenull {
        out.push_str("usenull=f ");
    }
    if c.nullstr != "NULL" {
        option(out, "nullstr", &c.nullstr);
    }
    aggs(out, &c.aggs);
    if let Some(o) = &c.over {
        out.push_str(" over ");
        push_name_except(out, o, &["over"]);
        if let Some(s) = c.span {
            let _ = write!(out, " span={}", bin_span(s));
        }
    }
    if let Some(b) = &c.by {
        out.push_str(" by ");
        push_name_except(out, b, &["over"]);
    }
}

fn addtotals(out: &mut String, a: &AddTotals) {
    out.push_str("addtotals");
    flag(out, "row", a.row, true);
    flag(out, "col", a.col, false);
    for (key, value, default) in [
        ("labelfield", a.labelfield.as_deref(), None),
        ("label", Some(a.label.as_str()), Some("Total")),
        ("fieldname", Some(a.fieldname.as_str()), Some("Total")),
    ] {
        if let Some(v) = value {
            if value != default {
                out.push(' ');
                option(out, key, v);
                out.pop();
            }
        }
    }
    if !a.fields.is_empty() {
        out.push(' ');
        names(out, &a.fields);
    }
}
