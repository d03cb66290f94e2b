//! SR parser: operation headings, parameters and types (`op`/`proc` prototypes,
//! `returns`, type expressions, records, subscripts and bounds).
use super::lexer::T;
use super::parser::{PResult, Parser};
use crate::syntax::ast::*;

impl<'d> Parser<'d> {
    // ───────────── operations and parameters ─────────────

    /// `parameters [returns ...] [{call|send}]`
    pub(super) fn op_prototype(&mut self) -> PResult<OpSig> {
        let lo = self.span();
        let params = self.parameters()?;
        let returns = self.return_spec()?;
        let restriction = if self.at_op("{") {
            let rlo = self.bump().span;
            let mut call = false;
            let mut send = false;
            loop {
                if self.eat_kw("call") {
                    call = true;
                } else if self.eat_kw("send") {
                    send = true;
                } else {
                    return Err(self.unexpected("'call' or 'send'"));
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op("}")?;
            Some(OpRestriction { call, send, span: rlo.to(self.prev_span()) })
        } else {
            None
        };
        Ok(OpSig::Explicit { params, returns, restriction, span: lo.to(self.prev_span()) })
    }

    /// `( [param_spec { SEP param_spec }] )`, param_spec = `[mode] type | [mode] id_subs, ... : type`
    pub(super) fn parameters(&mut self) -> PResult<Vec<Param>> {
        self.expect_op("(")?;
        let mut out = Vec::new();
        self.skip_seps();
        while !self.at_op(")") {
            let lo = self.span();
            let mode = if self.eat_kw("val") {
                ParamMode::Val
            } else if self.eat_kw("var") {
                ParamMode::Var
            } else if self.eat_kw("res") {
                ParamMode::Res
            } else if self.eat_kw("ref") {
                ParamMode::Ref
            } else {
                ParamMode::Default
            };
            let named = self.at_id() && matches!(self.nth(1), T::Op(":" | "," | "["));
            if named {
                let mut names = Vec::new();
                loop {
                    let nlo = self.span();
                    let name = self.ident()?;
                    let dims = self.subscripts()?;
                    names.push(ParamName { name, dims, span: nlo.to(self.prev_span()) });
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op(":")?;
                let ty = self.ty()?;
                out.push(Param { mode, ty, names, span: lo.to(self.prev_span()) });
            } else {
                let ty = self.ty()?;
                out.push(Param { mode, ty, names: vec![], span: lo.to(self.prev_span()) });
            }
            if self.at_sep() {
                self.skip_seps();
            } else if !self.at_op(")") {
                return Err(self.unexpected("';' or ')'"));
            }
        }
        self.bump();
        Ok(out)
    }

    /// `returns type | returns id_subs : type` (optional)
    pub(super) fn return_spec(&mut self) -> PResult<Option<ReturnSpec>> {
        if !self.at_kw("returns") {
            return Ok(None);
        }
        let lo = self.bump().span;
        if self.at_id() && matches!(self.nth(1), T::Op(":" | "[")) {
            let name = self.ident()?;
            let dims = self.subscripts()?;
            self.expect_op(":")?;
            let ty = self.ty()?;
            return Ok(Some(ReturnSpec { ty: Some(ty), name: Some(name), dims, span: lo.to(self.prev_span()) }));
        }
        let ty = self.ty()?;
        Ok(Some(ReturnSpec { ty: Some(ty), name: None, dims: vec![], span: lo.to(self.prev_span()) }))
    }

    // ───────────── types ─────────────

    /// `[subscripts] unsub_type`
    pub(super) fn ty(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    fn ty_inner(&mut self) -> PResult<Type> {
        let lo = self.span();
        if self.at_op("[") {
            let ranges = self.subscripts()?;
            let elem = self.ty()?;
            return Ok(Type::new(TypeKind::Array { ranges, elem: Box::new(elem) }, lo.to(self.prev_span())));
        }
        let scalar = match self.t() {
            T::Kw("bool") => Some(TypeKind::Bool),
            T::Kw("char") => Some(TypeKind::Char),
            T::Kw("int") => Some(TypeKind::Int),
            T::Kw("file") => Some(TypeKind::File),
            T::Kw("real") => Some(TypeKind::Real),
            _ => None,
        };
        if let Some(kind) = scalar {
            self.bump();
            return Ok(Type::new(kind, lo.to(self.prev_span())));
        }
        let kind = match self.t().clone() {
            T::Kw("string") => {
                self.bump();
                let close = if self.eat_op("[") {
                    "]"
                } else if self.at_op("(") {
                    let sp = self.bump().span;
                    self.warning(sp, "old-style string declaration");
                    ")"
                } else {
                    return Err(self.unexpected("'[' or '('"));
                };
                let b = self.bound()?;
                self.expect_op(close)?;
                TypeKind::String(Some(b))
            }
            T::Kw("enum") => {
                self.bump();
                self.expect_op("(")?;
                let mut ids = vec![self.ident()?];
                while self.eat_op(",") {
                    ids.push(self.ident()?);
                }
                self.expect_op(")")?;
                TypeKind::Enum(ids)
            }
            T::Kw("ptr") => {
                self.bump();
                if self.eat_kw("any") {
                    TypeKind::PtrAny
                } else {
                    TypeKind::Ptr(Box::new(self.ty()?))
                }
            }
            T::Kw("rec") => {
                self.bump();
                TypeKind::Rec(self.fields()?)
            }
            // SR 2.3.3 stores a union as a record (no shared storage, its
            // release notes say so) and warns; every member keeps its value.
            T::Kw("union") => {
                let sp = self.bump().span;
                self.warning(sp, "`union' treated as `rec'");
                TypeKind::Rec(self.fields()?)
            }
            T::Kw("cap") => {
                self.bump();
                if self.eat_kw("vm") {
                    TypeKind::Cap(CapTarget::Vm)
                } else if self.eat_kw("sem") {
                    TypeKind::Cap(CapTarget::Sem)
                } else if self.at_op("(") {
                    TypeKind::Cap(CapTarget::Sig(Box::new(self.op_prototype()?)))
                } else {
                    TypeKind::Cap(CapTarget::Named(self.qualified_id()?))
                }
            }
            T::Id(_) => TypeKind::Named(self.qualified_id()?),
            _ => return Err(self.unexpected("a type")),
        };
        Ok(Type::new(kind, lo.to(self.prev_span())))
    }

    /// `( var_def { SEP var_def } )` of a record: `a, b : int; c : real`
    fn fields(&mut self) -> PResult<Vec<Field>> {
        self.expect_op("(")?;
        let mut out = Vec::new();
        self.skip_seps();
        while !self.at_op(")") {
            let lo = self.span();
            let mut names = Vec::new();
            loop {
                let nlo = self.span();
                let name = self.ident()?;
                let dims = self.subscripts()?;
                names.push(ParamName { name, dims, span: nlo.to(self.prev_span()) });
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op(":")?;
            let ty = self.ty()?;
            out.push(Field { ty, names, span: lo.to(self.prev_span()) });
            // `rec(i : int, a[3] : real)`: a comma also starts the next field group
            if self.at_op(",") && matches!(self.nth(1), T::Id(_)) {
                self.bump();
                continue;
            }
            if self.at_sep() {
                self.skip_seps();
            } else if !self.at_op(")") {
                return Err(self.unexpected("';' or ')'"));
            }
        }
        self.bump();
        Ok(out)
    }

    /// `ID [. ID]`
    pub(super) fn qualified_id(&mut self) -> PResult<QualName> {
        let a = self.ident()?;
        let mut parts = vec![a];
        if self.at_op(".") && matches!(self.nth(1), T::Id(_)) {
            self.bump();
            parts.push(self.ident()?);
        }
        let span = parts[0].span.to(parts[parts.len() - 1].span);
        Ok(QualName { parts, span })
    }

    /// `{ [ bounds {, bounds} ] }` (possibly none): array dimensions.
    pub(super) fn subscripts(&mut self) -> PResult<Vec<Range>> {
        let mut out = Vec::new();
        while self.at_op("[") {
            self.bump();
            loop {
                let lo = self.span();
                let a = self.bound()?;
                if self.eat_op(":") {
                    let b = self.bound()?;
                    let span = lo.to(self.prev_span());
                    // `*` takes one bound from the actual argument, not both
                    if matches!((&a, &b), (Bound::Star(_), Bound::Star(_))) {
                        self.error(span, "both bounds are '*'");
                    }
                    out.push(Range { lo: Some(a), hi: b, span });
                } else {
                    out.push(Range { lo: None, hi: a, span: lo.to(self.prev_span()) });
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op("]")?;
        }
        Ok(out)
    }

    /// `expr | *`
    pub(super) fn bound(&mut self) -> PResult<Bound> {
        if self.at_op("*") {
            return Ok(Bound::Star(self.bump().span));
        }
        Ok(Bound::Expr(self.expr()?))
    }
}
