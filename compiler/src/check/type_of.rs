//! type_of: the type of an expression, worked out without translating it.
//!
//! Some checks need an operand's type before its C is made (is the first
//! argument of write a file? are both slice bounds of one type?).  `type_of`
//! answers from the symbols and the type rules alone: it writes no C, reports
//! nothing and makes no temporaries, so the expression's own errors are
//! reported once, when it is translated.  It gives the type `expr` would give,
//! Ty::Error where `expr` would report an error.
//!
//! Constructs whose typing is still interleaved with their translation (calls,
//! create, new, assignments, `||`, `@x`, `x++`, `?op`, array constructors,
//! op capabilities) are typed by `probe`: translate into a
//! scratch buffer with messages muted, then drop the C.  Each rule moved here
//! shrinks that list.
use super::scope::Sym;
use super::types::{CapTy, Ty};
use super::{Checker, V};
use crate::syntax::ast::{self, BinaryOp, Expr, ExprKind, Subscript, UnaryOp};

impl<'a> Checker<'a> {
    /// The type of `e` as `expr(e)` would give it, without emitting code or
    /// messages.
    pub fn type_of(&mut self, e: &Expr) -> Ty {
        match &e.kind {
            ExprKind::Int(_) => Ty::Int,
            ExprKind::Real(_) => Ty::Real,
            ExprKind::Char(_) => Ty::Char,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Str(s) => Ty::Str(Some(s.len() as i64)),
            ExprKind::Null | ExprKind::Noop => Ty::Null,
            ExprKind::StdFile(_) => Ty::File,
            ExprKind::Ident(id) => self.ident_type(id).unwrap_or_else(|| self.probe(e).ty),
            ExprKind::Paren(inner) => self.type_of(inner),
            ExprKind::Field { base, name } => self.field_type(base, name).unwrap_or_else(|| self.probe(e).ty),
            ExprKind::Index { base, subs } => self.index_type(base, subs).unwrap_or_else(|| self.probe(e).ty),
            ExprKind::Unary { op, operand } => self.unary_type(*op, operand).unwrap_or_else(|| self.probe(e).ty),
            ExprKind::Binary { op, lhs, rhs } => self.binary_type(*op, lhs, rhs).unwrap_or_else(|| self.probe(e).ty),
            ExprKind::Type(_) => Ty::Error,
            ExprKind::Call { .. }
            | ExprKind::Low(_)
            | ExprKind::High(_)
            | ExprKind::Assign { .. }
            | ExprKind::Swap { .. }
            | ExprKind::ArrayCons(_)
            | ExprKind::New(_)
            | ExprKind::Create { .. } => self.probe(e).ty,
        }
    }

    /// The type of `e` by translating it into a scratch buffer with messages
    /// muted (its own errors are reported when it is translated for real).
    /// Only for the constructs type_of has no pure rule for yet.
    pub fn probe(&mut self, e: &Expr) -> V {
        self.probe_errors(e).0
    }

    /// `probe`, and whether translating `e` reported an error.
    pub fn probe_errors(&mut self, e: &Expr) -> (V, bool) {
        let saved = self.f.code.out.len();
        let mut scratch = crate::syntax::Diagnostics::new();
        std::mem::swap(self.diags, &mut scratch);
        let v = self.expr(e);
        std::mem::swap(self.diags, &mut scratch);
        self.f.code.out.truncate(saved);
        (v, scratch.has_errors())
    }

    /// A name: its variable's, constant's or enumeration's type; EOF and the
    /// predefined enumeration literals.  None: an op (typed by probe).
    fn ident_type(&mut self, id: &ast::Ident) -> Option<Ty> {
        Some(match self.lookup(&id.name).cloned() {
            Some(Sym::Var { ty, .. }) | Some(Sym::Const { ty, .. }) => ty,
            Some(Sym::EnumLit { e, .. }) => Ty::Enum(e),
            Some(Sym::Proc(s)) if s.op.is_some() => return None,
            Some(_) => Ty::Error,
            None => match id.name.as_str() {
                "EOF" => Ty::Int,
                "READ" | "WRITE" | "READWRITE" => Ty::Enum(self.predefined_enum("accessmode")),
                "ABSOLUTE" | "RELATIVE" | "EXTEND" => Ty::Enum(self.predefined_enum("seektype")),
                _ => Ty::Error,
            },
        })
    }

