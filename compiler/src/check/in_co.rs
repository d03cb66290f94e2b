//! in_co: the input statement `in ... ni` and the concurrent invocation
//! statement `co ... oc` (their C: emit::inop, emit::co).
use super::scope::Sym;
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::{self, names, var};
use crate::syntax::ast::{self, ExprKind};

impl<'a> Checker<'a> {
    /// `in arm [] arm ... [] else -> block ni` (emit::inop).
    pub(crate) fn in_stmt(&mut self, ins: &ast::InStmt, span: ast::Span) {
        let p = self.pos(span);
        self.f.code.open_block();
        let Some(arms) = self.in_arm_ops(ins, &p) else {
            self.f.code.close_block();
            return;
        };
        // ops of a statement that picks the oldest among several ops, or looks
        // at the invocations (st/by), need their queues
        let several =
            ins.arms.len() > 1 || ins.arms.iter().any(|a| !a.quants.is_empty() || a.st.is_some() || a.by.is_some());
        if ins.else_block.is_some() {
            // MPD makes no semaphore of an op an `in` with else serves
            for a in &arms {
                if let Some(r) = a.sig.op.as_ref() {
                    self.note_nosema(r);
                }
            }
        }
        if several {
            let mut set = Vec::new();
            for a in &arms {
                match a.sig.op.as_ref() {
                    Some(r) if r.owner == self.comp && r.local.is_none() => {
                        self.queue_ops.insert(r.idx);
                        set.push(r.idx);
                    }
                    _ => self.queue_all = true,
                }
            }
            // one operation class (check::op_classes)
            if !set.is_empty() {
                self.class_sets.push(set);
            }
        }
        let id = self.fresh;
        self.fresh += 1;
        let has_st = ins.arms.iter().any(|a| a.st.is_some());
        let has_by = ins.arms.iter().any(|a| a.by.is_some());
        let (env_fields, cb_funcs) = self.in_callbacks(ins, &arms, id);
        let quant_arms: Vec<usize> =
            arms.iter().enumerate().filter(|(_, a)| a.qv.is_some()).map(|(ai, _)| ai).collect();
        let env_def = emit::inop::env_struct(id, &self.self_type(), &env_fields, &quant_arms);
        self.out.protos.push_str(&env_def);
        self.out.funcs.push_str(&cb_funcs);
        let qvs: Vec<&str> = arms.iter().filter_map(|a| a.qv.as_ref().map(|(q, _, _)| q.as_str())).collect();
        self.f.code.put(&emit::inop::env_init(id, &env_fields, &qvs));
        let arm_inits: Vec<emit::inop::ArmInit> = ins
            .arms
            .iter()
            .zip(&arms)
            .map(|(a, i)| emit::inop::ArmInit { ops: &i.ops, n: &i.n, st: a.st.is_some(), by: a.by.is_some() })
            .collect();
        for l in emit::inop::in_struct(id, &arm_inits, ins.else_block.is_some(), has_st, has_by) {
            self.f.code.put(&l);
        }
        let ib = emit::inop::chosen(id);
        self.f.code.put(&emit::trace::event(&p, "IN", "0"));
        self.f.code.put(&emit::inop::wait(&ib, &p, id));
        // quantifier values live in the statement's temporaries: copy the
        // chosen one out before they are freed
        let qlocals: Vec<Option<String>> = arms
            .iter()
            .enumerate()
            .map(|(ai, a)| {
                a.qv.as_ref().map(|(q, _, _)| {
                    let l = self.tmp();
                    self.f.code.put(&emit::inop::chosen_quant(&l, &ib, id, ai, q));
                    l
                })
            })
            .collect();
        self.flush_tmps();
        self.in_run_arms(ins, &arms, &qlocals, id, &p);
        self.f.code.close_block();
    }

