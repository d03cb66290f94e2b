//! typexpr: type expressions elaborated for declarations (bounds, records,
//! named and capability types) and the storage of blobs of those types.
use super::konst::KV;
use super::scope::Sym;
use super::types::{Ty, ARR_HDR};
use super::Checker;
use crate::emit::var;
use crate::syntax::ast::{self, Bound, Range, TypeKind};

/// A type elaborated for a declaration: C expressions for every array level's
/// bounds (outermost first) and the length of a string whose length is dynamic.
pub struct Tyx {
    pub ty: Ty,
    pub dims: Vec<(String, String)>,
    pub strlen: Option<String>,
}

impl<'a> Checker<'a> {
    /// The capability type of an op heading written in a type (`new(op ...)`,
    /// `cap op ...`): its signature, with an invocation block struct named
    /// `inv_<comp>_<kind><n>`.
    fn explicit_op_type(
        &mut self,
        params: &[ast::Param],
        returns: Option<&ast::ReturnSpec>,
        restriction: Option<ast::OpRestriction>,
        kind: &str,
        span: ast::Span,
    ) -> Ty {
        self.heading_names_distinct(params, returns);
        let (ps, rt, _) = self.heading(params, returns);
        self.fresh += 1;
        let inv = format!("inv_{}_{}{}", self.comp, kind, self.fresh);
        self.inv_struct(&inv, &ps, &rt, span);
        Ty::Cap(super::types::CapTy::Op(self.register_sig_r(&ps, &rt, &inv, restriction)))
    }

    /// A type where every size must be known at compile time (or be `*`).
    pub fn ty(&mut self, t: &ast::Type) -> Ty {
        self.tyx(t, false).ty
    }

