//! stmt: checking and translating statements and blocks.
use super::chunk;
use super::scope::Sym;
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::names;
use crate::syntax::ast::{self, ExprKind, Stmt, StmtKind, UnaryOp};

impl<'a> Checker<'a> {
    pub fn stmt(&mut self, s: &Stmt) {
        self.code.line(self.line(s.span));
        match &s.kind {
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) | StmtKind::Call(e) => self.expr_stmt(e),
            StmtKind::Skip | StmtKind::Empty => {}
            StmtKind::Stop(e) => {
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
                let p = self.pos(s.span);
                self.code.put(&format!("mpd_stop({}, {});", p, c));
            }
            StmtKind::Exit | StmtKind::Next => match self.loop_labels.last() {
                Some((b, c, sd)) => {
                    let l = if matches!(s.kind, StmtKind::Exit) { b.clone() } else { c.clone() };
                    let sd = *sd;
                    self.flush_tmps();
                    let depth = self.loop_labels.len();
                    for a in self.in_stack.clone().iter().rev() {
                        if a.loops >= depth {
                            self.code.put(&format!("mpd_in_done({});", a.ib));
                        }
                    }
                    // ops declared inside the loop die as they would at its block's end
                    self.local_ops_end_from(sd);
                    if let (StmtKind::Exit, Some(ch)) = (&s.kind, &self.chunk) {
                        if ch.depth == depth {
                            // leaving a chunk early: give back its iterations not run
                            self.code.put(&format!("{} += {};", ch.sl, ch.unrun));
                        }
                    }
                    self.code.put(&format!("goto {};", l));
                }
                None => self.error(s.span, format!("no enclosing loop for `{}`", if matches!(s.kind, StmtKind::Exit) { "exit" } else { "next" })),
            },
            StmtKind::If { arms, else_block } => self.if_stmt(arms, else_block.as_ref(), 0),
            StmtKind::While { cond, body } => {
                let (b, c) = self.new_loop();
                self.code.open("for (;;) {");
                self.loop_top();
                let cv = self.cond(cond);
                self.code.put(&format!("if (!({})) break;", cv));
                self.block(body);
                self.code.put(&format!("{}: ;", c));
                self.code.close("}");
                self.code.put(&format!("{}: ;", b));
                self.loop_labels.pop();
            }
            StmtKind::For { quants, body } => {
                let (b, c) = self.new_loop();
                self.code.open("{");
                self.push();
                self.scopes.last_mut().unwrap().for_quants = true;
                // a body assigning its control variable steers the loop (MPD
                // 1.0.1): it counts in the variable, never in chunks
                let steered: Vec<bool> = quants.iter().map(|q| super::loop_var::assigns(&body.stmts, &q.var.name)).collect();
                let chunk = !self.opts.no_slice && quants.len() == 1 && !steered[0] && chunk::block_can_chunk(body);
                let (n, sl) = self.quantifiers(quants, chunk, &steered);
                if sl.is_none() {
                    self.loop_top();
                }
                self.block(body);
                self.code.put(&format!("{}: ;", c));
                for _ in 0..n {
                    self.code.close("}");
                }
                if let Some(sl) = &sl {
                    // exit lands here too: the slice left goes back where
                    // the next loop top reads it
                    self.chunk = None;
                    self.code.put(&format!("{}: ;", b));
                    self.code.put(&format!("mpd_slice_put({});", sl));
                }
                self.pop();
                self.code.close("}");
                if sl.is_none() {
                    self.code.put(&format!("{}: ;", b));
                }
                self.loop_labels.pop();
            }
            StmtKind::Begin(b) => self.block(b),
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.error(e.span, "MPD's return takes no value; assign the result variable instead");
                }
                if let Some(a) = self.in_stack.last().cloned() {
                    // in an arm, return ends the invocation being serviced and
                    // with it the input statement (MPD 1.0.1)
                    self.flush_tmps();
                    self.local_ops_end_from(a.scopes);
                    self.code.put(&format!("mpd_in_done({}); goto {};", a.ib, a.end));
                    return;
                }
                self.local_ops_end_all();
                if let Some(ib) = self.trace_proc.clone() {
                    let p = self.pos(s.span);
                    self.code.put(&crate::emit::trace::proc_return(&p, &ib));
                }
                match self.ret.clone() {
                    Some(r) => self.code.put(&r.stmt),
                    None => {
                        // return from initial code: end the component's initialization
                        let end = crate::emit::trace::event(&self.trace_pos, "ENDBODY", "0");
                        self.code.put(&format!("{} mpd_tmp_free(&_t); return;", end));
                    }
                }
            }
            StmtKind::Send { inv, .. } => {
                self.invoke_stmt(inv, true);
                self.flush_tmps();
            }
            StmtKind::Receive(e) => self.receive(e),
            StmtKind::P(e) => self.p_v(e, false),
            StmtKind::V(e) => self.p_v(e, true),
            StmtKind::Destroy(e) => {
                if let Some(what) = self.not_a_value(e) {
                    self.error(e.span, format!("destroy object is not a capability ({})", what));
                    return;
                }
                let v = self.expr(e);
                let p = self.pos(s.span);
                match &v.ty {
                    Ty::Cap(super::types::CapTy::Vm) => self.code.put(&format!("mpd_vm_destroy({}, {});", p, v.c)),
                    Ty::Cap(super::types::CapTy::Resource(_)) | Ty::Null => {
                        let c = if v.ty == Ty::Null { "mpd_cap_null".to_string() } else { v.c };
                        self.code.put(&format!("mpd_destroy({}, {});", p, c));
                    }
                    Ty::Cap(_) => self.code.put(&format!("mpd_op_destroy({}, {});", p, v.c)),
                    // an array of op capabilities (from new([n] op ...)): each one
                    Ty::Arr(..) if matches!(leaf_type(&v.ty), Ty::Cap(c) if !matches!(c, super::types::CapTy::Resource(_))) => {
                        let mut n = 0;
                        let mut t = &v.ty;
                        while let Ty::Arr(e, _, _) = t {
                            t = e;
                            n += 1;
                        }
                        self.code.put(&format!("mpd_op_destroy_arr({}, {}, {});", p, v.c, n));
                    }
                    Ty::Error => {}
                    _ => self.error(e.span, format!("destroy object is not a capability ({})", self.types.show(&v.ty))),
                }
                self.flush_tmps();
            }
            StmtKind::In(ins) => self.in_stmt(ins, s.span),
            StmtKind::Reply => {
                let p = self.pos(s.span);
                if let Some(a) = self.in_stack.last().cloned() {
                    self.code.put(&format!("{} = mpd_reply({}, {});", a.ib, p, a.ib));
                    return;
                }
                // nobody waits for a reply from final code (MPD 1.0.1 warns)
                if self.in_final {
                    self.diags.warning(s.span, "reply in final ignored");
                    return;
                }
                match (&self.reply_code, self.ret.is_some()) {
                    (Some(copy), true) => {
                        let copy = copy.clone();
                        self.code.put(&format!("if (_ibp) {{ {}*_ibp = mpd_reply({}, *_ibp); }}", copy, p));
                    }
                    (None, false) => self.code.put(&format!("args_ = mpd_reply({}, args_);", p)),
                    _ => {}
                }
            }
            StmtKind::Co(co) => self.co_stmt(co, s.span),
            StmtKind::Forward(e) => {
                let cur = if let Some(a) = self.in_stack.last() {
                    Some(a.ib.clone())
                } else if self.reply_code.is_some() && self.ret.is_some() {
                    Some("(*_ibp)".to_string())
                } else {
                    None
                };
                match cur {
                    Some(cur) => {
                        if cur == "(*_ibp)" {
                            let copy = self.reply_code.clone().unwrap_or_default();
                            self.code.put(&copy);
                        }
                        self.fwd_issue = Some(cur);
                        self.invoke_stmt(e, false);
                        self.fwd_issue = None;
                        self.flush_tmps();
                    }
                    None => self.error(s.span, "forward: not allowed outside a proc or an input statement"),
                }
            }
        }
    }

    /// `in arm [] arm ... [] else -> block ni` through mpd_in_wait.
    fn in_stmt(&mut self, ins: &ast::InStmt, span: ast::Span) {
        use super::ops::Target;
        let p = self.pos(span);
        self.code.open("{");
        struct ArmInfo {
            sig: std::rc::Rc<super::scope::ProcSig>,
            ops: String,
            n: String,
            qv: Option<(String, ast::Ident, Ty)>,
        }
        let mut arms: Vec<ArmInfo> = Vec::new();
        for (ai, arm) in ins.arms.iter().enumerate() {
            if arm.quants.len() > 1 {
                self.error(arm.span, "an in arm with several quantifiers is not supported yet");
                continue;
            }
            let ops_name = format!("_ops{}_{}", self.fresh, ai);
            if let Some(q) = arm.quants.first() {
                // one op per quantifier value: ops[k], value qv[k]
                // as in `for`: the step is added as written; downto's default is -1
                let qt = self.quant(q);
                self.quant_ordinal_only(q, &qt, "an in arm");
                let super::quant::Quant { start, end, step, ty: qty, .. } = qt;
                let (n, qv) = (self.tmp(), self.tmp());
                self.code.put(&format!("int {n} = 0;"));
                let cnt = format!("(({e}) - ({s})) / ({st}) + 1", e = end.c, s = start.c, st = step);
                let t = self.t();
                self.code.put(&format!("int _cap{qv} = {cnt} > 0 ? {cnt} : 0;", qv = qv, cnt = cnt));
                self.code.put(&format!("mpd_op **{ops} = mpd_tmp_alloc({t}, sizeof(mpd_op *) * (size_t)(_cap{qv} + 1));", ops = ops_name, t = t, qv = qv));
                let t = self.t();
                self.code.put(&format!("int *{qv} = mpd_tmp_alloc({t}, sizeof(int) * (size_t)(_cap{qv} + 1));", qv = qv, t = t));
                let var = format!("{}_{}", crate::emit::names::var(&q.var.name), self.fresh);
                self.fresh += 1;
                let cmp = if q.downto { ">=" } else { "<=" };
                // never more values than counted (a step away from the end never ends)
                self.code.open(&format!("for (int {v} = {s}; {v} {cmp} {e} && {n} < _cap{qv}; {v} += {st}) {{", v = var, s = start.c, e = end.c, cmp = cmp, st = step, n = n, qv = qv));
                self.push();
                self.declare(&q.var, Sym::Var { c: var.clone(), ty: qty.clone(), assignable: false });
                if let Some(stc) = &q.st {
                    let c = self.quant_st(stc);
                    self.code.put(&format!("if (!({})) continue;", c));
                }
                let Some((sig, target)) = self.op_target_for(&arm.op, super::ops::OpUse::Input) else {
                    self.pop();
                    self.code.close("}");
                    continue;
                };
                self.input_impl_check(&sig, &target, arm.op.span);
                let op = match target {
                    Target::Op(o) => o,
                    Target::Cap(c) => format!("mpd_in_cap({}, {})", p, c),
                };
                self.code.put(&format!("{ops}[{n}] = {op}; {qv}[{n}] = {v}; {n}++;", ops = ops_name, n = n, op = op, qv = qv, v = var));
                self.pop();
                self.code.close("}");
                arms.push(ArmInfo { sig, ops: ops_name, n, qv: Some((qv, q.var.clone(), qty.clone())) });
            } else {
                let Some((sig, target)) = self.op_target_for(&arm.op, super::ops::OpUse::Input) else { continue };
                self.input_impl_check(&sig, &target, arm.op.span);
                let op = match target {
                    Target::Op(o) => o,
                    Target::Cap(c) => format!("mpd_in_cap({}, {})", p, c),
                };
                self.code.put(&format!("mpd_op *{}[1] = {{ {} }};", ops_name, op));
                arms.push(ArmInfo { sig, ops: ops_name, n: "1".into(), qv: None });
            }
            let last = arms.last().unwrap();
            if arm.formals.len() != last.sig.params.len() {
                self.error(arm.span, format!("wrong number of arguments (`{}` has {} parameters, not {})", last.sig.name, last.sig.params.len(), arm.formals.len()));
            }
        }
        if arms.len() != ins.arms.len() {
            self.code.close("}");
            return;
        }
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
        // st and by callbacks
        let id = self.fresh;
        self.fresh += 1;
        let has_st = ins.arms.iter().any(|a| a.st.is_some());
        let has_by = ins.arms.iter().any(|a| a.by.is_some());
        let mut env_fields: Vec<(String, String)> = Vec::new();
        let mut cb_funcs = String::new();
        for (kind, present) in [("st", has_st), ("by", has_by)] {
            if !present {
                continue;
            }
            let saved_code = std::mem::replace(&mut self.code, crate::emit::Code::new(&self.file_name, self.opts.lines));
            let saved_tmp = self.used_tmp;
            self.used_tmp = false;
            let prev = self.capture.replace((self.scopes.len(), env_fields.clone()));
            self.code.open("switch (_arm) {");
            for (ai, arm) in ins.arms.iter().enumerate() {
                let e = if kind == "st" { &arm.st } else { &arm.by };
                let Some(e) = e else { continue };
                self.code.open(&format!("case {}: {{", ai));
                self.push();
                self.bind_formals(arm, &arms[ai].sig, "_ib", &arms[ai].qv.as_ref().map(|(q, id, t)| (format!("_env->q{}[_k]", ai), id.clone(), t.clone(), q.clone())));
                let v = self.expr(e);
                if kind == "st" && v.ty != Ty::Bool && v.ty != Ty::Error {
                    self.error(e.span, "sync expr must be boolean expression");
                }
                if kind == "by" && !v.ty.is_numeric() && !v.ty.is_ordinal() {
                    self.error(e.span, "`by' expression must be ordered type");
                }
                self.code.put(&format!("_r = (double)({});", v.c));
                self.pop();
                self.code.put("break;");
                self.code.close("}");
            }
            self.code.close("}");
            env_fields = self.capture.take().map(|c| c.1).unwrap_or_default();
            self.capture = prev;
            self.used_tmp = saved_tmp;
            let body = std::mem::replace(&mut self.code, saved_code).take();
            let rt = if kind == "st" { "int" } else { "double" };
            cb_funcs.push_str(&format!(
                "static {rt} mpd_{kind}_{id}(void *e_, uint32_t _arm, uint32_t _k, mpd_invb *_ib) {{\n    struct env_{id} *_env = e_; {st} *self = _env->self; (void)self; (void)_k;\n    {ops}\n    mpd_tmp *_t = NULL; double _r = {dflt};\n{body}    mpd_tmp_free(&_t);\n    return ({rt})_r;\n}}\n",
                rt = rt,
                kind = kind,
                id = id,
                st = self.self_type(),
                ops = names::OPS_LOCAL,
                dflt = if kind == "st" { "1" } else { "0" },
                body = body
            ));
        }
        let mut env_def = format!("struct env_{} {{ {} *self;", id, self.self_type());
        for (k, (_, ct)) in env_fields.iter().enumerate() {
            env_def.push_str(&format!(" {} c{};", ct, k));
        }
        for (ai, a) in arms.iter().enumerate() {
            if a.qv.is_some() {
                env_def.push_str(&format!(" int *q{};", ai));
            }
        }
        env_def.push_str(" };\n");
        self.protos.push_str(&env_def);
        self.funcs.push_str(&cb_funcs);
        let mut init = vec!["self".to_string()];
        for (c, ct) in &env_fields {
            init.push(if ct == "char *" { c.clone() } else { format!("&{}", c) });
        }
        for a in &arms {
            if let Some((qv, _, _)) = &a.qv {
                init.push(qv.clone());
            }
        }
        self.code.put(&format!("struct env_{} _env{} = {{ {} }};", id, id, init.join(", ")));
        let arm_inits: Vec<String> = ins
            .arms
            .iter()
            .zip(&arms)
            .map(|(a, i)| format!("{{ {}, (uint32_t)({}), {}, {}, 0, 0 }}", i.ops, i.n, a.st.is_some() as i32, a.by.is_some() as i32))
            .collect();
        self.code.put(&format!("mpd_arm _arms{}[{}] = {{ {} }};", id, arms.len(), arm_inits.join(", ")));
        self.code.put(&format!(
            "mpd_in _in{id} = {{ _arms{id}, {n}, {e}, {st}, {by}, &_env{id}, 0, 0 }};",
            id = id,
            n = arms.len(),
            e = ins.else_block.is_some() as i32,
            st = if has_st { format!("mpd_st_{}", id) } else { "NULL".into() },
            by = if has_by { format!("mpd_by_{}", id) } else { "NULL".into() }
        ));
        let ib = format!("_ib{}", id);
        self.code.put(&crate::emit::trace::event(&p, "IN", "0"));
        self.code.put(&format!("mpd_invb *{} = mpd_in_wait({}, &_in{});", ib, p, id));
        // quantifier values live in the statement's temporaries: copy the
        // chosen one out before they are freed
        let qlocals: Vec<Option<String>> = arms
            .iter()
            .enumerate()
            .map(|(ai, a)| {
                a.qv.as_ref().map(|(q, _, _)| {
                    let l = self.tmp();
                    self.code.put(&format!("int {l} = {ib} && _in{id}.arm == {ai} ? {q}[_in{id}.k] : 0;"));
                    l
                })
            })
            .collect();
        self.flush_tmps();
        // MPD_TRACE's ARM line: MPD 1.0.1 serviced a one-arm `in` without
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
            self.code.open(&format!("if (!{}) {{", ib));
            let ap = arm_pos(self, eb, eb.span);
            self.code.put(&crate::emit::trace::event_invoker(&ap, "ARM", "(mpd_invb *)0"));
            self.block(eb);
            self.code.put(&crate::emit::trace::event_invoker(&p, "NI", "(mpd_invb *)0"));
            self.code.close("}");
        }
        let end = format!("_inend{}", id);
        let arms_start = self.code.out.len();
        for (ai, arm) in ins.arms.iter().enumerate() {
            self.code.open(&format!("if ({} && _in{}.arm == {}) {{", ib, id, ai));
            let scopes = self.scopes.len();
            self.push();
            let qv = arms[ai]
                .qv
                .as_ref()
                .zip(qlocals[ai].as_ref())
                .map(|((q, id2, t), l)| (l.clone(), id2.clone(), t.clone(), q.clone()));
            self.bind_formals(arm, &arms[ai].sig, &ib, &qv);
            self.in_stack.push(super::InArm { ib: ib.clone(), loops: self.loop_labels.len(), end: end.clone(), scopes, sig: arms[ai].sig.clone() });
            // MPD_TRACE: ARM at the arm's first statement, NI at the `in`
            let ap = arm_pos(self, &arm.body, arm.span);
            self.code.put(&crate::emit::trace::event_invoker(&ap, "ARM", &ib));
            self.block(&arm.body);
            self.in_stack.pop();
            self.code.put(&crate::emit::trace::event_invoker(&p, "NI", &ib));
            self.code.put(&format!("mpd_in_done({});", ib));
            self.pop();
            self.code.close("}");
        }
        // the label only when a return in an arm jumps to it
        if self.code.out[arms_start..].contains(&format!("goto {};", end)) {
            self.code.put(&format!("{}: ;", end));
        }
        self.code.close("}");
    }

    /// `co [q] inv -> post // ... oc` through mpd_co_* (docs/ops.md).
    fn co_stmt(&mut self, co: &ast::CoStmt, span: ast::Span) {
        let p = self.pos(span);
        let id = self.fresh;
        self.fresh += 1;
        let (cv, qv, qcap) = (format!("_co{}", id), format!("_coqv{}", id), format!("_coqn{}", id));
        self.code.open("{");
        // one counter numbers every instance of every arm, so each has its own
        // slots (stride: the most quantifiers of any arm) in the value vector
        let k = format!("_cok{}", id);
        let stride = co.arms.iter().map(|a| a.quants.len()).max().unwrap_or(0).max(1);
        self.code.put(&crate::emit::trace::event(&p, "CO", "0"));
        self.code.put(&format!("mpd_co *{} = mpd_co_begin(); int *{} = NULL; int {} = 0; (void){};", cv, qv, qcap, qcap));
        self.code.put(&format!("int {} = 0;", k));
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
            let (n, _) = self.quantifiers(&arm.quants, false, &[]);
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
            let qbase = format!("({}) * {}", k, stride);
            let mut tys = Vec::new();
            for (j, q) in arm.quants.iter().enumerate() {
                if let Some(Sym::Var { c, ty, .. }) = self.lookup(&q.var.name).cloned() {
                    if ty == Ty::Real {
                        // the values are kept in an int vector
                        self.error(q.span, "a real quantifier is not supported in a co arm (use an int quantifier and convert)");
                    }
                    self.code.put(&format!("{qv} = mpd_ivec_set({qv}, &{qc}, {b} + {j}, (int)({c}));", qv = qv, qc = qcap, b = qbase, j = j, c = c));
                    tys.push(ty);
                } else {
                    tys.push(Ty::Int);
                }
            }
            let idx = format!("{}++", k);
            let _ = idx;
            if !arm.send {
                // MPD_TRACE: a co arm's CALL is at the arm's first line
                let ap = self.pos(arm.span);
                self.code.put(&crate::emit::trace::event(&ap, "CALL", "0"));
            }
            self.co_issue = Some((cv.clone(), ai as u32, k.clone()));
            self.invoke_block(&sig, target, args, arm.send, arm.inv.span);
            self.co_issue = None;
            self.code.put(&format!("{}++;", k));
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
        let d = format!("_cod{}", id);
        let (brk, next) = (format!("_coend{}", id), format!("_conext{}", id));
        self.code.put(&format!("mpd_invb *{};", d));
        self.code.open(&format!("while (({} = mpd_co_wait({}, {})) != NULL) {{", d, p, cv));
        self.loop_labels.push((brk.clone(), next.clone(), self.scopes.len()));
        // the arm is read once: each arm's code releases the block
        let da = format!("_coarm{}", id);
        self.code.put(&format!("uint32_t {} = {}->co_arm;", da, d));
        for ((ai, sig, args, lhs), tys) in arm_calls.into_iter().zip(qtys) {
            let arm = &co.arms[ai];
            self.code.open(&format!("if ({} == {}) {{", da, ai));
            self.push();
            for (j, (q, ty)) in arm.quants.iter().zip(tys).enumerate() {
                let v = self.tmp();
                let ct = self.ctype(&ty);
                self.code.put(&format!("{} {} = ({}){}[{}->co_idx * {} + {}];", ct, v, ct, qv, d, stride, j));
                self.declare(&q.var, Sym::Var { c: v, ty, assignable: false });
            }
            let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
            let blk = format!("((struct {} *){})", inv, d);
            if !arm.send {
                for (i, (a, ps)) in args.iter().zip(sig.params.iter()).enumerate() {
                    if matches!(ps.mode, ast::ParamMode::Default | ast::ParamMode::Val | ast::ParamMode::Ref) {
                        continue;
                    }
                    let v = self.expr(a);
                    let src = if ps.ty.is_blob() {
                        V { c: self.blk_param(&blk, i, &ps.ty), ty: ps.ty.clone(), form: Form::Blob, k: None, lv: false, slice: None }
                    } else {
                        V::scalar(format!("{}->p{}", blk, i), ps.ty.clone())
                    };
                    self.assign_into(&v, src, a.span);
                }
                if let Some(l) = &lhs {
                    let lv = self.expr(l);
                    let src = if sig.ret.is_blob() {
                        V { c: format!("{}->ret", blk), ty: sig.ret.clone(), form: Form::Blob, k: None, lv: false, slice: None }
                    } else {
                        V::scalar(format!("{}->ret", blk), sig.ret.clone())
                    };
                    self.assign_into(&lv, src, l.span);
                }
            }
            self.flush_tmps();
            self.code.put(&format!("mpd_co_release({});", d));
            if let Some(post) = &arm.post {
                self.block(post);
            }
            self.pop();
            self.code.close("}");
        }
        self.code.put(&format!("{}: ;", next));
        self.loop_labels.pop();
        self.code.close("}");
        self.code.put(&format!("{}: mpd_co_end({}); free({});", brk, cv, qv));
        self.code.put(&crate::emit::trace::event(&p, "OC", "0"));
        self.code.close("}");
    }

    /// Declares an in arm's formals (and quantifier variable) as views of block `ib`.
    fn bind_formals(&mut self, arm: &ast::InArm, sig: &super::scope::ProcSig, ib: &str, qv: &Option<(String, ast::Ident, Ty, String)>) {
        let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
        for (i, (f, ps)) in arm.formals.iter().zip(sig.params.iter()).enumerate() {
            let c = self.blk_param_of(&format!("((struct {} *){})", inv, ib), i, ps);
            self.declare(f, Sym::Var { c, ty: ps.ty.clone(), assignable: true });
        }
        if let Some(r) = &arm.returns {
            let c = format!("((struct {} *){})->ret", inv, ib);
            self.declare(r, Sym::Var { c, ty: sig.ret.clone(), assignable: true });
        }
        if let Some((c, id, ty, _)) = qv {
            self.declare(id, Sym::Var { c: c.clone(), ty: ty.clone(), assignable: false });
        }
    }

    fn new_loop(&mut self) -> (String, String) {
        self.fresh += 1;
        let l = (format!("_brk{}", self.fresh), format!("_next{}", self.fresh));
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
            self.code.put(&format!("_Bool {} = {};", t, v.c));
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
        self.code.open(&format!("if ({}) {{", c));
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
            self.code.put(&format!("mpd_ops_local_end({});", o));
        }
        self.pop();
        self.code.close("}");
    }

    /// Each loop iteration counts towards the time slice, so a busy loop lets
    /// other processes run (mpdl -L n: at most n iterations between switches).
    fn loop_top(&mut self) {
        if !self.opts.no_slice {
            self.code.put("mpd_maybe_yield();");
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
    /// `steered[i]`: the body may assign quantifier i's variable, so the loop
    /// steps from the variable's value (MPD 1.0.1's loop variable).
    fn quantifiers(&mut self, qs: &[ast::Quantifier], chunk: bool, steered: &[bool]) -> (usize, Option<String>) {
        let mut opened = 0;
        let mut slice_var = None;
        for (qi, q) in qs.iter().enumerate() {
            let steer = steered.get(qi).copied().unwrap_or(false);
            self.code.line(self.line(q.span));
            let super::quant::Quant { ty, real, start, end, step } = self.quant(q);
            let (e, st) = (self.tmp(), self.tmp());
            let var = format!("{}_{}", names::var(&q.var.name), self.fresh);
            self.fresh += 1;
            // long long guards against overflow at the end of the int range
            let lt = if real { "double" } else { "long long" };
            let et = if real || end.ty == Ty::Real { "double" } else { "int" };
            self.code.put(&format!("{et} {} = {}; {et} {} = {};", e, end.c, st, step, et = et));
            self.flush_tmps();
            let cmp = if q.downto { ">=" } else { "<=" };
            if chunk && !real && q.step.is_none() && q.st.is_none() {
                let n = self.fresh;
                self.fresh += 1;
                let (sl, k, m) = (format!("_sl{}", n), format!("_sk{}", n), format!("_sn{}", n));
                let v = format!("{}_l", var);
                // iterations left after this one: up to e, or down to e
                let left = if q.downto { format!("{} - {}", v, e) } else { format!("{} - {}", e, v) };
                self.code.put(&format!("long {} = mpd_slice_get(); long long {} = {};", sl, v, start.c));
                self.code.open(&format!("while ({} {} {}) {{", v, cmp, e));
                // the next loop top would reach 0: switch there, as
                // mpd_maybe_yield() would, and take a fresh slice
                self.code.put(&format!("long long {k} = {sl} > 1; if (!{k}) {sl} = mpd_slice_renew();", k = k, sl = sl));
                self.code.put(&format!("long long {m} = ({left}) + 1; if ({m} > {sl} - {k}) {m} = {sl} - {k};", m = m, left = left, sl = sl, k = k));
                self.code.put(&format!("{sl} -= {m} - 1 + {k};", sl = sl, m = m, k = k));
                // the chunk counts its own iterations down, so the loop keeps one
                // induction variable even when the body needs what is left of
                // the chunk (P, exit): testing v against the chunk's end and
                // keeping end - v live too made semP's loop one uop too wide to
                // issue in one cycle (bench/timings, docs/ops.md)
                let su = format!("_su{}", n);
                self.code.open(&format!("for (long long {su} = {m}; {su} > 0; {su}--, {v} += {st}) {{", su = su, m = m, v = v, st = st));
                let unrun = format!("{} - 1", su);
                self.chunk = Some(chunk::ChunkVars { depth: self.loop_labels.len(), sl: sl.clone(), unrun });
                slice_var = Some(sl);
                opened += 1;
            } else if steer {
                // the variable lives outside the C loop so that the step reads it
                let ct = self.ctype(&ty);
                self.code.put(&format!("{} {};", ct, var));
                self.code.open(&format!(
                    "for ({lt} {v}_l = {s}; {v}_l {cmp} {e}; {v}_l = ({lt}){v} + {st}) {{",
                    lt = lt,
                    v = var,
                    s = start.c,
                    cmp = cmp,
                    e = e,
                    st = st
                ));
            } else {
                self.code.open(&format!(
                    "for ({lt} {v}_l = {s}; {v}_l {cmp} {e}; {v}_l += {st}) {{",
                    lt = lt,
                    v = var,
                    s = start.c,
                    cmp = cmp,
                    e = e,
                    st = st
                ));
            }
            let ct = self.ctype(&ty);
            if steer {
                self.code.put(&format!("{} = ({}){}_l;", var, ct, var));
            } else {
                self.code.put(&format!("{} {} = ({}){}_l;", ct, var, ct, var));
            }
            self.declare(&q.var, Sym::Var { c: var.clone(), ty: ty.clone(), assignable: true });
            opened += 1;
            if let Some(stc) = &q.st {
                let c = self.quant_st(stc);
                self.code.open(&format!("if ({}) {{", c));
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
                    self.code.put(&format!("{};", v.c));
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
                            self.code.put(&format!("{};", v.c));
                        }
                    }
                    Form::Blob | Form::View | Form::Scalar => self.code.put(&format!("(void)({});", v.c)),
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
