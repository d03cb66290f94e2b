//! var: the storage of variables and formals -- locals, blob allocation, the
//! headers inside strings and arrays, bound checks, and the private copies a
//! procedure makes of its parameters (runtime/include/mpd/abi/lang.h: blobs,
//! mpd_tmp pools).
//!
//! Blobs (strings, arrays, records) live in a function's `_f` pool, the caller's
//! `_rt` pool (results), or on the heap (component members).
use super::component::ctype;
use crate::check::types::Ty;

/// A function's temporary pools: `_t` for one statement, `_f` for the frame.
pub const TEMPS_DECL: &str = "mpd_tmp *_t = NULL, *_f = NULL; (void)_t; (void)_f;";
/// A procedure's frame also has the caller's result pool `_rt`.
pub const PROC_TEMPS_DECL: &str = "mpd_tmp *_t = NULL, *_f = NULL; (void)_t; (void)_f; (void)_rt;";
/// The statement's pool, as functions taking a pool are passed it.
pub const STMT_TMPS: &str = "&_t";
/// Frees both pools (before every return).
pub const TEMPS_FREE: &str = "mpd_tmp_free(&_t); mpd_tmp_free(&_f);";

/// The size in bytes of a string of at most `n` characters, with its header.
pub fn str_size(n: &str) -> String {
    format!("MPD_STR_SIZE({})", n)
}

/// The size of an array `[lo:hi]` of elements of `es` bytes, header included, aligned.
pub fn arr_size(lo: &str, hi: &str, es: &str) -> String {
    format!("MPD_ALIGN(mpd_arr_size({}, {}, {}))", lo, hi, es)
}

/// The size of the blob at `c`, read from its header (`kind`: blob_kind).
pub fn blob_size_of(c: &str, kind: &str) -> String {
    format!("mpd_blob_size_k({}, {})", c, kind)
}

/// Sets up the header of a fresh string blob at `addr` of maximum length `max`.
pub fn str_init(addr: &str, max: &str) -> String {
    format!("mpd_str_init({}, {});", addr, max)
}

/// Sets up the header of a fresh array blob at `addr`: bounds and element size.
pub fn arr_hdr(addr: &str, lo: &str, hi: &str, es: &str) -> String {
    format!("mpd_arr_hdr({}, {}, {}, (int)({}));", addr, lo, hi, es)
}

/// Aborts (at `pos`) when `[lo:hi]` are illegal bounds for an array.
pub fn arr_check_bounds(pos: &str, lo: &str, hi: &str) -> String {
    format!("mpd_arr_check_bounds({}, {}, {});", pos, lo, hi)
}

/// Storage of `size` bytes for blob variable `c`: on the heap for a component
/// member, linked into the instance so that it is freed with it (`self` is
/// the instance in a component's initial code), in the frame pool for a local.
pub fn blob_alloc(c: &str, size: &str, member: bool) -> String {
    if member {
        format!("{} = mpd_res_blob_new(&self->h, {});", c, size)
    } else {
        format!("{} = mpd_tmp_alloc(&_f, {});", c, size)
    }
}

/// A local holding a string view (`mpd_sv`).
pub fn view_local(c: &str, init: &str) -> String {
    format!("mpd_sv {} = {};", c, init)
}

/// The length of the string view `c`, as int.
pub fn view_len(c: &str) -> String {
    format!("(int){}.len", c)
}

/// A local blob pointer, uninitialised (allocated next).
pub fn local_blob(c: &str) -> String {
    format!("char *{};", c)
}

/// A local blob pointer to `size` fresh zeroed bytes of temporary pool `pool`.
pub fn tmp_blob(c: &str, pool: &str, size: &str) -> String {
    format!("char *{} = mpd_tmp_alloc({}, {});", c, pool, size)
}

/// A local blob pointer set to `init`.
pub fn local_blob_init(c: &str, init: &str) -> String {
    format!("char *{} = {};", c, init)
}

/// A local scalar of type `t`, zeroed (MPD gives uninitialised variables no value,
/// but a defined one keeps runs reproducible).
pub fn local_scalar(t: &Ty, c: &str) -> String {
    format!("{} {} = {{0}};", ctype(t), c)
}

/// A local scalar of type `t` set to `init`.
pub fn local_scalar_init(t: &Ty, c: &str, init: &str) -> String {
    format!("{} {} = {};", ctype(t), c, init)
}

/// A local int set to `init` (evaluated bounds and lengths).
pub fn local_int(c: &str, init: &str) -> String {
    format!("int {} = {};", c, init)
}

/// A local of C type `ct` set to `init`.
pub fn local_c(ct: &str, c: &str, init: &str) -> String {
    format!("{} {} = {};", ct, c, init)
}

