//! decl: types, variables, constants, type and procedure declarations.
use super::konst::KV;
use super::scope::{PSig, ProcSig, Sym};
use super::types::{Ty, ARR_HDR};
use super::{Checker, Form, RetInfo, V};
use crate::emit::{component, names, var, Code};
use crate::syntax::ast::{self, Bound, DeclKind, ParamMode, ProcKind, Range, TypeKind};
use std::rc::Rc;

/// A type elaborated for a declaration: C expressions for every array level's
/// bounds (outermost first) and the length of a string whose length is dynamic.
pub struct Tyx {
    pub ty: Ty,
    pub dims: Vec<(String, String)>,
    pub strlen: Option<String>,
}

impl<'a> Checker<'a> {
    /// A type where every size must be known at compile time (or be `*`).
    pub fn ty(&mut self, t: &ast::Type) -> Ty {
        self.tyx(t, false).ty
    }

    fn const_bound(&mut self, b: &Bound, dyn_ok: bool, string: bool) -> (Option<i64>, String) {
        match b {
            Bound::Star(_) => (None, "0".into()),
            Bound::Expr(e) => {
                let v = self.expr(e);
                let v = self.ordinal_value(v, e.span, if string { "maxlength is not an integer" } else { "illegal bounds type" });
                match v.k {
                    Some(KV::Int(n)) => (Some(n), n.to_string()),
                    Some(KV::Char(n)) => (Some(n as i64), n.to_string()),
                    Some(KV::Bool(n)) => (Some(n as i64), (n as i64).to_string()),
                    _ => {
                        if !dyn_ok {
                            // MPD 1.0.1's words; here: a type, a record, a spec or a parameter
                            let what = if string { "string length" } else { "array bounds" };
                            self.error(e.span, format!("non-constant {} in spec or record", what));
                        }
                        (None, format!("({})", v.c))
                    }
                }
            }
        }
    }

    /// A range `[lo:hi]`, `[n]` (1:n), `[*]`, or `[enumtype]`.
    pub(crate) fn range(&mut self, r: &Range, dyn_ok: bool) -> (Option<i64>, Option<i64>, String, String) {
        if r.lo.is_none() {
            if let Bound::Expr(ast::Expr { kind: ast::ExprKind::Ident(id), .. }) = &r.hi {
                if let Some(Sym::Type(t)) = self.lookup(&id.name).cloned() {
                    return match t {
                        Ty::Enum(e) => {
                            let n = self.types.enums[e].lits.len() as i64;
                            (Some(0), Some(n - 1), "0".into(), (n - 1).to_string())
                        }
                        Ty::Bool => (Some(0), Some(1), "0".into(), "1".into()),
                        Ty::Char => (Some(0), Some(255), "0".into(), "255".into()),
                        _ => {
                            self.error(id.span, "an array range type must be an enumeration, bool or char");
                            (Some(1), Some(1), "1".into(), "1".into())
                        }
                    };
                }
            }
        }
        if !self.range_bound_types(r) {
            return (Some(1), Some(1), "1".into(), "1".into());
        }
        let (lo, loc) = match &r.lo {
            None => (Some(1), "1".to_string()),
            Some(b) => self.const_bound(b, dyn_ok, false),
        };
        let (hi, hic) = self.const_bound(&r.hi, dyn_ok, false);
        (lo, hi, loc, hic)
    }

    /// The two bounds of a range have one type, and a single bound `[n]`
    /// (1 to n) is an int (MPD: "incompatible bounds", "single bound is not
    /// integer").
    /// Returns false when it reported an error.
    fn range_bound_types(&mut self, r: &Range) -> bool {
        match (&r.lo, &r.hi) {
            (Some(Bound::Expr(a)), Bound::Expr(b)) => {
                let (x, y) = (self.probe(a).ty, self.probe(b).ty);
                if x != Ty::Error && y != Ty::Error && !self.types.same(&x, &y) {
                    self.error(b.span, format!("incompatible bounds: the lower bound is {}, the upper {}", self.types.show(&x), self.types.show(&y)));
                    return false;
                }
            }
            (None, Bound::Expr(b)) => {
                let y = self.probe(b).ty;
                if y != Ty::Int && y != Ty::Error {
                    self.error(b.span, format!("single bound is not integer: [n] means 1 to n, so n is an int, not {}", self.types.show(&y)));
                    return false;
                }
            }
            _ => {}
        }
        true
    }

    /// The type of the values of a range (int, char, bool or an enumeration).
    pub(crate) fn range_type(&mut self, r: &Range) -> Ty {
        let e = match (&r.lo, &r.hi) {
            (Some(Bound::Expr(e)), _) => e,
            (None, Bound::Expr(e)) => {
                if let ast::ExprKind::Ident(id) = &e.kind {
                    if let Some(Sym::Type(t)) = self.lookup(&id.name).cloned() {
                        return t;
                    }
                }
                return Ty::Int;
            }
            _ => return Ty::Int,
        };
        let saved = self.code.out.len();
        let mut scratch = crate::syntax::Diagnostics::new();
        std::mem::swap(self.diags, &mut scratch);
        let v = self.expr(e);
        std::mem::swap(self.diags, &mut scratch);
        self.code.out.truncate(saved);
        v.ty
    }

