//! `eval`/`where` expressions (SPLUNK.md §3.5): operators with Splunk's null and type rules, and
//! the functions in [`func`].
//!
//! Fields are strings until used numerically. `+` adds numbers and concatenates two strings;
//! other arithmetic on non-numbers gives null. Comparisons are numeric when both sides are
//! numbers, else case-sensitive string comparisons. `AND`/`OR`/`XOR`/`NOT` use three-valued
//! logic: null is "unknown".

mod format;
mod func;
mod hash;
mod json;
mod lazy;
mod math;
mod multi;
pub(crate) mod net;
mod pattern;
mod text;
mod time;

pub use pattern::compile_regex;

use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::{BinOp, CmpOp, Expr, UnaryOp};
use std::cmp::Ordering;

/// What expressions may read besides the row: the search's clock and zone.
#[derive(Debug, Clone, Copy)]
pub struct EvalCtx {
    /// `now()`: search start, microseconds since the epoch.
    pub now: lode_event::Micros,
    /// Zone for `strftime`/`strptime`/`relative_time`.
    pub tz: lode_time::Zone,
}

/// Evaluates expressions; owns a cache of compiled regular expressions (`match`, `replace`,
/// `like`) and of parsed `searchmatch` clauses, so one evaluator should serve a whole command.
pub struct Evaluator {
    ctx: EvalCtx,
    patterns: pattern::Cache,
    searches: lazy::SearchCache,
    /// State of the `random()` generator (xorshift64*, never 0).
    rng: u64,
}

