//! assign: checking and translating assignments (:=, op:=, swap) and the
//! stores into variables, fields, elements and slices they make.
use super::expr::is_noop;
use super::operator::null_cap;
use super::scope::Sym;
use super::types::Ty;
use super::{Checker, V};
use crate::emit::{data, expr, ops, var};
use crate::syntax::ast::{self, AssignOp, Expr, ExprKind, Span};

impl<'a> Checker<'a> {
    /// MPD's words for an assignment whose sides do not match:
    /// "<what> (cannot assign a T to a U)" (`article` before U).
    fn cannot_assign(&mut self, span: Span, lhs: &Ty, rhs: &Ty, article: &str) {
        let what = self.mismatch_what();
        let msg =
            format!("{} (cannot assign a {} to {} {})", what, self.types.show(rhs), article, self.types.show(lhs));
        self.error(span, msg);
    }

    /// Stores `rhs` into the variable `lhs` (with MPD's conversions and checks).
    pub fn assign_into(&mut self, lhs: &V, rhs: V, span: Span) {
        let p = self.pos(span);
        if lhs.ty == Ty::Error || rhs.ty == Ty::Error {
            return;
        }
        if let Some(sl) = &lhs.slice {
            // assignment into a slice
            self.assign_slice(lhs, rhs, sl, &p, span);
            return;
        }
        match &lhs.ty {
            Ty::Str(_) => {
                if !rhs.ty.is_string() {
                    self.cannot_assign(span, &lhs.ty, &rhs.ty, "a");
                    return;
                }
                if let Some(tail) = expr::appended_to(&rhs.c, &lhs.c) {
                    // s = s || e appends in place: a loop building a string
                    // this way would otherwise copy s twice per step
                    self.f.code.put(&data::str_append(&p, &lhs.c, tail));
                } else {
                    let v = self.sv(&rhs);
                    self.f.code.put(&data::str_set(&p, &lhs.c, &v));
                }
            }
            Ty::Arr(e, _, _, _) => {
                let e = (**e).clone();
                self.assign_array(lhs, rhs, e, &p, span);
            }
            Ty::Rec(_) => {
                if !self.types.assignable(&lhs.ty, &rhs.ty) {
                    self.cannot_assign(span, &lhs.ty, &rhs.ty, "a");
                    return;
                }
                let n = self.types.size_of(&lhs.ty).unwrap_or(16);
                self.f.code.put(&data::rec_assign(&lhs.c, &rhs.c, n));
            }
            _ => {
                let r = self.scalar_for(&lhs.ty, rhs, span);
                self.f.code.put(&var::store(&lhs.c, &r));
            }
        }
    }

    /// An assignment into a string or array slice `sl` (base, lo, hi; lo `#sec` for a
    /// section of a multi-dimensional array).
    fn assign_slice(&mut self, lhs: &V, rhs: V, sl: &(String, String, String), p: &str, span: Span) {
        let (base, lo, hi) = sl.clone();
        // a slice takes a value of its own type and shape (MPD gives no
        // conversion here: a string into an array slice is an error)
        let ok = match &lhs.ty {
            Ty::Str(_) => rhs.ty.is_string(),
            _ => {
                matches!(rhs.ty, Ty::Arr(..))
                    && self.types.assignable(&lhs.ty, &rhs.ty)
                    && self.same_rank(&lhs.ty, &rhs.ty)
            }
        };
        if !ok {
            self.error(
                span,
                format!(
                    "incompatible assignment: cannot assign a {} to a slice of type {}",
                    self.types.show(&rhs.ty),
                    self.types.show(&lhs.ty)
                ),
            );
            return;
        }
        if lo == "#sec" {
            let r = self.array_value(&rhs, lhs.ty.elem().cloned().unwrap_or(Ty::Error), span);
            self.f.code.put(&data::arr_section_set(p, &base, &hi, &r));
            return;
        }
        match &lhs.ty {
            Ty::Str(_) => {
                let v = self.sv(&rhs);
                self.f.code.put(&data::str_slice_set(p, &base, &lo, &hi, &v));
            }
            _ => {
                let r = self.array_value(&rhs, lhs.ty.elem().cloned().unwrap_or(Ty::Error), span);
                self.f.code.put(&data::arr_slice_set(p, &base, &lo, &hi, &r));
            }
        }
    }