    /// Elaborates a type; with `dyn_ok`, bounds may be run-time expressions.
    pub fn tyx(&mut self, t: &ast::Type, dyn_ok: bool) -> Tyx {
        let mut dims = Vec::new();
        let mut strlen = None;
        let ty = match &t.kind {
            TypeKind::Bool => Ty::Bool,
            TypeKind::Int => Ty::Int,
            TypeKind::Char => Ty::Char,
            TypeKind::Real | TypeKind::Double => Ty::Real,
            TypeKind::File => Ty::File,
            TypeKind::String(None) => Ty::Str(None),
            TypeKind::String(Some(b)) => {
                if let Bound::Expr(e) = b {
                    let lt = self.probe(e).ty;
                    if lt != Ty::Int && lt != Ty::Error {
                        self.error(e.span, format!("maxlength is not an integer ({})", self.types.show(&lt)));
                    }
                }
                let (n, c) = self.const_bound(b, dyn_ok, true);
                if n.is_none() && matches!(b, Bound::Expr(_)) {
                    strlen = Some(c);
                }
                if let Some(n) = n {
                    if n < 0 {
                        self.error(t.span, "a string's maximum length cannot be negative");
                    }
                }
                Ty::Str(n)
            }
            // `new(optype)` makes an op of that signature
            TypeKind::Named(q) if self.in_new => self.optype_named(q),
            TypeKind::Named(q) => self.named_type(q),
            TypeKind::Enum(lits) => {
                let e = self.types.enums.len();
                self.types.enums.push(super::types::EnumInfo {
                    name: "enum".into(),
                    lits: lits.iter().map(|l| l.name.clone()).collect(),
                });
                for (i, l) in lits.iter().enumerate() {
                    // a literal may not hide any visible name, not even a predefined function
                    if self.lookup(&l.name).is_some() || super::builtin::is_predefined(&l.name) {
                        self.error(l.span, format!("enum literal duplicates id `{}'", l.name));
                    }
                    self.declare(l, Sym::EnumLit { e, i: i as i64 });
                }
                Ty::Enum(e)
            }
            TypeKind::Rec(fields) => self.rec_type(fields, None, t.span),
            TypeKind::Ptr(inner) => {
                // `ptr T` may name T before it is complete (linked lists): resolve lazily
                // by using the named type if known, else any.
                if let TypeKind::Named(q) = &inner.kind {
                    if q.parts.len() == 1 && self.lookup(&q.parts[0].name).is_none() && !self.names_a_component(&q.parts[0].name) {
                        self.fwd_types.push(q.parts[0].clone());
                        return Tyx { ty: Ty::Ptr(Box::new(Ty::Fwd(q.parts[0].name.clone()))), dims, strlen };
                    }
                }
                Ty::Ptr(Box::new(star_bounds_dynamic(&self.ty(inner))))
            }
            TypeKind::PtrAny => Ty::PtrAny,
            TypeKind::Sem => Ty::Cap(super::types::CapTy::Sem),
            TypeKind::Op(sig) => match &**sig {
                ast::OpSig::Explicit { params, returns, restriction, .. } => {
                    let ps = self.params(params);
                    let (rt, _) = self.ret_spec(returns.as_ref());
                    self.fresh += 1;
                    let inv = format!("inv_{}_new{}", self.comp, self.fresh);
                    self.inv_struct(&inv, &ps, &rt, t.span);
                    Ty::Cap(super::types::CapTy::Op(self.register_sig_r(&ps, &rt, &inv, *restriction)))
                }
                ast::OpSig::Optype(q) => self.optype_named(q),
            },
            TypeKind::Cap(target) => match target {
                ast::CapTarget::Vm => Ty::Cap(super::types::CapTy::Vm),
                ast::CapTarget::Sem => Ty::Cap(super::types::CapTy::Sem),
                ast::CapTarget::Named(q) => self.cap_named(q),
                ast::CapTarget::Sig(sig) => match &**sig {
                    ast::OpSig::Explicit { params, returns, restriction, .. } => {
                        let ps = self.params(params);
                        let (rt, _) = self.ret_spec(returns.as_ref());
                        self.fresh += 1;
                        let inv = format!("inv_{}_cap{}", self.comp, self.fresh);
                        self.inv_struct(&inv, &ps, &rt, t.span);
                        Ty::Cap(super::types::CapTy::Op(self.register_sig_r(&ps, &rt, &inv, *restriction)))
                    }
                    ast::OpSig::Optype(q) => self.optype_named(q),
                },
            },
            TypeKind::Array { ranges, elem } => {
                let inner = self.tyx(elem, dyn_ok);
                let mut ty = inner.ty;
                let mut rs = Vec::new();
                for r in ranges {
                    rs.push(self.range(r, dyn_ok));
                }
                for (lo, hi, _, _) in rs.iter().rev() {
                    ty = Ty::Arr(Box::new(ty), *lo, *hi);
                }
                for (_, _, l, h) in rs {
                    dims.push((l, h));
                }
                dims.extend(inner.dims);
                strlen = inner.strlen;
                ty
            }
        };
        Tyx { ty, dims, strlen }
    }

    /// A record type; `reserved` is the table slot when the type's name
    /// was declared first (so fields may point to it: `rec(int v; ptr node next)`).
    fn rec_type(&mut self, fields: &[ast::Field], reserved: Option<usize>, span: ast::Span) -> Ty {
        let mut fs: Vec<(String, Ty)> = Vec::new();
        for f in fields {
            // a field's size must be known: no `*` bound
            if f.names.iter().any(|n| self.no_stars(&f.ty, &n.dims, f.span)) {
                return Ty::Error;
            }
            let ft = self.ty(&f.ty);
            for n in &f.names {
                let ty = self.with_dims(&ft, &n.dims, false);
                if fs.iter().any(|(x, _)| *x == n.name.name) {
                    self.error(n.name.span, format!("duplicate field `{}`", n.name.name));
                }
                fs.push((n.name.name.clone(), ty));
            }
        }
        if let Some(i) = reserved {
            // a field may point to its own record, not contain it
            if fs.iter().any(|(_, t)| holds_rec(t, i)) {
                self.error(span, "recursively defined record (a field holds the record itself; use a ptr)");
                return Ty::Error;
            }
        }
        match self.types.layout(&fs) {
            Some((fields, size)) => {
                let info = super::types::RecInfo { name: "rec".into(), fields, size };
                let i = match reserved {
                    Some(i) => {
                        let name = std::mem::take(&mut self.types.recs[i].name);
                        self.types.recs[i] = super::types::RecInfo { name, ..info };
                        i
                    }
                    None => {
                        self.types.recs.push(info);
                        self.types.recs.len() - 1
                    }
                };
                Ty::Rec(i)
            }
            None => {
                self.error(span, "record fields must have sizes known at compile time");
                Ty::Error
            }
        }
    }

    /// `cap X`: X names a resource, an optype or an op.
    fn cap_named(&mut self, q: &ast::QualName) -> Ty {
        let last = q.parts.last().unwrap();
        let sym = if q.parts.len() == 2 { self.qualified(&q.parts[0], &q.parts[1]) } else { self.resolve(&last.name) };
        match sym {
            Some(Sym::Type(t @ Ty::Cap(_))) => t,
            Some(Sym::Optype(k)) => Ty::Cap(super::types::CapTy::Op(k)),
            Some(Sym::Proc(sig)) if sig.op.is_some() => {
                let r = sig.op.clone().unwrap();
                if r.sem {
                    Ty::Cap(super::types::CapTy::Sem)
                } else {
                    Ty::Cap(super::types::CapTy::Op(self.op_sig(&sig)))
                }
            }
            Some(Sym::Formal) => {
                self.error(last.span, format!("illegal reference to formal parameter {}", last.name));
                Ty::Error
            }
            _ if q.parts.len() == 1 && self.ifaces.get(&last.name).map_or(false, |i| i.global) => {
                self.error(last.span, format!("illegal object of capability: {} is a global (it has no instances)", last.name));
                Ty::Error
            }
            _ if q.parts.len() == 1 && (self.ifaces.contains_key(&last.name) || last.name == self.comp) => {
                Ty::Cap(super::types::CapTy::Resource(last.name.clone()))
            }
            None if q.parts.len() == 1 && super::builtin::is_predefined(&last.name) => {
                self.error(last.span, format!("illegal object of capability: {} is a predefined function", last.name));
                Ty::Error
            }
            None => {
                self.undefined(last.span, &last.name);
                Ty::Error
            }
            _ => {
                self.error(last.span, format!("illegal object of capability: `{}` is not a resource, optype or operation", last.name));
                Ty::Error
            }
        }
    }

