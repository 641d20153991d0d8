//! `parse(print(ast)) == ast` for random syntax trees of the shapes the parser produces.

use lode_spl::ast::*;
use lode_spl::{parse, parse_expr, print, print_expr};
use proptest::collection::vec;
use proptest::prelude::*;

/// Any short text, including quotes, backslashes, pipes, newlines and non-ASCII.
fn text() -> impl Strategy<Value = String> {
    prop_oneof!["[ -~]{0,8}", "[a-z\"\\\\|()=,' \né\\[]{0,6}"]
}

/// A bare search word (minor breakers and wildcards allowed).
fn word() -> impl Strategy<Value = String> {
    "[a-z0-9_*./@:,!'-]{1,8}"
}

/// A command-argument name: usually plain, sometimes one that needs quoting.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z_][a-z0-9_*.]{0,6}",
        1 => prop_oneof![Just("by".to_string()), Just("desc".to_string()), Just("d".to_string()), Just("-x".to_string()), Just("42".to_string())],
        1 => text(),
    ]
}

/// The text of a `[ … ]` subsearch (trimmed, as the parser keeps it).
fn subsearch() -> impl Strategy<Value = join::Subsearch> {
    prop_oneof![
        Just("search a b"),
        Just("| makeresults count=2"),
        Just("index=web \"x]\" | stats count by host"),
        Just("search a [search b | fields h] | head 1"),
    ]
    .prop_map(|t| join::Subsearch { text: t.into() })
}

fn sub_options() -> impl Strategy<Value = join::SubOptions> {
    (
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(
            |(maxtime, maxout, timeout, extendtimerange)| join::SubOptions {
                maxtime,
                maxout,
                timeout,
                extendtimerange,
            },
        )
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ]
}

fn search_expr() -> impl Strategy<Value = SearchExpr> {
    let value = prop_oneof![
        word().prop_map(|w| (w, false)),
        text().prop_map(|t| (t, true))
    ];
    let leaf = prop_oneof![
        word().prop_map(|text| SearchExpr::Term(Term {
            text,
            quoted: false,
            whole: false,
            case: false
        })),
        text().prop_map(|text| SearchExpr::Term(Term {
            text,
            quoted: true,
            whole: false,
            case: false
        })),
        (value.clone(), any::<bool>()).prop_map(|((text, quoted), case)| SearchExpr::Term(Term {
            text,
            quoted,
            whole: !case,
            case
        })),
        ("[a-z_][a-z0-9_.:{}@-]{0,6}", cmp_op(), value)
            .prop_filter("time bounds are their own node", |(f, _, _)| f
                != "earliest"
                && f != "latest")
            .prop_map(|(field, op, (value, quoted))| SearchExpr::Compare {
                field,
                op,
                value,
                quoted
            }),
        (
            prop_oneof![Just(TimeBound::Earliest), Just(TimeBound::Latest)],
            text()
        )
            .prop_map(|(bound, value)| SearchExpr::TimeBound { bound, value }),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 2..4).prop_map(SearchExpr::And),
            vec(inner.clone(), 2..4).prop_map(SearchExpr::Or),
            inner.prop_map(|e| SearchExpr::Not(Box::new(e))),
        ]
    })
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        text().prop_map(Expr::Str),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(Expr::Num),
        (-1000i32..1000).prop_map(|v| Expr::Num(f64::from(v))),
        prop_oneof!["[a-z_][a-z0-9_]{0,5}".prop_map(String::from), text()].prop_map(Expr::Field),
        Just(Expr::Null),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let bin = prop_oneof![
            Just(BinOp::Or),
            Just(BinOp::Xor),
            Just(BinOp::And),
            cmp_op().prop_map(BinOp::Cmp),
            Just(BinOp::Add),
            Just(BinOp::Sub),
            Just(BinOp::Concat),
            Just(BinOp::Mul),
            Just(BinOp::Div),
            Just(BinOp::Mod),
        ];
        prop_oneof![
            (
                prop_oneof![Just(UnaryOp::Not), Just(UnaryOp::Neg)],
                inner.clone()
            )
                .prop_map(|(op, e)| Expr::Unary(op, Box::new(e))),
            (bin, inner.clone(), inner.clone()).prop_map(|(op, l, r)| Expr::Binary(
                op,
                Box::new(l),
                Box::new(r)
            )),
            ("[a-z_][a-z0-9_]{0,5}", vec(inner, 0..3))
                .prop_filter("null() is a literal", |(n, a)| !(n == "null"
                    && a.is_empty()))
                .prop_map(|(n, a)| Expr::Call(n, a)),
        ]
    })
}

