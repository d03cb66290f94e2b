//! star_bounds: where a `*` bound may not be written.
//!
//! A `*` bound means "as large as the actual argument", so it only makes
//! sense for parameters (and `new`).  MPD 1.0.1 rejects it in the type of a
//! variable, a record field or an op's return value -- also when it hides
//! behind a type name (`type t = [*] int; t x`).  Arrays are looked at
//! before the string length, outermost first, as MPD does.
use super::Checker;
use crate::syntax::ast::{self, Bound, Range, TypeKind};

/// Which kind of bound is a `*`.
#[derive(Clone, Copy, PartialEq)]
pub enum StarIn {
    Array,
    Str,
}

fn range_star(r: &Range) -> bool {
    matches!(r.hi, Bound::Star(_)) || matches!(r.lo, Some(Bound::Star(_)))
}

impl<'a> Checker<'a> {
    /// The first `*` bound of type `t` with declarator dims `dims`.
    pub(crate) fn star_in(&self, t: &ast::Type, dims: &[Range]) -> Option<StarIn> {
        if dims.iter().any(range_star) {
            return Some(StarIn::Array);
        }
        match &t.kind {
            TypeKind::Array { ranges, elem } => {
                if ranges.iter().any(range_star) {
                    Some(StarIn::Array)
                } else {
                    self.star_in(elem, &[])
                }
            }
            TypeKind::String(Some(Bound::Star(_))) => Some(StarIn::Str),
            TypeKind::Named(q) if q.parts.len() == 1 => self.star_types.get(&q.parts[0].name).copied(),
            _ => None,
        }
    }

    /// Reports a `*` bound in a type where sizes must be known (at `span`).
    /// True when one was reported.
    pub(crate) fn no_stars(&mut self, t: &ast::Type, dims: &[Range], span: ast::Span) -> bool {
        match self.star_in(t, dims) {
            Some(StarIn::Array) => self.error(span, "illegal context for array bound `*'"),
            Some(StarIn::Str) => self.error(span, "illegal context for string bound `*'"),
            None => return false,
        }
        true
    }
}
