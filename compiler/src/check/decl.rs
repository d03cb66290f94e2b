//! decl: declarations -- imports, constants, variables, types, ops, externals, final.
use super::konst::KV;
use super::scope::{PSig, ProcSig, Sym};
use super::types::Ty;
use super::typexpr::Tyx;
use super::{Checker, Form, RetInfo, V};
use crate::emit::{component, names, var, Code};
use crate::syntax::ast::{self, DeclKind, ParamMode, TypeKind};
use std::rc::Rc;

impl<'a> Checker<'a> {
    // ---- declarations --------------------------------------------------------

    /// A declaration (import, variable, type, op, proc, optype, final...).
    pub fn decl(&mut self, d: &ast::Decl) {
        match &d.kind {
            DeclKind::Import { names: ns, extend } => self.import_decl(ns, *extend, d.span),
            DeclKind::Var(v) => self.var_decl(v, d.span),
            DeclKind::Type { name, ty } => self.type_decl(name, ty),
            DeclKind::Op(op) | DeclKind::External(op) => {
                self.op_decl(op, d.span, matches!(d.kind, DeclKind::External(_)))
            }
            DeclKind::Proc(p) => self.proc_decl(p),
            DeclKind::Sem(items) => self.sem_decl(items),
            DeclKind::Optype { name, sig } => self.optype_decl(name, sig, d.span),
            DeclKind::Final(b) => self.final_decl(b, d.span),
        }
    }

    /// An `import` or `extend` of components `ns`.
    fn import_decl(&mut self, ns: &[ast::Ident], extend: bool, span: ast::Span) {
        if extend && self.global {
            self.error(span, "`extend' is not allowed in a global (a global has no ops to extend)");
            return;
        }
        if extend && !self.in_spec {
            // the extended ops become part of the resource's interface, which
            // only its spec gives (MPD 1.0.1 and SR 2.3.3 alike)
            self.error(span, "extend is not allowed in component body (write it in the resource's spec)");
            return;
        }
        for n in ns {
            match self.ifaces.get(&n.name) {
                Some(i) if extend && i.global => {
                    self.error(n.span, format!("cannot extend a global ({} is one: import it)", n.name));
                }
                Some(_) => self.import_comp(n, extend),
                None => {
                    self.error(n.span, format!("can't open spec file {}.spec (no such component compiled)", n.name))
                }
            }
        }
    }

    /// An imported (or extended) component `n` whose interface is known: its global,
    /// its name, and its members visible unqualified.
    fn import_comp(&mut self, n: &ast::Ident, extend: bool) {
        self.imported_enum_clash(n);
        let i = &self.ifaces[&n.name];
        let g = i.global;
        let mut syms = i.syms.clone();
        if g {
            let f = names::global_field(&n.name);
            if !self.imported_globals.contains(&n.name) {
                self.imported_globals.push(n.name.clone());
                self.out.fields.push_str(&component::global_ptr_field(&f));
            }
            // the first import executed on this vm creates the global
            // and runs its initial code; every import statement may be
            // that first one (one in a procedure runs when it is called)
            let p = self.pos(n.span);
            self.f.code.put(&component::import_global(&f, &p, &names::global_struct(&n.name)));
        }
        if extend && !g {
            self.extend_ops(n, &mut syms);
        }
        // a name already visible here (a procedure or variable called
        // like the component) keeps its meaning; the members still
        // come in (MPD 1.0.1)
        match self.lookup(&n.name) {
            None => self.declare(n, Sym::Comp(n.name.clone())),
            // a procedure declared after the import clashes with it
            Some(Sym::PendingProc(p)) if p.name.span.file == n.span.file && p.name.span.lo > n.span.lo => {
                let at = p.name.span;
                self.error(at, format!("`{}` is already declared in this scope (imported above)", n.name));
            }
            Some(_) => {}
        }
        // imported names are visible unqualified too, in the outermost
        // scope so that the component's own declarations shadow them
        // (extend: they are part of this spec and exported again)
        let again: Vec<String> = if extend && !g {
            i.consts
                .iter()
                .flat_map(|d| match &d.kind {
                    DeclKind::Var(v) => v.vars.iter().map(|x| x.name.name.clone()).collect(),
                    _ => vec![],
                })
                .collect()
        } else {
            vec![]
        };
        let consts = i.consts.clone();
        for (k, s) in syms {
            if extend {
                if !again.contains(&k) {
                    self.top_scope().map.entry(k).or_insert(s);
                }
            } else if !matches!(s, Sym::Comp(_)) {
                // imports are not transitive: a component the imported
                // spec imports is not named here unless imported here too
                // (MPD 1.0.1 and SR 2.3.3: "undefined identifier")
                let comp = n.name.clone();
                self.top_scope().imported.entry(k).or_default().push((comp, s));
            }
        }
        if !again.is_empty() {
            // the extended spec's constants, evaluated here
            for d in &consts {
                self.decl(d);
            }
        }
    }

