//! Tests of the functions added for issue 4: conditionals and type tests, `searchmatch`,
//! `cidrmatch`, `printf`, `urldecode`, digests, the multivalue and JSON families; each with
//! null and type-mismatch cases.

use super::tests::{bin, call, ev, f, n, row, run, s, text};
use super::*;
use lode_spl::ast::{BinOp, CmpOp, Expr};

fn b(v: bool) -> Value {
    Value::Bool(v)
}

fn nu() -> Expr {
    call("null", vec![])
}

fn eval_on(e: Expr, r: &mut Row) -> Result<Value, SearchError> {
    ev().eval(&e, r)
}

fn err(e: Expr) -> String {
    check(&e)
        .and_then(|_| ev().eval(&e, &mut row()).map(|_| ()))
        .unwrap_err()
        .to_string()
}

#[test]
fn validate_returns_the_first_failing_message() {
    let gt = |x: f64| bin(BinOp::Cmp(CmpOp::Gt), f("n"), n(x));
    let v = |a: Expr, b: Expr| call("validate", vec![a, s("small"), b, s("not int")]);
    assert_eq!(text(v(gt(10.0), call("isint", vec![f("n")]))), "small");
    assert_eq!(text(v(gt(1.0), call("isint", vec![f("s")]))), "not int");
    assert!(run(v(gt(1.0), call("isint", vec![f("n")]))).is_null());
    // A null condition is not true, so it fails.
    assert_eq!(text(v(nu(), gt(1.0))), "small");
    assert!(err(call("validate", vec![gt(1.0)])).contains("'validate'"));
}

#[test]
fn isint_and_ceiling() {
    assert_eq!(run(call("isint", vec![f("n")])), b(true));
    assert_eq!(run(call("isint", vec![s("-12")])), b(true));
    assert_eq!(run(call("isint", vec![s("1.5")])), b(false));
    assert_eq!(run(call("isint", vec![n(3.0)])), b(true));
    assert_eq!(
        run(call("isint", vec![bin(BinOp::Div, n(7.0), n(2.0))])),
        b(false)
    );
    assert_eq!(run(call("isint", vec![f("s")])), b(false));
    assert_eq!(run(call("isint", vec![f("missing")])), b(false));
    assert_eq!(text(call("ceiling", vec![n(1.2)])), "2");
    assert!(run(call("ceiling", vec![f("s")])).is_null());
}

#[test]
fn random_exact_and_tonumber_bases() {
    let mut e = ev();
    let a = e.eval(&call("random", vec![]), &mut row()).unwrap();
    let z = e.eval(&call("random", vec![]), &mut row()).unwrap();
    let (a, z) = (a.to_num().unwrap(), z.to_num().unwrap());
    assert!((0.0..2_147_483_648.0).contains(&a) && a.fract() == 0.0);
    assert_ne!(a, z);
    assert_eq!(
        text(call("exact", vec![bin(BinOp::Mul, n(3.13), n(7.0))])),
        "21.91"
    );
    assert!(run(call("exact", vec![f("s")])).is_null());
    assert_eq!(text(call("tonumber", vec![s("zz"), n(36.0)])), "1295");
    assert_eq!(text(call("tonumber", vec![s("-777"), n(8.0)])), "-511");
    assert!(run(call("tonumber", vec![s("12"), n(2.0)])).is_null());
    assert!(run(call("tonumber", vec![f("missing"), n(16.0)])).is_null());
    assert!(err(call("tonumber", vec![s("1"), n(37.0)])).contains("2 to 36"));
}

