//! Tests of expressions and functions.

use super::*;
use lode_spl::ast::{BinOp, CmpOp, Expr};

pub(super) fn ev() -> Evaluator {
    Evaluator::new(EvalCtx {
        now: 1_700_000_000_000_000,
        tz: lode_time::Zone::Utc,
    })
}

pub(super) fn row() -> Row {
    Row::from_fields([
        ("n".to_string(), Value::Str("7".into())),
        ("s".to_string(), Value::Str("Hello World".into())),
        (
            "mv".to_string(),
            Value::Multi(vec![
                Value::Str("a".into()),
                Value::Str("b".into()),
                Value::Str("c".into()),
            ]),
        ),
    ])
}

pub(super) fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Call(name.into(), args)
}

pub(super) fn s(x: &str) -> Expr {
    Expr::Str(x.into())
}

pub(super) fn n(x: f64) -> Expr {
    Expr::Num(x)
}

pub(super) fn f(x: &str) -> Expr {
    Expr::Field(x.into())
}

pub(super) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

pub(super) fn run(e: Expr) -> Value {
    ev().eval(&e, &mut row()).unwrap()
}

pub(super) fn text(e: Expr) -> String {
    run(e).to_string()
}

#[test]
fn arithmetic_and_concatenation() {
    assert_eq!(text(bin(BinOp::Add, f("n"), n(1.0))), "8");
    assert_eq!(text(bin(BinOp::Add, s("a"), s("b"))), "ab");
    assert_eq!(text(bin(BinOp::Add, f("n"), s("3"))), "10");
    assert!(run(bin(BinOp::Add, f("s"), n(1.0))).is_null());
    assert!(run(bin(BinOp::Div, n(1.0), n(0.0))).is_null());
    assert_eq!(text(bin(BinOp::Mod, n(7.0), n(4.0))), "3");
    assert_eq!(text(bin(BinOp::Concat, f("n"), s("x"))), "7x");
    assert!(run(bin(BinOp::Concat, f("missing"), s("x"))).is_null());
    assert_eq!(text(Expr::Unary(UnaryOp::Neg, Box::new(f("n")))), "-7");
}

#[test]
fn comparisons_numeric_or_string() {
    assert_eq!(
        run(bin(BinOp::Cmp(CmpOp::Gt), f("n"), n(10.0))),
        Value::Bool(false)
    );
    assert_eq!(
        run(bin(BinOp::Cmp(CmpOp::Gt), s("7"), s("10"))),
        Value::Bool(false)
    );
    assert_eq!(
        run(bin(BinOp::Cmp(CmpOp::Gt), s("b"), s("a"))),
        Value::Bool(true)
    );
    assert_eq!(
        run(bin(BinOp::Cmp(CmpOp::Eq), f("s"), s("hello world"))),
        Value::Bool(false)
    );
    assert!(run(bin(BinOp::Cmp(CmpOp::Eq), f("nope"), n(1.0))).is_null());
}

#[test]
fn three_valued_logic() {
    let t = || call("true", vec![]);
    let fa = || call("false", vec![]);
    let nu = || call("null", vec![]);
    assert_eq!(run(bin(BinOp::And, fa(), nu())), Value::Bool(false));
    assert!(run(bin(BinOp::And, t(), nu())).is_null());
    assert_eq!(run(bin(BinOp::Or, nu(), t())), Value::Bool(true));
    assert!(run(bin(BinOp::Or, fa(), nu())).is_null());
    assert_eq!(run(bin(BinOp::Xor, t(), fa())), Value::Bool(true));
    assert!(run(bin(BinOp::Xor, t(), nu())).is_null());
    assert!(run(Expr::Unary(UnaryOp::Not, Box::new(nu()))).is_null());
    assert!(!ev().is_true(&nu(), &mut row()).unwrap());
}

#[test]
fn conditionals() {
    let gt = |x: f64| bin(BinOp::Cmp(CmpOp::Gt), f("n"), n(x));
    assert_eq!(text(call("if", vec![gt(5.0), s("big"), s("small")])), "big");
    assert_eq!(
        text(call(
            "case",
            vec![
                gt(10.0),
                s("a"),
                gt(5.0),
                s("b"),
                call("true", vec![]),
                s("c")
            ]
        )),
        "b"
    );
    assert!(run(call("case", vec![gt(10.0), s("a")])).is_null());
    assert_eq!(text(call("coalesce", vec![f("x"), f("y"), f("n")])), "7");
    assert_eq!(run(call("isnull", vec![f("x")])), Value::Bool(true));
    assert_eq!(run(call("isnotnull", vec![f("n")])), Value::Bool(true));
}

#[test]
fn string_functions() {
    assert_eq!(text(call("lower", vec![f("s")])), "hello world");
    assert_eq!(text(call("upper", vec![f("s")])), "HELLO WORLD");
    assert_eq!(text(call("len", vec![s("héllo")])), "5");
    assert_eq!(text(call("substr", vec![f("s"), n(1.0), n(5.0)])), "Hello");
    assert_eq!(text(call("substr", vec![f("s"), n(7.0)])), "World");
    assert_eq!(text(call("substr", vec![f("s"), n(-5.0), n(3.0)])), "Wor");
    assert_eq!(text(call("trim", vec![s("  x ")])), "x");
    assert_eq!(text(call("trim", vec![s("xxaxx"), s("x")])), "a");
    assert_eq!(
        run(call("like", vec![f("s"), s("Hel%W_rld")])),
        Value::Bool(true)
    );
    assert_eq!(
        run(call("like", vec![f("s"), s("hel%")])),
        Value::Bool(false)
    );
    assert_eq!(
        run(call("match", vec![f("s"), s("o W")])),
        Value::Bool(true)
    );
    assert_eq!(
        text(call(
            "replace",
            vec![f("s"), s("(\\w+) (\\w+)"), s("\\2 \\1")]
        )),
        "World Hello"
    );
    assert!(ev()
        .eval(&call("match", vec![f("s"), s("(")]), &mut row())
        .is_err());
}