    /// The op vector of each arm of an `in` (one op per quantifier value);
    /// None when an arm is in error.
    fn in_arm_ops(&mut self, ins: &ast::InStmt, p: &str) -> Option<Vec<InArmOps>> {
        use super::ops::Target;
        let mut arms: Vec<InArmOps> = Vec::new();
        for (ai, arm) in ins.arms.iter().enumerate() {
            if arm.quants.len() > 1 {
                self.error(arm.span, "an in arm with several quantifiers is not supported yet");
                continue;
            }
            let ops_name = emit::inop::ops_name(self.fresh, ai);
            if let Some(q) = arm.quants.first() {
                // one op per quantifier value: ops[k], value qv[k]
                // as in `for`: the step is added as written; downto's default is -1
                let qt = self.quant(q);
                self.quant_ordinal_only(q, &qt, "an in arm");
                let super::quant::Quant { start, end, step, ty: qty, .. } = qt;
                let (n, qv) = (self.tmp(), self.tmp());
                let (t1, t2) = (self.t(), self.t());
                for l in emit::inop::quant_vectors(&n, &qv, &ops_name, t1, t2, &start.c, &end.c, &step) {
                    self.f.code.put(&l);
                }
                let var = names::var_n(&q.var.name, self.fresh);
                self.fresh += 1;
                self.f.code.open(&emit::inop::quant_loop(&var, &start.c, &end.c, q.downto, &n, &qv, &step));
                self.push();
                self.declare(&q.var, Sym::Var { c: var.clone(), ty: qty.clone(), assignable: false });
                if let Some(stc) = &q.st {
                    let c = self.quant_st(stc);
                    self.f.code.put(&emit::inop::quant_skip_unless(&c));
                }
                let Some((sig, target)) = self.op_target_for(&arm.op, super::ops::OpUse::Input) else {
                    self.pop();
                    self.f.code.close_block();
                    continue;
                };
                self.input_impl_check(&sig, &target, arm.op.span);
                let op = match target {
                    Target::Op(o) => o,
                    Target::Cap(c) => emit::inop::in_cap(p, &c.to_string()),
                };
                self.f.code.put(&emit::inop::quant_record(&ops_name, &n, &op, &qv, &var));
                self.pop();
                self.f.code.close_block();
                arms.push(InArmOps { sig, ops: ops_name, n, qv: Some((qv, q.var.clone(), qty.clone())) });
            } else {
                let Some((sig, target)) = self.op_target_for(&arm.op, super::ops::OpUse::Input) else { continue };
                self.input_impl_check(&sig, &target, arm.op.span);
                let op = match target {
                    Target::Op(o) => o,
                    Target::Cap(c) => emit::inop::in_cap(p, &c.to_string()),
                };
                self.f.code.put(&emit::inop::single_op(&ops_name, &op));
                arms.push(InArmOps { sig, ops: ops_name, n: "1".into(), qv: None });
            }
            let last = arms.last().unwrap();
            if arm.formals.len() != last.sig.params.len() {
                self.error(
                    arm.span,
                    format!(
                        "in: wrong number of arguments (`{}` has {} parameters, not {})",
                        last.sig.name,
                        last.sig.params.len(),
                        arm.formals.len()
                    ),
                );
            }
            // the arm names the op's result exactly when there is one (MPD 1.0.1)
            let ret = &last.sig.ret;
            match (&arm.returns, *ret == Ty::Void) {
                (None, false) => self.error(
                    arm.span,
                    format!(
                        "missing return parameter (`{}` returns {}: name it, `in {}(...) returns r ->`)",
                        last.sig.name,
                        self.types.show(ret),
                        last.sig.name
                    ),
                ),
                (Some(r), true) => {
                    self.error(r.span, format!("unexpected return parameter (`{}` returns no value)", last.sig.name))
                }
                _ => {}
            }
        }
        (arms.len() == ins.arms.len()).then_some(arms)
    }

