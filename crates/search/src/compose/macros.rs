//! Search macros: `` `name` `` and `` `name(a, b)` `` replaced by their `macros.conf`
//! definitions before the search is parsed.
//!
//! A call with N arguments uses stanza `[name(N)]` (`[name]` without arguments). `args` names
//! the arguments; each `$arg$` of the definition becomes the argument text. With `iseval = 1`
//! the definition is an eval expression whose value is the text. `validation` (an eval
//! expression) must give true, or null when it gives a string; otherwise the search fails with
//! `errormsg` (or the string). Definitions may call macros, up to [`MAX_DEPTH`] levels. Quoted
//! strings and ```` ```comments``` ```` are left alone.

use std::collections::HashMap;

use super::expand::{skip_quoted, Rewritten, Skip};
use crate::eval::{EvalCtx, Evaluator};
use crate::row::Row;
use crate::value::Value;
use crate::SearchError;
use lode_conf::Conf;
use lode_spl::ast::Span;
use lode_spl::ParseError;

/// Deepest nesting of macro calls inside macro definitions.
pub const MAX_DEPTH: usize = 100;

/// Longest text macro expansion may produce.
pub const MAX_EXPANDED: usize = 1 << 20;

/// One `macros.conf` stanza.
#[derive(Debug, Clone, Default)]
pub struct Macro {
    /// `definition`.
    pub definition: String,
    /// `args`, in order.
    pub args: Vec<String>,
    /// `iseval`.
    pub iseval: bool,
    /// `validation`.
    pub validation: Option<String>,
    /// `errormsg`.
    pub errormsg: Option<String>,
}

/// The macros of a configuration, by stanza name (`name` or `name(N)`).
#[derive(Debug, Clone, Default)]
pub struct Macros {
    defs: HashMap<String, Macro>,
}

impl Macros {
    /// The macros of a layered `macros.conf`.
    pub fn from_conf(conf: &Conf) -> Macros {
        let mut defs = HashMap::new();
        for s in conf.stanzas() {
            let args = s
                .get("args")
                .map(|a| {
                    a.split(',')
                        .map(|x| x.trim().to_string())
                        .filter(|x| !x.is_empty())
                        .collect()
                })
                .unwrap_or_default();
            let m = Macro {
                definition: s.get("definition").unwrap_or("").to_string(),
                args,
                iseval: s
                    .get("iseval")
                    .and_then(lode_conf::parse_bool)
                    .unwrap_or(false),
                validation: s.get("validation").map(str::to_string),
                errormsg: s.get("errormsg").map(str::to_string),
            };
            defs.insert(s.name.clone(), m);
        }
        Macros { defs }
    }

    /// Adds or replaces one macro (tests, library use).
    pub fn insert(&mut self, stanza: &str, m: Macro) {
        self.defs.insert(stanza.to_string(), m);
    }
}

/// Splunk's message for a macro that is not defined.
fn not_found(stanza: &str) -> String {
    format!(
        "The search specifies a macro '{stanza}' that cannot be found. Reasons include: the macro name is misspelled, you do not have \"read\" permission for the macro, or the macro has not been shared with this application."
    )
}

/// Whether `text` may call a macro (a backtick outside a comment).
pub fn has_calls(text: &str) -> bool {
    text.replace("```", "").contains('`')
}

/// Expands every macro call of `text`.
pub fn expand(text: &str, macros: &Macros, ctx: EvalCtx) -> Result<Rewritten, SearchError> {
    let mut x = Expander {
        macros,
        eval: Evaluator::new(ctx),
        produced: 0,
    };
    let mut out = Rewritten::new(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        if let Skip::To(end) = skip_quoted(text, i) {
            i = end;
            continue;
        }
        if text.as_bytes()[i] != b'`' {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let Some(close) = text[i + 1..].find('`').map(|k| i + 1 + k) else {
            return Err(ParseError::new(
                "Unclosed macro call: add ` after the macro name.",
                Span {
                    start: i,
                    end: i + 1,
                },
            )
            .into());
        };
        let at = Span {
            start: i,
            end: close + 1,
        };
        let body = x
            .call(&text[i + 1..close], 0)
            .map_err(|m| SearchError::Parse(ParseError::new(m, at)))?;
        out.copy(text, copied, i);
        out.replace(&body, i, close + 1);
        copied = close + 1;
        i = close + 1;
    }
    out.copy(text, copied, text.len());
    Ok(out)
}

struct Expander<'a> {
    macros: &'a Macros,
    eval: Evaluator,
    /// Bytes of definitions produced so far (bounds runaway expansion).
    produced: usize,
}

