//! stmt: checking and translating statements and blocks.
use super::chunk;
use super::scope::Sym;
use super::types::Ty;
use super::{Checker, FnKind, Form, V};
use crate::emit::{self, data, names};
use crate::syntax::ast::{self, ExprKind, Stmt, StmtKind, UnaryOp};

impl<'a> Checker<'a> {
    /// One statement: its #line, then the construct's own function.
    pub fn stmt(&mut self, s: &Stmt) {
        self.f.code.line(self.line(s.span));
        match &s.kind {
            StmtKind::Decl(d) => self.decl(d),
            // `call` takes an invocation with its parentheses, as `send`
            // does; a bare op name is a call only as a statement of its own
            StmtKind::Call(e) if !matches!(e.kind, ExprKind::Call { .. }) => {
                self.error(e.span, "expected an invocation: `call` takes `op(args)`")
            }
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
            // `receive` takes `op(formals)`, as `call` takes `op(args)`
            StmtKind::Receive(e) if !matches!(e.kind, ExprKind::Call { .. }) => {
                self.error(e.span, "expected an invocation: `receive` takes `op(variables)`")
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
        self.f.code.put(&emit::stmt::stop(&p, &c));
    }

    /// `exit` / `next`: only inside a loop.  What they leave ends first: the
    /// invocations of `in` arms entered inside the loop, the ops declared in
    /// the loop, and (exit) the chunk of time slice not used.
    fn exit_next(&mut self, exit: bool, span: ast::Span) {
        match self.f.loop_labels.last() {
            Some((b, c, sd)) => {
                let l = if exit { b.clone() } else { c.clone() };
                let sd = *sd;
                self.flush_tmps();
                let depth = self.f.loop_labels.len();
                for a in self.f.in_stack.clone().iter().rev() {
                    if a.loops >= depth {
                        self.f.code.put(&emit::stmt::in_done(&a.ib));
                    }
                }
                // ops declared inside the loop die as they would at its block's end
                self.local_ops_end_from(sd);
                if let (true, Some(ch)) = (exit, &self.f.chunk) {
                    if ch.depth == depth {
                        // leaving a chunk early: give back its iterations not run
                        self.f.code.put(&emit::stmt::chunk_give_back(&ch.sl, &ch.unrun));
                    }
                }
                self.f.code.put(&emit::stmt::goto(&l));
            }
            None => self.error(span, format!("no enclosing loop for `{}`", if exit { "exit" } else { "next" })),
        }
    }

    /// `while cond -> body`: the condition is tested at the top of each iteration.
    fn while_stmt(&mut self, cond: &ast::Expr, body: &ast::Block) {
        let (b, c) = self.new_loop();
        self.f.code.open(emit::stmt::WHILE_OPEN);
        self.loop_top();
        let cv = self.cond(cond);
        self.f.code.put(&emit::stmt::while_test(&cv));
        self.block(body);
        self.f.code.put(&emit::stmt::label(&c));
        self.f.code.close_block();
        self.f.code.put(&emit::stmt::label(&b));
        self.f.loop_labels.pop();
    }

    /// `fa quantifiers -> body af`: one C loop per quantifier; a single one over
    /// a body that cannot switch counts its time slice in chunks (chunk.rs).
    fn for_stmt(&mut self, quants: &[ast::Quantifier], body: &ast::Block) {
        let (b, c) = self.new_loop();
        self.f.code.open_block();
        self.push();
        self.top_scope().for_quants = true;
        // a body assigning its control variable steers the loop (MPD
        // 1.0.1): it counts in the variable, never in chunks
        let steered: Vec<bool> = quants.iter().map(|q| super::loop_var::assigns(&body.stmts, &q.var.name)).collect();
        let chunk = !self.opts.no_slice
            && quants.len() == 1
            && !steered[0]
            && chunk::block_can_chunk(body)
            && self.limit_stable(&quants[0].end, &body.stmts);
        // a limit only other processes can change is read again only when
        // the loop top switched (order.rs limit_kept)
        let kept = !chunk
            && !self.opts.no_slice
            && quants.len() == 1
            && !steered[0]
            && quants[0].step.is_none()
            && self.limit_kept(&quants[0].end, body);
        let (n, sl, reread) = self.quantifiers(quants, chunk, kept, &steered);
        match (&sl, reread) {
            (None, Some((e, end))) => self.f.code.put(&emit::stmt::loop_yield_reread(&e, &end)),
            (None, None) => self.loop_top(),
            _ => {}
        }
        self.block(body);
        self.f.code.put(&emit::stmt::label(&c));
        for _ in 0..n {
            self.f.code.close_block();
        }
        if let Some(sl) = &sl {
            // exit lands here too: the slice left goes back where
            // the next loop top reads it
            self.f.chunk = None;
            self.f.code.put(&emit::stmt::label(&b));
            self.f.code.put(&emit::stmt::slice_put(sl));
        }
        self.pop();
        self.f.code.close_block();
        if sl.is_none() {
            self.f.code.put(&emit::stmt::label(&b));
        }
        self.f.loop_labels.pop();
    }

    /// `return` (no value in MPD): in an `in` arm it answers the invocation and
    /// leaves the statement (MPD 1.0.1); in a proc it copies var/res back and
    /// returns; in the initial code it ends the component's initialization.
    fn return_stmt(&mut self, e: Option<&ast::Expr>, span: ast::Span) {
        if let Some(e) = e {
            self.error(e.span, super::msg::words(super::msg::Wording::ReturnValue, self.dialect(e.span)));
        }
        if let Some(a) = self.f.in_stack.last().cloned() {
            self.flush_tmps();
            self.local_ops_end_from(a.scopes);
            self.f.code.put(&emit::stmt::in_return(&a.ib, &a.end));
            return;
        }
        self.local_ops_end_all();
        if let Some(ib) = self.f.kind.trace_ib() {
            let p = self.pos(span);
            self.f.code.put(&emit::trace::proc_return(&p, ib));
        }
        match self.f.ret.clone() {
            Some(r) => self.f.code.put(&r.stmt),
            None => {
                let end = emit::trace::event(&self.trace_pos, "ENDBODY", "0");
                self.f.code.put(&emit::stmt::init_return(&end));
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
        // an op, sem or procedure itself (or an element of an op array) is
        // not a capability: only what holds one is destroyed (MPD 1.0.1)
        let mut base = e;
        while let ast::ExprKind::Index { base: b, .. } | ast::ExprKind::Paren(b) = &base.kind {
            base = b;
        }
        if let ast::ExprKind::Ident(id) = &base.kind {
            if let Some(Sym::Proc(_) | Sym::PendingProc(_)) = self.lookup(&id.name) {
                self.error(
                    e.span,
                    format!(
                        "destroy object is not a capability (`{}` is an operation, not a capability variable)",
                        id.name
                    ),
                );
                return;
            }
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
                while let Ty::Arr(e, _, _, _) = t {
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
            self.f.code.put(&c);
        }
        self.flush_tmps();
    }

    /// `reply`: answers the invocation being serviced (an `in` arm's, or the
    /// proc's) early; the invoker goes on while this process continues.
    fn reply_stmt(&mut self, span: ast::Span) {
        let p = self.pos(span);
        if let Some(a) = self.f.in_stack.last().cloned() {
            self.f.code.put(&emit::stmt::reply_in_arm(&p, &a.ib));
            return;
        }
        // nobody waits for a reply from final code (MPD 1.0.1 warns)
        if self.in_final {
            self.diags.warning(span, "reply in final ignored");
            return;
        }
        match (&self.f.kind, self.f.ret.is_some()) {
            (FnKind::Proc { reply_code, .. }, true) => {
                let copy = reply_code.clone();
                self.f.code.put(&emit::stmt::reply_in_proc(&p, &copy));
            }
            (FnKind::Proc { .. }, false) => {}
            (_, false) => self.f.code.put(&emit::stmt::reply_in_process(&p)),
            _ => {}
        }
    }

    /// `forward inv`: hands the invocation being serviced (an `in` arm's or the
    /// proc's, with its results so far) on to another op.
    fn forward_stmt(&mut self, e: &ast::Expr, span: ast::Span) {
        let proc_copy = match (&self.f.kind, self.f.ret.is_some()) {
            (FnKind::Proc { reply_code, .. }, true) => Some(reply_code.clone()),
            _ => None,
        };
        let cur = match (self.f.in_stack.last(), &proc_copy) {
            (Some(a), _) => Some(a.ib.clone()),
            (None, Some(copy)) => {
                // the proc's own invocation, with its results so far
                self.f.code.put(copy);
                Some(emit::stmt::PROC_INVOCATION.to_string())
            }
            (None, None) => None,
        };
        match cur {
            Some(cur) => {
                self.issue = super::Issue::Forward { cur };
                self.invoke_stmt(e, false);
                self.issue = super::Issue::Plain;
                self.flush_tmps();
            }
            None => self.error(span, "forward: not allowed outside a proc or an input statement"),
        }
    }

    fn new_loop(&mut self) -> (String, String) {
        self.fresh += 1;
        let l = emit::stmt::loop_labels(self.fresh);
        self.f.loop_labels.push((l.0.clone(), l.1.clone(), self.scopes.len()));
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
        if self.f.used_tmp {
            let t = self.tmp();
            self.f.code.put(&emit::stmt::cond_local(&t, &v.c));
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
        self.f.code.line(self.line(arm.span));
        let c = self.cond(&arm.cond);
        self.f.code.open(&emit::stmt::if_open(&c));
        self.block(&arm.body);
        if i + 1 < arms.len() || els.is_some() {
            self.f.code.else_block();
            self.f.code.indent += 1;
            self.if_stmt(arms, els, i + 1);
        }
        self.f.code.close_block();
    }

    pub fn block(&mut self, b: &ast::Block) {
        self.f.code.open_block();
        self.push();
        // declarations in a nested block of initial code are locals of that block
        let saved_top = self.at_top;
        self.at_top = false;
        self.block_stmts(&b.stmts);
        self.at_top = saved_top;
        for o in self.scopes.last().unwrap().local_ops.clone().iter().rev() {
            self.f.code.put(&emit::stmt::local_ops_end(o));
        }
        self.pop();
        self.f.code.close_block();
    }

    /// Each loop iteration counts towards the time slice, so a busy loop lets
    /// other processes run (mpdl -L n: at most n iterations between switches).
    fn loop_top(&mut self) {
        if !self.opts.no_slice {
            self.f.code.put(emit::stmt::LOOP_YIELD);
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
    /// `kept`: one quantifier whose limit only the loop top's switches can
    /// change: it is read before the loop, and the limit's variable and C
    /// are returned for the loop top to read it again.
    pub(crate) fn quantifiers(
        &mut self,
        qs: &[ast::Quantifier],
        chunk: bool,
        kept: bool,
        steered: &[bool],
    ) -> (usize, Option<String>, Option<(String, String)>) {
        let mut opened = 0;
        let mut slice_var = None;
        let mut reread = None;
        for (qi, q) in qs.iter().enumerate() {
            let steer = steered.get(qi).copied().unwrap_or(false);
            self.f.code.line(self.line(q.span));
            // MPD 1.0.1 (and SR) test the limit and add the step afresh at
            // every iteration, as C's `for` does: a body that changes `n`
            // changes `for [i = 1 to n]`.  So do we, unless translating them
            // needed code of their own (then once, before the loop); their
            // temporaries are freed at the top of each iteration
            let at = self.f.code.out.len();
            let tmps_before = std::mem::replace(&mut self.f.used_tmp, false);
            let super::quant::Quant { ty, real, start, end, step } = self.quant(q);
            let afresh = self.f.code.out.len() == at;
            let limit_tmps = afresh && self.f.used_tmp;
            self.f.used_tmp |= tmps_before;
            let (e, st) = (self.tmp(), self.tmp());
            let var = format!("{}_{}", names::var(&q.var.name), self.fresh);
            self.fresh += 1;
            // long long guards against overflow at the end of the int range
            let lt = if real { "double" } else { "long long" };
            let et = if real || end.ty == Ty::Real { "double" } else { "int" };
            let kept = kept && afresh && !limit_tmps;
            // a kept limit has the counter's width: the loop's test then
            // needs no extension of a limit the loop top may change
            let et = if kept && et == "int" { lt } else { et };
            if kept {
                reread = Some((e.clone(), end.c.clone()));
            }
            let (e_test, st) = if afresh && !kept {
                self.f.code.put(&emit::stmt::quant_limit(et, &e));
                (emit::stmt::quant_limit_test(&e, &end.c), emit::stmt::quant_step(&step))
            } else {
                self.f.code.put(&emit::stmt::quant_bounds(et, &e, &end.c, &st, &step));
                (e.clone(), st)
            };
            self.flush_tmps();
            let cmp = if q.downto { ">=" } else { "<=" };
            if chunk && !real && q.step.is_none() && q.st.is_none() {
                let n = self.fresh;
                self.fresh += 1;
                let sl = emit::stmt::chunk_names(n).0;
                let v = format!("{}_l", var);
                // iterations left after this one: up to e, or down to e
                let left = if q.downto { format!("{} - {}", v, e) } else { format!("{} - {}", e, v) };
                let cl = emit::stmt::chunk_loop(n, &v, &start.c, cmp, &e_test, &left, &st);
                self.f.code.put(&cl.head);
                self.f.code.open(&cl.open);
                if limit_tmps {
                    self.f.code.put(data::TMP_FREE);
                }
                // the next loop top would reach 0: switch there and take a fresh slice
                for l in &cl.body {
                    self.f.code.put(l);
                }
                // the chunk counts its own iterations down, so the loop keeps one
                // induction variable even when the body needs what is left of
                // the chunk (P, exit): testing v against the chunk's end and
                // keeping end - v live too made semP's loop one uop too wide to
                // issue in one cycle (bench/timings, docs/ops.md)
                self.f.code.open(&cl.inner);
                let unrun = emit::stmt::chunk_unrun(n);
                self.f.chunk = Some(chunk::ChunkVars { depth: self.f.loop_labels.len(), sl: sl.clone(), unrun });
                slice_var = Some(sl);
                opened += 1;
            } else if steer {
                // the variable lives outside the C loop so that the step reads it
                let ct = self.ctype(&ty);
                let (decl, open) = emit::stmt::steered_quant_loop(&ct, lt, &var, &start.c, cmp, &e_test, &st);
                self.f.code.put(&decl);
                self.f.code.open(&open);
            } else {
                self.f.code.open(&emit::stmt::quant_loop(lt, &var, &start.c, cmp, &e_test, &st));
            }
            if limit_tmps && slice_var.is_none() {
                self.f.code.put(data::TMP_FREE);
            }
            let ct = self.ctype(&ty);
            if steer {
                self.f.code.put(&emit::stmt::steered_quant_var(&ct, &var));
            } else {
                self.f.code.put(&emit::stmt::quant_var(&ct, &var));
            }
            self.declare(&q.var, Sym::Var { c: var.clone(), ty: ty.clone(), assignable: true });
            opened += 1;
            if let Some(stc) = &q.st {
                let c = self.quant_st(stc);
                self.f.code.open(&emit::stmt::if_open(&c));
                opened += 1;
            }
        }
        (opened, slice_var, reread)
    }

    fn expr_stmt(&mut self, e: &ast::Expr) {
        match &e.kind {
            ExprKind::Assign { .. } | ExprKind::Swap { .. } => {
                self.expr(e);
            }
            ExprKind::Unary { op: UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec, .. } => {
                let v = self.expr(e);
                if v.ty != Ty::Error {
                    self.f.code.put(&emit::stmt::expr_stmt(&v.c));
                }
            }
            _ => {
                if let ExprKind::Binary { op: ast::BinaryOp::Eq, .. } = &e.kind {
                    // MPD 1.0.1 and SR 2.3.3 warn: the statement compares and discards
                    let w = super::msg::words(super::msg::Wording::SuspiciousComparison, self.dialect(e.span));
                    self.diags.warning(e.span, w);
                }
                // any expression may stand alone; an op named alone is only
                // its capability, not a call (as in MPD 1.0.1)
                let v = self.expr(e);
                match v.form {
                    _ if v.ty == Ty::Void || v.ty == Ty::Error => {
                        if v.c != "0" && !v.c.is_empty() {
                            self.f.code.put(&emit::stmt::expr_stmt(&v.c));
                        }
                    }
                    Form::Blob | Form::View | Form::Scalar => self.f.code.put(&emit::stmt::discard(&v.c)),
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
    let setpriority = |e: &ast::Expr| {
        matches!(&e.kind, ExprKind::Call { callee, .. }
        if matches!(&callee.kind, ExprKind::Ident(id) if id.name == "setpriority"))
    };
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Reply | StmtKind::Forward(_) => true,
        StmtKind::Expr(e) | StmtKind::Call(e) => setpriority(e),
        StmtKind::If { arms, else_block } => {
            arms.iter().any(|a| block(&a.body)) || else_block.as_ref().map(block).unwrap_or(false)
        }
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => block(body),
        StmtKind::In(i) => i.arms.iter().any(|a| block(&a.body)) || i.else_block.as_ref().map(block).unwrap_or(false),
        StmtKind::Co(c) => c.arms.iter().any(|a| a.post.as_ref().map(block).unwrap_or(false)),
        _ => false,
    })
}

/// The element type of (nested) arrays.
fn leaf_type(t: &Ty) -> &Ty {
    match t {
        Ty::Arr(e, _, _, _) => leaf_type(e),
        t => t,
    }
}