    pub(crate) fn const_bound(&mut self, b: &Bound, dyn_ok: bool, string: bool) -> (Option<i64>, String) {
        match b {
            Bound::Star(_) => (None, "0".into()),
            Bound::Expr(e) => {
                let v = self.expr(e);
                let v = self.ordinal_value(
                    v,
                    e.span,
                    if string { "maxlength is not an integer" } else { "illegal bounds type" },
                );
                // a known value MPD 1.0.1 would not know (compile_time.rs):
                // noted for a record field, which must not have it
                if !dyn_ok && v.k.is_some() && self.unfolded.is_none() && !self.mpd_folds(e) {
                    self.unfolded = Some((e.span, string));
                }
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
                    // `[color]` is SR's; MPD 1.0.1 takes a single bound as 1 to n
                    if self.dialect(id.span) == super::msg::Dialect::Mpd {
                        let n = &id.name;
                        let how = format!("{} is a type (write [low({}):high({})])", n, n, n);
                        self.error(id.span, format!("single bound is not integer: [n] means 1 to n, and {}", how));
                        return (Some(1), Some(1), "1".into(), "1".into());
                    }
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
    pub(crate) fn range_bound_types(&mut self, r: &Range) -> bool {
        match (&r.lo, &r.hi) {
            (Some(Bound::Expr(a)), Bound::Expr(b)) => {
                let (x, y) = (self.type_of(a), self.type_of(b));
                if x != Ty::Error && y != Ty::Error && !self.types.same(&x, &y) {
                    self.error(
                        b.span,
                        format!(
                            "incompatible bounds: the lower bound is {}, the upper {}",
                            self.types.show(&x),
                            self.types.show(&y)
                        ),
                    );
                    return false;
                }
            }
            (None, Bound::Expr(b)) => {
                let y = self.type_of(b);
                if y != Ty::Int && y != Ty::Error {
                    self.error(
                        b.span,
                        format!(
                            "single bound is not integer: [n] means 1 to n, so n is an int, not {}",
                            self.types.show(&y)
                        ),
                    );
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
            // `[*:hi]` (a parameter): indexed like its upper bound
            (Some(Bound::Star(_)), Bound::Expr(e)) => e,
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
        self.type_of(e)
    }

    /// Elaborates a type; with `dyn_ok`, bounds may be run-time expressions.
    pub fn tyx(&mut self, t: &ast::Type, dyn_ok: bool) -> Tyx {
        let dims = Vec::new();
        let mut strlen = None;
        let ty = match &t.kind {
            TypeKind::Bool => Ty::Bool,
            TypeKind::Int => Ty::Int,
            TypeKind::Char => Ty::Char,
            TypeKind::Real | TypeKind::Double => Ty::Real,
            TypeKind::File => Ty::File,
            TypeKind::String(None) => Ty::Str(None),
            TypeKind::String(Some(b)) => {
                let mut reported = false;
                if let Bound::Expr(e) = b {
                    let lt = self.type_of(e);
                    if lt != Ty::Int && lt != Ty::Error {
                        self.error(e.span, format!("maxlength is not an integer ({})", self.types.show(&lt)));
                        reported = true;
                    }
                }
                // once reported, the bound's evaluation says it no more
                // (a real or string length was reported twice)
                let mut scratch = crate::syntax::Diagnostics::new();
                if reported {
                    std::mem::swap(self.diags, &mut scratch);
                }
                let (n, c) = self.const_bound(b, dyn_ok, true);
                if reported {
                    std::mem::swap(self.diags, &mut scratch);
                }
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
            TypeKind::Named(q) => {
                // reported at the type's bound, as MPD 1.0.1 does
                if let Some(&noted) = self.unfolded_types.get(&q.parts.last().unwrap().name) {
                    self.unfolded.get_or_insert(noted);
                }
                self.named_type(q)
            }
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
                    if q.parts.len() == 1
                        && self.lookup(&q.parts[0].name).is_none()
                        && !self.names_a_component(&q.parts[0].name)
                    {
                        self.fwd_types.push(q.parts[0].clone());
                        return Tyx { ty: Ty::Ptr(Box::new(Ty::Fwd(q.parts[0].name.clone()))), dims, strlen };
                    }
                }
                // what a pointer points to does not size a record
                let noted = self.unfolded.take();
                let t = Ty::Ptr(Box::new(star_bounds_dynamic(&self.ty(inner))));
                self.unfolded = noted;
                t
            }
            TypeKind::PtrAny => Ty::PtrAny,
            TypeKind::Sem => Ty::Cap(super::types::CapTy::Sem),
            TypeKind::Op(sig) => match &**sig {
                ast::OpSig::Explicit { params, returns, restriction, .. } => {
                    self.explicit_op_type(params, returns.as_ref(), *restriction, "new", t.span)
                }
                ast::OpSig::Optype(q) => self.optype_named(q),
            },
            TypeKind::Cap(target) => match target {
                ast::CapTarget::Vm => Ty::Cap(super::types::CapTy::Vm),
                ast::CapTarget::Sem => Ty::Cap(super::types::CapTy::Sem),
                ast::CapTarget::Named(q) => self.cap_named(q),
                ast::CapTarget::Sig(sig) => match &**sig {
                    ast::OpSig::Explicit { params, returns, restriction, .. } => {
                        self.explicit_op_type(params, returns.as_ref(), *restriction, "cap", t.span)
                    }
                    ast::OpSig::Optype(q) => self.optype_named(q),
                },
            },
            TypeKind::Array { ranges, elem } => return self.array_tyx(ranges, elem, dyn_ok),
        };
        Tyx { ty, dims, strlen }
    }

    /// `[ranges] elem`: each dimension keeps its bounds and its index type.
    fn array_tyx(&mut self, ranges: &[Range], elem: &ast::Type, dyn_ok: bool) -> Tyx {
        let inner = self.tyx(elem, dyn_ok);
        let mut ty = inner.ty;
        let mut rs = Vec::new();
        for r in ranges {
            rs.push(self.range(r, dyn_ok));
        }
        let ixs: Vec<Ty> = ranges.iter().map(|r| self.range_type(r)).collect();
        for ((lo, hi, _, _), ix) in rs.iter().zip(ixs).rev() {
            ty = Ty::Arr(Box::new(ty), *lo, *hi, Box::new(ix));
        }
        let mut dims: Vec<(String, String)> = rs.into_iter().map(|(_, _, l, h)| (l, h)).collect();
        dims.extend(inner.dims);
        Tyx { ty, dims, strlen: inner.strlen }
    }

    /// A record type; `reserved` is the table slot when the type's name
    /// was declared first (so fields may point to it: `rec(int v; ptr node next)`).
    pub(crate) fn rec_type(&mut self, fields: &[ast::Field], reserved: Option<usize>, span: ast::Span) -> Ty {
        let mut fs: Vec<(String, Ty)> = Vec::new();
        for f in fields {
            // a field's size must be known: no `*` bound
            if f.names.iter().any(|n| self.no_stars(&f.ty, &n.dims, f.span)) {
                return Ty::Error;
            }
            self.unfolded = None;
            let ft = self.ty(&f.ty);
            for n in &f.names {
                let ty = self.with_dims(&ft, &n.dims, false);
                if let Some((at, string)) = self.unfolded.take() {
                    let what = if string { "string length" } else { "array bounds" };
                    self.error(
                        at,
                        format!(
                            "non-constant {} in spec or record (field `{}`: MPD 1.0.1 computes only + - * / % << >> and or xor not and conversions of constants here)",
                            what, n.name.name
                        ),
                    );
                }
                if fs.iter().any(|(x, _)| *x == n.name.name) {
                    self.error(
                        n.name.span,
                        format!("duplicate identifier: {} (a second field of that name)", n.name.name),
                    );
                }
                // a field is named in MPD 1.0.1's one name space too
                self.no_enum_lit(&n.name);
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
    pub(crate) fn cap_named(&mut self, q: &ast::QualName) -> Ty {
        let last = q.parts.last().unwrap();
        let sym = if q.parts.len() == 2 { self.qualified(&q.parts[0], &q.parts[1]) } else { self.resolve_use(last) };
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
                self.error(
                    last.span,
                    format!("illegal object of capability: {} is a global (it has no instances)", last.name),
                );
                Ty::Error
            }
            _ if q.parts.len() == 1 && (self.ifaces.contains_key(&last.name) || last.name == self.comp) => {
                if !self.comp_visible(&last.name) {
                    self.error(
                        last.span,
                        format!("undefined identifier: {} (a resource is named only where it is imported)", last.name),
                    );
                    return Ty::Error;
                }
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
                self.error(
                    last.span,
                    format!("illegal object of capability: `{}` is not a resource, optype or operation", last.name),
                );
                Ty::Error
            }
        }
    }

    /// The signature an optype name stands for, as an op capability type.
    pub(crate) fn optype_named(&mut self, q: &ast::QualName) -> Ty {
        let last = q.parts.last().unwrap();
        let sym = if q.parts.len() == 2 {
            self.qualified(&q.parts[0], &q.parts[1])
        } else {
            self.lookup(&last.name).cloned()
        };
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
    pub(crate) fn imported_enum_clash(&mut self, n: &ast::Ident) {
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
            self.error(
                n.span,
                format!(
                    "enum literal duplicates id `{}' (importing {} brings an enumeration literal of that name)",
                    k, n.name
                ),
            );
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
        self.note_spec_use(&comp, &b.name, true);
        self.ifaces.get(&comp).and_then(|i| i.syms.iter().find(|(n, _)| *n == b.name).map(|(_, s)| s.clone()))
    }

    /// Wraps `base` in the arrays of declarator dims (outermost first), static only.
    pub fn with_dims(&mut self, base: &Ty, dims: &[Range], star_ok: bool) -> Ty {
        let mut rs = Vec::new();
        for r in dims {
            // parameters may have bounds computed at run time: the actual gives them
            rs.push(self.range(r, star_ok));
        }
        let ixs: Vec<Ty> = dims.iter().map(|r| self.range_type(r)).collect();
        let mut ty = base.clone();
        for ((lo, hi, _, _), ix) in rs.iter().zip(ixs).rev() {
            ty = Ty::Arr(Box::new(ty), *lo, *hi, Box::new(ix));
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
            Ty::Arr(e, _, _, _) => {
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
                self.f.code.put(&var::str_init(addr, &max));
            }
            Ty::Arr(e, slo, shi, _) => {
                let (lo, hi) = match (slo, shi, dims.first()) {
                    (_, _, Some(d)) => d.clone(),
                    (Some(l), Some(h), None) => (l.to_string(), h.to_string()),
                    _ => ("1".into(), "0".into()),
                };
                let rest = dims.get(1..).unwrap_or(&[]).to_vec();
                let es = self.size_c(e, &rest, strlen);
                self.f.code.put(&var::arr_hdr(addr, &lo, &hi, &es));
                if e.is_blob() && !matches!(**e, Ty::Rec(_)) || self.rec_needs_init(e) {
                    let i = self.tmp();
                    self.f.code.open(&var::elem_loop(&i, &lo, &hi));
                    let a = var::elem_addr(addr, ARR_HDR, &i, &es);
                    self.init_blob(&a, e, &rest, strlen);
                    self.f.code.close_block();
                }
            }
            Ty::Rec(r) => {
                let fields = self.types.recs[*r].fields.clone();
                for (_, ft, off) in fields {
                    if ft.is_blob() {
                        self.init_blob(&crate::emit::data::field_addr(addr, off), &ft, &[], &None);
                    }
                }
            }
            _ => {}
        }
    }

    pub(crate) fn rec_needs_init(&self, t: &Ty) -> bool {
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
                    self.diags.warning(
                        span,
                        format!("illegal bounds [{}:{}] for array: creating it aborts the program", l, h),
                    );
                    let p = self.pos(span);
                    self.f.code.put(&var::arr_check_bounds(&p, &l.to_string(), &h.to_string()));
                }
                continue;
            }
            let (a, b) = (self.tmp(), self.tmp());
            self.f.code.put(&var::local_ints(&[(&a, &d.0), (&b, &d.1)]));
            if !self.opts.no_checks {
                let p = self.pos(span);
                self.f.code.put(&var::arr_check_bounds(&p, &a, &b));
            }
            *d = (a, b);
        }
    }
}

/// What a pointer points to: an array level with a `*` bound (`ptr [*] int`) has the
/// bounds of the array it was made from (`@x`, `new([0:n] int)`), so neither bound
/// is known at compile time.
pub(super) fn star_bounds_dynamic(t: &Ty) -> Ty {
    match t {
        Ty::Arr(e, lo, hi, ix) if lo.is_none() || hi.is_none() => {
            Ty::Arr(Box::new(star_bounds_dynamic(e)), None, None, ix.clone())
        }
        Ty::Arr(e, lo, hi, ix) => Ty::Arr(Box::new(star_bounds_dynamic(e)), *lo, *hi, ix.clone()),
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