impl Expander<'_> {
    /// The expansion of one call (the text between the backticks), macros inside it expanded.
    fn call(&mut self, call: &str, depth: usize) -> Result<String, String> {
        if depth >= MAX_DEPTH {
            return Err(format!("Reached maximum recursion depth ({MAX_DEPTH}) while expanding macros. Check for infinitely recursive macro definitions."));
        }
        let call = call.trim();
        let (name, args) = split_call(call)?;
        let stanza = if args.is_empty() {
            name.to_string()
        } else {
            format!("{name}({})", args.len())
        };
        let m = self
            .macros
            .defs
            .get(&stanza)
            .ok_or_else(|| not_found(&stanza))?;
        if m.args.len() != args.len() {
            return Err(format!(
                "The definition of macro '{stanza}' names {} arguments in 'args'; it must name {}.",
                m.args.len(),
                args.len()
            ));
        }
        let subst = |s: &str| {
            let mut s = s.to_string();
            for (n, v) in m.args.iter().zip(&args) {
                s = s.replace(&format!("${n}$"), v);
            }
            s
        };
        if let Some(v) = &m.validation {
            let verdict = self.eval_text(&subst(v), &stanza, "validation")?;
            let failed = match verdict {
                Value::Bool(b) => (!b).then(|| m.errormsg.clone()),
                Value::Null => None,
                other => Some(Some(other.as_str().into_owned())),
            };
            if let Some(msg) = failed {
                return Err(msg.unwrap_or_else(|| {
                    format!("Validation of the arguments of macro '{stanza}' failed.")
                }));
            }
        }
        let mut body = subst(&m.definition);
        if m.iseval {
            body = self
                .eval_text(&body, &stanza, "definition")?
                .as_str()
                .into_owned();
        }
        self.produced += body.len();
        if self.produced > MAX_EXPANDED {
            return Err(format!(
                "Macro expansion makes the search longer than {MAX_EXPANDED} bytes."
            ));
        }
        self.expand_inner(&body, depth + 1)
    }

    /// Macro calls inside a definition, expanded.
    fn expand_inner(&mut self, text: &str, depth: usize) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut i = 0;
        while i < text.len() {
            if let Skip::To(end) = skip_quoted(text, i) {
                i = end;
                continue;
            }
            if text.as_bytes()[i] != b'`' {
                i += text[i..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            let Some(close) = text[i + 1..].find('`').map(|k| i + 1 + k) else {
                break;
            };
            out.push_str(&text[copied..i]);
            out.push_str(&self.call(&text[i + 1..close], depth)?);
            copied = close + 1;
            i = close + 1;
        }
        out.push_str(&text[copied..]);
        Ok(out)
    }

    /// The value of an eval expression of a macro (`iseval`, `validation`).
    fn eval_text(&mut self, expr: &str, stanza: &str, key: &str) -> Result<Value, String> {
        let e = lode_spl::parse_expr(expr)
            .map_err(|e| format!("Macro '{stanza}': invalid eval expression in '{key}': {e}"))?;
        self.eval
            .eval(&e, &mut Row::new())
            .map_err(|e| format!("Macro '{stanza}': {key}: {e}"))
    }
}