#[test]
fn conversions() {
    assert_eq!(text(call("tonumber", vec![s("0x1F"), n(16.0)])), "31");
    assert_eq!(text(call("tonumber", vec![s("101"), n(2.0)])), "5");
    assert!(run(call("tonumber", vec![s("abc")])).is_null());
    assert_eq!(text(call("tostring", vec![n(255.0), s("hex")])), "0xFF");
    assert_eq!(
        text(call("tostring", vec![n(1234567.891), s("commas")])),
        "1,234,567.89"
    );
    assert_eq!(
        text(call("tostring", vec![n(1234567.0), s("commas")])),
        "1,234,567"
    );
    assert_eq!(
        text(call("tostring", vec![n(3725.0), s("duration")])),
        "01:02:05"
    );
    assert_eq!(
        text(call("tostring", vec![n(90061.0), s("duration")])),
        "1+01:01:01"
    );
    assert_eq!(
        text(call(
            "tostring",
            vec![bin(BinOp::Cmp(CmpOp::Eq), n(1.0), n(1.0))]
        )),
        "true"
    );
}

#[test]
fn math_functions() {
    assert_eq!(text(call("round", vec![n(2.567), n(2.0)])), "2.57");
    assert_eq!(text(call("round", vec![n(2.5)])), "3");
    assert_eq!(text(call("abs", vec![n(-3.0)])), "3");
    assert_eq!(text(call("floor", vec![n(2.7)])), "2");
    assert_eq!(text(call("ceil", vec![n(2.1)])), "3");
    assert!(run(call("abs", vec![f("s")])).is_null());
}

#[test]
fn multivalue_functions() {
    assert_eq!(text(call("mvcount", vec![f("mv")])), "3");
    assert_eq!(text(call("mvcount", vec![f("n")])), "1");
    assert!(run(call("mvcount", vec![f("nope")])).is_null());
    assert_eq!(text(call("mvindex", vec![f("mv"), n(-1.0)])), "c");
    assert_eq!(text(call("mvindex", vec![f("mv"), n(0.0), n(1.0)])), "a\nb");
    assert!(run(call("mvindex", vec![f("mv"), n(5.0)])).is_null());
    assert_eq!(text(call("mvjoin", vec![f("mv"), s(",")])), "a,b,c");
    assert_eq!(
        text(call(
            "mvjoin",
            vec![call("split", vec![s("x;y;z"), s(";")]), s("|")]
        )),
        "x|y|z"
    );
}

#[test]
fn time_functions() {
    assert_eq!(text(call("now", vec![])), "1700000000");
    assert_eq!(
        text(call(
            "strftime",
            vec![n(1_700_000_000.0), s("%Y-%m-%d %H:%M:%S")]
        )),
        "2023-11-14 22:13:20"
    );
    assert_eq!(
        text(call(
            "strptime",
            vec![s("2023-11-14 22:13:20"), s("%Y-%m-%d %H:%M:%S")]
        )),
        "1700000000"
    );
    assert!(run(call("strptime", vec![s("nope"), s("%Y-%m-%d")])).is_null());
    assert_eq!(
        text(call("relative_time", vec![n(1_700_000_000.0), s("-1d@d")])),
        "1699833600"
    );
    assert!(run(call("time", vec![]))
        .to_num()
        .is_some_and(|t| t > 1_600_000_000.0));
}

#[test]
fn arity_and_unknown_functions() {
    let e = check(&call("substr", vec![s("a")]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'substr'") && e.contains("2 to 3"), "{e}");
    assert!(check(&call("if", vec![s("a"), s("b")]))
        .unwrap_err()
        .to_string()
        .contains("'if'"));
    assert!(check(&call("case", vec![s("a"), s("b"), s("c")]))
        .unwrap_err()
        .to_string()
        .contains("'case'"));
    assert!(check(&call("nosuch", vec![]))
        .unwrap_err()
        .to_string()
        .contains("nosuch"));
    assert!(ev().eval(&call("lower", vec![]), &mut row()).is_err());
    let mut names = Vec::new();
    fields_of(
        &bin(BinOp::Add, f("a"), call("len", vec![f("b"), f("a")])),
        &mut names,
    );
    assert_eq!(names, vec!["a", "b"]);
}

#[test]
fn extreme_arguments_do_not_panic() {
    assert_eq!(text(call("substr", vec![s("abc"), n(2.0), n(1e300)])), "bc");
    assert_eq!(text(call("round", vec![n(1.5), n(400.0)])), "1.5");
    assert_eq!(text(call("round", vec![n(1234.0), n(-2.0)])), "1200");
    assert!(run(call("mvindex", vec![f("nope"), n(0.0)])).is_null());
}
