//! SR expressions → the shared AST. Precedence, lowest first (SR 2.3.3's table):
//! `:=` `:=:` and the augmented assignments (right); `or | xor`; `and &`;
//! `= != < <= > >=`; `<< >>`; `+ - ||`; `* / mod %`; `**` (right); prefix operators
//! (`not ~ + - @ ? ++ --`, conversions); postfix `. ^ () [] ++ --`.
//! SR's `=` is equality (MPD's `==`); `:=` is MPD's `=`.

use super::lexer::T;
use super::parser::{PResult, Parser};
use crate::syntax::ast::*;

fn binary(t: &T) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match t {
        T::Kw("or") | T::Op("|") => (Or, 1),
        T::Kw("xor") => (Xor, 1),
        T::Kw("and") | T::Op("&") => (And, 2),
        T::Op("=") => (Eq, 3),
        T::Op("!=") => (Ne, 3),
        T::Op("<") => (Lt, 3),
        T::Op("<=") => (Le, 3),
        T::Op(">") => (Gt, 3),
        T::Op(">=") => (Ge, 3),
        T::Op("<<") => (Shl, 4),
        T::Op(">>") => (Shr, 4),
        T::Op("+") => (Add, 5),
        T::Op("-") => (Sub, 5),
        T::Op("||") => (Concat, 5),
        T::Op("*") => (Mul, 6),
        T::Op("/") => (Div, 6),
        T::Kw("mod") => (Mod, 6),
        T::Op("%") => (Rem, 6),
        T::Op("**") => (Pow, 7),
        _ => return None,
    })
}

fn assign(t: &T) -> Option<AssignOp> {
    use BinaryOp::*;
    let T::Op(o) = t else { return None };
    Some(match *o {
        ":=" => AssignOp::Plain,
        "+:=" => AssignOp::Compound(Add),
        "-:=" => AssignOp::Compound(Sub),
        "*:=" => AssignOp::Compound(Mul),
        "/:=" => AssignOp::Compound(Div),
        "%:=" => AssignOp::Compound(Rem),
        "**:=" => AssignOp::Compound(Pow),
        "|:=" => AssignOp::Compound(Or),
        "&:=" => AssignOp::Compound(And),
        "||:=" => AssignOp::Compound(Concat),
        "<<:=" => AssignOp::Compound(Shl),
        ">>:=" => AssignOp::Compound(Shr),
        _ => return None,
    })
}

fn mk(kind: ExprKind, span: Span) -> Expr {
    Expr::new(kind, span)
}