/// `name` or `name(a, b)` → the name and the argument texts (trimmed; commas inside quotes or
/// parentheses do not split).
fn split_call(call: &str) -> Result<(&str, Vec<String>), String> {
    let Some(open) = call.find('(') else {
        return Ok((call, Vec::new()));
    };
    let name = call[..open].trim_end();
    let Some(inner) = call[open + 1..].strip_suffix(')') else {
        return Err(format!(
            "Invalid macro call '{call}': the arguments must end with ')'."
        ));
    };
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut quote = false;
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if quote => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            '"' => quote = !quote,
            '(' if !quote => depth += 1,
            ')' if !quote => depth = depth.saturating_sub(1),
            ',' if !quote && depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !(args.is_empty() && cur.trim().is_empty()) {
        args.push(cur.trim().to_string());
    }
    Ok((name, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> EvalCtx {
        EvalCtx {
            now: 0,
            tz: lode_time::Zone::Utc,
        }
    }

    fn def(definition: &str, args: &[&str]) -> Macro {
        Macro {
            definition: definition.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            ..Macro::default()
        }
    }

    fn macros() -> Macros {
        let mut m = Macros::default();
        m.insert("errors", def("(error OR fail*)", &[]));
        m.insert("by_host(1)", def("host=$h$", &["h"]));
        m.insert("pair(2)", def("`by_host($a$)` status=$b$", &["a", "b"]));
        m.insert("loop", def("x `loop`", &[]));
        m.insert(
            "calc(1)",
            Macro {
                iseval: true,
                ..def("\"count>\" . ($n$ * 2)", &["n"])
            },
        );
        m.insert(
            "checked(1)",
            Macro {
                validation: Some("isint($n$)".into()),
                errormsg: Some("n must be an integer".into()),
                ..def("head $n$", &["n"])
            },
        );
        m.insert(
            "strcheck(1)",
            Macro {
                validation: Some("if($n$ > 5, \"too big\", null())".into()),
                ..def("head $n$", &["n"])
            },
        );
        m
    }

    fn ex(q: &str) -> Result<String, (String, String)> {
        match expand(q, &macros(), ctx()) {
            Ok(r) => Ok(r.text),
            Err(SearchError::Parse(e)) => Err((e.message, q[e.span.start..e.span.end].to_string())),
            Err(e) => Err((e.to_string(), String::new())),
        }
    }

    #[test]
    fn plain_args_nested() {
        assert_eq!(
            ex("`errors` | stats count").unwrap(),
            "(error OR fail*) | stats count"
        );
        assert_eq!(ex("a `by_host( web-1 )`").unwrap(), "a host=web-1");
        assert_eq!(
            ex("`pair(\"a, b\", 200)`").unwrap(),
            "host=\"a, b\" status=200"
        );
        assert_eq!(ex("no macros").unwrap(), "no macros");
        // Quoted strings and comments are left alone.
        assert_eq!(
            ex("\"`errors`\" ```x `errors` ```").unwrap(),
            "\"`errors`\" ```x `errors` ```"
        );
    }

    #[test]
    fn iseval_and_validation() {
        assert_eq!(ex("x | where `calc(4)`").unwrap(), "x | where count>8");
        assert_eq!(ex("x | `checked(3)`").unwrap(), "x | head 3");
        assert_eq!(
            ex("x | `checked(a)`").unwrap_err(),
            ("n must be an integer".into(), "`checked(a)`".into())
        );
        assert_eq!(ex("x | `strcheck(3)`").unwrap(), "x | head 3");
        assert_eq!(ex("x | `strcheck(9)`").unwrap_err().0, "too big");
    }

    #[test]
    fn errors() {
        let (m, at) = ex("a `nope` b").unwrap_err();
        assert!(
            m.starts_with("The search specifies a macro 'nope' that cannot be found."),
            "{m}"
        );
        assert_eq!(at, "`nope`");
        assert!(ex("`by_host`").unwrap_err().0.contains("'by_host'"));
        assert!(ex("`errors(1)`").unwrap_err().0.contains("'errors(1)'"));
        let (m, at) = ex("a `loop`").unwrap_err();
        assert!(
            m.starts_with("Reached maximum recursion depth (100)"),
            "{m}"
        );
        assert_eq!(at, "`loop`");
        assert_eq!(ex("a `errors").unwrap_err().1, "`");
    }

    #[test]
    fn runaway_growth_is_refused() {
        let mut m = Macros::default();
        m.insert("b0", def("xxxxxxxxxxxxxxxx", &[]));
        for i in 1..40 {
            m.insert(
                &format!("b{i}"),
                def(&format!("`b{}` `b{}`", i - 1, i - 1), &[]),
            );
        }
        let e = expand("`b39`", &m, ctx()).unwrap_err();
        assert!(e.to_string().contains("longer than"), "{e}");
    }

    #[test]
    fn has_calls_ignores_comments() {
        assert!(has_calls("a `m`"));
        assert!(!has_calls("a ```comment``` b"));
    }
}
