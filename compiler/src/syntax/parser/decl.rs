//! Parser: declarations — variables, constants, types, ops, semaphores, procs, imports.

use super::cap_result_name;
use super::{PResult, Parser};
use crate::syntax::ast::*;
use crate::syntax::token::{Kw, Punct, TokKind};

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── declarations ─────────────

    /// decl = import | const_decl | type_decl | op_decl | external_decl | sem_decl
    ///      | optype_decl | proc_decl | final_decl
    pub(super) fn decl(&mut self) -> PResult<Decl> {
        let lo = self.span();
        let kind = match self.kind() {
            TokKind::Kw(Kw::Import) | TokKind::Kw(Kw::Extend) => self.import_decl()?,
            TokKind::Kw(Kw::Const) => return self.var_decl(true),
            TokKind::Kw(Kw::Type) => self.type_decl()?,
            TokKind::Kw(Kw::Op) => {
                self.bump();
                DeclKind::Op(self.op_decl(false)?)
            }
            TokKind::Kw(Kw::External) => {
                self.bump();
                DeclKind::External(self.op_decl(true)?)
            }
            TokKind::Kw(Kw::Sem) => self.sem_decl()?,
            TokKind::Kw(Kw::Optype) => self.optype_decl()?,
            TokKind::Kw(Kw::Proc) | TokKind::Kw(Kw::Procedure) | TokKind::Kw(Kw::Process) => {
                DeclKind::Proc(self.proc_decl()?)
            }
            TokKind::Kw(Kw::Final) => {
                self.bump();
                DeclKind::Final(self.block()?)
            }
            _ => return Err(self.unexpected("a declaration")),
        };
        Ok(Decl { kind, span: lo.to(self.prev_span()) })
    }

    /// import = ( "import" | "extend" ) ID { "," ID }
    pub(super) fn import_decl(&mut self) -> PResult<DeclKind> {
        let extend = self.bump().kind == TokKind::Kw(Kw::Extend);
        let mut names = vec![self.ident()?];
        while self.eat(Punct::Comma) {
            names.push(self.ident()?);
        }
        Ok(DeclKind::Import { extend, names })
    }

    /// var_decl   = type declarator { "," declarator }
    /// const_decl = "const" [ type ] declarator { "," declarator }
    /// declarator = ID { "[" ranges "]" } [ "=" expr ]
    pub(super) fn var_decl(&mut self, constant: bool) -> PResult<Decl> {
        let lo = self.span();
        if constant {
            self.bump();
        }
        // `const N = 10` without a type: MPD 1.0.1's "parse error at token
        // `='" (an untyped constant is SR's `const N := 10`, the SR parser's)
        if constant && self.at_ident() && *self.nth(1) == TokKind::Punct(Punct::Eq) {
            self.bump();
            return Err(self.unexpected("the constant's type before its name (`const int N = ...`)"));
        }
        let ty = Some(self.type_()?);
        if !self.at_ident() {
            if let Some(r) = ty.as_ref().and_then(cap_result_name) {
                let what = format!("the variable's name (`{r}` names the result: `cap (...) returns <type> r {r}`)");
                return Err(self.unexpected(&what));
            }
        }
        let mut vars = Vec::new();
        loop {
            let (name, dims) = (self.ident()?, self.dims()?);
            let init = if self.eat(Punct::Eq) { Some(self.expr_no_assign()?) } else { None };
            vars.push(VarItem { span: name.span.to(self.prev_span()), name, dims, init });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        Ok(Decl { kind: DeclKind::Var(VarDecl { constant, ty, vars }), span: lo.to(self.prev_span()) })
    }

    /// dims = { "[" ranges "]" }
    pub(super) fn dims(&mut self) -> PResult<Vec<Range>> {
        let mut out = Vec::new();
        // A `[` that starts a line begins the next item (`rec(pt p` ⏎ `[2] int v)`).
        while self.at(Punct::LBracket) && !self.tok().nl_before {
            out.extend(self.ranges()?);
        }
        Ok(out)
    }

    /// ranges = "[" range { "," range } "]"
    pub(super) fn ranges(&mut self) -> PResult<Vec<Range>> {
        self.expect(Punct::LBracket)?;
        let mut out = vec![self.range()?];
        while self.eat(Punct::Comma) {
            out.push(self.range()?);
        }
        self.expect(Punct::RBracket)?;
        Ok(out)
    }

    /// range = bound [ ":" bound ]      bound = "*" | expr
    pub(super) fn range(&mut self) -> PResult<Range> {
        let lo_span = self.span();
        let first = self.bound()?;
        if self.eat(Punct::Colon) {
            let second = self.bound()?;
            if matches!(first, Bound::Star(_)) && matches!(second, Bound::Star(_)) {
                self.error(lo_span.to(self.prev_span()), "both bounds are '*'");
            }
            return Ok(Range { lo: Some(first), hi: second, span: lo_span.to(self.prev_span()) });
        }
        Ok(Range { lo: None, hi: first, span: lo_span.to(self.prev_span()) })
    }

    pub(super) fn bound(&mut self) -> PResult<Bound> {
        if self.at(Punct::Star) {
            return Ok(Bound::Star(self.bump().span));
        }
        Ok(Bound::Expr(self.expr_no_assign()?))
    }

    /// type_decl = "type" ID "=" type
    pub(super) fn type_decl(&mut self) -> PResult<DeclKind> {
        self.bump();
        let name = self.ident()?;
        self.expect(Punct::Eq)?;
        let ty = self.type_()?;
        Ok(DeclKind::Type { name, ty })
    }

    /// op_decl = ( "op" | "external" ) op_item { "," op_item }
    /// op_item = qual_name ID { "[" ranges "]" }                (optype form)
    ///         | ID { "[" ranges "]" } [ signature ]
    /// Items after the first become separate declarations (see `Parser::extra`).
    pub(super) fn op_decl(&mut self, external: bool) -> PResult<OpDecl> {
        let first = self.op_item()?;
        while self.eat(Punct::Comma) {
            let lo = self.span();
            let item = self.op_item()?;
            let kind = if external { DeclKind::External(item) } else { DeclKind::Op(item) };
            let span = lo.to(self.prev_span());
            self.extra.push(Stmt { kind: StmtKind::Decl(Decl { kind, span }), span });
        }
        Ok(first)
    }

    pub(super) fn op_item(&mut self) -> PResult<OpDecl> {
        let optype_form = self.at_ident()
            && (matches!(self.nth(1), TokKind::Ident(_))
                || (*self.nth(1) == TokKind::Punct(Punct::Dot)
                    && matches!(self.nth(2), TokKind::Ident(_))
                    && matches!(self.nth(3), TokKind::Ident(_))));
        let optype = if optype_form { Some(self.qual_name()?) } else { None };
        let name = self.ident()?;
        let dims = self.dims()?;
        let names = vec![OpName { span: name.span.to(self.prev_span()), name, dims }];
        let sig = match optype {
            Some(q) => OpSig::Optype(q),
            None => self.signature(true)?,
        };
        Ok(OpDecl { names, sig })
    }

    /// signature = [ "(" params ")" ] [ "returns" return_spec ] [ restriction ]
    /// (the parameter list may be omitted only where `params_optional`)
    pub(super) fn signature(&mut self, params_optional: bool) -> PResult<OpSig> {
        let lo = self.span();
        let params = if self.at(Punct::LParen) || !params_optional { self.params()? } else { Vec::new() };
        let returns = if self.at_kw(Kw::Returns) { Some(self.return_spec(true)?) } else { None };
        let restriction = if self.at(Punct::LBrace) { Some(self.restriction()?) } else { None };
        Ok(OpSig::Explicit { params, returns, restriction, span: lo.to(self.prev_span()) })
    }

    /// restriction = "{" ( "call" | "send" ) [ "," ( "call" | "send" ) ] "}"
    pub(super) fn restriction(&mut self) -> PResult<OpRestriction> {
        let lo = self.expect(Punct::LBrace)?;
        let (mut call, mut send) = (false, false);
        loop {
            if self.eat_kw(Kw::Call) {
                call = true;
            } else if self.eat_kw(Kw::Send) {
                send = true;
            } else {
                return Err(self.unexpected("'call' or 'send'"));
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        let hi = self.expect(Punct::RBrace)?;
        Ok(OpRestriction { call, send, span: lo.to(hi) })
    }

    /// return_spec = "returns" type [ ID { "[" ranges "]" } ]     (with_type)
    ///             | "returns" ID                                 (proc)
    pub(super) fn return_spec(&mut self, with_type: bool) -> PResult<ReturnSpec> {
        let lo = self.expect_kw(Kw::Returns)?;
        if !with_type {
            let name = self.ident()?;
            return Ok(ReturnSpec { ty: None, name: Some(name), dims: Vec::new(), span: lo.to(self.prev_span()) });
        }
        let ty = self.type_()?;
        let (name, dims) = if self.at_ident() { (Some(self.ident()?), self.dims()?) } else { (None, Vec::new()) };
        Ok(ReturnSpec { ty: Some(ty), name, dims, span: lo.to(self.prev_span()) })
    }

    /// params = "(" [ param { "," param } ] ")"
    /// param  = [ "val" | "var" | "res" | "ref" ] type [ param_name ]
    pub(super) fn params(&mut self) -> PResult<Vec<Param>> {
        self.expect(Punct::LParen)?;
        let mut out: Vec<Param> = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok(out);
        }
        loop {
            let lo = self.span();
            let mode = match self.kind() {
                TokKind::Kw(Kw::Val) => ParamMode::Val,
                TokKind::Kw(Kw::Var) => ParamMode::Var,
                TokKind::Kw(Kw::Res) => ParamMode::Res,
                TokKind::Kw(Kw::Ref) => ParamMode::Ref,
                _ => ParamMode::Default,
            };
            if mode != ParamMode::Default {
                self.bump();
            }
            // `cap (int) returns int f` with no name after it is an unnamed
            // parameter whose capability's result is named f (MPD 1.0.1)
            let ty = self.type_()?;
            let mut names = Vec::new();
            // one name per type: after a `,` comes the next parameter's type
            // (MPD 1.0.1: `(int a, b)` is an int `a` and an unnamed `b`)
            if self.at_ident() {
                names.push(self.param_name()?);
            }
            out.push(Param { mode, ty, names, span: lo.to(self.prev_span()) });
            // parameters are separated by commas only (MPD 1.0.1: a `;` or a
            // line break between them is a parse error; SR's `;` is SR's)
            if self.at(Punct::Semi) || (self.tok().nl_before && !self.at(Punct::RParen)) {
                return Err(self.unexpected("',' or ')' (parameters are separated by commas)"));
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(out)
    }

    /// param_name = ID { "[" ranges "]" }
    pub(super) fn param_name(&mut self) -> PResult<ParamName> {
        let name = self.ident()?;
        let dims = self.dims()?;
        Ok(ParamName { span: name.span.to(self.prev_span()), name, dims })
    }

    /// sem_decl = "sem" sem_item { "," sem_item }     sem_item = ID dims [ "=" expr ]
    pub(super) fn sem_decl(&mut self) -> PResult<DeclKind> {
        self.bump();
        let mut items = Vec::new();
        loop {
            let name = self.ident()?;
            let dims = self.dims()?;
            let init = if self.eat(Punct::Eq) { Some(self.expr_no_assign()?) } else { None };
            items.push(SemItem { span: name.span.to(self.prev_span()), name, dims, init });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        Ok(DeclKind::Sem(items))
    }

    /// optype_decl = "optype" ID [ "=" ] signature
    pub(super) fn optype_decl(&mut self) -> PResult<DeclKind> {
        self.bump();
        let name = self.ident()?;
        self.eat(Punct::Eq);
        let sig = self.signature(false)?;
        Ok(DeclKind::Optype { name, sig })
    }

    /// proc_decl = "proc" ID [ "[" ID { "," ID } "]" ] "(" [ ID { "," ID } ] ")" [ "returns" ID ] block
    ///           | "procedure" ID "(" params ")" [ "returns" type [ ID dims ] ] block
    ///           | "process" ID [ quantifiers ] block
    pub(super) fn proc_decl(&mut self) -> PResult<ProcDecl> {
        let kind = match self.bump().kind {
            TokKind::Kw(Kw::Proc) => ProcKind::Proc,
            TokKind::Kw(Kw::Procedure) => ProcKind::Procedure,
            _ => ProcKind::Process,
        };
        let name = self.ident()?;
        let mut d = ProcDecl {
            kind,
            name,
            subscripts: Vec::new(),
            quants: Vec::new(),
            formals: Vec::new(),
            params: Vec::new(),
            returns: None,
            body: Block { stmts: Vec::new(), span: Span::default() },
        };
        match kind {
            ProcKind::Proc => {
                if self.eat(Punct::LBracket) {
                    d.subscripts = self.ident_list(Punct::RBracket)?;
                }
                self.expect(Punct::LParen)?;
                d.formals = self.ident_list(Punct::RParen)?;
                if self.at_kw(Kw::Returns) {
                    d.returns = Some(self.return_spec(false)?);
                }
            }
            ProcKind::Procedure => {
                d.params = self.params()?;
                if self.at_kw(Kw::Returns) {
                    d.returns = Some(self.return_spec(true)?);
                }
            }
            ProcKind::Process => {
                if self.at(Punct::LBracket) {
                    d.quants = self.quantifiers()?;
                }
            }
        }
        d.body = self.block()?;
        Ok(d)
    }

    /// [ ID { "," ID } ] close   (the opening bracket already consumed)
    pub(super) fn ident_list(&mut self, close: Punct) -> PResult<Vec<Ident>> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.ident()?);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(close)?;
        Ok(out)
    }
}
