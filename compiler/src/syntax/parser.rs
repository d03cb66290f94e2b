//! Recursive-descent parser for MPD: tokens → AST, one method per grammar rule.
//!
//! Each method quotes the rule it parses. Separators (`;` or a line break that ends a
//! statement, see lexer.rs) are written `SEP`. Errors are reported once at the offending
//! token; the statement being parsed is abandoned (`Err(Reported)`) and the statement list
//! resynchronises at the next separator, so several errors come out of one run. Nesting
//! is bounded ([`MAX_DEPTH`]) so no input can exhaust the stack.

use super::ast::*;
use super::diag::Diagnostics;
use super::lexer;
use super::token::{Kw, Punct, TokKind, Token};

/// Deepest recursion of the parser (nested statements, parentheses, types) accepted.
const MAX_DEPTH: u32 = 160;
/// Deepest expression tree accepted (also bounds trees built by loops, like
/// `a+b+...`): later passes may recurse over expressions without a stack check.
pub const MAX_HEIGHT: u32 = 1000;

/// An error was reported; unwind to the nearest statement list.
#[derive(Debug)]
struct Reported;
type PResult<T> = Result<T, Reported>;

pub(crate) fn parse(file: FileId, src: &str, diags: &mut Diagnostics) -> SourceFile {
    // Lexical and syntax errors are collected apart, then reported in source order.
    let mut local = Diagnostics::new();
    let toks = lexer::lex(file, src, &mut local);
    let mut p = Parser { toks, pos: 0, file, src, diags: &mut local, depth: 0, last_error: usize::MAX, h: 0, peak: 0, extra: Vec::new() };
    let tree = p.source_file();
    local.sort_by_position();
    diags.extend(local);
    tree
}

struct Parser<'a, 'd> {
    toks: Vec<Token>,
    pos: usize,
    file: FileId,
    src: &'a str,
    diags: &'d mut Diagnostics,
    depth: u32,
    /// Token index of the last reported error (one error per token).
    last_error: usize,
    /// Height of the expression last returned by an expression method (see `node`).
    h: u32,
    /// Greatest expression height built since it was last reset (for `new(T)` etc.).
    peak: u32,
    /// Further statements produced by one source statement (`op a(), b()` gives one
    /// `Op` declaration per item); the statement list appends them after the first.
    extra: Vec<Stmt>,
}

/// Binary operator and its precedence (higher binds tighter), appendix C.
fn binary_op(k: &TokKind) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match k {
        TokKind::Kw(Kw::Xor) => (Xor, 1),
        TokKind::Punct(Punct::Bar) | TokKind::Kw(Kw::Or) => (Or, 2),
        TokKind::Punct(Punct::Amp) | TokKind::Kw(Kw::And) => (And, 3),
        TokKind::Punct(Punct::EqEq) => (Eq, 4),
        TokKind::Punct(Punct::Ne) | TokKind::Punct(Punct::TildeEq) => (Ne, 4),
        TokKind::Punct(Punct::Lt) => (Lt, 4),
        TokKind::Punct(Punct::Le) => (Le, 4),
        TokKind::Punct(Punct::Gt) => (Gt, 4),
        TokKind::Punct(Punct::Ge) => (Ge, 4),
        TokKind::Punct(Punct::Shl) => (Shl, 5),
        TokKind::Punct(Punct::Shr) => (Shr, 5),
        TokKind::Punct(Punct::Plus) => (Add, 6),
        TokKind::Punct(Punct::Minus) => (Sub, 6),
        TokKind::Punct(Punct::Concat) => (Concat, 6),
        TokKind::Punct(Punct::Star) => (Mul, 7),
        TokKind::Punct(Punct::Slash) => (Div, 7),
        TokKind::Punct(Punct::Percent) => (Rem, 7),
        TokKind::Kw(Kw::Mod) => (Mod, 7),
        TokKind::Punct(Punct::StarStar) => (Pow, 8),
        _ => return None,
    })
}

/// Assignment operators (lowest precedence, right associative).
fn assign_op(k: &TokKind) -> Option<AssignOp> {
    use BinaryOp::*;
    let TokKind::Punct(p) = k else { return None };
    Some(match p {
        Punct::Eq => AssignOp::Plain,
        Punct::PlusEq => AssignOp::Compound(Add),
        Punct::MinusEq => AssignOp::Compound(Sub),
        Punct::StarEq => AssignOp::Compound(Mul),
        Punct::SlashEq => AssignOp::Compound(Div),
        Punct::PercentEq => AssignOp::Compound(Rem),
        Punct::StarStarEq => AssignOp::Compound(Pow),
        Punct::BarEq => AssignOp::Compound(Or),
        Punct::AmpEq => AssignOp::Compound(And),
        Punct::ConcatEq => AssignOp::Compound(Concat),
        Punct::ShlEq => AssignOp::Compound(Shl),
        Punct::ShrEq => AssignOp::Compound(Shr),
        _ => return None,
    })
}

/// Tokens that close a statement list (the list's owner decides which one it wants).
fn ends_list(k: &TokKind) -> bool {
    matches!(
        k,
        TokKind::Punct(Punct::RBrace)
            | TokKind::Punct(Punct::Box)
            | TokKind::Punct(Punct::SlashSlash)
            | TokKind::Kw(Kw::End)
            | TokKind::Kw(Kw::Ni)
            | TokKind::Kw(Kw::Oc)
            | TokKind::Kw(Kw::Body)
            | TokKind::Eof
    )
}

