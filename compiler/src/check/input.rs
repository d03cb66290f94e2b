//! input: `receive`, P and V, `?op` -- statements that service an op or
//! ask about its pending invocations (emit/inop.rs spells them).
use super::ops::{OpUse, Target};
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::inop;
use crate::syntax::ast::{self, Expr, ExprKind};

impl<'a> Checker<'a> {
    /// `receive op(v1, ...)`.
    pub fn receive(&mut self, e: &Expr) {
        let (callee, args) = match &e.kind {
            ExprKind::Call { callee, args } => (callee.as_ref(), args.as_slice()),
            _ => (e, &[][..]),
        };
        let Some((sig, target)) = self.op_target_for(callee, OpUse::Input) else { return };
        self.input_impl_check(&sig, &target, callee.span);
        let r = sig.op.clone().unwrap();
        let p = self.pos(e.span);
        if sig.ret != Ty::Void {
            self.error(
                e.span,
                format!(
                    "cannot receive an op that returns a value (`{}` returns {})",
                    sig.name,
                    self.types.show(&sig.ret)
                ),
            );
            return;
        }
        if sig.params.iter().any(|p| matches!(p.mode, ast::ParamMode::Var | ast::ParamMode::Res)) {
            self.error(e.span, format!("cannot receive an op having a var or res param (`{}`)", sig.name));
            return;
        }
        let op = match target {
            Target::Op(op) => op,
            Target::Cap(c) => inop::in_cap(&p, &c.to_string()),
        };
        if args.len() != sig.params.len() {
            self.error(
                e.span,
                format!(
                    "receive: wrong number of arguments (`{}` has {} parameters, not {})",
                    sig.name,
                    sig.params.len(),
                    args.len()
                ),
            );
            return;
        }
        // receive of a parameterless op is P (the runtime's P receives and
        // completes the invocation when the op is not a semaphore: emit/inop.rs)
        if r.sem || (sig.params.is_empty() && sig.ret == Ty::Void) {
            // (a trace shows it as IN/ARM/NI unless the op is a `sem`)
            self.f.code.put(&inop::p(&p, &op));
            return;
        }
        let ib = self.tmp();
        self.f.code.put(&crate::emit::trace::event(&p, "IN", "0"));
        self.f.code.put(&inop::receive(&r.inv, &ib, &p, &op));
        self.f.code.put(&crate::emit::trace::event_invoker(&p, "ARM", &inop::block_hdr(&ib)));
        for (i, (a, ps)) in args.iter().zip(sig.params.iter()).enumerate() {
            let v = self.expr(a);
            if !v.lv && v.ty != Ty::Error {
                self.error(a.span, "assignment target is not a variable (receive needs variables)");
                continue;
            }
            let c = self.blk_param_of(&ib, i, ps);
            let src = if ps.ty.is_blob() {
                V { c, ty: ps.ty.clone(), form: Form::Blob, k: None, lv: false, slice: None }
            } else {
                V::scalar(c, ps.ty.clone())
            };
            self.with_mismatch(format!("receive: argument {} is incompatible", i + 1), |c| {
                c.assign_into(&v, src, a.span)
            });
        }
        self.f.code.put(&crate::emit::trace::event_invoker(&p, "NI", &inop::block_hdr(&ib)));
        self.f.code.put(&inop::in_done(&ib));
        self.flush_tmps();
    }

    /// `P(s)` / `V(s)`.
    pub fn p_v(&mut self, e: &Expr, v: bool) {
        let Some((sig, target)) = self.op_target_for(e, if v { OpUse::Invoke } else { OpUse::Input }) else { return };
        let r = sig.op.clone().unwrap();
        let p = self.pos(e.span);
        // P(s) is `receive s()` and V(s) `send s()`: their errors are those
        if !v && sig.ret != Ty::Void {
            let ret = self.types.show(&sig.ret);
            self.error(e.span, format!("cannot receive an op that returns a value (`{}` returns {})", sig.name, ret));
            return;
        }
        if !r.sem && !sig.params.is_empty() {
            let msg = if v {
                super::msg::arity(&sig.name, sig.params.len(), 0)
            } else {
                format!(
                    "receive: wrong number of arguments (`{}` has {} parameters, not 0)",
                    sig.name,
                    sig.params.len()
                )
            };
            self.error(e.span, msg);
            return;
        }
        // P is input on the op, as receive is
        if !v {
            self.input_impl_check(&sig, &target, e.span);
        }
        match (&self.f.chunk, v, target) {
            // in a loop taking its slice in chunks (chunk.rs): a P that waits
            // keeps the loop's countdown right
            (Some(ch), false, target) => {
                let op = match target {
                    Target::Op(op) => op,
                    Target::Cap(c) => inop::in_cap(&p, &c.to_string()),
                };
                self.f.code.put(&inop::p_chunked(&p, &op, &ch.sl, &ch.unrun));
            }
            (_, v, Target::Cap(c)) if v => {
                self.f.code.put(&inop::v_cap(&p, &c.to_string()));
                return;
            }
            (_, v, target) => self.f.code.put(&inop::p_or_v(&p, target, v)),
        }
        self.flush_tmps();
    }

    /// `?op`.
    pub fn pending(&mut self, e: &Expr) -> V {
        let Some((_, target)) = self.op_target_for(e, OpUse::Pending) else { return V::err() };
        let p = self.pos(e.span);
        V::scalar(inop::pending(&p, target), Ty::Int)
    }
}
