//! predef_io: checking MPD's I/O functions (write, read, printf, open, seek...)
//! and translating them through emit/io.rs.
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::io::{self, Out};
use crate::syntax::ast::{Expr, Span};

impl<'a> Checker<'a> {
    /// `write([f,] x...)`, `writes([f,] x...)`: printable values to f (stdout).
    pub(super) fn pd_write(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        let (f, skip) = self.file_arg(args);
        let (n, vs) = self.vals(&args[skip..], name, skip + 1);
        V::scalar(io::write(name, &p, &f, n, &vs), Ty::Void)
    }

    /// `put([f,] s)`: a string's characters, nothing added.
    pub(super) fn pd_put(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        let (f, skip) = self.file_arg(args);
        if !self.file_first(args, skip, "put") || !self.want(&args[skip..], 1..=1, "put", span) {
            return V::err();
        }
        let s = self.text_arg(&args[skip], &format!("put(), argument {}", skip + 1), true);
        V::scalar(io::put(&p, &f, &s), Ty::Void)
    }

    /// `printf([f,] fmt, x...)`.
    pub(super) fn pd_printf(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        let (f, skip) = self.file_arg(args);
        if args.len() <= skip {
            self.error(span, "too few arguments (printf needs a format)");
            return V::err();
        }
        let fmt = self.str_arg(&args[skip], "printf", skip + 1);
        let (n, vs) = self.vals(&args[skip + 1..], "printf", skip + 2);
        V::scalar(io::printf(&p, &f, &fmt, n, &vs), Ty::Void)
    }

    /// `sprintf(s, fmt, x...)`: s must be a string variable.
    pub(super) fn pd_sprintf(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        if args.len() < 2 {
            self.error(span, "sprintf needs a string variable and a format");
            return V::err();
        }
        let d = self.expr(&args[0]);
        let string = d.ty.is_string() || d.ty == Ty::Error;
        if !(d.lv && (d.form == Form::Blob || !string)) && d.ty != Ty::Error {
            self.error(args[0].span, "sprintf(), argument 1: not a variable (it must be a string variable)");
        }
        if !string {
            self.error(args[0].span, "sprintf(), argument 1: not a string (it must be a string variable)");
        }
        let fmt = self.str_arg(&args[1], "sprintf", 2);
        let (n, vs) = self.vals(&args[2..], "sprintf", 3);
        V::scalar(io::sprintf(&p, &d.c, &fmt, n, &vs), Ty::Void)
    }

    /// `read([f,] v...)`: from f (stdin) into variables; the count read or EOF.
    pub(super) fn pd_read(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        let (f, skip) = self.in_file_arg(args);
        let (n, ds) = self.dests(&args[skip..], "read", skip + 1);
        V::scalar(io::read(&p, &f, n, &ds), Ty::Int)
    }

    /// `get([f,] v)`: a line into a string or char array variable.
    pub(super) fn pd_get(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        let (f, skip) = self.in_file_arg(args);
        if !self.file_first(args, skip, "get") || !self.want(&args[skip..], 1..=1, "get", span) {
            return V::err();
        }
        let v = self.expr(&args[skip]);
        // both errors, as SR 2.3.3 gives them
        let not_var = (!v.lv || v.slice.is_some()) && v.ty != Ty::Error;
        if not_var {
            self.error(
                args[skip].span,
                "result arg must be a variable (get reads into a string or char array variable)",
            );
        }
        // raw characters go into text only (MPD 1.0.1: an int or a char
        // here is an error, as for put)
        if !(v.ty.is_string() || v.ty.is_char_array() || v.ty == Ty::Error) {
            let what = format!("get(), argument {}", skip + 1);
            self.error(args[skip].span, format!("{}: not a char array or string ({})", what, self.types.show(&v.ty)));
            // still get's int (type_of's rule: the result type whatever the argument)
            return V::scalar("0".into(), Ty::Int);
        }
        if not_var {
            return V::err();
        }
        let d = self.dest(&v, args[skip].span, &format!("get(), argument {}", skip + 1));
        V::scalar(io::get(&p, &f, &d), Ty::Int)
    }

    /// `scanf([f,] fmt, v...)`.
    pub(super) fn pd_scanf(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        let (f, skip) = self.in_file_arg(args);
        if args.len() <= skip {
            self.error(span, "scanf needs a format");
            return V::err();
        }
        let fmt = self.str_arg(&args[skip], "scanf", skip + 1);
        let (n, ds) = self.dests(&args[skip + 1..], "scanf", skip + 2);
        V::scalar(io::scanf(&p, &f, &fmt, n, &ds), Ty::Int)
    }

