//! Canonical text of the data commands ([`crate::ast::data`]).

use std::fmt::Write;

use super::clause::{search, Ctx};
use super::{aggs, flag, names, push_name, push_name_except, sep};
use crate::ast::data::{DataCommand, InputLookup};
use crate::ast::{TimeSpan, TimeUnit};

pub(super) fn data(out: &mut String, d: &DataCommand) {
    match d {
        DataCommand::MakeResults {
            count,
            annotate,
            data,
        } => {
            out.push_str("makeresults");
            if *count != 1 {
                let _ = write!(out, " count={count}");
            }
            flag(out, "annotate", *annotate, false);
            if let Some(d) = data {
                out.push_str(if d.json {
                    " format=json data="
                } else {
                    " format=csv data="
                });
                crate::lexer::push_quoted(out, &d.text, '"');
            }
        }
        DataCommand::GenTimes(g) => {
            out.push_str("gentimes start=");
            push_name(out, &g.start);
            if let Some(e) = &g.end {
                out.push_str(" end=");
                push_name(out, e);
            }
            if g.increment != crate::ast::data::GenTimes::DEFAULT_INCREMENT {
                out.push_str(" increment=");
                span(out, g.increment);
            }
        }
        DataCommand::Lookup(l) => {
            out.push_str("lookup ");
            push_name(out, &l.table);
            out.push(' ');
            pairs(out, &l.inputs);
            if !l.outputs.is_empty() {
                out.push_str(if l.output_new {
                    " OUTPUTNEW "
                } else {
                    " OUTPUT "
                });
                pairs(out, &l.outputs);
            }
        }
        DataCommand::InputLookup(il) | DataCommand::InputCsv(il) => {
            out.push_str(d.name());
            flag(out, "append", il.append, false);
            if il.start != 0 {
                let _ = write!(out, " start={}", il.start);
            }
            if il.max != InputLookup::DEFAULT_MAX {
                let _ = write!(out, " max={}", il.max);
            }
            out.push(' ');
            push_name_except(out, &il.table, &["where"]);
            if let Some(f) = &il.filter {
                out.push_str(" where ");
                search(out, f, Ctx::Top);
            }
        }
        DataCommand::OutputLookup(ol) | DataCommand::OutputCsv(ol) => {
            out.push_str(d.name());
            flag(out, "append", ol.append, false);
            flag(out, "create_empty", ol.create_empty, true);
            flag(out, "override_if_empty", ol.override_if_empty, true);
            out.push(' ');
            push_name(out, &ol.table);
        }
        DataCommand::Tstats(t) => {
            out.push_str("tstats ");
            aggs(out, &t.aggs);
            if let Some(f) = &t.filter {
                out.push_str(" where ");
                search(out, f, Ctx::Top);
            }
            if !t.by.is_empty() {
                out.push_str(" by ");
                names(out, &t.by);
            }
            if let Some(s) = t.span {
                out.push_str(" span=");
                span(out, s);
            }
        }
        DataCommand::FieldSummary { maxvals, fields } => {
            out.push_str("fieldsummary");
            if *maxvals != 100 {
                let _ = write!(out, " maxvals={maxvals}");
            }
            if !fields.is_empty() {
                out.push(' ');
                names(out, fields);
            }
        }
        DataCommand::Collect(c) => {
            out.push_str("collect index=");
            push_name(out, &c.index);
            if c.sourcetype != "stash" {
                out.push_str(" sourcetype=");
                push_name(out, &c.sourcetype);
            }
            for (k, v) in [
                ("source", &c.source),
                ("host", &c.host),
                ("marker", &c.marker),
            ] {
                if let Some(v) = v {
                    let _ = write!(out, " {k}=");
                    push_name(out, v);
                }
            }
            flag(out, "testmode", c.testmode, false);
        }
        DataCommand::Metadata { kind, indexes } => {
            let _ = write!(out, "metadata type={}", kind.as_str());
            for i in indexes {
                out.push_str(" index=");
                push_name(out, i);
            }
        }
    }
}

/// `f [AS g]` pairs, comma-separated.
fn pairs(out: &mut String, list: &[(String, String)]) {
    let reserved = ["output", "outputnew"];
    for (i, (a, b)) in list.iter().enumerate() {
        sep(out, i, ", ");
        push_name_except(out, a, &reserved);
        if a != b {
            out.push_str(" AS ");
            push_name_except(out, b, &reserved);
        }
    }
}

/// A span such as `1h`.
pub(super) fn span(out: &mut String, s: TimeSpan) {
    let unit = match s.unit {
        TimeUnit::Second => "s",
        TimeUnit::Minute => "m",
        TimeUnit::Hour => "h",
        TimeUnit::Day => "d",
        TimeUnit::Week => "w",
        TimeUnit::Month => "mon",
        TimeUnit::Year => "y",
    };
    let _ = write!(out, "{}{unit}", s.count);
}