    /// `g.x` for a component g, `r.f` for a record (or a pointer to one).
    /// None: a resource capability's op (typed by probe).
    fn field_type(&mut self, base: &Expr, name: &ast::Ident) -> Option<Ty> {
        if let ExprKind::Ident(b) = &base.kind {
            if matches!(self.lookup(&b.name), Some(Sym::Type(_))) {
                return Some(Ty::Error);
            }
            if self.names_component(base) {
                return Some(match self.qualified(b, name) {
                    Some(Sym::Var { ty, .. }) | Some(Sym::Const { ty, .. }) => ty,
                    Some(Sym::EnumLit { e, .. }) => Ty::Enum(e),
                    _ => Ty::Error,
                });
            }
        }
        let bt = self.type_of(base);
        let bt = match bt {
            Ty::Ptr(inner) if matches!(*inner, Ty::Rec(_) | Ty::Fwd(_)) => self.pointee(*inner),
            t => t,
        };
        Some(match &bt {
            Ty::Cap(CapTy::Resource(_)) => return None,
            Ty::Rec(r) => match self.types.recs[*r].fields.iter().find(|f| f.0 == name.name) {
                Some((_, fty, _)) => fty.clone(),
                None => Ty::Error,
            },
            _ => Ty::Error,
        })
    }

    /// What a pointer to `inner` designates (a forward-named type resolved).
    fn pointee(&self, inner: Ty) -> Ty {
        match inner {
            Ty::Fwd(n) => match self.lookup(&n) {
                Some(Sym::Type(t)) => t.clone(),
                _ => Ty::Error,
            },
            t => t,
        }
    }

