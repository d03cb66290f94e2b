//! operator: checking and translating operators -- arithmetic, comparison,
//! concatenation, unary operators -- with constant folding and int/real promotion.
use super::konst::{fold_typed, wrap, KV};
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::expr as ee;
use crate::syntax::ast::{BinaryOp, Expr, Span, UnaryOp};

impl<'a> Checker<'a> {
    /// Converts `v` to a value of numeric type `to` (int → real promotion).
    pub fn coerce(&mut self, v: V, to: &Ty) -> V {
        match (&v.ty, to) {
            (Ty::Int, Ty::Real) => {
                let k = match v.k {
                    Some(KV::Int(n)) => Some(KV::Real(n as f64)),
                    _ => None,
                };
                V { c: ee::to_real(&v.c), ty: Ty::Real, form: Form::Scalar, k, lv: false, slice: None }
            }
            _ => v,
        }
    }

    /// The operator node `e`, `a op b` of operands translated already:
    /// its rule checks it (type_operator.rs), then its C.
    pub(super) fn binary_node(&mut self, e: &Expr, op: BinaryOp, a: V, b: V) -> V {
        if a.ty == Ty::Error || b.ty == Ty::Error || self.checked(e) == Ty::Error {
            return V::err();
        }
        self.binary(op, a, b, e.span)
    }

    /// The C of `a op b`, whose operand types passed the operator's rules
    /// (MPD 1.0.1 rejects `gray + red` and `gray < 1` even of constants):
    /// two constants are folded.
    pub fn binary(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        if a.ty == Ty::Error || b.ty == Ty::Error {
            return V::err();
        }
        if let (Some(x), Some(y)) = (&a.k, &b.k) {
            if let Some((k, ty)) = fold_typed(op, x.clone(), y.clone()) {
                return self.konst(k, ty);
            }
        }
        self.binary_typed(op, a, b, span)
    }

    /// The operator of `x op:= e`, checked by the operator's rules here
    /// (the assignment's node has no rule of its own yet), then its C.
    pub(super) fn compound_operator(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        if a.ty != Ty::Error && b.ty != Ty::Error {
            if let Some(m) = self.operator_error(op, &a.ty, &b.ty, false) {
                self.error(span, m);
                return V::err();
            }
        }
        self.binary(op, a, b, span)
    }

    /// `x op:= e` (`x op= e` in MPD) with an operand that is not a number:
    /// MPD 1.0.1 and SR 2.3.3 word the assignment form apart from `x op e`
    /// ("non-numeric arithmetic operand").  True when reported.
    pub(super) fn compound_not_numeric(&mut self, op: BinaryOp, a: &V, b: &V, span: Span) -> bool {
        use BinaryOp::*;
        let arith = matches!(op, Add | Sub | Mul | Div | Rem | Mod | Pow);
        if !arith || a.ty == Ty::Error || b.ty == Ty::Error || a.ty.is_numeric() && b.ty.is_numeric() {
            return false;
        }
        if matches!(a.ty, Ty::Ptr(_)) && b.ty == Ty::Int && matches!(op, Add | Sub) {
            return false;
        }
        let (ta, tb) = (self.types.show(&a.ty), self.types.show(&b.ty));
        self.error(
            span,
            format!(
                "non-numeric operand or incompatible assignment: operator {} needs int or real operands, not {} and {}",
                op.as_str(),
                ta,
                tb
            ),
        );
        true
    }

    /// The C of `a op b` of operands that are not both constants.
    fn binary_typed(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        use BinaryOp::*;
        let p = self.pos(span);
        match op {
            Add | Sub | Mul | Div | Pow | Rem | Mod => {
                // pointer arithmetic: ptr +/- int, int + ptr, ptr - ptr
                if matches!(a.ty, Ty::Ptr(_)) && b.ty == Ty::Int && matches!(op, Add | Sub) {
                    let sz = match &a.ty {
                        Ty::Ptr(t) => self.types.size_of(t).unwrap_or(1),
                        _ => 1,
                    };
                    return V::scalar(ee::ptr_offset(&a.c, op == Add, &b.c, sz), a.ty.clone());
                }
                if matches!(b.ty, Ty::Ptr(_)) && a.ty == Ty::Int && op == Add {
                    return self.binary(op, b, a, span);
                }
                let is_ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
                if is_ptr(&a.ty) && is_ptr(&b.ty) && op == Sub {
                    let sz = match (&a.ty, &b.ty) {
                        (Ty::Ptr(t), _) | (_, Ty::Ptr(t)) => self.types.size_of(t).unwrap_or(1),
                        _ => 1,
                    };
                    return V::scalar(ee::ptr_diff(&a.c, &b.c, sz), Ty::Int);
                }
                if a.ty == Ty::Int && b.ty == Ty::Int {
                    return V::scalar(ee::int_arith(op, &p, &a.c, &b.c), Ty::Int);
                }
                if op == Pow && b.ty == Ty::Int {
                    let a = self.coerce(a, &Ty::Real);
                    return V::scalar(ee::real_powi(&p, &a.c, &b.c), Ty::Real);
                }
                let a = self.coerce(a, &Ty::Real);
                let b = self.coerce(b, &Ty::Real);
                V::scalar(ee::real_arith(op, &p, &a.c, &b.c), Ty::Real)
            }
            Concat => {
                let x = self.sv(&a);
                let y = self.sv(&b);
                let t = self.t();
                V { c: ee::str_cat(t, &x, &y), ty: Ty::Str(None), form: Form::View, k: None, lv: false, slice: None }
            }
            Shl | Shr => V::scalar(ee::shift(op == Shl, &a.c, &b.c), Ty::Int),
            And | Or | Xor if a.ty == Ty::Bool => V::scalar(ee::bool_logic(op, &a.c, &b.c), Ty::Bool),
            And | Or | Xor => V::scalar(ee::int_bits(op, &a.c, &b.c), Ty::Int),
            Eq | Ne | Lt | Le | Gt | Ge => self.compare(op, a, b),
        }
    }

