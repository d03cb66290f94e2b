//! Recursive-descent parser for MPD: tokens → AST, one method per grammar rule.
//!
//! Each method quotes the rule it parses. Separators (`;` or a line break that ends a
//! statement, see lexer.rs) are written `SEP`. Errors are reported once at the offending
//! token; the statement being parsed is abandoned (`Err(Reported)`) and the statement list
//! resynchronises at the next separator, so several errors come out of one run. Nesting
//! is bounded ([`MAX_DEPTH`], [`MAX_HEIGHT`]) so no input can exhaust the stack.
//!
//! This file holds the parser state and token/error helpers; the grammar is split by
//! subject: component.rs, decl.rs, stmt.rs, types.rs, expr.rs.

use super::ast::*;
use super::diag::Diagnostics;
use super::lexer;
use super::token::{Kw, Punct, TokKind, Token};

mod component;
mod decl;
mod expr;
mod stmt;
mod types;

/// Deepest recursion of the parser (nested statements, parentheses, types) accepted.
const MAX_DEPTH: u32 = 160;
/// Deepest expression tree accepted (also bounds trees built by loops, like
/// `a+b+...`): later passes may recurse over expressions without a stack check.
pub const MAX_HEIGHT: u32 = 1000;

/// An error was reported; unwind to the nearest statement list.
#[derive(Debug)]
pub(super) struct Reported;
pub(super) type PResult<T> = Result<T, Reported>;

pub(crate) fn parse(file: FileId, src: &str, diags: &mut Diagnostics) -> SourceFile {
    // Lexical and syntax errors are collected apart, then reported in source order.
    let mut local = Diagnostics::new();
    let toks = lexer::lex(file, src, &mut local);
    let mut p = Parser {
        toks,
        pos: 0,
        file,
        src,
        diags: &mut local,
        depth: 0,
        last_error: usize::MAX,
        h: 0,
        peak: 0,
        in_new: false,
        extra: Vec::new(),
    };
    let tree = p.source_file();
    local.sort_by_position();
    diags.extend(local);
    tree
}

pub(super) struct Parser<'a, 'd> {
    toks: Vec<Token>,
    pos: usize,
    file: FileId,
    src: &'a str,
    diags: &'d mut Diagnostics,
    depth: u32,
    /// Token index of the last reported error (one error per token).
    last_error: usize,
    /// Height of the expression last returned by an expression method (see `node`).
    h: u32,
    /// Greatest expression height built since it was last reset (for `new(T)` etc.).
    peak: u32,
    /// Inside `new(...)`, the one place `sem` and `op (...)` are types.
    in_new: bool,
    /// Further statements produced by one source statement (`op a(), b()` gives one
    /// `Op` declaration per item); the statement list appends them after the first.
    extra: Vec<Stmt>,
}

/// Binary operator and its precedence (higher binds tighter), appendix C.
pub(super) fn binary_op(k: &TokKind) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match k {
        TokKind::Kw(Kw::Xor) => (Xor, 1),
        TokKind::Punct(Punct::Bar) | TokKind::Kw(Kw::Or) => (Or, 2),
        TokKind::Punct(Punct::Amp) | TokKind::Kw(Kw::And) => (And, 3),
        TokKind::Punct(Punct::EqEq) => (Eq, 4),
        TokKind::Punct(Punct::Ne) | TokKind::Punct(Punct::TildeEq) => (Ne, 4),
        TokKind::Punct(Punct::Lt) => (Lt, 4),
        TokKind::Punct(Punct::Le) => (Le, 4),
        TokKind::Punct(Punct::Gt) => (Gt, 4),
        TokKind::Punct(Punct::Ge) => (Ge, 4),
        TokKind::Punct(Punct::Shl) => (Shl, 5),
        TokKind::Punct(Punct::Shr) => (Shr, 5),
        TokKind::Punct(Punct::Plus) => (Add, 6),
        TokKind::Punct(Punct::Minus) => (Sub, 6),
        TokKind::Punct(Punct::Concat) => (Concat, 6),
        TokKind::Punct(Punct::Star) => (Mul, 7),
        TokKind::Punct(Punct::Slash) => (Div, 7),
        TokKind::Punct(Punct::Percent) => (Rem, 7),
        TokKind::Kw(Kw::Mod) => (Mod, 7),
        TokKind::Punct(Punct::StarStar) => (Pow, 8),
        _ => return None,
    })
}