#[test]
fn searchmatch_uses_the_search_clause() {
    let mut r = Row::from_fields([
        (
            "_raw".to_string(),
            Value::Str("GET /index.html status=404 user=bob".into()),
        ),
        ("status".to_string(), Value::Str("404".into())),
    ]);
    let m = |q: &str, r: &mut Row| eval_on(call("searchmatch", vec![s(q)]), r).unwrap();
    assert_eq!(m("status=404", &mut r), b(true));
    assert_eq!(m("status=4*", &mut r), b(true));
    assert_eq!(m("GET NOT user=alice", &mut r), b(true));
    assert_eq!(m("POST OR status=500", &mut r), b(false));
    assert_eq!(m("\"index.html\"", &mut r), b(true));
    assert_eq!(m("*", &mut r), b(true));
    assert!(eval_on(call("searchmatch", vec![nu()]), &mut r)
        .unwrap()
        .is_null());
    assert!(err(call("searchmatch", vec![s("a | stats count")])).contains("searchmatch"));
    assert!(err(call("searchmatch", vec![s("(a")])).contains("searchmatch"));
    let mut names = Vec::new();
    fields_of(&call("searchmatch", vec![s("status=404 GET")]), &mut names);
    assert_eq!(names, vec!["status", "_raw"]);
}

#[test]
fn cidrmatch_ipv4_ipv6_null_and_errors() {
    let c = |net: &str, ip: Expr| run(call("cidrmatch", vec![s(net), ip]));
    assert_eq!(c("10.0.0.0/8", s("10.1.2.3")), b(true));
    assert_eq!(c("10.0.0.0/8", s("192.168.0.1")), b(false));
    assert_eq!(c("2001:db8::/32", s("2001:db8::7")), b(true));
    assert_eq!(c("10.0.0.0/8", s("not an ip")), b(false));
    assert_eq!(c("10.0.0.0/8", f("s")), b(false));
    assert!(c("10.0.0.0/8", f("missing")).is_null());
    assert!(err(call("cidrmatch", vec![s("10.0.0.0/40"), s("10.0.0.1")])).contains("subnet"));
    // A subnet computed per row that is not one simply does not match.
    assert_eq!(
        run(call("cidrmatch", vec![f("s"), s("10.0.0.1")])),
        b(false)
    );
}

#[test]
fn printf_and_urldecode() {
    assert_eq!(
        text(call(
            "printf",
            vec![
                s("%s has %'d bytes (%.1f%%)"),
                f("s"),
                n(1234567.0),
                n(12.34)
            ]
        )),
        "Hello World has 1,234,567 bytes (12.3%)"
    );
    assert_eq!(text(call("printf", vec![s("%04X"), f("n")])), "0007");
    assert!(run(call("printf", vec![nu(), n(1.0)])).is_null());
    assert!(err(call("printf", vec![s("%y"), n(1.0)])).contains("printf"));
    // Literal formats and bases are checked before any row is seen.
    assert!(check(&call("printf", vec![s("%d%q")])).is_err());
    assert!(check(&call("printf", vec![s("%d %s"), f("n")])).is_ok());
    assert!(check(&call("tonumber", vec![f("n"), n(1.0)])).is_err());
    assert!(check(&call("tonumber", vec![f("n"), n(16.0)])).is_ok());
    assert_eq!(
        text(call(
            "urldecode",
            vec![s("http%3A%2F%2Fwww.splunk.com%2Fdownload%3Fr%3Dheader")]
        )),
        "http://www.splunk.com/download?r=header"
    );
    assert_eq!(
        text(call("urldecode", vec![s("a+b%20c%zz%4")])),
        "a b c%zz%4"
    );
    assert_eq!(text(call("urldecode", vec![s("caf%C3%A9")])), "café");
    assert!(run(call("urldecode", vec![f("missing")])).is_null());
}

