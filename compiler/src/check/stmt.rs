//! stmt: checking and translating statements and blocks.
use super::konst::KV;
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
                self.code.put(&format!("mpd_lang_stop({});", c));
            }
            StmtKind::Exit | StmtKind::Next => match self.loop_labels.last() {
                Some((b, c)) => {
                    let l = if matches!(s.kind, StmtKind::Exit) { b.clone() } else { c.clone() };
                    self.flush_tmps();
                    self.code.put(&format!("goto {};", l));
                }
                None => self.error(s.span, format!("`{}` outside a loop", if matches!(s.kind, StmtKind::Exit) { "exit" } else { "next" })),
            },
            StmtKind::If { arms, else_block } => self.if_stmt(arms, else_block.as_ref(), 0),
            StmtKind::While { cond, body } => {
                let (b, c) = self.new_loop();
                self.code.open("for (;;) {");
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
                let n = self.quantifiers(quants);
                self.block(body);
                self.code.put(&format!("{}: ;", c));
                for _ in 0..n {
                    self.code.close("}");
                }
                self.pop();
                self.code.close("}");
                self.code.put(&format!("{}: ;", b));
                self.loop_labels.pop();
            }
            StmtKind::Begin(b) => self.block(b),
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    self.error(e.span, "MPD's return takes no value; assign the result variable instead");
                }
                match self.ret.clone() {
                    Some(r) => self.code.put(&r.stmt),
                    None => {
                        // return from initial code: end the component's initialization
                        self.code.put("mpd_tmp_free(&_t); return;");
                    }
                }
            }
            StmtKind::Send { .. }
            | StmtKind::Forward(_)
            | StmtKind::Receive(_)
            | StmtKind::In(_)
            | StmtKind::P(_)
            | StmtKind::V(_)
            | StmtKind::Reply
            | StmtKind::Destroy(_)
            | StmtKind::Co(_) => {
                self.error(s.span, "this concurrency statement is not supported yet");
            }
        }
    }

    fn new_loop(&mut self) -> (String, String) {
        self.fresh += 1;
        let l = (format!("_brk{}", self.fresh), format!("_next{}", self.fresh));
        self.loop_labels.push(l.clone());
        l
    }

    /// Evaluates a condition, freeing its temporaries before the branch.
    fn cond(&mut self, e: &ast::Expr) -> String {
        let v = self.expr(e);
        if v.ty != Ty::Bool && v.ty != Ty::Error {
            self.error(e.span, format!("a condition must be a bool, not {}", self.types.show(&v.ty)));
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
        self.block_stmts(&b.stmts);
        self.pop();
        self.code.close("}");
    }

    pub fn block_stmts(&mut self, stmts: &[Stmt]) {
        // procedures declared in a block are not MPD; declarations and statements mix
        for s in stmts {
            self.stmt(s);
        }
    }

    /// Opens one C loop per quantifier (the caller closes them); returns how many.
    fn quantifiers(&mut self, qs: &[ast::Quantifier]) -> usize {
        let mut opened = 0;
        for q in qs {
            self.code.line(self.line(q.span));
            let start = self.expr(&q.start);
            let end = self.expr(&q.end);
            let ty = if start.ty == Ty::Error { end.ty.clone() } else { start.ty.clone() };
            if !ty.is_ordinal() {
                self.error(q.start.span, format!("a quantifier ranges over int, char, bool or enum values, not {}", self.types.show(&ty)));
            } else if !self.types.same(&ty, &end.ty) {
                self.error(q.end.span, format!("the bounds of a quantifier must have the same type ({} and {})", self.types.show(&ty), self.types.show(&end.ty)));
            }
            let step = match &q.step {
                Some(s) => {
                    let v = self.expr(s);
                    if v.ty != Ty::Int && v.ty != Ty::Error {
                        self.error(s.span, "a quantifier step must be an int");
                    }
                    if let Some(KV::Int(0)) = v.k {
                        self.error(s.span, "a quantifier step cannot be zero");
                    }
                    v.c
                }
                None => "1".into(),
            };
            let (e, st) = (self.tmp(), self.tmp());
            let var = format!("{}_{}", names::var(&q.var.name), self.fresh);
            self.fresh += 1;
            self.code.put(&format!("int {} = {}, {} = {};", e, end.c, st, step));
            self.flush_tmps();
            let (cmp, upd) = if q.downto { (">=", "-=") } else { ("<=", "+=") };
            // long long guards against overflow at the end of the int range
            self.code.open(&format!(
                "for (long long {v}_l = {s}; {v}_l {cmp} {e}; {v}_l {upd} {st}) {{",
                v = var,
                s = start.c,
                cmp = cmp,
                e = e,
                upd = upd,
                st = st
            ));
            let ct = self.ctype(&ty);
            self.code.put(&format!("{} {} = ({}){}_l;", ct, var, ct, var));
            self.declare(&q.var, Sym::Var { c: var.clone(), ty: ty.clone(), assignable: false });
            opened += 1;
            if let Some(stc) = &q.st {
                let c = self.cond(stc);
                self.code.open(&format!("if ({}) {{", c));
                opened += 1;
            }
        }
        opened
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
