//! builtin: the C for MPD's predefined functions other than I/O (math,
//! ordinals, strings, memory, the machine and process), through
//! runtime/include/mpd/abi/lang.h or C's math library.
//!
//! The checker has checked and translated the arguments (reals already
//! converted); these functions only spell the calls.

use crate::emit::lit;

/// `numargs()`.
pub const NUMARGS: &str = "((int)mpd_numargs())";
/// `age()`: milliseconds since the program started.
pub const AGE: &str = "((int)mpd_age())";
/// `mypriority()`.
pub const MYPRIORITY: &str = "mpd_proc_priority(mpd_self())";

/// `random()`, `random(ub)`, `random(lb, ub)`.
pub fn random(a: &[String]) -> String {
    match a.len() {
        0 => "mpd_random()".to_string(),
        1 => format!("mpd_random_ub({})", a[0]),
        _ => format!("mpd_random_range({}, {})", a[0], a[1]),
    }
}

/// `seed(x)`.
pub fn seed(a: &str) -> String {
    format!("mpd_seed({})", a)
}

/// sqrt, ceil, floor, round, sin, cos, tan, asin, acos: C's function of
/// that name, but round (MPD rounds halves away from zero).
pub fn math1(name: &str, a: &str) -> String {
    let f = if name == "round" { "mpd_round" } else { name };
    format!("{}({})", f, a)
}

/// log, exp and atan with one argument, or two (a base; atan2).
pub fn math12(name: &str, a: &[String]) -> String {
    match (name, a.len()) {
        ("log", 1) => format!("mpd_log({})", a[0]),
        ("log", _) => format!("mpd_logb({}, {})", a[0], a[1]),
        ("exp", 1) => format!("exp({})", a[0]),
        ("exp", _) => format!("mpd_expb({}, {})", a[0], a[1]),
        (_, 1) => format!("atan({})", a[0]),
        _ => format!("mpd_atan2({}, {})", a[0], a[1]),
    }
}

/// `abs(x)` of an int (wrapping) or a real.
pub fn abs(c: &str, real: bool) -> String {
    if real {
        format!("fabs({})", c)
    } else {
        format!("mpd_int_abs({})", c)
    }
}

/// One step of min/max over values of C type `ct`: `a` and `b` are evaluated once.
pub fn min_max(ct: &str, min: bool, a: &str, b: &str) -> String {
    let o = if min { "<" } else { ">" };
    format!("({{ {ct} _a = {}, _b = {}; _a {o} _b ? _a : _b; }})", a, b, ct = ct, o = o)
}

/// `pred(x)`/`succ(x)` of an int: wraps as MPD's ints do.
pub fn int_step(c: &str, succ: bool) -> String {
    format!("((int)((unsigned)({}) {} 1u))", c, if succ { "+" } else { "-" })
}

/// `pred(x)`/`succ(x)` of an ordered non-int value: checked against 0..=max
/// at run time; `cast` is the result's C cast ("" for an enumeration).
pub fn ord_step(p: &str, c: &str, succ: bool, max: usize, name: &str, cast: &str) -> String {
    let d = if succ { "+" } else { "-" };
    let nm = lit::c_string(name.as_bytes());
    let call = format!("mpd_ord_step({}, (int)({}) {} 1, 0, {}, {})", p, c, d, max, nm);
    if cast.is_empty() {
        call
    } else {
        format!("(({}){})", cast, call)
    }
}

pub use crate::emit::data::{str_max, sv_len};

/// `chars(s)`: a char array (statement temporary `t`) of string view `s`.
pub fn chars(t: &str, s: &str) -> String {
    format!("((char *)mpd_chars({}, {}))", t, s)
}

/// `free(p)`.
pub fn free(p: &str, c: &str) -> String {
    format!("mpd_free({}, {})", p, c)
}

/// `nap(ms)`.
pub fn nap(a: &str) -> String {
    format!("mpd_lang_nap({})", a)
}

/// `locate(n, host, path)`: string views for host and path.
pub fn locate(pos: &str, n: &str, host: &str, path: &str) -> String {
    format!("mpd_vm_locate({}, {}, {}, {})", pos, n, host, path)
}

/// `myvm()`, `mymachine()`, `myresource()` of the instance `inst`.
pub fn myvm(inst: &str) -> String {
    format!("mpd_myvm(&{}->h)", inst)
}
pub fn mymachine(inst: &str) -> String {
    format!("mpd_mymachine(&{}->h)", inst)
}
pub fn myresource(inst: &str) -> String {
    format!("mpd_rescap_of(&{}->h)", inst)
}

/// `setpriority(n)`.
pub fn setpriority(a: &str) -> String {
    format!("mpd_proc_set_priority(mpd_self(), {})", a)
}
