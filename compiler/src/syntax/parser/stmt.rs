//! Parser: statement lists, blocks and statements (including `in` and `co`).

use super::{ends_list, is_simple_type_kw};
use super::{PResult, Parser, Reported};
use crate::syntax::ast::*;
use crate::syntax::token::{Kw, Punct, TokKind};

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── statement lists and blocks ─────────────

    /// stmts = { SEP | stmt SEP } — stops before a list-ending token.
    pub(super) fn stmt_list(&mut self) -> Vec<Stmt> {
        let mut out = Vec::new();
        loop {
            self.skip_seps();
            if ends_list(self.kind()) {
                return out;
            }
            let start = self.pos;
            match self.stmt() {
                Ok(s) => {
                    out.push(s);
                    out.append(&mut self.extra);
                    if !self.at_sep() && !ends_list(self.kind()) {
                        let _ = self.unexpected("';' or a new line");
                        self.sync();
                    }
                }
                Err(Reported) => {
                    self.extra.clear();
                    self.sync()
                }
            }
            if self.pos == start {
                // No progress (e.g. a stray `)`): drop the token so the loop ends.
                self.bump();
            }
        }
    }

    /// block = "{" stmts "}"
    pub(super) fn block(&mut self) -> PResult<Block> {
        let lo = self.expect(Punct::LBrace)?;
        self.enter()?;
        let stmts = self.stmt_list();
        self.leave();
        let hi = self.expect(Punct::RBrace)?;
        Ok(Block { stmts, span: lo.to(hi) })
    }

    // ───────────── statements ─────────────

    /// stmt = decl | simple_stmt | compound_stmt | expr
    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    pub(super) fn stmt_inner(&mut self) -> PResult<Stmt> {
        let lo = self.span();
        let kind = match self.kind().clone() {
            TokKind::Kw(k) => match k {
                Kw::Import
                | Kw::Extend
                | Kw::Const
                | Kw::Type
                | Kw::Op
                | Kw::External
                | Kw::Sem
                | Kw::Optype
                | Kw::Proc
                | Kw::Procedure
                | Kw::Process
                | Kw::Final => StmtKind::Decl(self.decl()?),
                Kw::Enum | Kw::Rec | Kw::Union | Kw::Ptr | Kw::Cap => StmtKind::Decl(self.var_decl(false)?),
                k if is_simple_type_kw(k) && *self.nth(1) != TokKind::Punct(Punct::LParen) => {
                    StmtKind::Decl(self.var_decl(false)?)
                }
                Kw::Skip => {
                    self.bump();
                    StmtKind::Skip
                }
                Kw::Exit => {
                    self.bump();
                    StmtKind::Exit
                }
                Kw::Next => {
                    self.bump();
                    StmtKind::Next
                }
                Kw::Reply => {
                    self.bump();
                    StmtKind::Reply
                }
                Kw::Stop => self.stop_stmt()?,
                Kw::Return => self.return_stmt()?,
                Kw::If => self.if_stmt()?,
                Kw::While => self.while_stmt()?,
                Kw::For => self.for_stmt()?,
                Kw::Begin => {
                    self.bump();
                    StmtKind::Begin(self.block()?)
                }
                Kw::Call => {
                    self.bump();
                    StmtKind::Call(self.expr()?)
                }
                Kw::Send | Kw::Fork => {
                    let fork = self.bump().kind == TokKind::Kw(Kw::Fork);
                    StmtKind::Send { inv: self.expr()?, fork }
                }
                Kw::Forward => {
                    self.bump();
                    StmtKind::Forward(self.expr()?)
                }
                Kw::Receive => {
                    self.bump();
                    StmtKind::Receive(self.expr()?)
                }
                Kw::P | Kw::V => self.sem_stmt(k)?,
                Kw::Destroy => {
                    self.bump();
                    StmtKind::Destroy(self.expr()?)
                }
                Kw::In => self.in_stmt()?,
                Kw::Co => self.co_stmt()?,
                _ => StmtKind::Expr(self.expr()?),
            },
            TokKind::Punct(Punct::LBracket) => StmtKind::Decl(self.var_decl(false)?),
            TokKind::Ident(_) if self.starts_named_decl() => StmtKind::Decl(self.var_decl(false)?),
            _ => StmtKind::Expr(self.expr()?),
        };
        Ok(Stmt { kind, span: lo.to(self.prev_span()) })
    }

    /// `T x` or `r.T x`: an identifier naming a type followed by the declared name.
    pub(super) fn starts_named_decl(&self) -> bool {
        matches!(
            (self.nth(1), self.nth(2), self.nth(3)),
            (TokKind::Ident(_), _, _) | (TokKind::Punct(Punct::Dot), TokKind::Ident(_), TokKind::Ident(_))
        )
    }

    /// stop_stmt = "stop" [ "(" expr ")" ]
    pub(super) fn stop_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        if self.at(Punct::LParen) {
            self.bump();
            let e = self.expr_no_assign()?;
            self.expect(Punct::RParen)?;
            return Ok(StmtKind::Stop(Some(e)));
        }
        Ok(StmtKind::Stop(None))
    }

    /// return_stmt = "return" [ expr ]   (MPD returns no value; checker rejects one)
    pub(super) fn return_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        if self.at_sep() || ends_list(self.kind()) {
            return Ok(StmtKind::Return(None));
        }
        Ok(StmtKind::Return(Some(self.expr()?)))
    }

    /// sem_stmt = ( "P" | "V" ) "(" expr ")"
    pub(super) fn sem_stmt(&mut self, k: Kw) -> PResult<StmtKind> {
        self.bump();
        self.expect(Punct::LParen)?;
        let e = self.expr_no_assign()?;
        self.expect(Punct::RParen)?;
        Ok(if k == Kw::P { StmtKind::P(e) } else { StmtKind::V(e) })
    }

    /// if_stmt = "if" "(" expr ")" block { "else" "if" "(" expr ")" block } [ "else" block ]
    pub(super) fn if_stmt(&mut self) -> PResult<StmtKind> {
        let mut arms = Vec::new();
        let mut else_block = None;
        let lo = self.bump().span;
        let cond = self.condition()?;
        let body = self.block()?;
        arms.push(IfArm { cond, body, span: lo.to(self.prev_span()) });
        while self.at_kw(Kw::Else) {
            let lo = self.bump().span;
            if self.eat_kw(Kw::If) {
                let cond = self.condition()?;
                let body = self.block()?;
                arms.push(IfArm { cond, body, span: lo.to(self.prev_span()) });
            } else {
                else_block = Some(self.block()?);
                break;
            }
        }
        Ok(StmtKind::If { arms, else_block })
    }

    /// while_stmt = "while" "(" expr ")" block
    pub(super) fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.condition()?;
        let body = self.block()?;
        Ok(StmtKind::While { cond, body })
    }

    /// The condition of `if`/`while`: parenthesised, as MPD's grammar has it
    /// (`while not(go) {` and `if (a) or (b) {` are parse errors there)
    fn condition(&mut self) -> PResult<Expr> {
        if !self.at(Punct::LParen) {
            return Err(self.unexpected("'('"));
        }
        self.paren_or_constructor()
    }

    /// for_stmt = "for" quantifiers block
    pub(super) fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let quants = self.quantifiers()?;
        let body = self.block()?;
        Ok(StmtKind::For { quants, body })
    }

    /// quantifiers = "[" quantifier { "," quantifier } "]"
    pub(super) fn quantifiers(&mut self) -> PResult<Vec<Quantifier>> {
        self.expect(Punct::LBracket)?;
        let mut qs = vec![self.quantifier()?];
        while self.eat(Punct::Comma) {
            qs.push(self.quantifier()?);
        }
        self.expect(Punct::RBracket)?;
        Ok(qs)
    }

    /// quantifier = ID "=" expr ( "to" | "downto" ) expr [ "by" expr ] [ "st" expr ]
    pub(super) fn quantifier(&mut self) -> PResult<Quantifier> {
        let var = self.ident()?;
        self.expect(Punct::Eq)?;
        let start = self.expr_no_assign()?;
        let downto = if self.eat_kw(Kw::To) {
            false
        } else if self.eat_kw(Kw::Downto) {
            true
        } else {
            return Err(self.unexpected("'to' or 'downto'"));
        };
        let end = self.expr_no_assign()?;
        let step = if self.eat_kw(Kw::By) { Some(self.expr_no_assign()?) } else { None };
        let st = if self.eat_kw(Kw::St) { Some(self.expr_no_assign()?) } else { None };
        Ok(Quantifier { span: var.span.to(self.prev_span()), var, start, downto, end, step, st })
    }

    /// in_stmt = "in" in_arm { "[]" in_arm } [ "[]" "else" "->" stmts ] "ni"
    pub(super) fn in_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut arms = Vec::new();
        let mut else_block = None;
        loop {
            self.skip_seps();
            if self.at_kw(Kw::Else) {
                // one else, after at least one arm, and last (MPD 1.0.1's
                // grammar: anything else is a parse error)
                if arms.is_empty() || else_block.is_some() {
                    return Err(self.unexpected("an input arm (`else` is the last arm, once, after an op's)"));
                }
                let lo = self.bump().span;
                self.expect(Punct::Arrow)?;
                let stmts = self.stmt_list();
                else_block = Some(Block { stmts, span: lo.to(self.prev_span()) });
                self.skip_seps();
                if self.at(Punct::Box) {
                    return Err(self.unexpected("'ni' (`else` is the last arm)"));
                }
            } else {
                match self.in_arm() {
                    Ok(a) => arms.push(a),
                    Err(Reported) => self.skip_arm(Punct::Box, Kw::Ni),
                }
            }
            self.skip_seps();
            if !self.eat(Punct::Box) {
                break;
            }
        }
        self.expect_kw(Kw::Ni)?;
        Ok(StmtKind::In(InStmt { arms, else_block }))
    }

    /// in_arm = [ quantifiers ] op_designator "(" [ ID { "," ID } ] ")" [ "returns" ID ]
    ///          [ "st" expr ] [ "by" expr ] "->" stmts
    pub(super) fn in_arm(&mut self) -> PResult<InArm> {
        let lo = self.span();
        let quants = if self.at(Punct::LBracket) { self.quantifiers()? } else { Vec::new() };
        let inv = self.postfix_expr()?;
        let (op, formals) = self.split_invocation(inv)?;
        let returns = if self.eat_kw(Kw::Returns) { Some(self.ident()?) } else { None };
        let st = if self.eat_kw(Kw::St) || self.eat_kw(Kw::And) { Some(self.expr_no_assign()?) } else { None };
        let by = if self.eat_kw(Kw::By) { Some(self.expr_no_assign()?) } else { None };
        self.expect(Punct::Arrow)?;
        let blo = self.span();
        let stmts = self.stmt_list();
        let body = Block { stmts, span: blo.to(self.prev_span()) };
        Ok(InArm { quants, op, formals, returns, st, by, body, span: lo.to(self.prev_span()) })
    }

    /// Split `op(x, y)` into the op designator and its formal identifiers.
    pub(super) fn split_invocation(&mut self, inv: Expr) -> PResult<(Expr, Vec<Ident>)> {
        match inv.kind {
            ExprKind::Call { callee, args } => {
                let mut formals = Vec::new();
                for a in args {
                    match a.kind {
                        ExprKind::Ident(id) => formals.push(id),
                        _ => {
                            self.error(a.span, "formal parameter of an input arm must be an identifier");
                            return Err(Reported);
                        }
                    }
                }
                Ok((*callee, formals))
            }
            _ => Err(self.unexpected("'(' and the formal parameters of the operation")),
        }
    }

    /// co_stmt = "co" co_arm { "//" co_arm } "oc"
    pub(super) fn co_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut arms = Vec::new();
        loop {
            self.skip_seps();
            match self.co_arm() {
                Ok(a) => arms.push(a),
                Err(Reported) => self.skip_arm(Punct::SlashSlash, Kw::Oc),
            }
            self.skip_seps();
            if !self.eat(Punct::SlashSlash) {
                break;
            }
        }
        self.expect_kw(Kw::Oc)?;
        Ok(StmtKind::Co(CoStmt { arms }))
    }

    /// co_arm = [ quantifiers ] [ "call" | "send" ] expr [ "->" stmts ]
    pub(super) fn co_arm(&mut self) -> PResult<CoArm> {
        let lo = self.span();
        let quants = if self.at(Punct::LBracket) { self.quantifiers()? } else { Vec::new() };
        self.skip_seps();
        let send = if self.eat_kw(Kw::Send) {
            true
        } else {
            self.eat_kw(Kw::Call);
            false
        };
        let inv = self.expr()?;
        let post = if self.eat(Punct::Arrow) {
            let blo = self.span();
            let stmts = self.stmt_list();
            Some(Block { stmts, span: blo.to(self.prev_span()) })
        } else {
            None
        };
        Ok(CoArm { quants, send, inv, post, span: lo.to(self.prev_span()) })
    }
}
