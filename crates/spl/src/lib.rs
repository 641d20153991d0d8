//! SPL front end: lexer, parser, syntax tree, canonical printer; no I/O.

pub mod ast;
