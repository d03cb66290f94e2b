//! predef_args: the argument kinds of MPD's predefined functions, checked in
//! one place before a call is translated.
//!
//! The translation of each function (builtin.rs) may then assume its
//! arguments have the kinds listed here, so a wrong one is a located error in
//! MPD's words ("seek(), argument 1: not a file") and never C that the C
//! compiler rejects or a program that crashes.  Functions with variable
//! argument lists (write, printf, read, min...) are checked where they are
//! translated.
use super::scope::Sym;
use super::types::Ty;
use super::Checker;
use crate::syntax::ast::{Expr, ExprKind, Span};

/// What an argument of a predefined function must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// an int
    Int,
    /// an int or a real (converted)
    Real,
    /// a string, char array or char
    Str,
    /// a file (or null)
    File,
    /// a pointer (or null)
    Ptr,
    /// a value of the predefined enumeration seektype
    Seek,
    /// a value of the predefined enumeration accessmode
    Mode,
    /// a variable that input converts text into
    Dest,
}

impl<'a> Checker<'a> {
    /// Checks the count and kinds of the arguments of predefined function
    /// `name`; false (after reporting) when they are wrong.
    pub fn predef_args_ok(&mut self, name: &str, args: &[Expr], span: Span) -> bool {
        let Some((least, most, kinds)) = super::predef::lookup(name).and_then(|d| d.args) else { return true };
        if args.len() < least {
            self.error(span, format!("{}(): too few arguments (it takes {})", name, count(least, most)));
            return false;
        }
        if args.len() > most {
            self.error(span, format!("{}(): too many arguments (it takes {})", name, count(least, most)));
            return false;
        }
        let mut ok = true;
        for (i, (a, k)) in args.iter().zip(kinds).enumerate() {
            if let Some(msg) = self.arg_problem(*k, a) {
                self.error(a.span, format!("{}(), argument {}: {}", name, i + 1, msg));
                ok = false;
            }
        }
        if !ok {
            // the arguments are not translated after the error, but an op
            // named in them is still referenced (`seek(f, ...)`: MPD 1.0.1
            // says only that f is no file)
            for a in args {
                self.note_op_reference(a);
            }
        }
        ok
    }

    /// Notes an op named as a value in `e` (`f`, `f[i]`) as referenced
    /// other than by an invocation, as translating `e` would (op_sig): its
    /// capability may let it be implemented elsewhere.
    fn note_op_reference(&mut self, e: &Expr) {
        let mut root = e;
        while let ExprKind::Index { base, .. } | ExprKind::Paren(base) = &root.kind {
            root = base;
        }
        if let ExprKind::Ident(id) = &root.kind {
            if let Some(Sym::Proc(sig)) = self.lookup(&id.name).cloned() {
                if sig.op.is_some() {
                    self.op_sig(&sig);
                }
            }
        }
    }

    /// Whether `a` is a wrong argument of kind `k` (type_of_call.rs).
    pub(super) fn arg_problem_of(&mut self, k: Arg, a: &Expr) -> bool {
        self.arg_problem(k, a).is_some()
    }

    /// What is wrong with `a` as an argument of kind `k`, if anything (an
    /// erroneous `a` is reported where it is translated).
    fn arg_problem(&mut self, k: Arg, a: &Expr) -> Option<String> {
        let t = &self.type_of(a);
        if *t == Ty::Error {
            return None;
        }
        let lv = matches!(k, Arg::Dest) && self.is_variable(a);
        let enum_named = |n: &str| matches!(t, Ty::Enum(i) if self.types.enums[*i].name == n);
        let good = match k {
            Arg::Int => *t == Ty::Int,
            Arg::Real => matches!(t, Ty::Int | Ty::Real),
            Arg::Str => t.is_string(),
            Arg::File => matches!(t, Ty::File | Ty::Null),
            Arg::Ptr => matches!(t, Ty::Ptr(_) | Ty::PtrAny | Ty::Null),
            Arg::Seek => enum_named("seektype"),
            Arg::Mode => enum_named("accessmode"),
            Arg::Dest => {
                if !lv {
                    return Some("not a variable".into());
                }
                input_type(t)
            }
        };
        if good {
            return None;
        }
        Some(match k {
            Arg::Int => format!("not an integer ({})", self.types.show(t)),
            Arg::Real => format!("not numeric ({})", self.types.show(t)),
            Arg::Str => format!("not a string ({})", self.types.show(t)),
            Arg::File => format!("not a file ({})", self.types.show(t)),
            Arg::Ptr => format!("not a pointer ({})", self.types.show(t)),
            Arg::Seek => "seektype argument is wrong type (ABSOLUTE, RELATIVE or EXTEND)".into(),
            Arg::Mode => "accessmode argument is wrong type (READ, WRITE or READWRITE)".into(),
            Arg::Dest if matches!(t, Ty::Ptr(_)) => format!(
                "invalid type: cannot read into a {} (an address read from text is only a ptr any)",
                self.types.show(t)
            ),
            Arg::Dest => format!("invalid type: cannot read into a {}", self.types.show(t)),
        })
    }
}

/// Types that input (read, getarg, scanf...) converts text into.  A pointer
/// only as `ptr any`: an address read from text is opaque (it can be written
/// and compared); as a `ptr int` it would be dereferenced, and crash.
pub fn input_type(t: &Ty) -> bool {
    matches!(t, Ty::Int | Ty::Real | Ty::Char | Ty::Bool | Ty::Enum(_) | Ty::Str(_) | Ty::PtrAny | Ty::Error)
        || t.is_char_array()
}

fn count(least: usize, most: usize) -> String {
    if least == most {
        format!("{}", least)
    } else {
        format!("{} to {}", least, most)
    }
}