    /// The `st` and `by` callbacks of input statement `id`, and the enclosing
    /// locals they read (C text, C type), reached through its env.
    fn in_callbacks(&mut self, ins: &ast::InStmt, arms: &[InArmOps], id: u32) -> (Vec<(String, String)>, String) {
        let mut env_fields: Vec<(String, String)> = Vec::new();
        let mut cb_funcs = String::new();
        for kind in ["st", "by"] {
            if !ins.arms.iter().any(|a| if kind == "st" { a.st.is_some() } else { a.by.is_some() }) {
                continue;
            }
            let saved_code = std::mem::replace(&mut self.f.code, emit::Code::new(&self.file_name, self.opts.lines));
            let saved_tmp = self.f.used_tmp;
            self.f.used_tmp = false;
            self.names_changed();
            let prev = self.f.capture.replace((self.scopes.len(), env_fields.clone()));
            self.f.code.open(emit::inop::CB_SWITCH);
            for (ai, arm) in ins.arms.iter().enumerate() {
                let e = if kind == "st" { &arm.st } else { &arm.by };
                let Some(e) = e else { continue };
                self.f.code.open(&emit::inop::cb_case(ai));
                self.push();
                let qv = arms[ai]
                    .qv
                    .as_ref()
                    .map(|(q, id, t)| (emit::inop::cb_quant_value(ai), id.clone(), t.clone(), q.clone()));
                self.bind_formals(arm, &arms[ai].sig, emit::inop::CB_INVB, &qv);
                let v = self.expr(e);
                if kind == "st" && v.ty != Ty::Bool && v.ty != Ty::Error {
                    self.error(e.span, "sync expr must be boolean expression");
                }
                if kind == "by" && !v.ty.is_numeric() && !v.ty.is_ordinal() {
                    self.error(e.span, "`by' expression must be ordered type");
                }
                self.f.code.put(&emit::inop::cb_value(&v.c));
                self.pop();
                self.f.code.put(emit::stmt::BREAK);
                self.f.code.close_block();
            }
            self.f.code.close_block();
            env_fields = self.f.capture.take().map(|c| c.1).unwrap_or_default();
            self.names_changed();
            self.f.capture = prev;
            self.f.used_tmp = saved_tmp;
            let body = std::mem::replace(&mut self.f.code, saved_code).take();
            cb_funcs.push_str(&emit::inop::callback(kind, id, &self.self_type(), names::OPS_LOCAL, &body));
        }
        (env_fields, cb_funcs)
    }

    /// Runs the arm chosen by the wait of input statement `id` (or its else).
    fn in_run_arms(&mut self, ins: &ast::InStmt, arms: &[InArmOps], qlocals: &[Option<String>], id: u32, p: &str) {
        let ib = emit::inop::chosen(id);
        // the trace's ARM line: MPD 1.0.1 serviced a one-arm `in` without
        // st, by or quantifier (else allowed) in its runtime, at the arm's op;
        // any other `in` in generated code, at the first statement of the arm
        let simple = ins.arms.len() == 1
            && ins.arms.iter().all(|a| {
                a.st.is_none() && a.by.is_none() && a.quants.is_empty() && !matches!(a.op.kind, ExprKind::Index { .. })
            });
        let arm_pos = |c: &Self, b: &ast::Block, fallback: ast::Span| {
            if simple {
                c.pos(ins.arms[0].op.span)
            } else {
                c.pos(b.stmts.first().map(|s| s.span).unwrap_or(fallback))
            }
        };
        if let Some(eb) = &ins.else_block {
            self.f.code.open(&emit::inop::else_open(&ib));
            let ap = arm_pos(self, eb, eb.span);
            self.f.code.put(&emit::trace::event_invoker(&ap, "ARM", emit::inop::NO_INVB));
            self.block(eb);
            self.f.code.put(&emit::trace::event_invoker(p, "NI", emit::inop::NO_INVB));
            self.f.code.close_block();
        }
        let end = emit::inop::end_label(id);
        let arms_start = self.f.code.out.len();
        for (ai, arm) in ins.arms.iter().enumerate() {
            self.f.code.open(&emit::inop::arm_open(&ib, id, ai));
            let scopes = self.scopes.len();
            self.push();
            let qv = arms[ai]
                .qv
                .as_ref()
                .zip(qlocals[ai].as_ref())
                .map(|((q, id2, t), l)| (l.clone(), id2.clone(), t.clone(), q.clone()));
            self.bind_formals(arm, &arms[ai].sig, &ib, &qv);
            self.f.in_stack.push(super::InArm {
                ib: ib.clone(),
                loops: self.f.loop_labels.len(),
                end: end.clone(),
                scopes,
                sig: arms[ai].sig.clone(),
            });
            // traced: ARM at the arm's first statement, NI at the `in`
            let ap = arm_pos(self, &arm.body, arm.span);
            self.f.code.put(&emit::trace::event_invoker(&ap, "ARM", &ib));
            self.block(&arm.body);
            self.f.in_stack.pop();
            self.f.code.put(&emit::trace::event_invoker(p, "NI", &ib));
            self.f.code.put(&emit::stmt::in_done(&ib));
            self.pop();
            self.f.code.close_block();
        }
        // the label only when a return in an arm jumps to it
        if self.f.code.out[arms_start..].contains(&emit::stmt::goto(&end)) {
            self.f.code.put(&emit::stmt::label(&end));
        }
    }