/// `t` holds the address of the scalar variable `c` (of C type `ct`).
pub fn pin_scalar(ct: &str, t: &str, c: &str) -> String {
    format!("{} *{} = &({});", ct, t, c)
}

/// The variable whose address `t` holds.
pub fn pinned(t: &str) -> String {
    format!("(*{})", t)
}

/// `lhs = v;`: a scalar store.
pub fn store(lhs: &str, v: &str) -> String {
    format!("{} = {};", lhs, v)
}

/// `lhs = v` through the temporary `t` of C type `ct` (the value of the
/// assignment, and `lhs` evaluated once).
pub fn store_via(ct: &str, t: &str, v: &str, lhs: &str) -> String {
    format!("{} {} = {}; {} = {};", ct, t, v, lhs, t)
}

/// The C type of a scalar (`ct`) or blob variable, as a pointer to it.
pub fn ptr_ctype(ct: &str, blob: bool) -> String {
    if blob {
        "char *".to_string()
    } else {
        format!("{} *", ct)
    }
}

/// Copies `size` bytes from blob `src` into `dst`.
pub fn blob_copy(dst: &str, src: &str, size: &str) -> String {
    format!("memcpy({}, {}, {});", dst, src, size)
}

/// The value of var/res parameter `i` (passed as a pointer).
pub fn param_value(i: usize) -> String {
    format!("*{}", param(i))
}

/// Copies the local copy `c` of var/res parameter `i` back to the caller.
pub fn copy_back(i: usize, c: &str) -> String {
    format!("*{} = {}; ", param(i), c)
}

/// The loop over the elements of an array [lo:hi] (counter `i` from 0).
pub fn elem_loop(i: &str, lo: &str, hi: &str) -> String {
    format!("for (int {i} = 0; {i} <= ({hi}) - ({lo}); {i}++) {{")
}

/// The address of element `i` (from 0) of array blob `a` whose header is
/// `hdr` bytes and whose elements are `es` bytes.
pub fn elem_addr(a: &str, hdr: usize, i: &str, es: &str) -> String {
    format!("({} + {} + (size_t){} * ({}))", a, hdr, i, es)
}

/// The C expression naming a procedure's i-th parameter.
pub fn param(i: usize) -> String {
    format!("p{}", i)
}

/// A private copy of array parameter i, rebased to the formal's bounds (`lbs`,
/// `ubs`: one per dimension, INT_MIN where the actual's bound is kept).
pub fn arr_param_copy(c: &str, i: usize, lbs: &[String], ubs: &[String]) -> Vec<String> {
    vec![format!("char *{} = mpd_blob_dup(&_f, p{}, MPD_BLOB_ARR);", c, i), arr_rebase(c, lbs, ubs)]
}

/// Array blob `c` rebased in place to a formal's bounds (as arr_param_copy).
pub fn arr_rebase(c: &str, lbs: &[String], ubs: &[String]) -> String {
    format!(
        "mpd_arr_rebase({}, {}, (const int[]){{{}}}, (const int[]){{{}}});",
        c,
        lbs.len(),
        lbs.join(", "),
        ubs.join(", ")
    )
}

/// Copies array `c` back into var/res array parameter i when the procedure returns.
pub fn arr_copyback(i: usize, c: &str, ndims: usize) -> String {
    format!("mpd_arr_copyback(p{}, {}, {}); ", i, c, ndims)
}

/// A private `string[n]` for parameter i, in the frame pool.
pub fn str_param_alloc(c: &str, n: &str) -> String {
    format!("char *{} = mpd_tmp_alloc(&_f, MPD_STR_SIZE({}));", c, n)
}

/// Assigns the string in blob `src` to string blob `dst` (aborts at `pos` when too long).
pub fn str_set_blob(pos: &str, dst: &str, src: &str) -> String {
    format!("mpd_str_set({}, {}, mpd_sv_of({}));", pos, dst, src)
}

/// A private copy of blob parameter i in the frame pool (kind: blob_kind or size).
pub fn blob_param_copy(c: &str, i: usize, kind: &str) -> String {
    format!("char *{} = mpd_blob_dup(&_f, p{}, {});", c, i, kind)
}

/// The result variable's blob, in the caller's result pool `_rt`.
pub fn result_alloc(c: &str, size: &str) -> String {
    format!("char *{} = mpd_tmp_alloc(_rt, {});", c, size)
}

/// Int locals set to their initial values, in one declaration (`int a = x, b = y;`).
pub fn local_ints(vars: &[(&str, &str)]) -> String {
    let vs: Vec<String> = vars.iter().map(|(c, init)| format!("{} = {}", c, init)).collect();
    format!("int {};", vs.join(", "))
}