/// Assignment operators (lowest precedence, right associative).
pub(super) fn assign_op(k: &TokKind) -> Option<AssignOp> {
    use BinaryOp::*;
    let TokKind::Punct(p) = k else { return None };
    Some(match p {
        Punct::Eq => AssignOp::Plain,
        Punct::PlusEq => AssignOp::Compound(Add),
        Punct::MinusEq => AssignOp::Compound(Sub),
        Punct::StarEq => AssignOp::Compound(Mul),
        Punct::SlashEq => AssignOp::Compound(Div),
        Punct::PercentEq => AssignOp::Compound(Rem),
        Punct::StarStarEq => AssignOp::Compound(Pow),
        Punct::BarEq => AssignOp::Compound(Or),
        Punct::AmpEq => AssignOp::Compound(And),
        Punct::ConcatEq => AssignOp::Compound(Concat),
        Punct::ShlEq => AssignOp::Compound(Shl),
        Punct::ShrEq => AssignOp::Compound(Shr),
        _ => return None,
    })
}

/// Tokens that close a statement list (the list's owner decides which one it wants).
pub(super) fn ends_list(k: &TokKind) -> bool {
    matches!(
        k,
        TokKind::Punct(Punct::RBrace)
            | TokKind::Punct(Punct::Box)
            | TokKind::Punct(Punct::SlashSlash)
            | TokKind::Kw(Kw::End)
            | TokKind::Kw(Kw::Ni)
            | TokKind::Kw(Kw::Oc)
            | TokKind::Kw(Kw::Body)
            | TokKind::Eof
    )
}

/// The result's name in a capability type `cap (int) returns int f`: when no
/// further name follows, MPD 1.0.1 still reads `f` as the result's name (the
/// declared item has none), so the parser says what to write instead.
pub(super) fn cap_result_name(ty: &Type) -> Option<&str> {
    let TypeKind::Cap(CapTarget::Sig(sig)) = &ty.kind else { return None };
    let OpSig::Explicit { returns: Some(r), .. } = sig.as_ref() else { return None };
    r.ty.as_ref()?;
    r.name.as_ref().map(|n| n.name.as_str())
}