    /// `extend n`: the extended spec's ops (`syms`, sorted here by op index) become
    /// ops of this resource.
    fn extend_ops(&mut self, n: &ast::Ident, syms: &mut Vec<(String, Sym)>) {
        syms.sort_by_key(|(_, s)| match s {
            Sym::Proc(p) => p.op.as_ref().map(|r| r.idx).unwrap_or(u32::MAX),
            _ => u32::MAX,
        });
        for (k, s) in syms.iter() {
            if let Sym::Proc(sig) = s {
                if let Some(r) = &sig.op {
                    if r.local.is_none() && !r.sem && self.scopes.last().unwrap().map.contains_key(k) {
                        // an op of that name is already here (declared, or from another extend)
                        self.error(
                            n.span,
                            format!(
                                "duplicate identifier: {} (extending {} brings a second op of that name)",
                                k, n.name
                            ),
                        );
                    } else if r.local.is_none() && !r.sem {
                        let ident = ast::Ident { name: k.clone(), span: n.span };
                        self.own_op(&ident, sig.params.clone(), sig.ret.clone(), sig.ret_name.clone(), r.inv.clone());
                    }
                }
            }
        }
    }

    /// A type declaration `type name = ty` (records and enumerations take the name).
    fn type_decl(&mut self, name: &ast::Ident, ty: &ast::Type) {
        if let Some(k) = self.star_in(ty, &[]) {
            self.star_types.insert(name.name.clone(), k);
        }
        if let TypeKind::Rec(fields) = &ty.kind {
            let i = self.types.recs.len();
            self.types.recs.push(super::types::RecInfo { name: name.name.clone(), fields: vec![], size: 16 });
            self.declare(name, Sym::Type(Ty::Rec(i)));
            self.rec_type(fields, Some(i), ty.span);
            return;
        }
        self.unfolded = None;
        let t = self.ty(ty);
        // a type whose bounds MPD 1.0.1 does not fold may not size a record field
        if let Some(noted) = self.unfolded.take() {
            self.unfolded_types.insert(name.name.clone(), noted);
        }
        let t = match (t, &ty.kind) {
            (Ty::Enum(e), _) => {
                self.types.enums[e].name = name.name.clone();
                Ty::Enum(e)
            }
            (Ty::Rec(r), _) => {
                self.types.recs[r].name = name.name.clone();
                Ty::Rec(r)
            }
            (t, _) => t,
        };
        self.declare(name, Sym::Type(t));
    }

    /// An `optype` declaration: the invocation block and signature of its ops.
    fn optype_decl(&mut self, name: &ast::Ident, sig: &ast::OpSig, span: ast::Span) {
        let (ps, rt, restr) = match sig {
            ast::OpSig::Explicit { params, returns, restriction, .. } => {
                self.heading_names_distinct(params, returns.as_ref());
                let (ps, rt, _) = self.heading(params, returns.as_ref());
                (ps, rt, *restriction)
            }
            ast::OpSig::Optype(q) => {
                self.error(q.span, "an optype is defined by a parameter list");
                return;
            }
        };
        let inv = crate::emit::ops::inv_name(&self.comp, &name.name);
        self.inv_struct(&inv, &ps, &rt, span);
        let k = self.register_sig_r(&ps, &rt, &inv, restr);
        self.declare(name, Sym::Optype(k));
    }

