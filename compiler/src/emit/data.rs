//! data: the C for reaching into arrays and strings -- elements, slices and
//! sections (runtime/include/mpd/abi/lang.h).  An array or string variable is
//! a blob (`char *`); a string value may also be a view (`mpd_sv`).  `p` is
//! the position (`mpd_F, line`) of checked accesses, `t` the statement's
//! temporaries.
use super::lit;

/// The address of element `i` of array blob `a` (bounds-checked unless `nc`).
pub fn arr_elem(p: &str, a: &str, i: &str, nc: bool) -> String {
    if nc {
        format!("mpd_arr_elem_nc({}, {})", a, i)
    } else {
        format!("mpd_arr_elem({}, {}, {})", p, a, i)
    }
}

/// The address of the field at byte `off` of record blob `b`.
pub fn field_addr(b: &str, off: usize) -> String {
    format!("({} + {})", b, off)
}

/// The scalar of C type `ct` at address `addr`.
pub fn at(ct: &str, addr: &str) -> String {
    format!("(*({} *){})", ct, addr)
}

/// Character `i` of string variable `s`, assignable.
pub fn str_at(p: &str, s: &str, i: &str) -> String {
    format!("(*(unsigned char *)mpd_str_at({}, {}, {}))", p, s, i)
}

/// Character `i` of string blob `s`, as a value.
pub fn str_get(p: &str, s: &str, i: &str) -> String {
    format!("mpd_str_get({}, {}, {})", p, s, i)
}

/// Character `i` of string view `sv` (made a blob in `t` first).
pub fn str_get_view(p: &str, t: &str, sv: &str, i: &str) -> String {
    format!("mpd_str_get({}, mpd_str_blob({}, {}, 0), {})", p, t, sv, i)
}

/// The elements of array blob `a`, past its header (the first element of an
/// array of arrays is the array of the next dimension).
pub fn arr_data(a: &str) -> String {
    format!("MPD_ARR_DATA({})", a)
}

/// The lower and upper bound of array blob `a`.
pub fn arr_lb(a: &str) -> String {
    format!("MPD_ARR_LB({})", a)
}
pub fn arr_ub(a: &str) -> String {
    format!("MPD_ARR_UB({})", a)
}

/// `a[lo:hi]`: a new array blob in `t`.
pub fn arr_slice(p: &str, t: &str, a: &str, lo: &str, hi: &str) -> String {
    format!("((char *)mpd_arr_slice({}, {}, {}, {}, {}))", p, t, a, lo, hi)
}

/// One subscript of a section: a range `lo:hi`, or an index.
pub fn section_range(lo: &str, hi: &str) -> String {
    format!("{{1, {}, {}}}", lo, hi)
}
pub fn section_index(i: &str) -> String {
    format!("{{0, {}, 0}}", i)
}
/// Open ends of a section range (`*`).
pub const SECTION_LO: &str = "INT_MIN";
pub const SECTION_HI: &str = "INT_MAX";

/// The count and list of a section's subscripts.
pub fn section_subs(parts: &[String]) -> String {
    format!("{}, (const mpd_sub[]){{{}}}", parts.len(), parts.join(", "))
}

/// `a[*, 2]` etc.: a new array blob in `t` (`subs` from `section_subs`).
pub fn arr_section(p: &str, t: &str, a: &str, subs: &str) -> String {
    format!("((char *)mpd_arr_section({}, {}, {}, {}))", p, t, a, subs)
}

/// The maximum length of string blob `s`.
pub fn str_max(s: &str) -> String {
    format!("MPD_STR_MAX({})", s)
}

/// The length of string view `sv`.
pub fn sv_len(sv: &str) -> String {
    format!("({}).len", sv)
}

/// `s[lo:hi]` of string view `sv` whose variable holds at most `max`.
pub fn str_slice(p: &str, sv: &str, max: &str, lo: &str, hi: &str) -> String {
    format!("mpd_str_slice({}, {}, {}, {}, {})", p, sv, max, lo, hi)
}

