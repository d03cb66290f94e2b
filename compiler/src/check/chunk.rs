//! chunk: which loop bodies can take their time slice in chunks.
//!
//! A counted `for` loop whose body cannot switch need not count its time
//! slice at every iteration: it can take the slice in chunks (as many
//! iterations as are left before the next loop-top switch) and yield at
//! exactly the iterations the per-iteration countdown would.  Only the
//! switch points move the countdown (the runtime resets it at every switch),
//! so a body that cannot switch leaves it alone.  The test here is syntactic
//! and conservative: anything that calls out of the generated code (an op
//! or procedure invocation, a predefined function, I/O, `create`, `new`,
//! nested loops with their own loop tops, `in`, ...) disqualifies the
//! loop.  `V` is allowed: it hands its unit over without switching.  So is
//! `P`, which switches only when it waits: it is emitted as a chunked P
//! (emit/inop.rs `p_chunked`), which on that path alone takes up what the
//! countdown became after the wait (putting it back first where the wait
//! might not switch), so the yields stay exact (mpd/abi/ops.h).
use crate::syntax::ast::{
    ArrayElem, Block, Bound, DeclKind, Expr, ExprKind, Range, Stmt, StmtKind, Subscript, Type, TypeKind,
};

/// The C names of a loop taking its slice in chunks: `sl` is the countdown
/// as it will be after the chunk's last iteration, `unrun` the iterations
/// of the chunk after the current one (what an `exit` gives back).
pub struct ChunkVars {
    /// Its depth in the checker's loop_labels.
    pub depth: usize,
    pub sl: String,
    pub unrun: String,
}

/// Whether `b` can run in a chunked loop: it cannot switch to another
/// process, except in a `P` that waits (emitted as a chunked P).
pub fn block_can_chunk(b: &Block) -> bool {
    let w = Walk { call: &|callee: &Expr, _: &[Expr]| matches!(callee.kind, ExprKind::Type(_)), p: true };
    b.stmts.iter().all(|s| w.stmt(s))
}

/// Whether `b` cannot switch to another process at all (no `P` either),
/// where `call(callee, args)` says which calls keep it so (their arguments
/// are looked at here).
pub fn block_cannot_switch(b: &Block, call: &dyn Fn(&Expr, &[Expr]) -> bool) -> bool {
    let w = Walk { call, p: false };
    b.stmts.iter().all(|s| w.stmt(s))
}

/// The walk: which calls are inline, and whether a `P` is allowed.
struct Walk<'c> {
    call: &'c dyn Fn(&Expr, &[Expr]) -> bool,
    p: bool,
}

impl Walk<'_> {
    fn block(&self, b: &Block) -> bool {
        b.stmts.iter().all(|s| self.stmt(s))
    }

    fn stmt(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Skip | StmtKind::Empty | StmtKind::Exit | StmtKind::Next => true,
            StmtKind::Expr(e) | StmtKind::V(e) => self.expr(e),
            StmtKind::P(e) => self.p && self.expr(e),
            StmtKind::If { arms, else_block } => {
                arms.iter().all(|a| self.expr(&a.cond) && self.block(&a.body))
                    && else_block.as_ref().map_or(true, |b| self.block(b))
            }
            StmtKind::Begin(b) => self.block(b),
            StmtKind::Decl(d) => match &d.kind {
                DeclKind::Var(v) => {
                    v.ty.as_ref().map_or(true, |t| self.ty(t))
                        && v.vars.iter().all(|i| {
                            i.dims.iter().all(|r| self.range(r)) && i.init.as_ref().map_or(true, |e| self.expr(e))
                        })
                }
                _ => false,
            },
            _ => false,
        }
    }

    fn ty(&self, t: &Type) -> bool {
        match &t.kind {
            TypeKind::Bool | TypeKind::Int | TypeKind::Char | TypeKind::Real | TypeKind::Double => true,
            TypeKind::Named(_) | TypeKind::PtrAny | TypeKind::Cap(_) => true,
            TypeKind::Ptr(t) => self.ty(t),
            TypeKind::String(b) => b.as_ref().map_or(true, |b| self.bound(b)),
            _ => false,
        }
    }

    fn range(&self, r: &Range) -> bool {
        r.lo.as_ref().map_or(true, |b| self.bound(b)) && self.bound(&r.hi)
    }

    fn bound(&self, b: &Bound) -> bool {
        match b {
            Bound::Expr(e) => self.expr(e),
            Bound::Star(_) => true,
        }
    }

    fn expr(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Real(_) | ExprKind::Char(_) | ExprKind::Str(_) | ExprKind::Bool(_) => true,
            ExprKind::Null | ExprKind::Noop | ExprKind::StdFile(_) | ExprKind::Ident(_) => true,
            ExprKind::Low(_) | ExprKind::High(_) => true,
            ExprKind::Field { base, .. } => self.expr(base),
            ExprKind::Index { base, subs } => self.expr(base) && subs.iter().all(|s| self.subscript(s)),
            // a conversion (`int(x)`) is inline; which other calls are is the walk's
            ExprKind::Call { callee, args } => (self.call)(callee, args) && args.iter().all(|a| self.expr(a)),
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } | ExprKind::Swap { lhs, rhs } => {
                self.expr(lhs) && self.expr(rhs)
            }
            ExprKind::ArrayCons(elems) => elems.iter().all(|a| self.elem(a)),
            ExprKind::Paren(e) => self.expr(e),
            ExprKind::Type(t) => self.ty(t),
            ExprKind::New(_) | ExprKind::Create { .. } => false,
        }
    }

    fn subscript(&self, s: &Subscript) -> bool {
        match s {
            Subscript::Index(e) => self.expr(e),
            Subscript::Slice { lo, hi, .. } => lo.as_ref().map_or(true, |b| self.bound(b)) && self.bound(hi),
        }
    }

    fn elem(&self, a: &ArrayElem) -> bool {
        a.count.as_ref().map_or(true, |c| self.expr(c)) && self.expr(&a.value)
    }
}