impl Evaluator {
    /// An evaluator for `ctx`.
    pub fn new(ctx: EvalCtx) -> Evaluator {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Evaluator {
            ctx,
            patterns: pattern::Cache::default(),
            searches: lazy::SearchCache::default(),
            rng: (nanos ^ 0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    /// Evaluates `e` on `row` (field references may trigger lazy extraction).
    pub fn eval(&mut self, e: &Expr, row: &mut Row) -> Result<Value, SearchError> {
        Ok(match e {
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Num(n) => Value::Num(*n),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Null => Value::Null,
            Expr::Field(f) => row.get(f).cloned().unwrap_or(Value::Null),
            Expr::Unary(UnaryOp::Not, x) => match truth(&self.eval(x, row)?) {
                Some(b) => Value::Bool(!b),
                None => Value::Null,
            },
            Expr::Unary(UnaryOp::Neg, x) => match self.eval(x, row)?.to_num() {
                Some(n) => Value::Num(-n),
                None => Value::Null,
            },
            Expr::Binary(op, a, b) => self.binary(*op, a, b, row)?,
            Expr::Call(name, args) => func::call(self, name, args, row)?,
        })
    }

    /// Whether `e` is true on `row` (null and non-booleans count as false), for `where`.
    pub fn is_true(&mut self, e: &Expr, row: &mut Row) -> Result<bool, SearchError> {
        Ok(truth(&self.eval(e, row)?) == Some(true))
    }

    fn binary(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        row: &mut Row,
    ) -> Result<Value, SearchError> {
        match op {
            BinOp::And | BinOp::Or => {
                let x = truth(&self.eval(a, row)?);
                // Short-circuit where the left side decides.
                if (op == BinOp::And && x == Some(false)) || (op == BinOp::Or && x == Some(true)) {
                    return Ok(Value::Bool(x == Some(true)));
                }
                let y = truth(&self.eval(b, row)?);
                let decisive = Some(op == BinOp::Or);
                Ok(if x == decisive || y == decisive {
                    Value::Bool(op == BinOp::Or)
                } else if x.is_none() || y.is_none() {
                    Value::Null
                } else {
                    Value::Bool(op == BinOp::And)
                })
            }
            BinOp::Xor => {
                let x = truth(&self.eval(a, row)?);
                let y = truth(&self.eval(b, row)?);
                Ok(match (x, y) {
                    (Some(p), Some(q)) => Value::Bool(p != q),
                    _ => Value::Null,
                })
            }
            _ => {
                let x = self.eval(a, row)?;
                let y = self.eval(b, row)?;
                Ok(arith(op, &x, &y))
            }
        }
    }

    pub(crate) fn ctx(&self) -> EvalCtx {
        self.ctx
    }

    pub(crate) fn patterns(&mut self) -> &mut pattern::Cache {
        &mut self.patterns
    }

    /// `random()`: a pseudo-random integer from 0 to 2^31-1 (xorshift64*; not for secrets).
    pub(crate) fn random(&mut self) -> Value {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        Value::Num((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as f64)
    }
}

/// Truth value: booleans, numbers (non-zero), the strings `true`/`false`; null otherwise.
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Num(n) => Some(*n != 0.0),
        Value::Str(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::Str(s) if s.eq_ignore_ascii_case("false") => Some(false),
        Value::Multi(v) if v.len() == 1 => truth(&v[0]),
        _ => None,
    }
}

/// Arithmetic, concatenation and comparison of two evaluated operands.
fn arith(op: BinOp, x: &Value, y: &Value) -> Value {
    if x.is_null() || y.is_null() {
        return Value::Null;
    }
    if let BinOp::Cmp(c) = op {
        return Value::Bool(compare(c, x, y));
    }
    if op == BinOp::Concat {
        return Value::Str(format!("{}{}", x.as_str(), y.as_str()));
    }
    let (Some(p), Some(q)) = (x.to_num(), y.to_num()) else {
        if op == BinOp::Add {
            if let (Value::Str(s), Value::Str(t)) = (x, y) {
                return Value::Str(format!("{s}{t}"));
            }
        }
        return Value::Null;
    };
    let r = match op {
        BinOp::Add => p + q,
        BinOp::Sub => p - q,
        BinOp::Mul => p * q,
        BinOp::Div if q != 0.0 => p / q,
        BinOp::Mod if q != 0.0 => p % q,
        _ => return Value::Null,
    };
    Value::Num(r)
}

/// A comparison: numeric when both are numbers, else case-sensitive on the text.
pub fn compare(c: CmpOp, x: &Value, y: &Value) -> bool {
    let ord = match (x.to_num(), y.to_num()) {
        (Some(p), Some(q)) => match p.partial_cmp(&q) {
            Some(o) => o,
            None => return c == CmpOp::Ne,
        },
        _ => x.as_str().cmp(&y.as_str()),
    };
    match c {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne => ord != Ordering::Equal,
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    }
}

/// Checks function names and argument counts in `e` (before any row is seen).
pub fn check(e: &Expr) -> Result<(), SearchError> {
    match e {
        Expr::Unary(_, x) => check(x),
        Expr::Binary(_, a, b) => {
            check(a)?;
            check(b)
        }
        Expr::Call(name, args) => {
            func::check_arity(name, args.len())?;
            func::check_literals(name, args)?;
            args.iter().try_for_each(check)
        }
        _ => Ok(()),
    }
}

/// Appends the field names `e` reads to `out`.
pub fn fields_of(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Field(f) if !out.contains(f) => out.push(f.clone()),
        Expr::Unary(_, x) => fields_of(x, out),
        Expr::Binary(_, a, b) => {
            fields_of(a, out);
            fields_of(b, out);
        }
        Expr::Call(name, args) if name == "searchmatch" => {
            // A literal clause reads `_raw` and the fields it compares.
            if let [Expr::Str(text)] = &args[..] {
                if let Ok(Some(clause)) = lazy::parse_clause(text) {
                    lazy::clause_fields(&clause, out);
                }
            }
            args.iter().for_each(|a| fields_of(a, out))
        }
        Expr::Call(_, args) => args.iter().for_each(|a| fields_of(a, out)),
        _ => {}
    }
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_more;