/// In `cap (int) returns int f` with no further name, `f` names the declared item, not
/// the result: take it back from the signature (the result stays unnamed).
fn steal_result_name(ty: &mut Type) -> Option<ParamName> {
    let TypeKind::Cap(CapTarget::Sig(sig)) = &mut ty.kind else { return None };
    let OpSig::Explicit { returns: Some(r), .. } = sig.as_mut() else { return None };
    r.ty.as_ref()?;
    let name = r.name.take()?;
    let dims = std::mem::take(&mut r.dims);
    Some(ParamName { span: name.span, name, dims })
}

/// Keyword types that can start a declaration (`int x`) or a conversion (`int(x)`).
fn is_simple_type_kw(k: Kw) -> bool {
    matches!(k, Kw::Bool | Kw::Int | Kw::Char | Kw::Real | Kw::Double | Kw::String | Kw::File)
}

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── token helpers ─────────────

    fn tok(&self) -> &Token {
        let i = self.pos.min(self.toks.len() - 1);
        &self.toks[i]
    }
    fn kind(&self) -> &TokKind {
        &self.tok().kind
    }
    fn nth(&self, k: usize) -> &TokKind {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].kind
    }
    fn span(&self) -> Span {
        self.tok().span
    }
    /// Span of the previous token (end of what was parsed so far).
    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            return Span::new(self.file, 0, 0);
        }
        self.toks[(self.pos - 1).min(self.toks.len() - 1)].span
    }
    fn bump(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn at(&self, p: Punct) -> bool {
        *self.kind() == TokKind::Punct(p)
    }
    fn at_kw(&self, k: Kw) -> bool {
        *self.kind() == TokKind::Kw(k)
    }
    fn eat(&mut self, p: Punct) -> bool {
        if self.at(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, k: Kw) -> bool {
        if self.at_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn at_sep(&self) -> bool {
        matches!(self.kind(), TokKind::Newline | TokKind::Punct(Punct::Semi))
    }
    fn skip_seps(&mut self) {
        while self.at_sep() {
            self.bump();
        }
    }
    fn expect(&mut self, p: Punct) -> PResult<Span> {
        if self.at(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("'{}'", p.as_str())))
        }
    }
    fn expect_kw(&mut self, k: Kw) -> PResult<Span> {
        if self.at_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("'{}'", k.as_str())))
        }
    }
    fn ident(&mut self) -> PResult<Ident> {
        if let TokKind::Ident(name) = self.kind() {
            let name = name.clone();
            let span = self.bump().span;
            Ok(Ident { name, span })
        } else {
            Err(self.unexpected("an identifier"))
        }
    }
    fn at_ident(&self) -> bool {
        matches!(self.kind(), TokKind::Ident(_))
    }

    /// Report "parse error at <token>: expected <what>" once per token.
    fn unexpected(&mut self, what: &str) -> Reported {
        if self.last_error == self.pos {
            return Reported;
        }
        self.last_error = self.pos;
        let tok = self.tok().clone();
        let msg = match tok.kind {
            TokKind::Error => return Reported, // the lexer already said what is wrong
            TokKind::Newline => format!("unexpected newline: expected {}", what),
            _ => format!("parse error at {}: expected {}", tok.describe(self.src), what),
        };
        // A common slip from SR or Pascal: `x := 1`.
        let msg = if tok.kind == TokKind::Punct(Punct::Colon) && *self.nth(1) == TokKind::Punct(Punct::Eq) {
            format!("{} (MPD assigns with '=')", msg)
        } else {
            msg
        };
        self.diags.error(tok.span, msg);
        Reported
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    /// Guard against unbounded nesting; pair with `leave`.
    fn enter(&mut self) -> PResult<()> {
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
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// After an error: skip to the next separator or list end at this nesting level.
    fn sync(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.kind() {
                TokKind::Eof => return,
                TokKind::Newline | TokKind::Punct(Punct::Semi) if depth <= 0 => return,
                TokKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokKind::Punct(Punct::RParen | Punct::RBracket) => depth -= 1,
                TokKind::Punct(Punct::RBrace) => {
                    if depth <= 0 {
                        return;
                    }
                    depth -= 1;
                }
                k if depth <= 0 && ends_list(k) => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// After an error in an `in`/`co` arm: skip to the next arm separator `sep` or the
    /// closing keyword `close` of this statement (nested in/co and brackets skipped whole).
    fn skip_arm(&mut self, sep: Punct, close: Kw) {
        let mut depth = 0i32;
        loop {
            match self.kind() {
                TokKind::Eof => return,
                TokKind::Kw(Kw::End) if depth <= 0 => return,
                TokKind::Punct(p) if *p == sep && depth <= 0 => return,
                TokKind::Kw(k) if *k == close && depth <= 0 => return,
                TokKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) | TokKind::Kw(Kw::In | Kw::Co) => {
                    depth += 1
                }
                TokKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) | TokKind::Kw(Kw::Ni | Kw::Oc) => {
                    depth -= 1
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ───────────── files and components ─────────────

    /// file = { SEP | component } EOF
    fn source_file(&mut self) -> SourceFile {
        let mut components = Vec::new();
        loop {
            self.skip_seps();
            match self.kind() {
                TokKind::Eof => break,
                TokKind::Kw(Kw::Resource) | TokKind::Kw(Kw::Global) | TokKind::Kw(Kw::Body) => {
                    let start = self.pos;
                    match self.component() {
                        Ok(c) => components.push(c),
                        Err(Reported) => self.skip_component(),
                    }
                    if self.pos == start {
                        self.bump();
                    }
                }
                _ => {
                    let _ = self.unexpected("'resource' or 'global'");
                    self.skip_component();
                }
            }
        }
        let hi = self.src.len() as u32;
        SourceFile { file: self.file, components, span: Span::new(self.file, 0, hi) }
    }

    /// Recovery at file level: skip past the next `end [name]` or to the next component.
    fn skip_component(&mut self) {
        loop {
            match self.kind() {
                TokKind::Eof => return,
                TokKind::Kw(Kw::End) => {
                    self.bump();
                    if self.at_ident() {
                        self.bump();
                    }
                    return;
                }
                TokKind::Kw(Kw::Resource | Kw::Global) if self.tok().nl_before => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// component = resource | global | separate_body
    /// resource  = "resource" ID "(" params ")" body_items "end" [ID]
    ///           | "resource" ID spec_items ( "end" [ID]
    ///                                     | "body" ID "(" params ")" ( "separate" | body_items "end" [ID] ) )
    /// global    = "global" ID spec_items ( "end" [ID] | "body" ID ( "separate" | body_items "end" [ID] ) )
    /// separate_body = "body" ID [ "(" params ")" ] body_items "end" [ID]
    fn component(&mut self) -> PResult<Component> {
        let start = self.span();
        let kw = self.bump();
        let kind = match kw.kind {
            TokKind::Kw(Kw::Global) => ComponentKind::Global,
            _ => ComponentKind::Resource,
        };
        if kw.kind == TokKind::Kw(Kw::Body) {
            let name = self.ident()?;
            let params = self.opt_params()?;
            let body_start = name.span;
            let items = self.item_list();
            let end_name = self.component_end(&name)?;
            let body = Body { name: name.clone(), params, items, separate: false, span: body_start.to(self.prev_span()) };
            return Ok(Component {
                kind,
                form: ComponentForm::SeparateBody,
                name,
                spec: Vec::new(),
                body: Some(body),
                end_name,
                span: start.to(self.prev_span()),
            });
        }
        let name = self.ident()?;
        if self.at(Punct::LParen) {
            let params = self.opt_params()?;
            if kind == ComponentKind::Global && params.as_ref().is_some_and(|p| !p.is_empty()) {
                self.error(name.span, "a global cannot have a parameter list");
            }
            let items = self.item_list();
            let end_name = self.component_end(&name)?;
            let span = start.to(self.prev_span());
            let body = Some(Body { name: name.clone(), params, items, separate: false, span });
            return Ok(Component { kind, form: ComponentForm::Simple, name, spec: Vec::new(), body, end_name, span });
        }
        let spec = self.item_list();
        if self.at_kw(Kw::End) {
            let end_name = self.component_end(&name)?;
            return Ok(Component {
                kind,
                form: ComponentForm::SpecOnly,
                name,
                spec,
                body: None,
                end_name,
                span: start.to(self.prev_span()),
            });
        }
        let body_kw = self.expect_kw(Kw::Body)?;
        let body_name = self.ident()?;
        if body_name.name != name.name {
            self.error(body_name.span, format!("body name '{}' does not match '{}'", body_name.name, name.name));
        }
        let params = self.opt_params()?;
        match (kind, &params) {
            (ComponentKind::Global, Some(p)) if !p.is_empty() => self.error(body_name.span, "a global cannot have a parameter list"),
            (ComponentKind::Resource, None) => self.error(body_name.span, "missing parameter list for resource"),
            _ => {}
        }
        if self.eat_kw(Kw::Separate) {
            let body = Body { name: body_name, params, items: Vec::new(), separate: true, span: body_kw.to(self.prev_span()) };
            return Ok(Component {
                kind,
                form: ComponentForm::SeparateSpec,
                name,
                spec,
                body: Some(body),
                end_name: None,
                span: start.to(self.prev_span()),
            });
        }
        let items = self.item_list();
        let end_name = self.component_end(&name)?;
        let body = Body { name: body_name, params, items, separate: false, span: body_kw.to(self.prev_span()) };
        Ok(Component {
            kind,
            form: ComponentForm::Combined,
            name,
            spec,
            body: Some(body),
            end_name,
            span: start.to(self.prev_span()),
        })
    }

    /// "end" [ID] — the identifier, if present, must repeat the component's name.
    fn component_end(&mut self, name: &Ident) -> PResult<Option<Ident>> {
        if !self.at_kw(Kw::End) {
            return Err(self.unexpected(&format!("'end {}'", name.name)));
        }
        self.bump();
        if self.at_ident() {
            let id = self.ident()?;
            if id.name != name.name {
                self.error(id.span, format!("expected 'end {}'", name.name));
            }
            return Ok(Some(id));
        }
        Ok(None)
    }

    /// [ "(" params ")" ]
    fn opt_params(&mut self) -> PResult<Option<Vec<Param>>> {
        if self.at(Punct::LParen) {
            Ok(Some(self.params()?))
        } else {
            Ok(None)
        }
    }

    /// items = { SEP | stmt } — until `end`, `body` or EOF. A stray closer (`}`, `ni`,
    /// `oc`, `[]`, `//`) is reported and skipped so the rest of the component is checked.
    fn item_list(&mut self) -> Vec<Stmt> {
        let mut items = Vec::new();
        loop {
            items.extend(self.stmt_list());
            match self.kind() {
                TokKind::Kw(Kw::End | Kw::Body) | TokKind::Eof => return items,
                _ => {
                    let _ = self.unexpected("a declaration or statement");
                    self.bump();
                }
            }
        }
    }

    // ───────────── statement lists and blocks ─────────────

    /// stmts = { SEP | stmt SEP } — stops before a list-ending token.
    fn stmt_list(&mut self) -> Vec<Stmt> {
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
    fn block(&mut self) -> PResult<Block> {
        let lo = self.expect(Punct::LBrace)?;
        self.enter()?;
        let stmts = self.stmt_list();
        self.leave();
        let hi = self.expect(Punct::RBrace)?;
        Ok(Block { stmts, span: lo.to(hi) })
    }

    // ───────────── statements ─────────────

    /// stmt = decl | simple_stmt | compound_stmt | expr
    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let lo = self.span();
        let kind = match self.kind().clone() {
            TokKind::Kw(k) => match k {
                Kw::Import | Kw::Extend | Kw::Const | Kw::Type | Kw::Op | Kw::External | Kw::Sem
                | Kw::Optype | Kw::Proc | Kw::Procedure | Kw::Process | Kw::Final => StmtKind::Decl(self.decl()?),
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
    fn starts_named_decl(&self) -> bool {
        matches!(
            (self.nth(1), self.nth(2), self.nth(3)),
            (TokKind::Ident(_), _, _) | (TokKind::Punct(Punct::Dot), TokKind::Ident(_), TokKind::Ident(_))
        )
    }

    /// stop_stmt = "stop" [ "(" expr ")" ]
    fn stop_stmt(&mut self) -> PResult<StmtKind> {
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
    fn return_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        if self.at_sep() || ends_list(self.kind()) {
            return Ok(StmtKind::Return(None));
        }
        Ok(StmtKind::Return(Some(self.expr()?)))
    }

    /// sem_stmt = ( "P" | "V" ) "(" expr ")"
    fn sem_stmt(&mut self, k: Kw) -> PResult<StmtKind> {
        self.bump();
        self.expect(Punct::LParen)?;
        let e = self.expr_no_assign()?;
        self.expect(Punct::RParen)?;
        Ok(if k == Kw::P { StmtKind::P(e) } else { StmtKind::V(e) })
    }

    /// if_stmt = "if" expr block { "else" "if" expr block } [ "else" block ]
    fn if_stmt(&mut self) -> PResult<StmtKind> {
        let mut arms = Vec::new();
        let mut else_block = None;
        let lo = self.bump().span;
        let cond = self.expr_no_assign()?;
        let body = self.block()?;
        arms.push(IfArm { cond, body, span: lo.to(self.prev_span()) });
        while self.at_kw(Kw::Else) {
            let lo = self.bump().span;
            if self.eat_kw(Kw::If) {
                let cond = self.expr_no_assign()?;
                let body = self.block()?;
                arms.push(IfArm { cond, body, span: lo.to(self.prev_span()) });
            } else {
                else_block = Some(self.block()?);
                break;
            }
        }
        Ok(StmtKind::If { arms, else_block })
    }

    /// while_stmt = "while" expr block
    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.expr_no_assign()?;
        let body = self.block()?;
        Ok(StmtKind::While { cond, body })
    }

    /// for_stmt = "for" quantifiers block
    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let quants = self.quantifiers()?;
        let body = self.block()?;
        Ok(StmtKind::For { quants, body })
    }

    /// quantifiers = "[" quantifier { "," quantifier } "]"
    fn quantifiers(&mut self) -> PResult<Vec<Quantifier>> {
        self.expect(Punct::LBracket)?;
        let mut qs = vec![self.quantifier()?];
        while self.eat(Punct::Comma) {
            qs.push(self.quantifier()?);
        }
        self.expect(Punct::RBracket)?;
        Ok(qs)
    }

    /// quantifier = ID "=" expr ( "to" | "downto" ) expr [ "by" expr ] [ "st" expr ]
    fn quantifier(&mut self) -> PResult<Quantifier> {
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
    fn in_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut arms = Vec::new();
        let mut else_block = None;
        loop {
            self.skip_seps();
            if self.at_kw(Kw::Else) {
                let lo = self.bump().span;
                self.expect(Punct::Arrow)?;
                let stmts = self.stmt_list();
                else_block = Some(Block { stmts, span: lo.to(self.prev_span()) });
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
    fn in_arm(&mut self) -> PResult<InArm> {
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
    fn split_invocation(&mut self, inv: Expr) -> PResult<(Expr, Vec<Ident>)> {
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
    fn co_stmt(&mut self) -> PResult<StmtKind> {
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
    fn co_arm(&mut self) -> PResult<CoArm> {
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

    // ───────────── declarations ─────────────

    /// decl = import | const_decl | type_decl | op_decl | external_decl | sem_decl
    ///      | optype_decl | proc_decl | final_decl
    fn decl(&mut self) -> PResult<Decl> {
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
    fn import_decl(&mut self) -> PResult<DeclKind> {
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
    fn var_decl(&mut self, constant: bool) -> PResult<Decl> {
        let lo = self.span();
        if constant {
            self.bump();
        }
        // `const N = 10` has no type: an identifier directly followed by `=`.
        let untyped = constant && self.at_ident() && *self.nth(1) == TokKind::Punct(Punct::Eq);
        let mut ty = if untyped { None } else { Some(self.type_()?) };
        let mut stolen = if self.at_ident() { None } else { ty.as_mut().and_then(steal_result_name) };
        let mut vars = Vec::new();
        loop {
            let (name, dims) = match stolen.take() {
                Some(pn) => (pn.name, pn.dims),
                None => (self.ident()?, self.dims()?),
            };
            let init = if self.eat(Punct::Eq) { Some(self.expr_no_assign()?) } else { None };
            vars.push(VarItem { span: name.span.to(self.prev_span()), name, dims, init });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        Ok(Decl { kind: DeclKind::Var(VarDecl { constant, ty, vars }), span: lo.to(self.prev_span()) })
    }

    /// dims = { "[" ranges "]" }
    fn dims(&mut self) -> PResult<Vec<Range>> {
        let mut out = Vec::new();
        while self.at(Punct::LBracket) {
            out.extend(self.ranges()?);
        }
        Ok(out)
    }

    /// ranges = "[" range { "," range } "]"
    fn ranges(&mut self) -> PResult<Vec<Range>> {
        self.expect(Punct::LBracket)?;
        let mut out = vec![self.range()?];
        while self.eat(Punct::Comma) {
            out.push(self.range()?);
        }
        self.expect(Punct::RBracket)?;
        Ok(out)
    }

    /// range = bound [ ":" bound ]      bound = "*" | expr
    fn range(&mut self) -> PResult<Range> {
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

    fn bound(&mut self) -> PResult<Bound> {
        if self.at(Punct::Star) {
            return Ok(Bound::Star(self.bump().span));
        }
        Ok(Bound::Expr(self.expr_no_assign()?))
    }

    /// type_decl = "type" ID "=" type
    fn type_decl(&mut self) -> PResult<DeclKind> {
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
    fn op_decl(&mut self, external: bool) -> PResult<OpDecl> {
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

    fn op_item(&mut self) -> PResult<OpDecl> {
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
    fn signature(&mut self, params_optional: bool) -> PResult<OpSig> {
        let lo = self.span();
        let params = if self.at(Punct::LParen) || !params_optional { self.params()? } else { Vec::new() };
        let returns = if self.at_kw(Kw::Returns) { Some(self.return_spec(true)?) } else { None };
        let restriction = if self.at(Punct::LBrace) { Some(self.restriction()?) } else { None };
        Ok(OpSig::Explicit { params, returns, restriction, span: lo.to(self.prev_span()) })
    }

    /// restriction = "{" ( "call" | "send" ) [ "," ( "call" | "send" ) ] "}"
    fn restriction(&mut self) -> PResult<OpRestriction> {
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
    fn return_spec(&mut self, with_type: bool) -> PResult<ReturnSpec> {
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
    /// param  = [ "val" | "var" | "res" | "ref" ] type [ param_name { "," param_name } ]
    /// A name after "," continues the previous group when that group already has a name
    /// and what follows cannot start a new group (`int x, y` vs `int x, real y`).
    fn params(&mut self) -> PResult<Vec<Param>> {
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
            let mut ty = self.type_()?;
            let mut names = Vec::new();
            if !self.at_ident() {
                names.extend(steal_result_name(&mut ty));
            }
            if self.at_ident() {
                names.push(self.param_name()?);
                while self.at(Punct::Comma) && self.continues_group() {
                    self.bump();
                    names.push(self.param_name()?);
                }
            }
            out.push(Param { mode, ty, names, span: lo.to(self.prev_span()) });
            if !(self.eat(Punct::Comma) || self.eat(Punct::Semi) || (self.tok().nl_before && !self.at(Punct::RParen))) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(out)
    }

    /// At a ",": is the next item another name of the current group?
    fn continues_group(&self) -> bool {
        matches!(self.nth(1), TokKind::Ident(_))
            && matches!(
                self.nth(2),
                TokKind::Punct(Punct::Comma | Punct::RParen | Punct::LBracket | Punct::Semi) | TokKind::Newline
            )
    }

    /// param_name = ID { "[" ranges "]" }
    fn param_name(&mut self) -> PResult<ParamName> {
        let name = self.ident()?;
        let dims = self.dims()?;
        Ok(ParamName { span: name.span.to(self.prev_span()), name, dims })
    }

    /// sem_decl = "sem" sem_item { "," sem_item }     sem_item = ID dims [ "=" expr ]
    fn sem_decl(&mut self) -> PResult<DeclKind> {
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
    fn optype_decl(&mut self) -> PResult<DeclKind> {
        self.bump();
        let name = self.ident()?;
        self.eat(Punct::Eq);
        let sig = self.signature(false)?;
        Ok(DeclKind::Optype { name, sig })
    }

    /// proc_decl = "proc" ID [ "[" ID { "," ID } "]" ] "(" [ ID { "," ID } ] ")" [ "returns" ID ] block
    ///           | "procedure" ID "(" params ")" [ "returns" type [ ID dims ] ] block
    ///           | "process" ID [ quantifiers ] block
    fn proc_decl(&mut self) -> PResult<ProcDecl> {
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
    fn ident_list(&mut self, close: Punct) -> PResult<Vec<Ident>> {
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

    // ───────────── types ─────────────

    /// type = "bool" | "int" | "char" | "real" | "double" | "file" | "string" [ "[" bound "]" ]
    ///      | "enum" "(" ID { "," ID } ")" | "rec" "(" fields ")" | "union" "(" fields ")"
    ///      | "ptr" ( "any" | type ) | "cap" cap_target | "[" ranges "]" type | qual_name
    ///      | "sem" | "op" signature                      (in `new(...)` only)
    fn type_(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.type_inner();
        self.leave();
        r
    }

    fn type_inner(&mut self) -> PResult<Type> {
        let lo = self.span();
        let kind = match self.kind().clone() {
            TokKind::Kw(k) => match k {
                Kw::Bool | Kw::Int | Kw::Char | Kw::Real | Kw::Double | Kw::File => {
                    self.bump();
                    match k {
                        Kw::Bool => TypeKind::Bool,
                        Kw::Int => TypeKind::Int,
                        Kw::Char => TypeKind::Char,
                        Kw::Real => TypeKind::Real,
                        Kw::Double => TypeKind::Double,
                        _ => TypeKind::File,
                    }
                }
                Kw::String => {
                    self.bump();
                    if self.eat(Punct::LBracket) {
                        let b = self.bound()?;
                        self.expect(Punct::RBracket)?;
                        TypeKind::String(Some(b))
                    } else {
                        TypeKind::String(None)
                    }
                }
                Kw::Enum => {
                    self.bump();
                    self.expect(Punct::LParen)?;
                    TypeKind::Enum(self.ident_list(Punct::RParen)?)
                }
                Kw::Rec | Kw::Union => {
                    self.bump();
                    let fields = self.fields()?;
                    if k == Kw::Rec {
                        TypeKind::Rec(fields)
                    } else {
                        TypeKind::Union(fields)
                    }
                }
                Kw::Ptr => {
                    self.bump();
                    if self.eat_kw(Kw::Any) {
                        TypeKind::PtrAny
                    } else {
                        TypeKind::Ptr(Box::new(self.type_()?))
                    }
                }
                Kw::Cap => {
                    self.bump();
                    TypeKind::Cap(self.cap_target()?)
                }
                // Only meaningful in `new(...)`; the checker rejects them elsewhere.
                Kw::Sem => {
                    self.bump();
                    TypeKind::Sem
                }
                Kw::Op => {
                    self.bump();
                    TypeKind::Op(Box::new(self.signature(false)?))
                }
                _ => return Err(self.unexpected("a type")),
            },
            TokKind::Punct(Punct::LBracket) => {
                let ranges = self.ranges()?;
                let elem = Box::new(self.type_()?);
                TypeKind::Array { ranges, elem }
            }
            TokKind::Ident(_) => TypeKind::Named(self.qual_name()?),
            _ => return Err(self.unexpected("a type")),
        };
        Ok(Type { kind, span: lo.to(self.prev_span()) })
    }

    /// cap_target = "vm" | "sem" | "(" params ")" [ "returns" ... ] [ restriction ] | qual_name
    fn cap_target(&mut self) -> PResult<CapTarget> {
        if self.eat_kw(Kw::Vm) {
            return Ok(CapTarget::Vm);
        }
        if self.eat_kw(Kw::Sem) {
            return Ok(CapTarget::Sem);
        }
        if self.at(Punct::LParen) {
            return Ok(CapTarget::Sig(Box::new(self.signature(false)?)));
        }
        Ok(CapTarget::Named(self.qual_name()?))
    }

    /// fields = "(" field { ( ";" | "," ) field } ")"    field = type param_name { "," param_name }
    fn fields(&mut self) -> PResult<Vec<Field>> {
        self.expect(Punct::LParen)?;
        let mut out = Vec::new();
        loop {
            if self.at(Punct::RParen) {
                break;
            }
            let lo = self.span();
            let mut ty = self.type_()?;
            let first = if self.at_ident() { self.param_name()? } else { steal_result_name(&mut ty).ok_or_else(|| self.unexpected("a field name"))? };
            let mut names = vec![first];
            while self.at(Punct::Comma) && self.continues_group() {
                self.bump();
                names.push(self.param_name()?);
            }
            out.push(Field { ty, names, span: lo.to(self.prev_span()) });
            // Fields are separated by ";" or "," — or just by a line break.
            if !(self.eat(Punct::Semi) || self.eat(Punct::Comma) || self.tok().nl_before) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(out)
    }

    /// qual_name = ID [ "." ID ]
    fn qual_name(&mut self) -> PResult<QualName> {
        let first = self.ident()?;
        let mut parts = vec![first];
        if self.at(Punct::Dot) && matches!(self.nth(1), TokKind::Ident(_)) {
            self.bump();
            parts.push(self.ident()?);
        }
        let span = parts[0].span.to(parts[parts.len() - 1].span);
        Ok(QualName { parts, span })
    }

    // ───────────── expressions ─────────────
    //
    // Every method that returns an Expr leaves its height in `self.h` (built through
    // `node`), so trees made by loops (`a+b+c+...`, `a[1][2]...`) are bounded too:
    // no expression is deeper than MAX_HEIGHT, whatever walks it later.

    /// Build a node whose deepest child has height `child_h`; enforce MAX_HEIGHT.
    fn node(&mut self, kind: ExprKind, span: Span, child_h: u32) -> PResult<Expr> {
        let h = child_h + 1;
        if h > MAX_HEIGHT {
            if self.last_error != self.pos {
                self.last_error = self.pos;
                self.error(span, "expression is nested too deeply");
            }
            return Err(Reported);
        }
        self.h = h;
        self.peak = self.peak.max(h);
        Ok(Expr { kind, span })
    }

    /// expr = binary [ assign_op expr | ":=:" expr ]      (right associative)
    fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.expr_inner();
        self.leave();
        r
    }

    fn expr_inner(&mut self) -> PResult<Expr> {
        let lhs = self.binary(1)?;
        let hl = self.h;
        if let Some(op) = assign_op(self.kind()) {
            self.bump();
            let rhs = self.expr()?;
            let span = lhs.span.to(rhs.span);
            let h = hl.max(self.h);
            return self.node(ExprKind::Assign { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span, h);
        }
        if self.at(Punct::Swap) {
            self.bump();
            let rhs = self.expr()?;
            let span = lhs.span.to(rhs.span);
            let h = hl.max(self.h);
            return self.node(ExprKind::Swap { lhs: Box::new(lhs), rhs: Box::new(rhs) }, span, h);
        }
        self.h = hl;
        Ok(lhs)
    }

    /// An expression where `=` cannot mean assignment (initializers, bounds, conditions).
    fn expr_no_assign(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.binary(1);
        self.leave();
        r
    }

    /// binary = unary { binop unary }   by precedence climbing (appendix C groups);
    /// `**` is right associative, all others left.
    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        let mut h = self.h;
        while let Some((op, prec)) = binary_op(self.kind()) {
            if prec < min_prec {
                break;
            }
            self.bump();
            let next_min = if op == BinaryOp::Pow { prec } else { prec + 1 };
            self.enter()?;
            let rhs = self.binary(next_min);
            self.leave();
            let rhs = rhs?;
            let span = lhs.span.to(rhs.span);
            let ch = h.max(self.h);
            lhs = self.node(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span, ch)?;
            h = self.h;
        }
        self.h = h;
        Ok(lhs)
    }

    /// unary = ( "-" | "+" | "not" | "~" | "++" | "--" | "@" | "?" ) unary | postfix_expr
    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.kind() {
            TokKind::Punct(Punct::Minus) => Some(UnaryOp::Neg),
            TokKind::Punct(Punct::Plus) => Some(UnaryOp::Plus),
            TokKind::Kw(Kw::Not) | TokKind::Punct(Punct::Tilde) => Some(UnaryOp::Not),
            TokKind::Punct(Punct::PlusPlus) => Some(UnaryOp::PreInc),
            TokKind::Punct(Punct::MinusMinus) => Some(UnaryOp::PreDec),
            TokKind::Punct(Punct::At) => Some(UnaryOp::AddrOf),
            TokKind::Punct(Punct::Question) => Some(UnaryOp::Pending),
            _ => None,
        };
        let Some(op) = op else { return self.postfix_expr() };
        let lo = self.bump().span;
        self.enter()?;
        let operand = self.unary();
        self.leave();
        let operand = operand?;
        let span = lo.to(operand.span);
        let h = self.h;
        self.node(ExprKind::Unary { op, operand: Box::new(operand) }, span, h)
    }

    /// postfix_expr = primary { "[" subscripts "]" | "(" [ args ] ")" | "." ID | "^" | "++" | "--" }
    fn postfix_expr(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        let mut h = self.h;
        loop {
            let lo = e.span;
            match self.kind() {
                TokKind::Punct(Punct::LBracket) => {
                    let subs = self.subscripts()?;
                    let ch = h.max(self.h);
                    e = self.node(ExprKind::Index { base: Box::new(e), subs }, lo.to(self.prev_span()), ch)?;
                }
                TokKind::Punct(Punct::LParen) => {
                    let args = self.args()?;
                    let ch = h.max(self.h);
                    e = self.node(ExprKind::Call { callee: Box::new(e), args }, lo.to(self.prev_span()), ch)?;
                }
                TokKind::Punct(Punct::Dot) => {
                    self.bump();
                    let name = self.ident()?;
                    e = self.node(ExprKind::Field { base: Box::new(e), name }, lo.to(self.prev_span()), h)?;
                }
                TokKind::Punct(p @ (Punct::Caret | Punct::PlusPlus | Punct::MinusMinus)) => {
                    let op = match p {
                        Punct::Caret => UnaryOp::Deref,
                        Punct::PlusPlus => UnaryOp::PostInc,
                        _ => UnaryOp::PostDec,
                    };
                    self.bump();
                    e = self.node(ExprKind::Unary { op, operand: Box::new(e) }, lo.to(self.prev_span()), h)?;
                }
                _ => {
                    self.h = h;
                    return Ok(e);
                }
            }
            h = self.h;
        }
    }

    /// subscripts = "[" subscript { "," subscript } "]"
    /// subscript  = expr | bound ":" bound | "*"
    /// (leaves the greatest height of the subscript expressions in `self.h`)
    fn subscripts(&mut self) -> PResult<Vec<Subscript>> {
        self.expect(Punct::LBracket)?;
        let mut out = Vec::new();
        let mut hm = 0;
        loop {
            let lo = self.span();
            self.h = 0;
            let first = self.bound()?;
            hm = hm.max(self.h);
            if self.eat(Punct::Colon) {
                self.h = 0;
                let hi = self.bound()?;
                hm = hm.max(self.h);
                out.push(Subscript::Slice { lo: Some(first), hi, span: lo.to(self.prev_span()) });
            } else {
                match first {
                    Bound::Expr(e) => out.push(Subscript::Index(e)),
                    star @ Bound::Star(_) => out.push(Subscript::Slice { lo: None, hi: star, span: lo }),
                }
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RBracket)?;
        self.h = hm;
        Ok(out)
    }

    /// args = "(" [ expr { "," expr } ] ")"   (greatest argument height left in `self.h`)
    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Punct::LParen)?;
        let mut out = Vec::new();
        let mut hm = 0;
        if !self.eat(Punct::RParen) {
            loop {
                out.push(self.expr()?);
                hm = hm.max(self.h);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect(Punct::RParen)?;
        }
        self.h = hm;
        Ok(out)
    }

    /// primary = literal | ID | "(" expr ")" | array_constructor | "new" "(" type ")"
    ///         | ( "low" | "high" ) "(" type ")" | create | simple_type_kw  (conversion callee)
    fn primary(&mut self) -> PResult<Expr> {
        let t = self.tok().clone();
        let kind = match t.kind {
            TokKind::Int(v) => ExprKind::Int(v),
            TokKind::Real(v) => ExprKind::Real(v),
            TokKind::Char(c) => ExprKind::Char(c),
            TokKind::Str(ref s) => ExprKind::Str(s.clone()),
            TokKind::Ident(ref name) => ExprKind::Ident(Ident { name: name.clone(), span: t.span }),
            TokKind::Kw(Kw::True) => ExprKind::Bool(true),
            TokKind::Kw(Kw::False) => ExprKind::Bool(false),
            TokKind::Kw(Kw::Null) => ExprKind::Null,
            TokKind::Kw(Kw::Noop) => ExprKind::Noop,
            TokKind::Kw(Kw::Stdin) => ExprKind::StdFile(StdFile::Stdin),
            TokKind::Kw(Kw::Stdout) => ExprKind::StdFile(StdFile::Stdout),
            TokKind::Kw(Kw::Stderr) => ExprKind::StdFile(StdFile::Stderr),
            TokKind::Punct(Punct::LParen) => return self.paren_or_constructor(),
            TokKind::Kw(k @ (Kw::New | Kw::Low | Kw::High)) => {
                self.bump();
                self.expect(Punct::LParen)?;
                // Expressions inside the type (bounds) count toward this node's height.
                let saved = std::mem::replace(&mut self.peak, 0);
                let ty = self.type_();
                let inner = std::mem::replace(&mut self.peak, saved);
                self.peak = self.peak.max(inner);
                let ty = Box::new(ty?);
                self.expect(Punct::RParen)?;
                let kind = match k {
                    Kw::New => ExprKind::New(ty),
                    Kw::Low => ExprKind::Low(ty),
                    _ => ExprKind::High(ty),
                };
                return self.node(kind, t.span.to(self.prev_span()), inner);
            }
            TokKind::Kw(Kw::Create) => return self.create_expr(),
            TokKind::Kw(k) if is_simple_type_kw(k) && *self.nth(1) == TokKind::Punct(Punct::LParen) => {
                let kind = match k {
                    Kw::Bool => TypeKind::Bool,
                    Kw::Int => TypeKind::Int,
                    Kw::Char => TypeKind::Char,
                    Kw::Real => TypeKind::Real,
                    Kw::Double => TypeKind::Double,
                    Kw::String => TypeKind::String(None),
                    _ => TypeKind::File,
                };
                ExprKind::Type(Box::new(Type { kind, span: t.span }))
            }
            _ => return Err(self.unexpected("an expression")),
        };
        self.bump();
        self.node(kind, t.span, 0)
    }

    /// paren_or_constructor = "(" elem { "," elem } ")"     elem = [ "[" expr "]" ] expr
    /// One element without a repetition count is a parenthesised expression.
    fn paren_or_constructor(&mut self) -> PResult<Expr> {
        let lo = self.expect(Punct::LParen)?;
        let mut elems = Vec::new();
        let mut hm = 0;
        loop {
            let elo = self.span();
            let count = if self.eat(Punct::LBracket) {
                let c = self.expr_no_assign()?;
                hm = hm.max(self.h);
                self.expect(Punct::RBracket)?;
                Some(c)
            } else {
                None
            };
            let value = self.expr()?;
            hm = hm.max(self.h);
            elems.push(ArrayElem { count, value, span: elo.to(self.prev_span()) });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        let hi = self.expect(Punct::RParen)?;
        let span = lo.to(hi);
        if elems.len() == 1 && elems[0].count.is_none() {
            let inner = elems.pop().map(|e| e.value).ok_or(Reported)?;
            return self.node(ExprKind::Paren(Box::new(inner)), span, hm);
        }
        self.node(ExprKind::ArrayCons(elems), span, hm)
    }

    /// create = "create" ( "vm" "(" ")" | qual_name args ) [ "on" expr ]
    fn create_expr(&mut self) -> PResult<Expr> {
        let lo = self.bump().span;
        let target = if self.at_kw(Kw::Vm) {
            CreateTarget::Vm(self.bump().span)
        } else {
            CreateTarget::Resource(self.qual_name()?)
        };
        let args = self.args()?;
        let mut hm = self.h;
        if let (CreateTarget::Vm(_), false) = (&target, args.is_empty()) {
            let sp = args[0].span.to(args[args.len() - 1].span);
            self.error(sp, "no arguments allowed in 'create vm()'");
        }
        let on = if self.eat_kw(Kw::On) {
            let e = self.expr_no_assign()?;
            hm = hm.max(self.h);
            Some(Box::new(e))
        } else {
            None
        };
        self.node(ExprKind::Create { target, args, on }, lo.to(self.prev_span()), hm)
    }
}