    /// `sscanf(s, fmt, v...)`.
    pub(super) fn pd_sscanf(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        if args.len() < 2 {
            self.error(span, "sscanf needs a string and a format");
            return V::err();
        }
        let s = self.str_arg(&args[0], "sscanf", 1);
        let fmt = self.str_arg(&args[1], "sscanf", 2);
        let (n, ds) = self.dests(&args[2..], "sscanf", 3);
        V::scalar(io::sscanf(&p, &s, &fmt, n, &ds), Ty::Int)
    }

    /// `open(path, mode)`: a file, or null.
    pub(super) fn pd_open(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        if !self.want(args, 2..=2, "open", span) {
            return V::err();
        }
        let s = self.str_arg(&args[0], "open", 1);
        let m = self.int_arg(&args[1]);
        V::scalar(io::open(&p, &s, &m), Ty::File)
    }

    /// `close(f)`, `flush(f)`, `where(f)`.
    pub(super) fn pd_file_op(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        if !self.want(args, 1..=1, name, span) {
            return V::err();
        }
        let f = self.expr(&args[0]);
        if f.ty != Ty::File && f.ty != Ty::Null && f.ty != Ty::Error {
            self.error(args[0].span, format!("{} needs a file", name));
        }
        let fc = io::file(f.c, f.ty == Ty::Null);
        if name == "where" {
            V::scalar(io::where_(&p, &fc), Ty::Int)
        } else {
            V::scalar(io::file_op(name, &p, &fc), Ty::Void)
        }
    }

    /// `seek(f, how, offset)`.
    pub(super) fn pd_seek(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        if !self.want(args, 3..=3, "seek", span) {
            return V::err();
        }
        let f = self.expr(&args[0]);
        let fc = io::file(f.c, f.ty == Ty::Null);
        let t = self.int_arg(&args[1]);
        let o = self.int_arg(&args[2]);
        V::scalar(io::seek(&p, &fc, &t, &o), Ty::Int)
    }

