//! type_of_effect: the pure type rules of the expressions that act --
//! assignments, swap, create, new, `low`/`high` and array constructors.
//! Each rule says which translation it mirrors.
use super::types::{CapTy, Ty};
use super::Checker;
use crate::syntax::ast::{self, AssignOp, BinaryOp, Expr, ExprKind, Subscript, TypeKind};

impl<'a> Checker<'a> {
    /// `x := e`, `x op:= e` (assign.rs's `assign_expr`): the variable's
    /// type; rc.f := e and rc.f[i] := e give the op's capability.  An error
    /// for a value that is not one, a target that is not a variable, `||=`
    /// on what is not a string, arithmetic on what is not a number.
    pub(super) fn assign_type(&mut self, e: &Expr, op: AssignOp, lhs: &Expr, rhs: &Expr) -> Ty {
        if let Some(what) = self.not_a_value(rhs) {
            // `c = abs`, `c = r`: MPD 1.0.1 calls it an incompatible assignment
            self.rule_error(e, rhs.span, format!("incompatible assignment ({})", what));
            return Ty::Error;
        }
        let t = self.type_of(lhs);
        if op == AssignOp::Plain && self.op_cap_target(lhs) {
            return t;
        }
        if t == Ty::Error || !self.is_variable(lhs) {
            return Ty::Error;
        }
        if let AssignOp::Compound(b) = op {
            if b == BinaryOp::Concat && !t.is_string() {
                return Ty::Error;
            }
            // compound_not_numeric, then the operator's own rules
            let r = self.type_of(rhs);
            let arith = matches!(b, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div)
                || matches!(b, BinaryOp::Rem | BinaryOp::Mod | BinaryOp::Pow);
            let ptr_step = matches!(t, Ty::Ptr(_)) && r == Ty::Int && matches!(b, BinaryOp::Add | BinaryOp::Sub);
            if arith && r != Ty::Error && !(t.is_numeric() && r.is_numeric()) && !ptr_step {
                return Ty::Error;
            }
        }
        t
    }

    /// Whether `lhs` is `rc.f` or `rc.f[i]`, an op slot of a resource
    /// capability (assign_op_field, assign_op_elem).
    fn op_cap_target(&mut self, lhs: &Expr) -> bool {
        match &lhs.kind {
            ExprKind::Index { base, .. } => {
                let mut root = base.as_ref();
                while let ExprKind::Index { base: b2, .. } = &root.kind {
                    root = b2;
                }
                matches!(&root.kind, ExprKind::Field { base: rb, .. }
                    if !self.names_component(rb) && matches!(self.type_of(rb), Ty::Cap(CapTy::Resource(_))))
            }
            ExprKind::Field { base, .. } => {
                !self.names_component(base) && matches!(self.type_of(base), Ty::Cap(CapTy::Resource(_)))
            }
            _ => false,
        }
    }