    /// The component's `final` code, kept for its finalization function.
    fn final_decl(&mut self, b: &ast::Block, span: ast::Span) {
        if !self.at_top {
            self.error(span, "`final` belongs at the top level of a component body");
            return;
        }
        if self.out.final_body.is_some() {
            self.error(span, "duplicate `final' code");
            return;
        }
        let saved = std::mem::replace(&mut self.f.code, Code::new(&self.file_name, self.opts.lines));
        self.at_top = false;
        self.f.code.put(var::TEMPS_DECL);
        // traced: FINAL and ENDFINAL at the line of `final`
        let fp = self.pos(b.stmts.first().map(|s| s.span).unwrap_or(span));
        let endfinal = crate::emit::trace::event(&fp, "ENDFINAL", "0");
        self.f.code.put(&crate::emit::trace::event(&fp, "FINAL", "0"));
        let saved_ret = self.f.ret.replace(RetInfo { stmt: component::final_return(&endfinal) });
        let saved_kind = std::mem::take(&mut self.f.kind);
        self.in_final = true;
        self.block(b);
        self.in_final = false;
        self.f.kind = saved_kind;
        self.f.code.put(&endfinal);
        self.f.code.put(var::TEMPS_FREE);
        self.f.ret = saved_ret;
        self.at_top = true;
        let body = std::mem::replace(&mut self.f.code, saved).take();
        self.out.final_body = Some(body);
    }

    /// A variable or constant declaration.
    pub(crate) fn var_decl(&mut self, v: &ast::VarDecl, span: ast::Span) {
        let base = match &v.ty {
            Some(t) => Some(self.tyx(t, true)),
            None => None,
        };
        for item in &v.vars {
            self.var_item(v, item, &base);
        }
        let _ = span;
    }

    /// One declarator `item` of variable declaration `v` (`base`: its declared type).
    fn var_item(&mut self, v: &ast::VarDecl, item: &ast::VarItem, base: &Option<Tyx>) {
        self.f.code.line(self.line(item.span));
        if let Some(t) = &v.ty {
            self.no_stars(t, &item.dims, item.span);
        }
        let named = match (&v.ty, &item.init) {
            (None, Some(e)) => self.untyped_init_names_type(e),
            _ => None,
        };
        let init = if named.is_some() { None } else { item.init.as_ref().map(|e| (self.expr(e), e.span)) };
        if let (None, Some((iv, sp))) = (&v.ty, &init) {
            if !self.untyped_init_has_type(&iv.ty, *sp) {
                self.declare(&item.name, Sym::Var { c: "0".into(), ty: Ty::Error, assignable: true });
                return;
            }
        }
        let mut tx = Self::var_item_tyx(named.as_ref().or(base.as_ref()), &init, item);
        // declarator dims wrap the declared type: int a[1:n] is [1:n] int
        let mut outer = Vec::new();
        for r in &item.dims {
            outer.push(self.range(r, true));
        }
        let mut dims: Vec<(String, String)> = outer.iter().map(|(_, _, l, h)| (l.clone(), h.clone())).collect();
        let ixs: Vec<Ty> = item.dims.iter().map(|r| self.range_type(r)).collect();
        for ((lo, hi, _, _), ix) in outer.iter().zip(ixs).rev() {
            tx.ty = Ty::Arr(Box::new(tx.ty), *lo, *hi, Box::new(ix));
        }
        dims.extend(tx.dims);
        let ty = tx.ty;
        // constants fold when the value is known and scalar/string
        if v.constant && self.var_const(item, &ty, &init) {
            return;
        }
        if ty == Ty::Error && v.ty.is_none() && init.is_none() {
            return;
        }
        self.bind_dims(&mut dims, item.span);
        let mut init = init;
        let (strlen_of_init, copy_init) = self.var_sized_by_init(v, item, &ty, &mut init);
        let strlen = match strlen_of_init.or(tx.strlen) {
            Some(s) if s.parse::<i64>().is_err() => {
                let t = self.tmp();
                self.f.code.put(&var::local_int(&t, &s));
                Some(t)
            }
            s => s,
        };
        let c = if self.at_top {
            self.field_decl(&item.name.name, &ty)
        } else {
            let cn = names::var_n(&item.name.name, self.fresh);
            self.fresh += 1;
            if ty.is_blob() {
                self.f.code.put(&var::local_blob(&cn));
            } else {
                self.f.code.put(&var::local_scalar(&ty, &cn));
            }
            cn
        };
        if let Some((t, kind)) = &copy_init {
            let size = var::blob_size_of(t, kind);
            self.f.code.put(&var::blob_alloc(&c, &size, self.at_top));
            self.f.code.put(&var::blob_copy(&c, t, &size));
            init = None;
            self.flush_tmps();
        } else if ty.is_blob() {
            let size = self.size_c(&ty, &dims, &strlen);
            self.f.code.put(&var::blob_alloc(&c, &size, self.at_top));
            let c2 = c.clone();
            self.init_blob(&c2, &ty, &dims, &strlen);
        }
        let var = V {
            c: c.clone(),
            ty: ty.clone(),
            form: if ty.is_blob() { Form::Blob } else { Form::Scalar },
            k: None,
            lv: true,
            slice: None,
        };
        if let Some((iv, sp)) = init {
            self.with_mismatch("incompatible initialization".into(), |c| c.assign_into(&var, iv, sp));
            self.flush_tmps();
        }
        self.declare(&item.name, Sym::Var { c, ty, assignable: !v.constant });
    }