// Stores: assignments and swaps of strings, arrays and records.

/// `s := s || e` in place: `tail` is e's string view.
pub fn str_append(p: &str, s: &str, tail: &str) -> String {
    format!("mpd_str_append({}, {}, {});", p, s, tail)
}

/// `s := v` (a string view into string variable `s`).
pub fn str_set(p: &str, s: &str, sv: &str) -> String {
    format!("mpd_str_set({}, {}, {});", p, s, sv)
}

/// A record assignment: `n` bytes from blob `src` to blob `dst`.
pub fn rec_assign(dst: &str, src: &str, n: usize) -> String {
    format!("mpd_blob_copy({}, {}, {});", dst, src, n)
}

/// `a[...] := r` into a section of array `base` (`subs` from `section_subs`).
pub fn arr_section_set(p: &str, base: &str, subs: &str, r: &str) -> String {
    format!("mpd_arr_section_set({}, {}, {}, {});", p, base, subs, r)
}

/// `s[lo:hi] := sv` into string variable `base`.
pub fn str_slice_set(p: &str, base: &str, lo: &str, hi: &str, sv: &str) -> String {
    format!("mpd_str_slice_set({}, {}, {}, {}, {});", p, base, lo, hi, sv)
}

/// `a[lo:hi] := r` into array `base`.
pub fn arr_slice_set(p: &str, base: &str, lo: &str, hi: &str, r: &str) -> String {
    format!("mpd_arr_slice_set({}, {}, {}, {}, {});", p, base, lo, hi, r)
}

/// `a := r` of one-dimensional arrays of scalars or records.
pub fn arr_assign(p: &str, a: &str, r: &str) -> String {
    format!("mpd_arr_assign({}, {}, {});", p, a, r)
}

/// `a := r` of arrays of `depth` dimensions, of strings if `strings`.
pub fn arr_assign_d(p: &str, a: &str, r: &str, depth: usize, strings: bool) -> String {
    format!("mpd_arr_assign_d({}, {}, {}, {}, {});", p, a, r, depth, strings as i32)
}

/// `a :=: b` of two string variables.
pub fn str_swap(p: &str, a: &str, b: &str) -> String {
    format!("mpd_str_swap({}, {}, {});", p, a, b)
}

/// `a :=: b` of two arrays.
pub fn arr_swap(p: &str, a: &str, b: &str) -> String {
    format!("mpd_arr_swap({}, {}, {});", p, a, b)
}

/// `a :=: b` of two records of `n` bytes.
pub fn blob_swap(a: &str, b: &str, n: usize) -> String {
    format!("mpd_blob_swap({}, {}, {});", a, b, n)
}

/// `{ ct t = a; a = b; b = t; }`: a swap of two scalars of C type `ct`.
pub fn scalar_swap(ct: &str, t: &str, a: &str, b: &str) -> String {
    format!("{{ {} {} = {}; {} = {}; {} = {}; }}", ct, t, a, a, b, b, t)
}

/// A string's characters as a char array blob in the temporaries `t`.
pub fn chars_of(t: &str, sv: &str) -> String {
    format!("mpd_chars({}, {})", t, sv)
}

// String views of string-like values.

/// A string literal's view.
pub fn sv_lit(s: &[u8]) -> String {
    format!("mpd_sv_lit({}, {})", lit::c_string(s), s.len())
}

/// The view of string blob `s`.
pub fn sv_of(s: &str) -> String {
    format!("mpd_sv_of({})", s)
}

/// A one-character string (temporaries `t`) of char `c`.
pub fn sv_of_char(t: &str, c: &str) -> String {
    format!("mpd_str_char({}, {})", t, c)
}

/// The string (temporaries `t`) of char array blob `a`.
pub fn sv_of_chars(t: &str, a: &str) -> String {
    format!("mpd_string_of_chars({}, {})", t, a)
}

// Pointers and new.

