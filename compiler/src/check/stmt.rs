//! stmt: checking and translating statements and blocks.
use super::chunk;
use super::scope::Sym;
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::{self, names, var};
use crate::syntax::ast::{self, ExprKind, Stmt, StmtKind, UnaryOp};

impl<'a> Checker<'a> {
    /// One statement: its #line, then the construct's own function.
    pub fn stmt(&mut self, s: &Stmt) {
        self.code.line(self.line(s.span));
        match &s.kind {
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) | StmtKind::Call(e) => self.expr_stmt(e),
            StmtKind::Skip | StmtKind::Empty => {}
            StmtKind::Stop(e) => self.stop_stmt(e.as_ref(), s.span),
            StmtKind::Exit | StmtKind::Next => self.exit_next(matches!(s.kind, StmtKind::Exit), s.span),
            StmtKind::If { arms, else_block } => self.if_stmt(arms, else_block.as_ref(), 0),
            StmtKind::While { cond, body } => self.while_stmt(cond, body),
            StmtKind::For { quants, body } => self.for_stmt(quants, body),
            StmtKind::Begin(b) => self.block(b),
            StmtKind::Return(e) => self.return_stmt(e.as_ref(), s.span),
            StmtKind::Send { inv, .. } => {
                self.invoke_stmt(inv, true);
                self.flush_tmps();
            }
            StmtKind::Receive(e) => self.receive(e),
            StmtKind::P(e) => self.p_v(e, false),
            StmtKind::V(e) => self.p_v(e, true),
            StmtKind::Destroy(e) => self.destroy_stmt(e, s.span),
            StmtKind::In(ins) => self.in_stmt(ins, s.span),
            StmtKind::Reply => self.reply_stmt(s.span),
            StmtKind::Co(co) => self.co_stmt(co, s.span),
            StmtKind::Forward(e) => self.forward_stmt(e, s.span),
        }
    }

    /// `stop` / `stop(e)`: e is the int exit status (default 0).
    fn stop_stmt(&mut self, e: Option<&ast::Expr>, span: ast::Span) {
        let c = match e {
            Some(e) => {
                let v = self.expr(e);
                if v.ty != Ty::Int && v.ty != Ty::Error {
                    self.error(e.span, "stop needs an int exit status");
                }
                v.c
            }
            None => "0".into(),
        };
        let p = self.pos(span);
        self.code.put(&emit::stmt::stop(&p, &c));
    }

    /// `exit` / `next`: only inside a loop.  What they leave ends first: the
    /// invocations of `in` arms entered inside the loop, the ops declared in
    /// the loop, and (exit) the chunk of time slice not used.
    fn exit_next(&mut self, exit: bool, span: ast::Span) {
        match self.loop_labels.last() {
            Some((b, c, sd)) => {
                let l = if exit { b.clone() } else { c.clone() };
                let sd = *sd;
                self.flush_tmps();
                let depth = self.loop_labels.len();
                for a in self.in_stack.clone().iter().rev() {
                    if a.loops >= depth {
                        self.code.put(&emit::stmt::in_done(&a.ib));
                    }
                }
                // ops declared inside the loop die as they would at its block's end
                self.local_ops_end_from(sd);
                if let (true, Some(ch)) = (exit, &self.chunk) {
                    if ch.depth == depth {
                        // leaving a chunk early: give back its iterations not run
                        self.code.put(&emit::stmt::chunk_give_back(&ch.sl, &ch.unrun));
                    }
                }
                self.code.put(&emit::stmt::goto(&l));
            }
            None => self.error(span, format!("no enclosing loop for `{}`", if exit { "exit" } else { "next" })),
        }
    }

    /// `while cond -> body`: the condition is tested at the top of each iteration.
    fn while_stmt(&mut self, cond: &ast::Expr, body: &ast::Block) {
        let (b, c) = self.new_loop();
        self.code.open(emit::stmt::WHILE_OPEN);
        self.loop_top();
        let cv = self.cond(cond);
        self.code.put(&emit::stmt::while_test(&cv));
        self.block(body);
        self.code.put(&emit::stmt::label(&c));
        self.code.close("}");
        self.code.put(&emit::stmt::label(&b));
        self.loop_labels.pop();
    }

    /// `fa quantifiers -> body af`: one C loop per quantifier; a single one over
    /// a body that cannot switch counts its time slice in chunks (chunk.rs).
    fn for_stmt(&mut self, quants: &[ast::Quantifier], body: &ast::Block) {
        let (b, c) = self.new_loop();
        self.code.open("{");
        self.push();
        let chunk = !self.opts.no_slice && quants.len() == 1 && chunk::block_can_chunk(body);
        let (n, sl) = self.quantifiers(quants, chunk);
        if sl.is_none() {
            self.loop_top();
        }
        self.block(body);
        self.code.put(&emit::stmt::label(&c));
        for _ in 0..n {
            self.code.close("}");
        }
        if let Some(sl) = &sl {
            // exit lands here too: the slice left goes back where
            // the next loop top reads it
            self.chunk = None;
            self.code.put(&emit::stmt::label(&b));
            self.code.put(&emit::stmt::slice_put(sl));
        }
        self.pop();
        self.code.close("}");
        if sl.is_none() {
            self.code.put(&emit::stmt::label(&b));
        }
        self.loop_labels.pop();
    }

    /// `return` (no value in MPD): in an `in` arm it answers the invocation and
    /// leaves the statement (MPD 1.0.1); in a proc it copies var/res back and
    /// returns; in the initial code it ends the component's initialization.
    fn return_stmt(&mut self, e: Option<&ast::Expr>, span: ast::Span) {
        if let Some(e) = e {
            self.error(e.span, "MPD's return takes no value; assign the result variable instead");
        }
        if let Some(a) = self.in_stack.last().cloned() {
            self.flush_tmps();
            self.local_ops_end_from(a.scopes);
            self.code.put(&emit::stmt::in_return(&a.ib, &a.end));
            return;
        }
        self.local_ops_end_all();
        if let Some(ib) = self.trace_proc.clone() {
            let p = self.pos(span);
            self.code.put(&emit::trace::proc_return(&p, &ib));
        }
        match self.ret.clone() {
            Some(r) => self.code.put(&r.stmt),
            None => {
                let end = emit::trace::event(&self.trace_pos, "ENDBODY", "0");
                self.code.put(&emit::stmt::init_return(&end));
            }
        }
    }

    /// `destroy e`: e is a vm, resource or op capability, `null`, or an array
    /// of op capabilities (from `new([n] op ...)`: each one is destroyed).
    fn destroy_stmt(&mut self, e: &ast::Expr, span: ast::Span) {
        if let Some(what) = self.not_a_value(e) {
            self.error(e.span, format!("destroy object is not a capability ({})", what));
            return;
        }
        let v = self.expr(e);
        let p = self.pos(span);
        use emit::stmt::Destroyed;
        let d = match &v.ty {
            Ty::Cap(super::types::CapTy::Vm) => Some(Destroyed::Vm(&v.c)),
            Ty::Null => Some(Destroyed::Null),
            Ty::Cap(super::types::CapTy::Resource(_)) => Some(Destroyed::Resource(&v.c)),
            Ty::Cap(_) => Some(Destroyed::Op(&v.c)),
            Ty::Arr(..) if matches!(leaf_type(&v.ty), Ty::Cap(c) if !matches!(c, super::types::CapTy::Resource(_))) => {
                let mut n = 0;
                let mut t = &v.ty;
                while let Ty::Arr(e, _, _) = t {
                    t = e;
                    n += 1;
                }
                Some(Destroyed::OpArray(&v.c, n))
            }
            Ty::Error => None,
            _ => {
                self.error(e.span, format!("destroy object is not a capability ({})", self.types.show(&v.ty)));
                None
            }
        };
        if let Some(d) = d {
            let c = emit::stmt::destroy(&p, d);
            self.code.put(&c);
        }
        self.flush_tmps();
    }

    /// `reply`: answers the invocation being serviced (an `in` arm's, or the
    /// proc's) early; the invoker goes on while this process continues.
    fn reply_stmt(&mut self, span: ast::Span) {
        let p = self.pos(span);
        if let Some(a) = self.in_stack.last().cloned() {
            self.code.put(&emit::stmt::reply_in_arm(&p, &a.ib));
            return;
        }
        // nobody waits for a reply from final code (MPD 1.0.1 warns)
        if self.in_final {
            self.diags.warning(span, "reply in final ignored");
            return;
        }
        match (&self.reply_code, self.ret.is_some()) {
            (Some(copy), true) => {
                let copy = copy.clone();
                self.code.put(&emit::stmt::reply_in_proc(&p, &copy));
            }
            (None, false) => self.code.put(&emit::stmt::reply_in_process(&p)),
            _ => {}
        }
    }

    /// `forward inv`: hands the invocation being serviced (an `in` arm's or the
    /// proc's, with its results so far) on to another op.
    fn forward_stmt(&mut self, e: &ast::Expr, span: ast::Span) {
        let proc_inv = self.reply_code.is_some() && self.ret.is_some();
        let cur = match self.in_stack.last() {
            Some(a) => Some(a.ib.clone()),
            None if proc_inv => Some(emit::stmt::PROC_INVOCATION.to_string()),
            None => None,
        };
        match cur {
            Some(cur) => {
                if cur == emit::stmt::PROC_INVOCATION {
                    let copy = self.reply_code.clone().unwrap_or_default();
                    self.code.put(&copy);
                }
                self.fwd_issue = Some(cur);
                self.invoke_stmt(e, false);
                self.fwd_issue = None;
                self.flush_tmps();
            }
            None => self.error(span, "forward: not allowed outside a proc or an input statement"),
        }
    }

    /// `in arm [] arm ... [] else -> block ni` (emit::in_stmt).
    fn in_stmt(&mut self, ins: &ast::InStmt, span: ast::Span) {
        let p = self.pos(span);
        self.code.open("{");
        let Some(arms) = self.in_arm_ops(ins, &p) else {
            self.code.close("}");
            return;
        };
        // ops of a statement that picks the oldest among several ops, or looks
        // at the invocations (st/by), need their queues
        let several = ins.arms.len() > 1 || ins.arms.iter().any(|a| !a.quants.is_empty() || a.st.is_some() || a.by.is_some());
        if several {
            for a in &arms {
                match a.sig.op.as_ref() {
                    Some(r) if r.owner == self.comp && r.local.is_none() => {
                        self.queue_ops.insert(r.idx);
                    }
                    _ => self.queue_all = true,
                }
            }
        }
        let id = self.fresh;
        self.fresh += 1;
        let has_st = ins.arms.iter().any(|a| a.st.is_some());
        let has_by = ins.arms.iter().any(|a| a.by.is_some());
        let (env_fields, cb_funcs) = self.in_callbacks(ins, &arms, id);
        let quant_arms: Vec<usize> = arms.iter().enumerate().filter(|(_, a)| a.qv.is_some()).map(|(ai, _)| ai).collect();
        let env_def = emit::in_stmt::env_struct(id, &self.self_type(), &env_fields, &quant_arms);
        self.protos.push_str(&env_def);
        self.funcs.push_str(&cb_funcs);
        let qvs: Vec<&str> = arms.iter().filter_map(|a| a.qv.as_ref().map(|(q, _, _)| q.as_str())).collect();
        self.code.put(&emit::in_stmt::env_init(id, &env_fields, &qvs));
        let arm_inits: Vec<emit::in_stmt::ArmInit> =
            ins.arms.iter().zip(&arms).map(|(a, i)| emit::in_stmt::ArmInit { ops: &i.ops, n: &i.n, st: a.st.is_some(), by: a.by.is_some() }).collect();
        for l in emit::in_stmt::in_struct(id, &arm_inits, ins.else_block.is_some(), has_st, has_by) {
            self.code.put(&l);
        }
        let ib = emit::in_stmt::chosen(id);
        self.code.put(&emit::trace::event(&p, "IN", "0"));
        self.code.put(&emit::in_stmt::wait(&ib, &p, id));
        // quantifier values live in the statement's temporaries: copy the
        // chosen one out before they are freed
        let qlocals: Vec<Option<String>> = arms
            .iter()
            .enumerate()
            .map(|(ai, a)| {
                a.qv.as_ref().map(|(q, _, _)| {
                    let l = self.tmp();
                    self.code.put(&emit::in_stmt::chosen_quant(&l, &ib, id, ai, q));
                    l
                })
            })
            .collect();
        self.flush_tmps();
        self.in_run_arms(ins, &arms, &qlocals, id, &p);
        self.code.close("}");
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
            let ops_name = emit::in_stmt::ops_name(self.fresh, ai);
            if let Some(q) = arm.quants.first() {
                // one op per quantifier value: ops[k], value qv[k]
                // as in `for`: the step is added as written; downto's default is -1
                let qt = self.quant(q);
                self.quant_ordinal_only(q, &qt, "an in arm");
                let super::quant::Quant { start, end, step, ty: qty, .. } = qt;
                let (n, qv) = (self.tmp(), self.tmp());
                let (t1, t2) = (self.t(), self.t());
                for l in emit::in_stmt::quant_vectors(&n, &qv, &ops_name, t1, t2, &start.c, &end.c, &step) {
                    self.code.put(&l);
                }
                let var = format!("{}_{}", names::var(&q.var.name), self.fresh);
                self.fresh += 1;
                self.code.open(&emit::in_stmt::quant_loop(&var, &start.c, &end.c, q.downto, &n, &qv, &step));
                self.push();
                self.declare(&q.var, Sym::Var { c: var.clone(), ty: qty.clone(), assignable: false });
                if let Some(stc) = &q.st {
                    let c = self.quant_st(stc);
                    self.code.put(&emit::in_stmt::quant_skip_unless(&c));
                }
                let Some((sig, target)) = self.op_target_for(&arm.op, super::ops::OpUse::Input) else {
                    self.pop();
                    self.code.close("}");
                    continue;
                };
                self.input_impl_check(&sig, &target, arm.op.span);
                let op = match target {
                    Target::Op(o) => o,
                    Target::Cap(c) => emit::in_stmt::cap_op(p, &c.to_string()),
                };
                self.code.put(&emit::in_stmt::quant_record(&ops_name, &n, &op, &qv, &var));
                self.pop();
                self.code.close("}");
                arms.push(InArmOps { sig, ops: ops_name, n, qv: Some((qv, q.var.clone(), qty.clone())) });
            } else {
                let Some((sig, target)) = self.op_target_for(&arm.op, super::ops::OpUse::Input) else { continue };
                self.input_impl_check(&sig, &target, arm.op.span);
                let op = match target {
                    Target::Op(o) => o,
                    Target::Cap(c) => emit::in_stmt::cap_op(p, &c.to_string()),
                };
                self.code.put(&emit::in_stmt::single_op(&ops_name, &op));
                arms.push(InArmOps { sig, ops: ops_name, n: "1".into(), qv: None });
            }
            let last = arms.last().unwrap();
            if arm.formals.len() != last.sig.params.len() {
                self.error(arm.span, format!("wrong number of arguments (`{}` has {} parameters, not {})", last.sig.name, last.sig.params.len(), arm.formals.len()));
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
            let saved_code = std::mem::replace(&mut self.code, emit::Code::new(&self.file_name, self.opts.lines));
            let saved_tmp = self.used_tmp;
            self.used_tmp = false;
            let prev = self.capture.replace((self.scopes.len(), env_fields.clone()));
            self.code.open(emit::in_stmt::CB_SWITCH);
            for (ai, arm) in ins.arms.iter().enumerate() {
                let e = if kind == "st" { &arm.st } else { &arm.by };
                let Some(e) = e else { continue };
                self.code.open(&emit::in_stmt::cb_case(ai));
                self.push();
                let qv = arms[ai].qv.as_ref().map(|(q, id, t)| (emit::in_stmt::cb_quant_value(ai), id.clone(), t.clone(), q.clone()));
                self.bind_formals(arm, &arms[ai].sig, emit::in_stmt::CB_INVB, &qv);
                let v = self.expr(e);
                if kind == "st" && v.ty != Ty::Bool && v.ty != Ty::Error {
                    self.error(e.span, "sync expr must be boolean expression");
                }
                if kind == "by" && !v.ty.is_numeric() && !v.ty.is_ordinal() {
                    self.error(e.span, "`by' expression must be ordered type");
                }
                self.code.put(&emit::in_stmt::cb_value(&v.c));
                self.pop();
                self.code.put("break;");
                self.code.close("}");
            }
            self.code.close("}");
            env_fields = self.capture.take().map(|c| c.1).unwrap_or_default();
            self.capture = prev;
            self.used_tmp = saved_tmp;
            let body = std::mem::replace(&mut self.code, saved_code).take();
            cb_funcs.push_str(&emit::in_stmt::callback(kind, id, &self.self_type(), names::OPS_LOCAL, &body));
        }
        (env_fields, cb_funcs)
    }

    /// Runs the arm chosen by the wait of input statement `id` (or its else).
    fn in_run_arms(&mut self, ins: &ast::InStmt, arms: &[InArmOps], qlocals: &[Option<String>], id: u32, p: &str) {
        let ib = emit::in_stmt::chosen(id);
        // the trace's ARM line: MPD 1.0.1 serviced a one-arm `in` without
        // st, by or quantifier (else allowed) in its runtime, at the arm's op;
        // any other `in` in generated code, at the first statement of the arm
        let simple = ins.arms.len() == 1
            && ins.arms.iter().all(|a| a.st.is_none() && a.by.is_none() && a.quants.is_empty() && !matches!(a.op.kind, ExprKind::Index { .. }));
        let arm_pos = |c: &Self, b: &ast::Block, fallback: ast::Span| {
            if simple {
                c.pos(ins.arms[0].op.span)
            } else {
                c.pos(b.stmts.first().map(|s| s.span).unwrap_or(fallback))
            }
        };
        if let Some(eb) = &ins.else_block {
            self.code.open(&emit::in_stmt::else_open(&ib));
            let ap = arm_pos(self, eb, eb.span);
            self.code.put(&emit::trace::event_invoker(&ap, "ARM", emit::in_stmt::NO_INVB));
            self.block(eb);
            self.code.put(&emit::trace::event_invoker(p, "NI", emit::in_stmt::NO_INVB));
            self.code.close("}");
        }
        let end = emit::in_stmt::end_label(id);
        let arms_start = self.code.out.len();
        for (ai, arm) in ins.arms.iter().enumerate() {
            self.code.open(&emit::in_stmt::arm_open(&ib, id, ai));
            let scopes = self.scopes.len();
            self.push();
            let qv = arms[ai]
                .qv
                .as_ref()
                .zip(qlocals[ai].as_ref())
                .map(|((q, id2, t), l)| (l.clone(), id2.clone(), t.clone(), q.clone()));
            self.bind_formals(arm, &arms[ai].sig, &ib, &qv);
            self.in_stack.push(super::InArm { ib: ib.clone(), loops: self.loop_labels.len(), end: end.clone(), scopes, sig: arms[ai].sig.clone() });
            // traced: ARM at the arm's first statement, NI at the `in`
            let ap = arm_pos(self, &arm.body, arm.span);
            self.code.put(&emit::trace::event_invoker(&ap, "ARM", &ib));
            self.block(&arm.body);
            self.in_stack.pop();
            self.code.put(&emit::trace::event_invoker(p, "NI", &ib));
            self.code.put(&emit::stmt::in_done(&ib));
            self.pop();
            self.code.close("}");
        }
        // the label only when a return in an arm jumps to it
        if self.code.out[arms_start..].contains(&emit::stmt::goto(&end)) {
            self.code.put(&emit::stmt::label(&end));
        }
    }

    /// `co [q] inv -> post // ... oc` (emit::co_stmt; docs/ops.md).
    fn co_stmt(&mut self, co: &ast::CoStmt, span: ast::Span) {
        let p = self.pos(span);
        let id = self.fresh;
        self.fresh += 1;
        let (cv, qv, qcap, k) = emit::co_stmt::names(id);
        self.code.open("{");
        // one counter numbers every instance of every arm, so each has its own
        // slots (stride: the most quantifiers of any arm) in the value vector
        let stride = co.arms.iter().map(|a| a.quants.len()).max().unwrap_or(0).max(1);
        self.code.put(&emit::trace::event(&p, "CO", "0"));
        self.code.put(&emit::co_stmt::begin(&cv, &qv, &qcap));
        self.code.put(&var::local_int(&k, "0"));
        // issue every arm (and quantifier instance)
        let mut arm_calls = Vec::new();
        let mut qtys: Vec<Vec<Ty>> = Vec::new();
        for (ai, arm) in co.arms.iter().enumerate() {
            let (call, lhs) = match &arm.inv.kind {
                ExprKind::Assign { op: ast::AssignOp::Plain, lhs, rhs } => (rhs.as_ref(), Some(lhs.as_ref())),
                _ => (&arm.inv, None),
            };
            let ExprKind::Call { callee, args } = &call.kind else {
                self.error(arm.inv.span, "invalid co-invocation (a co arm must invoke an op)");
                continue;
            };
            let predefined = match &callee.kind {
                ExprKind::Ident(id) => self.lookup(&id.name).is_none() && super::builtin::is_predefined(&id.name),
                ExprKind::Type(_) => true,
                _ => false,
            };
            if predefined {
                // a predefined function or conversion is no op: nothing to wait for
                self.error(arm.inv.span, "invalid co-invocation (a co arm must invoke an op, not a predefined function)");
                continue;
            }
            self.code.open("{");
            self.push();
            let (n, _) = self.quantifiers(&arm.quants, false);
            let Some((sig, target)) = self.op_target(callee) else {
                self.pop();
                for _ in 0..n {
                    self.code.close("}");
                }
                self.code.close("}");
                continue;
            };
            if sig.op.as_ref().map(|r| r.sem).unwrap_or(false) && !arm.send {
                self.error(arm.inv.span, "a semaphore can only be sent to (V) in a co arm");
            }
            // remember the quantifier values of this instance
            let qbase = emit::co_stmt::quant_base(&k, stride);
            let mut tys = Vec::new();
            for (j, q) in arm.quants.iter().enumerate() {
                if let Some(Sym::Var { c, ty, .. }) = self.lookup(&q.var.name).cloned() {
                    if ty == Ty::Real {
                        // the values are kept in an int vector
                        self.error(q.span, "a real quantifier is not supported in a co arm (use an int quantifier and convert)");
                    }
                    self.code.put(&emit::co_stmt::quant_store(&qv, &qcap, &qbase, j, &c));
                    tys.push(ty);
                } else {
                    tys.push(Ty::Int);
                }
            }
            if !arm.send {
                // traced: a co arm's CALL is at the arm's first line
                let ap = self.pos(arm.span);
                self.code.put(&emit::trace::event(&ap, "CALL", "0"));
            }
            self.co_issue = Some((cv.clone(), ai as u32, k.clone()));
            self.invoke_block(&sig, target, args, arm.send, arm.inv.span);
            self.co_issue = None;
            self.code.put(&emit::co_stmt::count(&k));
            self.flush_tmps();
            self.pop();
            for _ in 0..n {
                self.code.close("}");
            }
            self.code.close("}");
            arm_calls.push((ai, sig, args.clone(), lhs.cloned()));
            qtys.push(tys);
        }
        // completions, in completion order
        let (d, brk, next, da) = emit::co_stmt::wait_names(id);
        self.code.put(&emit::co_stmt::done_decl(&d));
        self.code.open(&emit::co_stmt::wait_loop(&d, &p, &cv));
        self.loop_labels.push((brk.clone(), next.clone(), self.scopes.len()));
        // the arm is read once: each arm's code releases the block
        self.code.put(&emit::co_stmt::arm_of(&da, &d));
        for ((ai, sig, args, lhs), tys) in arm_calls.into_iter().zip(qtys) {
            let arm = &co.arms[ai];
            self.code.open(&emit::co_stmt::arm_open(&da, ai));
            self.push();
            for (j, (q, ty)) in arm.quants.iter().zip(tys).enumerate() {
                let v = self.tmp();
                let ct = self.ctype(&ty);
                self.code.put(&emit::co_stmt::quant_load(&ct, &v, &qv, &d, stride, j));
                self.declare(&q.var, Sym::Var { c: v, ty, assignable: false });
            }
            let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
            let blk = emit::in_stmt::inv_block(&inv, &d);
            if !arm.send {
                for (i, (a, ps)) in args.iter().zip(sig.params.iter()).enumerate() {
                    if matches!(ps.mode, ast::ParamMode::Default | ast::ParamMode::Val | ast::ParamMode::Ref) {
                        continue;
                    }
                    let v = self.expr(a);
                    let src = if ps.ty.is_blob() {
                        V { c: self.blk_param(&blk, i, &ps.ty), ty: ps.ty.clone(), form: Form::Blob, k: None, lv: false, slice: None }
                    } else {
                        V::scalar(emit::co_stmt::block_param(&blk, i), ps.ty.clone())
                    };
                    self.assign_into(&v, src, a.span);
                }
                if let Some(l) = &lhs {
                    let lv = self.expr(l);
                    let src = if sig.ret.is_blob() {
                        V { c: emit::co_stmt::block_result(&blk), ty: sig.ret.clone(), form: Form::Blob, k: None, lv: false, slice: None }
                    } else {
                        V::scalar(emit::co_stmt::block_result(&blk), sig.ret.clone())
                    };
                    self.assign_into(&lv, src, l.span);
                }
            }
            self.flush_tmps();
            self.code.put(&emit::co_stmt::release(&d));
            if let Some(post) = &arm.post {
                self.block(post);
            }
            self.pop();
            self.code.close("}");
        }
        self.code.put(&emit::stmt::label(&next));
        self.loop_labels.pop();
        self.code.close("}");
        self.code.put(&emit::co_stmt::end(&brk, &cv, &qv));
        self.code.put(&emit::trace::event(&p, "OC", "0"));
        self.code.close("}");
    }

    /// Declares an in arm's formals (and quantifier variable) as views of block `ib`.
    fn bind_formals(&mut self, arm: &ast::InArm, sig: &super::scope::ProcSig, ib: &str, qv: &Option<(String, ast::Ident, Ty, String)>) {
        let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
        for (i, (f, ps)) in arm.formals.iter().zip(sig.params.iter()).enumerate() {
            let c = self.blk_param_of(&emit::in_stmt::inv_block(&inv, ib), i, ps);
            self.declare(f, Sym::Var { c, ty: ps.ty.clone(), assignable: true });
        }
        if let Some(r) = &arm.returns {
            let c = emit::in_stmt::inv_result(&inv, ib);
            self.declare(r, Sym::Var { c, ty: sig.ret.clone(), assignable: true });
        }
        if let Some((c, id, ty, _)) = qv {
            self.declare(id, Sym::Var { c: c.clone(), ty: ty.clone(), assignable: false });
        }
    }

    fn new_loop(&mut self) -> (String, String) {
        self.fresh += 1;
        let l = emit::stmt::loop_labels(self.fresh);
        self.loop_labels.push((l.0.clone(), l.1.clone(), self.scopes.len()));
        l
    }

    /// Evaluates a condition, freeing its temporaries before the branch.
    fn cond(&mut self, e: &ast::Expr) -> String {
        self.cond_of(e, "guard expression is not boolean")
    }

    /// `cond` with MPD's message for what the condition is (a guard, an `st`).
    fn cond_of(&mut self, e: &ast::Expr, what: &str) -> String {
        let v = self.expr(e);
        if v.ty != Ty::Bool && v.ty != Ty::Error {
            self.error(e.span, format!("{} ({})", what, self.types.show(&v.ty)));
        }
        if self.used_tmp {
            let t = self.tmp();
            self.code.put(&emit::stmt::cond_local(&t, &v.c));
            self.flush_tmps();
            t
        } else {
            v.c
        }
    }

    fn if_stmt(&mut self, arms: &[ast::IfArm], els: Option<&ast::Block>, i: usize) {
        if i >= arms.len() {
            if let Some(b) = els {
                self.block(b);
            }
            return;
        }
        let arm = &arms[i];
        self.code.line(self.line(arm.span));
        let c = self.cond(&arm.cond);
        self.code.open(&emit::stmt::if_open(&c));
        self.block(&arm.body);
        if i + 1 < arms.len() || els.is_some() {
            self.code.close("} else {");
            self.code.indent += 1;
            self.if_stmt(arms, els, i + 1);
        }
        self.code.close("}");
    }

    pub fn block(&mut self, b: &ast::Block) {
        self.code.open("{");
        self.push();
        // declarations in a nested block of initial code are locals of that block
        let saved_top = self.at_top;
        self.at_top = false;
        self.block_stmts(&b.stmts);
        self.at_top = saved_top;
        for o in self.scopes.last().unwrap().local_ops.clone().iter().rev() {
            self.code.put(&emit::stmt::local_ops_end(o));
        }
        self.pop();
        self.code.close("}");
    }

    /// Each loop iteration counts towards the time slice, so a busy loop lets
    /// other processes run (mpdl -L n: at most n iterations between switches).
    fn loop_top(&mut self) {
        if !self.opts.no_slice {
            self.code.put(emit::stmt::LOOP_YIELD);
        }
    }

    pub fn block_stmts(&mut self, stmts: &[Stmt]) {
        // procedures declared in a block are not MPD; declarations and statements mix
        for s in stmts {
            self.stmt(s);
        }
    }

    /// Opens one C loop per quantifier (the caller closes them); returns how many,
    /// and the variable holding the time slice left when the loop takes it in
    /// chunks (the caller stores it back after the loop).
    /// `to` counts up and `downto` down by one unless `by` gives the step,
    /// which is added as written (so `downto ... by 2` does not end by itself).
    /// `chunk`: the body cannot switch, so a single int-like quantifier stepping
    /// by one may count its slice per chunk of iterations (see chunk.rs).
    fn quantifiers(&mut self, qs: &[ast::Quantifier], chunk: bool) -> (usize, Option<String>) {
        let mut opened = 0;
        let mut slice_var = None;
        for q in qs {
            self.code.line(self.line(q.span));
            let super::quant::Quant { ty, real, start, end, step } = self.quant(q);
            let (e, st) = (self.tmp(), self.tmp());
            let var = format!("{}_{}", names::var(&q.var.name), self.fresh);
            self.fresh += 1;
            // long long guards against overflow at the end of the int range
            let lt = if real { "double" } else { "long long" };
            let et = if real || end.ty == Ty::Real { "double" } else { "int" };
            self.code.put(&emit::stmt::quant_bounds(et, &e, &end.c, &st, &step));
            self.flush_tmps();
            let cmp = if q.downto { ">=" } else { "<=" };
            if chunk && !real && q.step.is_none() && q.st.is_none() {
                let n = self.fresh;
                self.fresh += 1;
                let sl = emit::stmt::chunk_names(n).0;
                let v = format!("{}_l", var);
                // iterations left after this one: up to e, or down to e
                let left = if q.downto { format!("{} - {}", v, e) } else { format!("{} - {}", e, v) };
                let cl = emit::stmt::chunk_loop(n, &v, &start.c, cmp, &e, &left, &st);
                self.code.put(&cl.head);
                self.code.open(&cl.open);
                // the next loop top would reach 0: switch there and take a fresh slice
                for l in &cl.body {
                    self.code.put(l);
                }
                // the chunk counts its own iterations down, so the loop keeps one
                // induction variable even when the body needs what is left of
                // the chunk (P, exit): testing v against the chunk's end and
                // keeping end - v live too made semP's loop one uop too wide to
                // issue in one cycle (bench/timings, docs/ops.md)
                self.code.open(&cl.inner);
                let unrun = emit::stmt::chunk_unrun(n);
                self.chunk = Some(chunk::ChunkVars { depth: self.loop_labels.len(), sl: sl.clone(), unrun });
                slice_var = Some(sl);
                opened += 1;
            } else {
                self.code.open(&emit::stmt::quant_loop(lt, &var, &start.c, cmp, &e, &st));
            }
            let ct = self.ctype(&ty);
            self.code.put(&emit::stmt::quant_var(&ct, &var));
            self.declare(&q.var, Sym::Var { c: var.clone(), ty: ty.clone(), assignable: true });
            opened += 1;
            if let Some(stc) = &q.st {
                let c = self.quant_st(stc);
                self.code.open(&emit::stmt::if_open(&c));
                opened += 1;
            }
        }
        (opened, slice_var)
    }

    fn expr_stmt(&mut self, e: &ast::Expr) {
        match &e.kind {
            ExprKind::Assign { .. } | ExprKind::Swap { .. } => {
                self.expr(e);
            }
            ExprKind::Unary { op: UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec, .. } => {
                let v = self.expr(e);
                if v.ty != Ty::Error {
                    self.code.put(&emit::stmt::expr_stmt(&v.c));
                }
            }
            _ => {
                if let ExprKind::Binary { op: ast::BinaryOp::Eq, .. } = &e.kind {
                    // MPD 1.0.1 warns: the statement compares and discards
                    self.diags.warning(e.span, "suspicious comparison -- was `=' intended?");
                }
                // any expression may stand alone; an op named alone is only
                // its capability, not a call (as in MPD 1.0.1)
                let v = self.expr(e);
                match v.form {
                    _ if v.ty == Ty::Void || v.ty == Ty::Error => {
                        if v.c != "0" && !v.c.is_empty() {
                            self.code.put(&emit::stmt::expr_stmt(&v.c));
                        }
                    }
                    Form::Blob | Form::View | Form::Scalar => self.code.put(&emit::stmt::discard(&v.c)),
                }
            }
        }
        self.flush_tmps();
        let _ = V::err;
    }
}

