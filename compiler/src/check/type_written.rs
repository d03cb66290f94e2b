//! type_written: the type a type written inside an expression denotes
//! (`T(x)`, `new(T)`, `low(T)`), worked out without elaborating it: no C
//! (no invocation block struct, no bounds evaluated), no messages, no names
//! declared.  A type written in place that needs a table entry (`enum(a, b)`,
//! `rec(int i)`, `op (int)`) gets one in the type table only -- the entry
//! `tyx` would make, minus its C and its literals' names -- as the
//! predefined enumerations get theirs.
use super::konst::KV;
use super::scope::{OpRef, PSig, ProcSig, Sym};
use super::types::{CapTy, EnumInfo, RecInfo, SigInfo, Ty};
use super::Checker;
use crate::syntax::ast::{self, Bound, Range, TypeKind};

impl<'a> Checker<'a> {
    /// The type `ty(t)` gives (typexpr.rs's `tyx`), Ty::Error where it
    /// reports an error.
    pub(super) fn written_type(&mut self, t: &ast::Type) -> Ty {
        self.written_type_in(t, false)
    }

    /// `written_type`; `in_new`: the type of a `new(...)`, where an optype's
    /// name makes an op of that signature.
    pub(super) fn written_type_in(&mut self, t: &ast::Type, in_new: bool) -> Ty {
        match &t.kind {
            TypeKind::Bool => Ty::Bool,
            TypeKind::Int => Ty::Int,
            TypeKind::Char => Ty::Char,
            TypeKind::Real | TypeKind::Double => Ty::Real,
            TypeKind::File => Ty::File,
            TypeKind::PtrAny => Ty::PtrAny,
            TypeKind::Sem | TypeKind::Cap(ast::CapTarget::Sem) => Ty::Cap(CapTy::Sem),
            TypeKind::Cap(ast::CapTarget::Vm) => Ty::Cap(CapTy::Vm),
            TypeKind::String(None) => Ty::Str(None),
            // string[n]: a constant length is in the type
            TypeKind::String(Some(b)) => match b {
                Bound::Star(_) => Ty::Str(None),
                Bound::Expr(e) => match (self.type_of(e), self.const_of(e)) {
                    (Ty::Int, Some(KV::Int(n))) if n >= 0 => Ty::Str(Some(n)),
                    (Ty::Int, None) => Ty::Str(None),
                    _ => Ty::Error,
                },
            },
            TypeKind::Named(q) => self.written_named(q, in_new),
            TypeKind::Cap(ast::CapTarget::Named(q)) => self.written_cap(q),
            TypeKind::Op(sig) | TypeKind::Cap(ast::CapTarget::Sig(sig)) => match &**sig {
                ast::OpSig::Explicit { params, returns, restriction, .. } => {
                    self.written_op(params, returns.as_ref(), *restriction)
                }
                ast::OpSig::Optype(q) => self.written_named(q, true),
            },
            // `ptr T` may name T before its declaration (resolved where dereferenced)
            TypeKind::Ptr(inner) => {
                if let TypeKind::Named(q) = &inner.kind {
                    if q.parts.len() == 1
                        && self.lookup(&q.parts[0].name).is_none()
                        && !self.names_a_component(&q.parts[0].name)
                    {
                        return Ty::Ptr(Box::new(Ty::Fwd(q.parts[0].name.clone())));
                    }
                }
                let inner = self.written_type(inner);
                Ty::Ptr(Box::new(super::typexpr::star_bounds_dynamic(&inner)))
            }
            TypeKind::Enum(lits) => {
                self.types
                    .enums
                    .push(EnumInfo { name: "enum".into(), lits: lits.iter().map(|l| l.name.clone()).collect() });
                Ty::Enum(self.types.enums.len() - 1)
            }
            TypeKind::Rec(fields) => self.written_rec(fields),
            TypeKind::Array { ranges, elem } => {
                let elem = self.written_type_in(elem, in_new);
                self.written_dims(elem, ranges)
            }
        }
    }

    /// `T` or `g.T` (named_type; optype_named in a new).
    fn written_named(&mut self, q: &ast::QualName, in_new: bool) -> Ty {
        let last = q.parts.last().unwrap();
        let sym = if q.parts.len() == 2 {
            self.qualified(&q.parts[0], &q.parts[1])
        } else {
            self.lookup(&last.name).cloned()
        };
        match sym {
            Some(Sym::Optype(k)) if in_new => Ty::Cap(CapTy::Op(k)),
            Some(Sym::Type(t)) => t,
            None if q.parts.len() == 1 && (last.name == "accessmode" || last.name == "seektype") => {
                Ty::Enum(self.predefined_enum(&last.name))
            }
            _ => Ty::Error,
        }
    }

    /// `cap X` for a resource, optype or op X (cap_named).
    fn written_cap(&mut self, q: &ast::QualName) -> Ty {
        let last = q.parts.last().unwrap();
        let sym =
            if q.parts.len() == 2 { self.qualified(&q.parts[0], &q.parts[1]) } else { self.resolve_pure(&last.name) };
        match sym {
            Some(Sym::Type(t @ Ty::Cap(_))) => t,
            Some(Sym::Optype(k)) => Ty::Cap(CapTy::Op(k)),
            Some(Sym::Proc(sig)) if sig.op.is_some() => self.op_cap_type(&sig),
            Some(Sym::Formal) => Ty::Error,
            _ if q.parts.len() == 1 && self.ifaces.get(&last.name).is_some_and(|i| i.global) => Ty::Error,
            _ if q.parts.len() == 1 && (self.ifaces.contains_key(&last.name) || last.name == self.comp) => {
                Ty::Cap(CapTy::Resource(last.name.clone()))
            }
            _ => Ty::Error,
        }
    }