    /// The type of declarator `item` before its own dims: the declared one, else its
    /// initializer's.
    fn var_item_tyx(base: Option<&Tyx>, init: &Option<(V, ast::Span)>, item: &ast::VarItem) -> Tyx {
        match base {
            Some(b) => Tyx { ty: b.ty.clone(), dims: b.dims.clone(), strlen: b.strlen.clone() },
            None => match &init {
                // SR's `var a[1:n] := ([n] false)`: the dimensions are the
                // initializer's own, so the element type is what is left
                Some((iv, _)) if !item.dims.is_empty() => {
                    let mut t = iv.ty.clone();
                    for _ in &item.dims {
                        if let Ty::Arr(e, ..) = t {
                            t = *e;
                        }
                    }
                    Tyx { ty: t, dims: vec![], strlen: None }
                }
                Some((iv, _)) => Tyx { ty: iv.ty.clone(), dims: vec![], strlen: None },
                None => Tyx { ty: Ty::Error, dims: vec![], strlen: None },
            },
        }
    }

    /// A constant declarator whose value is known: declares it as a constant (true),
    /// or reports a missing value; false when it is stored like a variable.
    fn var_const(&mut self, item: &ast::VarItem, ty: &Ty, init: &Option<(V, ast::Span)>) -> bool {
        if let Some((iv, sp)) = &init {
            if let Some(k) = iv.k.clone() {
                if ty.is_scalar() || matches!(k, KV::Str(_)) && matches!(ty, Ty::Str(_) | Ty::Error) {
                    let ty2 = if *ty == Ty::Error { iv.ty.clone() } else { ty.clone() };
                    let k = match (&ty2, k) {
                        (Ty::Real, KV::Int(n)) => KV::Real(n as f64),
                        (_, k) => k,
                    };
                    if !self.types.assignable(&ty2, &iv.ty) && !(ty2 == Ty::Real && iv.ty == Ty::Int) {
                        self.error(
                            *sp,
                            format!("cannot initialize a {} with a {}", self.types.show(&ty2), self.types.show(&iv.ty)),
                        );
                    }
                    let folds = item.init.as_ref().map_or(false, |e| self.mpd_folds(e));
                    self.declare(&item.name, Sym::Const { v: k, ty: ty2, folds });
                    return true;
                }
            }
        } else {
            self.error(item.span, "a constant needs a value");
        }
        false
    }