    /// The signature an optype name stands for, as an op capability type.
    pub(crate) fn optype_named(&mut self, q: &ast::QualName) -> Ty {
        let last = q.parts.last().unwrap();
        let sym = if q.parts.len() == 2 { self.qualified(&q.parts[0], &q.parts[1]) } else { self.lookup(&last.name).cloned() };
        match sym {
            Some(Sym::Optype(k)) => Ty::Cap(super::types::CapTy::Op(k)),
            _ => self.named_type(q),
        }
    }

    pub(crate) fn named_type(&mut self, q: &ast::QualName) -> Ty {
        let last = q.parts.last().unwrap();
        let sym = if q.parts.len() == 2 {
            self.qualified(&q.parts[0], &q.parts[1])
        } else {
            self.lookup(&last.name).cloned()
        };
        match sym {
            Some(Sym::Type(t)) => t,
            Some(Sym::Formal) => {
                self.error(last.span, format!("illegal reference to formal parameter {}", last.name));
                Ty::Error
            }
            Some(_) => {
                self.error(last.span, format!("`{}' is not a type", last.name));
                Ty::Error
            }
            None if q.parts.len() == 1 && (last.name == "accessmode" || last.name == "seektype") => {
                Ty::Enum(self.predefined_enum(&last.name))
            }
            None if q.parts.len() == 1 && self.names_a_component(&last.name) => {
                self.error(last.span, format!("`{}' is not a type (it names a component)", last.name));
                Ty::Error
            }
            None => {
                self.undefined(last.span, &last.name);
                Ty::Error
            }
        }
    }

    /// Importing a component defines the literals of the enumerations in its
    /// spec and in the specs it imports, in turn (MPD 1.0.1 reads them all
    /// again): one may not duplicate a name already declared here.
    fn imported_enum_clash(&mut self, n: &ast::Ident) {
        let mut todo = vec![n.name.clone()];
        let mut seen: Vec<String> = Vec::new();
        let mut clashes = Vec::new();
        while let Some(c) = todo.pop() {
            if seen.contains(&c) || c == self.comp {
                continue;
            }
            let Some(i) = self.ifaces.get(&c) else { continue };
            for (k, s) in &i.syms {
                let own = self.scopes.iter().any(|sc| sc.map.contains_key(k));
                if matches!(s, Sym::EnumLit { .. }) && own && !clashes.contains(k) {
                    clashes.push(k.clone());
                }
            }
            todo.extend(i.imports.iter().cloned());
            seen.push(c);
        }
        for k in clashes {
            self.error(n.span, format!("enum literal duplicates id `{}' (importing {} brings an enumeration literal of that name)", k, n.name));
        }
    }

    /// `self`, this component's name or a known component's.
    pub(crate) fn names_a_component(&self, name: &str) -> bool {
        name == "self" || name == self.comp || self.ifaces.contains_key(name)
    }

    /// Looks `b` up in the interface of component `a`.
    pub fn qualified(&mut self, a: &ast::Ident, b: &ast::Ident) -> Option<Sym> {
        let comp = match self.lookup(&a.name) {
            Some(Sym::Comp(c)) => c.clone(),
            _ if a.name == self.comp => {
                // `r.T` inside r itself: an export, or (while r's spec is being
                // checked, before its exports are collected) what r declared so far
                if let Some((_, s)) = self.exports.iter().find(|(n, _)| *n == b.name) {
                    return Some(s.clone());
                }
                if !self.in_spec {
                    return None;
                }
                return self.lookup(&b.name).cloned();
            }
            _ => return None,
        };
        self.ifaces.get(&comp).and_then(|i| i.syms.iter().find(|(n, _)| *n == b.name).map(|(_, s)| s.clone()))
    }

    /// Wraps `base` in the arrays of declarator dims (outermost first), static only.
    pub fn with_dims(&mut self, base: &Ty, dims: &[Range], star_ok: bool) -> Ty {
        let mut rs = Vec::new();
        for r in dims {
            // parameters may have bounds computed at run time: the actual gives them
            rs.push(self.range(r, star_ok));
        }
        let mut ty = base.clone();
        for (lo, hi, _, _) in rs.iter().rev() {
            ty = Ty::Arr(Box::new(ty), *lo, *hi);
        }
        ty
    }

    /// C expression for the size of a blob of type `ty` whose dynamic parts are
    /// given by `dims` (one per array level) and `strlen`.
    pub fn size_c(&self, ty: &Ty, dims: &[(String, String)], strlen: &Option<String>) -> String {
        if let Some(n) = self.types.size_of(ty) {
            return n.to_string();
        }
        match ty {
            Ty::Str(_) => var::str_size(&strlen.clone().unwrap_or_else(|| "0".into())),
            Ty::Arr(e, _, _) => {
                let (lo, hi) = dims.first().cloned().unwrap_or(("1".into(), "0".into()));
                let es = self.size_c(e, dims.get(1..).unwrap_or(&[]), strlen);
                var::arr_size(&lo, &hi, &es)
            }
            _ => "16".into(),
        }
    }

    /// Emits code that sets up the headers inside a fresh zeroed blob at `addr`.
    pub fn init_blob(&mut self, addr: &str, ty: &Ty, dims: &[(String, String)], strlen: &Option<String>) {
        match ty {
            Ty::Str(n) => {
                let max = match n {
                    Some(n) => n.to_string(),
                    None => strlen.clone().unwrap_or_else(|| "0".into()),
                };
                self.code.put(&var::str_init(addr, &max));
            }
            Ty::Arr(e, slo, shi) => {
                let (lo, hi) = match (slo, shi, dims.first()) {
                    (_, _, Some(d)) => d.clone(),
                    (Some(l), Some(h), None) => (l.to_string(), h.to_string()),
                    _ => ("1".into(), "0".into()),
                };
                let rest = dims.get(1..).unwrap_or(&[]).to_vec();
                let es = self.size_c(e, &rest, strlen);
                self.code.put(&var::arr_hdr(addr, &lo, &hi, &es));
                if e.is_blob() && !matches!(**e, Ty::Rec(_)) || self.rec_needs_init(e) {
                    let i = self.tmp();
                    self.code.open(&format!("for (int {i} = 0; {i} <= ({hi}) - ({lo}); {i}++) {{"));
                    let a = format!("({} + {} + (size_t){} * ({}))", addr, ARR_HDR, i, es);
                    self.init_blob(&a, e, &rest, strlen);
                    self.code.close("}");
                }
            }
            Ty::Rec(r) => {
                let fields = self.types.recs[*r].fields.clone();
                for (_, ft, off) in fields {
                    if ft.is_blob() {
                        self.init_blob(&format!("({} + {})", addr, off), &ft, &[], &None);
                    }
                }
            }
            _ => {}
        }
    }

    fn rec_needs_init(&self, t: &Ty) -> bool {
        match t {
            Ty::Rec(r) => self.types.recs[*r].fields.iter().any(|f| f.1.is_blob()),
            _ => false,
        }
    }