    /// `a :=: b` (assign.rs's `swap`): a's type, when each is assignable to
    /// the other and both are variables, neither a slice.
    /// An error, in MPD 1.0.1's order: types, then slices, then variables.
    pub(super) fn swap_type(&mut self, e: &Expr, lhs: &Expr, rhs: &Expr) -> Ty {
        let (a, b) = (self.type_of(lhs), self.type_of(rhs));
        if a == Ty::Error || b == Ty::Error {
            return Ty::Error;
        }
        let m = if !self.types.assignable(&a, &b) || !self.types.assignable(&b, &a) {
            let (sa, sb) = (self.types.show(&a), self.types.show(&b));
            Some(format!("incompatible swap (cannot swap a {} with a {})", sa, sb))
        } else if self.slice_of_variable(lhs) || self.slice_of_variable(rhs) {
            Some("cannot swap into or out of a slice".to_string())
        } else if !self.is_variable(lhs) || !self.is_variable(rhs) {
            Some("both sides of swap operator must be variables".to_string())
        } else {
            None
        };
        if let Some(m) = m {
            self.rule_error(e, e.span, m);
            return Ty::Error;
        }
        let sliced = |e: &Expr| matches!(&e.kind, ExprKind::Index { subs, .. } if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })));
        if sliced(lhs) || sliced(rhs) || !self.is_variable(lhs) || !self.is_variable(rhs) {
            return Ty::Error;
        }
        a
    }

    /// Whether `e` is a slice or section of a variable (parenthesized or
    /// not): what assigning to it would change.
    fn slice_of_variable(&mut self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Paren(inner) => self.slice_of_variable(inner),
            ExprKind::Index { subs, .. } if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) => {
                self.is_variable(e)
            }
            _ => false,
        }
    }

    /// `create r(args)` (invoke.rs's `create`): a capability for r, r a
    /// resource compiled before (or this one) given its parameters;
    /// `create vm()`: a vm capability.
    pub(super) fn create_type(&mut self, target: &ast::CreateTarget, args: &[Expr]) -> Ty {
        let ast::CreateTarget::Resource(q) = target else { return Ty::Cap(CapTy::Vm) };
        let name = q.parts.last().unwrap().name.clone();
        if !self.comp_visible(&name) && self.ifaces.contains_key(&name) {
            return Ty::Error;
        }
        let nparams = match self.ifaces.get(&name) {
            Some(i) if i.global => return Ty::Error,
            Some(i) => i.params.len(),
            None if name == self.comp => self.res_params.len(),
            None => return Ty::Error,
        };
        if nparams != args.len() {
            return Ty::Error;
        }
        Ty::Cap(CapTy::Resource(name))
    }

    /// `new(T)` (expr.rs's `new_value`, `new_op_array`): an op capability
    /// for `new(op ...)`, `new(sem)`, `new(optype)`; an array of them for
    /// an array of those; else a pointer to a fresh T, whose size must be
    /// known (or given by its bounds).
    pub(super) fn new_type(&mut self, t: &ast::Type) -> Ty {
        let caps = |k: &TypeKind| matches!(k, TypeKind::Op(_) | TypeKind::Sem | TypeKind::Named(_));
        if let TypeKind::Array { elem, .. } = &t.kind {
            if caps(&elem.kind) {
                let ty = self.written_type_in(t, true);
                let mut leaf = &ty;
                while let Ty::Arr(e, _, _, _) = leaf {
                    leaf = e;
                }
                if matches!(leaf, Ty::Cap(CapTy::Sem | CapTy::Op(_))) {
                    return ty;
                }
            }
        }
        if self.star_in(t, &[]).is_some() {
            return Ty::Error;
        }
        let ty = self.written_type_in(t, true);
        if matches!(ty, Ty::Cap(CapTy::Op(_) | CapTy::Sem)) && caps(&t.kind) {
            return ty;
        }
        // bounds or a length computed at run time give the size
        let dynamic = match &t.kind {
            TypeKind::Array { .. } => true,
            TypeKind::String(Some(ast::Bound::Expr(_))) => matches!(ty, Ty::Str(None)),
            _ => false,
        };
        if ty == Ty::Error || self.types.size_of(&ty).is_none() && !dynamic {
            return Ty::Error;
        }
        Ty::Ptr(Box::new(ty))
    }

    /// `low(T)`, `high(T)` (expr.rs's `low_high`) of an ordered type or real.
    pub(super) fn low_high_type(&mut self, t: &ast::Type) -> Ty {
        match self.written_type(t) {
            ty @ (Ty::Int | Ty::Char | Ty::Bool | Ty::Real | Ty::Enum(_)) => ty,
            _ => Ty::Error,
        }
    }

    /// `[e1, n2 e2, ...]` (expr.rs's `array_cons`): an array of the first
    /// element's type (int when there is none), not null's.
    pub(super) fn cons_type(&mut self, elems: &[ast::ArrayElem]) -> Ty {
        let ety = match elems.first() {
            Some(el) => self.type_of(&el.value),
            None => Ty::Int,
        };
        if ety == Ty::Null {
            return Ty::Error;
        }
        Ty::arr(ety, None, None)
    }
}
