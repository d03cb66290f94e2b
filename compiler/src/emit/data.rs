//! data: the C for reaching into arrays and strings -- elements, slices and
//! sections (runtime/include/mpd/abi/lang.h).  An array or string variable is
//! a blob (`char *`); a string value may also be a view (`mpd_sv`).  `p` is
//! the position (`mpd_F, line`) of checked accesses, `t` the statement's
//! temporaries.

/// The address of element `i` of array blob `a` (bounds-checked unless `nc`).
pub fn arr_elem(p: &str, a: &str, i: &str, nc: bool) -> String {
    if nc {
        format!("mpd_arr_elem_nc({}, {})", a, i)
    } else {
        format!("mpd_arr_elem({}, {}, {})", p, a, i)
    }
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
