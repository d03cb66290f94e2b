//! compile_time: which constant expressions MPD 1.0.1 evaluates while
//! compiling.
//!
//! Our constant evaluator (`konst`) knows the value of more expressions than
//! MPD 1.0.1 does: MPD folds only literals, named constants whose value it
//! folded, enumeration literals, the conversions int/real/char/bool/enum,
//! unary `+ - not` and the binary `+ - * / % << >> and or xor`.  Where MPD
//! needs a value at compile time (the bounds and string lengths of a spec, a
//! record or a type declaration) anything else -- `**`, `mod`, comparisons,
//! `min`, `abs`, `length`, `low`, `ub`... -- is "non-constant" there, even
//! when its value is known.  Elsewhere such a constant is just read-only.
use super::scope::Sym;
use super::Checker;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, TypeKind, UnaryOp};

impl<'a> Checker<'a> {
    /// Whether MPD 1.0.1 folds `e` to a literal at compile time.
    pub(crate) fn mpd_folds(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Real(_) | ExprKind::Char(_) | ExprKind::Bool(_) | ExprKind::Str(_) => true,
            ExprKind::Paren(inner) => self.mpd_folds(inner),
            ExprKind::Ident(id) => match self.lookup(&id.name) {
                Some(Sym::Const { folds, .. }) => *folds,
                Some(Sym::EnumLit { .. }) => true,
                _ => false,
            },
            // an imported constant (`r.n`) comes folded from its component
            ExprKind::Field { base, name } => match &base.kind {
                ExprKind::Ident(b) if matches!(self.lookup(&b.name), Some(Sym::Comp(_))) => {
                    let _ = name;
                    true
                }
                _ => false,
            },
            ExprKind::Unary { op: UnaryOp::Neg | UnaryOp::Plus | UnaryOp::Not, operand } => self.mpd_folds(operand),
            ExprKind::Binary { op, lhs, rhs } => {
                use BinaryOp::*;
                matches!(op, Add | Sub | Mul | Div | Rem | Shl | Shr | And | Or | Xor)
                    && self.mpd_folds(lhs)
                    && self.mpd_folds(rhs)
            }
            ExprKind::Call { callee, args } if args.len() == 1 => {
                self.is_conversion(callee) && self.mpd_folds(&args[0])
            }
            _ => false,
        }
    }

    /// `int`, `real`, `char`, `bool` or an enumeration's name as a callee.
    fn is_conversion(&self, callee: &Expr) -> bool {
        match &callee.kind {
            ExprKind::Type(t) => {
                matches!(t.kind, TypeKind::Int | TypeKind::Real | TypeKind::Double | TypeKind::Char | TypeKind::Bool)
            }
            ExprKind::Ident(id) => {
                matches!(self.lookup(&id.name), Some(Sym::Type(super::types::Ty::Enum(_))))
            }
            _ => false,
        }
    }
}
