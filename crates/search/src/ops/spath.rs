//! `spath [input=f] [output=o] [path=]p`: with a path, the JSON value(s) at that path of field
//! `f` (default `_raw`) into `o` (default: the path text); a path through `{}` gives a
//! multivalue, an object or array gives its JSON text. Without a path, every leaf of the JSON
//! document becomes a field named by its path (`a.b`, `c{}`), fields already present kept.
//! Input starting with `<` is read as XML ([`extract::xml`]: `a.b`, `a.b{@attr}`, repeated
//! elements as multivalues). Input that is neither gives nothing.

use super::{ExecContext, Flow, Op};
use crate::error::SearchError;
use crate::eval::{EvalCtx, Evaluator};
use crate::extract;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Expr;

/// Extracts JSON paths.
pub struct SpathOp {
    input: String,
    output: String,
    /// `spath(input, path)` when a path is given.
    call: Option<Expr>,
    ev: Evaluator,
}

impl SpathOp {
    /// `spath` arguments.
    pub fn new(
        input: String,
        output: Option<String>,
        path: Option<String>,
        ctx: ExecContext,
    ) -> SpathOp {
        let call = path.as_ref().map(|p| {
            Expr::Call(
                "spath".into(),
                vec![Expr::Field(input.clone()), Expr::Str(p.clone())],
            )
        });
        SpathOp {
            output: output.or(path).unwrap_or_default(),
            input,
            call,
            ev: Evaluator::new(EvalCtx {
                now: ctx.now,
                tz: ctx.tz,
            }),
        }
    }
}

impl Op for SpathOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            match &self.call {
                Some(call) => {
                    let v = self.ev.eval(call, r)?;
                    if !v.is_null() {
                        r.set(&self.output, v);
                    }
                }
                None => {
                    let Some(text) = r.get(&self.input).map(|v| v.as_str().into_owned()) else {
                        continue;
                    };
                    if extract::xml::looks_like_xml(&text) {
                        for (n, vals) in extract::xml::extract_all(&text).unwrap_or_default() {
                            if r.get(&n).is_none() {
                                r.set(
                                    &n,
                                    Value::from_values(vals.into_iter().map(Value::Str).collect()),
                                );
                            }
                        }
                        continue;
                    }
                    let mut found: Vec<(String, Value)> = Vec::new();
                    if extract::json::extract(&text, &mut found) {
                        for (n, v) in found {
                            if r.get(&n).is_none() {
                                r.set(&n, v);
                            }
                        }
                    }
                }
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, str_rows, strs};

    const DOC: &str = r#"{"a": {"b": [{"c": 1}, {"c": 2}]}, "d": "x", "e": {"f": true}}"#;

    fn run(output: Option<&str>, path: Option<&str>) -> Vec<Row> {
        let mut op = SpathOp::new(
            "j".into(),
            output.map(str::to_string),
            path.map(str::to_string),
            ctx(),
        );
        let mut out = Vec::new();
        op.push(str_rows("j", &[DOC, "not json"]), &mut out)
            .unwrap();
        out
    }

    #[test]
    fn one_path() {
        let out = run(None, Some("a.b{}.c"));
        assert_eq!(strs(&out, "a.b{}.c"), vec!["1\n2", ""]);
        let out = run(Some("o"), Some("a.b{1}.c"));
        assert_eq!(strs(&out, "o"), vec!["2", ""]);
        let out = run(Some("o"), Some("e"));
        assert_eq!(strs(&out, "o"), vec![r#"{"f":true}"#, ""]);
    }

    #[test]
    fn xml_paths_and_every_field() {
        let xml = r#"<ev><user id="3">bob</user><code>7</code><code>8</code></ev>"#;
        let run = |path: Option<&str>| {
            let mut op = SpathOp::new("j".into(), None, path.map(str::to_string), ctx());
            let mut out = Vec::new();
            op.push(str_rows("j", &[xml, "<broken"]), &mut out).unwrap();
            out
        };
        let out = run(Some("ev.code"));
        assert_eq!(strs(&out, "ev.code"), vec!["7\n8", ""]);
        let out = run(None);
        assert_eq!(strs(&out, "ev.user"), vec!["bob", ""]);
        assert_eq!(strs(&out, "ev.user{@id}"), vec!["3", ""]);
        assert_eq!(strs(&out, "ev.code"), vec!["7\n8", ""]);
    }

    #[test]
    fn every_path() {
        let out = run(None, None);
        assert_eq!(strs(&out, "a.b{}.c"), vec!["1\n2", ""]);
        assert_eq!(strs(&out, "d"), vec!["x", ""]);
        assert_eq!(strs(&out, "e.f"), vec!["true", ""]);
    }
}
