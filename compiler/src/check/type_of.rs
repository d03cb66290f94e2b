//! type_of: the type of an expression, worked out without translating it.
//!
//! Some checks need an operand's type before its C is made (is the first
//! argument of write a file? are both slice bounds of one type?).  `type_of`
//! answers from the symbols and the type rules alone: it writes no C, makes
//! no temporaries and declares nothing.  It gives the type `expr` would
//! give, Ty::Error where an error is reported (or the type `expr` gives
//! anyway).  A rule that rejects its node words the error (`rule_error`:
//! the operators, names, fields, swap, literals so far); it is reported
//! when the walk reaches the node (typed.rs's `checked`), once, whatever
//! asked first.  The only state it touches is the type table: a type
//! written in place (`new(rec(int i))`, an op's capability) gets an entry
//! there, as the predefined enumerations do.
//!
//! The rules live by kind: names, fields, subscripts and operators here;
//! invocations in type_of_call.rs; assignments, swap, create, new and array
//! constructors in type_of_effect.rs; types written in expressions in
//! type_written.rs; constant values (which `||` and folding need) in
//! type_const.rs; variables and the ops invocations reach in type_place.rs.  Each rule
//! says which translation it mirrors; type_audit.rs checks them against
//! `expr` (MPD_AUDIT_TYPES=1, and the compiler's unit tests).
use super::konst::KV;
use super::resolved::Resolved;
use super::scope::{ProcSig, Sym};
use super::types::{CapTy, Ty};
use super::Checker;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, Ident, Span, Subscript, UnaryOp};

impl<'a> Checker<'a> {
    /// The type of `e` as `expr(e)` would give it, without emitting code or
    /// messages: the typed table's, found by the rules the first time.
    pub fn type_of(&mut self, e: &Expr) -> Ty {
        if let Some(t) = self.typed.get(e.id, &self.types).and_then(|n| n.ty.clone()) {
            return t;
        }
        let s = self.typed_stamp();
        self.typed.forget_error(e.id);
        let t = self.type_rules(e);
        self.typed_keep(e.id, s, |n| n.ty = Some(t.clone()));
        t
    }

    /// `type_of` by the rules.
    fn type_rules(&mut self, e: &Expr) -> Ty {
        match &e.kind {
            ExprKind::Int(n) => {
                if *n > u32::MAX as i64 {
                    self.rule_error(e, e.span, "integer literal too large".into());
                }
                Ty::Int
            }
            ExprKind::Real(_) => Ty::Real,
            ExprKind::Char(_) => Ty::Char,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Str(s) => Ty::Str(Some(s.len() as i64)),
            ExprKind::Null | ExprKind::Noop => Ty::Null,
            ExprKind::StdFile(_) => Ty::File,
            ExprKind::Ident(id) => self.ident_type(e, id),
            ExprKind::Paren(inner) => self.type_of(inner),
            ExprKind::Field { base, name } => self.field_type(e, base, name),
            ExprKind::Index { base, subs } => self.index_type(e, base, subs),
            ExprKind::Unary { op, operand } => self.unary_type(e, *op, operand),
            ExprKind::Binary { op, lhs, rhs } => self.binary_type(e, *op, lhs, rhs),
            ExprKind::Type(t) => {
                self.rule_error(e, t.span, "a type is not a value here".into());
                Ty::Error
            }
            ExprKind::Call { callee, args } => self.call_type(e, callee, args),
            ExprKind::Low(t) | ExprKind::High(t) => self.low_high_type(t),
            ExprKind::Assign { op, lhs, rhs } => self.assign_type(e, *op, lhs, rhs),
            ExprKind::Swap { lhs, rhs } => self.swap_type(e, lhs, rhs),
            ExprKind::ArrayCons(elems) => self.cons_type(elems),
            ExprKind::New(t) => self.new_type(t),
            ExprKind::Create { target, args, .. } => self.create_type(target, args),
        }
    }

    /// A name (expr.rs's `ident`): its variable's, constant's or
    /// enumeration's type; an op's capability (op_cap_value), an error for
    /// another resource's op named bare; EOF and the predefined
    /// enumeration literals.  An error for a name that is no value here
    /// (an op's own errors are the designators', op_target.rs).
    fn ident_type(&mut self, e: &Expr, id: &Ident) -> Ty {
        let r = self.resolution(e);
        if let Some(m) = self.not_a_value_error(e, id, &r) {
            self.rule_error(e, id.span, m);
        }
        match r {
            Resolved::Var { ty, .. } | Resolved::Const { ty, .. } => ty,
            Resolved::EnumLit { e, .. } => Ty::Enum(e),
            // an op array named whole is an array of capabilities (op_array_value)
            Resolved::Op(s) if self.op_reachable_here(s.op.as_ref().unwrap()) => self.op_value_type(&s),
            _ => Ty::Error,
        }
    }

    /// An op's capability type, or an op array's array of them.
    fn op_value_type(&mut self, s: &ProcSig) -> Ty {
        if s.op.as_ref().unwrap().dims.is_empty() {
            self.op_cap_type(s)
        } else {
            self.op_array_value_type(s)
        }
    }