#[test]
fn digests_are_lowercase_hex() {
    assert_eq!(
        text(call("md5", vec![s("abc")])),
        "900150983cd24fb0d6963f7d28e17f72"
    );
    assert_eq!(
        text(call("sha1", vec![s("abc")])),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(
        text(call("sha256", vec![s("abc")])),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert!(text(call("sha512", vec![s("abc")])).starts_with("ddaf35a193617aba"));
    assert_eq!(text(call("sha512", vec![s("")])).len(), 128);
    assert_eq!(
        text(call("md5", vec![n(1.0)])),
        text(call("md5", vec![s("1")]))
    );
    assert!(run(call("sha256", vec![f("missing")])).is_null());
}

#[test]
fn mvfilter_and_mvmap_bind_the_field_per_value() {
    let mut r = Row::from_fields([(
        "v".to_string(),
        Value::Multi(vec![
            Value::Str("3".into()),
            Value::Str("12".into()),
            Value::Str("x".into()),
            Value::Str("40".into()),
        ]),
    )]);
    let big = bin(BinOp::Cmp(CmpOp::Gt), f("v"), n(10.0));
    let got = eval_on(call("mvfilter", vec![big.clone()]), &mut r).unwrap();
    // "x" > 10 compares as text, as in Splunk.
    assert_eq!(got.to_string(), "12\nx\n40");
    let num = bin(BinOp::And, call("isnum", vec![f("v")]), big);
    let got = eval_on(call("mvfilter", vec![num]), &mut r).unwrap();
    assert_eq!(got.to_string(), "12\n40");
    // The field is restored afterwards.
    assert_eq!(r.peek("v").unwrap().to_string(), "3\n12\nx\n40");
    let none = bin(BinOp::Cmp(CmpOp::Eq), f("v"), s("none"));
    assert!(eval_on(call("mvfilter", vec![none]), &mut r)
        .unwrap()
        .is_null());
    let missing = bin(BinOp::Cmp(CmpOp::Gt), f("w"), n(1.0));
    assert!(eval_on(call("mvfilter", vec![missing]), &mut r)
        .unwrap()
        .is_null());
    let two = bin(BinOp::Cmp(CmpOp::Gt), f("v"), f("w"));
    assert!(eval_on(call("mvfilter", vec![two]), &mut r)
        .unwrap_err()
        .to_string()
        .contains("exactly one field"));
    let times2 = bin(BinOp::Mul, f("v"), n(2.0));
    let got = eval_on(call("mvmap", vec![f("v"), times2]), &mut r).unwrap();
    assert_eq!(got.to_string(), "6\n24\n80");
    assert!(eval_on(call("mvmap", vec![s("v"), f("v")]), &mut r).is_err());
    assert!(err(call("mvmap", vec![s("v"), f("v")])).contains("field name"));
    assert!(err(call("mvfilter", vec![call("true", vec![])])).contains("reads 0"));
    assert!(run(call("mvmap", vec![f("missing"), f("missing")])).is_null());
}

#[test]
fn mvfind_mvzip_mvrange() {
    assert_eq!(text(call("mvfind", vec![f("mv"), s("[bc]")])), "1");
    assert!(run(call("mvfind", vec![f("mv"), s("z")])).is_null());
    assert!(run(call("mvfind", vec![f("missing"), s("a")])).is_null());
    assert!(ev()
        .eval(&call("mvfind", vec![f("mv"), s("(")]), &mut row())
        .is_err());
    let nums = call("split", vec![s("1,2"), s(",")]);
    assert_eq!(text(call("mvzip", vec![f("mv"), nums.clone()])), "a,1\nb,2");
    assert_eq!(
        text(call(
            "mvjoin",
            vec![call("mvzip", vec![f("mv"), nums, s("=")]), s(";")]
        )),
        "a=1;b=2"
    );
    assert!(run(call("mvzip", vec![f("mv"), f("missing")])).is_null());
    let j = |e: Expr| text(call("mvjoin", vec![e, s(" ")]));
    assert_eq!(
        j(call("mvrange", vec![n(1.0), n(11.0), n(2.0)])),
        "1 3 5 7 9"
    );
    assert_eq!(j(call("mvrange", vec![n(1.0), n(4.0)])), "1 2 3");
    assert_eq!(j(call("mvrange", vec![n(5.0), n(1.0), n(-2.0)])), "5 3");
    assert_eq!(
        j(call(
            "mvrange",
            vec![n(1_700_000_000.0), n(1_700_259_200.0), s("1d")]
        )),
        "1700000000 1700086400 1700172800"
    );
    assert!(run(call("mvrange", vec![n(1.0), n(4.0), n(0.0)])).is_null());
    assert!(run(call("mvrange", vec![f("s"), n(4.0)])).is_null());
    assert!(run(call("mvrange", vec![n(4.0), n(1.0)])).is_null());
    assert!(err(call("mvrange", vec![n(0.0), n(1e9)])).contains("10000"));
    assert!(err(call("mvrange", vec![n(0.0), n(10.0), s("1x")])).contains("mvrange"));
}

#[test]
fn json_functions() {
    let obj = call(
        "json_object",
        vec![
            s("name"),
            f("s"),
            s("n"),
            n(7.0),
            s("tags"),
            call("json_array", vec![s("a"), n(1.5), nu()]),
        ],
    );
    assert_eq!(
        text(obj.clone()),
        r#"{"name":"Hello World","n":7,"tags":["a",1.5,null]}"#
    );
    assert_eq!(text(call("json_array", vec![])), "[]");
    assert_eq!(text(call("json_object", vec![])), "{}");
    assert!(err(call("json_object", vec![s("a")])).contains("even"));
    let doc = s(r#"{"a":{"b":[{"c":1},{"c":"two"}],"t":true},"z":null}"#);
    let x = |p: &str| run(call("json_extract", vec![doc.clone(), s(p)]));
    assert_eq!(x("a.b{1}.c").to_string(), "two");
    assert_eq!(x("a.b{-1}.c").to_string(), "two");
    assert_eq!(x("a.b{0}").to_string(), r#"{"c":1}"#);
    assert_eq!(x("a.b{}.c").to_string(), r#"[1,"two"]"#);
    assert_eq!(x("a.t").to_string(), "true");
    assert!(x("a.nope").is_null());
    assert!(x("z").is_null());
    assert_eq!(
        text(call("json_extract", vec![doc.clone(), s("a.t"), s("nope")])),
        "[true,null]"
    );
    assert_eq!(text(call("json_extract", vec![s(" [1, 2] ")])), "[1,2]");
    assert!(run(call("json_extract", vec![f("s"), s("a")])).is_null());
    assert!(run(call("json_extract", vec![f("missing"), s("a")])).is_null());
    assert!(ev()
        .eval(
            &call("json_extract", vec![doc.clone(), s("a{x}")]),
            &mut row()
        )
        .is_err());
    assert_eq!(text(call("json_keys", vec![doc.clone()])), r#"["a","z"]"#);
    assert!(run(call("json_keys", vec![s("[1]")])).is_null());
    assert_eq!(run(call("json_valid", vec![doc.clone()])), b(true));
    assert_eq!(run(call("json_valid", vec![f("s")])), b(false));
    assert!(run(call("json_valid", vec![f("missing")])).is_null());
    assert_eq!(
        text(call(
            "json_set",
            vec![doc.clone(), s("a.t"), n(0.0), s("new.k"), s("v")]
        )),
        r#"{"a":{"b":[{"c":1},{"c":"two"}],"t":0},"z":null,"new":{"k":"v"}}"#
    );
    assert!(err(call("json_set", vec![doc.clone(), s("a")])).contains("odd"));
    assert_eq!(
        text(call(
            "mvjoin",
            vec![call("spath", vec![doc.clone(), s("a.b{}.c")]), s("|")]
        )),
        "1|two"
    );
    assert_eq!(text(call("spath", vec![doc.clone(), s("a.b{0}.c")])), "1");
    assert!(run(call("spath", vec![doc, s("q")])).is_null());
    assert!(run(call("spath", vec![s("not json"), s("a")])).is_null());
}

#[test]
fn splunk_style_errors_for_unknown_functions_and_arity() {
    assert_eq!(
        err(call("nosuch", vec![])),
        "The 'nosuch' function is unsupported or undefined."
    );
    assert!(err(call("md5", vec![])).starts_with("The arguments to the 'md5' function are invalid"));
    assert!(err(call("random", vec![n(1.0)])).contains("takes 0 arguments"));
}