/// Pointer `c`, checked to be neither null nor freed (`p`: where).
pub fn ptr_check(p: &str, c: &str) -> String {
    format!("mpd_ptr_check({}, {})", p, c)
}

/// The blob a pointer `c` points to.
pub fn blob_at(c: &str) -> String {
    format!("((char *){})", c)
}

/// `new(t)`: a fresh heap block `b` of `size` bytes.
pub fn new_block(b: &str, size: &str) -> String {
    format!("char *{} = mpd_new({});", b, size)
}

/// The pointer value of new block `b`.
pub fn new_ptr(b: &str) -> String {
    format!("((void *){})", b)
}

/// A block `b` of `size` bytes in the statement temporaries `t`.
pub fn tmp_block(b: &str, t: &str, size: &str) -> String {
    format!("char *{} = mpd_tmp_alloc({}, {});", b, t, size)
}

/// Frees the statement temporaries.
pub const TMP_FREE: &str = "mpd_tmp_free(&_t);";

// Array constructors `(e1, [n] e2, ...)`.

/// Count `c` of an element repeated `v` times (checked not negative).
pub fn cons_count(c: &str, p: &str, v: &str) -> String {
    format!("int {} = mpd_rep_count({}, {});", c, p, v)
}

/// The number of elements: the sum of the counts.
pub fn cons_total(counts: &[String]) -> String {
    if counts.is_empty() {
        "0".into()
    } else {
        counts.join(" + ")
    }
}

/// The new array `a` [1:n] of elements of `esize` bytes, in temporaries `t`.
pub fn cons_alloc(a: &str, t: &str, n: &str, esize: &str) -> [String; 2] {
    [
        format!("char *{} = mpd_tmp_alloc({}, MPD_ALIGN(mpd_arr_size(1, {}, {})));", a, t, n, esize),
        format!("mpd_arr_hdr({}, 1, {}, {});", a, n, esize),
    ]
}

/// Element `h` of a string constructor held as a view, if repeated (`c` > 0).
pub fn cons_hold_sv(h: &str, c: &str, sv: &str) -> String {
    format!("mpd_sv {} = {{0, 0}}; if ({} > 0) {} = {};", h, c, h, sv)
}

/// Element `h` of C type `ct` held, if repeated (`c` > 0).
pub fn cons_hold_scalar(ct: &str, h: &str, c: &str, v: &str) -> String {
    format!("{} {} = {{0}}; if ({} > 0) {} = {};", ct, h, c, h, v)
}

/// Element `h`, a blob, held if repeated (`c` > 0).
pub fn cons_hold_blob(h: &str, c: &str, v: &str) -> String {
    format!("char *{} = NULL; if ({} > 0) {} = {};", h, c, h, v)
}

/// `m`, the longest of the held string views `hs`, and the element size for it.
pub fn cons_str_max(m: &str, hs: &[String]) -> (Vec<String>, String) {
    let mut lines = vec![format!("int {} = 0;", m)];
    for h in hs {
        lines.push(format!("if ({}.len > {}) {} = {}.len;", h, m, m, h));
    }
    (lines, format!("(int)MPD_STR_SIZE({})", m))
}

/// `e`, the size of the first element `first` (a blob of kind `kind`) when
/// the type does not say it.
pub fn cons_blob_size(e: &str, first: &str, kind: &str) -> String {
    format!("int {} = 0; if ({}) {} = (int)mpd_blob_size_k({}, {});", e, first, e, first, kind)
}

/// The loop copying a held element `c` times (`r` counts, `k` the index).
pub fn cons_repeat(r: &str, c: &str, k: &str) -> String {
    format!("for (int {r} = {c}; {r} > 0; {r}--, {k}++) {{")
}

/// The address of element `k` (from 0) of the constructor's array `a`.
pub fn cons_elem(a: &str, hdr: usize, k: &str, esize: &str) -> String {
    format!("({} + {} + (size_t){} * {})", a, hdr, k, esize)
}