/// Keyword types that can start a declaration (`int x`) or a conversion (`int(x)`).
pub(super) fn is_simple_type_kw(k: Kw) -> bool {
    matches!(k, Kw::Bool | Kw::Int | Kw::Char | Kw::Real | Kw::Double | Kw::String | Kw::File)
}

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── token helpers ─────────────

    pub(super) fn tok(&self) -> &Token {
        let i = self.pos.min(self.toks.len() - 1);
        &self.toks[i]
    }
    pub(super) fn kind(&self) -> &TokKind {
        &self.tok().kind
    }
    pub(super) fn nth(&self, k: usize) -> &TokKind {
        &self.nth_tok(k).kind
    }
    pub(super) fn nth_tok(&self, k: usize) -> &Token {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i]
    }
    pub(super) fn span(&self) -> Span {
        self.tok().span
    }
    /// Span of the previous token (end of what was parsed so far).
    pub(super) fn prev_span(&self) -> Span {
        if self.pos == 0 {
            return Span::new(self.file, 0, 0);
        }
        self.toks[(self.pos - 1).min(self.toks.len() - 1)].span
    }
    pub(super) fn bump(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    pub(super) fn at(&self, p: Punct) -> bool {
        *self.kind() == TokKind::Punct(p)
    }
    pub(super) fn at_kw(&self, k: Kw) -> bool {
        *self.kind() == TokKind::Kw(k)
    }
    pub(super) fn eat(&mut self, p: Punct) -> bool {
        if self.at(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub(super) fn eat_kw(&mut self, k: Kw) -> bool {
        if self.at_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub(super) fn at_sep(&self) -> bool {
        matches!(self.kind(), TokKind::Newline | TokKind::Punct(Punct::Semi))
    }
    pub(super) fn skip_seps(&mut self) {
        while self.at_sep() {
            self.bump();
        }
    }
    pub(super) fn expect(&mut self, p: Punct) -> PResult<Span> {
        if self.at(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("'{}'", p.as_str())))
        }
    }
    pub(super) fn expect_kw(&mut self, k: Kw) -> PResult<Span> {
        if self.at_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("'{}'", k.as_str())))
        }
    }
    pub(super) fn ident(&mut self) -> PResult<Ident> {
        if let TokKind::Ident(name) = self.kind() {
            let name = name.clone();
            let span = self.bump().span;
            Ok(Ident { name, span })
        } else {
            Err(self.unexpected("an identifier"))
        }
    }
    pub(super) fn at_ident(&self) -> bool {
        matches!(self.kind(), TokKind::Ident(_))
    }

    /// Report "parse error at <token>: expected <what>" once per token.
    pub(super) fn unexpected(&mut self, what: &str) -> Reported {
        if self.last_error == self.pos {
            return Reported;
        }
        self.last_error = self.pos;
        let tok = self.tok().clone();
        let msg = match tok.kind {
            TokKind::Error => return Reported, // the lexer already said what is wrong
            TokKind::Newline => format!("unexpected newline: expected {}", what),
            _ => format!("parse error at {}: expected {}", tok.describe(self.src), what),
        };
        // A common slip from SR or Pascal: `x := 1`.
        let msg = if tok.kind == TokKind::Punct(Punct::Colon) && *self.nth(1) == TokKind::Punct(Punct::Eq) {
            format!("{} (MPD assigns with '=')", msg)
        } else {
            msg
        };
        self.diags.error(tok.span, msg);
        Reported
    }

    pub(super) fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    /// Guard against unbounded nesting; pair with `leave`.
    pub(super) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            if self.last_error != self.pos {
                self.last_error = self.pos;
                let sp = self.span();
                self.error(sp, "program is nested too deeply");
            }
            return Err(Reported);
        }
        Ok(())
    }
    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// After an error: skip to the next separator or list end at this nesting level.
    pub(super) fn sync(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.kind() {
                TokKind::Eof => return,
                TokKind::Newline | TokKind::Punct(Punct::Semi) if depth <= 0 => return,
                TokKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokKind::Punct(Punct::RParen | Punct::RBracket) => depth -= 1,
                TokKind::Punct(Punct::RBrace) => {
                    if depth <= 0 {
                        return;
                    }
                    depth -= 1;
                }
                k if depth <= 0 && ends_list(k) => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// After an error in an `in`/`co` arm: skip to the next arm separator `sep` or the
    /// closing keyword `close` of this statement (nested in/co and brackets skipped whole).
    pub(super) fn skip_arm(&mut self, sep: Punct, close: Kw) {
        let mut depth = 0i32;
        loop {
            match self.kind() {
                TokKind::Eof => return,
                TokKind::Kw(Kw::End) if depth <= 0 => return,
                TokKind::Punct(p) if *p == sep && depth <= 0 => return,
                TokKind::Kw(k) if *k == close && depth <= 0 => return,
                TokKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) | TokKind::Kw(Kw::In | Kw::Co) => {
                    depth += 1
                }
                TokKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) | TokKind::Kw(Kw::Ni | Kw::Oc) => {
                    depth -= 1
                }
                _ => {}
            }
            self.bump();
        }
    }
}
