//! `eval`/`where` expressions.
//!
//! Precedence, loosest first: `OR`, `XOR`, `AND`, `NOT`/`!` (prefix), comparisons
//! (`= == != < <= > >=`), `+ - .`, `* / %`, unary `-`, then literals, fields, calls and
//! parentheses. Binary operators associate to the left. Every node's height is tracked so
//! long operator chains are refused beyond [`MAX_DEPTH`] like deep parentheses are (the tree is
//! later walked recursively by the printer and the engine).

use super::{Parser, Result, MAX_DEPTH};
use crate::ast::{BinOp, CmpOp, Expr, Span, UnaryOp};
use crate::error::ParseError;
use crate::lexer::{Mode, Op, Tok, Token};

const M: Mode = Mode::Expr;

/// An expression and the height of its tree (a leaf is 1).
type Node = (Expr, u32);

impl Parser<'_> {
    /// An expression up to something it cannot continue with (`,`, `)`, `|`, end, …).
    pub(super) fn expr(&mut self) -> Result<Expr> {
        Ok(self.expr_or()?.0)
    }

    /// Whether `t` is the keyword `kw` (uppercase only).
    fn is_expr_kw(&self, t: &Token, kw: &str) -> bool {
        t.kind == Tok::Word && self.text(t) == kw
    }

    /// The height of a node over children of height `h`, refused beyond [`MAX_DEPTH`].
    fn grow(&self, h: u32, at: Span) -> Result<u32> {
        if h >= MAX_DEPTH {
            return Err(ParseError::new(
                format!("The expression is nested too deeply (more than {MAX_DEPTH} levels)."),
                at,
            ));
        }
        Ok(h + 1)
    }

    /// Joins `l op r`.
    fn join(&self, op: BinOp, l: Node, r: Node, at: Span) -> Result<Node> {
        let height = self.grow(l.1.max(r.1), at)?;
        Ok((Expr::Binary(op, Box::new(l.0), Box::new(r.0)), height))
    }

    /// After operator token `op`, an operand must follow.
    fn operand_follows(&self, op: &Token) -> Result<()> {
        let t = self.peek(M)?;
        if matches!(t.kind, Tok::Pipe | Tok::Eof | Tok::RParen | Tok::Comma) {
            return Err(ParseError::new(
                format!("Expected an expression after '{}'.", self.text(op)),
                op.span,
            ));
        }
        Ok(())
    }

    /// One left-associative level: `next (op next)*` where `op_of` recognises this level's
    /// operators.
    fn level(
        &mut self,
        next: fn(&mut Self) -> Result<Node>,
        op_of: fn(&Self, &Token) -> Option<BinOp>,
    ) -> Result<Node> {
        let mut left = next(self)?;
        loop {
            let t = self.peek(M)?;
            let Some(op) = op_of(self, &t) else {
                return Ok(left);
            };
            self.pos = t.span.end;
            self.operand_follows(&t)?;
            let right = next(self)?;
            left = self.join(op, left, right, t.span)?;
        }
    }

    fn expr_or(&mut self) -> Result<Node> {
        self.level(Self::expr_xor, |p, t| {
            p.is_expr_kw(t, "OR").then_some(BinOp::Or)
        })
    }

    fn expr_xor(&mut self) -> Result<Node> {
        self.level(Self::expr_and, |p, t| {
            p.is_expr_kw(t, "XOR").then_some(BinOp::Xor)
        })
    }

    fn expr_and(&mut self) -> Result<Node> {
        self.level(Self::expr_not, |p, t| {
            p.is_expr_kw(t, "AND").then_some(BinOp::And)
        })
    }

    fn expr_not(&mut self) -> Result<Node> {
        let t = self.peek(M)?;
        if !(self.is_expr_kw(&t, "NOT") || t.kind == Tok::Op(Op::Bang)) {
            return self.expr_cmp();
        }
        self.pos = t.span.end;
        self.operand_follows(&t)?;
        self.enter(t.span)?;
        let (inner, h) = self.expr_not()?;
        self.leave();
        Ok((
            Expr::Unary(UnaryOp::Not, Box::new(inner)),
            self.grow(h, t.span)?,
        ))
    }

    fn expr_cmp(&mut self) -> Result<Node> {
        self.level(Self::expr_add, |_, t| match t.kind {
            Tok::Op(Op::Eq | Op::EqEq) => Some(BinOp::Cmp(CmpOp::Eq)),
            Tok::Op(Op::Ne) => Some(BinOp::Cmp(CmpOp::Ne)),
            Tok::Op(Op::Lt) => Some(BinOp::Cmp(CmpOp::Lt)),
            Tok::Op(Op::Le) => Some(BinOp::Cmp(CmpOp::Le)),
            Tok::Op(Op::Gt) => Some(BinOp::Cmp(CmpOp::Gt)),
            Tok::Op(Op::Ge) => Some(BinOp::Cmp(CmpOp::Ge)),
            _ => None,
        })
    }

    fn expr_add(&mut self) -> Result<Node> {
        self.level(Self::expr_mul, |_, t| match t.kind {
            Tok::Op(Op::Plus) => Some(BinOp::Add),
            Tok::Op(Op::Minus) => Some(BinOp::Sub),
            Tok::Op(Op::Dot) => Some(BinOp::Concat),
            _ => None,
        })
    }

    fn expr_mul(&mut self) -> Result<Node> {
        self.level(Self::expr_unary, |_, t| match t.kind {
            Tok::Op(Op::Star) => Some(BinOp::Mul),
            Tok::Op(Op::Slash) => Some(BinOp::Div),
            Tok::Op(Op::Percent) => Some(BinOp::Mod),
            _ => None,
        })
    }

    /// Unary minus; `-` directly before a number is folded into a negative literal.
    fn expr_unary(&mut self) -> Result<Node> {
        let t = self.peek(M)?;
        if t.kind != Tok::Op(Op::Minus) {
            return self.expr_primary();
        }
        self.pos = t.span.end;
        self.operand_follows(&t)?;
        let next = self.peek(M)?;
        if let Tok::Num(v) = next.kind {
            self.pos = next.span.end;
            return Ok((Expr::Num(-v), 1));
        }
        self.enter(t.span)?;
        let (inner, h) = self.expr_unary()?;
        self.leave();
        Ok((
            Expr::Unary(UnaryOp::Neg, Box::new(inner)),
            self.grow(h, t.span)?,
        ))
    }

    fn expr_primary(&mut self) -> Result<Node> {
        let t = self.bump(M)?;
        match t.kind {
            Tok::Num(v) => Ok((Expr::Num(v), 1)),
            Tok::Str(s) => Ok((Expr::Str(s), 1)),
            Tok::Quoted(s) => Ok((Expr::Field(s), 1)),
            Tok::LParen => {
                self.enter(t.span)?;
                if self.peek(M)?.kind == Tok::RParen {
                    return Err(ParseError::new("Empty parentheses.", t.span));
                }
                let inner = self.expr_or()?;
                if self.bump(M)?.kind != Tok::RParen {
                    return Err(ParseError::new("Unbalanced parentheses.", t.span));
                }
                self.leave();
                Ok(inner)
            }
            Tok::Word => self.expr_word(t),
            Tok::Pipe | Tok::Eof => Err(ParseError::new("Expected an expression.", t.span)),
            _ => Err(ParseError::new(
                format!("Expected an expression, found '{}'.", self.text(&t)),
                t.span,
            )),
        }
    }

    /// An identifier: a keyword out of place, a call, or a field.
    fn expr_word(&mut self, t: Token) -> Result<Node> {
        let text = self.text(&t);
        if matches!(text, "AND" | "OR" | "XOR" | "NOT") {
            return Err(ParseError::new(
                format!("Expected an expression before '{text}'."),
                t.span,
            ));
        }
        let open = self.peek(M)?;
        if open.kind != Tok::LParen {
            return Ok((Expr::Field(text.to_string()), 1));
        }
        self.pos = open.span.end;
        let name = text.to_lowercase();
        self.enter(open.span)?;
        let mut args = Vec::new();
        let mut height = 0;
        if self.peek(M)?.kind == Tok::RParen {
            self.pos = self.peek(M)?.span.end;
        } else {
            loop {
                let (arg, h) = self.expr_or()?;
                args.push(arg);
                height = height.max(h);
                let sep = self.bump(M)?;
                match sep.kind {
                    Tok::Comma => {
                        if self.peek(M)?.kind == Tok::RParen {
                            return Err(ParseError::new(
                                format!("Expected an argument after ',' in '{name}()'."),
                                sep.span,
                            ));
                        }
                    }
                    Tok::RParen => break,
                    Tok::Eof | Tok::Pipe => {
                        return Err(ParseError::new("Unbalanced parentheses.", open.span))
                    }
                    _ => {
                        return Err(ParseError::new(
                            format!(
                                "Expected ',' or ')' in '{name}()', found '{}'.",
                                self.text(&sep)
                            ),
                            sep.span,
                        ))
                    }
                }
            }
        }
        self.leave();
        if name == "null" && args.is_empty() {
            return Ok((Expr::Null, 1));
        }
        Ok((Expr::Call(name, args), self.grow(height, t.span)?))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::err;
    use crate::ast::{BinOp, CmpOp, Expr, UnaryOp};
    use crate::{parse_expr, print_expr};

    /// Parses `s`, checking it prints and parses back unchanged.
    fn ex(s: &str) -> Expr {
        let e = parse_expr(s).unwrap_or_else(|e| panic!("{s:?}: {}", e.render(s)));
        let printed = print_expr(&e);
        assert_eq!(
            parse_expr(&printed),
            Ok(e.clone()),
            "reprinted as {printed:?}"
        );
        e
    }

    fn f(n: &str) -> Expr {
        Expr::Field(n.into())
    }

    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new(l), Box::new(r))
    }

    #[test]
    fn precedence_from_or_to_multiplication() {
        assert_eq!(
            ex("a OR b XOR c AND d"),
            bin(
                BinOp::Or,
                f("a"),
                bin(BinOp::Xor, f("b"), bin(BinOp::And, f("c"), f("d")))
            )
        );
        assert_eq!(
            ex("NOT a = b AND c"),
            bin(
                BinOp::And,
                Expr::Unary(
                    UnaryOp::Not,
                    Box::new(bin(BinOp::Cmp(CmpOp::Eq), f("a"), f("b")))
                ),
                f("c")
            )
        );
        assert_eq!(
            ex("a + b * c > d . e"),
            bin(
                BinOp::Cmp(CmpOp::Gt),
                bin(BinOp::Add, f("a"), bin(BinOp::Mul, f("b"), f("c"))),
                bin(BinOp::Concat, f("d"), f("e"))
            )
        );
        assert_eq!(
            ex("a - b - c"),
            bin(BinOp::Sub, bin(BinOp::Sub, f("a"), f("b")), f("c"))
        );
        assert_eq!(
            ex("a - (b - c)"),
            bin(BinOp::Sub, f("a"), bin(BinOp::Sub, f("b"), f("c")))
        );
        assert_eq!(ex("(a % 2)"), bin(BinOp::Mod, f("a"), Expr::Num(2.0)));
        assert_eq!(ex("!x"), ex("NOT x"));
        assert_eq!(ex("a == b"), ex("a=b"));
    }

    #[test]
    fn literals_and_fields() {
        assert_eq!(ex("1e3"), Expr::Num(1000.0));
        assert_eq!(ex("-1.5"), Expr::Num(-1.5));
        assert_eq!(ex("2.5E-1"), Expr::Num(0.25));
        assert_eq!(ex(r#""a \"b\"""#), Expr::Str("a \"b\"".into()));
        assert_eq!(ex("'x y'"), f("x y"));
        assert_eq!(ex("'AND'"), f("AND"));
        assert_eq!(ex("and"), f("and"));
        assert_eq!(ex("null()"), Expr::Null);
        assert_eq!(ex("true()"), Expr::Call("true".into(), vec![]));
        assert_eq!(ex("-x"), Expr::Unary(UnaryOp::Neg, Box::new(f("x"))));
        assert_eq!(
            ex("-(2)"),
            Expr::Unary(UnaryOp::Neg, Box::new(Expr::Num(2.0)))
        );
        assert_eq!(
            ex("1e300 * 1e-300 + 12345678901234567890"),
            ex("1e300*1e-300+12345678901234567890")
        );
    }

    #[test]
    fn calls_lowercase_their_name() {
        assert_eq!(
            ex(r#"IF(x>1, "a", Coalesce(y, z))"#),
            Expr::Call(
                "if".into(),
                vec![
                    bin(BinOp::Cmp(CmpOp::Gt), f("x"), Expr::Num(1.0)),
                    Expr::Str("a".into()),
                    Expr::Call("coalesce".into(), vec![f("y"), f("z")]),
                ]
            )
        );
        assert_eq!(
            ex("anything_at_all ( )"),
            Expr::Call("anything_at_all".into(), vec![])
        );
    }

    #[test]
    fn expression_errors() {
        let e = |s: &str| {
            let q = format!("x | where {s}");
            let (m, at) = err(&q);
            (m, at.to_string())
        };
        assert_eq!(
            e("a +"),
            ("Expected an expression after '+'.".into(), "+".into())
        );
        assert_eq!(
            e("a AND"),
            ("Expected an expression after 'AND'.".into(), "AND".into())
        );
        assert_eq!(e("(a"), ("Unbalanced parentheses.".into(), "(".into()));
        assert_eq!(e("a)"), ("Unbalanced parentheses.".into(), ")".into()));
        assert_eq!(e("f(a"), ("Unbalanced parentheses.".into(), "(".into()));
        assert_eq!(
            e("f(a,)"),
            (
                "Expected an argument after ',' in 'f()'.".into(),
                ",".into()
            )
        );
        assert_eq!(e("f(a b)").1, "b");
        assert_eq!(
            e("OR a"),
            ("Expected an expression before 'OR'.".into(), "OR".into())
        );
        assert_eq!(e("a # b").1, "#");
        assert_eq!(e("'a"), ("Unbalanced quotes.".into(), "'a".into()));
        assert_eq!(e("3x"), ("Invalid number '3x'.".into(), "3x".into()));
        assert_eq!(e("()"), ("Empty parentheses.".into(), "(".into()));
        assert_eq!(
            err("x | where"),
            ("'where' needs an expression.".into(), "where")
        );
    }

    #[test]
    fn long_chains_and_deep_nesting_are_refused() {
        let chain = vec!["a"; 50_000].join(" + ");
        assert!(parse_expr(&chain)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        let parens = format!("{}a{}", "(".repeat(50_000), ")".repeat(50_000));
        assert!(parse_expr(&parens)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        let calls = format!("{}a{}", "f(".repeat(50_000), ")".repeat(50_000));
        assert!(parse_expr(&calls).is_err());
        let negs = "-".repeat(50_000) + "a";
        assert!(parse_expr(&negs).is_err());
        assert!(parse_expr(&vec!["a"; 90].join(" + ")).is_ok());
    }
}