    /// Evaluates the bounds of a declaration into C locals and checks them.
    pub(crate) fn bind_dims(&mut self, dims: &mut [(String, String)], span: ast::Span) {
        for d in dims.iter_mut() {
            if let (Ok(l), Ok(h)) = (d.0.parse::<i64>(), d.1.parse::<i64>()) {
                if h < l - 1 {
                    // MPD compiles it and aborts when the declaration runs
                    // (suite diag/runtime); warn now, and check even under -O
                    self.diags.warning(span, format!("illegal bounds [{}:{}] for array: creating it aborts the program", l, h));
                    let p = self.pos(span);
                    self.code.put(&var::arr_check_bounds(&p, &l.to_string(), &h.to_string()));
                }
                continue;
            }
            let (a, b) = (self.tmp(), self.tmp());
            self.code.put(&var::local_ints(&[(&a, &d.0), (&b, &d.1)]));
            if !self.opts.no_checks {
                let p = self.pos(span);
                self.code.put(&var::arr_check_bounds(&p, &a, &b));
            }
            *d = (a, b);
        }
    }

    // ---- declarations --------------------------------------------------------

    pub fn decl(&mut self, d: &ast::Decl) {
        match &d.kind {
            DeclKind::Import { names: ns, extend } => {
                if *extend && self.global {
                    self.error(d.span, "`extend' is not allowed in a global (a global has no ops to extend)");
                    return;
                }
                for n in ns {
                    match self.ifaces.get(&n.name) {
                        Some(i) if *extend && i.global => {
                            self.error(n.span, format!("cannot extend a global ({} is one: import it)", n.name));
                        }
                        Some(_) => {
                            self.imported_enum_clash(n);
                            let i = &self.ifaces[&n.name];
                            let g = i.global;
                            let mut syms = i.syms.clone();
                            if g {
                                let f = names::global_field(&n.name);
                                if !self.imported_globals.contains(&n.name) {
                                    self.imported_globals.push(n.name.clone());
                                    self.fields.push_str(&component::global_ptr_field(&f));
                                }
                                // the first import executed on this vm creates the global
                                // and runs its initial code; every import statement may be
                                // that first one (one in a procedure runs when it is called)
                                let p = self.pos(n.span);
                                self.code.put(&component::import_global(&f, &p, &names::global_struct(&n.name)));
                            }
                            if *extend && !g {
                                // the extended spec's ops become ops of this resource
                                syms.sort_by_key(|(_, s)| match s {
                                    Sym::Proc(p) => p.op.as_ref().map(|r| r.idx).unwrap_or(u32::MAX),
                                    _ => u32::MAX,
                                });
                                for (k, s) in &syms {
                                    if let Sym::Proc(sig) = s {
                                        if let Some(r) = &sig.op {
                                            if r.local.is_none() && !r.sem && self.scopes.last().unwrap().map.contains_key(k) {
                                                // an op of that name is already here (declared, or from another extend)
                                                self.error(n.span, format!("duplicate identifier: {} (extending {} brings a second op of that name)", k, n.name));
                                            } else if r.local.is_none() && !r.sem {
                                                let ident = ast::Ident { name: k.clone(), span: n.span };
                                                self.own_op(&ident, sig.params.clone(), sig.ret.clone(), sig.ret_name.clone(), r.inv.clone());
                                            }
                                        }
                                    }
                                }
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
                            let again: Vec<String> = if *extend && !g {
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
                                if *extend {
                                    if !again.contains(&k) {
                                        self.scopes.last_mut().unwrap().map.entry(k).or_insert(s);
                                    }
                                } else {
                                    let comp = n.name.clone();
                                    self.scopes.last_mut().unwrap().imported.entry(k).or_default().push((comp, s));
                                }
                            }
                            if !again.is_empty() {
                                // the extended spec's constants, evaluated here
                                for d in &consts {
                                    self.decl(d);
                                }
                            }
                        }
                        None => self.error(n.span, format!("can't open spec file for `{}`: no such component compiled", n.name)),
                    }
                }
            }
            DeclKind::Var(v) => self.var_decl(v, d.span),
            DeclKind::Type { name, ty } => {
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
                let t = self.ty(ty);
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
            DeclKind::Op(op) | DeclKind::External(op) => self.op_decl(op, d.span, matches!(d.kind, DeclKind::External(_))),
            DeclKind::Proc(p) => self.proc_decl(p),
            DeclKind::Sem(items) => self.sem_decl(items),
            DeclKind::Optype { name, sig } => {
                let (ps, rt, restr) = match sig {
                    ast::OpSig::Explicit { params, returns, restriction, .. } => {
                        let ps = self.params(params);
                        let (rt, _) = self.ret_spec(returns.as_ref());
                        (ps, rt, *restriction)
                    }
                    ast::OpSig::Optype(q) => {
                        self.error(q.span, "an optype is defined by a parameter list");
                        return;
                    }
                };
                let inv = format!("inv_{}_{}", self.comp, name.name);
                self.inv_struct(&inv, &ps, &rt, d.span);
                let k = self.register_sig_r(&ps, &rt, &inv, restr);
                self.declare(name, Sym::Optype(k));
            }
            DeclKind::Final(b) => {
                if !self.at_top {
                    self.error(d.span, "`final` belongs at the top level of a component body");
                    return;
                }
                if self.final_body.is_some() {
                    self.error(d.span, "duplicate `final' code");
                    return;
                }
                let saved = std::mem::replace(&mut self.code, Code::new(&self.file_name, self.opts.lines));
                self.at_top = false;
                self.code.put(var::TEMPS_DECL);
                // traced: FINAL and ENDFINAL at the line of `final`
                let fp = self.pos(b.stmts.first().map(|s| s.span).unwrap_or(d.span));
                let endfinal = crate::emit::trace::event(&fp, "ENDFINAL", "0");
                self.code.put(&crate::emit::trace::event(&fp, "FINAL", "0"));
                let saved_ret = self.ret.replace(RetInfo { stmt: component::final_return(&endfinal) });
                let saved_tp = self.trace_proc.take();
                self.in_final = true;
                self.block(b);
                self.in_final = false;
                self.trace_proc = saved_tp;
                self.code.put(&endfinal);
                self.code.put(var::TEMPS_FREE);
                self.ret = saved_ret;
                self.at_top = true;
                let body = std::mem::replace(&mut self.code, saved).take();
                self.final_body = Some(body);
            }
        }
    }

    fn var_decl(&mut self, v: &ast::VarDecl, span: ast::Span) {
        let base = match &v.ty {
            Some(t) => Some(self.tyx(t, true)),
            None => None,
        };
        for item in &v.vars {
            self.code.line(self.line(item.span));
            if let Some(t) = &v.ty {
                self.no_stars(t, &item.dims, item.span);
            }
            let init = item.init.as_ref().map(|e| (self.expr(e), e.span));
            let mut tx = match &base {
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
            };
            // declarator dims wrap the declared type: int a[1:n] is [1:n] int
            let mut outer = Vec::new();
            for r in &item.dims {
                outer.push(self.range(r, true));
            }
            let index_tys: Vec<Ty> = item.dims.iter().map(|r| self.range_type(r)).collect();
            let mut dims: Vec<(String, String)> = outer.iter().map(|(_, _, l, h)| (l.clone(), h.clone())).collect();
            for (lo, hi, _, _) in outer.iter().rev() {
                tx.ty = Ty::Arr(Box::new(tx.ty), *lo, *hi);
            }
            dims.extend(tx.dims);
            let ty = tx.ty;
            // constants fold when the value is known and scalar/string
            if v.constant {
                if let Some((iv, sp)) = &init {
                    if let Some(k) = iv.k.clone() {
                        if ty.is_scalar() || matches!(k, KV::Str(_)) && matches!(ty, Ty::Str(_) | Ty::Error) {
                            let ty2 = if ty == Ty::Error { iv.ty.clone() } else { ty.clone() };
                            let k = match (&ty2, k) {
                                (Ty::Real, KV::Int(n)) => KV::Real(n as f64),
                                (_, k) => k,
                            };
                            if !self.types.assignable(&ty2, &iv.ty) && !(ty2 == Ty::Real && iv.ty == Ty::Int) {
                                self.error(*sp, format!("cannot initialize a {} with a {}", self.types.show(&ty2), self.types.show(&iv.ty)));
                            }
                            self.declare(&item.name, Sym::Const { v: k, ty: ty2 });
                            continue;
                        }
                    }
                } else {
                    self.error(item.span, "a constant needs a value");
                }
            }
            if ty == Ty::Error && v.ty.is_none() && init.is_none() {
                continue;
            }
            self.bind_dims(&mut dims, item.span);
            // SR's `var s := e` with no type: a string or array whose size is known
            // only at run time takes it from the value (a view gives the length, a
            // blob is copied whole, headers and all)
            let mut strlen_of_init: Option<String> = None;
            let mut copy_init: Option<(String, &str)> = None;
            let mut init = init;
            if v.ty.is_none() && item.dims.is_empty() && ty.is_blob() && self.types.size_of(&ty).is_none() {
                if let Some((iv, _)) = &mut init {
                    let t = self.tmp();
                    match iv.form {
                        Form::View if matches!(ty, Ty::Str(_)) => {
                            self.code.put(&var::view_local(&t, &iv.c));
                            strlen_of_init = Some(var::view_len(&t));
                            iv.c = t;
                        }
                        Form::Blob => {
                            self.code.put(&var::local_blob_init(&t, &iv.c));
                            let kind = component::blob_kind(&ty).unwrap_or("0");
                            copy_init = Some((t, kind));
                        }
                        _ => {}
                    }
                }
            }
            let strlen = match strlen_of_init.or(tx.strlen) {
                Some(s) if s.parse::<i64>().is_err() => {
                    let t = self.tmp();
                    self.code.put(&var::local_int(&t, &s));
                    Some(t)
                }
                s => s,
            };
            let c = if self.at_top {
                self.field_decl(&item.name.name, &ty)
            } else {
                let cn = format!("{}_{}", names::var(&item.name.name), self.fresh);
                self.fresh += 1;
                if ty.is_blob() {
                    self.code.put(&var::local_blob(&cn));
                } else {
                    self.code.put(&var::local_scalar(&ty, &cn));
                }
                cn
            };
            if let Some((t, kind)) = &copy_init {
                let size = var::blob_size_of(t, kind);
                self.code.put(&var::blob_alloc(&c, &size, self.at_top));
                self.code.put(&var::blob_copy(&c, t, &size));
                init = None;
                self.flush_tmps();
            } else if ty.is_blob() {
                let size = self.size_c(&ty, &dims, &strlen);
                self.code.put(&var::blob_alloc(&c, &size, self.at_top));
                let c2 = c.clone();
                self.init_blob(&c2, &ty, &dims, &strlen);
            }
            let var = V { c: c.clone(), ty: ty.clone(), form: if ty.is_blob() { Form::Blob } else { Form::Scalar }, k: None, lv: true, slice: None };
            if let Some((iv, sp)) = init {
                self.with_mismatch("incompatible initialization".into(), |c| c.assign_into(&var, iv, sp));
                self.flush_tmps();
            }
            if !index_tys.is_empty() {
                // lb/ub of an array indexed by bool, char or an enumeration have
                // that type; a subscript must have it too
                self.index_types.insert(c.clone(), index_tys);
            }
            self.declare(&item.name, Sym::Var { c, ty, assignable: !v.constant });
        }
        let _ = span;
    }

    /// Declares an op; an op whose body is a `proc` is called like a procedure.
    fn op_decl(&mut self, op: &ast::OpDecl, span: ast::Span, external: bool) {
        let (params, ret, ret_name, sig_idx) = match &op.sig {
            ast::OpSig::Explicit { params, returns, restriction, .. } => {
                // `op links(cap links n)`: the op's own name may appear as a cap type
                let reserved: Vec<usize> = op
                    .names
                    .iter()
                    .map(|n| self.register_sig_r(&[], &Ty::Void, &format!("inv_{}_{}", self.comp, n.name.name), *restriction))
                    .collect();
                self.push();
                for (n, k) in op.names.iter().zip(&reserved) {
                    self.declare(&n.name, Sym::Type(Ty::Cap(super::types::CapTy::Op(*k))));
                }
                let ps = self.params(params);
                let (rt, rn) = self.ret_spec(returns.as_ref());
                self.pop();
                for k in reserved {
                    self.types.sigs[k].params = ps.clone();
                    self.types.sigs[k].ret = rt.clone();
                }
                (ps, rt, rn, None)
            }
            ast::OpSig::Optype(q) => match self.optype_named(q) {
                Ty::Cap(super::types::CapTy::Op(k)) => {
                    let si = self.types.sigs[k].clone();
                    (si.params, si.ret, None, Some(k))
                }
                Ty::Error => return,
                _ => {
                    self.error(q.span, "not an optype");
                    return;
                }
            },
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
                cname: format!("mpdx_{}", n.name.name),
                params: params.clone(),
                ret: ret.clone(),
                ret_name: ret_name.clone(),
                selfc: self.self_arg(),
                external: true,
                op: None,
            };
            self.protos.push_str(&self.external_proto(&sig));
            self.declare(&n.name, Sym::Proc(Rc::new(sig)));
        }
    }

    /// MPD 1.0.1's rules for `external` (a C function called in place): at
    /// resource level, one function (no subscripts, no restriction), and
    /// parameter and result types that C can take.  A var/res scalar is
    /// passed by value (C cannot return it: MPD warns).
    fn external_ok(&mut self, op: &ast::OpDecl, params: &[PSig], ret: &Ty, span: ast::Span) -> bool {
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
            let scalar_c = matches!(p.ty, Ty::Bool | Ty::Char | Ty::Int | Ty::Enum(_) | Ty::Real | Ty::Ptr(_) | Ty::PtrAny | Ty::File);
            let fits = scalar_c || matches!(p.ty, Ty::Str(_) | Ty::Arr(..) | Ty::Rec(_) | Ty::Error);
            if !fits {
                self.error(span, format!("illegal parameter type for external: {}(), parameter {} is a {}", name, i + 1, self.types.show(&p.ty)));
                ok = false;
            } else if scalar_c && matches!(p.mode, ParamMode::Var | ParamMode::Res) {
                self.diags.warning(span, format!("{}(), parameter {}: type precludes returning a result", name, i + 1));
            }
        }
        let ret_ok = matches!(ret, Ty::Void | Ty::Bool | Ty::Char | Ty::Int | Ty::Enum(_) | Ty::Real | Ty::Ptr(_) | Ty::PtrAny | Ty::Str(_) | Ty::File | Ty::Error);
        if !ret_ok {
            self.error(span, format!("illegal return type for external: {}() cannot return a {}", name, self.types.show(ret)));
            ok = false;
        }
        ok
    }

