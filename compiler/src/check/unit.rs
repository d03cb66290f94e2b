//! unit: checking one component -- its spec, then its body -- and what it
//! exports to the components that import it (the interface).
use super::scope::Sym;
use super::{spec_order, stmt, Checker, CompOut, Iface};
use crate::emit::Code;
use crate::syntax::ast;

impl Checker<'_> {
    /// Checks one component and returns its C translation unit (None on errors).
    pub fn component(&mut self, c: &ast::Component, file_name: &str) -> Option<(CompOut, Iface)> {
        let errors_before = self.diags.error_count();
        self.names_changed();
        self.comp = c.name.name.clone();
        self.file_name = file_name.to_string();
        self.global = c.kind == ast::ComponentKind::Global;
        self.f.code = Code::new(file_name, self.opts.lines);
        self.trace_pos = self.pos(c.name.span);
        self.push();
        self.spec_depth = self.scopes.len();
        self.names_changed();
        self.comp_sym = Some(Sym::Comp(self.comp.clone()));
        self.body_procs(c);
        let order = self.spec_part(c);
        self.register_res_ops();
        if let Some(body) = &c.body {
            self.body_part(c, body);
        }
        self.unimplemented_ops();
        self.undefined_fwd_types();
        self.pop();
        self.spec_depth = 0;
        self.names_changed();
        self.comp_sym = None;
        self.at_top = false;
        if self.diags.error_count() > errors_before && !self.lenient {
            return None;
        }
        let (c_text, header) = self.finish_component();
        let iface = self.iface(c, header, order);
        Some((CompOut { name: self.comp.clone(), global: self.global, c: c_text }, iface))
    }

    /// The procs of the body, before anything is checked: the ops they
    /// implement are procs, one body per op (a second one would define its C
    /// function twice), and which of them reply early.
    fn body_procs(&mut self, c: &ast::Component) {
        let Some(body) = &c.body else { return };
        for it in &body.items {
            if let ast::StmtKind::Decl(ast::Decl { kind: ast::DeclKind::Proc(p), .. }) = &it.kind {
                self.proc_bodies.insert(p.name.name.clone(), p.body.stmts.clone());
                if !self.proc_names.insert(p.name.name.clone()) {
                    self.error(p.name.span, format!("duplicate implementation of {}", p.name.name));
                }
                if stmt::has_reply(&p.body.stmts) {
                    self.names_changed();
                    self.replying.insert(p.name.name.clone());
                }
            }
        }
    }

    /// The spec portion: the exported declarations, in order, recording which
    /// item declared each name and where the imports are (spec_order.rs).
    fn spec_part(&mut self, c: &ast::Component) -> spec_order::SpecOrder {
        self.at_top = true;
        let mut order = spec_order::SpecOrder::default();
        for (idx, s) in c.spec.iter().enumerate() {
            self.spec_item = idx;
            order.items.push(s.span);
            if let ast::StmtKind::Decl(ast::Decl { kind: ast::DeclKind::Import { names, .. }, .. }) = &s.kind {
                order.imports.push((idx, names.iter().map(|n| n.name.clone()).collect()));
            }
            let before: std::collections::HashSet<String> = self.scopes.last().unwrap().map.keys().cloned().collect();
            self.spec_item_decl(s);
            for k in self.scopes.last().unwrap().map.keys() {
                if !before.contains(k) {
                    order.decls.insert(k.clone(), idx);
                }
            }
        }
        order.uses = std::mem::take(&mut *self.spec_uses.borrow_mut());
        self.out.spec_nops = self.out.nops;
        // `r.x` inside r now reads the exports (typexpr.rs's `qualified`)
        self.names_changed();
        self.exports = self.scopes.last().unwrap().map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        order
    }

    /// The body: its parameters, then its items, procedures declared first
    /// since they may be called before their text.
    fn body_part(&mut self, c: &ast::Component, body: &ast::Body) {
        // the parameters of a `body r(...)` after a spec have a scope of their
        // own: they may hide the spec's names (MPD 1.0.1); those of
        // `resource r(...)` share the component's
        let own_scope = c.form != ast::ComponentForm::Simple;
        if own_scope {
            self.push();
        }
        // `body r(...) separate`: the body comes later; until then r has an empty one
        if let Some(ps) = &body.params {
            if !ps.is_empty() {
                if self.global {
                    self.error(body.span, "a global cannot have a parameter list");
                } else {
                    self.resource_params(ps);
                }
            }
        }
        self.push();
        self.body_depth = Some(self.scopes.len());
        for it in &body.items {
            if let ast::StmtKind::Decl(ast::Decl { kind: ast::DeclKind::Proc(p), .. }) = &it.kind {
                self.predeclare_proc(p);
            }
        }
        for it in &body.items {
            self.stmt(it);
        }
        self.body_depth = None;
        self.pop();
        if own_scope {
            self.pop();
        }
    }

    /// What importers see of the component: its exported names, constants,
    /// imports, parameters and its C header.
    fn iface(&self, c: &ast::Component, header: String, order: spec_order::SpecOrder) -> Iface {
        let consts = c
            .spec
            .iter()
            .filter_map(|st| match &st.kind {
                ast::StmtKind::Decl(d) if matches!(&d.kind, ast::DeclKind::Var(v) if v.constant) => Some(d.clone()),
                _ => None,
            })
            .collect();
        let imports = c
            .spec
            .iter()
            .flat_map(|st| match &st.kind {
                ast::StmtKind::Decl(ast::Decl { kind: ast::DeclKind::Import { names, .. }, .. }) => {
                    names.iter().map(|n| n.name.clone()).collect()
                }
                _ => vec![],
            })
            .collect();
        Iface {
            syms: self.exports.clone(),
            global: self.global,
            header,
            params: self.res_params.clone(),
            consts,
            imports,
            order,
        }
    }
}
