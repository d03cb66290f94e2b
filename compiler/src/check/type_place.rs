//! type_place: what an expression designates, worked out without
//! translating it -- whether it is a variable (`V::lv`: getarg's and read's
//! destinations, `@x`, `x++`) and the capability type of an op.
use super::resolved::Resolved;
use super::scope::{ProcSig, Sym};
use super::types::{CapTy, Ty};
use super::Checker;
use crate::syntax::ast::{Expr, ExprKind, Subscript, UnaryOp};
use std::rc::Rc;

impl<'a> Checker<'a> {
    /// Whether `expr(e)` gives a variable (its `lv`), for an `e` of a type
    /// (the rules ask only then).
    pub(super) fn is_variable(&mut self, e: &Expr) -> bool {
        self.place(e).0
    }

    /// (`lv`, whether the value is a blob in place) of `expr(e)`: a name of
    /// an assignable variable, a field or element of a variable, `p^`, a
    /// slice of a variable array or string.
    fn place(&mut self, e: &Expr) -> (bool, bool) {
        if let Some(p) = self.typed.get(e.id, &self.types).and_then(|n| n.place) {
            return p;
        }
        let s = self.typed_stamp();
        let p = self.place_rules(e);
        self.typed_keep(e.id, s, |n| n.place = Some(p));
        p
    }

    /// `place` by the rules.
    fn place_rules(&mut self, e: &Expr) -> (bool, bool) {
        // a variable of an erroneous type (its declaration was reported) is one still
        let ty = self.type_of(e);
        match &e.kind {
            ExprKind::Ident(_) => match self.resolution(e) {
                Resolved::Var { assignable, ty, .. } => (assignable, ty.is_blob()),
                _ => (false, false),
            },
            ExprKind::Field { base, .. } => {
                if self.names_component(base) {
                    return match self.resolution(e) {
                        Resolved::Member(m) => match *m {
                            Resolved::Var { assignable, ty, .. } => (assignable, ty.is_blob()),
                            _ => (false, false),
                        },
                        _ => (false, false),
                    };
                }
                // r.f of a record variable, or through a pointer to a record
                let lv = match self.type_of(base) {
                    Ty::Ptr(inner) if matches!(*inner, Ty::Rec(_) | Ty::Fwd(_)) => true,
                    Ty::Rec(_) => self.place(base).0,
                    _ => false,
                };
                (lv, ty.is_blob())
            }
            ExprKind::Index { base, subs } => self.index_place(e, base, subs),
            ExprKind::Unary { op: UnaryOp::Deref, .. } => (true, ty.is_blob()),
            _ => (false, false),
        }
    }

    /// `place` of `base[subs]` (index.rs): an element keeps its array's
    /// `lv`; a character of a string variable is one; a slice or section of
    /// a variable is one; a constant string's character is a constant.
    fn index_place(&mut self, e: &Expr, base: &Expr, subs: &[Subscript]) -> (bool, bool) {
        if self.op_elem_root(base) || self.const_of(e).is_some() {
            return (false, false);
        }
        let (mut lv, mut blob) = self.place(base);
        let mut ty = self.type_of(base);
        for (k, s) in subs.iter().enumerate() {
            let slice = matches!(s, Subscript::Slice { .. });
            if slice && k + 1 < subs.len() && matches!(ty, Ty::Arr(..)) {
                return (lv, true);
            }
            (lv, blob, ty) = match ty {
                Ty::Arr(_, _, _, _) if slice => (lv, true, Ty::Error),
                Ty::Arr(e, _, _, _) => (lv, e.is_blob(), *e),
                Ty::Str(_) if slice => (lv && blob, false, Ty::Error),
                Ty::Str(_) => (lv && blob, false, Ty::Char),
                _ => (false, false, Ty::Error),
            };
        }
        (lv, blob)
    }

    /// Whether `base` (of `base[...]`) leads to an op array (of this
    /// component, or of a resource capability: rc.f[i]).
    pub(super) fn op_elem_root(&mut self, base: &Expr) -> bool {
        let mut root = base;
        while let ExprKind::Index { base: b2, .. } = &root.kind {
            root = b2;
        }
        match &root.kind {
            ExprKind::Ident(_) => matches!(self.resolution(root), Resolved::Op(_)),
            ExprKind::Field { base: rb, .. } if !self.names_component(rb) => {
                matches!(self.type_of(rb), Ty::Cap(CapTy::Resource(_)))
            }
            _ => false,
        }
    }

    /// The capability type of op `sig` (op_cap_value): a semaphore's, or an
    /// op's of its signature (registered in the type table).
    pub(super) fn op_cap_type(&mut self, sig: &ProcSig) -> Ty {
        let r = sig.op.as_ref().unwrap();
        if r.sem {
            Ty::Cap(CapTy::Sem)
        } else {
            Ty::Cap(CapTy::Op(self.sig_index(sig)))
        }
    }

