//! Leaf procs: a proc whose body cannot switch to another process (no loop,
//! which yields at its top; no invocation, input, P/V, create, destroy or
//! stop; only predefined functions that neither block nor do I/O).  A
//! direct call of it from another resource needs no hold on the callee's
//! instance (the op's leaf flag, runtime lang/reclaim.c): nothing can
//! destroy the instance while it runs, and on several VPs the grace period
//! covers it.  Every other direct proc is called holding the instance, so a
//! destroy meanwhile keeps its memory until the call returns.
use super::scope::Sym;
use super::Checker;
use crate::syntax::ast::{Bound, DeclKind, Expr, ExprKind, Stmt, StmtKind, Subscript};

/// Predefined functions that neither block, switch nor do I/O.
pub(super) fn pure_predefined(name: &str) -> bool {
    matches!(
        name,
        "sqrt"
            | "ceil"
            | "floor"
            | "round"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "log"
            | "exp"
            | "atan"
            | "abs"
            | "min"
            | "max"
            | "pred"
            | "succ"
            | "lb"
            | "ub"
            | "length"
            | "maxlength"
            | "age"
            | "mypriority"
            | "myresource"
            | "myvm"
            | "mymachine"
            | "numargs"
    ) || {
        let b = name.as_bytes();
        b.len() == 3 && (b[0] == b'l' || b[0] == b'u') && b[1] == b'b' && (b'1'..=b'9').contains(&b[2])
    }
}

impl<'a> Checker<'a> {
    /// Whether a proc with this body is a leaf (see the top of the file).
    pub fn is_leaf_body(&self, stmts: &[Stmt]) -> bool {
        stmts.iter().all(|s| self.leaf_stmt(s))
    }

    fn leaf_stmt(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Skip | StmtKind::Empty => true,
            StmtKind::Expr(e) => self.leaf_expr(e),
            StmtKind::Return(e) => e.as_ref().map_or(true, |e| self.leaf_expr(e)),
            StmtKind::If { arms, else_block } => {
                arms.iter().all(|a| self.leaf_expr(&a.cond) && self.is_leaf_body(&a.body.stmts))
                    && else_block.as_ref().map_or(true, |b| self.is_leaf_body(&b.stmts))
            }
            StmtKind::Begin(b) => self.is_leaf_body(&b.stmts),
            StmtKind::Decl(d) => match &d.kind {
                DeclKind::Var(v) => {
                    v.vars.iter().all(|it| it.dims.is_empty() && it.init.as_ref().map_or(true, |e| self.leaf_expr(e)))
                }
                DeclKind::Type { .. } | DeclKind::Optype { .. } => true,
                _ => false,
            },
            _ => false,
        }
    }

    fn leaf_expr(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Real(_)
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Null
            | ExprKind::Noop
            | ExprKind::StdFile(_)
            | ExprKind::Ident(_)
            | ExprKind::Low(_)
            | ExprKind::High(_) => true,
            ExprKind::Field { base, .. } => self.leaf_expr(base),
            ExprKind::Index { base, subs } => {
                self.leaf_expr(base)
                    && subs.iter().all(|s| match s {
                        Subscript::Index(e) => self.leaf_expr(e),
                        Subscript::Slice { lo, hi, .. } => {
                            lo.as_ref().map_or(true, |b| self.leaf_bound(b)) && self.leaf_bound(hi)
                        }
                    })
            }
            ExprKind::Unary { operand, .. } => self.leaf_expr(operand),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } | ExprKind::Swap { lhs, rhs } => {
                self.leaf_expr(lhs) && self.leaf_expr(rhs)
            }
            ExprKind::ArrayCons(es) => {
                es.iter().all(|a| a.count.as_ref().map_or(true, |c| self.leaf_expr(c)) && self.leaf_expr(&a.value))
            }
            ExprKind::Paren(e) => self.leaf_expr(e),
            ExprKind::Call { callee, args } => {
                let callee_ok = match &callee.kind {
                    ExprKind::Type(_) => true, // a conversion
                    ExprKind::Ident(id) => {
                        pure_predefined(&id.name)
                            && match self.lookup(&id.name) {
                                None => true,
                                Some(Sym::Proc(_)) => self.imported_only_name(&id.name),
                                Some(_) => false,
                            }
                    }
                    _ => false,
                };
                callee_ok && args.iter().all(|a| self.leaf_expr(a))
            }
            ExprKind::Type(_) | ExprKind::New(_) | ExprKind::Create { .. } => false,
        }
    }

    fn leaf_bound(&self, b: &Bound) -> bool {
        match b {
            Bound::Expr(e) => self.leaf_expr(e),
            Bound::Star(_) => true,
        }
    }
}
