//! predef: MPD's predefined functions as a table -- name, argument count and
//! kinds, result, and the function that checks and translates a call.
//!
//! A call of a predefined function is checked against its row (predef_args.rs
//! checks a fixed argument list before the handler runs), then handed to the
//! row's handler, which translates the arguments and asks emit/ (io.rs for
//! I/O, builtin.rs for the rest) for the C.  Functions with variable argument
//! lists (write, printf, read, min...) check their arguments in the handler.
use super::konst::{wrap, KV};
use super::predef_args::Arg;
use super::types::{CapTy, Ty};
use super::{Checker, Form, V};
use crate::emit::builtin as eb;
use crate::syntax::ast::{Expr, ExprKind};

/// Checks and translates a call of a predefined function (name, arguments,
/// the call's node).
pub type Handler = for<'a, 'b, 'c, 'd, 'e> fn(&'a mut Checker<'b>, &'c str, &'d [Expr], &'e Expr) -> V;

/// What a predefined function returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Res {
    Void,
    Int,
    Real,
    Bool,
    File,
    /// an array of chars (chars)
    Chars,
    /// the (common) type of the arguments, int and real giving real (abs, min, max, pred, succ)
    ArgType,
    /// the index type of the dimension asked for (lb, ub)
    IndexType,
    /// a virtual machine capability (myvm)
    Vm,
    /// a capability for this resource (myresource)
    Resource,
}

impl Res {
    /// Whether a call's value of type `t` follows this rule (an erroneous
    /// call's value is Ty::Error).
    pub fn admits(self, t: &Ty) -> bool {
        *t == Ty::Error
            || match self {
                Res::Void => *t == Ty::Void,
                Res::Int => *t == Ty::Int,
                Res::Real => *t == Ty::Real,
                Res::Bool => *t == Ty::Bool,
                Res::File => *t == Ty::File,
                Res::Chars => t.is_char_array(),
                Res::ArgType | Res::IndexType => true,
                Res::Vm => *t == Ty::Cap(CapTy::Vm),
                Res::Resource => matches!(t, Ty::Cap(CapTy::Resource(_))),
            }
    }
}

/// One row of the table.
pub struct Predef {
    pub names: &'static [&'static str],
    /// (least, most, kind of each) of a fixed argument list, checked before
    /// the handler; None: the handler checks a variable list.
    pub args: Option<(usize, usize, &'static [Arg])>,
    pub result: Res,
    pub handler: Handler,
}

/// A handler method as a table entry.
macro_rules! h {
    ($m:ident) => {
        |c, name, args, call| c.$m(name, args, call)
    };
}

use Arg::*;
const REAL1: &[Arg] = &[Real];
const REAL2: &[Arg] = &[Real, Real];
const NONE: &[Arg] = &[];

