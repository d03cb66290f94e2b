//! loop_var: whether a `for` body may assign its control variable.
//!
//! In MPD 1.0.1 a `for` quantifier's variable is the loop counter itself:
//! assigning it in the body changes the iteration (`i = i + 2` skips two).
//! Our loop counts in a wide C counter and gives the body a copy, which is
//! what keeps the chunked loop (chunk.rs) and the plain one tight; only a
//! body that may assign the variable gets the copy stored back before the
//! step.  The test is syntactic and conservative: an assignment, swap,
//! `++`/`--` of the name, the name passed alone as an argument (a `var` or
//! `res` parameter, `read`, `scanf`) or received into.
use crate::syntax::ast::{ArrayElem, Block, DeclKind, Expr, ExprKind, Stmt, StmtKind, Subscript, UnaryOp};

/// Predefined functions whose arguments are never assigned.
const BY_VALUE: &[&str] = &[
    "write", "writes", "printf", "fprintf", "abs", "min", "max", "int", "char", "bool", "real", "string", "sqrt",
    "pred", "succ",
];

/// Whether `stmts` may assign the variable `name`.
pub fn assigns(stmts: &[Stmt], name: &str) -> bool {
    stmts.iter().any(|s| stmt(s, name))
}

fn block(b: &Block, name: &str) -> bool {
    assigns(&b.stmts, name)
}

fn stmt(s: &Stmt, n: &str) -> bool {
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Call(e) | StmtKind::Forward(e) | StmtKind::Receive(e) => expr(e, n),
        // a sent invocation takes its arguments by value
        StmtKind::Send { inv, .. } => match &inv.kind {
            ExprKind::Call { callee, args } => expr(callee, n) || args.iter().any(|a| expr(a, n)),
            _ => expr(inv, n),
        },
        StmtKind::Stop(e) | StmtKind::Return(e) => e.as_ref().map_or(false, |e| expr(e, n)),
        StmtKind::P(e) | StmtKind::V(e) | StmtKind::Destroy(e) => expr(e, n),
        StmtKind::If { arms, else_block } => {
            arms.iter().any(|a| expr(&a.cond, n) || block(&a.body, n))
                || else_block.as_ref().map_or(false, |b| block(b, n))
        }
        StmtKind::While { cond, body } => expr(cond, n) || block(body, n),
        StmtKind::For { body, .. } | StmtKind::Begin(body) => block(body, n),
        StmtKind::In(i) => {
            i.arms.iter().any(|a| block(&a.body, n)) || i.else_block.as_ref().map_or(false, |b| block(b, n))
        }
        StmtKind::Co(c) => c.arms.iter().any(|a| expr(&a.inv, n) || a.post.as_ref().map_or(false, |b| block(b, n))),
        // an initializer may call with the name as an argument; bounds of
        // declared arrays are conservatively taken to assign
        StmtKind::Decl(d) => match &d.kind {
            DeclKind::Var(v) => {
                v.vars.iter().any(|x| !x.dims.is_empty() || x.init.as_ref().map_or(false, |e| expr(e, n)))
            }
            _ => false,
        },
        StmtKind::Skip | StmtKind::Exit | StmtKind::Next | StmtKind::Reply | StmtKind::Empty => false,
    }
}

/// `e` is the name itself (possibly in parentheses).
fn is_name(e: &Expr, n: &str) -> bool {
    match &e.kind {
        ExprKind::Ident(id) => id.name == n,
        ExprKind::Paren(x) => is_name(x, n),
        _ => false,
    }
}

fn expr(e: &Expr, n: &str) -> bool {
    match &e.kind {
        ExprKind::Assign { lhs, rhs, .. } => is_name(lhs, n) || expr(lhs, n) || expr(rhs, n),
        ExprKind::Swap { lhs, rhs } => is_name(lhs, n) || is_name(rhs, n) || expr(lhs, n) || expr(rhs, n),
        ExprKind::Unary { op, operand } => {
            (matches!(op, UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec)
                && is_name(operand, n))
                || expr(operand, n)
        }
        ExprKind::Call { callee, args } => {
            // output and conversions take their arguments by value
            let by_value = match &callee.kind {
                ExprKind::Ident(id) => BY_VALUE.contains(&id.name.as_str()),
                ExprKind::Type(_) => true,
                _ => false,
            };
            expr(callee, n) || args.iter().any(|a| (!by_value && is_name(a, n)) || expr(a, n))
        }
        ExprKind::Create { args, on, .. } => {
            args.iter().any(|a| is_name(a, n) || expr(a, n)) || on.as_ref().map_or(false, |o| expr(o, n))
        }
        ExprKind::Binary { lhs, rhs, .. } => expr(lhs, n) || expr(rhs, n),
        ExprKind::Field { base, .. } => expr(base, n),
        ExprKind::Paren(x) => expr(x, n),
        ExprKind::Index { base, subs } => {
            expr(base, n)
                || subs.iter().any(|s| match s {
                    Subscript::Index(x) => expr(x, n),
                    // bounds of slices are plain expressions too, but never
                    // assignments worth finding: a call there is covered below
                    Subscript::Slice { .. } => true,
                })
        }
        ExprKind::ArrayCons(els) => els
            .iter()
            .any(|ArrayElem { count, value, .. }| count.as_ref().map_or(false, |c| expr(c, n)) || expr(value, n)),
        // types, literals and names assign nothing (a type's bounds could call
        // a procedure: be conservative)
        ExprKind::New(_) | ExprKind::Low(_) | ExprKind::High(_) | ExprKind::Type(_) => true,
        _ => false,
    }
}
