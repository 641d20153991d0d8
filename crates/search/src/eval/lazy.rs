//! Functions that need the row or an unevaluated argument: `searchmatch` (a search clause
//! checked by [`crate::matcher`]), and `mvfilter`/`mvmap` (an expression evaluated once per
//! value of a multivalue field, with the field bound to that value).

use super::{fields_of, truth, Evaluator};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::{Command, Expr, SearchExpr};
use std::collections::HashMap;

/// Most distinct `searchmatch` clauses kept parsed by one evaluator.
const MAX_CACHED: usize = 64;

/// Parsed `searchmatch` clauses by their text (`None` = a clause that matches everything).
#[derive(Default)]
pub struct SearchCache {
    map: HashMap<String, Option<SearchExpr>>,
}

/// Parses the text of `searchmatch("…")` as the clause of a `search` command.
pub fn parse_clause(text: &str) -> Result<Option<SearchExpr>, SearchError> {
    let bad = |why: String| SearchError::User(format!("searchmatch: {text:?} {why}"));
    let p = lode_spl::parse(&format!("search {text}"))
        .map_err(|e| bad(format!("is not a search clause: {e}")))?;
    match &p.commands[..] {
        [Command::Search(expr)] => Ok(expr.clone()),
        _ => Err(bad("must be a search clause without '|'".to_string())),
    }
}

/// Appends the fields a search clause reads (`_raw` for terms) to `out`.
pub fn clause_fields(e: &SearchExpr, out: &mut Vec<String>) {
    let mut push = |f: &str| {
        if !out.iter().any(|x| x == f) {
            out.push(f.to_string());
        }
    };
    match e {
        SearchExpr::And(v) | SearchExpr::Or(v) => v.iter().for_each(|x| clause_fields(x, out)),
        SearchExpr::Not(x) => clause_fields(x, out),
        SearchExpr::Compare { field, .. } => push(field),
        SearchExpr::Term(_) => push("_raw"),
        SearchExpr::TimeBound { .. } => {}
    }
}

/// Calls `name` if it is one of the functions of this file.
pub fn call(
    ev: &mut Evaluator,
    name: &str,
    args: &[Expr],
    row: &mut Row,
) -> Option<Result<Value, SearchError>> {
    match name {
        "searchmatch" => Some(searchmatch(ev, &args[0], row)),
        "mvfilter" => Some(mvfilter(ev, &args[0], row)),
        "mvmap" => Some(mvmap(ev, &args[0], &args[1], row)),
        _ => None,
    }
}

/// Checks the shape `mvfilter` and `mvmap` need before any row is seen.
pub fn check(name: &str, args: &[Expr]) -> Result<(), SearchError> {
    match (name, args) {
        ("mvfilter", [pred]) => filter_field(pred).map(|_| ()),
        ("mvmap", [mv, _]) => map_field(mv).map(|_| ()),
        _ => Ok(()),
    }
}

/// The one field an `mvfilter` predicate reads.
fn filter_field(pred: &Expr) -> Result<String, SearchError> {
    let mut names = Vec::new();
    fields_of(pred, &mut names);
    match &names[..] {
        [field] => Ok(field.clone()),
        _ => Err(SearchError::User(format!(
            "mvfilter: the expression must read exactly one field, but it reads {}",
            names.len()
        ))),
    }
}

/// The field `mvmap` maps over.
fn map_field(mv: &Expr) -> Result<&str, SearchError> {
    match mv {
        Expr::Field(f) => Ok(f),
        _ => Err(SearchError::User(
            "mvmap: the first argument must be a field name".to_string(),
        )),
    }
}

fn searchmatch(ev: &mut Evaluator, arg: &Expr, row: &mut Row) -> Result<Value, SearchError> {
    let text = ev.eval(arg, row)?;
    if text.is_null() {
        return Ok(Value::Null);
    }
    let text = text.as_str().into_owned();
    if !ev.searches.map.contains_key(&text) {
        let clause = parse_clause(&text)?;
        if ev.searches.map.len() >= MAX_CACHED {
            ev.searches.map.clear();
        }
        ev.searches.map.insert(text.clone(), clause);
    }
    Ok(Value::Bool(match ev.searches.map.get(&text) {
        Some(Some(clause)) => crate::matcher::matches(clause, row),
        _ => true,
    }))
}

/// Evaluates `body` once per value of `field` (bound to that value), then restores the field.
/// `keep` turns each result into the values kept. A null or missing field gives null.
fn per_value(
    ev: &mut Evaluator,
    field: &str,
    body: &Expr,
    row: &mut Row,
    mut keep: impl FnMut(&Value, Value, &mut Vec<Value>),
) -> Result<Value, SearchError> {
    let Some(orig) = row.get(field).cloned().filter(|v| !v.is_null()) else {
        return Ok(Value::Null);
    };
    let mut out = Vec::new();
    let mut failed = None;
    for x in orig.iter_values() {
        row.set(field, x.clone());
        match ev.eval(body, row) {
            Ok(r) => keep(x, r, &mut out),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    row.set(field, orig);
    match failed {
        Some(e) => Err(e),
        None => Ok(Value::from_values(out)),
    }
}

/// `mvfilter(<predicate>)`: the values of the one field the predicate reads for which it is
/// true.
fn mvfilter(ev: &mut Evaluator, pred: &Expr, row: &mut Row) -> Result<Value, SearchError> {
    let field = filter_field(pred)?;
    per_value(ev, &field, pred, row, |x, r, out| {
        if truth(&r) == Some(true) {
            out.push(x.clone());
        }
    })
}

/// `mvmap(<field>, <expression>)`: the expression's result for each value of the field (null
/// results dropped).
fn mvmap(ev: &mut Evaluator, mv: &Expr, body: &Expr, row: &mut Row) -> Result<Value, SearchError> {
    let field = map_field(mv)?;
    per_value(ev, field, body, row, |_, r, out| {
        out.extend(r.iter_values().cloned())
    })
}