    /// The op that invoking (or `?`) `e` reaches (op_target): an op by its
    /// name (not a whole op array, not another resource's op named bare),
    /// an element of an op array (one subscript per dimension), g.f, rc.f,
    /// rc.f[i], or the op a capability designates.
    pub(super) fn target_op(&mut self, e: &Expr) -> Option<TargetOp> {
        // an external through a capability is no op (op_target_for)
        if matches!(self.resolution(e), Resolved::ResCapOp { sig } if sig.external) {
            return None;
        }
        match &e.kind {
            ExprKind::Ident(_) => {
                let r = self.resolution(e);
                match self.callee_sig(&r) {
                    Some(sig) => self.named_op(&sig, 0),
                    None if matches!(r, Resolved::Var { .. }) => self.cap_target_op(e),
                    None => None,
                }
            }
            ExprKind::Index { .. } => {
                let (mut root, mut n) = (e, 0);
                while let ExprKind::Index { base, subs } = &root.kind {
                    if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) {
                        return None;
                    }
                    n += subs.len();
                    root = base;
                }
                if !matches!(root.kind, ExprKind::Ident(_) | ExprKind::Field { .. }) {
                    return self.cap_target_op(e);
                }
                let r = self.resolution(root);
                if let Some(sig) = self.callee_sig(&r) {
                    return self.named_op(&sig, n);
                }
                match r {
                    Resolved::Member(m) => match *m {
                        Resolved::Op(sig) | Resolved::Proc(sig) => self.named_op(&sig, n),
                        _ => self.cap_target_op(e),
                    },
                    Resolved::ResCapOp { sig } => {
                        let array = sig.op.as_ref().is_some_and(|r| !r.dims.is_empty());
                        if array && n == 1 {
                            Some(TargetOp::of(&sig))
                        } else {
                            None
                        }
                    }
                    _ => self.cap_target_op(e),
                }
            }
            ExprKind::Field { base, .. } => match self.resolution(e) {
                Resolved::Member(m) if matches!(&base.kind, ExprKind::Ident(b) if matches!(self.lookup(&b.name), Some(Sym::Comp(_)))) =>
                {
                    match *m {
                        Resolved::Op(sig) | Resolved::Proc(sig) => {
                            let r = sig.op.as_ref()?;
                            // an op array named whole is not one op (op_target.rs)
                            let one = r.dims.is_empty() && self.op_reachable_here(r);
                            if one {
                                Some(TargetOp::of(&sig))
                            } else {
                                None
                            }
                        }
                        _ => self.cap_target_op(e),
                    }
                }
                Resolved::ResCapOp { sig } if sig.op.as_ref().is_some_and(|r| !r.dims.is_empty()) => None,
                Resolved::ResCapOp { sig } => Some(TargetOp::of(&sig)),
                _ => self.cap_target_op(e),
            },
            _ => self.cap_target_op(e),
        }
    }

    /// An op by its name, with `n` subscripts (one per dimension of an op
    /// array, none for a single op).
    fn named_op(&mut self, sig: &Rc<ProcSig>, n: usize) -> Option<TargetOp> {
        let r = sig.op.as_ref()?;
        // op_subscripts: a single op takes no subscript
        let fits = if n == 0 { r.dims.is_empty() } else { n == r.dims.len() };
        if !fits || !self.op_reachable_here(r) {
            return None;
        }
        Some(TargetOp::of(sig))
    }

    /// The op a capability value designates (cap_target).
    fn cap_target_op(&mut self, e: &Expr) -> Option<TargetOp> {
        match self.type_of(e) {
            Ty::Cap(CapTy::Op(k)) => {
                let s = &self.types.sigs[k];
                Some(TargetOp { nparams: s.params.len(), ret: s.ret.clone(), no_call: s.no_call, sem: false })
            }
            Ty::Cap(CapTy::Sem) => Some(TargetOp { nparams: 0, ret: Ty::Void, no_call: false, sem: true }),
            _ => None,
        }
    }
}

/// What the type rules need of an op reached by an invocation.
pub(super) struct TargetOp {
    pub nparams: usize,
    pub ret: Ty,
    pub no_call: bool,
    pub sem: bool,
}

impl TargetOp {
    fn of(sig: &ProcSig) -> TargetOp {
        let r = sig.op.as_ref();
        TargetOp {
            nparams: sig.params.len(),
            ret: sig.ret.clone(),
            no_call: r.is_some_and(|r| r.no_call),
            sem: r.is_some_and(|r| r.sem),
        }
    }
}
