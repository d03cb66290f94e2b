//! convert: the C of MPD's type conversions `T(x)` (runtime/include/mpd/abi/
//! lang.h).  The checker has decided which conversion applies and folded the
//! constant ones; `p` is the position (`mpd_F, line`) of conversions that can
//! fail, `sv` the string view of a string or char array operand.

/// `int(x)` of a real: truncated, checked to fit.
pub fn int_of_real(p: &str, c: &str) -> String {
    format!("((int)mpd_int_of_real({}, {}))", p, c)
}

/// `int(x)` of a char.
pub fn int_of_char(c: &str) -> String {
    format!("((int)({}))", c)
}

/// `int(x)` of a bool, an enumeration value or a pointer (its address).
pub fn int_of_ord(c: &str) -> String {
    format!("((int)(intptr_t)({}))", c)
}

/// `real(x)` of an int, real, char, bool or enumeration value.
pub fn real_of(c: &str) -> String {
    format!("((double)({}))", c)
}

/// `real(p)` of a pointer: its address.
pub fn real_of_ptr(c: &str) -> String {
    format!("((double)(intptr_t)({}))", c)
}

/// `char(i)` of an int, checked to be a character.
pub fn char_of_int(p: &str, c: &str) -> String {
    format!("mpd_char_of_int({}, {})", p, c)
}

/// `char(x)` of a bool or an enumeration value.
pub fn char_of_ord(p: &str, c: &str) -> String {
    format!("mpd_char_of_int({}, (int)({}))", p, c)
}

/// `char(p)` of a pointer: null is 0; any other address is out of range
/// (256 makes mpd_char_of_int abort, located).
pub fn char_of_ptr(p: &str, c: &str) -> String {
    format!("mpd_char_of_int({}, ({}) ? 256 : 0)", p, c)
}

/// `char(r)` of a real: truncated, then checked.
pub fn char_of_real(p: &str, c: &str) -> String {
    format!("mpd_char_of_int({}, (int)mpd_int_of_real({}, {}))", p, p, c)
}

/// `char(s)` of a string: its first character.
pub fn char_of_str(sv: &str) -> String {
    format!("((unsigned char)({{ mpd_sv _s = {}; mpd_char_of_str(_s.p, _s.len); }}))", sv)
}

/// `bool(x)` of a number, character or pointer: true when not zero (null).
pub fn bool_of(c: &str) -> String {
    format!("((_Bool)(({}) != 0))", c)
}

/// What a string is read as by `int(s)`, `real(s)`, `bool(s)` and `ptr(s)`.
pub enum FromStr {
    Int,
    Real,
    Bool,
    Ptr,
}

/// `T(s)` of a string view: parsed at run time (an error when it is no T).
pub fn of_str(to: FromStr, p: &str, sv: &str) -> String {
    let call = |f: &str| format!("({{ mpd_sv _s = {}; {}({}, _s.p, _s.len); }})", sv, f, p);
    match to {
        FromStr::Int => format!("((int){})", call("mpd_int_of_str")),
        FromStr::Real => call("mpd_real_of_str"),
        FromStr::Bool => format!("((_Bool){})", call("mpd_bool_of_str")),
        FromStr::Ptr => call("mpd_ptr_of_str"),
    }
}

/// `E(x)` for an enumeration `name` of `n` literals: checked to be one
/// (a real `x` truncated first, as int(x) is).
pub fn enum_of(p: &str, c: &str, real: bool, n: usize, name: &str) -> String {
    let x = if real { format!("mpd_int_of_real({}, {})", p, c) } else { c.to_string() };
    format!("mpd_enum_check({}, (int)({}), {}, {})", p, x, n, super::lit::c_string(name.as_bytes()))
}

/// `string(x)` of a scalar: `val` (an `mpd_val`, io::val) printed as write
/// would, in the statement temporaries `t`.
pub fn string_of_val(p: &str, t: &str, val: &str) -> String {
    format!("mpd_string_of_val({}, {}, {})", p, t, val)
}

/// `ptr(i)` of an int: the address it holds.
pub fn ptr_of_int(c: &str) -> String {
    format!("((void *)(intptr_t)({}))", c)
}

/// An array bound (an int) as a value of the index type bool.
pub fn bound_as_bool(c: &str) -> String {
    format!("((_Bool)({}))", c)
}

/// An array bound (an int) as a value of the index type char.
pub fn bound_as_char(c: &str) -> String {
    format!("((unsigned char)({}))", c)
}
