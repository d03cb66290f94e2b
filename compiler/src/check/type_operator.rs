//! type_operator: the operators' type rules -- which operand types each
//! operator takes, the type of the result, and the error (in MPD 1.0.1's
//! words) when the operands do not fit.  type_of.rs's rules use them for
//! the nodes of operators, type_const.rs for folding, and assign.rs for a
//! compound assignment's operator; operator.rs only emits what they passed.
use super::scope::Sym;
use super::types::Ty;
use super::Checker;
use crate::syntax::ast::{BinaryOp, Expr, UnaryOp};

impl<'a> Checker<'a> {
    /// The type `a op b` has for operands of types `a` and `b` (folding
    /// keeps it, but for `||`'s length): checked as for variables.
    pub(super) fn operands_type(&self, op: BinaryOp, a: Ty, b: Ty) -> Ty {
        use BinaryOp::*;
        if a == Ty::Error || b == Ty::Error {
            return Ty::Error;
        }
        match op {
            Concat => {
                let ok = |t: &Ty| t.is_string() || *t == Ty::Char;
                if ok(&a) && ok(&b) {
                    Ty::Str(None)
                } else {
                    Ty::Error
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge if self.comparable(op, &a, &b) => Ty::Bool,
            Eq | Ne | Lt | Le | Gt | Ge => Ty::Error,
            _ => arith_type(op, a, b),
        }
    }

    /// The error of `a op b`, neither operand an error (None: accepted).
    /// `noop`: one operand is `noop` and the other a pointer, which MPD
    /// 1.0.1 rejects though the types compare (the result is still a bool).
    pub(super) fn operator_error(&self, op: BinaryOp, a: &Ty, b: &Ty, noop: bool) -> Option<String> {
        use BinaryOp::*;
        let (sa, sb) = (self.types.show(a), self.types.show(b));
        let ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
        if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
            return self.comparison_error(op, a, b, noop);
        }
        if self.operands_type(op, a.clone(), b.clone()) != Ty::Error {
            return None;
        }
        Some(match op {
            Concat => format!("non-string concatenation ({} || {})", sa, sb),
            Shl | Shr => format!("non-integer shift operand ({})", op.as_str()),
            And | Or | Xor => format!("illegal or mismatched and/or/xor operands ({} and {})", sa, sb),
            _ => {
                let what = match op {
                    Pow => "non-numeric exponentiation operand",
                    Sub if ptr(a) || ptr(b) => "incompatible pointer subtraction",
                    _ => "non-numeric arithmetic operand",
                };
                format!("{}: operator {} needs int or real operands, not {} and {}", what, op.as_str(), sa, sb)
            }
        })
    }

    /// The error of the comparison `a op b` (operator_error's).
    fn comparison_error(&self, op: BinaryOp, a: &Ty, b: &Ty, noop: bool) -> Option<String> {
        let (sa, sb) = (self.types.show(a), self.types.show(b));
        // arrays (char arrays too) and records are not compared (MPD 1.0.1)
        if matches!(a, Ty::Arr(..) | Ty::Rec(_)) || matches!(b, Ty::Arr(..) | Ty::Rec(_)) {
            // an array with null (a cap array) or a scalar: both of MPD's words
            let what = if self.types.same(a, b) { "" } else { "incompatible comparison; " };
            return Some(format!(
                "{}illegal type for comparison: cannot compare {} with {} (compare elements or fields)",
                what, sa, sb
            ));
        }
        let ordered = (a.is_string() && b.is_string()) || (a.is_numeric() && b.is_numeric());
        if noop && !ordered {
            // noop names no operation: a pointer compares with null
            return Some("can't use `noop' in pointer context (use null)".into());
        }
        if self.comparable(op, a, b) {
            return None;
        }
        let what = if self.types.same(a, b) && self.caps_comparable(a, b) {
            "illegal comparison for unordered type"
        } else {
            "incompatible comparison"
        };
        Some(format!("{}: cannot compare {} with {} using {}", what, sa, sb, op.as_str()))
    }

    /// Whether `a op b` is a comparison MPD accepts: strings, numbers,
    /// chars, bools and enumerations of one type; pointers, files and
    /// capabilities for equality only.
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
            (Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File, Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File) => {
                eq && self.ptrs_comparable(a, b)
            }
            (Ty::Cap(_) | Ty::Null, Ty::Cap(_) | Ty::Null) => eq && self.caps_comparable(a, b),
            _ => false,
        }
    }

    /// Pointers compare when they point to the same type, or either is a
    /// `ptr any` (at any depth: `ptr ptr any` with `ptr ptr int`), or one is
    /// null; a file only with a file or null (MPD 1.0.1: "incompatible
    /// comparison" for `ptr int` with `ptr real`, or with `stdin`).
    fn ptrs_comparable(&self, a: &Ty, b: &Ty) -> bool {
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

    fn caps_comparable(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            // a sem compares with an op `() {send}` only (Types::cap_compat)
            (Ty::Cap(x), Ty::Cap(y)) => self.types.cap_compat(x, y) || self.types.cap_compat(y, x),
            _ => true,
        }
    }

    /// The error of the unary operator node `op operand`, the operand of
    /// type `t` (None: accepted, or the operand's own error stands).  `?op`
    /// has the rules of the designators (op_target.rs).
    pub(super) fn unary_error(&mut self, op: UnaryOp, operand: &Expr, t: &Ty) -> Option<String> {
        let shown = self.types.show(t);
        match op {
            UnaryOp::Neg | UnaryOp::Plus if !t.is_numeric() => {
                Some(format!("unary +/- operand is not simple numeric ({})", shown))
            }
            UnaryOp::Not if !matches!(t, Ty::Bool | Ty::Int | Ty::Error) => {
                Some(format!("NOT operand is not bool or int ({})", shown))
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec if *t != Ty::Error => {
                let form = match op {
                    UnaryOp::PreInc => "++expr",
                    UnaryOp::PreDec => "--expr",
                    UnaryOp::PostInc => "expr++",
                    _ => "expr--",
                };
                let o = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) { "++" } else { "--" };
                if !self.is_variable(operand) {
                    Some(format!("{}: not a variable", form))
                } else if !matches!(t, Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Real | Ty::Ptr(_)) {
                    Some(format!("increment/decrement: not an ordered type ({} needs an int, char, enum, real or pointer variable)", o))
                } else {
                    None
                }
            }
            UnaryOp::AddrOf if *t != Ty::Error && !self.is_variable(operand) => {
                Some("object of `@' is not a variable".into())
            }
            UnaryOp::Deref => match t {
                // a pointer to a type named ahead that was never declared
                Ty::Ptr(inner) => match &**inner {
                    Ty::Fwd(n) if !matches!(self.lookup(n), Some(Sym::Type(_))) => {
                        Some(format!("`{}` is not a type", n))
                    }
                    _ => None,
                },
                Ty::Error => None,
                Ty::PtrAny => Some("cannot dereference a `ptr any'".into()),
                _ => Some(format!("dereference object is not a pointer ({})", shown)),
            },
            _ => None,
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
