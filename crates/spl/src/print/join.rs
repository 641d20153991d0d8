//! Canonical text of `append`, `appendcols`, `union` and `join`.

use std::fmt::Write;

use super::{names, push_name};
use crate::ast::join::{Dataset, JoinType, SubOptions, Subsearch};
use crate::ast::Command;

pub(super) fn join(out: &mut String, c: &Command) {
    match c {
        Command::Append(a) | Command::AppendCols(a) => {
            let appendcols = matches!(c, Command::AppendCols(_));
            out.push_str(if appendcols { "appendcols" } else { "append" });
            if a.override_ {
                out.push_str(" override=t");
            }
            options(out, &a.options);
            subsearch(out, &a.sub);
        }
        Command::Union(u) => {
            out.push_str("union");
            options(out, &u.options);
            for d in &u.datasets {
                match d {
                    Dataset::Subsearch(s) => subsearch(out, s),
                    Dataset::Index(name) => {
                        out.push_str(" index=");
                        push_name(out, name);
                    }
                }
            }
        }
        Command::Join(j) => {
            out.push_str("join");
            match j.kind {
                JoinType::Inner => {}
                JoinType::Left => out.push_str(" type=left"),
                JoinType::Outer => out.push_str(" type=outer"),
            }
            if j.max != 1 {
                let _ = write!(out, " max={}", j.max);
            }
            if !j.overwrite {
                out.push_str(" overwrite=f");
            }
            if !j.fields.is_empty() {
                out.push(' ');
                names(out, &j.fields);
            }
            subsearch(out, &j.sub);
        }
        _ => {}
    }
}

fn options(out: &mut String, o: &SubOptions) {
    if let Some(v) = o.extendtimerange {
        let _ = write!(out, " extendtimerange={}", if v { "t" } else { "f" });
    }
    for (key, v) in [
        ("maxtime", o.maxtime),
        ("maxout", o.maxout),
        ("timeout", o.timeout),
    ] {
        if let Some(v) = v {
            let _ = write!(out, " {key}={v}");
        }
    }
}

fn subsearch(out: &mut String, s: &Subsearch) {
    let _ = write!(out, " [{}]", s.text);
}