/// Whether a proc with these statements needs a process of its own when
/// called: it contains `reply` or `forward` (the caller may resume before
/// it ends), or calls `setpriority` (which changes the priority of the
/// process running it, not of its caller: MPD 1.0.1 gives such a proc a
/// separate context too).  Nested procs are not looked into.
pub fn has_reply(stmts: &[Stmt]) -> bool {
    fn block(b: &ast::Block) -> bool {
        has_reply(&b.stmts)
    }
    let setpriority = |e: &ast::Expr| matches!(&e.kind, ExprKind::Call { callee, .. }
        if matches!(&callee.kind, ExprKind::Ident(id) if id.name == "setpriority"));
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Reply | StmtKind::Forward(_) => true,
        StmtKind::Expr(e) | StmtKind::Call(e) => setpriority(e),
        StmtKind::If { arms, else_block } => arms.iter().any(|a| block(&a.body)) || else_block.as_ref().map(block).unwrap_or(false),
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => block(body),
        StmtKind::In(i) => i.arms.iter().any(|a| block(&a.body)) || i.else_block.as_ref().map(block).unwrap_or(false),
        StmtKind::Co(c) => c.arms.iter().any(|a| a.post.as_ref().map(block).unwrap_or(false)),
        _ => false,
    })
}

/// The element type of (nested) arrays.
fn leaf_type(t: &Ty) -> &Ty {
    match t {
        Ty::Arr(e, _, _) => leaf_type(e),
        t => t,
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
