//! Canonical text of `format` and `return`.

use std::fmt::Write;

use super::push_name;
use crate::ast::{Command, Format, Return, ReturnItem};
use crate::lexer::push_quoted;

pub(super) fn format(out: &mut String, f: &Format) {
    let d = Format::default();
    out.push_str("format");
    if f.mvsep != d.mvsep {
        out.push_str(" mvsep=");
        push_quoted(out, &f.mvsep, '"');
    }
    if f.maxresults != d.maxresults {
        let _ = write!(out, " maxresults={}", f.maxresults);
    }
    if f.parts != d.parts {
        for p in &f.parts {
            out.push(' ');
            push_quoted(out, p, '"');
        }
    }
    if f.emptystr != d.emptystr {
        out.push_str(" emptystr=");
        push_quoted(out, &f.emptystr, '"');
    }
}

pub(super) fn return_(out: &mut String, r: &Return) {
    out.push_str("return");
    if r.count != 1 {
        let _ = write!(out, " {}", r.count);
    }
    for item in &r.items {
        out.push(' ');
        match item {
            // `$x` would read back as a value item.
            ReturnItem::Field(f) if f.starts_with('$') => push_quoted(out, f, '"'),
            ReturnItem::Field(f) => push_name(out, f),
            ReturnItem::Alias(a, f) => {
                out.push_str(a);
                out.push('=');
                push_name(out, f);
            }
            ReturnItem::Value(f) => {
                out.push('$');
                out.push_str(f);
            }
        }
    }
}

/// `appendpipe [a | b]`; `command` prints one command.
pub(super) fn appendpipe(out: &mut String, cmds: &[Command], command: fn(&mut String, &Command)) {
    out.push_str("appendpipe [");
    for (i, c) in cmds.iter().enumerate() {
        if i > 0 {
            out.push_str(" | ");
        }
        command(out, c);
    }
    out.push(']');
}
