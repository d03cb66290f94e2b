//! untyped_init: `var x := e` and `const c := e` without a type take e's type,
//! so e must have one.
//!
//! Rejected with MPD 1.0.1's and SR 2.3.3's "illegal initializer": a call of
//! an operation that returns nothing (`var x := f()`), and `null` or `noop`,
//! which have no type of their own.  A type name written as the initializer
//! (`var p := t`, `var p := r.t`) is the same error, but the declaration
//! most likely meant `var p : t`, so the variable gets that type and later
//! uses are checked against it instead of being silenced.
use super::resolved::Resolved;
use super::types::Ty;
use super::typexpr::Tyx;
use super::Checker;
use crate::syntax::ast::{self, Expr, ExprKind, QualName};

impl<'a> Checker<'a> {
    /// When the initializer of an untyped declarator names a type: reports it
    /// and returns that type, to declare the variable with.
    pub(super) fn untyped_init_names_type(&mut self, init: &Expr) -> Option<Tyx> {
        // what the name or component member names (resolved.rs)
        let q = match (&init.kind, self.resolution(init)) {
            (ExprKind::Ident(id), Resolved::Type(_)) => QualName { parts: vec![id.clone()], span: init.span },
            (ExprKind::Field { base, name }, Resolved::Member(m)) if matches!(*m, Resolved::Type(_)) => {
                let ExprKind::Ident(b) = &base.kind else { return None };
                QualName { parts: vec![b.clone(), name.clone()], span: init.span }
            }
            _ => return None,
        };
        let shown: Vec<&str> = q.parts.iter().map(|p| p.name.as_str()).collect();
        let shown = shown.join(".");
        self.error(
            init.span,
            format!("illegal initializer: {} is a type, not a value (`: {}` declares one)", shown, shown),
        );
        let t = ast::Type::new(ast::TypeKind::Named(q), init.span);
        Some(self.tyx(&t, true))
    }

    /// False (after reporting) when an untyped declarator's initializer has
    /// no type to give it.
    pub(super) fn untyped_init_has_type(&mut self, ty: &Ty, span: ast::Span) -> bool {
        let why = match ty {
            Ty::Void => "the operation returns no value",
            Ty::Null => "null and noop have no type of their own; declare one",
            _ => return true,
        };
        self.error(span, format!("illegal initializer ({})", why));
        false
    }
}