    /// `co [q] inv -> post // ... oc` (emit::co; docs/ops.md).
    pub(crate) fn co_stmt(&mut self, co: &ast::CoStmt, span: ast::Span) {
        let p = self.pos(span);
        let id = self.fresh;
        self.fresh += 1;
        let (cv, qv, qcap, k) = emit::co::names(id);
        let (d, brk, next, da) = emit::co::wait_names(id);
        // one counter numbers every instance of every arm, so each has its own
        // slots (stride: the most quantifiers of any arm) in the value vector
        let stride = co.arms.iter().map(|a| a.quants.len()).max().unwrap_or(0).max(1);
        let names = CoNames {
            cv: cv.clone(),
            qv: qv.clone(),
            qcap: qcap.clone(),
            k: k.clone(),
            d: d.clone(),
            da: da.clone(),
            stride,
        };
        self.f.code.open_block();
        self.f.code.put(&emit::trace::event(&p, "CO", "0"));
        self.f.code.put(&emit::co::begin(&cv, &qv, &qcap));
        self.f.code.put(&var::local_int(&k, "0"));
        // issue every arm (and quantifier instance)
        let mut issued = Vec::new();
        for (ai, arm) in co.arms.iter().enumerate() {
            if let Some(a) = self.co_issue_arm(ai, arm, &names) {
                issued.push(a);
            }
        }
        // completions, in completion order
        self.f.code.put(&emit::co::done_decl(&d));
        self.f.code.open(&emit::co::wait_loop(&d, &p, &cv));
        self.f.loop_labels.push((brk.clone(), next.clone(), self.scopes.len()));
        // the arm is read once: each arm's code releases the block
        self.f.code.put(&emit::co::arm_of(&da, &d));
        for a in issued {
            self.co_complete_arm(&co.arms[a.ai], a, &names);
        }
        self.f.code.put(&emit::stmt::label(&next));
        self.f.loop_labels.pop();
        self.f.code.close_block();
        self.f.code.put(&emit::co::end(&brk, &cv, &qv));
        self.f.code.put(&emit::trace::event(&p, "OC", "0"));
        self.f.code.close_block();
    }

