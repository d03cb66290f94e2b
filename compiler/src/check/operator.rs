//! operator: checking and translating operators -- arithmetic, comparison,
//! concatenation, unary operators -- with constant folding and int/real promotion.
use super::konst::{fold, wrap, KV};
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

    pub fn binary(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        use BinaryOp::*;
        if a.ty == Ty::Error || b.ty == Ty::Error {
            return V::err();
        }
        // constant folding, after the operand types passed the same rules
        // as variables' (MPD 1.0.1 rejects `gray + red` and `gray < 1` too)
        let mut folded = None;
        if !self.opts.no_fold || true {
            if let (Some(x), Some(y)) = (&a.k, &b.k) {
                let (x, y) = match (x, y) {
                    (KV::Int(i), KV::Real(_)) => (KV::Real(*i as f64), y.clone()),
                    (KV::Real(_), KV::Int(j)) => (x.clone(), KV::Real(*j as f64)),
                    (KV::Char(c), KV::Str(_)) if op == Concat => (KV::Str(vec![*c]), y.clone()),
                    (KV::Str(_), KV::Char(c)) if op == Concat => (x.clone(), KV::Str(vec![*c])),
                    (KV::Char(c), KV::Char(d)) if op == Concat => (KV::Str(vec![*c]), KV::Str(vec![*d])),
                    _ => (x.clone(), y.clone()),
                };
                if let Some(k) = fold(op, &x, &y) {
                    let ty = match &k {
                        KV::Int(_) => {
                            if let (Ty::Enum(_), Ty::Enum(_)) = (&a.ty, &b.ty) {
                                Ty::Int
                            } else {
                                Ty::Int
                            }
                        }
                        KV::Real(_) => Ty::Real,
                        KV::Bool(_) => Ty::Bool,
                        KV::Char(_) => Ty::Char,
                        KV::Str(s) => Ty::Str(Some(s.len() as i64)),
                    };
                    folded = Some((k, ty));
                }
            }
        }
        let Some((k, ty)) = folded else {
            return self.binary_typed(op, a, b, span);
        };
        // the typed form only checks here: its C (and temporaries) are dropped
        let used_tmp = self.f.used_tmp;
        let v = self.binary_typed(op, a, b, span);
        self.f.used_tmp = used_tmp;
        if v.ty == Ty::Error {
            return v;
        }
        self.konst(k, ty)
    }

    /// `binary` of operands that are not both constants: checks their types
    /// and returns the C of the operation.
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

    fn binary_typed(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        use BinaryOp::*;
        let p = self.pos(span);
        match op {
            Add | Sub | Mul | Div | Pow | Rem | Mod => {
                let both_int = a.ty == Ty::Int && b.ty == Ty::Int;
                // pointer arithmetic: ptr +/- int
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
                if !a.ty.is_numeric() || !b.ty.is_numeric() {
                    self.error(
                        span,
                        format!(
                            "{}: operator {} needs int or real operands, not {} and {}",
                            match op {
                                BinaryOp::Pow => "non-numeric exponentiation operand",
                                BinaryOp::Sub
                                    if matches!(a.ty, Ty::Ptr(_) | Ty::PtrAny)
                                        || matches!(b.ty, Ty::Ptr(_) | Ty::PtrAny) =>
                                    "incompatible pointer subtraction",
                                _ => "non-numeric arithmetic operand",
                            },
                            op.as_str(),
                            self.types.show(&a.ty),
                            self.types.show(&b.ty)
                        ),
                    );
                    return V::err();
                }
                if both_int {
                    let c = ee::int_arith(op, &p, &a.c, &b.c);
                    return V::scalar(c, Ty::Int);
                }
                if op == Pow && b.ty == Ty::Int {
                    let a = self.coerce(a, &Ty::Real);
                    return V::scalar(ee::real_powi(&p, &a.c, &b.c), Ty::Real);
                }
                let a = self.coerce(a, &Ty::Real);
                let b = self.coerce(b, &Ty::Real);
                let c = ee::real_arith(op, &p, &a.c, &b.c);
                V::scalar(c, Ty::Real)
            }
            Concat => {
                let ok = |t: &Ty| t.is_string() || *t == Ty::Char;
                if !ok(&a.ty) || !ok(&b.ty) {
                    self.error(
                        span,
                        format!("non-string concatenation ({} || {})", self.types.show(&a.ty), self.types.show(&b.ty)),
                    );
                    return V::err();
                }
                let x = self.sv(&a);
                let y = self.sv(&b);
                let t = self.t();
                V { c: ee::str_cat(t, &x, &y), ty: Ty::Str(None), form: Form::View, k: None, lv: false, slice: None }
            }
            Shl | Shr => {
                if a.ty != Ty::Int || b.ty != Ty::Int {
                    self.error(span, format!("non-integer shift operand ({})", op.as_str()));
                    return V::err();
                }
                V::scalar(ee::shift(op == Shl, &a.c, &b.c), Ty::Int)
            }
            And | Or | Xor => {
                if a.ty == Ty::Bool && b.ty == Ty::Bool {
                    V::scalar(ee::bool_logic(op, &a.c, &b.c), Ty::Bool)
                } else if a.ty == Ty::Int && b.ty == Ty::Int {
                    V::scalar(ee::int_bits(op, &a.c, &b.c), Ty::Int)
                } else {
                    self.error(
                        span,
                        format!(
                            "illegal or mismatched and/or/xor operands ({} and {})",
                            self.types.show(&a.ty),
                            self.types.show(&b.ty)
                        ),
                    );
                    V::err()
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => self.compare(op, a, b, span),
        }
    }

    pub(super) fn compare(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        use BinaryOp::*;
        let o = match op {
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            _ => ">=",
        };
        // arrays (char arrays too) and records are not compared (MPD 1.0.1)
        if matches!(a.ty, Ty::Arr(..) | Ty::Rec(_)) || matches!(b.ty, Ty::Arr(..) | Ty::Rec(_)) {
            // an array with null (a cap array) or a scalar: both of MPD's words
            let what = if self.types.same(&a.ty, &b.ty) { "" } else { "incompatible comparison; " };
            self.error(
                span,
                format!(
                    "{}illegal type for comparison: cannot compare {} with {} (compare elements or fields)",
                    what,
                    self.types.show(&a.ty),
                    self.types.show(&b.ty)
                ),
            );
            return V::err();
        }
        let stringy = |t: &Ty| t.is_string();
        if stringy(&a.ty) && stringy(&b.ty) {
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
        // noop names no operation: a pointer compares with null (MPD 1.0.1)
        let ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
        if (ptr(&a.ty) && super::expr::is_noop(&b)) || (ptr(&b.ty) && super::expr::is_noop(&a)) {
            self.error(span, "can't use `noop' in pointer context (use null)");
            return V::scalar("0".into(), Ty::Bool);
        }
        let same = self.types.same(&a.ty, &b.ty);
        match (&a.ty, &b.ty) {
            (Ty::Char, Ty::Char) | (Ty::Bool, Ty::Bool) | (Ty::Enum(_), Ty::Enum(_)) if same => {
                V::scalar(ee::compare(&a.c, o, &b.c), Ty::Bool)
            }
            // pointers and files are equal or not; they have no order
            (Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File, Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File)
                if matches!(op, Eq | Ne) && self.ptrs_comparable(&a.ty, &b.ty) =>
            {
                V::scalar(ee::ptr_eq(&a.c, o, &b.c), Ty::Bool)
            }
            // capabilities compare when one could hold the other (MPD 1.0.1:
            // "incompatible comparison" of caps of different ops or resources)
            (Ty::Cap(_) | Ty::Null, Ty::Cap(_) | Ty::Null)
                if matches!(op, Eq | Ne) && self.caps_comparable(&a.ty, &b.ty) =>
            {
                let x = if a.ty == Ty::Null { null_cap(&a.c) } else { a.c.clone() };
                let y = if b.ty == Ty::Null { null_cap(&b.c) } else { b.c.clone() };
                V::scalar(ee::cap_eq(&x, &y, o), Ty::Bool)
            }
            _ => {
                let what = if self.types.same(&a.ty, &b.ty) && self.caps_comparable(&a.ty, &b.ty) {
                    "illegal comparison for unordered type"
                } else {
                    "incompatible comparison"
                };
                self.error(
                    span,
                    format!(
                        "{}: cannot compare {} with {} using {}",
                        what,
                        self.types.show(&a.ty),
                        self.types.show(&b.ty),
                        op.as_str()
                    ),
                );
                V::err()
            }
        }
    }

    /// Pointers compare when they point to the same type, or either is a
    /// `ptr any` (at any depth: `ptr ptr any` with `ptr ptr int`), or one is
    /// null; a file only with a file or null (MPD 1.0.1: "incompatible
    /// comparison" for `ptr int` with `ptr real`, or with `stdin`).
    pub(super) fn ptrs_comparable(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::Null, _) | (_, Ty::Null) => true,
            (Ty::File, Ty::File) => true,
            (Ty::File, _) | (_, Ty::File) => false,
            (Ty::PtrAny, _) | (_, Ty::PtrAny) => true,
            (Ty::Ptr(x), Ty::Ptr(y)) => self.pointees_match(x, y),
            _ => false,
        }
    }

    fn pointees_match(&self, x: &Ty, y: &Ty) -> bool {
        match (x, y) {
            (Ty::PtrAny, Ty::Ptr(_) | Ty::PtrAny) | (Ty::Ptr(_), Ty::PtrAny) => true,
            (Ty::Ptr(p), Ty::Ptr(q)) => self.pointees_match(p, q),
            // MPD compares string lengths exactly where both are known
            (Ty::Str(Some(m)), Ty::Str(Some(n))) => m == n,
            _ => self.types.same(x, y),
        }
    }

    pub(super) fn caps_comparable(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            // a sem compares with an op `() {send}` only (Types::cap_compat)
            (Ty::Cap(x), Ty::Cap(y)) => self.types.cap_compat(x, y) || self.types.cap_compat(y, x),
            _ => true,
        }
    }

    pub(super) fn unary(&mut self, op: UnaryOp, operand: &Expr, span: Span) -> V {
        match op {
            UnaryOp::Neg | UnaryOp::Plus => {
                let v = self.expr(operand);
                if !v.ty.is_numeric() {
                    self.error(span, format!("unary +/- operand is not simple numeric ({})", self.types.show(&v.ty)));
                    return V::err();
                }
                if op == UnaryOp::Plus {
                    return V { lv: false, slice: None, ..v };
                }
                match v.k {
                    Some(KV::Int(n)) => self.konst(KV::Int(wrap(-n)), Ty::Int),
                    Some(KV::Real(x)) => self.konst(KV::Real(-x), Ty::Real),
                    _ if v.ty == Ty::Int => V::scalar(ee::int_neg(&v.c), Ty::Int),
                    _ => V::scalar(ee::real_neg(&v.c), v.ty),
                }
            }
            UnaryOp::Not => {
                let v = self.expr(operand);
                match (&v.ty, &v.k) {
                    (Ty::Bool, Some(KV::Bool(b))) => self.konst(KV::Bool(!b), Ty::Bool),
                    (Ty::Bool, _) => V::scalar(ee::not(&v.c, false), Ty::Bool),
                    (Ty::Int, Some(KV::Int(n))) => self.konst(KV::Int(!n), Ty::Int),
                    (Ty::Int, _) => V::scalar(ee::not(&v.c, true), Ty::Int),
                    (Ty::Error, _) => V::err(),
                    _ => {
                        self.error(span, format!("NOT operand is not bool or int ({})", self.types.show(&v.ty)));
                        V::err()
                    }
                }
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let v = self.expr(operand);
                if !v.lv {
                    let form = match op {
                        UnaryOp::PreInc => "++expr",
                        UnaryOp::PreDec => "--expr",
                        UnaryOp::PostInc => "expr++",
                        _ => "expr--",
                    };
                    self.error(span, format!("{}: not a variable", form));
                    return V::err();
                }
                let o = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) { "++" } else { "--" };
                let pre = matches!(op, UnaryOp::PreInc | UnaryOp::PreDec);
                match &v.ty {
                    Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Real => {
                        V::scalar(ee::inc_dec(&v.c, o == "++", pre), v.ty.clone())
                    }
                    Ty::Ptr(t) => {
                        let sz = self.types.size_of(t).unwrap_or(1);
                        let c = if pre {
                            ee::ptr_step(&v.c, o == "++", sz)
                        } else {
                            let tmp = self.tmp();
                            ee::ptr_step_post(&tmp, &v.c, o == "++", sz)
                        };
                        V::scalar(c, v.ty.clone())
                    }
                    Ty::Error => V::err(),
                    _ => {
                        self.error(span, format!("increment/decrement: not an ordered type ({} needs an int, char, enum, real or pointer variable)", o));
                        V::err()
                    }
                }
            }
            UnaryOp::AddrOf => {
                let v = self.expr(operand);
                if !v.lv {
                    self.error(span, "object of `@' is not a variable");
                    return V::err();
                }
                let c = ee::addr_of(&v.c, v.form == Form::Blob);
                V::scalar(c, Ty::Ptr(Box::new(v.ty)))
            }
            UnaryOp::Deref => {
                let v = self.expr(operand);
                self.deref(v, span)
            }
            UnaryOp::Pending => {
                let _ = span;
                self.pending(operand)
            }
        }
    }
}

pub(super) use crate::emit::expr::null_cap;