impl<'d> Parser<'d> {
    /// `expr` including assignment and swap.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.assign_expr();
        self.leave();
        r
    }

    fn assign_expr(&mut self) -> PResult<Expr> {
        let lhs = self.binary_expr(1)?;
        if self.at_op(":=:") {
            self.bump();
            let rhs = self.expr()?;
            let span = lhs.span.to(rhs.span);
            return Ok(mk(ExprKind::Swap { lhs: Box::new(lhs), rhs: Box::new(rhs) }, span));
        }
        if let Some(op) = assign(self.t()) {
            self.bump();
            let rhs = self.expr()?;
            let span = lhs.span.to(rhs.span);
            return Ok(mk(ExprKind::Assign { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span));
        }
        Ok(lhs)
    }

    fn binary_expr(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.prefix_expr()?;
        while let Some((op, prec)) = binary(self.t()) {
            if prec < min {
                break;
            }
            self.bump();
            // `**` is right associative, the others left
            let next = if op == BinaryOp::Pow { prec } else { prec + 1 };
            self.enter()?;
            let rhs = self.binary_expr(next);
            self.leave();
            let rhs = rhs?;
            let span = lhs.span.to(rhs.span);
            lhs = mk(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span);
        }
        Ok(lhs)
    }

    fn prefix_expr(&mut self) -> PResult<Expr> {
        let lo = self.span();
        let op = match self.t() {
            T::Kw("not") | T::Op("~") => Some(UnaryOp::Not),
            T::Op("+") => Some(UnaryOp::Plus),
            T::Op("-") => Some(UnaryOp::Neg),
            T::Op("@") => Some(UnaryOp::AddrOf),
            T::Op("?") => Some(UnaryOp::Pending),
            T::Op("++") => Some(UnaryOp::PreInc),
            T::Op("--") => Some(UnaryOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            self.enter()?;
            let e = self.prefix_expr();
            self.leave();
            let e = e?;
            let span = lo.to(e.span);
            return Ok(mk(ExprKind::Unary { op, operand: Box::new(e) }, span));
        }
        let p = self.primary()?;
        self.postfix(p)
    }

    fn postfix(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            match self.t() {
                T::Op(".") => {
                    self.bump();
                    let name = self.ident()?;
                    let span = e.span.to(name.span);
                    e = mk(ExprKind::Field { base: Box::new(e), name }, span);
                }
                T::Op("^") => {
                    let sp = self.bump().span;
                    let span = e.span.to(sp);
                    e = mk(ExprKind::Unary { op: UnaryOp::Deref, operand: Box::new(e) }, span);
                }
                T::Op("++") | T::Op("--") => {
                    let op = if self.at_op("++") { UnaryOp::PostInc } else { UnaryOp::PostDec };
                    let sp = self.bump().span;
                    let span = e.span.to(sp);
                    e = mk(ExprKind::Unary { op, operand: Box::new(e) }, span);
                }
                T::Op("(") => {
                    let args = self.args()?;
                    let span = e.span.to(self.prev_span());
                    e = mk(ExprKind::Call { callee: Box::new(e), args }, span);
                }
                T::Op("[") => {
                    let subs = self.subscript_list()?;
                    let span = e.span.to(self.prev_span());
                    e = mk(ExprKind::Index { base: Box::new(e), subs }, span);
                }
                _ => return Ok(e),
            }
        }
    }

    /// `[ sub {, sub} ]`, a sub being `e`, `lo:hi` or `*` (slices too: the
    /// checker says where a slice is not allowed, e.g. on an op array).
    pub(super) fn subscript_list(&mut self) -> PResult<Vec<Subscript>> {
        self.expect_op("[")?;
        let mut subs = Vec::new();
        loop {
            let lo = self.span();
            let a = self.bound()?;
            if self.eat_op(":") {
                let b = self.bound()?;
                subs.push(Subscript::Slice { lo: Some(a), hi: b, span: lo.to(self.prev_span()) });
            } else {
                match a {
                    Bound::Expr(x) => subs.push(Subscript::Index(x)),
                    Bound::Star(sp) => subs.push(Subscript::Slice { lo: None, hi: Bound::Star(sp), span: sp }),
                }
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("]")?;
        Ok(subs)
    }

    /// `( [expr {, expr}] )`
    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_op("(")?;
        let mut out = Vec::new();
        if self.eat_op(")") {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op(")")?;
        Ok(out)
    }

    /// A primary expression: a literal, name, conversion, low/high, new, create or parenthesis.
    fn primary(&mut self) -> PResult<Expr> {
        let lo = self.span();
        let t = self.t().clone();
        let kind = match t {
            T::Id(name) => {
                let span = self.bump().span;
                ExprKind::Ident(Ident { name, span })
            }
            T::Int(n) => {
                self.bump();
                ExprKind::Int(n)
            }
            T::Real(r) => {
                self.bump();
                ExprKind::Real(r)
            }
            T::Char(c) => {
                self.bump();
                ExprKind::Char(c)
            }
            T::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            T::Kw("true") | T::Kw("false") => {
                let b = self.at_kw("true");
                self.bump();
                ExprKind::Bool(b)
            }
            T::Kw("null") => {
                self.bump();
                ExprKind::Null
            }
            T::Kw("noop") => {
                self.bump();
                ExprKind::Noop
            }
            T::Kw("stdin") | T::Kw("stdout") | T::Kw("stderr") => {
                let f = match t {
                    T::Kw("stdin") => StdFile::Stdin,
                    T::Kw("stdout") => StdFile::Stdout,
                    _ => StdFile::Stderr,
                };
                self.bump();
                ExprKind::StdFile(f)
            }
            T::Kw(k @ ("int" | "bool" | "char" | "real" | "file" | "string")) => self.conversion(k)?,
            T::Kw("low") | T::Kw("high") => {
                let low = self.at_kw("low");
                self.bump();
                self.expect_op("(")?;
                let ty = self.ty()?;
                self.expect_op(")")?;
                if low {
                    ExprKind::Low(Box::new(ty))
                } else {
                    ExprKind::High(Box::new(ty))
                }
            }
            T::Kw("new") => self.new_expr()?,
            T::Kw("create") => self.create_expr()?,
            T::Op("(") => self.paren_or_cons()?,
            _ => return Err(self.unexpected("an expression")),
        };
        Ok(mk(kind, lo.to(self.prev_span())))
    }

    /// A conversion `int(e)`, `string(e)`, ...: a call of the type.
    fn conversion(&mut self, k: &str) -> PResult<ExprKind> {
        // a conversion `int(e)`; `string(e)` too
        let tsp = self.bump().span;
        let tk = match k {
            "int" => TypeKind::Int,
            "bool" => TypeKind::Bool,
            "char" => TypeKind::Char,
            "real" => TypeKind::Real,
            "file" => TypeKind::File,
            _ => TypeKind::String(None),
        };
        let callee = mk(ExprKind::Type(Box::new(Type::new(tk, tsp))), tsp);
        if !self.at_op("(") {
            return Err(self.unexpected("'('"));
        }
        let args = self.args()?;
        Ok(ExprKind::Call { callee: Box::new(callee), args })
    }

    /// `new([ranges] type)`, `new([ranges] sem)`, `new([ranges] op (...))`.
    fn new_expr(&mut self) -> PResult<ExprKind> {
        self.bump();
        self.expect_op("(")?;
        let ilo = self.span();
        let ranges = self.subscripts()?;
        let item = if self.at_kw("sem") {
            let sp = self.bump().span;
            Type::new(TypeKind::Sem, sp)
        } else if self.at_kw("op") {
            let sp = self.bump().span;
            let sig = self.op_prototype()?;
            Type::new(TypeKind::Op(Box::new(sig)), sp.to(self.prev_span()))
        } else {
            self.ty()?
        };
        let ty = if ranges.is_empty() {
            item
        } else {
            Type::new(TypeKind::Array { ranges, elem: Box::new(item) }, ilo.to(self.prev_span()))
        };
        self.expect_op(")")?;
        Ok(ExprKind::New(Box::new(ty)))
    }

    /// `create vm()`, `create r(args) [on e]`.
    fn create_expr(&mut self) -> PResult<ExprKind> {
        self.bump();
        let target = if self.at_kw("vm") {
            CreateTarget::Vm(self.bump().span)
        } else {
            let id = self.ident()?;
            CreateTarget::Resource(QualName { span: id.span, parts: vec![id] })
        };
        let args = self.args()?;
        let on = if self.eat_kw("on") { Some(Box::new(self.expr()?)) } else { None };
        Ok(ExprKind::Create { target, args, on })
    }

    /// `(e)`, or an array constructor `(e1, [n] e2, ...)`.
    fn paren_or_cons(&mut self) -> PResult<ExprKind> {
        self.bump();
        let first = self.constr_item()?;
        if first.count.is_none() && self.eat_op(")") {
            Ok(ExprKind::Paren(Box::new(first.value)))
        } else {
            let mut items = vec![first];
            while self.eat_op(",") {
                items.push(self.constr_item()?);
            }
            self.expect_op(")")?;
            Ok(ExprKind::ArrayCons(items))
        }
    }

    /// `expr | [expr] expr`
    fn constr_item(&mut self) -> PResult<ArrayElem> {
        let lo = self.span();
        let count = if self.eat_op("[") {
            let c = self.expr()?;
            self.expect_op("]")?;
            Some(c)
        } else {
            None
        };
        let value = self.expr()?;
        Ok(ArrayElem { count, value, span: lo.to(self.prev_span()) })
    }
}