    /// `a[i, j]`, `s[i]`, slices `a[i:j]` and sections `a[*, 2]`: the element,
    /// or an array (string) of the elements.  None: an element of an op array
    /// (typed by probe).
    fn index_type(&mut self, base: &Expr, subs: &[Subscript]) -> Option<Ty> {
        let mut root = base;
        while let ExprKind::Index { base: b2, .. } = &root.kind {
            root = b2;
        }
        match &root.kind {
            ExprKind::Ident(id) if matches!(self.lookup(&id.name), Some(Sym::Proc(s)) if s.op.is_some()) => {
                return None
            }
            ExprKind::Field { base: rb, .. } if !self.names_component(rb) => {
                if matches!(self.type_of(rb), Ty::Cap(CapTy::Resource(_))) {
                    return None;
                }
            }
            _ => {}
        }
        let mut ty = self.type_of(base);
        if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) {
            let rank = super::index::slice_rank(&ty);
            if rank > 0 && subs.len() > rank {
                return Some(Ty::Error);
            }
        }
        for (k, s) in subs.iter().enumerate() {
            if matches!(s, Subscript::Slice { .. }) && k + 1 < subs.len() && matches!(ty, Ty::Arr(..)) {
                return Some(section_type(ty, &subs[k..]));
            }
            let slice = matches!(s, Subscript::Slice { .. });
            ty = match ty {
                Ty::Arr(e, _, _) if slice => Ty::Arr(e, None, None),
                Ty::Arr(e, _, _) => *e,
                Ty::Str(_) if slice => Ty::Str(None),
                Ty::Str(_) => Ty::Char,
                _ => Ty::Error,
            };
        }
        Some(ty)
    }

    /// `-x`, `+x`, `not x`, `p^`.  None: the others (typed by probe).
    fn unary_type(&mut self, op: UnaryOp, operand: &Expr) -> Option<Ty> {
        Some(match op {
            UnaryOp::Neg | UnaryOp::Plus => match self.type_of(operand) {
                t if t.is_numeric() => t,
                _ => Ty::Error,
            },
            UnaryOp::Not => match self.type_of(operand) {
                t @ (Ty::Bool | Ty::Int) => t,
                _ => Ty::Error,
            },
            UnaryOp::Deref => match self.type_of(operand) {
                Ty::Ptr(inner) => self.pointee(*inner),
                _ => Ty::Error,
            },
            _ => return None,
        })
    }

    /// Arithmetic, shifts, and/or/xor and comparisons (operator.rs's
    /// `binary_typed`; folding two constants gives the same type).  None:
    /// `||` (a folded string has its length in its type) and ints compared
    /// with enums (typed by probe: `binary` folds two constants before it
    /// checks their types, so constness decides).
    fn binary_type(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Option<Ty> {
        use BinaryOp::*;
        if op == Concat {
            return None;
        }
        let (a, b) = (self.type_of(lhs), self.type_of(rhs));
        if a == Ty::Error || b == Ty::Error {
            return Some(Ty::Error);
        }
        if !matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
            return Some(arith_type(op, a, b));
        }
        if self.comparable(op, &a, &b) {
            return Some(Ty::Bool);
        }
        let int_like = |t: &Ty| matches!(t, Ty::Int | Ty::Enum(_));
        if int_like(&a) && int_like(&b) {
            return None;
        }
        Some(Ty::Error)
    }

    /// Whether `a op b` is a comparison `compare` accepts (the same rules).
    pub(crate) fn comparable(&self, op: BinaryOp, a: &Ty, b: &Ty) -> bool {
        use BinaryOp::*;
        if *a == Ty::Error || *b == Ty::Error {
            return false;
        }
        if matches!(a, Ty::Arr(..) | Ty::Rec(_)) || matches!(b, Ty::Arr(..) | Ty::Rec(_)) {
            return false;
        }
        let stringy = |t: &Ty| t.is_string();
        if stringy(a) && stringy(b) {
            return true;
        }
        if a.is_numeric() && b.is_numeric() {
            return true;
        }
        let eq = matches!(op, Eq | Ne);
        match (a, b) {
            (Ty::Char, Ty::Char) | (Ty::Bool, Ty::Bool) | (Ty::Enum(_), Ty::Enum(_)) => self.types.same(a, b),
            (Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File, Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File) => eq,
            (Ty::Cap(_) | Ty::Null, Ty::Cap(_) | Ty::Null) => eq,
            _ => false,
        }
    }
}

/// The type of `a op b` for the operators other than `||` and comparisons,
/// neither operand an error: pointer arithmetic (ptr +/- int, int + ptr,
/// ptr - ptr), int or real arithmetic, int shifts, bool or int and/or/xor.
fn arith_type(op: BinaryOp, a: Ty, b: Ty) -> Ty {
    use BinaryOp::*;
    let is_ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
    match op {
        Add | Sub | Mul | Div | Pow | Rem | Mod => match (&a, &b) {
            (Ty::Ptr(_), Ty::Int) if matches!(op, Add | Sub) => a,
            (Ty::Int, Ty::Ptr(_)) if op == Add => b,
            _ if is_ptr(&a) && is_ptr(&b) && op == Sub => Ty::Int,
            _ if !a.is_numeric() || !b.is_numeric() => Ty::Error,
            (Ty::Int, Ty::Int) => Ty::Int,
            _ => Ty::Real,
        },
        Shl | Shr if a == Ty::Int && b == Ty::Int => Ty::Int,
        And | Or | Xor if a == b && matches!(a, Ty::Bool | Ty::Int) => a,
        _ => Ty::Error,
    }
}

/// The type of a section `a[*, 2]` from its first slice on: the dimensions
/// sliced stay (unbounded), the ones indexed go.
fn section_type(mut ty: Ty, subs: &[Subscript]) -> Ty {
    let mut shape = Vec::new();
    for s in subs {
        ty = match ty {
            Ty::Arr(e, _, _) => *e,
            _ => return Ty::Error,
        };
        shape.push(matches!(s, Subscript::Slice { .. }));
    }
    for sl in shape.iter().rev() {
        if *sl {
            ty = Ty::Arr(Box::new(ty), None, None);
        }
    }
    ty
}
