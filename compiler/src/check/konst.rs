//! konst: compile-time constant values and folding of operators on them.
use super::types::Ty;
use crate::syntax::ast::BinaryOp;

#[derive(Clone, Debug, PartialEq)]
pub enum KV {
    Int(i64),
    Real(f64),
    Bool(bool),
    Char(u8),
    Str(Vec<u8>),
}

/// The longest string `||` of constants folds to (the compiler's memory and
/// the C it writes grew exponentially with a chain of doubled constants).
pub const MAX_FOLDED_STRING: usize = 4096;

/// Wraps to MPD's 32-bit int.
pub fn wrap(v: i64) -> i64 {
    v as i32 as i64
}

/// Folds `x op y` of operands whose types passed the operator's rules: an
/// int with a real is a real, a char in `||` a string; with the type of the
/// value (a string's length in it).
pub fn fold_typed(op: BinaryOp, x: KV, y: KV) -> Option<(KV, Ty)> {
    let concat = op == BinaryOp::Concat;
    let (x, y) = match (&x, &y) {
        (KV::Int(i), KV::Real(_)) => (KV::Real(*i as f64), y),
        (KV::Real(_), KV::Int(j)) => (x, KV::Real(*j as f64)),
        (KV::Char(c), KV::Str(_)) if concat => (KV::Str(vec![*c]), y),
        (KV::Str(_), KV::Char(c)) if concat => (x, KV::Str(vec![*c])),
        (KV::Char(c), KV::Char(d)) if concat => (KV::Str(vec![*c]), KV::Str(vec![*d])),
        _ => (x, y),
    };
    let k = fold(op, &x, &y)?;
    let ty = match &k {
        KV::Int(_) => Ty::Int,
        KV::Real(_) => Ty::Real,
        KV::Bool(_) => Ty::Bool,
        KV::Char(_) => Ty::Char,
        KV::Str(s) => Ty::Str(Some(s.len() as i64)),
    };
    Some((k, ty))
}

/// Folds `a op b` when both are constants and the result is well defined.
pub fn fold(op: BinaryOp, a: &KV, b: &KV) -> Option<KV> {
    use BinaryOp::*;
    use KV::*;
    Some(match (op, a, b) {
        (Add, Int(x), Int(y)) => Int(wrap(x + y)),
        (Sub, Int(x), Int(y)) => Int(wrap(x - y)),
        (Mul, Int(x), Int(y)) => Int(wrap(x.wrapping_mul(*y))),
        (Div, Int(x), Int(y)) if *y != 0 => Int(wrap(x / y)),
        (Rem, Int(x), Int(y)) if *y != 0 => Int(wrap(x % y)),
        (Mod, Int(x), Int(y)) if *y != 0 => Int(wrap(((x % y) + y) % y)),
        // 0**0 is left to the run time, which aborts as MPD does
        (Pow, Int(x), Int(y)) if *y >= 0 && *y < 64 && !(*x == 0 && *y == 0) => {
            let mut r: i64 = 1;
            for _ in 0..*y {
                r = wrap(r.wrapping_mul(*x));
            }
            Int(r)
        }
        (Add, Real(x), Real(y)) => Real(x + y),
        (Sub, Real(x), Real(y)) => Real(x - y),
        (Mul, Real(x), Real(y)) => Real(x * y),
        (Div, Real(x), Real(y)) if *y != 0.0 => Real(x / y),
        (Shl, Int(x), Int(y)) if (0..32).contains(y) => Int(wrap(((*x as i32 as u32) << y) as i32 as i64)),
        (Shr, Int(x), Int(y)) if (0..32).contains(y) => Int(wrap((*x as i32 >> y) as i64)),
        (And, Bool(x), Bool(y)) => Bool(*x && *y),
        (Or, Bool(x), Bool(y)) => Bool(*x || *y),
        (Xor, Bool(x), Bool(y)) => Bool(x ^ y),
        (And, Int(x), Int(y)) => Int(x & y),
        (Or, Int(x), Int(y)) => Int(x | y),
        (Xor, Int(x), Int(y)) => Int(x ^ y),
        // a longer result is left to the run time: each use of a constant
        // is a C literal, and `||` of constants doubles a length per line
        (Concat, Str(x), Str(y)) if x.len() + y.len() <= MAX_FOLDED_STRING => {
            Str([x.as_slice(), y.as_slice()].concat())
        }
        (Eq | Ne | Lt | Le | Gt | Ge, _, _) => {
            let ord = match (a, b) {
                (Int(x), Int(y)) => x.cmp(y),
                (Char(x), Char(y)) => x.cmp(y),
                (Bool(x), Bool(y)) => x.cmp(y),
                (Str(x), Str(y)) => x.cmp(y),
                (Real(x), Real(y)) => x.partial_cmp(y)?,
                _ => return None,
            };
            use std::cmp::Ordering::*;
            Bool(match op {
                Eq => ord == Equal,
                Ne => ord != Equal,
                Lt => ord == Less,
                Le => ord != Greater,
                Gt => ord == Greater,
                _ => ord != Less,
            })
        }
        _ => return None,
    })
}

