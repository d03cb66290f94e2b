//! expr: the C for MPD's operators on ints, reals, strings and capabilities
//! (runtime/include/mpd/abi/lang.h).  The checker has typed and promoted the
//! operands; `p` is the position (`mpd_F, line`) of calls that can fail.
use crate::syntax::ast::BinaryOp;

/// `a op b` on ints: + - * wrap (computed unsigned, as MPD's 32-bit ints do);
/// / % mod ** are runtime calls that report division by zero and the like.
pub fn int_arith(op: BinaryOp, p: &str, a: &str, b: &str) -> String {
    use BinaryOp::*;
    match op {
        Add => format!("((int)((unsigned)({}) + (unsigned)({})))", a, b),
        Sub => format!("((int)((unsigned)({}) - (unsigned)({})))", a, b),
        Mul => format!("((int)((unsigned)({}) * (unsigned)({})))", a, b),
        Div => format!("mpd_int_div({}, {}, {})", p, a, b),
        Rem => format!("mpd_int_rem({}, {}, {})", p, a, b),
        Mod => format!("mpd_int_mod({}, {}, {})", p, a, b),
        _ => format!("mpd_int_pow({}, {}, {})", p, a, b),
    }
}

/// `a ** n`, a real raised to an int.
pub fn real_powi(p: &str, a: &str, n: &str) -> String {
    format!("mpd_real_powi({}, {}, {})", p, a, n)
}

/// `a op b` on reals: C's operators, runtime calls for % mod **.
pub fn real_arith(op: BinaryOp, p: &str, a: &str, b: &str) -> String {
    use BinaryOp::*;
    match op {
        Add => format!("({} + {})", a, b),
        Sub => format!("({} - {})", a, b),
        Mul => format!("({} * {})", a, b),
        Div => format!("({} / {})", a, b),
        Rem => format!("mpd_real_rem({}, {}, {})", p, a, b),
        Mod => format!("mpd_real_mod({}, {}, {})", p, a, b),
        _ => format!("mpd_real_pow({}, {}, {})", p, a, b),
    }
}

/// An int as a real.
pub fn to_real(c: &str) -> String {
    format!("((double)({}))", c)
}

/// `a and b` / `a or b` on bools where b needs statements first: `t` holds
/// a, and b's statements and value go under the `if` that opens here.
pub fn short_circuit_open(t: &str, a: &str, and: bool) -> [String; 2] {
    [format!("_Bool {} = {};", t, a), format!("if ({}{}) {{", if and { "" } else { "!" }, t)]
}

/// `p + i`, `p - i` of a pointer to elements of `sz` bytes.
pub fn ptr_offset(p: &str, add: bool, i: &str, sz: usize) -> String {
    format!("((void *)((char *){} {} (ptrdiff_t)({}) * {}))", p, if add { "+" } else { "-" }, i, sz)
}

/// `p - q`: the number of elements of `sz` bytes between two pointers.
pub fn ptr_diff(p: &str, q: &str, sz: usize) -> String {
    format!("((int)(((char *){} - (char *){}) / {}))", p, q, sz)
}

/// `a << b`, `a >> b` on ints (the count taken mod 32; << wraps).
pub fn shift(left: bool, a: &str, b: &str) -> String {
    if left {
        format!("((int)((unsigned)({}) << (({}) & 31)))", a, b)
    } else {
        format!("(({}) >> (({}) & 31))", a, b)
    }
}

/// `a and b`, `a or b`, `a xor b` on bools.
pub fn bool_logic(op: BinaryOp, a: &str, b: &str) -> String {
    match op {
        BinaryOp::And => format!("({} && {})", a, b),
        BinaryOp::Or => format!("({} || {})", a, b),
        _ => format!("(({}) != ({}))", a, b),
    }
}

/// `a and b`, `a or b`, `a xor b` on ints: bitwise.
pub fn int_bits(op: BinaryOp, a: &str, b: &str) -> String {
    let o = match op {
        BinaryOp::And => "&",
        BinaryOp::Or => "|",
        _ => "^",
    };
    format!("(({}) {} ({}))", a, o, b)
}

/// A comparison `o` (C's operator) of two numbers, chars, bools or enumeration values.
pub fn compare(a: &str, o: &str, b: &str) -> String {
    format!("(({}) {} ({}))", a, o, b)
}

/// `==`/`!=` (`o`) of two pointers or files.
pub fn ptr_eq(a: &str, o: &str, b: &str) -> String {
    format!("((void *)({}) {} (void *)({}))", a, o, b)
}