fn agg() -> impl Strategy<Value = Agg> {
    let func = prop_oneof![
        Just("dc"),
        Just("sum"),
        Just("avg"),
        Just("min"),
        Just("max"),
        Just("values"),
        Just("earliest"),
        Just("latest")
    ];
    prop_oneof![
        (proptest::option::of(name()), proptest::option::of(name())).prop_map(|(field, alias)| {
            Agg {
                func: "count".into(),
                field,
                alias,
                eval: None,
            }
        }),
        (func, name(), proptest::option::of(name())).prop_map(|(f, field, alias)| Agg {
            func: f.into(),
            field: Some(field),
            alias,
            eval: None,
        }),
    ]
}

fn time_span() -> impl Strategy<Value = TimeSpan> {
    let unit = prop_oneof![
        Just(TimeUnit::Second),
        Just(TimeUnit::Minute),
        Just(TimeUnit::Hour),
        Just(TimeUnit::Day),
        Just(TimeUnit::Week),
        Just(TimeUnit::Month),
        Just(TimeUnit::Year)
    ];
    (1..u64::MAX, unit).prop_map(|(count, unit)| TimeSpan { count, unit })
}

fn command() -> impl Strategy<Value = Command> {
    let sort_key = (
        name(),
        any::<bool>(),
        prop_oneof![
            Just(SortMode::Auto),
            Just(SortMode::Num),
            Just(SortMode::Str)
        ],
    )
        .prop_map(|(field, descending, mode)| SortKey {
            field,
            descending,
            mode,
        })
        .boxed();
    let timechart = (
        proptest::option::of(time_span()),
        any::<u32>(),
        vec(agg(), 1..3),
        proptest::option::of(name()),
        any::<u32>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(span, bins, mut aggs, by, limit, useother, usenull)| {
            if by.is_some() {
                aggs.truncate(1);
            }
            Command::Timechart(Timechart {
                span,
                bins,
                aggs,
                by,
                limit,
                useother,
                usenull,
                cont: bins % 2 == 0,
            })
        });
    let top = (
        any::<bool>(),
        vec(name(), 1..3),
        vec(name(), 0..3),
        any::<u64>(),
        name(),
        name(),
        any::<bool>(),
        any::<bool>(),
        (any::<bool>(), name()),
    )
        .prop_map(
            |(
                rare,
                fields,
                by,
                limit,
                countfield,
                percentfield,
                showcount,
                showperc,
                (useother, otherstr),
            )| {
                Command::Top(Top {
                    rare,
                    fields,
                    by,
                    limit,
                    countfield,
                    percentfield,
                    showcount,
                    showperc,
                    useother,
                    otherstr,
                })
            },
        );
    prop_oneof![
        search_expr()
            .prop_filter(
                "a lone * means no condition",
                |e| !matches!(e, SearchExpr::Term(t) if t.text == "*" && !t.quoted && !t.whole)
            )
            .prop_map(|e| Command::Search(Some(e))),
        Just(Command::Search(None)),
        expr().prop_map(Command::Where),
        (subsearch(), sub_options(), any::<bool>(), any::<bool>()).prop_map(
            |(sub, options, cols, override_)| {
                let a = join::Append {
                    options,
                    override_: cols && override_,
                    sub,
                };
                if cols {
                    Command::AppendCols(a)
                } else {
                    Command::Append(a)
                }
            }
        ),
        (
            sub_options(),
            vec(
                prop_oneof![
                    subsearch().prop_map(join::Dataset::Subsearch),
                    name().prop_map(join::Dataset::Index)
                ],
                1..4
            )
        )
            .prop_map(|(options, datasets)| Command::Union(join::Union { options, datasets })),
        (
            prop_oneof![
                Just(join::JoinType::Inner),
                Just(join::JoinType::Left),
                Just(join::JoinType::Outer)
            ],
            any::<u64>(),
            any::<bool>(),
            vec(name(), 0..3),
            subsearch()
        )
            .prop_map(|(kind, max, overwrite, fields, sub)| {
                Command::Join(join::Join {
                    kind,
                    max,
                    overwrite,
                    fields,
                    sub,
                })
            }),
        vec((name(), expr()), 1..3).prop_map(Command::Eval),
        (any::<bool>(), vec(name(), 1..4))
            .prop_map(|(remove, fields)| Command::Fields { remove, fields }),
        vec(name(), 1..4).prop_map(Command::Table),
        vec((name(), name()), 1..3).prop_map(Command::Rename),
        (
            proptest::option::of(any::<u64>()),
            vec(sort_key.clone(), 1..4)
        )
            .prop_map(|(limit, keys)| Command::Sort { limit, keys }),
        any::<u64>().prop_map(Command::Head),
        any::<u64>().prop_map(Command::Tail),
        (
            1..u64::MAX,
            vec(name(), 1..3),
            any::<bool>(),
            any::<bool>(),
            vec(sort_key.clone(), 0..3)
        )
            .prop_map(|(count, fields, keepempty, consecutive, sortby)| {
                Command::Dedup {
                    count,
                    fields,
                    keepempty,
                    consecutive,
                    sortby,
                }
            }),
        (
            name(),
            "[ -~]{1,10}",
            any::<u64>(),
            any::<bool>(),
            proptest::option::of(name())
        )
            .prop_map(|(field, pattern, max_match, sed, offset_field)| {
                Command::Rex {
                    field,
                    pattern,
                    max_match,
                    sed,
                    offset_field,
                }
            }),
        (vec(agg(), 1..4), vec(name(), 0..3), any::<bool>()).prop_map(
            |(aggs, by, dedup_splitvals)| Command::Stats(Stats {
                aggs,
                by,
                dedup_splitvals
            })
        ),
        (vec(agg(), 1..4), vec(name(), 0..3), any::<bool>()).prop_map(
            |(aggs, by, dedup_splitvals)| Command::EventStats(Stats {
                aggs,
                by,
                dedup_splitvals
            })
        ),
        (
            vec(agg(), 1..3),
            vec(name(), 0..2),
            any::<u64>(),
            any::<(bool, bool, bool)>()
        )
            .prop_map(|(aggs, by, window, (current, global, reset_on_change))| {
                Command::StreamStats(StreamStats {
                    stats: Stats {
                        aggs,
                        by,
                        dedup_splitvals: false,
                    },
                    window,
                    current,
                    global,
                    reset_on_change,
                    time_window: None,
                    reset_before: None,
                    reset_after: None,
                    allnum: false,
                })
            }),
        (name(), proptest::option::of(name()))
            .prop_map(|(field, alias)| Command::Accum { field, alias }),
        (name(), proptest::option::of(name()), 1..u64::MAX)
            .prop_map(|(field, alias, p)| Command::Delta { field, alias, p }),
        ("[a-z_][a-z0-9_.]{0,6}", any::<bool>(), "[ -~]{1,10}").prop_map(
            |(field, negate, pattern)| Command::Regex {
                field,
                negate,
                pattern,
            }
        ),
        Just(Command::Reverse),
        (name(), vec(name(), 0..3)).prop_map(|(value, fields)| Command::FillNull { value, fields }),
        timechart,
        top,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn printed_pipelines_parse_back(commands in vec(command(), 1..5)) {
        let p = Pipeline { commands };
        let text = print(&p);
        let back = parse(&text).map_err(|e| TestCaseError::fail(e.render(&text)))?;
        prop_assert_eq!(back, p, "printed as {}", text);
    }

    #[test]
    fn printed_expressions_parse_back(e in expr()) {
        let text = print_expr(&e);
        let back = parse_expr(&text).map_err(|err| TestCaseError::fail(err.render(&text)))?;
        prop_assert_eq!(back, e, "printed as {}", text);
    }
}

// --- Reshaping commands (bin, chart, makemv … convert) ---

fn bin_span() -> impl Strategy<Value = BinSpan> {
    prop_oneof![
        (1e-6f64..1e12).prop_map(BinSpan::Num),
        (1u32..1000).prop_map(|v| BinSpan::Num(f64::from(v))),
        time_span().prop_map(BinSpan::Time),
        (2u32..20, 0.0f64..1.0).prop_map(|(base, f)| {
            let base = f64::from(base);
            BinSpan::Log {
                coef: 1.0 + (base - 1.0) * f,
                base,
            }
        }),
    ]
}

fn reshape_command() -> impl Strategy<Value = Command> {
    let opt_num = || proptest::option::of(-1e9f64..1e9);
    let bin = (
        (name(), proptest::option::of(name())),
        proptest::option::of(bin_span()),
        proptest::option::of(2..u64::MAX),
        proptest::option::of(bin_span()),
        (opt_num(), opt_num()),
        proptest::option::of(text()),
    )
        .prop_map(
            |((field, alias), span, bins, minspan, (start, end), aligntime)| {
                Command::Bin(Bin {
                    field,
                    alias,
                    span,
                    bins,
                    minspan,
                    start,
                    end,
                    aligntime,
                })
            },
        );
    let chart = (
        vec(agg(), 1..3),
        proptest::option::of((name(), proptest::option::of(bin_span()))),
        proptest::option::of(name()),
        any::<(u64, bool)>(),
        (any::<bool>(), name(), any::<bool>(), name()),
    )
        .prop_map(
            |(aggs, over, by, (limit, bottom), (useother, otherstr, usenull, nullstr))| {
                let (over, span) = match over {
                    Some((o, s)) => (Some(o), s),
                    None => (None, None),
                };
                let by = if over.is_some() { by } else { None };
                Command::Chart(Chart {
                    aggs,
                    over,
                    span,
                    by,
                    limit,
                    useother,
                    otherstr,
                    usenull,
                    nullstr,
                    bottom,
                })
            },
        );
    let totals = (
        any::<(bool, bool)>(),
        proptest::option::of(name()),
        name(),
        name(),
        vec(name(), 0..3),
    )
        .prop_map(|((row, col), labelfield, label, fieldname, fields)| {
            Command::AddTotals(AddTotals {
                row,
                col,
                labelfield,
                label,
                fieldname,
                fields,
            })
        });
    let conversion = (
        prop_oneof![
            Just("auto"),
            Just("ctime"),
            Just("dur2sec"),
            Just("memk"),
            Just("mktime"),
            Just("none"),
            Just("num"),
            Just("rmunit")
        ],
        name(),
        proptest::option::of(name()),
    )
        .prop_map(|(func, field, alias)| Conversion {
            func: func.into(),
            field,
            alias,
        });
    prop_oneof![
        bin,
        chart,
        (
            name(),
            text().prop_filter("non-empty", |d| !d.is_empty()),
            proptest::option::of(text()),
            any::<(bool, bool)>()
        )
            .prop_map(|(field, delim, tokenizer, (allowempty, setsv))| {
                Command::MakeMv {
                    field,
                    delim,
                    tokenizer,
                    allowempty,
                    setsv,
                }
            }),
        (name(), proptest::option::of(any::<u64>()))
            .prop_map(|(field, limit)| Command::MvExpand { field, limit }),
        (name(), text()).prop_map(|(field, delim)| Command::MvCombine { field, delim }),
        name().prop_map(Command::NoMv),
        vec(name(), 0..3).prop_map(Command::FillDown),
        (name(), proptest::option::of(name()), 1..1000u64, 0..3u64).prop_map(
            |(field, alias, from, extra)| Command::AutoRegress {
                field,
                to: if alias.is_some() { from } else { from + extra },
                alias,
                from,
            }
        ),
        totals,
        (proptest::option::of(name()), name(), vec(name(), 0..3)).prop_map(
            |(labelfield, label, fields)| Command::AddColTotals {
                labelfield,
                label,
                fields
            }
        ),
        Just(Command::Uniq),
        (vec((text(), text()), 1..3), vec(name(), 0..3))
            .prop_map(|(pairs, fields)| Command::Replace { pairs, fields }),
        (text(), vec(conversion, 1..3))
            .prop_map(|(timeformat, items)| Command::Convert { timeformat, items }),
        transaction(),
        (
            name(),
            proptest::option::of(name()),
            proptest::option::of(text())
        )
            .prop_map(|(input, output, path)| Command::Spath {
                input,
                output,
                path
            }),
        (proptest::option::of(text()), proptest::option::of(text()))
            .prop_map(|(pairdelim, kvdelim)| Command::Extract { pairdelim, kvdelim }),
        Just(Command::XmlKv),
        (
            vec(agg(), 1..3),
            time_span(),
            any::<u64>(),
            proptest::option::of(expr()),
            proptest::option::of(expr())
        )
            .prop_map(|(aggs, t, window, reset_before, reset_after)| {
                Command::StreamStats(StreamStats {
                    stats: Stats {
                        aggs,
                        by: vec![],
                        dedup_splitvals: false,
                    },
                    window,
                    current: true,
                    global: true,
                    reset_on_change: false,
                    time_window: Some(t),
                    reset_before,
                    reset_after,
                    allnum: window % 2 == 0,
                })
            }),
    ]
}

fn txn_filter() -> impl Strategy<Value = TxnFilter> {
    prop_oneof![
        search_expr()
            .prop_filter(
                "a lone * means no condition",
                |e| !matches!(e, SearchExpr::Term(t) if t.text == "*" && !t.quoted && !t.whole)
            )
            .prop_map(TxnFilter::Search),
        expr().prop_map(TxnFilter::Eval),
    ]
}

fn transaction() -> impl Strategy<Value = Command> {
    (
        vec(name(), 0..3),
        (
            proptest::option::of(0..u64::MAX),
            proptest::option::of(0..u64::MAX),
            any::<u64>(),
        ),
        (
            proptest::option::of(txn_filter()),
            proptest::option::of(txn_filter()),
        ),
        any::<(bool, bool)>(),
        text(),
    )
        .prop_map(
            |(
                fields,
                (maxspan, maxpause, maxevents),
                (startswith, endswith),
                (keepevicted, mvlist),
                delim,
            )| {
                Command::Transaction(Transaction {
                    fields,
                    maxspan,
                    maxpause,
                    maxevents,
                    startswith,
                    endswith,
                    keepevicted,
                    mvlist,
                    delim,
                })
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn printed_reshape_pipelines_parse_back(
        commands in vec(prop_oneof![command(), reshape_command(), reshape_command()], 1..5)
    ) {
        let p = Pipeline { commands };
        let text = print(&p);
        let back = parse(&text).map_err(|e| TestCaseError::fail(e.render(&text)))?;
        prop_assert_eq!(back, p, "printed as {}", text);
    }
}