/// The scalar types a conversion `T(x)` of a constant can fold to.
pub enum ConvTo {
    Int,
    Real,
    Char,
    Bool,
    /// An enumeration with this many literals.
    Enum(usize),
}

/// Folds the conversion of constant `k` (MPD 1.0.1: int of a real truncates; a char
/// keeps the low 8 bits of a number whose other bits are all 0 or all 1; an enum
/// value is its index). None when the run-time conversion would abort, so that the
/// program keeps MPD's run-time message.
pub fn convert(to: ConvTo, k: &KV) -> Option<KV> {
    let as_int = match *k {
        KV::Int(n) => Some(n),
        KV::Char(c) => Some(c as i64),
        KV::Bool(b) => Some(b as i64),
        KV::Real(x) => Some(x.trunc()).filter(|t| (-2147483648.0..=2147483647.0).contains(t)).map(|t| t as i64),
        KV::Str(_) => None,
    };
    Some(match to {
        ConvTo::Int => KV::Int(as_int?),
        ConvTo::Real => KV::Real(if let KV::Real(x) = *k { x } else { as_int? as f64 }),
        ConvTo::Char => {
            let n = as_int?;
            if n >> 8 != 0 && n >> 8 != -1 {
                return None;
            }
            KV::Char(n as u8)
        }
        ConvTo::Bool => KV::Bool(if let KV::Real(x) = *k { x != 0.0 } else { as_int? != 0 }),
        ConvTo::Enum(len) => KV::Int(Some(as_int?).filter(|n| (0..len as i64).contains(n))?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn folding() {
        assert_eq!(fold(BinaryOp::Add, &KV::Int(2), &KV::Int(3)), Some(KV::Int(5)));
        assert_eq!(fold(BinaryOp::Div, &KV::Int(2), &KV::Int(0)), None);
        assert_eq!(fold(BinaryOp::Pow, &KV::Int(2), &KV::Int(10)), Some(KV::Int(1024)));
        assert_eq!(fold(BinaryOp::Mod, &KV::Int(-7), &KV::Int(3)), Some(KV::Int(2)));
        assert_eq!(fold(BinaryOp::Mod, &KV::Int(7), &KV::Int(-3)), Some(KV::Int(-2)));
        assert_eq!(fold(BinaryOp::Rem, &KV::Int(-3), &KV::Int(2)), Some(KV::Int(-1)));
        assert_eq!(fold(BinaryOp::Add, &KV::Int(2147483647), &KV::Int(1)), Some(KV::Int(-2147483648)));
        let long = KV::Str(vec![b'x'; MAX_FOLDED_STRING / 2 + 1]);
        assert_eq!(fold(BinaryOp::Concat, &long, &long), None);
        assert_eq!(fold(BinaryOp::Lt, &KV::Str(b"ab".to_vec()), &KV::Str(b"b".to_vec())), Some(KV::Bool(true)));
    }
    #[test]
    fn conversions() {
        assert_eq!(convert(ConvTo::Enum(4), &KV::Real(2.7)), Some(KV::Int(2)));
        assert_eq!(convert(ConvTo::Enum(4), &KV::Real(-0.5)), Some(KV::Int(0)));
        assert_eq!(convert(ConvTo::Enum(4), &KV::Int(4)), None);
        assert_eq!(convert(ConvTo::Char, &KV::Real(-1.9)), Some(KV::Char(255)));
        assert_eq!(convert(ConvTo::Char, &KV::Int(300)), None);
        assert_eq!(convert(ConvTo::Int, &KV::Real(3e10)), None);
        assert_eq!(convert(ConvTo::Real, &KV::Bool(true)), Some(KV::Real(1.0)));
        assert_eq!(convert(ConvTo::Bool, &KV::Real(0.5)), Some(KV::Bool(true)));
        assert_eq!(convert(ConvTo::Bool, &KV::Char(0)), Some(KV::Bool(false)));
    }
}