    /// `op (params) returns T {restriction}` written in place
    /// (explicit_op_type): its signature, registered without an invocation
    /// block of its own (the translation defines that).
    fn written_op(
        &mut self,
        params: &[ast::Param],
        returns: Option<&ast::ReturnSpec>,
        restriction: Option<ast::OpRestriction>,
    ) -> Ty {
        let ps = self.written_params(params);
        let ret = self.written_ret(returns);
        let (no_send, no_call) = restriction.map_or((false, false), |r| (!r.send, !r.call));
        self.types.sigs.push(SigInfo { params: ps, ret, inv: String::new(), no_send, no_call });
        Ty::Cap(CapTy::Op(self.types.sigs.len() - 1))
    }

    /// The parameters of a heading (procs.rs's `heading`; the index
    /// types of their dimensions are the declaration's business).
    fn written_params(&mut self, params: &[ast::Param]) -> Vec<PSig> {
        let mut ps = Vec::new();
        for p in params {
            let t = self.written_type(&p.ty);
            if p.names.is_empty() {
                ps.push(PSig { mode: p.mode, ty: t.clone(), name: String::new() });
            }
            for n in &p.names {
                let ty = self.written_dims(t.clone(), &n.dims);
                ps.push(PSig { mode: p.mode, ty, name: n.name.name.clone() });
            }
        }
        ps
    }

    /// The result type of a heading (procs.rs's `heading`).
    fn written_ret(&mut self, returns: Option<&ast::ReturnSpec>) -> Ty {
        match returns {
            None => Ty::Void,
            Some(r) => match &r.ty {
                Some(t) => {
                    let t = self.written_type(t);
                    self.written_dims(t, &r.dims)
                }
                None => Ty::Error,
            },
        }
    }

    /// A name looked up as `resolve` does, but a procedure whose signature
    /// is not elaborated yet (it is on first use: procs.rs's
    /// `procedure_sig`, which also defines its invocation block) gets the
    /// signature it will have (`pending_sig`).
    pub(super) fn resolve_pure(&mut self, name: &str) -> Option<Sym> {
        match self.lookup(name).cloned() {
            Some(Sym::PendingProc(p)) => Some(Sym::Proc(self.pending_sig(&p))),
            sym => sym,
        }
    }

    /// The signature procedure `p`, whose heading is not elaborated yet,
    /// will have, worked out here without elaborating it.
    pub(super) fn pending_sig(&mut self, p: &ast::ProcDecl) -> std::rc::Rc<ProcSig> {
        let params = self.written_params(&p.params);
        let ret = self.written_ret(p.returns.as_ref());
        let idx = self.out.ops.iter().find(|o| o.name == p.name.name).map(|o| o.idx).unwrap_or(0);
        let inv = format!("inv_{}_{}", self.comp, p.name.name);
        std::rc::Rc::new(ProcSig {
            name: p.name.name.clone(),
            cname: crate::emit::names::proc_fn(&self.comp, &p.name.name),
            params,
            ret,
            ret_name: None,
            selfc: self.self_arg(),
            external: false,
            op: Some(OpRef {
                proc_impl: !self.replying.contains(&p.name.name),
                global_owner: self.global,
                ..OpRef::scalar(self.comp.clone(), idx, inv)
            }),
        })
    }

    /// `rec(...)` written in place (rec_type): its fields laid out.
    fn written_rec(&mut self, fields: &[ast::Field]) -> Ty {
        let mut fs: Vec<(String, Ty)> = Vec::new();
        for f in fields {
            let ft = self.written_type(&f.ty);
            for n in &f.names {
                let ty = self.written_dims(ft.clone(), &n.dims);
                fs.push((n.name.name.clone(), ty));
            }
        }
        match self.types.layout(&fs) {
            Some((fields, size)) => {
                self.types.recs.push(RecInfo { name: "rec".into(), fields, size });
                Ty::Rec(self.types.recs.len() - 1)
            }
            None => Ty::Error,
        }
    }

    /// `elem` in arrays of `ranges`, outermost first (with_dims): constant
    /// bounds are in the type, `*` and run-time ones are not.
    pub(super) fn written_dims(&mut self, elem: Ty, ranges: &[Range]) -> Ty {
        let mut ty = elem;
        for r in ranges.iter().rev() {
            let (lo, hi) = self.written_range(r);
            let ix = self.range_type(r);
            ty = Ty::Arr(Box::new(ty), lo, hi, Box::new(ix));
        }
        ty
    }

    /// The constant bounds of a range (typexpr.rs's `range`): a type name
    /// for its values, `n` for 1 to n, `a:b`.
    fn written_range(&mut self, r: &Range) -> (Option<i64>, Option<i64>) {
        if r.lo.is_none() {
            if let Bound::Expr(ast::Expr { kind: ast::ExprKind::Ident(id), .. }) = &r.hi {
                if let Some(Sym::Type(t)) = self.lookup(&id.name).cloned() {
                    return match t {
                        Ty::Enum(e) => (Some(0), Some(self.types.enums[e].lits.len() as i64 - 1)),
                        Ty::Bool => (Some(0), Some(1)),
                        Ty::Char => (Some(0), Some(255)),
                        _ => (Some(1), Some(1)),
                    };
                }
            }
        }
        let lo = match &r.lo {
            None => Some(1),
            Some(b) => self.written_bound(b),
        };
        (lo, self.written_bound(&r.hi))
    }

    /// A bound's value when constant (const_bound).
    fn written_bound(&mut self, b: &Bound) -> Option<i64> {
        let Bound::Expr(e) = b else { return None };
        match self.const_of(e)? {
            KV::Int(n) => Some(n),
            KV::Char(c) => Some(c as i64),
            KV::Bool(v) => Some(v as i64),
            _ => None,
        }
    }
}
