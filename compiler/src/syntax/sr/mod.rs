//! The SR front end: SR 2.3.3 source text → the same AST as MPD's parser
//! (`syntax::ast`), so the checker, the C generator and the runtime are shared.
//!
//! lexer.rs: SR's words, operators and line-break rule on top of MPD's scanner;
//! parser.rs: components, declarations, types; stmt.rs: statements; expr.rs:
//! expressions. How SR's constructs map onto the AST is in docs/sr.md.

pub mod lexer;
mod expr;
mod parser;
mod stmt;

use super::ast::{FileId, SourceFile};
use super::diag::Diagnostics;

/// Parse SR source `src` (file `file`) into an AST; errors go to `diags`.
pub fn parse(file: FileId, src: &str, diags: &mut Diagnostics) -> SourceFile {
    let mut local = Diagnostics::new();
    let toks = lexer::lex(file, src, &mut local);
    let mut p = parser::Parser::new(toks, file, &mut local);
    let tree = p.source_file();
    local.sort_by_position();
    diags.extend(local);
    tree
}

/// Does this file name say SR (`.sr`, or an SR interface `.spec` written by `sr`)?
pub fn is_sr_name(name: &str) -> bool {
    name.ends_with(".sr")
}
