//! SR statements → the shared AST.
//!
//! `if G -> S [] ... [] else -> S fi` is an `If`; `fa quantifiers -> S af` a `For`;
//! `do G -> S od` a `While`, and `do` with several guards a loop around an `If` whose
//! `else` exits (the guards are tried in order; SR allows any true one).

use super::lexer::T;
use super::parser::{PResult, Parser};
use crate::syntax::ast::*;

impl<'d> Parser<'d> {
    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let lo = self.span();
        let kind = match self.t().clone() {
            T::Kw("skip") => {
                self.bump();
                StmtKind::Skip
            }
            T::Kw("stop") => {
                self.bump();
                let code = if self.eat_op("(") {
                    let e = self.expr()?;
                    self.expect_op(")")?;
                    Some(e)
                } else {
                    None
                };
                StmtKind::Stop(code)
            }
            T::Kw("exit") => {
                self.bump();
                StmtKind::Exit
            }
            T::Kw("next") => {
                self.bump();
                StmtKind::Next
            }
            T::Kw("return") => {
                self.bump();
                StmtKind::Return(None)
            }
            T::Kw("reply") => {
                self.bump();
                StmtKind::Reply
            }
            T::Kw("forward") => {
                self.bump();
                StmtKind::Forward(self.invocation()?)
            }
            T::Kw("send") => {
                self.bump();
                StmtKind::Send { inv: self.invocation()?, fork: false }
            }
            T::Kw("call") => {
                self.bump();
                StmtKind::Call(self.invocation()?)
            }
            T::Kw("destroy") => {
                self.bump();
                StmtKind::Destroy(self.expr()?)
            }
            T::Kw("receive") => {
                self.bump();
                StmtKind::Receive(self.invocation()?)
            }
            T::Kw("P") | T::Kw("V") => {
                let p = self.at_kw("P");
                self.bump();
                self.expect_op("(")?;
                let e = self.expr()?;
                self.expect_op(")")?;
                if p {
                    StmtKind::P(e)
                } else {
                    StmtKind::V(e)
                }
            }
            T::Kw("begin") => {
                self.bump();
                let b = self.block()?;
                self.expect_kw("end")?;
                StmtKind::Begin(b)
            }
            T::Kw("if") => {
                self.bump();
                let (arms, else_block) = self.guarded("fi")?;
                StmtKind::If { arms, else_block }
            }
            T::Kw("do") => {
                self.bump();
                let (mut arms, else_block) = self.guarded("od")?;
                if let Some(e) = else_block {
                    // `[] else` in a loop: taken when no guard holds, and the loop goes on
                    let sp = e.span;
                    return Ok(self.do_loop(arms, Some(e), lo.to(sp)));
                }
                if arms.len() == 1 {
                    let a = arms.pop().expect("one arm");
                    StmtKind::While { cond: a.cond, body: a.body }
                } else {
                    return Ok(self.do_loop(arms, None, lo.to(self.prev_span())));
                }
            }
            T::Kw("fa") => {
                self.bump();
                let quants = self.quantifiers()?;
                self.expect_op("->")?;
                let body = self.block()?;
                self.expect_kw("af")?;
                StmtKind::For { quants, body }
            }
            T::Kw("in") => {
                self.bump();
                StmtKind::In(self.input()?)
            }
            T::Kw("co") => {
                self.bump();
                StmtKind::Co(self.concurrent()?)
            }
            _ => StmtKind::Expr(self.expr()?),
        };
        Ok(Stmt { kind, span: lo.to(self.prev_span()) })
    }

    /// `G -> block { [] G -> block } [ [] else -> block ] CLOSE`
    fn guarded(&mut self, close: &str) -> PResult<(Vec<IfArm>, Option<Block>)> {
        let mut arms = Vec::new();
        let mut else_block = None;
        loop {
            self.skip_seps();
            if self.eat_kw("else") {
                self.expect_op("->")?;
                else_block = Some(self.block()?);
            } else {
                let lo = self.span();
                let cond = self.expr()?;
                self.expect_op("->")?;
                let body = self.block()?;
                arms.push(IfArm { cond, body, span: lo.to(self.prev_span()) });
            }
            // SR 2.3.3's grammar: the else arm closes the list
            if else_block.is_some() && self.at_op("[]") {
                return Err(self.unexpected(&format!("'{}' (`else' must be the last guard)", close)));
            }
            if !self.eat_op("[]") {
                break;
            }
        }
        self.expect_kw(close)?;
        Ok((arms, else_block))
    }

    /// `do` with several guards: `while true { if G1 -> S1 [] ... else exit }`; with
    /// `[] else -> S` the else arm runs S instead of leaving.
    fn do_loop(&mut self, arms: Vec<IfArm>, else_block: Option<Block>, span: Span) -> Stmt {
        let exit = Block { stmts: vec![Stmt { kind: StmtKind::Exit, span }], span };
        let body_if = Stmt { kind: StmtKind::If { arms, else_block: Some(else_block.unwrap_or(exit)) }, span };
        let cond = Expr::new(ExprKind::Bool(true), span);
        Stmt { kind: StmtKind::While { cond, body: Block { stmts: vec![body_if], span } }, span }
    }

    /// `in in_cmd { [] in_cmd } [ [] else -> block ] ni`;
    /// in_cmd = `[(quantifiers)] op[subs](ids) [returns ID] [st|and expr] [by expr] -> block`
    fn input(&mut self) -> PResult<InStmt> {
        let mut arms = Vec::new();
        let mut else_block = None;
        loop {
            self.skip_seps();
            if self.eat_kw("else") {
                self.expect_op("->")?;
                else_block = Some(self.block()?);
            } else {
                let lo = self.span();
                let quants = self.quantifiers_opt()?;
                let q = self.qualified_id()?;
                let mut op = Expr::new(ExprKind::Ident(q.parts[0].clone()), q.parts[0].span);
                if q.parts.len() > 1 {
                    let name = q.parts[1].clone();
                    op = Expr::new(ExprKind::Field { base: Box::new(op), name }, q.span);
                }
                while self.at_op("[") {
                    let subs = self.subscript_list()?;
                    let span = op.span.to(self.prev_span());
                    op = Expr::new(ExprKind::Index { base: Box::new(op), subs }, span);
                }
                let formals = self.formal_names()?;
                let returns = if self.eat_kw("returns") { Some(self.ident()?) } else { None };
                let st = if self.eat_kw("st") || self.eat_kw("and") { Some(self.expr()?) } else { None };
                let by = if self.eat_kw("by") { Some(self.expr()?) } else { None };
                self.expect_op("->")?;
                let body = self.block()?;
                arms.push(InArm { quants, op, formals, returns, st, by, body, span: lo.to(self.prev_span()) });
            }
            if else_block.is_some() && self.at_op("[]") {
                return Err(self.unexpected("'ni' (`else' must be the last arm)"));
            }
            if !self.eat_op("[]") {
                break;
            }
        }
        self.expect_kw("ni")?;
        Ok(InStmt { arms, else_block })
    }

    /// `expr (args)`: what call, send, forward and receive take (SR 2.3.3's
    /// grammar, so anything else is a parse error at the token after it).
    fn invocation(&mut self) -> PResult<Expr> {
        let e = self.expr()?;
        if !matches!(e.kind, ExprKind::Call { .. }) {
            return Err(self.unexpected("'('"));
        }
        Ok(e)
    }

    /// `co co_cmd { // co_cmd } oc`;
    /// co_cmd = `[(quantifiers)] [SEP] (call inv | send inv | inv) [-> block]`
    fn concurrent(&mut self) -> PResult<CoStmt> {
        let mut arms = Vec::new();
        loop {
            self.skip_seps();
            let lo = self.span();
            let quants = self.quantifiers_opt()?;
            self.skip_seps();
            let send = if self.eat_kw("send") {
                true
            } else {
                self.eat_kw("call");
                false
            };
            let inv = self.expr()?;
            let post = if self.eat_op("->") { Some(self.block()?) } else { None };
            arms.push(CoArm { quants, send, inv, post, span: lo.to(self.prev_span()) });
            self.skip_seps();
            if !self.eat_op("//") {
                break;
            }
        }
        self.expect_kw("oc")?;
        Ok(CoStmt { arms })
    }
}
