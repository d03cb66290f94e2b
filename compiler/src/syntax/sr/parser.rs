//! SR parser: state, token helpers, components and declarations. Each method
//! names the SR rule it parses; `SEP` is `;` or a separating line break (lexer.rs).
//! Statements are in stmt.rs, expressions in expr.rs, headings and types in types.rs.

use super::lexer::{Tok, T};
use crate::syntax::ast::*;
use crate::syntax::diag::Diagnostics;

/// Deepest nesting of statements, types and parentheses accepted.
const MAX_DEPTH: u32 = 160;

#[derive(Debug)]
pub(super) struct Reported;
pub(super) type PResult<T> = Result<T, Reported>;

pub(super) struct Parser<'d> {
    toks: Vec<Tok>,
    pos: usize,
    pub(super) file: FileId,
    diags: &'d mut Diagnostics,
    depth: u32,
    last_error: usize,
    /// More statements produced by one source item (`var a: int, b: real`).
    pub(super) extra: Vec<Stmt>,
}

/// Words and operators that close a statement list; its owner takes the one it wants.
pub(super) fn ends_list(t: &T) -> bool {
    matches!(t, T::Kw("end" | "fi" | "od" | "af" | "ni" | "oc" | "body") | T::Op("[]" | "//") | T::Eof)
}

