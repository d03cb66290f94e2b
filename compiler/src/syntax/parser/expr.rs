//! Parser: expressions by precedence climbing, with bounded tree height.

use super::{assign_op, binary_op, is_simple_type_kw, MAX_HEIGHT};
use super::{PResult, Parser, Reported};
use crate::syntax::ast::*;
use crate::syntax::token::{Kw, Punct, TokKind};

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── expressions ─────────────
    //
    // Every method that returns an Expr leaves its height in `self.h` (built through
    // `node`), so trees made by loops (`a+b+c+...`, `a[1][2]...`) are bounded too:
    // no expression is deeper than MAX_HEIGHT, whatever walks it later.

    /// Build a node whose deepest child has height `child_h`; enforce MAX_HEIGHT.
    pub(super) fn node(&mut self, kind: ExprKind, span: Span, child_h: u32) -> PResult<Expr> {
        let h = child_h + 1;
        if h > MAX_HEIGHT {
            if self.last_error != self.pos {
                self.last_error = self.pos;
                self.error(span, "expression is nested too deeply");
            }
            return Err(Reported);
        }
        self.h = h;
        self.peak = self.peak.max(h);
        Ok(Expr::new(kind, span))
    }

    /// expr = binary [ assign_op expr | ":=:" expr ]      (right associative)
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.expr_inner();
        self.leave();
        r
    }

    pub(super) fn expr_inner(&mut self) -> PResult<Expr> {
        let lhs = self.binary(1)?;
        let hl = self.h;
        if let Some(op) = assign_op(self.kind()) {
            self.bump();
            let rhs = self.expr()?;
            let span = lhs.span.to(rhs.span);
            let h = hl.max(self.h);
            return self.node(ExprKind::Assign { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span, h);
        }
        if self.at(Punct::Swap) {
            self.bump();
            let rhs = self.expr()?;
            let span = lhs.span.to(rhs.span);
            let h = hl.max(self.h);
            return self.node(ExprKind::Swap { lhs: Box::new(lhs), rhs: Box::new(rhs) }, span, h);
        }
        self.h = hl;
        Ok(lhs)
    }

    /// An expression where `=` cannot mean assignment (initializers, bounds, conditions).
    pub(super) fn expr_no_assign(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.binary(1);
        self.leave();
        r
    }

    /// binary = unary { binop unary }   by precedence climbing (appendix C groups);
    /// `**` is right associative, all others left.
    pub(super) fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        let mut h = self.h;
        while let Some((op, prec)) = binary_op(self.kind()) {
            if prec < min_prec {
                break;
            }
            self.bump();
            let next_min = if op == BinaryOp::Pow { prec } else { prec + 1 };
            self.enter()?;
            let rhs = self.binary(next_min);
            self.leave();
            let rhs = rhs?;
            let span = lhs.span.to(rhs.span);
            let ch = h.max(self.h);
            lhs = self.node(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span, ch)?;
            h = self.h;
        }
        self.h = h;
        Ok(lhs)
    }

    /// unary = ( "-" | "+" | "not" | "~" | "++" | "--" | "@" | "?" ) unary | postfix_expr
    pub(super) fn unary(&mut self) -> PResult<Expr> {
        let op = match self.kind() {
            TokKind::Punct(Punct::Minus) => Some(UnaryOp::Neg),
            TokKind::Punct(Punct::Plus) => Some(UnaryOp::Plus),
            TokKind::Kw(Kw::Not) | TokKind::Punct(Punct::Tilde) => Some(UnaryOp::Not),
            TokKind::Punct(Punct::PlusPlus) => Some(UnaryOp::PreInc),
            TokKind::Punct(Punct::MinusMinus) => Some(UnaryOp::PreDec),
            TokKind::Punct(Punct::At) => Some(UnaryOp::AddrOf),
            TokKind::Punct(Punct::Question) => Some(UnaryOp::Pending),
            _ => None,
        };
        let Some(op) = op else { return self.postfix_expr() };
        let lo = self.bump().span;
        self.enter()?;
        let operand = self.unary();
        self.leave();
        let operand = operand?;
        let span = lo.to(operand.span);
        let h = self.h;
        self.node(ExprKind::Unary { op, operand: Box::new(operand) }, span, h)
    }

    /// postfix_expr = primary { "[" subscripts "]" | "(" [ args ] ")" | "." ID | "^" | "++" | "--" }
    pub(super) fn postfix_expr(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        let mut h = self.h;
        loop {
            let lo = e.span;
            match self.kind() {
                TokKind::Punct(Punct::LBracket) => {
                    let subs = self.subscripts()?;
                    let ch = h.max(self.h);
                    e = self.node(ExprKind::Index { base: Box::new(e), subs }, lo.to(self.prev_span()), ch)?;
                }
                TokKind::Punct(Punct::LParen) => {
                    let args = self.args()?;
                    let ch = h.max(self.h);
                    e = self.node(ExprKind::Call { callee: Box::new(e), args }, lo.to(self.prev_span()), ch)?;
                }
                TokKind::Punct(Punct::Dot) => {
                    self.bump();
                    let name = self.ident()?;
                    e = self.node(ExprKind::Field { base: Box::new(e), name }, lo.to(self.prev_span()), h)?;
                }
                TokKind::Punct(p @ (Punct::Caret | Punct::PlusPlus | Punct::MinusMinus)) => {
                    let op = match p {
                        Punct::Caret => UnaryOp::Deref,
                        Punct::PlusPlus => UnaryOp::PostInc,
                        _ => UnaryOp::PostDec,
                    };
                    self.bump();
                    e = self.node(ExprKind::Unary { op, operand: Box::new(e) }, lo.to(self.prev_span()), h)?;
                }
                _ => {
                    self.h = h;
                    return Ok(e);
                }
            }
            h = self.h;
        }
    }

    /// subscripts = "[" subscript { "," subscript } "]"
    /// subscript  = expr | bound ":" bound | "*"
    /// (leaves the greatest height of the subscript expressions in `self.h`)
    pub(super) fn subscripts(&mut self) -> PResult<Vec<Subscript>> {
        self.expect(Punct::LBracket)?;
        let mut out = Vec::new();
        let mut hm = 0;
        loop {
            let lo = self.span();
            self.h = 0;
            let first = self.bound()?;
            hm = hm.max(self.h);
            if self.eat(Punct::Colon) {
                self.h = 0;
                let hi = self.bound()?;
                hm = hm.max(self.h);
                out.push(Subscript::Slice { lo: Some(first), hi, span: lo.to(self.prev_span()) });
            } else {
                match first {
                    Bound::Expr(e) => out.push(Subscript::Index(e)),
                    star @ Bound::Star(_) => out.push(Subscript::Slice { lo: None, hi: star, span: lo }),
                }
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RBracket)?;
        self.h = hm;
        Ok(out)
    }

    /// args = "(" [ expr { "," expr } ] ")"   (greatest argument height left in `self.h`)
    pub(super) fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Punct::LParen)?;
        let mut out = Vec::new();
        let mut hm = 0;
        if !self.eat(Punct::RParen) {
            loop {
                out.push(self.expr()?);
                hm = hm.max(self.h);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect(Punct::RParen)?;
        }
        self.h = hm;
        Ok(out)
    }

    /// primary = literal | ID | "(" expr ")" | array_constructor | "new" "(" type ")"
    ///         | ( "low" | "high" ) "(" type ")" | create | simple_type_kw  (conversion callee)
    pub(super) fn primary(&mut self) -> PResult<Expr> {
        let t = self.tok().clone();
        let kind = match t.kind {
            TokKind::Int(v) => ExprKind::Int(v),
            TokKind::Real(v) => ExprKind::Real(v),
            TokKind::Char(c) => ExprKind::Char(c),
            TokKind::Str(ref s) => ExprKind::Str(s.clone()),
            TokKind::Ident(ref name) => ExprKind::Ident(Ident { name: name.clone(), span: t.span }),
            TokKind::Kw(Kw::True) => ExprKind::Bool(true),
            TokKind::Kw(Kw::False) => ExprKind::Bool(false),
            TokKind::Kw(Kw::Null) => ExprKind::Null,
            TokKind::Kw(Kw::Noop) => ExprKind::Noop,
            TokKind::Kw(Kw::Stdin) => ExprKind::StdFile(StdFile::Stdin),
            TokKind::Kw(Kw::Stdout) => ExprKind::StdFile(StdFile::Stdout),
            TokKind::Kw(Kw::Stderr) => ExprKind::StdFile(StdFile::Stderr),
            TokKind::Punct(Punct::LParen) => return self.paren_or_constructor(),
            TokKind::Kw(k @ (Kw::New | Kw::Low | Kw::High)) => {
                self.bump();
                self.expect(Punct::LParen)?;
                // Expressions inside the type (bounds) count toward this node's height.
                let saved = std::mem::replace(&mut self.peak, 0);
                let in_new = std::mem::replace(&mut self.in_new, k == Kw::New);
                let ty = self.type_();
                self.in_new = in_new;
                let inner = std::mem::replace(&mut self.peak, saved);
                self.peak = self.peak.max(inner);
                let ty = Box::new(ty?);
                self.expect(Punct::RParen)?;
                let kind = match k {
                    Kw::New => ExprKind::New(ty),
                    Kw::Low => ExprKind::Low(ty),
                    _ => ExprKind::High(ty),
                };
                return self.node(kind, t.span.to(self.prev_span()), inner);
            }
            TokKind::Kw(Kw::Create) => return self.create_expr(),
            TokKind::Kw(k) if is_simple_type_kw(k) && *self.nth(1) == TokKind::Punct(Punct::LParen) => {
                let kind = match k {
                    Kw::Bool => TypeKind::Bool,
                    Kw::Int => TypeKind::Int,
                    Kw::Char => TypeKind::Char,
                    Kw::Real => TypeKind::Real,
                    Kw::Double => TypeKind::Double,
                    Kw::String => TypeKind::String(None),
                    _ => TypeKind::File,
                };
                ExprKind::Type(Box::new(Type::new(kind, t.span)))
            }
            _ => return Err(self.unexpected("an expression")),
        };
        self.bump();
        self.node(kind, t.span, 0)
    }

    /// paren_or_constructor = "(" elem { "," elem } ")"     elem = [ "[" expr "]" ] expr
    /// One element without a repetition count is a parenthesised expression.
    pub(super) fn paren_or_constructor(&mut self) -> PResult<Expr> {
        let lo = self.expect(Punct::LParen)?;
        let mut elems = Vec::new();
        let mut hm = 0;
        loop {
            let elo = self.span();
            let count = if self.eat(Punct::LBracket) {
                let c = self.expr_no_assign()?;
                hm = hm.max(self.h);
                self.expect(Punct::RBracket)?;
                Some(c)
            } else {
                None
            };
            let value = self.expr()?;
            hm = hm.max(self.h);
            elems.push(ArrayElem { count, value, span: elo.to(self.prev_span()) });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        let hi = self.expect(Punct::RParen)?;
        let span = lo.to(hi);
        if elems.len() == 1 && elems[0].count.is_none() {
            let inner = elems.pop().map(|e| e.value).ok_or(Reported)?;
            return self.node(ExprKind::Paren(Box::new(inner)), span, hm);
        }
        self.node(ExprKind::ArrayCons(elems), span, hm)
    }

    /// create = "create" ( "vm" "(" ")" | qual_name args ) [ "on" expr ]
    pub(super) fn create_expr(&mut self) -> PResult<Expr> {
        let lo = self.bump().span;
        let target = if self.at_kw(Kw::Vm) {
            CreateTarget::Vm(self.bump().span)
        } else {
            CreateTarget::Resource(self.qual_name()?)
        };
        let args = self.args()?;
        let mut hm = self.h;
        if let (CreateTarget::Vm(_), false) = (&target, args.is_empty()) {
            let sp = args[0].span.to(args[args.len() - 1].span);
            self.error(sp, "no arguments allowed in 'create vm()'");
        }
        let on = if self.eat_kw(Kw::On) {
            let e = self.expr_no_assign()?;
            hm = hm.max(self.h);
            Some(Box::new(e))
        } else {
            None
        };
        self.node(ExprKind::Create { target, args, on }, lo.to(self.prev_span()), hm)
    }
}