/// MPD's predefined functions.
pub static PREDEFS: &[Predef] = &[
    Predef { names: &["write", "writes"], args: None, result: Res::Void, handler: h!(pd_write) },
    Predef { names: &["put"], args: None, result: Res::Void, handler: h!(pd_put) },
    Predef { names: &["printf"], args: None, result: Res::Void, handler: h!(pd_printf) },
    Predef { names: &["sprintf"], args: None, result: Res::Void, handler: h!(pd_sprintf) },
    Predef { names: &["read"], args: None, result: Res::Int, handler: h!(pd_read) },
    Predef { names: &["get"], args: None, result: Res::Int, handler: h!(pd_get) },
    Predef { names: &["scanf"], args: None, result: Res::Int, handler: h!(pd_scanf) },
    Predef { names: &["sscanf"], args: None, result: Res::Int, handler: h!(pd_sscanf) },
    Predef { names: &["open"], args: Some((2, 2, &[Str, Mode])), result: Res::File, handler: h!(pd_open) },
    Predef { names: &["close", "flush"], args: Some((1, 1, &[File])), result: Res::Void, handler: h!(pd_file_op) },
    Predef { names: &["where"], args: Some((1, 1, &[File])), result: Res::Int, handler: h!(pd_file_op) },
    Predef { names: &["seek"], args: Some((3, 3, &[File, Seek, Int])), result: Res::Int, handler: h!(pd_seek) },
    Predef { names: &["remove"], args: Some((1, 1, &[Str])), result: Res::Bool, handler: h!(pd_remove) },
    Predef { names: &["getarg"], args: Some((2, 2, &[Int, Dest])), result: Res::Int, handler: h!(pd_getarg) },
    Predef {
        names: &["numargs", "age", "mymachine", "mypriority"],
        args: Some((0, 0, NONE)),
        result: Res::Int,
        handler: h!(pd_system),
    },
    Predef { names: &["myvm"], args: Some((0, 0, NONE)), result: Res::Vm, handler: h!(pd_system) },
    Predef { names: &["myresource"], args: Some((0, 0, NONE)), result: Res::Resource, handler: h!(pd_system) },
    Predef { names: &["random"], args: Some((0, 2, REAL2)), result: Res::Real, handler: h!(pd_random) },
    Predef { names: &["seed"], args: Some((1, 1, REAL1)), result: Res::Void, handler: h!(pd_seed) },
    Predef {
        names: &["sqrt", "ceil", "floor", "round", "sin", "cos", "tan", "asin", "acos"],
        args: Some((1, 1, REAL1)),
        result: Res::Real,
        handler: h!(pd_math1),
    },
    Predef { names: &["log", "exp", "atan"], args: Some((1, 2, REAL2)), result: Res::Real, handler: h!(pd_math12) },
    Predef { names: &["abs"], args: None, result: Res::ArgType, handler: h!(pd_abs) },
    Predef { names: &["min", "max"], args: None, result: Res::ArgType, handler: h!(pd_min_max) },
    Predef { names: &["pred", "succ"], args: None, result: Res::ArgType, handler: h!(pd_pred_succ) },
    Predef { names: &["lb", "ub"], args: None, result: Res::IndexType, handler: h!(pd_bound) },
    Predef {
        names: &[
            "lb1", "lb2", "lb3", "lb4", "lb5", "lb6", "lb7", "lb8", "lb9", "ub1", "ub2", "ub3", "ub4", "ub5", "ub6",
            "ub7", "ub8", "ub9",
        ],
        args: None,
        result: Res::IndexType,
        handler: h!(pd_bound_n),
    },
    Predef { names: &["length", "maxlength"], args: None, result: Res::Int, handler: h!(pd_length) },
    Predef { names: &["chars"], args: None, result: Res::Chars, handler: h!(pd_chars) },
    Predef { names: &["free"], args: Some((1, 1, &[Ptr])), result: Res::Void, handler: h!(pd_free) },
    Predef { names: &["nap"], args: Some((1, 1, &[Int])), result: Res::Void, handler: h!(pd_nap) },
    Predef { names: &["locate"], args: Some((2, 3, &[Int, Str, Str])), result: Res::Void, handler: h!(pd_locate) },
    Predef { names: &["setpriority"], args: Some((1, 1, &[Int])), result: Res::Void, handler: h!(pd_setpriority) },
];

/// The row of predefined function `name`, if it is one.
pub fn lookup(name: &str) -> Option<&'static Predef> {
    PREDEFS.iter().find(|d| d.names.contains(&name))
}

impl<'a> Checker<'a> {
    /// A call of predefined function `name` (node `call`): its row's
    /// argument check, then its handler.
    pub(super) fn predefined(&mut self, call: &Expr, name: &str, args: &[Expr]) -> V {
        let span = call.span;
        let Some(d) = lookup(name) else {
            self.undefined(span, name);
            return V::err();
        };
        if !self.predef_args_ok(name, args, span) {
            return V::err();
        }
        let v = (d.handler)(self, name, args, call);
        debug_assert!(d.result.admits(&v.ty), "{}() gave a {:?}", name, v.ty);
        v
    }

