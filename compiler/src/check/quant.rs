//! quant: the one check of a quantifier's bounds, step and `st` condition.
//!
//! Every construct with quantifiers (for, co arms, in arms, process arrays)
//! takes its types from here, so a bound of the wrong type is a located error
//! in all of them and never reaches the C compiler.  The rules and words are
//! MPD's: the variable has the start's type, an ordered type (int, char,
//! bool, an enumeration) or real; the limit is comparable with it; the step
//! is an int, or a real in a real quantifier; `st` is a bool.
use super::konst::KV;
use super::types::Ty;
use super::{Checker, V};
use crate::syntax::ast;

/// A checked quantifier: the type of its variable and its parts as C.
pub struct Quant {
    pub ty: Ty,
    /// a real quantifier (its start is a real)
    pub real: bool,
    pub start: V,
    pub end: V,
    /// the step as C (default 1, or -1 for downto)
    pub step: String,
}

impl<'a> Checker<'a> {
    /// Checks and translates the bounds and step of `q` (code for them goes
    /// to the current function).  The `st` condition is checked by
    /// [`Checker::quant_st`] once the variable is declared.
    pub fn quant(&mut self, q: &ast::Quantifier) -> Quant {
        let start = self.expr(&q.start);
        let end = self.expr(&q.end);
        // the variable has the start's type (MPD: `for [i = 1 to 2.5]` counts
        // 1, 2 in an int); an int or real limit is comparable with either
        let mut ty = if start.ty == Ty::Error { end.ty.clone() } else { start.ty.clone() };
        let real = ty == Ty::Real;
        let numeric = |t: &Ty| matches!(t, Ty::Int | Ty::Real | Ty::Error);
        if !real && !ty.is_ordinal() {
            self.error(
                q.start.span,
                format!(
                    "illegal quantifier type: a quantifier ranges over int, char, bool, enum or real values, not {}",
                    self.types.show(&ty)
                ),
            );
            ty = Ty::Error;
        } else if !(numeric(&ty) && numeric(&end.ty)) && !self.types.same(&ty, &end.ty) {
            self.error(
                q.end.span,
                format!(
                    "incompatible quantifier limit: the bounds have different types ({} and {})",
                    self.types.show(&ty),
                    self.types.show(&end.ty)
                ),
            );
        }
        let step = match &q.step {
            Some(s) => {
                let v = self.expr(s);
                if v.ty == Ty::Real && !real {
                    self.error(s.span, "incompatible quantifier increment: a real step needs a real quantifier");
                } else if !matches!(v.ty, Ty::Int | Ty::Real | Ty::Error) {
                    self.error(
                        s.span,
                        format!(
                            "illegal quantifier increment: the step must be an int, not {}",
                            self.types.show(&v.ty)
                        ),
                    );
                }
                if matches!(v.k, Some(KV::Int(0))) {
                    self.error(s.span, "a quantifier step cannot be zero");
                }
                v.c
            }
            None if q.downto => "-1".into(),
            None => "1".into(),
        };
        Quant { ty, real, start, end, step }
    }

    /// The `st` condition of a quantifier as C; it must be a bool.
    pub fn quant_st(&mut self, e: &ast::Expr) -> String {
        let v = self.expr(e);
        if v.ty != Ty::Bool && v.ty != Ty::Error {
            self.error(e.span, format!("`st' expression must be boolean ({})", self.types.show(&v.ty)));
        }
        v.c
    }

    /// Quantifiers whose values are kept in int vectors (co and in arms):
    /// an ordered type is required there.
    pub fn quant_ordinal_only(&mut self, q: &ast::Quantifier, qt: &Quant, what: &str) {
        if qt.real {
            self.error(
                q.span,
                format!("a real quantifier is not supported in {} (use an int quantifier and convert)", what),
            );
        }
    }
}
