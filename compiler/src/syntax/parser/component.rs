//! Parser: source files and components (resources, globals, separate bodies).

use super::{PResult, Parser, Reported};
use crate::syntax::ast::*;
use crate::syntax::token::{Kw, Punct, TokKind};

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── files and components ─────────────

    /// file = { SEP | component } EOF
    pub(super) fn source_file(&mut self) -> SourceFile {
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
    pub(super) fn skip_component(&mut self) {
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
    pub(super) fn component(&mut self) -> PResult<Component> {
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
            let body =
                Body { name: name.clone(), params, items, separate: false, span: body_start.to(self.prev_span()) };
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
            (ComponentKind::Global, Some(p)) if !p.is_empty() => {
                self.error(body_name.span, "a global cannot have a parameter list")
            }
            (ComponentKind::Resource, None) => self.error(body_name.span, "missing parameter list for resource"),
            _ => {}
        }
        if self.eat_kw(Kw::Separate) {
            let body =
                Body { name: body_name, params, items: Vec::new(), separate: true, span: body_kw.to(self.prev_span()) };
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
    pub(super) fn component_end(&mut self, name: &Ident) -> PResult<Option<Ident>> {
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
    pub(super) fn opt_params(&mut self) -> PResult<Option<Vec<Param>>> {
        if self.at(Punct::LParen) {
            Ok(Some(self.params()?))
        } else {
            Ok(None)
        }
    }

    /// items = { SEP | stmt } — until `end`, `body` or EOF. A stray closer (`}`, `ni`,
    /// `oc`, `[]`, `//`) is reported and skipped so the rest of the component is checked.
    pub(super) fn item_list(&mut self) -> Vec<Stmt> {
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
}
