//! konst: compile-time constant values and folding of operators on them.
use crate::syntax::ast::BinaryOp;

#[derive(Clone, Debug, PartialEq)]
pub enum KV {
    Int(i64),
    Real(f64),
    Bool(bool),
    Char(u8),
    Str(Vec<u8>),
}

/// Wraps to MPD's 32-bit int.
pub fn wrap(v: i64) -> i64 {
    v as i32 as i64
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
        (Pow, Int(x), Int(y)) if *y >= 0 && *y < 64 => {
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
        (Concat, Str(x), Str(y)) => Str([x.as_slice(), y.as_slice()].concat()),
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
        assert_eq!(fold(BinaryOp::Lt, &KV::Str(b"ab".to_vec()), &KV::Str(b"b".to_vec())), Some(KV::Bool(true)));
    }
}