/// `-x` of an int (wraps).
pub fn int_neg(c: &str) -> String {
    format!("((int)(0u - (unsigned)({})))", c)
}

/// `-x` of a real.
pub fn real_neg(c: &str) -> String {
    format!("(-({}))", c)
}

/// `not x`: of a bool, or bitwise of an int.
pub fn not(c: &str, int: bool) -> String {
    if int {
        format!("(~({}))", c)
    } else {
        format!("(!({}))", c)
    }
}

/// `++x`, `x++`, `--x`, `x--` of an int, char, enumeration or real variable.
pub fn inc_dec(v: &str, inc: bool, pre: bool) -> String {
    let o = if inc { "++" } else { "--" };
    if pre {
        format!("({}{})", o, v)
    } else {
        format!("({}{})", v, o)
    }
}

/// `++p`, `--p` of a pointer to elements of `sz` bytes.
pub fn ptr_step(v: &str, inc: bool, sz: usize) -> String {
    format!("({} = (char *){} {} {})", v, v, if inc { "+" } else { "-" }, sz)
}

/// `p++`, `p--`: the old value kept in `t`.
pub fn ptr_step_post(t: &str, v: &str, inc: bool, sz: usize) -> String {
    format!(
        "({{ void *{t} = {v}; {v} = (char *){v} {s} {z}; {t}; }})",
        t = t,
        v = v,
        s = if inc { "+" } else { "-" },
        z = sz
    )
}

/// `@x`: the address of variable `v` (a blob is its own address).
pub fn addr_of(v: &str, blob: bool) -> String {
    if blob {
        format!("((void *){})", v)
    } else {
        format!("((void *)&{})", v)
    }
}

/// `x || y` of two string views, in the statement temporaries `t`.
pub fn str_cat(t: &str, x: &str, y: &str) -> String {
    format!("mpd_str_cat({}, {}, {})", t, x, y)
}

/// A comparison `o` (C's operator) of two string views.
pub fn str_cmp(x: &str, y: &str, o: &str) -> String {
    format!("(mpd_str_cmp({}, {}) {} 0)", x, y, o)
}

/// `==`/`!=` (`o`) of two capabilities.
pub fn cap_eq(x: &str, y: &str, o: &str) -> String {
    format!("(mpd_cap_eq({}, {}) {} 1)", x, y, o)
}

/// The C of the literal `null`.
pub const NULL: &str = "NULL";

/// The C of the literal `noop` (typed like null).
pub const NOOP: &str = "mpd_noop";

/// `null` (C `c`) or `noop` as a capability value.
pub fn null_cap(c: &str) -> String {
    if c == NOOP {
        "mpd_cap_noop".into()
    } else {
        "mpd_cap_null".into()
    }
}

/// If `rhs` is the C of `lhs || e` (mpd_str_cat of lhs's own characters and
/// one more operand), that operand's C: the assignment `lhs = lhs || e` is
/// then an append in place.
/// Only a plain variable (`v_s_1`, `self->v_s_1`) qualifies: a target with
/// calls or subscripts in it would be evaluated once instead of twice.
pub fn appended_to<'a>(rhs: &'a str, lhs: &str) -> Option<&'a str> {
    if !lhs.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'>' || b == b'.') {
        return None;
    }
    let rest = rhs.strip_prefix("mpd_str_cat(")?; // as str_cat spells it
    let (_, rest) = rest.split_once(", ")?; // the temporaries' list
    let rest = rest.strip_prefix("mpd_sv_of(")?.strip_prefix(lhs)?.strip_prefix("), ")?;
    let tail = rest.strip_suffix(')')?;
    one_c_expression(tail).then_some(tail)
}

/// Is `c` one C expression: brackets balanced, never closed below the start,
/// no comma outside them (string and char literals skipped)?
pub fn one_c_expression(c: &str) -> bool {
    let b = c.as_bytes();
    let (mut depth, mut i) = (0i32, 0usize);
    while i < b.len() {
        match b[i] {
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            b',' if depth == 0 => return false,
            _ => {}
        }
        i += 1;
    }
    depth == 0 && !c.is_empty()
}

/// `c` after the operands `(name, C)` were evaluated, in the order given,
/// into temporaries of their own type (check/order.rs).
pub fn sequenced(temps: &[(String, String)], c: &str) -> String {
    let mut s = String::from("({ ");
    for (t, v) in temps {
        s.push_str(&format!("__auto_type {} = {}; ", t, v));
    }
    s.push_str(&format!("{}; }})", c));
    s
}
