//! io: the C for MPD's I/O functions, through runtime/include/mpd/abi/io.h.
//!
//! The checker has checked the arguments and translated them; these functions
//! only spell the calls.  `p` is the position (`mpd_F, line`), `f` a file
//! expression, `n`/`vs`/`ds` a count and an `mpd_val[]`/`mpd_dest[]` list.

/// The standard files, the default of an I/O call without a file argument.
pub const STDOUT: &str = "mpd_stdout";
pub const STDIN: &str = "mpd_stdin";
pub const STDERR: &str = "mpd_stderr";
/// A string view of "" (what a wrong string argument becomes after its error).
pub const EMPTY_SV: &str = "mpd_sv_lit(\"\", 0)";
/// The destination a wrong input argument becomes after its error.
pub const NO_DEST: &str = "MPD_DI(&(int){0})";

/// A file value as C: `null` is a NULL file; `noop` stays as it is (and is an error elsewhere).
pub fn file(c: String, is_null: bool) -> String {
    if is_null && c != super::expr::NOOP {
        "NULL".to_string()
    } else {
        c
    }
}

/// Kinds of values output can print (see `val`).
pub enum Out {
    Int,
    Real,
    Char,
    Bool,
    /// a string view
    Str,
    Chars,
    Ptr,
}

/// One output value `mpd_val` of kind `k`.
pub fn val(k: Out, c: &str) -> String {
    match k {
        Out::Int => format!("MPD_VI({})", c),
        Out::Real => format!("MPD_VR({})", c),
        Out::Char => format!("MPD_VC({})", c),
        Out::Bool => format!("MPD_VB({})", c),
        Out::Str => format!("mpd_v_sv({})", c),
        Out::Chars => format!("mpd_v_chars({})", c),
        Out::Ptr => format!("MPD_VP({})", c),
    }
}

/// The value of an unprintable argument (after its error).
pub const NO_VAL: &str = "MPD_VI(0)";

/// One input destination `mpd_dest` of kind `k` (the kinds of `val`) for the lvalue `c`.
pub fn dest(k: Out, c: &str) -> String {
    match k {
        Out::Int => format!("MPD_DI(&({}))", c),
        Out::Real => format!("MPD_DR(&({}))", c),
        Out::Char => format!("MPD_DC(&({}))", c),
        Out::Bool => format!("MPD_DB(&({}))", c),
        Out::Ptr => format!("MPD_DP(&({}))", c),
        Out::Str => format!("mpd_d_str({})", c),
        Out::Chars => format!("mpd_d_chars({})", c),
    }
}

/// A count and list of output values (NULL when empty).
pub fn val_list(vs: &[String]) -> (usize, String) {
    list("mpd_val", vs)
}

/// A count and list of input destinations (NULL when empty).
pub fn dest_list(ds: &[String]) -> (usize, String) {
    list("mpd_dest", ds)
}

fn list(ty: &str, xs: &[String]) -> (usize, String) {
    if xs.is_empty() {
        (0, "NULL".into())
    } else {
        (xs.len(), format!("({}[]){{ {} }}", ty, xs.join(", ")))
    }
}

/// `write(f, ...)`, `writes(f, ...)`: `name` is the function.
pub fn write(name: &str, p: &str, f: &str, n: usize, vs: &str) -> String {
    format!("mpd_{}({}, {}, {}, {})", name, p, f, n, vs)
}

/// `put(f, s)`: the characters of string view `s`.
pub fn put(p: &str, f: &str, s: &str) -> String {
    format!("({{ mpd_sv _s = {}; mpd_put({}, {}, _s.p, _s.len); }})", s, p, f)
}

/// `printf(f, fmt, ...)`.
pub fn printf(p: &str, f: &str, fmt: &str, n: usize, vs: &str) -> String {
    format!("({{ mpd_sv _f = {}; mpd_printf({}, {}, _f.p, _f.len, {}, {}); }})", fmt, p, f, n, vs)
}

/// `sprintf(d, fmt, ...)` into the string variable (blob) `d`.
pub fn sprintf(p: &str, d: &str, fmt: &str, n: usize, vs: &str) -> String {
    format!(
        "({{ mpd_sv _f = {}; mpd_sprintf({}, MPD_STR_CHARS({d}), MPD_STR_MAX({d}), &MPD_STR_LEN({d}), _f.p, _f.len, {}, {}); }})",
        fmt,
        p,
        n,
        vs,
        d = d
    )
}

/// `read(f, ...)`: the count read, or EOF.
pub fn read(p: &str, f: &str, n: usize, ds: &str) -> String {
    format!("((int)mpd_read({}, {}, {}, {}))", p, f, n, ds)
}

/// `get(f, d)`: a line (or what fits) into the destination `d`.
pub fn get(p: &str, f: &str, d: &str) -> String {
    format!("({{ mpd_dest _d = {}; (int)mpd_get({}, {}, _d.addr, _d.size, _d.len); }})", d, p, f)
}

/// `scanf(f, fmt, ...)`.
pub fn scanf(p: &str, f: &str, fmt: &str, n: usize, ds: &str) -> String {
    format!("({{ mpd_sv _f = {}; (int)mpd_scanf({}, {}, _f.p, _f.len, {}, {}); }})", fmt, p, f, n, ds)
}

/// `sscanf(s, fmt, ...)`.
pub fn sscanf(p: &str, s: &str, fmt: &str, n: usize, ds: &str) -> String {
    format!(
        "({{ mpd_sv _s = {}, _f = {}; (int)mpd_sscanf({}, _s.p, _s.len, _f.p, _f.len, {}, {}); }})",
        s, fmt, p, n, ds
    )
}

/// `open(path, mode)`: a file, or null.
pub fn open(p: &str, s: &str, m: &str) -> String {
    format!("({{ mpd_sv _s = {}; mpd_open({}, _s.p, _s.len, {}); }})", s, p, m)
}

/// `close(f)`, `flush(f)`: `name` is the function.
pub fn file_op(name: &str, p: &str, f: &str) -> String {
    format!("mpd_{}({}, {})", name, p, f)
}

/// `where(f)`: the offset in f.
pub fn where_(p: &str, f: &str) -> String {
    format!("((int)mpd_where({}, {}))", p, f)
}

/// `seek(f, how, offset)`.
pub fn seek(p: &str, f: &str, how: &str, off: &str) -> String {
    format!("((int)mpd_seek({}, {}, {}, {}))", p, f, how, off)
}

/// `remove(path)`: whether the file was removed.
pub fn remove(s: &str) -> String {
    format!("({{ mpd_sv _s = {}; (_Bool)mpd_remove(_s.p, _s.len); }})", s)
}

/// `getarg(n, d)`: command-line argument n into d.
pub fn getarg(p: &str, n: &str, d: &str) -> String {
    format!("((int)mpd_getarg({}, {}, (mpd_dest[]){{ {} }}))", p, n, d)
}