    /// Why the name `id` (node `e`), resolved to `r`, is no value, in MPD
    /// 1.0.1's words: a formal named in its own parameter list, a
    /// procedure, type or component, a predefined function not called, a
    /// name with no symbol.
    fn not_a_value_error(&self, e: &Expr, id: &Ident, r: &Resolved) -> Option<String> {
        Some(match r {
            Resolved::Var { .. } | Resolved::Const { .. } | Resolved::EnumLit { .. } | Resolved::Op(_) => return None,
            Resolved::NotValue(Sym::Formal) => format!("illegal reference to formal parameter {} (a parameter list's types and bounds cannot use its parameters)", id.name),
            Resolved::Proc(_) | Resolved::NotValue(_) | Resolved::Type(_) => format!("`{}` is not a value", id.name),
            Resolved::Predef(_) => {
                format!("illegal use of predefined function ({})", self.not_a_value(e).unwrap_or_default())
            }
            _ => self.undefined_words(&id.name),
        })
    }

    /// `g.x` for a component g (a variable, constant, literal or op),
    /// `r.f` for a record (or a pointer to one),
    /// `rc.f` for an op f of a resource capability rc: its capability
    /// (expr.rs's `field`).  An error for what has no such field or member
    /// (`field_error`).
    fn field_type(&mut self, e: &Expr, base: &Expr, name: &Ident) -> Ty {
        let r = self.resolution(e);
        if let Some((span, m)) = self.field_error(e, base, name, &r) {
            self.rule_error(e, span, m);
        }
        match r {
            Resolved::Member(m) => match *m {
                Resolved::Var { ty, .. } | Resolved::Const { ty, .. } => ty,
                Resolved::EnumLit { e, .. } => Ty::Enum(e),
                // `g.op`: as the op named alone (ident_type)
                Resolved::Op(s) if self.op_reachable_here(s.op.as_ref().unwrap()) => self.op_value_type(&s),
                _ => Ty::Error,
            },
            Resolved::ResCapOp { sig } if sig.op.is_some() => self.op_value_type(&sig),
            Resolved::RecField { rec, field } => self.types.recs[rec].fields[field].1.clone(),
            _ => Ty::Error,
        }
    }

    /// Why `base.name` (node `e`, resolved to `r`) is wrong, in MPD 1.0.1's
    /// words, and where: a type's field, a component member that is no
    /// value or not in its spec, a resource capability's missing op, a
    /// record's missing field, a field of what is no record.
    fn field_error(&mut self, e: &Expr, base: &Expr, name: &Ident, r: &Resolved) -> Option<(Span, String)> {
        if let ExprKind::Ident(b) = &base.kind {
            if matches!(self.lookup(&b.name), Some(Sym::Type(_))) {
                return Some((b.span, format!("not a variable: {} is a type", b.name)));
            }
            if self.names_component(base) {
                let m = match r {
                    Resolved::Member(m) => match **m {
                        Resolved::Var { .. } | Resolved::Const { .. } | Resolved::EnumLit { .. } => return None,
                        Resolved::Op(_) => return None,
                        _ => format!("`{}.{}` is not a value", b.name, name.name),
                    },
                    _ => format!(
                        "undefined identifier: {} (`{}` has no member of that name in its spec)",
                        name.name, b.name
                    ),
                };
                return Some((name.span, m));
            }
        }
        let t = self.type_of(base);
        let m = match (&t, r) {
            (Ty::Cap(CapTy::Resource(_)), Resolved::ResCapOp { sig }) if sig.op.is_some() => return None,
            (Ty::Cap(CapTy::Resource(rn)), _) => {
                format!("undefined identifier: {} (resource {} has no operation `{}`)", name.name, rn, name.name)
            }
            (Ty::Rec(_), Resolved::RecField { .. }) | (Ty::Error, _) => return None,
            (Ty::Rec(_), _) => format!("unknown field: {} (in {})", name.name, self.types.show(&t)),
            _ => {
                let m = format!("not a rec: `.{}` needs a record, not a {}", name.name, self.types.show(&t));
                return Some((e.span, m));
            }
        };
        Some((name.span, m))
    }

    /// What a pointer to `inner` designates (a forward-named type resolved).
    pub(super) fn type_of_pointee(&self, inner: Ty) -> Ty {
        match inner {
            Ty::Fwd(n) => match self.lookup(&n) {
                Some(Sym::Type(t)) => t.clone(),
                _ => Ty::Error,
            },
            t => t,
        }
    }