    /// The C prototype of an external op (emit::component::external_proto).
    fn external_proto(&self, s: &ProcSig) -> String {
        // only `ref` passes a scalar's address (var/res pass its value)
        let ps: Vec<component::CParam> = s.params.iter().map(|p| component::CParam { ty: &p.ty, byref: p.mode == ParamMode::Ref }).collect();
        component::external_proto(&s.cname, &s.name, &s.ret, &ps)
    }

    /// Elaborates `f` with the formal names of `params` hidden: a list's
    /// types and bounds cannot use its own parameters (MPD 1.0.1: "illegal
    /// reference to formal parameter"); `at_top` is kept.
    pub fn without_formals<R>(&mut self, params: &[ast::Param], f: impl FnOnce(&mut Self) -> R) -> R {
        for p in params {
            for n in &p.names {
                self.no_enum_lit(&n.name);
            }
        }
        self.push();
        for p in params {
            for n in &p.names {
                self.scopes.last_mut().unwrap().map.insert(n.name.name.clone(), Sym::Formal);
            }
        }
        let r = f(self);
        self.pop();
        r
    }

    fn params(&mut self, params: &[ast::Param]) -> Vec<PSig> {
        self.without_formals(params, |c| c.params_of(params))
    }

    fn params_of(&mut self, params: &[ast::Param]) -> Vec<PSig> {
        let mut out = Vec::new();
        for p in params {
            let t = self.ty(&p.ty);
            if p.names.is_empty() {
                out.push(PSig { mode: p.mode, ty: t.clone(), name: String::new(), ixty: vec![] });
            }
            for n in &p.names {
                let ty = self.with_dims(&t, &n.dims, true);
                let ixty = n.dims.iter().map(|r| self.range_type(r)).collect();
                out.push(PSig { mode: p.mode, ty, name: n.name.name.clone(), ixty });
            }
        }
        out
    }

