//! syntax: source text → AST (lexer, recursive-descent parser, diagnostics rendering).
//!
//! Entry points:
//! - [`parse_file`]: parse one file already registered in a [`SourceMap`];
//! - [`parse_source`]: convenience for tests/tools (registers the text, parses it).
//!
//! Errors go to a [`Diagnostics`] collection; the parser recovers and keeps going, so one
//! run reports several errors, and it always returns a (possibly partial) tree. The
//! parser never panics, whatever the input: statement/type nesting is bounded and no
//! expression tree is deeper than [`MAX_HEIGHT`], so later passes may recurse freely.

pub mod ast;
pub mod diag;
pub mod dump;
pub mod lexer;
mod parser;
pub mod sr;
pub mod token;

pub use diag::{Diagnostics, SourceMap};
pub use parser::MAX_HEIGHT;

/// Parse the file `file` of `map` into an AST, reporting syntax errors into `diags`.
/// The returned tree is complete when `diags` received no errors; otherwise it holds
/// whatever could be recovered and must not be compiled further.
/// A file whose name ends in `.sr` is SR (the SR front end, `sr/`), any other MPD.
pub fn parse_file(map: &SourceMap, file: ast::FileId, diags: &mut Diagnostics) -> ast::SourceFile {
    if sr::is_sr_name(map.name(file)) {
        return sr::parse(file, map.source(file), diags);
    }
    parser::parse(file, map.source(file), diags)
}

/// Register `src` under `name` in `map` and parse it.
pub fn parse_source(map: &mut SourceMap, name: &str, src: &str, diags: &mut Diagnostics) -> ast::SourceFile {
    let id = map.add(name, src);
    parse_file(map, id, diags)
}
