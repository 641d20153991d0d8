//! SPL front end: lexer, parser, syntax tree, canonical printer; no I/O.
//!
//! [`parse`] turns search text into an [`ast::Pipeline`] (or a [`ParseError`] with a span that
//! [`ParseError::render`] shows under the text with carets); [`print`] turns a pipeline back into
//! canonical SPL such that `parse(&print(&p)) == Ok(p)` for every parsed `p`.

pub mod ast;
mod error;
mod lexer;
mod parser;
mod print;

pub use error::ParseError;
pub use parser::MAX_DEPTH;
pub use print::{print, print_expr};

/// Parses a whole search (`search …`, or implicit search, then `| cmd …`).
pub fn parse(text: &str) -> Result<ast::Pipeline, ParseError> {
    parser::pipeline(text)
}

/// Parses one `eval`/`where` expression taking up the whole text.
pub fn parse_expr(text: &str) -> Result<ast::Expr, ParseError> {
    parser::expression(text)
}