    /// An assignment into a whole array of element type `e`.
    fn assign_array(&mut self, lhs: &V, rhs: V, e: Ty, p: &str, span: Span) {
        if !self.types.assignable(&lhs.ty, &rhs.ty) {
            self.cannot_assign(span, &lhs.ty, &rhs.ty, "an");
            return;
        }
        let r = self.array_value(&rhs, e, span);
        let (mut depth, mut t) = (0, &lhs.ty);
        while let Ty::Arr(e, _, _, _) = t {
            depth += 1;
            t = e;
        }
        if depth == 1 && !t.is_string() {
            self.f.code.put(&data::arr_assign(p, &lhs.c, &r));
        } else {
            self.f.code.put(&data::arr_assign_d(p, &lhs.c, &r, depth, t.is_string()));
        }
    }

    /// Whether two array types have the same number of dimensions.
    pub(super) fn same_rank(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::Arr(x, ..), Ty::Arr(y, ..)) => self.same_rank(x, y),
            (Ty::Arr(..), _) | (_, Ty::Arr(..)) => false,
            _ => true,
        }
    }

    /// `rc.f = c` for a resource capability variable rc: rc becomes a capability
    /// whose op f is c (a resource capability is a record of op capabilities).
    /// None when `base` is not a resource capability (nothing emitted then).
    pub(super) fn assign_op_field(&mut self, base: &Expr, name: &ast::Ident, rhs: &Expr, span: Span) -> Option<V> {
        if self.names_component(base) {
            return None;
        }
        let Ty::Cap(super::types::CapTy::Resource(rn)) = self.type_of(base) else { return None };
        let b = self.expr(base);
        let field = match self.res_member(&rn, &name.name) {
            Some(Sym::Proc(sig)) if sig.op.as_ref().map(|r| r.dims.is_empty()).unwrap_or(false) => sig,
            _ => {
                self.error(
                    name.span,
                    format!("undefined identifier: {} (resource {} has no operation `{}`)", name.name, rn, name.name),
                );
                return Some(V::err());
            }
        };
        if !b.lv {
            self.error(base.span, "assignment target is not a variable");
            return Some(V::err());
        }
        let r = field.op.clone().unwrap();
        let k = self.op_sig(&field);
        let fty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
        let v = self.expr(rhs);
        let c = self.scalar_for(&fty, v, span);
        let t = self.tmp();
        let p = self.pos(span);
        self.f.code.put(&ops::rescap_store_op(&t, &c, &p, &b.c, &r.idx.to_string()));
        Some(V::scalar(t, fty))
    }

    /// How MPD 1.0.1 names a type mismatch where we are (see `mismatch`).
    pub fn mismatch_what(&self) -> String {
        self.mismatch.clone().unwrap_or_else(|| "incompatible assignment".into())
    }

    /// Runs `f` with `what` as the wording of type mismatches.
    pub fn with_mismatch<R>(&mut self, what: String, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.mismatch.replace(what);
        let r = f(self);
        self.mismatch = saved;
        r
    }

    /// The C text of `v` as a value of scalar type `to`, or an error.
    pub fn scalar_for(&mut self, to: &Ty, v: V, span: Span) -> String {
        if *to == Ty::Real && v.ty == Ty::Int {
            return self.coerce(v, &Ty::Real).c;
        }
        if matches!(to, Ty::Ptr(_) | Ty::PtrAny) && is_noop(&v) {
            // noop names no operation; a pointer takes null
            self.error(span, "can't use `noop' in pointer context (use null)");
            return "0".into();
        }
        if !self.types.assignable(to, &v.ty) {
            if let (Ty::Cap(_), Ty::Cap(_)) = (to, &v.ty) {
                self.error(
                    span,
                    format!(
                        "{}: a {} cannot hold a {}",
                        self.mismatch_what(),
                        self.types.show(to),
                        self.types.show(&v.ty)
                    ),
                );
                return "0".into();
            }
            self.error(
                span,
                format!(
                    "{} (expected a value of type {}, found {})",
                    self.mismatch_what(),
                    self.types.show(to),
                    self.types.show(&v.ty)
                ),
            );
            return "0".into();
        }
        if matches!(to, Ty::Cap(_)) && v.ty == Ty::Null {
            return null_cap(&v.c);
        }
        v.c
    }

    /// An array blob for `v` (a string becomes chars(v)).
    pub(super) fn array_value(&mut self, v: &V, elem: Ty, _span: Span) -> String {
        if v.ty.is_string() && elem == Ty::Char {
            let s = self.sv(v);
            let t = self.t();
            data::chars_of(t, &s)
        } else {
            v.c.clone()
        }
    }

    /// `rc.f[i] = c` for an op array f of a resource capability variable rc:
    /// as `rc.f = c`, for one element.  None when lhs is something else.
    pub(super) fn assign_op_elem(&mut self, lhs: &Expr, rhs: &Expr, span: Span) -> Option<V> {
        let (sig, rc, ix) = self.rescap_elem(lhs)?;
        if !rc.lv {
            self.error(lhs.span, "assignment target is not a variable");
            return Some(V::err());
        }
        let slot = ops::op_slot(sig.op.as_ref().unwrap().idx, &ix);
        Some(self.store_op_cap(&sig, &rc.c, &slot, rhs, span))
    }

    /// Stores `rhs` as the op capability in slot `slot` (a C expression) of
    /// the resource capability variable `rc` (C lvalue); the value is the cap.
    pub(super) fn store_op_cap(
        &mut self,
        sig: &super::scope::ProcSig,
        rc: &str,
        slot: &str,
        rhs: &Expr,
        span: Span,
    ) -> V {
        let r = sig.op.as_ref().unwrap();
        let k = self.op_sig(&sig);
        let fty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
        let v = self.expr(rhs);
        let c = self.scalar_for(&fty, v, span);
        let t = self.tmp();
        let p = self.pos(span);
        self.f.code.put(&ops::rescap_store_op(&t, &c, &p, rc, slot));
        V::scalar(t, fty)
    }

    pub(super) fn assign_expr(&mut self, op: AssignOp, lhs: &Expr, rhs: &Expr, span: Span) -> Option<V> {
        if let (AssignOp::Plain, ExprKind::Index { .. }) = (op, &lhs.kind) {
            if let Some(v) = self.assign_op_elem(lhs, rhs, span) {
                return Some(v);
            }
        }
        if let (AssignOp::Plain, ExprKind::Field { base, name }) = (op, &lhs.kind) {
            if let Some(v) = self.assign_op_field(base, name, rhs, span) {
                return Some(v);
            }
        }
        let mut l = self.expr(lhs);
        if !l.lv && l.ty != Ty::Error {
            self.error(lhs.span, "assignment target is not a variable");
            return None;
        }
        if let AssignOp::Compound(_) = op {
            l = self.pin(lhs, l); // named twice: `a[f()] += 1` calls f once
        }
        let r = match op {
            AssignOp::Plain => self.expr(rhs),
            AssignOp::Compound(b) => {
                if b == ast::BinaryOp::Concat && !l.ty.is_string() && l.ty != Ty::Error {
                    // s ||= e appends to a string: MPD 1.0.1 rejects any other target
                    self.error(span, format!("non-string concatenation ({} ||= ...)", self.types.show(&l.ty)));
                    return None;
                }
                let r = self.expr(rhs);
                let cur = V { lv: false, k: None, slice: None, ..l.clone() };
                if self.compound_not_numeric(b, &cur, &r, span) {
                    return None;
                }
                self.compound_operator(b, cur, r, span)
            }
        };
        if l.ty.is_scalar() && l.slice.is_none() && l.ty != Ty::Error && r.ty != Ty::Error {
            // the value of the assignment is kept in a temporary, so a variable whose
            // subscript has side effects (a[i++] = e) is evaluated once
            let c = self.scalar_for(&l.ty, r, span);
            let t = self.tmp();
            let ct = self.ctype(&l.ty);
            self.f.code.put(&var::store_via(&ct, &t, &c, &l.c));
            return Some(V { c: t, ..l });
        }
        self.assign_into(&l, r, span);
        Some(l)
    }

    /// `a :=: b` (node `e`): both sides translated, its rule checks it
    /// (type_of_effect.rs's `swap_type`), then its C.
    pub(super) fn swap(&mut self, e: &Expr, lhs: &Expr, rhs: &Expr) -> Option<V> {
        let span = e.span;
        let a = self.expr(lhs);
        let a = self.pin(lhs, a);
        let b = self.expr(rhs);
        let b = self.pin(rhs, b);
        if a.ty == Ty::Error || b.ty == Ty::Error || !self.passes(e) {
            return None;
        }
        let p = self.pos(span);
        match &a.ty {
            Ty::Str(_) => {
                self.f.code.put(&data::str_swap(&p, &a.c, &b.c));
            }
            Ty::Arr(..) => {
                self.f.code.put(&data::arr_swap(&p, &a.c, &b.c));
            }
            Ty::Rec(_) => {
                let n = self.types.size_of(&a.ty).unwrap_or(16);
                self.f.code.put(&data::blob_swap(&a.c, &b.c, n));
            }
            _ => {
                let t = self.tmp();
                let ct = self.ctype(&a.ty);
                self.f.code.put(&data::scalar_swap(&ct, &t, &a.c, &b.c));
                // a scalar result is a snapshot, so later swaps do not change it
                let r = self.tmp();
                self.f.code.put(&var::local_c(&ct, &r, &a.c));
                return Some(V::scalar(r, a.ty.clone()));
            }
        }
        Some(V { lv: false, slice: None, k: None, ..a })
    }
}