    /// Issues one co arm (every instance of its quantifiers); None (after any error) when it
    /// invokes no op.  Returns the op, arguments, result variable and quantifier types.
    fn co_issue_arm(&mut self, ai: usize, arm: &ast::CoArm, names: &CoNames) -> Option<IssuedArm> {
        let CoNames { cv, qv, qcap, k, stride, .. } = names;
        let (call, lhs) = match &arm.inv.kind {
            ExprKind::Assign { op: ast::AssignOp::Plain, lhs, rhs } => (rhs.as_ref(), Some(lhs.as_ref())),
            _ => (&arm.inv, None),
        };
        let ExprKind::Call { callee, args } = &call.kind else {
            self.error(arm.inv.span, "invalid co-invocation (a co arm must invoke an op)");
            return None;
        };
        let predefined = match &callee.kind {
            ExprKind::Ident(id) => self.lookup(&id.name).is_none() && super::builtin::is_predefined(&id.name),
            ExprKind::Type(_) => true,
            _ => false,
        };
        if predefined {
            // a predefined function or conversion is no op: nothing to wait for
            self.error(arm.inv.span, "invalid co-invocation (a co arm must invoke an op, not a predefined function)");
            return None;
        }
        self.f.code.open_block();
        self.push();
        let (n, _, _) = self.quantifiers(&arm.quants, false, false, &[]);
        let Some((sig, target)) = self.op_target(callee) else {
            self.pop();
            for _ in 0..n {
                self.f.code.close_block();
            }
            self.f.code.close_block();
            return None;
        };
        if sig.op.as_ref().map(|r| r.sem).unwrap_or(false) && !arm.send {
            self.error(arm.inv.span, "a semaphore can only be sent to (V) in a co arm");
        }
        // remember the quantifier values of this instance
        let qbase = emit::co::quant_base(k, *stride);
        let tys = self.co_quant_store(arm, qv, qcap, &qbase);
        if !arm.send {
            // traced: a co arm's CALL is at the arm's first line
            let ap = self.pos(arm.span);
            self.f.code.put(&emit::trace::event(&ap, "CALL", "0"));
        }
        self.issue = super::Issue::CoArm { co: cv.to_string(), arm: ai as u32, idx: k.to_string() };
        self.invoke_block(&sig, target, args, arm.send, arm.inv.span);
        self.issue = super::Issue::Plain;
        self.f.code.put(&emit::co::count(k));
        self.flush_tmps();
        self.pop();
        for _ in 0..n {
            self.f.code.close_block();
        }
        self.f.code.close_block();
        Some(IssuedArm { ai, sig, args: args.clone(), lhs: lhs.cloned(), tys })
    }

    /// Remembers the quantifier values of a co arm instance; returns their types.
    fn co_quant_store(&mut self, arm: &ast::CoArm, qv: &str, qcap: &str, qbase: &str) -> Vec<Ty> {
        let mut tys = Vec::new();
        for (j, q) in arm.quants.iter().enumerate() {
            if let Some(Sym::Var { c, ty, .. }) = self.lookup(&q.var.name).cloned() {
                if ty == Ty::Real {
                    // the values are kept in an int vector
                    self.error(
                        q.span,
                        "a real quantifier is not supported in a co arm (use an int quantifier and convert)",
                    );
                }
                self.f.code.put(&emit::co::quant_store(qv, qcap, qbase, j, &c));
                tys.push(ty);
            } else {
                tys.push(Ty::Int);
            }
        }
        tys
    }

    /// A completed co arm: its quantifier values, results and post-processing block.
    fn co_complete_arm(&mut self, arm: &ast::CoArm, issued: IssuedArm, names: &CoNames) {
        let IssuedArm { ai, sig, args, lhs, tys } = issued;
        let (sig, args, lhs) = (&*sig, &args[..], &lhs);
        let CoNames { qv, d, da, stride, .. } = names;
        let stride = *stride;
        self.f.code.open(&emit::co::arm_open(da, ai));
        self.push();
        for (j, (q, ty)) in arm.quants.iter().zip(tys).enumerate() {
            let v = self.tmp();
            let ct = self.ctype(&ty);
            self.f.code.put(&emit::co::quant_load(&ct, &v, qv, d, stride, j));
            // the arm's copy of its quantifier values (MPD 1.0.1 lets the
            // post-processing block assign it)
            self.declare(&q.var, Sym::Var { c: v, ty, assignable: true });
        }
        let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
        let blk = emit::inop::inv_block(&inv, d);
        if !arm.send {
            self.co_results(&sig, &args, &lhs, &blk);
        }
        self.flush_tmps();
        self.f.code.put(&emit::co::release(d));
        if let Some(post) = &arm.post {
            self.block(post);
        }
        self.pop();
        self.f.code.close_block();
    }