    /// The C of a comparison that passed the rules.
    fn compare(&mut self, op: BinaryOp, a: V, b: V) -> V {
        use BinaryOp::*;
        let o = match op {
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            _ => ">=",
        };
        if a.ty.is_string() && b.ty.is_string() {
            let x = self.sv(&a);
            let y = self.sv(&b);
            return V::scalar(ee::str_cmp(&x, &y, o), Ty::Bool);
        }
        if a.ty.is_numeric() && b.ty.is_numeric() {
            let (a, b) = if a.ty == Ty::Real || b.ty == Ty::Real {
                (self.coerce(a, &Ty::Real), self.coerce(b, &Ty::Real))
            } else {
                (a, b)
            };
            return V::scalar(ee::compare(&a.c, o, &b.c), Ty::Bool);
        }
        match (&a.ty, &b.ty) {
            // pointers and files are equal or not; they have no order
            (Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File, Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File) => {
                V::scalar(ee::ptr_eq(&a.c, o, &b.c), Ty::Bool)
            }
            (Ty::Cap(_) | Ty::Null, Ty::Cap(_) | Ty::Null) => {
                let x = if a.ty == Ty::Null { null_cap(&a.c) } else { a.c.clone() };
                let y = if b.ty == Ty::Null { null_cap(&b.c) } else { b.c.clone() };
                V::scalar(ee::cap_eq(&x, &y, o), Ty::Bool)
            }
            // chars, bools and enumerations of one type
            _ => V::scalar(ee::compare(&a.c, o, &b.c), Ty::Bool),
        }
    }

    /// The operator node `e`, `op operand`: its rule checks it
    /// (type_operator.rs) once the operand is translated, then its C.
    pub(super) fn unary(&mut self, e: &Expr, op: UnaryOp, operand: &Expr) -> V {
        if op == UnaryOp::Pending {
            return self.pending(operand);
        }
        let v = self.expr(operand);
        if !self.passes(e) {
            return V::err();
        }
        match op {
            UnaryOp::Plus => V { lv: false, slice: None, ..v },
            UnaryOp::Neg => match v.k {
                Some(KV::Int(n)) => self.konst(KV::Int(wrap(-n)), Ty::Int),
                Some(KV::Real(x)) => self.konst(KV::Real(-x), Ty::Real),
                _ if v.ty == Ty::Int => V::scalar(ee::int_neg(&v.c), Ty::Int),
                _ => V::scalar(ee::real_neg(&v.c), v.ty),
            },
            UnaryOp::Not => match (&v.ty, &v.k) {
                (Ty::Bool, Some(KV::Bool(b))) => self.konst(KV::Bool(!b), Ty::Bool),
                (Ty::Bool, _) => V::scalar(ee::not(&v.c, false), Ty::Bool),
                (Ty::Int, Some(KV::Int(n))) => self.konst(KV::Int(!n), Ty::Int),
                (Ty::Int, _) => V::scalar(ee::not(&v.c, true), Ty::Int),
                _ => V::err(),
            },
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let up = matches!(op, UnaryOp::PreInc | UnaryOp::PostInc);
                let pre = matches!(op, UnaryOp::PreInc | UnaryOp::PreDec);
                match &v.ty {
                    Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Real => V::scalar(ee::inc_dec(&v.c, up, pre), v.ty.clone()),
                    Ty::Ptr(t) => {
                        let sz = self.types.size_of(t).unwrap_or(1);
                        let c = if pre {
                            ee::ptr_step(&v.c, up, sz)
                        } else {
                            let tmp = self.tmp();
                            ee::ptr_step_post(&tmp, &v.c, up, sz)
                        };
                        V::scalar(c, v.ty.clone())
                    }
                    _ => V::err(),
                }
            }
            UnaryOp::AddrOf => {
                let c = ee::addr_of(&v.c, v.form == Form::Blob);
                V::scalar(c, Ty::Ptr(Box::new(v.ty)))
            }
            UnaryOp::Deref => self.deref(v, e.span),
            UnaryOp::Pending => unreachable!(),
        }
    }
}

pub(super) use crate::emit::expr::null_cap;
