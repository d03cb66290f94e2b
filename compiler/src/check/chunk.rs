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
    b.stmts.iter().all(stmt)
}

fn stmt(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Skip | StmtKind::Empty | StmtKind::Exit | StmtKind::Next => true,
        StmtKind::Expr(e) | StmtKind::V(e) | StmtKind::P(e) => expr(e),
        StmtKind::If { arms, else_block } => {
            arms.iter().all(|a| expr(&a.cond) && block_can_chunk(&a.body))
                && else_block.as_ref().map_or(true, block_can_chunk)
        }
        StmtKind::Begin(b) => block_can_chunk(b),
        StmtKind::Decl(d) => match &d.kind {
            DeclKind::Var(v) => {
                v.ty.as_ref().map_or(true, ty)
                    && v.vars.iter().all(|i| i.dims.iter().all(range) && i.init.as_ref().map_or(true, expr))
            }
            _ => false,
        },
        _ => false,
    }
}

fn ty(t: &Type) -> bool {
    match &t.kind {
        TypeKind::Bool | TypeKind::Int | TypeKind::Char | TypeKind::Real | TypeKind::Double => true,
        TypeKind::Named(_) | TypeKind::PtrAny | TypeKind::Cap(_) => true,
        TypeKind::Ptr(t) => ty(t),
        TypeKind::String(b) => b.as_ref().map_or(true, bound),
        _ => false,
    }
}

fn range(r: &Range) -> bool {
    r.lo.as_ref().map_or(true, bound) && bound(&r.hi)
}

fn bound(b: &Bound) -> bool {
    match b {
        Bound::Expr(e) => expr(e),
        Bound::Star(_) => true,
    }
}

fn expr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Real(_) | ExprKind::Char(_) | ExprKind::Str(_) | ExprKind::Bool(_) => true,
        ExprKind::Null | ExprKind::Noop | ExprKind::StdFile(_) | ExprKind::Ident(_) => true,
        ExprKind::Low(_) | ExprKind::High(_) => true,
        ExprKind::Field { base, .. } => expr(base),
        ExprKind::Index { base, subs } => expr(base) && subs.iter().all(subscript),
        // a conversion (`int(x)`) is inline; any other call may switch
        ExprKind::Call { callee, args } => matches!(callee.kind, ExprKind::Type(_)) && args.iter().all(expr),
        ExprKind::Unary { operand, .. } => expr(operand),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } | ExprKind::Swap { lhs, rhs } => {
            expr(lhs) && expr(rhs)
        }
        ExprKind::ArrayCons(elems) => elems.iter().all(elem),
        ExprKind::Paren(e) => expr(e),
        ExprKind::Type(t) => ty(t),
        ExprKind::New(_) | ExprKind::Create { .. } => false,
    }
}

fn subscript(s: &Subscript) -> bool {
    match s {
        Subscript::Index(e) => expr(e),
        Subscript::Slice { lo, hi, .. } => lo.as_ref().map_or(true, bound) && bound(hi),
    }
}

fn elem(a: &ArrayElem) -> bool {
    a.count.as_ref().map_or(true, expr) && expr(&a.value)
}