    /// A completed call arm's results: var/res/result arguments and the assigned result.
    fn co_results(&mut self, sig: &super::scope::ProcSig, args: &[ast::Expr], lhs: &Option<ast::Expr>, blk: &str) {
        for (i, (a, ps)) in args.iter().zip(sig.params.iter()).enumerate() {
            if matches!(ps.mode, ast::ParamMode::Default | ast::ParamMode::Val | ast::ParamMode::Ref) {
                continue;
            }
            let v = self.expr(a);
            let src = if ps.ty.is_blob() {
                V {
                    c: self.blk_param(&blk, i, &ps.ty),
                    ty: ps.ty.clone(),
                    form: Form::Blob,
                    k: None,
                    lv: false,
                    slice: None,
                }
            } else {
                V::scalar(emit::co::block_param(&blk, i), ps.ty.clone())
            };
            self.assign_into(&v, src, a.span);
        }
        if let Some(l) = &lhs {
            let lv = self.expr(l);
            let src = if sig.ret.is_blob() {
                V {
                    c: emit::co::block_result(&blk),
                    ty: sig.ret.clone(),
                    form: Form::Blob,
                    k: None,
                    lv: false,
                    slice: None,
                }
            } else {
                V::scalar(emit::co::block_result(&blk), sig.ret.clone())
            };
            self.assign_into(&lv, src, l.span);
        }
    }

    /// Declares an in arm's formals (and quantifier variable) as views of block `ib`.
    fn bind_formals(
        &mut self,
        arm: &ast::InArm,
        sig: &super::scope::ProcSig,
        ib: &str,
        qv: &Option<(String, ast::Ident, Ty, String)>,
    ) {
        let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
        for (i, (f, ps)) in arm.formals.iter().zip(sig.params.iter()).enumerate() {
            let c = self.blk_param_of(&emit::inop::inv_block(&inv, ib), i, ps);
            let mut ty = ps.ty.clone();
            if matches!(ps.ty, Ty::Arr(..)) && ps.mode != ast::ParamMode::Ref {
                // an array takes the formal's lower bounds, as in a proc (the
                // block's copy is the arm's own; rebasing it again is a no-op)
                let (lbs, ubs) = super::procs::formal_bounds(&ps.ty);
                self.f.code.put(&emit::var::arr_rebase(&c, &lbs, &ubs));
            } else if matches!(ps.ty, Ty::Arr(..)) {
                ty = super::procs::unbounded(&ps.ty); // a ref array is the actual, its bounds too
            }
            self.declare(f, Sym::Var { c, ty, assignable: true });
        }
        if let Some(r) = &arm.returns {
            let c = emit::inop::inv_result(&inv, ib);
            self.declare(r, Sym::Var { c, ty: sig.ret.clone(), assignable: true });
        }
        if let Some((c, id, ty, _)) = qv {
            // in the arm's body the quantifier is the arm's own copy, which
            // MPD 1.0.1 lets it assign; st and by only read it
            let assignable = ib != emit::inop::CB_INVB;
            self.declare(id, Sym::Var { c: c.clone(), ty: ty.clone(), assignable });
        }
    }
}

/// An arm of an `in` being compiled: the op it services, its op vector and
/// its length (C), and for a quantified arm (value vector, variable, type).
struct InArmOps {
    sig: std::rc::Rc<super::scope::ProcSig>,
    ops: String,
    n: String,
    qv: Option<(String, ast::Ident, Ty)>,
}

/// The C names of one co statement (emit::co::names, wait_names) and the
/// slots each arm instance has in its quantifier value vector.
struct CoNames {
    cv: String,
    qv: String,
    qcap: String,
    k: String,
    d: String,
    da: String,
    stride: usize,
}

/// A co arm as issued: the op, its arguments, the result variable, the
/// quantifiers' types (for the completion).
struct IssuedArm {
    ai: usize,
    sig: std::rc::Rc<super::scope::ProcSig>,
    args: Vec<ast::Expr>,
    lhs: Option<ast::Expr>,
    tys: Vec<Ty>,
}
