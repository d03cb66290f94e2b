//! type_audit: a debug check that `type_of` (the type rules alone) gives the
//! type `expr` (the translation) gives, for every expression translated.
//!
//! On with `Opts::audit_types` (MPD_AUDIT_TYPES in the environment; the
//! compiler's unit tests): each `expr(e)` first asks `type_of(e)`, then
//! translates, and reports a disagreement as an error, so a wrong rule
//! cannot hide behind the programs that happen to need it.
use super::types::{CapTy, Ty};
use super::{Checker, V};
use crate::syntax::ast::Expr;

impl<'a> Checker<'a> {
    /// `expr(e)`, checked against `type_of(e)`.
    pub(super) fn audited_expr(&mut self, e: &Expr) -> V {
        self.auditing = true;
        let rule = self.type_of(e);
        let k = self.const_of(e);
        let lv = self.is_variable(e);
        self.auditing = false;
        let errors = self.diags.error_count();
        let v = self.expr_of(e);
        let erred = self.diags.error_count() > errors;
        // where expr reports an error, type_of gives Ty::Error (or the type
        // expr gives anyway); an erroneous value counts as a variable or not
        // (V::err is one, so that no second error follows), which no rule asks
        let agrees = self.audit_same(&rule, &v.ty, 0) || erred && rule == Ty::Error;
        let what = if erred { " (after an error)" } else { "" };
        if !agrees {
            let (r, t) = (self.types.show(&rule), self.types.show(&v.ty));
            self.error(
                e.span,
                format!("type_of disagrees with expr{}: {} by the rules, {} by the translation", what, r, t),
            );
        } else if !erred && (k != v.k || lv != v.lv && v.ty != Ty::Error) {
            let msg =
                format!("const_of/is_variable disagree with expr: {:?} {} by the rules, {:?} {}", k, lv, v.k, v.lv);
            self.error(e.span, msg);
        }
        v
    }

    /// The same type: equal, or the same structure where a type written in
    /// place is registered anew each time it is elaborated (`new(op (int))`,
    /// `new(rec(int i))`, `low(enum(a, b))`): capabilities of ops compared
    /// by their signatures, records by their fields, enumerations by their
    /// literals.
    fn audit_same(&self, a: &Ty, b: &Ty, depth: usize) -> bool {
        if depth > 8 {
            return true;
        }
        match (a, b) {
            (Ty::Enum(x), Ty::Enum(y)) => self.types.enums[*x].lits == self.types.enums[*y].lits,
            (Ty::Rec(x), Ty::Rec(y)) if x != y => {
                let (p, q) = (&self.types.recs[*x], &self.types.recs[*y]);
                p.fields.len() == q.fields.len()
                    && p.fields
                        .iter()
                        .zip(&q.fields)
                        .all(|(f, g)| (&f.0, f.2) == (&g.0, g.2) && self.audit_same(&f.1, &g.1, depth + 1))
            }
            (Ty::Cap(CapTy::Op(x)), Ty::Cap(CapTy::Op(y))) if x != y => {
                let (p, q) = (&self.types.sigs[*x], &self.types.sigs[*y]);
                (p.no_send, p.no_call) == (q.no_send, q.no_call)
                    && self.audit_same(&p.ret, &q.ret, depth + 1)
                    && p.params.len() == q.params.len()
                    && p.params
                        .iter()
                        .zip(&q.params)
                        .all(|(r, s)| r.mode == s.mode && self.audit_same(&r.ty, &s.ty, depth + 1))
            }
            (Ty::Ptr(x), Ty::Ptr(y)) => self.audit_same(x, y, depth),
            (Ty::Arr(x, l, h, _), Ty::Arr(y, m, k, _)) => (l, h) == (m, k) && self.audit_same(x, y, depth),
            _ => a == b,
        }
    }
}