    fn ret_spec(&mut self, r: Option<&ast::ReturnSpec>) -> (Ty, Option<String>) {
        match r {
            None => (Ty::Void, None),
            Some(r) => {
                let t = match &r.ty {
                    Some(t) if self.no_stars(t, &r.dims, r.span) => Ty::Error,
                    Some(t) => self.ty(t),
                    None => Ty::Error,
                };
                let t = self.with_dims(&t, &r.dims, true);
                (t, r.name.as_ref().map(|n| n.name.clone()))
            }
        }
    }

    /// `procedure` declares its op itself; declare it before the body text so calls
    /// that precede it resolve.
    pub fn predeclare_proc(&mut self, p: &ast::ProcDecl) {
        if p.kind != ProcKind::Procedure {
            return;
        }
        // the signature is elaborated on first use, when the types it names exist
        let idx = self.nops;
        self.nops += 1;
        self.ops.push(super::ops::OpEntry { name: p.name.name.clone(), idx, n: 1, procfn: None, sem: false, flags: String::new() });
        self.declare(&p.name, Sym::PendingProc(Rc::new(p.clone())));
    }

    /// Looks a name up, elaborating a procedure's signature on first use.
    pub fn resolve(&mut self, name: &str) -> Option<Sym> {
        let Some(idx) = self.scopes.iter().rposition(|s| s.map.contains_key(name)) else {
            return self.lookup(name).cloned();
        };
        if let Some(Sym::PendingProc(p)) = self.scopes[idx].map.get(name).cloned() {
            let sig = self.procedure_sig(&p);
            self.scopes[idx].map.insert(name.to_string(), sig.clone());
            return Some(sig);
        }
        self.scopes[idx].map.get(name).cloned()
    }

    fn procedure_sig(&mut self, p: &ast::ProcDecl) -> Sym {
        let params = self.params(&p.params);
        let (ret, ret_name) = self.ret_spec(p.returns.as_ref());
        let idx = self.ops.iter().find(|o| o.name == p.name.name).map(|o| o.idx).unwrap_or(0);
        let inv = format!("inv_{}_{}", self.comp, p.name.name);
        self.inv_struct(&inv, &params, &ret, p.name.span);
        let sig = ProcSig {
            name: p.name.name.clone(),
            cname: names::proc_fn(&self.comp, &p.name.name),
            params,
            ret,
            ret_name,
            selfc: self.self_arg(),
            external: false,
            op: Some(super::scope::OpRef {
                proc_impl: !self.replying.contains(&p.name.name),
                global_owner: self.global,
                ..super::scope::OpRef::scalar(self.comp.clone(), idx, inv)
            }),
        };
        Sym::Proc(Rc::new(sig))
    }

    /// What a call passes as the instance of this component.
    pub fn self_arg(&self) -> String {
        component::self_arg(self.global, &self.comp)
    }

    pub(crate) fn self_type(&self) -> String {
        component::self_type(self.global, &self.comp)
    }

    /// The C prototype of a procedure.
    pub fn proc_proto(&self, s: &ProcSig) -> String {
        let ps: Vec<component::CParam> =
            s.params.iter().map(|p| component::CParam { ty: &p.ty, byref: !matches!(p.mode, ParamMode::Default | ParamMode::Val) }).collect();
        component::proc_proto(&self.self_type(), &s.cname, &s.ret, &ps)
    }

