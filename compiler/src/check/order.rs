//! order: the order in which operands with side effects are evaluated.
//!
//! C leaves the order of a call's arguments and of most operators' operands
//! unspecified, so the generated C fixes it where it can be seen: when two
//! or more operands of one construct have side effects (a call of a proc,
//! op or non-pure predefined function, an assignment, `++`, `create`), they
//! are evaluated into temporaries first, in MPD 1.0.1's order.  MPD 1.0.1
//! compiled predefined functions, string comparison, `||`, `mod` and `**`
//! into C calls, which its i386 C compilers evaluated right to left
//! (`write(pop(), pop())` pops the second value first); the other operators
//! it left to C's operators, evaluated left to right, and the arguments of
//! procs and ops it put into the invocation block left to right.
use super::chunk;
use super::leaf::pure_predefined;
use super::scope::Sym;
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::{self, var};
use crate::syntax::ast::{BinaryOp, Block, Expr, ExprKind, Subscript, UnaryOp};

/// Whether `op` was a C call in MPD 1.0.1 for operands of these types
/// (strings: comparisons and `||`).
pub(super) fn call_operator(op: BinaryOp, string_operands: bool) -> bool {
    use BinaryOp::*;
    matches!(op, Concat | Mod | Pow) || string_operands && matches!(op, Eq | Ne | Lt | Le | Gt | Ge)
}

impl<'a> Checker<'a> {
    /// The temporary an operand was already evaluated into, if any.
    pub(super) fn preset_of(&self, e: &Expr) -> Option<V> {
        if self.preset.is_empty() {
            return None;
        }
        self.preset.get(&(e as *const Expr)).cloned()
    }