    /// SR's `var s := e` with no type: a string or array whose size is known
    /// only at run time takes it from the value (a view gives the length, a
    /// blob is copied whole, headers and all): (its length, the copy and its kind).
    fn var_sized_by_init(
        &mut self,
        v: &ast::VarDecl,
        item: &ast::VarItem,
        ty: &Ty,
        init: &mut Option<(V, ast::Span)>,
    ) -> (Option<String>, Option<(String, &'static str)>) {
        let mut strlen_of_init: Option<String> = None;
        let mut copy_init: Option<(String, &'static str)> = None;
        if v.ty.is_none() && item.dims.is_empty() && ty.is_blob() && self.types.size_of(ty).is_none() {
            if let Some((iv, _)) = init {
                let t = self.tmp();
                match iv.form {
                    Form::View if matches!(ty, Ty::Str(_)) => {
                        self.f.code.put(&var::view_local(&t, &iv.c));
                        strlen_of_init = Some(var::view_len(&t));
                        iv.c = t;
                    }
                    Form::Blob => {
                        self.f.code.put(&var::local_blob_init(&t, &iv.c));
                        let kind = component::blob_kind(ty).unwrap_or("0");
                        copy_init = Some((t, kind));
                    }
                    _ => {}
                }
            }
        }
        (strlen_of_init, copy_init)
    }

    /// The parameters and the result of an op or external heading have
    /// distinct names (MPD 1.0.1: "duplicate identifier"); so do an
    /// optype's and a `cap (...)` or `new(op (...))` type's.
    pub(super) fn heading_names_distinct(&mut self, params: &[ast::Param], ret: Option<&ast::ReturnSpec>) {
        let mut seen = std::collections::HashSet::new();
        let names =
            params.iter().flat_map(|p| p.names.iter().map(|n| &n.name)).chain(ret.and_then(|r| r.name.as_ref()));
        for id in names {
            if !id.name.is_empty() && !seen.insert(id.name.clone()) {
                self.error(id.span, format!("duplicate identifier: {}", id.name));
            }
        }
    }

    /// Declares an op; an op whose body is a `proc` is called like a procedure.
    pub(crate) fn op_decl(&mut self, op: &ast::OpDecl, span: ast::Span, external: bool) {
        let (params, ret, ret_name, sig_idx) = match &op.sig {
            ast::OpSig::Explicit { params, returns, restriction, .. } => {
                // `op links(cap links n)`: the op's own name may appear as a cap type
                let reserved: Vec<usize> = op
                    .names
                    .iter()
                    .map(|n| {
                        self.register_sig_r(
                            &[],
                            &Ty::Void,
                            &crate::emit::ops::inv_name(&self.comp, &n.name.name),
                            *restriction,
                        )
                    })
                    .collect();
                self.push();
                for (n, k) in op.names.iter().zip(&reserved) {
                    self.declare(&n.name, Sym::Type(Ty::Cap(super::types::CapTy::Op(*k))));
                }
                let (ps, rt, rn) = self.heading(params, returns.as_ref());
                self.pop();
                self.heading_names_distinct(params, returns.as_ref());
                for k in reserved {
                    self.types.sigs[k].params = ps.clone();
                    self.types.sigs[k].ret = rt.clone();
                }
                (ps, rt, rn, None)
            }
            ast::OpSig::Optype(q) => {
                let shown = &q.parts.last().unwrap().name;
                let named = if q.parts.len() == 2 {
                    self.qualified(&q.parts[0], &q.parts[1])
                } else {
                    self.lookup(shown).cloned()
                };
                // a variable, op, ... named where an optype belongs (MPD 1.0.1's words)
                let ty = match named {
                    Some(Sym::Var { .. } | Sym::Const { .. } | Sym::Proc(_) | Sym::EnumLit { .. }) => Ty::Void,
                    _ => self.optype_named(q),
                };
                match ty {
                    Ty::Cap(super::types::CapTy::Op(k)) => {
                        let si = self.types.sigs[k].clone();
                        (si.params, si.ret, None, Some(k))
                    }
                    Ty::Error => return,
                    _ => {
                        self.error(q.span, format!("`{}' is not an optype", shown));
                        return;
                    }
                }
            }
        };
        if !external {
            self.declare_ops(op, params, ret, ret_name, sig_idx, span);
            return;
        }
        if !self.external_ok(op, &params, &ret, span) {
            return;
        }
        for n in &op.names {
            let sig = ProcSig {
                name: n.name.name.clone(),
                cname: names::external(&n.name.name),
                params: params.clone(),
                ret: ret.clone(),
                ret_name: ret_name.clone(),
                selfc: self.self_arg(),
                external: true,
                op: None,
            };
            self.out.protos.push_str(&self.external_proto(&sig));
            self.declare(&n.name, Sym::Proc(Rc::new(sig)));
        }
    }

    /// MPD 1.0.1's rules for `external` (a C function called in place): at
    /// resource level, one function (no subscripts, no restriction), and
    /// parameter and result types that C can take.  A var/res scalar is
    /// passed by value (C cannot return it: MPD warns).
    pub(crate) fn external_ok(&mut self, op: &ast::OpDecl, params: &[PSig], ret: &Ty, span: ast::Span) -> bool {
        let name = &op.names[0].name.name;
        if !self.at_top {
            self.error(span, format!("external must be declared at resource level (external {})", name));
            return false;
        }
        if let Some(n) = op.names.iter().find(|n| !n.dims.is_empty()) {
            self.error(n.span, format!("no subscripts allowed on external {}", n.name.name));
            return false;
        }
        if let ast::OpSig::Explicit { restriction: Some(r), .. } = &op.sig {
            self.error(r.span, format!("no restrictions allowed on external {}", name));
            return false;
        }
        let mut ok = true;
        for (i, p) in params.iter().enumerate() {
            let scalar_c = matches!(
                p.ty,
                Ty::Bool | Ty::Char | Ty::Int | Ty::Enum(_) | Ty::Real | Ty::Ptr(_) | Ty::PtrAny | Ty::File
            );
            let fits = scalar_c || matches!(p.ty, Ty::Str(_) | Ty::Arr(..) | Ty::Rec(_) | Ty::Error);
            if !fits {
                self.error(
                    span,
                    format!(
                        "illegal parameter type for external: {}(), parameter {} is a {}",
                        name,
                        i + 1,
                        self.types.show(&p.ty)
                    ),
                );
                ok = false;
            } else if scalar_c && matches!(p.mode, ParamMode::Var | ParamMode::Res) {
                self.diags.warning(span, format!("{}(), parameter {}: type precludes returning a result", name, i + 1));
            }
        }
        let ret_ok = matches!(
            ret,
            Ty::Void
                | Ty::Bool
                | Ty::Char
                | Ty::Int
                | Ty::Enum(_)
                | Ty::Real
                | Ty::Ptr(_)
                | Ty::PtrAny
                | Ty::Str(_)
                | Ty::File
                | Ty::Error
        );
        if !ret_ok {
            self.error(
                span,
                format!("illegal return type for external: {}() cannot return a {}", name, self.types.show(ret)),
            );
            ok = false;
        }
        ok
    }

    /// The C prototype of an external op (emit::component::external_proto).
    pub(crate) fn external_proto(&self, s: &ProcSig) -> String {
        // only `ref` passes a scalar's address (var/res pass its value)
        let ps: Vec<component::CParam> =
            s.params.iter().map(|p| component::CParam { ty: &p.ty, byref: p.mode == ParamMode::Ref }).collect();
        component::external_proto(&s.cname, &s.name, &s.ret, &ps)
    }
}