    /// Whether `proc p` may implement the op `sig` it names (MPD 1.0.1's
    /// rules): one op of this component, not an array, and the proc's
    /// `returns` names a result exactly when the op has one.
    fn proc_implements(&mut self, p: &ast::ProcDecl, sig: &ProcSig) -> bool {
        let r = sig.op.as_ref().unwrap();
        let name = &p.name.name;
        if r.owner != self.comp {
            self.error(p.name.span, format!("a proc cannot implement an imported op ({} is an op of {})", name, r.owner));
            return false;
        }
        if !r.dims.is_empty() {
            self.error(p.name.span, format!("a proc cannot implement an array op ({} is an array of ops)", name));
            return false;
        }
        if r.sem || r.local.is_some() {
            self.error(p.name.span, format!("a proc cannot implement {}: it is a {}", name, if r.sem { "semaphore" } else { "local op" }));
            return false;
        }
        if p.kind == ProcKind::Proc {
            let named = p.returns.as_ref().map_or(false, |r| r.name.is_some());
            if sig.ret != Ty::Void && !named {
                self.error(p.name.span, format!("missing return parameter (op {} returns {}: name its result in `returns`)", name, self.types.show(&sig.ret)));
                return false;
            }
            if sig.ret == Ty::Void && named {
                self.error(p.name.span, format!("unexpected return parameter (op {} returns no value)", name));
                return false;
            }
        }
        true
    }

    fn proc_decl(&mut self, p: &ast::ProcDecl) {
        if p.kind == ProcKind::Process {
            self.process_decl(p);
            return;
        }
        let sig = match self.resolve(&p.name.name) {
            Some(Sym::Proc(s)) if s.op.is_some() => s,
            None => {
                self.error(p.name.span, format!("`proc {}` has no matching `op` declaration", p.name.name));
                return;
            }
            _ => {
                self.error(p.name.span, format!("not an op: {}", p.name.name));
                return;
            }
        };
        if !self.proc_implements(p, &sig) {
            return;
        }
        // formal names: from the procedure's params or the proc's identifiers
        let formal_names: Vec<(String, ast::Span)> = if p.kind == ProcKind::Procedure {
            let mut v = Vec::new();
            for g in &p.params {
                if g.names.is_empty() {
                    // `procedure p(real)`: a parameter the body cannot name
                    self.diags.warning(g.span, "unnamed parameter is inaccessible");
                    v.push((format!("_unnamed{}", v.len()), g.span));
                }
                v.extend(g.names.iter().map(|n| (n.name.name.clone(), n.name.span)));
            }
            v
        } else {
            p.formals.iter().map(|f| (f.name.clone(), f.span)).collect()
        };
        if formal_names.len() != sig.params.len() {
            self.error(p.name.span, format!("wrong number of arguments (`{}` has {} parameters but its op has {})", p.name.name, formal_names.len(), sig.params.len()));
            return;
        }
        let last = ast::Span { lo: p.body.span.hi.saturating_sub(1), ..p.body.span };
        self.proc_spans.push((self.line(p.name.span), self.line(last), format!("{}.{}", self.comp, p.name.name)));
        let saved_code = std::mem::replace(&mut self.code, Code::new(&self.file_name, self.opts.lines));
        let saved_top = self.at_top;
        let saved_loops = self.loops;
        self.at_top = false;
        self.loops = 0;
        self.push();
        self.code.line(self.line(p.name.span));
        self.code.put(names::OPS_LOCAL);
        self.code.put(var::PROC_TEMPS_DECL);
        // traced: PROC and ENDPROC are the traced twin's (below)
        let tpos = self.pos(p.name.span);
        let saved_tp = self.trace_proc.replace(component::PROC_INVB.into());
        let mut copyback = String::new();
        for (i, ((n, sp), ps)) in formal_names.iter().zip(sig.params.iter()).enumerate() {
            let byref = !matches!(ps.mode, ParamMode::Default | ParamMode::Val);
            let c = format!("{}_{}", names::var(n), i);
            if let (Ty::Arr(..), ParamMode::Ref) = (&ps.ty, ps.mode) {
                // a ref array is the actual itself, with the actual's bounds
                self.code.put(&var::local_blob_init(&c, &var::param(i)));
                if !ps.ixty.is_empty() {
                    self.index_types.insert(c.clone(), ps.ixty.clone());
                }
                let ty = unbounded(&ps.ty);
                self.declare(&ast::Ident { name: n.clone(), span: *sp }, Sym::Var { c, ty, assignable: true });
                continue;
            } else if let Ty::Arr(..) = ps.ty {
                // arrays take the formal's lower bounds: a private copy, rebased;
                // var/res/ref copy back when the procedure returns
                // (or, for `[*:hi]`, its upper bound)
                let (mut lbs, mut ubs) = (Vec::new(), Vec::new());
                let mut t = &ps.ty;
                let bound = |b: &Option<i64>| b.map(|l| l.to_string()).unwrap_or_else(|| "INT_MIN".into());
                while let Ty::Arr(e, lo, hi) = t {
                    lbs.push(bound(lo));
                    ubs.push(bound(hi));
                    t = e;
                }
                for l in var::arr_param_copy(&c, i, &lbs, &ubs) {
                    self.code.put(&l);
                }
                if byref {
                    copyback.push_str(&var::arr_copyback(i, &c, lbs.len()));
                }
            } else if let (Ty::Str(Some(n)), ParamMode::Var | ParamMode::Res) = (&ps.ty, ps.mode) {
                // var/res `string[n]`: value-result through a private string[n], as in
                // MPD 1.0.1 (a var actual longer than n, or a result longer than the
                // actual's maximum, aborts)
                let pos = self.pos(*sp);
                let n = n.to_string();
                self.code.put(&format!("{} {}", var::str_param_alloc(&c, &n), var::str_init(&c, &n)));
                if ps.mode == ParamMode::Var {
                    self.code.put(&var::str_set_blob(&pos, &c, &var::param(i)));
                }
                copyback.push_str(&format!("{} ", var::str_set_blob(&pos, &var::param(i), &c)));
            } else if ps.ty.is_blob() {
                if byref {
                    self.code.put(&var::local_blob_init(&c, &var::param(i)));
                } else if let Ty::Str(Some(n)) = ps.ty {
                    // value `string[n]`: a private string[n], whatever the actual's size
                    // (MPD 1.0.1: maxlength is n; a longer actual aborts)
                    let pos = self.pos(*sp);
                    let n = n.to_string();
                    self.code.put(&var::str_param_alloc(&c, &n));
                    self.code.put(&format!("{} {}", var::str_init(&c, &n), var::str_set_blob(&pos, &c, &var::param(i))));
                } else {
                    // value parameter: a private copy
                    self.code.put(&var::blob_param_copy(&c, i, &self.blob_kind(&ps.ty)));
                }
            } else if ps.mode == ParamMode::Ref {
                let c2 = format!("(*{})", var::param(i));
                self.declare(&ast::Ident { name: n.clone(), span: *sp }, Sym::Var { c: c2, ty: ps.ty.clone(), assignable: true });
                continue;
            } else if byref {
                // var and res are value-result: a local copy, copied back (left to
                // right) when the procedure returns or replies
                self.code.put(&var::local_scalar_init(&ps.ty, &c, &format!("*{}", var::param(i))));
                copyback.push_str(&format!("*{} = {}; ", var::param(i), c));
            } else {
                self.code.put(&var::local_scalar_init(&ps.ty, &c, &var::param(i)));
            }
            if !ps.ixty.is_empty() {
                self.index_types.insert(c.clone(), ps.ixty.clone());
            }
            self.declare(&ast::Ident { name: n.clone(), span: *sp }, Sym::Var { c, ty: ps.ty.clone(), assignable: true });
        }
        // the result variable
        let rname = p.returns.as_ref().and_then(|r| r.name.as_ref()).map(|n| n.name.clone()).or(sig.ret_name.clone());
        let mut reply_copy = String::new();
        let saved_reply = self.reply_code.take();
        let ret_stmt = if sig.ret == Ty::Void {
            component::proc_return(&copyback, None)
        } else {
            // result type: for a procedure, elaborate again here so dims may use params
            let (rty, mut dims, strlen) = match (&p.kind, p.returns.as_ref().and_then(|r| r.ty.as_ref())) {
                (ProcKind::Procedure, Some(t)) => {
                    let tx = self.tyx(t, true);
                    let mut outer = Vec::new();
                    for r in &p.returns.as_ref().unwrap().dims {
                        outer.push(self.range(r, true));
                    }
                    let mut ty = tx.ty;
                    for (lo, hi, _, _) in outer.iter().rev() {
                        ty = Ty::Arr(Box::new(ty), *lo, *hi);
                    }
                    let mut d: Vec<(String, String)> = outer.into_iter().map(|(_, _, l, h)| (l, h)).collect();
                    d.extend(tx.dims);
                    (ty, d, tx.strlen)
                }
                _ => (sig.ret.clone(), self.static_dims(&sig.ret), None),
            };
            self.bind_dims(&mut dims, p.name.span);
            let c = "v_result".to_string();
            if rty.is_blob() {
                let size = self.size_c(&rty, &dims, &strlen);
                self.code.put(&var::result_alloc(&c, &size));
                self.init_blob(&c, &rty, &dims, &strlen);
            } else {
                self.code.put(&var::local_scalar(&rty, &c));
            }
            if let Some(rn) = &rname {
                let sp = p.returns.as_ref().map(|r| r.span).unwrap_or(p.name.span);
                self.declare(&ast::Ident { name: rn.clone(), span: sp }, Sym::Var { c: c.clone(), ty: rty.clone(), assignable: true });
            }
            // reply: the result goes into the invoker's block first
            let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
            reply_copy = if rty.is_blob() {
                match self.types.size_of(&rty) {
                    Some(n) => component::reply_result(&inv, &c, Some(n)),
                    None => String::new(),
                }
            } else {
                component::reply_result(&inv, &c, None)
            };
            component::proc_return(&copyback, Some(&c))
        };
        self.reply_code = Some(format!("{}{}", copyback, reply_copy));
        let saved_ret = self.ret.replace(RetInfo { stmt: ret_stmt.clone() });
        if self.reply_code.is_none() {
            self.reply_code = Some(copyback.clone());
        }
        let saved_serving = self.serving.replace(sig.clone());
        self.block_stmts(&p.body.stmts);
        self.serving = saved_serving;
        self.local_ops_end_all();
        self.code.put(&ret_stmt);
        self.ret = saved_ret;
        self.reply_code = saved_reply;
        self.trace_proc = saved_tp;
        self.pop();
        let body = std::mem::replace(&mut self.code, saved_code).take();
        self.at_top = saved_top;
        self.loops = saved_loops;
        let proto = self.proc_proto(&sig);
        self.protos.push_str(&component::proto_line(&proto));
        self.funcs.push_str(&component::function(&proto, &body));
        // the traced twin (traced runs): the same prototype, named <cname>_tr
        let twin_sig = ProcSig { cname: format!("{}_tr", sig.cname), ..(*sig).clone() };
        // static where only this file can call it, so an unused twin is dropped
        // (and leaves its proc with one caller, the op's wrapper, to inline into)
        let proto_tr = format!("{}{}", if self.global { "" } else { "static " }, self.proc_proto(&twin_sig));
        self.protos.push_str(&component::proto_line(&proto_tr));
        self.funcs.push_str(&crate::emit::trace::twin(&proto_tr, &sig.cname, &tpos, &format!("{}.{}", self.comp, p.name.name), sig.ret != Ty::Void, sig.params.len()));
        // the op's entry: invocations by block run the proc through a wrapper
        if let Some(r) = &sig.op {
            if r.owner == self.comp && !self.block_dyn_ret(&sig) {
                let w = self.proc_wrapper(&sig, &tpos);
                let direct = !self.replying.contains(&sig.name);
                // a leaf cannot switch: its direct calls need no hold (check/leaf.rs)
                let leaf = direct && self.is_leaf_body(&p.body.stmts);
                if let Some(o) = self.ops.iter_mut().find(|o| o.idx == r.idx) {
                    o.procfn = Some(w);
                    o.flags = component::proc_op_flags(direct, leaf);
                }
            }
        }
    }