    /// Whether evaluating `e` can change what another operand sees: a call
    /// of a proc, an op or a predefined function that is not pure,
    /// `create`, an assignment, a swap, `++` or `--`.  Conversions and
    /// record constructors are as their arguments.
    pub(super) fn has_effect(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Assign { .. } | ExprKind::Swap { .. } | ExprKind::Create { .. } => true,
            ExprKind::Unary { op, operand } => {
                matches!(op, UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec)
                    || self.has_effect(operand)
            }
            ExprKind::Binary { lhs, rhs, .. } => self.has_effect(lhs) || self.has_effect(rhs),
            ExprKind::Paren(x) | ExprKind::Field { base: x, .. } => self.has_effect(x),
            ExprKind::Index { base, subs } => {
                self.has_effect(base)
                    || subs.iter().any(|s| match s {
                        Subscript::Index(x) => self.has_effect(x),
                        Subscript::Slice { .. } => false,
                    })
            }
            ExprKind::ArrayCons(es) => es.iter().any(|a| self.has_effect(&a.value)),
            ExprKind::Call { callee, args } => {
                let pure = match &callee.kind {
                    ExprKind::Type(_) => true,
                    ExprKind::Ident(id) => match self.lookup(&id.name) {
                        Some(Sym::Type(_)) => true,
                        None => pure_predefined(&id.name),
                        _ => false,
                    },
                    _ => false,
                };
                !pure || args.iter().any(|a| self.has_effect(a))
            }
            _ => false,
        }
    }

    /// Translates a construct (`f`) whose operands are `ops`: when one of
    /// them has side effects, the values of all of them (a C call, `rtl`:
    /// right to left) or of those with effects (an inline operator: left to
    /// right) are taken first (top of file).  Constants, the operands
    /// `dests` names (destinations of input) and those that are not scalars
    /// or strings stay where `f` puts them.
    pub(super) fn in_order(
        &mut self,
        ops: &[&Expr],
        dests: &[usize],
        rtl: impl FnOnce(&mut Self) -> bool,
        f: impl FnOnce(&mut Self) -> V,
    ) -> V {
        // once any operand has side effects, every operand's value is taken
        // in the order (`write(total(a), a[1])`: a[1] before the call, as
        // right to left reads it), but constants and destinations
        if !ops.iter().any(|e| self.has_effect(e)) {
            return f(self);
        }
        // a C call (rtl) takes every argument's value in its order; an inline
        // operator only moves the operands with effects ahead, in order, as
        // MPD 1.0.1's gcc evaluated a call before a plain operand
        // (`n * 100 + f()` calls f first)
        let rtl = rtl(self);
        let mut moved: Vec<&Expr> = Vec::new();
        for (i, e) in ops.iter().enumerate() {
            let take = if rtl { self.const_of(e).is_none() } else { self.has_effect(e) };
            if take && !dests.contains(&i) && self.movable(e) {
                moved.push(e);
            }
        }
        // one call beside a plain operand that reads something is moved too
        let reads_beside = |s: &mut Self| ops.iter().any(|e| !s.has_effect(e) && s.const_of(e).is_none());
        if moved.is_empty() || moved.len() < 2 && (rtl || !reads_beside(self)) {
            return f(self);
        }
        if rtl {
            moved.reverse();
        }
        let mut temps = Vec::new();
        for e in &moved {
            let v = self.expr(e);
            if v.ty == Ty::Error {
                continue;
            }
            let t = self.tmp();
            temps.push((t.clone(), v.c.clone()));
            self.preset.insert(*e as *const Expr, V { c: t, lv: false, slice: None, k: None, ..v });
        }
        let v = f(self);
        for e in &moved {
            self.preset.remove(&(*e as *const Expr));
        }
        if temps.is_empty() || v.ty == Ty::Error {
            return v;
        }
        V { c: emit::expr::sequenced(&temps, &v.c), lv: false, slice: None, ..v }
    }

    /// Scalars and strings: values a temporary of the C's own type holds.
    fn movable(&mut self, e: &Expr) -> bool {
        let t = self.type_of(e);
        (t.is_scalar() && !matches!(t, Ty::Void | Ty::Error)) || t.is_string()
    }

    /// A call of a predefined function: its arguments right to left.
    pub(super) fn predefined_in_order(&mut self, call: &Expr, name: &str, args: &[Expr]) -> V {
        let ops: Vec<&Expr> = args.iter().collect();
        // the arguments input goes into stay where the function puts them
        let dests: Vec<usize> = match name {
            "read" | "get" | "scanf" | "sscanf" | "getarg" | "sprintf" | "free" => {
                (0..args.len()).filter(|&i| self.is_variable(&args[i])).collect()
            }
            _ => Vec::new(),
        };
        self.in_order(&ops, &dests, |_| true, |s| s.predefined(call, name, args))
    }

    /// A variable named twice by one construct (a compound assignment, a
    /// swap) whose designator has side effects (`a[f()] += 1`): evaluated
    /// once, into its address (a scalar) or its blob pointer, as MPD 1.0.1
    /// evaluates it.
    pub(super) fn pin(&mut self, e: &Expr, v: V) -> V {
        if !v.lv || v.slice.is_some() || v.ty == Ty::Error || !self.has_effect(e) {
            return v;
        }
        let t = self.tmp();
        match v.form {
            Form::Scalar => {
                let ct = self.ctype(&v.ty);
                self.f.code.put(&var::pin_scalar(&ct, &t, &v.c));
                V { c: var::pinned(&t), ..v }
            }
            Form::Blob => {
                self.f.code.put(&var::local_c("char *", &t, &v.c));
                V { c: t, ..v }
            }
            Form::View => v,
        }
    }

    /// Whether a `for` limit keeps its value while a body that cannot switch
    /// runs (a chunk of iterations may then use one reading of it): no side
    /// effects, no pointer, and no name in it that the body may assign.
    pub(super) fn limit_stable(&self, end: &Expr, body: &[crate::syntax::ast::Stmt]) -> bool {
        fn names<'e>(e: &'e Expr, out: &mut Vec<&'e str>) -> bool {
            match &e.kind {
                ExprKind::Ident(id) => {
                    out.push(&id.name);
                    true
                }
                ExprKind::Unary { op: UnaryOp::Deref | UnaryOp::AddrOf, .. } => false,
                ExprKind::Unary { operand, .. } => names(operand, out),
                ExprKind::Binary { lhs, rhs, .. } => names(lhs, out) && names(rhs, out),
                ExprKind::Paren(x) | ExprKind::Field { base: x, .. } => names(x, out),
                ExprKind::Index { base, subs } => {
                    names(base, out)
                        && subs.iter().all(|s| match s {
                            Subscript::Index(x) => names(x, out),
                            Subscript::Slice { .. } => false,
                        })
                }
                ExprKind::Call { callee, args } => {
                    matches!(callee.kind, ExprKind::Ident(_) | ExprKind::Type(_)) && args.iter().all(|a| names(a, out))
                }
                ExprKind::Int(_) | ExprKind::Char(_) | ExprKind::Bool(_) | ExprKind::Real(_) => true,
                ExprKind::Low(_) | ExprKind::High(_) => true,
                _ => false,
            }
        }
        let mut ns = Vec::new();
        !self.has_effect(end) && names(end, &mut ns) && ns.iter().all(|n| !super::loop_var::assigns(body, n))
    }

    /// Whether a `for` limit can change only while the loop top switches
    /// (then it is read once and again after each switch there, not at every
    /// test): the limit is stable (`limit_stable`), and the body cannot
    /// switch -- its only calls are conversions, pure predefined functions
    /// and leaf procs of this body that do not assign a name of the limit.
    pub(super) fn limit_kept(&self, end: &Expr, body: &Block) -> bool {
        if !self.limit_stable(end, &body.stmts) {
            return false;
        }
        let mut ns = Vec::new();
        collect_names(end, &mut ns);
        let call = |callee: &Expr, _: &[Expr]| match &callee.kind {
            ExprKind::Type(_) => true,
            ExprKind::Ident(id) => match self.lookup(&id.name) {
                Some(Sym::Type(_)) => true,
                None => pure_predefined(&id.name),
                Some(Sym::Proc(_)) => match self.proc_bodies.get(&id.name) {
                    Some(b) => {
                        self.proc_names.contains(&id.name)
                            && self.is_leaf_body(b)
                            && ns.iter().all(|n| !super::loop_var::assigns(b, n))
                    }
                    None => false,
                },
                _ => false,
            },
            _ => false,
        };
        chunk::block_cannot_switch(body, &call)
    }
}

/// The names an expression reads (for `limit_kept`).
fn collect_names<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match &e.kind {
        ExprKind::Ident(id) => out.push(&id.name),
        ExprKind::Unary { operand, .. } => collect_names(operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_names(lhs, out);
            collect_names(rhs, out)
        }
        ExprKind::Paren(x) | ExprKind::Field { base: x, .. } => collect_names(x, out),
        ExprKind::Index { base, subs } => {
            collect_names(base, out);
            for s in subs {
                if let Subscript::Index(x) = s {
                    collect_names(x, out)
                }
            }
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| collect_names(a, out)),
        _ => {}
    }
}