    /// `remove(path)`.
    pub(super) fn pd_remove(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=1, "remove", span) {
            return V::err();
        }
        let s = self.str_arg(&args[0], "remove", 1);
        V::scalar(io::remove(&s), Ty::Bool)
    }

    /// `getarg(n, v)`: command-line argument n into v.
    pub(super) fn pd_getarg(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let p = self.pos(span);
        if !self.want(args, 2..=2, "getarg", span) {
            return V::err();
        }
        let n = self.int_arg(&args[0]);
        let v = self.expr(&args[1]);
        let d = self.dest(&v, args[1].span, "getarg(), argument 2");
        V::scalar(io::getarg(&p, &n, &d), Ty::Int)
    }

    /// An output value (io::val) of a scalar, string or char array.
    pub fn out_val(&mut self, v: &V) -> String {
        match &v.ty {
            Ty::Int | Ty::Enum(_) => io::val(Out::Int, &v.c),
            Ty::Real => io::val(Out::Real, &v.c),
            Ty::Char => io::val(Out::Char, &v.c),
            Ty::Bool => io::val(Out::Bool, &v.c),
            Ty::Str(_) => {
                let s = self.sv(v);
                io::val(Out::Str, &s)
            }
            t if t.is_char_array() => io::val(Out::Chars, &v.c),
            Ty::Ptr(_) | Ty::PtrAny | Ty::Null => io::val(Out::Ptr, &v.c),
            _ => io::NO_VAL.into(),
        }
    }

    /// `what`: MPD 1.0.1's name of the argument (`write(), argument 2`).
    fn printable(&mut self, v: &V, span: Span, what: &str) -> bool {
        // not null or noop: MPD has no text for them
        let ok = v.ty.is_scalar() && !matches!(v.ty, Ty::File | Ty::Cap(_) | Ty::Void | Ty::Null)
            || v.ty.is_string()
            || v.ty.is_char_array();
        if !ok && v.ty != Ty::Error {
            self.error(span, format!("{}: invalid type (cannot write a {})", what, self.types.show(&v.ty)));
        }
        ok
    }

    /// An input destination (io::dest); `what` names the argument as
    /// MPD 1.0.1 does.  A slice is not a variable here (MPD: not an "easy"
    /// lvalue).
    fn dest(&mut self, v: &V, span: Span, what: &str) -> String {
        // the type first, then the variable (SR 2.3.3's and MPD 1.0.1's order)
        let readable = matches!(v.ty, Ty::Int | Ty::Enum(_) | Ty::Real | Ty::Char | Ty::Bool | Ty::PtrAny)
            || matches!(v.ty, Ty::Ptr(_) | Ty::Str(_))
            || v.ty.is_char_array();
        if !readable && v.ty != Ty::Error {
            self.error(span, format!("{}: invalid type (cannot read into a {})", what, self.types.show(&v.ty)));
            return io::NO_DEST.into();
        }
        if (!v.lv || v.slice.is_some()) && v.ty != Ty::Error {
            self.error(span, format!("{}: not a variable (input goes into a variable)", what));
            return io::NO_DEST.into();
        }
        match &v.ty {
            Ty::Int | Ty::Enum(_) => io::dest(Out::Int, &v.c),
            Ty::Real => io::dest(Out::Real, &v.c),
            Ty::Char => io::dest(Out::Char, &v.c),
            Ty::Bool => io::dest(Out::Bool, &v.c),
            // MPD reads addresses in hex; getarg's table (predef.rs) takes
            // only a `ptr any`
            Ty::PtrAny | Ty::Ptr(_) => io::dest(Out::Ptr, &v.c),
            Ty::Str(_) => io::dest(Out::Str, &v.c),
            t if t.is_char_array() => io::dest(Out::Chars, &v.c),
            Ty::Error => io::NO_DEST.into(),
            _ => io::NO_DEST.into(),
        }
    }

    /// Splits an optional leading file argument off an output call (stdout
    /// without one).
    fn file_arg(&mut self, args: &[Expr]) -> (String, usize) {
        if let Some(a) = args.first() {
            if matches!(self.type_of(a), Ty::File | Ty::Null) {
                let v = self.expr(a);
                return (io::file(v.c, v.ty == Ty::Null), 1);
            }
        }
        (io::STDOUT.into(), 0)
    }

    /// The file argument of an input call (stdin without one).
    /// get/put with two arguments: the first must be the file (SR 2.3.3's
    /// check, before the count).
    fn file_first(&mut self, args: &[Expr], skip: usize, name: &str) -> bool {
        if skip == 0 && args.len() == 2 {
            let t = self.type_of(&args[0]);
            if t != Ty::Error {
                let m = format!("{}(), argument 1: not a file ({})", name, self.types.show(&t));
                self.error(args[0].span, m);
            }
            return false;
        }
        true
    }

    fn in_file_arg(&mut self, args: &[Expr]) -> (String, usize) {
        let (f, skip) = self.file_arg(args);
        (if skip == 0 { io::STDIN.to_string() } else { f }, skip)
    }

    /// The values of output arguments; `first` is the number of args[0]
    /// among `name`'s arguments.
    fn vals(&mut self, args: &[Expr], name: &str, first: usize) -> (usize, String) {
        let mut vs = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let v = self.expr(a);
            if self.printable(&v, a.span, &format!("{}(), argument {}", name, first + i)) {
                vs.push(self.out_val(&v));
            }
        }
        io::val_list(&vs)
    }

    /// The destinations of input arguments (numbered as in `vals`).
    fn dests(&mut self, args: &[Expr], name: &str, first: usize) -> (usize, String) {
        let mut ds = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let v = self.expr(a);
            ds.push(self.dest(&v, a.span, &format!("{}(), argument {}", name, first + i)));
        }
        io::dest_list(&ds)
    }

    /// Argument `n` of predefined function `name`, a string, as a string view
    /// (after an error, ""). MPD 1.0.1 converts no char or char array here.
    pub(super) fn str_arg(&mut self, e: &Expr, name: &str, n: usize) -> String {
        self.text_arg(e, &format!("{}(), argument {}", name, n), false)
    }

    /// A string (or, with `chars`, char array: `put`) argument as a string view;
    /// `what` names it in the message (MPD 1.0.1's words).
    pub(super) fn text_arg(&mut self, e: &Expr, what: &str, chars: bool) -> String {
        let v = self.expr(e);
        if !(v.ty.is_string() || chars && v.ty.is_char_array()) && v.ty != Ty::Error {
            let want = if chars { "not a char array or string" } else { "not a string" };
            self.error(e.span, format!("{}: {} ({})", what, want, self.types.show(&v.ty)));
            return io::EMPTY_SV.into();
        }
        self.sv(&v)
    }
}