    /// Whether a signature returns a value whose size is known only at run time
    /// (such ops are called directly, never through a block).
    fn block_dyn_ret(&self, s: &ProcSig) -> bool {
        s.ret.is_blob() && self.types.size_of(&s.ret).is_none()
    }

    /// "bounds known statically" dims of a type, as C text.
    pub fn static_dims(&self, t: &Ty) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut t = t;
        while let Ty::Arr(e, lo, hi) = t {
            out.push((lo.unwrap_or(1).to_string(), hi.unwrap_or(0).to_string()));
            t = e;
        }
        out
    }

    /// Which runtime copier knows the size of a blob of this type from its header.
    pub fn blob_kind(&self, t: &Ty) -> String {
        match component::blob_kind(t) {
            Some(k) => k.into(),
            None => format!("{}", self.types.size_of(t).unwrap_or(16)),
        }
    }
}

/// An array type with its bounds left to the run-time header (ref formals).
/// What a pointer points to: an array level with a `*` bound (`ptr [*] int`) has the
/// bounds of the array it was made from (`@x`, `new([0:n] int)`), so neither bound
/// is known at compile time.
fn star_bounds_dynamic(t: &Ty) -> Ty {
    match t {
        Ty::Arr(e, lo, hi) if lo.is_none() || hi.is_none() => Ty::Arr(Box::new(star_bounds_dynamic(e)), None, None),
        Ty::Arr(e, lo, hi) => Ty::Arr(Box::new(star_bounds_dynamic(e)), *lo, *hi),
        t => t.clone(),
    }
}

fn unbounded(t: &Ty) -> Ty {
    match t {
        Ty::Arr(e, _, _) => Ty::Arr(Box::new(unbounded(e)), None, None),
        t => t.clone(),
    }
}

/// Whether a value of type `t` holds a record `i` in place (not behind a ptr).
fn holds_rec(t: &Ty, i: usize) -> bool {
    match t {
        Ty::Rec(j) => *j == i,
        Ty::Arr(e, ..) => holds_rec(e, i),
        _ => false,
    }
}
