//! call: how a direct call of a proc or an external passes its arguments
//! and results (runtime/include/mpd/abi/lang.h).  A proc takes blobs and
//! scalars as MPD holds them; an external (a C function) takes C strings,
//! bare array elements and `FILE *`s.

/// What a direct call of a proc passes as its invocation block (none:
/// the call is no invocation; a traced call passes its call site instead).
pub const NO_BLOCK: &str = "NULL";

/// A scalar passed by reference (var, res, ref) to a proc.
pub fn by_ref(c: &str) -> String {
    format!("&({})", c)
}

/// A string blob `c` as the C string an external takes.
pub fn ext_str(c: &str) -> String {
    format!("mpd_str_cstr({})", c)
}

/// After the call, the length of var/res string `c` from the NUL the
/// external left (it may have stored a shorter string).
pub fn ext_str_sync(c: &str) -> String {
    format!("mpd_str_sync_cstr({});", c)
}

/// The elements of array blob `c`, without the header, for an external.
pub fn ext_arr(c: &str) -> String {
    super::data::arr_data(c)
}

/// A file value `c` as the `FILE *` an external takes.
pub fn ext_file(c: &str) -> String {
    format!("mpd_file_cfile({})", c)
}

/// An external's C string result as a string view of at most `max`
/// characters (NULL is "").
pub fn ext_str_result(call: &str, max: i64) -> String {
    format!("mpd_sv_cstr({}, {})", call, max)
}

/// A string view `sv` as a string blob in the temporaries `t` (a value
/// passed to a string formal).
pub fn str_blob(t: &str, sv: &str) -> String {
    format!("((char *)mpd_str_blob({}, {}, 0))", t, sv)
}

/// The call of `f` with `args`.
pub fn call(f: &str, args: &[String]) -> String {
    format!("{}({})", f, args.join(", "))
}

/// `@x` of int variable `x` passed to an external's `ptr int`: a long-sized
/// `cell` holding x (a 64-bit C callee may write 8 bytes); returns the
/// cell's declaration, the argument and the write-back into x.
pub fn ext_int_cell(cell: &str, x: &str) -> (String, String, String) {
    (format!("long long {} = {};", cell, x), format!("((void *)&{})", cell), format!("{} = (int){};", x, cell))
}