    /// `a[i, j]`, `s[i]`, slices `a[i:j]` and sections `a[*, 2]`: the element,
    /// or an array (string) of the elements (index.rs); an element of an op
    /// array, or of a resource capability's op array, is its capability
    /// (expr.rs's `index_value`).
    fn index_type(&mut self, e: &Expr, base: &Expr, subs: &[Subscript]) -> Ty {
        if self.op_elem_root(base) {
            return self.op_elem_type(e);
        }
        let mut ty = self.type_of(base);
        if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) {
            let rank = super::index::slice_rank(&ty);
            if rank > 0 && subs.len() > rank {
                return Ty::Error;
            }
        }
        for (k, s) in subs.iter().enumerate() {
            if matches!(s, Subscript::Slice { .. }) && k + 1 < subs.len() && matches!(ty, Ty::Arr(..)) {
                return section_type(ty, &subs[k..]);
            }
            let slice = matches!(s, Subscript::Slice { .. });
            ty = match ty {
                Ty::Arr(e, _, _, _) if slice => Ty::arr(*e, None, None),
                Ty::Arr(e, _, _, _) => *e,
                Ty::Str(_) if slice => Ty::Str(None),
                Ty::Str(_) => Ty::Char,
                _ => Ty::Error,
            };
        }
        ty
    }

    /// `f[i, j]` (f[i][j]) of an op array f, `rc.f[i]` of a resource
    /// capability's (op_elem_target, rescap_elem): the op's capability when
    /// there is one subscript per dimension and no slice.
    fn op_elem_type(&mut self, e: &Expr) -> Ty {
        let mut n = 0;
        let mut root = e;
        while let ExprKind::Index { base, subs } = &root.kind {
            if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) {
                return Ty::Error;
            }
            n += subs.len();
            root = base;
        }
        // a procedure whose heading is not elaborated is no op array
        let sig = match self.resolution(root) {
            Resolved::Op(sig) if self.op_reachable_here(sig.op.as_ref().unwrap()) => sig,
            Resolved::ResCapOp { sig } if sig.op.is_some() => sig,
            _ => return Ty::Error,
        };
        let r = sig.op.as_ref().unwrap();
        // a single op is no array (op_target.rs's op_subscripts)
        if r.dims.is_empty() || n != r.dims.len() {
            return Ty::Error;
        }
        self.op_cap_type(&sig)
    }

    /// `-x`, `+x`, `not x`, `p^` (operator.rs's `unary`); `++x`, `x--`...
    /// of an ordered, real or pointer variable; `@x` of a variable; `?op`
    /// of what an invocation could reach (input.rs's `pending`).
    /// An error for an operand the operator does not take
    /// (type_operator.rs).
    fn unary_type(&mut self, e: &Expr, op: UnaryOp, operand: &Expr) -> Ty {
        let t = self.type_of(operand);
        if let Some(m) = self.unary_error(op, operand, &t) {
            self.rule_error(e, e.span, m);
        }
        match op {
            UnaryOp::Neg | UnaryOp::Plus if t.is_numeric() => t,
            UnaryOp::Not if matches!(t, Ty::Bool | Ty::Int) => t,
            UnaryOp::Deref => match t {
                Ty::Ptr(inner) => self.type_of_pointee(*inner),
                _ => Ty::Error,
            },
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let ordered = matches!(t, Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Real | Ty::Ptr(_));
                if ordered && self.is_variable(operand) {
                    t
                } else {
                    Ty::Error
                }
            }
            UnaryOp::AddrOf if t != Ty::Error && self.is_variable(operand) => Ty::Ptr(Box::new(t)),
            UnaryOp::Pending if self.target_op(operand).is_some() => Ty::Int,
            _ => Ty::Error,
        }
    }

    /// Arithmetic, shifts, and/or/xor, comparisons and `||` (operator.rs's
    /// `binary`): a `||` of two constants is folded, its length in its type.
    /// An error for operands that do not fit the operator (type_operator.rs).
    fn binary_type(&mut self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Ty {
        let (a, b) = (self.type_of(lhs), self.type_of(rhs));
        if a != Ty::Error && b != Ty::Error {
            let ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
            let noop = ptr(&a) && is_noop(rhs) || ptr(&b) && is_noop(lhs);
            if let Some(m) = self.operator_error(op, &a, &b, noop) {
                self.rule_error(e, e.span, m);
            }
        }
        let t = self.operands_type(op, a, b);
        if op == BinaryOp::Concat && t != Ty::Error {
            // the operands' values (with their types: no second type_of of
            // the same operands, whose cost would double at each `||`)
            if let Some((KV::Str(s), _)) = self.const_binary(op, lhs, rhs) {
                return Ty::Str(Some(s.len() as i64));
            }
        }
        t
    }
}

/// The type of a section `a[*, 2]` from its first slice on: the dimensions
/// sliced stay (unbounded), the ones indexed go.
fn section_type(mut ty: Ty, subs: &[Subscript]) -> Ty {
    let mut shape = Vec::new();
    for s in subs {
        ty = match ty {
            Ty::Arr(e, _, _, _) => *e,
            _ => return Ty::Error,
        };
        shape.push(matches!(s, Subscript::Slice { .. }));
    }
    for sl in shape.iter().rev() {
        if *sl {
            ty = Ty::arr(ty, None, None);
        }
    }
    ty
}

/// Whether `e` is `noop` (parenthesized or not).
fn is_noop(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Noop => true,
        ExprKind::Paren(inner) => is_noop(inner),
        _ => false,
    }
}