    /// numargs, age, mymachine, mypriority, myvm, myresource: no arguments.
    fn pd_system(&mut self, name: &str, _: &[Expr], _: &Expr) -> V {
        match name {
            "numargs" => V::scalar(eb::NUMARGS.into(), Ty::Int),
            "age" => V::scalar(eb::AGE.into(), Ty::Int),
            "myvm" => V::scalar(eb::myvm(&self.self_arg()), Ty::Cap(CapTy::Vm)),
            "mymachine" => V::scalar(eb::mymachine(&self.self_arg()), Ty::Int),
            "mypriority" => V::scalar(eb::MYPRIORITY.into(), Ty::Int),
            // the instance whose code this is (self): right in a proc called
            // directly from another resource too, as in MPD 1.0.1
            _ => V::scalar(eb::myresource(&self.self_arg()), Ty::Cap(CapTy::Resource(self.comp.clone()))),
        }
    }

    /// `random()`, `random(ub)`, `random(lb, ub)`.
    fn pd_random(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 0..=2, "random", span) {
            return V::err();
        }
        let a: Vec<String> = args.iter().map(|a| self.real_arg(a)).collect();
        V::scalar(eb::random(&a), Ty::Real)
    }

    /// `seed(x)`.
    fn pd_seed(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=1, "seed", span) {
            return V::err();
        }
        let a = self.real_arg(&args[0]);
        V::scalar(eb::seed(&a), Ty::Void)
    }

    /// sqrt, ceil, floor, round, sin, cos, tan, asin, acos of a number.
    fn pd_math1(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=1, name, span) {
            return V::err();
        }
        let a = self.real_arg(&args[0]);
        V::scalar(eb::math1(name, &a), Ty::Real)
    }

    /// log, exp, atan of one number, or two (a base; atan2).
    fn pd_math12(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=2, name, span) {
            return V::err();
        }
        let a: Vec<String> = args.iter().map(|a| self.real_arg(a)).collect();
        V::scalar(eb::math12(name, &a), Ty::Real)
    }

    /// `abs(x)` of an int (folded when constant) or a real.
    fn pd_abs(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let Some(v) = self.one_arg(args, span, "abs") else { return V::err() };
        match (&v.ty, &v.k) {
            (Ty::Int, Some(KV::Int(n))) => self.konst(KV::Int(wrap(n.abs())), Ty::Int),
            (Ty::Int, _) => V::scalar(eb::abs(&v.c, false), Ty::Int),
            (Ty::Real, _) => V::scalar(eb::abs(&v.c, true), Ty::Real),
            (Ty::Error, _) => V::err(),
            _ => {
                let t = self.types.show(&v.ty);
                self.error(span, format!("abs(), argument 1: not an integer ({}: abs takes an int or real)", t));
                V::err()
            }
        }
    }

    /// `min(x...)`, `max(x...)` of ordered values of one type, or numbers
    /// (real if any is); folded over int constants.
    fn pd_min_max(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if args.is_empty() {
            self.error(span, format!("{} needs arguments", name));
            return V::err();
        }
        let vs: Vec<V> = args.iter().map(|a| self.expr(a)).collect();
        let real = vs.iter().any(|v| v.ty == Ty::Real);
        let ty = if real { Ty::Real } else { vs[0].ty.clone() };
        // SR 2.3.3's words: each argument is checked against the first's type
        // (int if that is not ordered; real takes ints too)
        if !(ty.is_ordinal() || ty == Ty::Real) {
            if !vs.iter().any(|v| v.ty == Ty::Error) {
                self.error(
                    span,
                    format!("{}(), argument 1: not an integer ({} takes ordered or real arguments)", name, name),
                );
            }
            return V::err();
        }
        if let Some(i) =
            vs.iter().position(|v| v.ty != Ty::Error && !(self.types.same(&v.ty, &ty) || (real && v.ty == Ty::Int)))
        {
            let what = match ty {
                Ty::Real => "not numeric",
                Ty::Int => "not an integer",
                Ty::Enum(_) => "not an enum",
                _ => "incorrect type",
            };
            self.error(
                span,
                format!("{}(), argument {}: {} (the arguments of {} must have the same type)", name, i + 1, what, name),
            );
            return V::err();
        }
        let mut acc: Option<V> = None;
        for v in vs {
            let v = if real { self.coerce(v, &Ty::Real) } else { v };
            if !self.types.same(&v.ty, &ty) {
                self.error(span, format!("the arguments of {} must have the same type", name));
                return V::err();
            }
            acc = Some(match acc {
                None => v,
                Some(a) => {
                    if let (Some(KV::Int(x)), Some(KV::Int(y))) = (&a.k, &v.k) {
                        let r = if name == "min" { *x.min(y) } else { *x.max(y) };
                        self.konst(KV::Int(r), ty.clone())
                    } else {
                        let ct = self.ctype(&ty);
                        V::scalar(eb::min_max(&ct, name == "min", &a.c, &v.c), ty.clone())
                    }
                }
            });
        }
        // a value, not the variable of a single argument (`max(c) = 3`)
        V { ty, lv: false, slice: None, ..acc.unwrap() }
    }

    /// `pred(x)`, `succ(x)` of an ordered value (checked at run time but for ints).
    fn pd_pred_succ(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let Some(v) = self.one_arg(args, span, name) else { return V::err() };
        if !v.ty.is_ordinal() {
            if v.ty != Ty::Error {
                self.error(
                    args[0].span,
                    format!("{}(), argument 1: invalid type ({} is not an ordered type)", name, self.types.show(&v.ty)),
                );
            }
            return V::err();
        }
        let p = self.pos(span);
        let succ = name == "succ";
        match &v.ty {
            Ty::Int => V::scalar(eb::int_step(&v.c, succ), Ty::Int),
            Ty::Enum(e) => {
                let n = self.types.enums[e.clone()].lits.len();
                V::scalar(eb::ord_step(&p, &v.c, succ, n - 1, name, ""), v.ty.clone())
            }
            Ty::Char => V::scalar(eb::ord_step(&p, &v.c, succ, 255, name, &self.ctype(&Ty::Char)), Ty::Char),
            _ => V::scalar(eb::ord_step(&p, &v.c, succ, 1, name, &self.ctype(&Ty::Bool)), Ty::Bool),
        }
    }

    /// `lb(a [, dim])`, `ub(a [, dim])`: dim is an integer literal.
    fn pd_bound(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=2, name, span) {
            return V::err();
        }
        let dim = match args.get(1) {
            // MPD 1.0.1 takes an integer literal only (not a constant's name)
            Some(d) if !is_int_literal(d) => {
                self.error(
                    d.span,
                    format!("{}(), argument 2: not integer literal (write the dimension as a number)", name),
                );
                1
            }
            Some(d) => match self.expr(d).k {
                Some(KV::Int(n)) if n >= 1 => bound_dim(Some(d)),
                Some(KV::Int(_)) => {
                    self.error(d.span, format!("{}(), argument 2: value must be greater than zero", name));
                    1
                }
                _ => {
                    self.error(
                        d.span,
                        format!("{}(), argument 2: not integer literal (a positive int constant)", name),
                    );
                    1
                }
            },
            None => 1,
        };
        self.array_bound(call, name == "lb", &args[0], dim)
    }

    /// `lb1(a)` .. `ub9(a)`: lb(a, 1) .. ub(a, 9).
    fn pd_bound_n(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=1, name, span) {
            return V::err();
        }
        let dim = (name.as_bytes()[2] - b'0') as i64;
        // the old spelling, which SR 2.3.3 and MPD 1.0.1 accept with a warning
        self.diags.warning(span, format!("{}() changed to {}(,{})", name, &name[..2], dim));
        self.array_bound(call, name.starts_with('l'), &args[0], dim)
    }

    /// `length(s)`, `maxlength(s)`: folded when known at compile time.
    fn pd_length(&mut self, name: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let Some(v) = self.one_arg(args, span, name) else { return V::err() };
        if !v.ty.is_string() {
            if v.ty != Ty::Error {
                self.error(span, format!("{}(), argument 1: not a string ({} takes a string)", name, name));
            }
            return V::err();
        }
        if let Some(KV::Str(s)) = &v.k {
            return self.konst(KV::Int(s.len() as i64), Ty::Int);
        }
        if name == "maxlength" {
            if let Ty::Str(Some(n)) = v.ty {
                return self.konst(KV::Int(n), Ty::Int);
            }
            if v.form == Form::Blob {
                return V::scalar(eb::str_max(&v.c), Ty::Int);
            }
        }
        let s = self.sv(&v);
        V::scalar(eb::sv_len(&s), Ty::Int)
    }

    /// `chars(s)`: the characters of a string (or char) as a char array.
    fn pd_chars(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let Some(v) = self.one_arg(args, span, "chars") else { return V::err() };
        if !(v.ty.is_string() || v.ty == Ty::Char) {
            if v.ty != Ty::Error {
                self.error(
                    args[0].span,
                    format!(
                        "chars(), argument 1: illegal type for conversion ({}; chars takes a string)",
                        self.types.show(&v.ty)
                    ),
                );
            }
            return V::err();
        }
        let s = self.sv(&v);
        let t = self.t();
        V { c: eb::chars(t, &s), ty: Ty::arr(Ty::Char, None, None), form: Form::Blob, k: None, lv: false, slice: None }
    }

    /// `free(p)`.
    fn pd_free(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        let Some(v) = self.one_arg(args, span, "free") else { return V::err() };
        if !matches!(v.ty, Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::Error) {
            self.error(span, "free needs a pointer");
        }
        let p = self.pos(span);
        V::scalar(eb::free(&p, &v.c), Ty::Void)
    }

    /// `nap(ms)`.
    fn pd_nap(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=1, "nap", span) {
            return V::err();
        }
        let a = self.int_arg(&args[0]);
        V::scalar(eb::nap(&a), Ty::Void)
    }

    /// `locate(n, host [, path])`: machine number n names host.
    fn pd_locate(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 2..=3, "locate", span) {
            return V::err();
        }
        let n = self.int_arg(&args[0]);
        let h = self.expr(&args[1]);
        if !(h.ty.is_string() || h.ty == Ty::Error || h.ty.is_char_array()) {
            self.error(args[1].span, "locate needs a host name string");
            return V::err();
        }
        let hs = self.sv(&h);
        let mut ps = crate::emit::io::EMPTY_SV.to_string();
        if let Some(p) = args.get(2) {
            let pv = self.expr(p);
            if !(pv.ty.is_string() || pv.ty == Ty::Error || pv.ty.is_char_array()) {
                self.error(p.span, "locate needs a path string");
            } else {
                ps = self.sv(&pv);
            }
        }
        let pos = self.pos(span);
        V::scalar(eb::locate(&pos, &n, &hs, &ps), Ty::Void)
    }

    /// `setpriority(n)`.
    fn pd_setpriority(&mut self, _: &str, args: &[Expr], call: &Expr) -> V {
        let span = call.span;
        if !self.want(args, 1..=1, "setpriority", span) {
            return V::err();
        }
        let a = self.int_arg(&args[0]);
        V::scalar(eb::setpriority(&a), Ty::Void)
    }
}

/// Names of MPD's predefined functions.
pub(crate) fn is_predefined(name: &str) -> bool {
    lookup(name).is_some()
}

/// An integer literal, possibly in parentheses.
/// The dimension `lb(a, d)` or `ub(a, d)` asks for (d None: the first):
/// d's value when it is an integer literal greater than zero, else 1 (the
/// handler, pd_bound, reports a d that is none).  The translation and the
/// type rule (index_type_result) both take it from here.
pub(super) fn bound_dim(d: Option<&Expr>) -> i64 {
    match d.map(|d| &d.kind) {
        Some(ExprKind::Paren(x)) => bound_dim(Some(x)),
        Some(ExprKind::Int(n)) if wrap(*n) >= 1 => wrap(*n),
        _ => 1,
    }
}

fn is_int_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) => true,
        ExprKind::Paren(x) => is_int_literal(x),
        _ => false,
    }
}