impl<'d> Parser<'d> {
    pub(super) fn new(toks: Vec<Tok>, file: FileId, diags: &'d mut Diagnostics) -> Parser<'d> {
        Parser { toks, pos: 0, file, diags, depth: 0, last_error: usize::MAX, extra: Vec::new() }
    }

    // ───────────── token helpers ─────────────

    pub(super) fn t(&self) -> &T {
        &self.toks[self.pos.min(self.toks.len() - 1)].t
    }
    pub(super) fn nth(&self, k: usize) -> &T {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].t
    }
    pub(super) fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
    }
    pub(super) fn prev_span(&self) -> Span {
        if self.pos == 0 {
            return Span::new(self.file, 0, 0);
        }
        self.toks[(self.pos - 1).min(self.toks.len() - 1)].span
    }
    pub(super) fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    pub(super) fn at_kw(&self, k: &str) -> bool {
        matches!(self.t(), T::Kw(w) if *w == k)
    }
    pub(super) fn at_op(&self, o: &str) -> bool {
        matches!(self.t(), T::Op(w) if *w == o)
    }
    pub(super) fn eat_kw(&mut self, k: &str) -> bool {
        let y = self.at_kw(k);
        if y {
            self.bump();
        }
        y
    }
    pub(super) fn eat_op(&mut self, o: &str) -> bool {
        let y = self.at_op(o);
        if y {
            self.bump();
        }
        y
    }
    pub(super) fn expect_kw(&mut self, k: &str) -> PResult<Span> {
        if self.at_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("'{}'", k)))
        }
    }
    pub(super) fn expect_op(&mut self, o: &str) -> PResult<Span> {
        if self.at_op(o) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("'{}'", o)))
        }
    }
    pub(super) fn at_id(&self) -> bool {
        matches!(self.t(), T::Id(_))
    }
    pub(super) fn ident(&mut self) -> PResult<Ident> {
        if let T::Id(name) = self.t() {
            let name = name.clone();
            let span = self.bump().span;
            Ok(Ident { name, span })
        } else {
            Err(self.unexpected("an identifier"))
        }
    }
    pub(super) fn at_sep(&self) -> bool {
        *self.t() == T::Sep
    }
    pub(super) fn skip_seps(&mut self) {
        while self.at_sep() {
            self.bump();
        }
    }

    fn describe(&self) -> String {
        let tok = &self.toks[self.pos.min(self.toks.len() - 1)];
        match &tok.t {
            T::Id(s) => format!("identifier '{}'", s),
            // SR 2.3.3 calls a number a token and quotes a string as written (20 bytes)
            T::Int(n) => format!("token '{}'", n),
            T::Real(r) => format!("token '{}'", r),
            T::Char(c) => format!("literal '{}'", crate::syntax::token::show_bytes(&[*c])),
            T::Str(s) => format!("literal \"{}\"", crate::syntax::token::show_bytes(&s[..s.len().min(20)])),
            T::Kw(k) => format!("keyword '{}'", k),
            T::Op(o) => format!("token '{}'", o),
            T::Sep if tok.newline => "newline".to_string(),
            T::Sep => "token ';'".to_string(),
            T::Error => "invalid text".to_string(),
            T::Eof => "EOF".to_string(),
        }
    }

    /// "parse error at <token>: expected <what>" ("unexpected newline: ..."),
    /// once per token.
    pub(super) fn unexpected(&mut self, what: &str) -> Reported {
        if self.last_error == self.pos {
            return Reported;
        }
        self.last_error = self.pos;
        if *self.t() == T::Error {
            return Reported;
        }
        // SR 2.3.3's words (MPD's parser uses them too)
        let mut msg = if matches!(self.t(), T::Sep) && self.toks[self.pos.min(self.toks.len() - 1)].newline {
            format!("unexpected newline: expected {}", what)
        } else {
            format!("parse error at {}: expected {}", self.describe(), what)
        };
        // MPD's spellings in an SR program
        if matches!(self.t(), T::Op("==" | "+=" | "-=" | "*=" | "/=" | "!")) {
            msg.push_str(" (SR compares with '=' and assigns with ':=')");
        }
        let sp = self.span();
        self.diags.error(sp, msg);
        Reported
    }
    pub(super) fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }
    pub(super) fn warning(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.warning(span, msg);
    }

    pub(super) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            if self.last_error != self.pos {
                self.last_error = self.pos;
                let sp = self.span();
                self.error(sp, "program is nested too deeply");
            }
            return Err(Reported);
        }
        Ok(())
    }
    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// After an error: skip to the next separator or list end outside brackets.
    pub(super) fn sync(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.t() {
                T::Eof => return,
                T::Sep if depth <= 0 => return,
                T::Op("(" | "[" | "{") => depth += 1,
                T::Op(")" | "]" | "}") => depth -= 1,
                t if depth <= 0 && ends_list(t) => return,
                _ => {}
            }
            self.bump();
        }
    }

    // ───────────── components ─────────────

    /// `component { SEP component }`
    pub(super) fn source_file(&mut self) -> SourceFile {
        let lo = self.span();
        let mut components = Vec::new();
        loop {
            self.skip_seps();
            if *self.t() == T::Eof {
                break;
            }
            match self.component() {
                Ok(c) => components.push(c),
                Err(Reported) => {
                    // skip to the next component keyword at the start of a line
                    while !matches!(self.t(), T::Eof) {
                        if self.at_sep() && matches!(self.nth(1), T::Kw("resource" | "global")) {
                            break;
                        }
                        self.bump();
                    }
                }
            }
        }
        let hi = self.prev_span();
        SourceFile { file: self.file, components, span: lo.to(hi) }
    }

    /// `resource|global ID params body_items end_id`
    /// `resource|global ID spec_items [body ID [params] (body_items end_id | separate) | end_id]`
    /// `body ID body_items end_id`
    fn component(&mut self) -> PResult<Component> {
        let lo = self.span();
        if self.eat_kw("body") {
            let name = self.ident()?;
            let items = self.list();
            let end_name = self.end_id(&name, "body")?;
            let body = Body { name: name.clone(), params: None, items, separate: false, span: lo.to(self.prev_span()) };
            return Ok(Component {
                kind: ComponentKind::Resource,
                form: ComponentForm::SeparateBody,
                name,
                spec: vec![],
                body: Some(body),
                end_name,
                span: lo.to(self.prev_span()),
            });
        }
        let kind = if self.eat_kw("resource") {
            ComponentKind::Resource
        } else if self.eat_kw("global") {
            ComponentKind::Global
        } else {
            return Err(self.unexpected("'resource', 'global' or 'body'"));
        };
        let name = self.ident()?;
        if self.at_op("(") {
            let bl = self.span();
            let params = self.parameters()?;
            if kind == ComponentKind::Global && !params.is_empty() {
                self.error(bl, "a global cannot have a parameter list");
            }
            let items = self.list();
            let end_name = self.end_id(&name, "end")?;
            let body = Body {
                name: name.clone(),
                params: Some(params),
                items,
                separate: false,
                span: bl.to(self.prev_span()),
            };
            return Ok(Component {
                kind,
                form: ComponentForm::Simple,
                name,
                spec: vec![],
                body: Some(body),
                end_name,
                span: lo.to(self.prev_span()),
            });
        }
        let spec = self.list();
        if self.at_kw("end") {
            let end_name = self.end_id(&name, "end")?;
            return Ok(Component {
                kind,
                form: ComponentForm::SpecOnly,
                name,
                spec,
                body: None,
                end_name,
                span: lo.to(self.prev_span()),
            });
        }
        let bl = self.expect_kw("body")?;
        let bname = self.ident()?;
        self.check_id(&name, "body", &bname);
        let params = if self.at_op("(") {
            Some(self.parameters()?)
        } else {
            if kind == ComponentKind::Resource {
                self.error(bname.span, "missing parameter list for resource");
            }
            None
        };
        if self.eat_kw("separate") {
            let body = Body { name: bname, params, items: vec![], separate: true, span: bl.to(self.prev_span()) };
            return Ok(Component {
                kind,
                form: ComponentForm::SeparateSpec,
                name,
                spec,
                body: Some(body),
                end_name: None,
                span: lo.to(self.prev_span()),
            });
        }
        let items = self.list();
        let end_name = self.end_id(&name, "end")?;
        let body = Body { name: bname, params, items, separate: false, span: bl.to(self.prev_span()) };
        Ok(Component {
            kind,
            form: ComponentForm::Combined,
            name,
            spec,
            body: Some(body),
            end_name,
            span: lo.to(self.prev_span()),
        })
    }

    /// `end [ID]`; an ID must be `name` (SR 2.3.3: "expected `end name'",
    /// or `kw name` when a separate body's end names another component).
    pub(super) fn end_id(&mut self, name: &Ident, kw: &str) -> PResult<Option<Ident>> {
        self.expect_kw("end")?;
        if self.at_id() {
            let id = self.ident()?;
            self.check_id(name, kw, &id);
            return Ok(Some(id));
        }
        Ok(None)
    }

    /// `id` must repeat `name`, as in `end name` or `body name`.
    pub(super) fn check_id(&mut self, name: &Ident, kw: &str, id: &Ident) {
        if id.name != name.name {
            self.error(id.span, format!("expected '{} {}'", kw, name.name));
        }
    }

    /// `item { SEP item }` up to a word or operator that ends a list (not consumed).
    pub(super) fn list(&mut self) -> Vec<Stmt> {
        let mut out = Vec::new();
        loop {
            self.skip_seps();
            if ends_list(self.t()) {
                return out;
            }
            let before = self.pos;
            match self.item() {
                Ok(s) => {
                    out.push(s);
                    out.append(&mut self.extra);
                    if !self.at_sep() && !ends_list(self.t()) {
                        let _ = self.unexpected("';' or a new line");
                        self.sync();
                    }
                }
                Err(Reported) => {
                    self.extra.clear();
                    self.sync();
                    if self.pos == before {
                        self.bump();
                    }
                }
            }
        }
    }

    /// `list` as a [`Block`].
    pub(super) fn block(&mut self) -> PResult<Block> {
        self.enter()?;
        let lo = self.span();
        let stmts = self.list();
        self.leave();
        Ok(Block { stmts, span: lo.to(self.prev_span()) })
    }

    /// One declaration, statement, proc, or initial/final block.
    fn item(&mut self) -> PResult<Stmt> {
        let lo = self.span();
        match self.t().clone() {
            T::Kw("var") | T::Kw("const") => self.var_decls(lo),
            T::Kw("type") => {
                self.bump();
                let name = self.ident()?;
                self.expect_op("=")?;
                let ty = self.ty()?;
                if self.at_op("{") {
                    // a type restriction of SR version 1: no meaning since
                    let sp = self.bump().span;
                    self.warning(sp, "type restriction ignored");
                    self.ident()?;
                    self.expect_op("}")?;
                }
                Ok(self.decl_at(lo, DeclKind::Type { name, ty }))
            }
            T::Kw("optype") => {
                self.bump();
                let name = self.ident()?;
                self.eat_op("=");
                let sig = self.op_prototype()?;
                Ok(self.decl_at(lo, DeclKind::Optype { name, sig }))
            }
            T::Kw("sem") => {
                self.bump();
                let mut items = Vec::new();
                loop {
                    let ilo = self.span();
                    let name = self.ident()?;
                    let dims = self.subscripts()?;
                    let init = if self.eat_op(":=") { Some(self.expr()?) } else { None };
                    items.push(SemItem { name, dims, init, span: ilo.to(self.prev_span()) });
                    if !self.eat_op(",") {
                        break;
                    }
                }
                Ok(self.decl_at(lo, DeclKind::Sem(items)))
            }
            T::Kw("op") | T::Kw("external") => self.op_decls(lo),
            T::Kw("import") | T::Kw("extend") => {
                let extend = self.at_kw("extend");
                self.bump();
                let mut names = vec![self.ident()?];
                while self.eat_op(",") {
                    names.push(self.ident()?);
                }
                Ok(self.decl_at(lo, DeclKind::Import { extend, names }))
            }
            T::Kw("proc") => self.proc_decl(lo),
            T::Kw("procedure") => self.procedure_decl(lo),
            T::Kw("process") => self.process_decl(lo),
            T::Kw("initial") => {
                // `initial block end [initial]`: the body's initial code, in its
                // place; SR 2.3.3 keeps it for compatibility and says so
                let sp = self.bump().span;
                self.warning(sp, "`initial' treated as `begin'");
                let b = self.block()?;
                self.expect_kw("end")?;
                self.eat_kw("initial");
                Ok(Stmt { kind: StmtKind::Begin(b), span: lo.to(self.prev_span()) })
            }
            T::Kw("final") => {
                self.bump();
                let b = self.block()?;
                self.expect_kw("end")?;
                self.eat_kw("final");
                Ok(self.decl_at(lo, DeclKind::Final(b)))
            }
            _ => self.stmt(),
        }
    }

    /// A declaration statement spanning from `lo` to the last token.
    fn decl_at(&self, lo: Span, kind: DeclKind) -> Stmt {
        let span = lo.to(self.prev_span());
        Stmt { kind: StmtKind::Decl(Decl { kind, span }), span }
    }

    /// `var`/`const` declarator groups: the first is the statement, the others go to `extra`.
    fn var_decls(&mut self, lo: Span) -> PResult<Stmt> {
        let constant = self.at_kw("const");
        self.bump();
        let mut first = self.var_def(constant)?;
        while self.eat_op(",") {
            let v = self.var_def(constant)?;
            let s = self.decl_at(lo, DeclKind::Var(v));
            self.extra.push(s);
        }
        // the first declarator group keeps the statement's own span
        let s = self
            .decl_at(lo, DeclKind::Var(std::mem::replace(&mut first, VarDecl { constant, ty: None, vars: vec![] })));
        Ok(s)
    }

    /// `op`/`external` declarations: one per name, the first is the statement, the others go to `extra`.
    fn op_decls(&mut self, lo: Span) -> PResult<Stmt> {
        let external = self.at_kw("external");
        self.bump();
        let mut decls = Vec::new();
        loop {
            let mut names = Vec::new();
            loop {
                let nlo = self.span();
                let name = self.ident()?;
                let dims = self.subscripts()?;
                names.push(OpName { name, dims, span: nlo.to(self.prev_span()) });
                if !self.eat_op(",") {
                    break;
                }
            }
            let sig = if self.at_op("(") {
                self.op_prototype()?
            } else {
                self.eat_op(":");
                OpSig::Optype(self.qualified_id()?)
            };
            for n in names {
                decls.push(OpDecl { names: vec![n], sig: sig.clone() });
            }
            if !self.eat_op(",") {
                break;
            }
        }
        let mut it = decls.into_iter();
        let first = it.next().expect("one op at least");
        for d in it {
            let s = self.decl_at(lo, if external { DeclKind::External(d) } else { DeclKind::Op(d) });
            self.extra.push(s);
        }
        Ok(self.decl_at(lo, if external { DeclKind::External(first) } else { DeclKind::Op(first) }))
    }

    /// `(a, b, ...)`: the formal names of a proc body or an input arm (types
    /// come from the op's heading).
    pub(super) fn formal_names(&mut self) -> PResult<Vec<Ident>> {
        self.expect_op("(")?;
        let mut formals = Vec::new();
        if !self.at_op(")") {
            loop {
                formals.push(self.ident()?);
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        self.expect_op(")")?;
        Ok(formals)
    }

    /// `proc name(formals) [returns r] block end`: the body of an op declared elsewhere.
    fn proc_decl(&mut self, lo: Span) -> PResult<Stmt> {
        self.bump();
        let name = self.ident()?;
        let formals = self.formal_names()?;
        let returns = if self.at_kw("returns") {
            let rlo = self.bump().span;
            let n = self.ident()?;
            Some(ReturnSpec { ty: None, name: Some(n), dims: vec![], span: rlo.to(self.prev_span()) })
        } else {
            None
        };
        let body = self.block()?;
        self.end_id(&name, "end")?;
        let pd = ProcDecl {
            kind: ProcKind::Proc,
            name,
            subscripts: vec![],
            quants: vec![],
            formals,
            params: vec![],
            returns,
            body,
        };
        Ok(self.decl_at(lo, DeclKind::Proc(pd)))
    }

    /// `procedure`: an op restricted to {call} (the statement) and its proc (in `extra`).
    fn procedure_decl(&mut self, lo: Span) -> PResult<Stmt> {
        self.bump();
        let name = self.ident()?;
        let params = self.parameters()?;
        let returns = self.return_spec()?;
        let body = self.block()?;
        self.end_id(&name, "end")?;
        // SR's `procedure` is an op restricted to {call} and its proc (so a
        // capability for it fits a {call} optype, as in SR 2.3.3)
        let sp = lo.to(self.prev_span());
        // an unnamed parameter gets a formal no SR name can spell
        let mut formals: Vec<Ident> = Vec::new();
        for p in &params {
            if p.names.is_empty() {
                self.diags.warning(p.span, "unnamed parameter is inaccessible");
                formals.push(Ident { name: format!("_arg{}", formals.len() + 1), span: p.span });
            }
            formals.extend(p.names.iter().map(|n| n.name.clone()));
        }
        let proc_returns = returns.as_ref().and_then(|r| r.name.clone()).map(|n| ReturnSpec {
            ty: None,
            span: n.span,
            name: Some(n),
            dims: vec![],
        });
        let restriction = Some(OpRestriction { call: true, send: false, span: name.span });
        let sig = OpSig::Explicit { params, returns, restriction, span: sp };
        let op = OpDecl { names: vec![OpName { name: name.clone(), dims: vec![], span: name.span }], sig };
        let pd = ProcDecl {
            kind: ProcKind::Proc,
            name,
            subscripts: vec![],
            quants: vec![],
            formals,
            params: vec![],
            returns: proc_returns,
            body,
        };
        let s = self.decl_at(lo, DeclKind::Proc(pd));
        self.extra.push(s);
        Ok(self.decl_at(lo, DeclKind::Op(op)))
    }

    /// `process name [quantifiers] block end`.
    fn process_decl(&mut self, lo: Span) -> PResult<Stmt> {
        self.bump();
        let name = self.ident()?;
        let quants = self.quantifiers_opt()?;
        let body = self.block()?;
        self.end_id(&name, "end")?;
        let pd = ProcDecl {
            kind: ProcKind::Process,
            name,
            subscripts: vec![],
            quants,
            formals: vec![],
            params: vec![],
            returns: None,
            body,
        };
        Ok(self.decl_at(lo, DeclKind::Proc(pd)))
    }

    /// `id_subs {, id_subs} (: type [:= expr] | := expr)`
    fn var_def(&mut self, constant: bool) -> PResult<VarDecl> {
        let mut names = Vec::new();
        loop {
            let lo = self.span();
            let name = self.ident()?;
            let dims = self.subscripts()?;
            names.push((name, dims, lo.to(self.prev_span())));
            if !self.eat_op(",") {
                break;
            }
            // `var a : int, b : real` — a comma may also start the next var_def
            if !self.at_id() {
                return Err(self.unexpected("an identifier"));
            }
        }
        let ty = if self.eat_op(":") { Some(self.ty()?) } else { None };
        let init = if self.at_op(":=") {
            let sp = self.bump().span;
            if names.len() > 1 {
                // one initializer for several names: SR 2.3.3 refuses to guess
                self.error(sp, "multiple initialization (one name per initialized declaration)");
            }
            Some(self.expr()?)
        } else {
            if ty.is_none() {
                if self.at_sep() {
                    let sp = names[0].2.to(names[names.len() - 1].2);
                    self.error(sp, "missing type and/or initial value");
                    return Err(Reported);
                }
                return Err(self.unexpected("':' or ':='"));
            }
            None
        };
        let vars =
            names.into_iter().map(|(name, dims, span)| VarItem { name, dims, init: init.clone(), span }).collect();
        Ok(VarDecl { constant, ty, vars })
    }

    /// `[ ( quantifier {, quantifier} ) ]`
    pub(super) fn quantifiers_opt(&mut self) -> PResult<Vec<Quantifier>> {
        if !self.at_op("(") {
            return Ok(vec![]);
        }
        self.bump();
        let q = self.quantifiers()?;
        self.expect_op(")")?;
        Ok(q)
    }

    /// `quantifier {, quantifier}`, quantifier = `ID := expr to|downto expr [by expr] [st expr]`
    pub(super) fn quantifiers(&mut self) -> PResult<Vec<Quantifier>> {
        let mut out = Vec::new();
        loop {
            let lo = self.span();
            let var = self.ident()?;
            self.expect_op(":=")?;
            let start = self.expr()?;
            let downto = if self.eat_kw("downto") {
                true
            } else {
                self.expect_kw("to")?;
                false
            };
            let end = self.expr()?;
            let step = if self.eat_kw("by") { Some(self.expr()?) } else { None };
            let st = if self.eat_kw("st") { Some(self.expr()?) } else { None };
            out.push(Quantifier { var, start, downto, end, step, st, span: lo.to(self.prev_span()) });
            if !self.eat_op(",") {
                return Ok(out);
            }
        }
    }
}
