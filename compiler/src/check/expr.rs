//! expr: checking and translating expressions (operators, names, subscripts, fields).
use super::konst::{fold, wrap, KV};
use super::scope::Sym;
use super::types::{Ty, ARR_HDR};
use super::{Checker, Form, V};
use crate::emit::lit;
use crate::syntax::ast::{self, AssignOp, BinaryOp, Expr, ExprKind, Span, Subscript, UnaryOp};

impl<'a> Checker<'a> {
    /// The statement-temporaries list, marking that the statement used it.
    pub fn t(&mut self) -> &'static str {
        self.used_tmp = true;
        "&_t"
    }

    /// Frees statement temporaries after a statement that made some.
    pub fn flush_tmps(&mut self) {
        if self.used_tmp {
            self.code.put("mpd_tmp_free(&_t);");
            self.used_tmp = false;
        }
    }

    pub fn konst(&self, k: KV, ty: Ty) -> V {
        let c = match &k {
            KV::Int(n) => lit::c_int(*n),
            KV::Real(x) => lit::c_real(*x),
            KV::Bool(b) => if *b { "1".into() } else { "0".into() },
            KV::Char(c) => format!("{}", c),
            KV::Str(s) => format!("mpd_sv_lit({}, {})", lit::c_string(s), s.len()),
        };
        let form = if matches!(k, KV::Str(_)) { Form::View } else { Form::Scalar };
        V { c, ty, form, k: Some(k), lv: false, slice: None }
    }

    /// Checks an expression and returns its C translation.
    pub fn expr(&mut self, e: &Expr) -> V {
        match &e.kind {
            ExprKind::Int(n) => {
                if *n > u32::MAX as i64 {
                    self.error(e.span, "integer literal too large");
                }
                self.konst(KV::Int(wrap(*n)), Ty::Int)
            }
            ExprKind::Real(x) => self.konst(KV::Real(*x), Ty::Real),
            ExprKind::Char(c) => self.konst(KV::Char(*c), Ty::Char),
            ExprKind::Bool(b) => self.konst(KV::Bool(*b), Ty::Bool),
            ExprKind::Str(s) => {
                let n = s.len() as i64;
                self.konst(KV::Str(s.clone()), Ty::Str(Some(n)))
            }
            ExprKind::Null => V::scalar("NULL".into(), Ty::Null),
            ExprKind::Noop => V::scalar("mpd_noop".into(), Ty::Null),
            ExprKind::StdFile(f) => V::scalar(
                match f {
                    ast::StdFile::Stdin => "mpd_stdin",
                    ast::StdFile::Stdout => "mpd_stdout",
                    ast::StdFile::Stderr => "mpd_stderr",
                }
                .into(),
                Ty::File,
            ),
            ExprKind::Ident(id) => self.ident(id),
            ExprKind::Paren(inner) => {
                let mut v = self.expr(inner);
                v.lv = false;
                v
            }
            ExprKind::Field { base, name } => self.field(base, name, e.span),
            ExprKind::Index { base, subs } => {
                // an element of an op array used as a value: its capability
                let mut root = base.as_ref();
                while let ExprKind::Index { base: b2, .. } = &root.kind {
                    root = b2.as_ref();
                }
                if let ExprKind::Ident(id) = &root.kind {
                    if let Some(Sym::Proc(sig)) = self.lookup(&id.name).cloned() {
                        if sig.op.is_some() {
                            return match self.op_target(e) {
                                Some((sig, super::ops::Target::Op(op))) => {
                                    let r = sig.op.clone().unwrap();
                                    let k = self.op_sig(&sig);
                                    let ty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
                                    V::scalar(format!("mpd_cap_of_op({})", op), ty)
                                }
                                _ => V::err(),
                            };
                        }
                    }
                }
                // rc.f[i]: the op it names, for an op array f of a resource capability
                if let Some((sig, rc, ix)) = self.rescap_elem(e) {
                    let r = sig.op.clone().unwrap();
                    let k = self.op_sig(&sig);
                    let ty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
                    return V::scalar(format!("mpd_rescap_op({}, {} + {})", rc.c, r.idx, ix), ty);
                }
                let b = self.expr(base);
                self.index(b, subs, e.span)
            }
            ExprKind::Call { callee, args } => self.call_expr(callee, args, e.span),
            ExprKind::Unary { op, operand } => self.unary(*op, operand, e.span),
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), lhs, rhs } => self.and_or(*op, lhs, rhs, e.span),
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs);
                let b = self.expr(rhs);
                self.binary(*op, a, b, e.span)
            }
            ExprKind::Assign { op, lhs, rhs } => {
                if let Some(what) = self.not_a_value(rhs) {
                    // `c = abs`, `c = r`: MPD 1.0.1 calls it an incompatible assignment
                    self.error(rhs.span, format!("incompatible assignment ({})", what));
                    return V::err();
                }
                // the value of an assignment is the variable's new value
                match self.assign_expr(*op, lhs, rhs, e.span) {
                    Some(l) => V { lv: false, slice: None, k: None, ..l },
                    None => V::err(),
                }
            }
            // the value of a swap is the left variable's new value
            ExprKind::Swap { lhs, rhs } => self.swap(lhs, rhs, e.span).unwrap_or_else(V::err),
            ExprKind::ArrayCons(elems) => self.array_cons(elems, e.span),
            ExprKind::Type(t) => {
                self.error(t.span, "a type is not a value here");
                V::err()
            }
            ExprKind::New(t) => {
                if let Some(v) = self.new_op_array(t, e.span) {
                    return v;
                }
                // bounds and string sizes may be run-time values: new([n] int), new(string[n])
                if self.star_in(t, &[]).is_some() {
                    self.error(t.span, "illegal context for `*' as array bound (new needs the size)");
                    return V::err();
                }
                self.in_new = true;
                let tx = self.tyx(t, true);
                self.in_new = false;
                let ty = tx.ty.clone();
                if matches!(ty, Ty::Cap(super::types::CapTy::Op(_)) | Ty::Cap(super::types::CapTy::Sem))
                    && matches!(t.kind, ast::TypeKind::Op(_) | ast::TypeKind::Sem | ast::TypeKind::Named(_))
                {
                    // new(op (...)), new(optype), new(sem): a dynamic operation
                    let p = self.pos(e.span);
                    let flags = if matches!(ty, Ty::Cap(super::types::CapTy::Sem)) { "MPD_OP_SEMAPHORE" } else { "0" };
                    return V::scalar(format!("mpd_op_new({}, &self->h, 1, {})", p, flags), ty);
                }
                let dynamic = !tx.dims.is_empty() || tx.strlen.is_some();
                if self.types.size_of(&ty).is_none() && !dynamic {
                    if ty != Ty::Error {
                        self.error(t.span, "new needs a type whose size is known");
                    }
                    return V::err();
                }
                let mut dims = tx.dims;
                self.bind_dims(&mut dims, t.span);
                let strlen = tx.strlen.map(|s| {
                    let n = self.tmp();
                    self.code.put(&format!("int {} = {};", n, s));
                    n
                });
                let size = self.size_c(&ty, &dims, &strlen);
                let tmp = self.tmp();
                self.code.put(&format!("char *{} = mpd_new({});", tmp, size));
                self.init_blob(&tmp, &ty, &dims, &strlen);
                V::scalar(format!("((void *){})", tmp), Ty::Ptr(Box::new(ty)))
            }
            ExprKind::Low(t) | ExprKind::High(t) => {
                let high = matches!(e.kind, ExprKind::High(_));
                let ty = self.ty(t);
                match ty {
                    Ty::Int => self.konst(KV::Int(if high { i32::MAX as i64 } else { i32::MIN as i64 }), Ty::Int),
                    Ty::Char => self.konst(KV::Char(if high { 255 } else { 0 }), Ty::Char),
                    Ty::Bool => self.konst(KV::Bool(high), Ty::Bool),
                    Ty::Real => self.konst(KV::Real(if high { f64::MAX } else { f64::MIN_POSITIVE }), Ty::Real),
                    Ty::Enum(en) => {
                        let n = self.types.enums[en].lits.len() as i64;
                        let mut v = self.konst(KV::Int(if high { n - 1 } else { 0 }), Ty::Enum(en));
                        v.ty = Ty::Enum(en);
                        v
                    }
                    Ty::Error => V::err(),
                    _ => {
                        self.error(t.span, "low/high: not an ordered type");
                        V::err()
                    }
                }
            }
            ExprKind::Create { target, args, on } => self.create(target, args, on.as_deref(), e.span),
        }
    }

    /// `a and b`, `a or b`.  On bools b is evaluated only when a does not
    /// decide: C's && and || do that for b's expression, but the statements
    /// some operands need first (a call through a capability, a string
    /// result, ...) are put under an `if` on a's value.  On ints (bitwise)
    /// both are evaluated.
    fn and_or(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr, span: Span) -> V {
        let a = self.expr(lhs);
        let mark = self.code.out.len();
        let b = self.expr(rhs);
        if self.code.out.len() == mark || a.ty != Ty::Bool || b.ty != Ty::Bool {
            return self.binary(op, a, b, span);
        }
        let pre = self.code.out.split_off(mark);
        let t = self.tmp();
        self.code.put(&format!("_Bool {} = {};", t, a.c));
        self.code.put(&format!("if ({}{}) {{", if op == BinaryOp::And { "" } else { "!" }, t));
        self.code.out.push_str(&pre);
        self.code.put(&format!("{} = {};", t, b.c));
        self.code.put("}");
        V::scalar(t, Ty::Bool)
    }

    fn ident(&mut self, id: &ast::Ident) -> V {
        match self.lookup(&id.name).cloned() {
            Some(Sym::Var { c, ty, assignable }) => {
                let form = if ty.is_blob() { Form::Blob } else { Form::Scalar };
                let c = self.captured(&id.name, c, &ty);
                V { c, ty, form, k: None, lv: assignable, slice: None }
            }
            Some(Sym::Const { v, ty }) => {
                let mut r = self.konst(v, ty.clone());
                r.ty = ty;
                r
            }
            Some(Sym::EnumLit { e, i }) => {
                let mut v = self.konst(KV::Int(i), Ty::Enum(e));
                v.ty = Ty::Enum(e);
                v
            }
            Some(Sym::Proc(s)) if s.op.is_some() => self.op_cap_value(&s, id.span),
            Some(Sym::Proc(_)) | Some(Sym::PendingProc(_)) | Some(Sym::Comp(_)) | Some(Sym::Type(_)) | Some(Sym::Optype(_)) => {
                self.error(id.span, format!("`{}` is not a value", id.name));
                V::err()
            }
            Some(Sym::Formal) => {
                self.error(id.span, format!("illegal reference to formal parameter {} (a parameter list's types and bounds cannot use its parameters)", id.name));
                V::err()
            }
            None => match id.name.as_str() {
                "EOF" => self.konst(KV::Int(-1), Ty::Int),
                "READ" | "WRITE" | "READWRITE" => {
                    let e = self.predefined_enum("accessmode");
                    let i = ["READ", "WRITE", "READWRITE"].iter().position(|x| *x == id.name).unwrap() as i64;
                    V { ty: Ty::Enum(e), ..self.konst(KV::Int(i), Ty::Int) }
                }
                "ABSOLUTE" | "RELATIVE" | "EXTEND" => {
                    let e = self.predefined_enum("seektype");
                    let i = ["ABSOLUTE", "RELATIVE", "EXTEND"].iter().position(|x| *x == id.name).unwrap() as i64;
                    V { ty: Ty::Enum(e), ..self.konst(KV::Int(i), Ty::Int) }
                }
                _ => {
                    match self.not_a_value(&Expr { kind: ExprKind::Ident(id.clone()), span: id.span }) {
                        Some(what) if super::builtin::is_predefined(&id.name) => {
                            self.error(id.span, format!("illegal use of predefined function ({})", what))
                        }
                        Some(what) => self.error(id.span, format!("`{}` is not a value ({})", id.name, what)),
                        None => self.undefined(id.span, &id.name),
                    }
                    V::err()
                }
            },
        }
    }

    /// Why a name with no symbol is not a value: a predefined function
    /// (called only), or a component's name.  None: `e` is something else.
    pub(crate) fn not_a_value(&self, e: &Expr) -> Option<String> {
        let ExprKind::Ident(id) = &e.kind else { return None };
        if self.lookup(&id.name).is_some() {
            return None;
        }
        if super::builtin::is_predefined(&id.name) {
            return Some(format!("{} is a predefined function: it can only be called", id.name));
        }
        // another component is known here only where it is imported
        if id.name == self.comp {
            return Some(format!("{} names a component, not a value", id.name));
        }
        None
    }

    fn field(&mut self, base: &Expr, name: &ast::Ident, span: Span) -> V {
        // qualified name: component.member
        if let ExprKind::Ident(b) = &base.kind {
            if matches!(self.lookup(&b.name), Some(Sym::Type(_))) {
                // `t.f` with t a record type: fields belong to variables
                self.error(b.span, format!("not a variable: {} is a type", b.name));
                return V::err();
            }
            if matches!(self.lookup(&b.name), Some(Sym::Comp(_))) || b.name == self.comp {
                return match self.qualified(b, name) {
                    Some(sym) => {
                        let saved = self.scopes.len();
                        let _ = saved;
                        match sym {
                            Sym::Var { c, ty, assignable } => {
                                let form = if ty.is_blob() { Form::Blob } else { Form::Scalar };
                                V { c, ty, form, k: None, lv: assignable, slice: None }
                            }
                            Sym::Const { v, ty } => {
                                let mut r = self.konst(v, ty.clone());
                                r.ty = ty;
                                r
                            }
                            Sym::EnumLit { e, i } => {
                                let mut v = self.konst(KV::Int(i), Ty::Enum(e));
                                v.ty = Ty::Enum(e);
                                v
                            }
                            _ => {
                                self.error(name.span, format!("`{}.{}` is not a value", b.name, name.name));
                                V::err()
                            }
                        }
                    }
                    None => {
                        // MPD 1.0.1's words: only the spec's names are qualified
                        self.error(name.span, format!("undefined identifier: {} (`{}` has no member of that name in its spec)", name.name, b.name));
                        V::err()
                    }
                };
            }
        }
        let b = self.expr(base);
        let b = self.auto_deref(b);
        if let Ty::Cap(super::types::CapTy::Resource(rn)) = &b.ty {
            // rc.op: the capability of one op of the resource
            return match self.res_member(&rn.clone(), &name.name) {
                Some(Sym::Proc(sig)) if sig.op.is_some() => {
                    let r = sig.op.clone().unwrap();
                    let k = self.op_sig(&sig);
                    let ty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
                    // as a value, rc.f is the op it names (rc.f = x may have changed it)
                    V::scalar(format!("mpd_rescap_op({}, {})", b.c, r.idx), ty)
                }
                _ => {
                    self.error(name.span, format!("resource {} has no operation `{}`", rn, name.name));
                    V::err()
                }
            };
        }
        match &b.ty {
            Ty::Rec(r) => {
                let info = &self.types.recs[*r];
                match info.fields.iter().find(|f| f.0 == name.name) {
                    Some((_, fty, off)) => {
                        let (fty, off) = (fty.clone(), *off);
                        let addr = format!("({} + {})", b.c, off);
                        if fty.is_blob() {
                            V { c: addr, ty: fty, form: Form::Blob, k: None, lv: b.lv, slice: None }
                        } else {
                            let ct = self.ctype(&fty);
                            V { c: format!("(*({} *){})", ct, addr), ty: fty, form: Form::Scalar, k: None, lv: b.lv, slice: None }
                        }
                    }
                    None => {
                        self.error(name.span, format!("unknown field: {} (in {})", name.name, self.types.show(&b.ty)));
                        V::err()
                    }
                }
            }
            Ty::Error => V::err(),
            _ => {
                self.error(span, format!("`.{}` needs a record, not a {}", name.name, self.types.show(&b.ty)));
                V::err()
            }
        }
    }

    /// MPD's predefined enumerations accessmode (READ, WRITE, READWRITE) and
    /// seektype (ABSOLUTE, RELATIVE, EXTEND), in the shared type table.
    pub fn predefined_enum(&mut self, name: &str) -> usize {
        if let Some(i) = self.types.enums.iter().position(|e| e.name == name) {
            return i;
        }
        let lits = if name == "accessmode" { ["READ", "WRITE", "READWRITE"] } else { ["ABSOLUTE", "RELATIVE", "EXTEND"] };
        self.types.enums.push(super::types::EnumInfo { name: name.into(), lits: lits.iter().map(|s| s.to_string()).collect() });
        self.types.enums.len() - 1
    }

    /// Inside an st/by callback, a local of the enclosing code is reached through
    /// the callback's environment.
    fn captured(&mut self, name: &str, c: String, ty: &Ty) -> String {
        let Some((depth, _)) = &self.capture else { return c };
        let depth = *depth;
        let idx = self.scopes.iter().rposition(|s| s.map.contains_key(name)).unwrap_or(0);
        if idx >= depth || c.starts_with("self->") || c.starts_with("mpdg_") {
            return c;
        }
        let ct = if ty.is_blob() { "char *".to_string() } else { format!("{} *", self.ctype(ty)) };
        let list = &mut self.capture.as_mut().unwrap().1;
        let k = match list.iter().position(|(x, _)| *x == c) {
            Some(k) => k,
            None => {
                list.push((c.clone(), ct));
                list.len() - 1
            }
        };
        if ty.is_blob() { format!("_env->c{}", k) } else { format!("(*_env->c{})", k) }
    }

    /// MPD lets `p.f` mean `p^.f` for pointers to records.
    fn auto_deref(&mut self, b: V) -> V {
        if let Ty::Ptr(inner) = &b.ty {
            if matches!(**inner, Ty::Rec(_) | Ty::Fwd(_)) {
                return self.deref(b, Span::default());
            }
        }
        b
    }

    pub fn deref(&mut self, p: V, span: Span) -> V {
        match &p.ty {
            Ty::Ptr(inner) => {
                let mut inner = (**inner).clone();
                if let Ty::Fwd(n) = &inner {
                    inner = match self.lookup(n) {
                        Some(Sym::Type(t)) => t.clone(),
                        _ => {
                            self.error(span, format!("`{}` is not a type", n));
                            return V::err();
                        }
                    };
                }
                let pc = if self.opts.no_checks {
                    p.c.clone()
                } else {
                    format!("mpd_ptr_check({}, {})", self.pos(span), p.c)
                };
                if inner.is_blob() {
                    V { c: format!("((char *){})", pc), ty: inner, form: Form::Blob, k: None, lv: true, slice: None }
                } else {
                    let ct = self.ctype(&inner);
                    V { c: format!("(*({} *){})", ct, pc), ty: inner, form: Form::Scalar, k: None, lv: true, slice: None }
                }
            }
            Ty::Error => V::err(),
            _ => {
                self.error(span, if p.ty == Ty::PtrAny { "cannot dereference a `ptr any'".to_string() } else { format!("dereference object is not a pointer ({})", self.types.show(&p.ty)) });
                V::err()
            }
        }
    }

    /// The value of an ordinal expression as a C int (subscripts, bounds);
    /// `what` is MPD 1.0.1's message for a value of another type.
    pub fn ordinal_value(&mut self, v: V, span: Span, what: &str) -> V {
        if !v.ty.is_ordinal() {
            self.error(span, format!("{} (expected an int, char, bool or enum value, found {})", what, self.types.show(&v.ty)));
            return V::err();
        }
        v
    }

    fn index(&mut self, mut b: V, subs: &[Subscript], span: Span) -> V {
        // an array variable declared with its dimensions knows their index types
        let ixty = self.index_types.get(&b.c).cloned().unwrap_or_default();
        // a list with a slice takes at most one subscript per dimension (a
        // string has one): `s[1:2, 3]` is not a slice of a slice
        if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) {
            let rank = slice_rank(&b.ty);
            if rank > 0 && subs.len() > rank {
                self.error(span, format!("too many subscripts (a {} takes {} in a slice)", self.types.show(&b.ty), rank));
                return V::err();
            }
        }
        for (k, s) in subs.iter().enumerate() {
            if matches!(s, Subscript::Slice { .. }) && k + 1 < subs.len() && matches!(b.ty, Ty::Arr(..)) {
                return self.section(b, &subs[k..], span);
            }
            b = self.auto_deref_arr(b);
            b = match s {
                Subscript::Index(ie) => {
                    let i = self.expr(ie);
                    let i = self.ordinal_value(i, ie.span, "wrong subscript type");
                    if let (Some(want), Ty::Arr(..)) = (ixty.get(k), &b.ty) {
                        if !self.types.same(want, &i.ty) {
                            self.error(ie.span, format!("wrong subscript type: this array is indexed by {}, not {}", self.types.show(want), self.types.show(&i.ty)));
                        }
                    }
                    self.subscript(b, i, ie.span)
                }
                Subscript::Slice { lo, hi, span: ssp } => {
                    let want = if matches!(b.ty, Ty::Arr(..)) { ixty.get(k).cloned() } else { Some(Ty::Int) };
                    self.slice_bound_types(lo.as_ref(), hi, want.as_ref());
                    self.slice(b, lo.as_ref(), hi, *ssp)
                }
            };
        }
        let _ = span;
        b
    }

    /// A section like `a[*, 2]`: a range followed by more subscripts.
    fn section(&mut self, b: V, subs: &[Subscript], span: Span) -> V {
        let mut parts = Vec::new();
        let mut ty = b.ty.clone();
        let mut shape: Vec<bool> = Vec::new();
        for s in subs {
            let elem = match &ty {
                Ty::Arr(e, _, _) => (**e).clone(),
                Ty::Error => return V::err(),
                _ => {
                    self.error(span, format!("too many subscripts for a {}", self.types.show(&b.ty)));
                    return V::err();
                }
            };
            match s {
                Subscript::Index(ie) => {
                    let i = self.expr(ie);
                    let i = self.ordinal_value(i, ie.span, "wrong subscript type");
                    parts.push(format!("{{0, {}, 0}}", i.c));
                    shape.push(false);
                }
                Subscript::Slice { lo, hi, .. } => {
                    let l = lo.as_ref().and_then(|l| self.bound_c(l)).unwrap_or_else(|| "INT_MIN".into());
                    let h = self.bound_c(hi).unwrap_or_else(|| "INT_MAX".into());
                    parts.push(format!("{{1, {}, {}}}", l, h));
                    shape.push(true);
                }
            }
            ty = elem;
        }
        for sl in shape.iter().rev() {
            if *sl {
                ty = Ty::Arr(Box::new(ty), None, None);
            }
        }
        let subs_c = format!("{}, (const mpd_sub[]){{{}}}", parts.len(), parts.join(", "));
        let p = self.pos(span);
        let t = self.t();
        let v = V {
            c: format!("((char *)mpd_arr_section({}, {}, {}, {}))", p, t, b.c, subs_c),
            ty,
            form: Form::Blob,
            k: None,
            lv: false,
            slice: None,
        };
        v.with_slice_of(b.c.clone(), "#sec".into(), subs_c, b.lv)
    }

    fn auto_deref_arr(&mut self, b: V) -> V {
        b
    }

    fn subscript(&mut self, b: V, i: V, span: Span) -> V {
        let p = self.pos(span);
        match &b.ty {
            Ty::Arr(e, _, _) => {
                let e = (**e).clone();
                let addr = if self.opts.no_checks {
                    format!("mpd_arr_elem_nc({}, {})", b.c, i.c)
                } else {
                    format!("mpd_arr_elem({}, {}, {})", p, b.c, i.c)
                };
                if e.is_blob() {
                    V { c: addr, ty: e, form: Form::Blob, k: None, lv: b.lv, slice: None }
                } else {
                    let ct = self.ctype(&e);
                    V { c: format!("(*({} *){})", ct, addr), ty: e, form: Form::Scalar, k: None, lv: b.lv, slice: None }
                }
            }
            Ty::Str(_) => {
                if let (Some(KV::Str(s)), Some(KV::Int(n))) = (&b.k, &i.k) {
                    if *n >= 1 && (*n as usize) <= s.len() {
                        return self.konst(KV::Char(s[*n as usize - 1]), Ty::Char);
                    }
                }
                match b.form {
                    Form::Blob if b.lv => V {
                        c: format!("(*(unsigned char *)mpd_str_at({}, {}, {}))", p, b.c, i.c),
                        ty: Ty::Char,
                        form: Form::Scalar,
                        k: None,
                        lv: true,
                        slice: None,
                    },
                    Form::Blob => V::scalar(format!("mpd_str_get({}, {}, {})", p, b.c, i.c), Ty::Char),
                    _ => {
                        let t = self.t();
                        V::scalar(format!("mpd_str_get({}, mpd_str_blob({}, {}, 0), {})", p, t, b.c, i.c), Ty::Char)
                    }
                }
            }
            Ty::Error => V::err(),
            _ => {
                self.error(span, format!("subscripted object is not an array ({})", self.types.show(&b.ty)));
                V::err()
            }
        }
    }

    fn bound_c(&mut self, b: &ast::Bound) -> Option<String> {
        match b {
            ast::Bound::Star(_) => None,
            ast::Bound::Expr(e) => {
                let v = self.expr(e);
                let v = self.ordinal_value(v, e.span, "wrong subscript type (incompatible slice indices)");
                Some(v.c)
            }
        }
    }

    /// The bounds of a slice have one type, that of the dimension's index
    /// (`want`, when known): MPD 1.0.1's "incompatible slice indices" and
    /// "wrong subscript type".  Non-ordinal bounds are bound_c's.
    fn slice_bound_types(&mut self, lo: Option<&ast::Bound>, hi: &ast::Bound, want: Option<&Ty>) {
        let ty_of = |c: &mut Self, b: Option<&ast::Bound>| match b {
            Some(ast::Bound::Expr(e)) => Some((c.type_of(e), e.span)),
            _ => None,
        };
        let (l, h) = (ty_of(self, lo), ty_of(self, Some(hi)));
        if let (Some((x, _)), Some((y, sp))) = (&l, &h) {
            if x.is_ordinal() && y.is_ordinal() && !self.types.same(x, y) {
                self.error(*sp, format!("incompatible slice indices (a {} and a {})", self.types.show(x), self.types.show(y)));
                return;
            }
        }
        if let Some(want) = want {
            for (t, sp) in [l, h].into_iter().flatten() {
                if t.is_ordinal() && !self.types.same(want, &t) {
                    self.error(sp, format!("wrong subscript type: this dimension is indexed by {}, not {}", self.types.show(want), self.types.show(&t)));
                    return;
                }
            }
        }
    }

    fn slice(&mut self, b: V, lo: Option<&ast::Bound>, hi: &ast::Bound, span: Span) -> V {
        let p = self.pos(span);
        let loc = lo.and_then(|l| self.bound_c(l));
        let hic = self.bound_c(hi);
        match &b.ty {
            Ty::Arr(e, _, _) => {
                let lo = loc.unwrap_or_else(|| format!("MPD_ARR_LB({})", b.c));
                let hi = hic.unwrap_or_else(|| format!("MPD_ARR_UB({})", b.c));
                let t = self.t();
                V {
                    c: format!("((char *)mpd_arr_slice({}, {}, {}, {}, {}))", p, t, b.c, lo, hi),
                    ty: Ty::Arr(e.clone(), None, None),
                    form: Form::Blob,
                    k: None,
                    lv: false,
                    slice: None,
                }
                .with_slice_of(b.c.clone(), lo, hi, b.lv)
            }
            Ty::Str(_) => {
                let sv = self.sv(&b);
                let max = if b.form == Form::Blob { format!("MPD_STR_MAX({})", b.c) } else { format!("({}).len", sv) };
                let lo = loc.unwrap_or_else(|| "1".into());
                let hi = hic.unwrap_or_else(|| format!("({}).len", sv));
                V {
                    c: format!("mpd_str_slice({}, {}, {}, {}, {})", p, sv, max, lo, hi),
                    ty: Ty::Str(None),
                    form: Form::View,
                    k: None,
                    lv: false,
                    slice: None,
                }
                .with_slice_of(b.c.clone(), lo, hi, b.lv && b.form == Form::Blob)
            }
            Ty::Error => V::err(),
            _ => {
                self.error(span, format!("subscripted object is not an array (cannot slice a {})", self.types.show(&b.ty)));
                V::err()
            }
        }
    }

    /// The string view of a string-like value (string, char, char array).
    pub fn sv(&mut self, v: &V) -> String {
        match (&v.ty, v.form) {
            (Ty::Str(_), Form::Blob) => format!("mpd_sv_of({})", v.c),
            (Ty::Str(_), _) => v.c.clone(),
            (Ty::Char, _) => {
                let t = self.t();
                format!("mpd_str_char({}, {})", t, v.c)
            }
            (t, _) if t.is_char_array() => {
                let t = self.t();
                format!("mpd_string_of_chars({}, {})", t, v.c)
            }
            _ => "mpd_sv_lit(\"\", 0)".into(),
        }
    }

    /// Converts `v` to a value of numeric type `to` (int → real promotion).
    pub fn coerce(&mut self, v: V, to: &Ty) -> V {
        match (&v.ty, to) {
            (Ty::Int, Ty::Real) => {
                let k = match v.k {
                    Some(KV::Int(n)) => Some(KV::Real(n as f64)),
                    _ => None,
                };
                V { c: format!("((double)({}))", v.c), ty: Ty::Real, form: Form::Scalar, k, lv: false, slice: None }
            }
            _ => v,
        }
    }

    pub fn binary(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        use BinaryOp::*;
        if a.ty == Ty::Error || b.ty == Ty::Error {
            return V::err();
        }
        let p = self.pos(span);
        // constant folding
        if !self.opts.no_fold || true {
            if let (Some(x), Some(y)) = (&a.k, &b.k) {
                let (x, y) = match (x, y) {
                    (KV::Int(i), KV::Real(_)) => (KV::Real(*i as f64), y.clone()),
                    (KV::Real(_), KV::Int(j)) => (x.clone(), KV::Real(*j as f64)),
                    (KV::Char(c), KV::Str(_)) if op == Concat => (KV::Str(vec![*c]), y.clone()),
                    (KV::Str(_), KV::Char(c)) if op == Concat => (x.clone(), KV::Str(vec![*c])),
                    (KV::Char(c), KV::Char(d)) if op == Concat => (KV::Str(vec![*c]), KV::Str(vec![*d])),
                    _ => (x.clone(), y.clone()),
                };
                if let Some(k) = fold(op, &x, &y) {
                    let ty = match &k {
                        KV::Int(_) => {
                            if let (Ty::Enum(_), Ty::Enum(_)) = (&a.ty, &b.ty) {
                                Ty::Int
                            } else {
                                Ty::Int
                            }
                        }
                        KV::Real(_) => Ty::Real,
                        KV::Bool(_) => Ty::Bool,
                        KV::Char(_) => Ty::Char,
                        KV::Str(s) => Ty::Str(Some(s.len() as i64)),
                    };
                    return self.konst(k, ty);
                }
            }
        }
        match op {
            Add | Sub | Mul | Div | Pow | Rem | Mod => {
                let both_int = a.ty == Ty::Int && b.ty == Ty::Int;
                // pointer arithmetic: ptr +/- int
                if matches!(a.ty, Ty::Ptr(_)) && b.ty == Ty::Int && matches!(op, Add | Sub) {
                    let sz = match &a.ty {
                        Ty::Ptr(t) => self.types.size_of(t).unwrap_or(1),
                        _ => 1,
                    };
                    let o = if op == Add { "+" } else { "-" };
                    return V::scalar(format!("((void *)((char *){} {} (ptrdiff_t)({}) * {}))", a.c, o, b.c, sz), a.ty.clone());
                }
                if matches!(b.ty, Ty::Ptr(_)) && a.ty == Ty::Int && op == Add {
                    return self.binary(op, b, a, span);
                }
                let is_ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
                if is_ptr(&a.ty) && is_ptr(&b.ty) && op == Sub {
                    let sz = match (&a.ty, &b.ty) {
                        (Ty::Ptr(t), _) | (_, Ty::Ptr(t)) => self.types.size_of(t).unwrap_or(1),
                        _ => 1,
                    };
                    return V::scalar(format!("((int)(((char *){} - (char *){}) / {}))", a.c, b.c, sz), Ty::Int);
                }
                if !a.ty.is_numeric() || !b.ty.is_numeric() {
                    self.error(
                        span,
                        format!("{}: operator {} needs int or real operands, not {} and {}", match op {
                            BinaryOp::Pow => "non-numeric exponentiation operand",
                            BinaryOp::Sub if matches!(a.ty, Ty::Ptr(_) | Ty::PtrAny) || matches!(b.ty, Ty::Ptr(_) | Ty::PtrAny) => "incompatible pointer subtraction",
                            _ => "non-numeric operand or incompatible assignment",
                        }, op.as_str(), self.types.show(&a.ty), self.types.show(&b.ty)),
                    );
                    return V::err();
                }
                if both_int {
                    let c = match op {
                        Add => format!("((int)((unsigned)({}) + (unsigned)({})))", a.c, b.c),
                        Sub => format!("((int)((unsigned)({}) - (unsigned)({})))", a.c, b.c),
                        Mul => format!("((int)((unsigned)({}) * (unsigned)({})))", a.c, b.c),
                        Div => format!("mpd_int_div({}, {}, {})", p, a.c, b.c),
                        Rem => format!("mpd_int_rem({}, {}, {})", p, a.c, b.c),
                        Mod => format!("mpd_int_mod({}, {}, {})", p, a.c, b.c),
                        _ => format!("mpd_int_pow({}, {}, {})", p, a.c, b.c),
                    };
                    return V::scalar(c, Ty::Int);
                }
                if op == Pow && b.ty == Ty::Int {
                    let a = self.coerce(a, &Ty::Real);
                    return V::scalar(format!("mpd_real_powi({}, {}, {})", p, a.c, b.c), Ty::Real);
                }
                let a = self.coerce(a, &Ty::Real);
                let b = self.coerce(b, &Ty::Real);
                let c = match op {
                    Add => format!("({} + {})", a.c, b.c),
                    Sub => format!("({} - {})", a.c, b.c),
                    Mul => format!("({} * {})", a.c, b.c),
                    Div => format!("({} / {})", a.c, b.c),
                    Rem => format!("mpd_real_rem({}, {}, {})", p, a.c, b.c),
                    Mod => format!("mpd_real_mod({}, {}, {})", p, a.c, b.c),
                    _ => format!("mpd_real_pow({}, {}, {})", p, a.c, b.c),
                };
                V::scalar(c, Ty::Real)
            }
            Concat => {
                let ok = |t: &Ty| t.is_string() || *t == Ty::Char || t.is_char_array();
                if !ok(&a.ty) || !ok(&b.ty) {
                    self.error(span, format!("non-string concatenation ({} || {})", self.types.show(&a.ty), self.types.show(&b.ty)));
                    return V::err();
                }
                let x = self.sv(&a);
                let y = self.sv(&b);
                let t = self.t();
                V { c: format!("mpd_str_cat({}, {}, {})", t, x, y), ty: Ty::Str(None), form: Form::View, k: None, lv: false, slice: None }
            }
            Shl | Shr => {
                if a.ty != Ty::Int || b.ty != Ty::Int {
                    self.error(span, format!("non-integer shift operand ({})", op.as_str()));
                    return V::err();
                }
                let c = if op == Shl {
                    format!("((int)((unsigned)({}) << (({}) & 31)))", a.c, b.c)
                } else {
                    format!("(({}) >> (({}) & 31))", a.c, b.c)
                };
                V::scalar(c, Ty::Int)
            }
            And | Or | Xor => {
                if a.ty == Ty::Bool && b.ty == Ty::Bool {
                    let c = match op {
                        And => format!("({} && {})", a.c, b.c),
                        Or => format!("({} || {})", a.c, b.c),
                        _ => format!("(({}) != ({}))", a.c, b.c),
                    };
                    V::scalar(c, Ty::Bool)
                } else if a.ty == Ty::Int && b.ty == Ty::Int {
                    let o = match op {
                        And => "&",
                        Or => "|",
                        _ => "^",
                    };
                    V::scalar(format!("(({}) {} ({}))", a.c, o, b.c), Ty::Int)
                } else {
                    self.error(span, format!("illegal or mismatched and/or/xor operands ({} and {})", self.types.show(&a.ty), self.types.show(&b.ty)));
                    V::err()
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => self.compare(op, a, b, span),
        }
    }

    fn compare(&mut self, op: BinaryOp, a: V, b: V, span: Span) -> V {
        use BinaryOp::*;
        let o = match op {
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            _ => ">=",
        };
        // arrays (char arrays too) and records are not compared (MPD 1.0.1)
        if matches!(a.ty, Ty::Arr(..) | Ty::Rec(_)) || matches!(b.ty, Ty::Arr(..) | Ty::Rec(_)) {
            self.error(span, format!("illegal type for comparison: cannot compare {} with {} (compare elements or fields)", self.types.show(&a.ty), self.types.show(&b.ty)));
            return V::err();
        }
        let stringy = |t: &Ty| t.is_string();
        if (stringy(&a.ty) && (stringy(&b.ty) || b.ty == Ty::Char)) || (a.ty == Ty::Char && stringy(&b.ty)) {
            let x = self.sv(&a);
            let y = self.sv(&b);
            return V::scalar(format!("(mpd_str_cmp({}, {}) {} 0)", x, y, o), Ty::Bool);
        }
        if a.ty.is_numeric() && b.ty.is_numeric() {
            let (a, b) = if a.ty == Ty::Real || b.ty == Ty::Real {
                (self.coerce(a, &Ty::Real), self.coerce(b, &Ty::Real))
            } else {
                (a, b)
            };
            return V::scalar(format!("(({}) {} ({}))", a.c, o, b.c), Ty::Bool);
        }
        let same = self.types.same(&a.ty, &b.ty);
        match (&a.ty, &b.ty) {
            (Ty::Char, Ty::Char) | (Ty::Bool, Ty::Bool) | (Ty::Enum(_), Ty::Enum(_)) if same => {
                V::scalar(format!("(({}) {} ({}))", a.c, o, b.c), Ty::Bool)
            }
            // pointers and files are equal or not; they have no order
            (Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File, Ty::Ptr(_) | Ty::PtrAny | Ty::Null | Ty::File) if matches!(op, Eq | Ne) => {
                V::scalar(format!("((void *)({}) {} (void *)({}))", a.c, o, b.c), Ty::Bool)
            }
            (Ty::Cap(_) | Ty::Null, Ty::Cap(_) | Ty::Null) if matches!(op, Eq | Ne) => {
                let x = if a.ty == Ty::Null { null_cap(&a.c) } else { a.c.clone() };
                let y = if b.ty == Ty::Null { null_cap(&b.c) } else { b.c.clone() };
                V::scalar(format!("(mpd_cap_eq({}, {}) {} 1)", x, y, o), Ty::Bool)
            }
            _ => {
                let what = if self.types.same(&a.ty, &b.ty) { "illegal comparison for unordered type" } else { "incompatible comparison" };
                self.error(span, format!("{}: cannot compare {} with {} using {}", what, self.types.show(&a.ty), self.types.show(&b.ty), op.as_str()));
                V::err()
            }
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, span: Span) -> V {
        match op {
            UnaryOp::Neg | UnaryOp::Plus => {
                let v = self.expr(operand);
                if !v.ty.is_numeric() {
                    self.error(span, format!("unary +/- operand is not simple numeric ({})", self.types.show(&v.ty)));
                    return V::err();
                }
                if op == UnaryOp::Plus {
                    return V { lv: false, slice: None, ..v };
                }
                match v.k {
                    Some(KV::Int(n)) => self.konst(KV::Int(wrap(-n)), Ty::Int),
                    Some(KV::Real(x)) => self.konst(KV::Real(-x), Ty::Real),
                    _ if v.ty == Ty::Int => V::scalar(format!("((int)(0u - (unsigned)({})))", v.c), Ty::Int),
                    _ => V::scalar(format!("(-({}))", v.c), v.ty),
                }
            }
            UnaryOp::Not => {
                let v = self.expr(operand);
                match (&v.ty, &v.k) {
                    (Ty::Bool, Some(KV::Bool(b))) => self.konst(KV::Bool(!b), Ty::Bool),
                    (Ty::Bool, _) => V::scalar(format!("(!({}))", v.c), Ty::Bool),
                    (Ty::Int, Some(KV::Int(n))) => self.konst(KV::Int(!n), Ty::Int),
                    (Ty::Int, _) => V::scalar(format!("(~({}))", v.c), Ty::Int),
                    (Ty::Error, _) => V::err(),
                    _ => {
                        self.error(span, format!("NOT operand is not bool or int ({})", self.types.show(&v.ty)));
                        V::err()
                    }
                }
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let v = self.expr(operand);
                if !v.lv {
                    let form = match op {
                        UnaryOp::PreInc => "++expr",
                        UnaryOp::PreDec => "--expr",
                        UnaryOp::PostInc => "expr++",
                        _ => "expr--",
                    };
                    self.error(span, format!("{}: not a variable", form));
                    return V::err();
                }
                let o = if matches!(op, UnaryOp::PreInc | UnaryOp::PostInc) { "++" } else { "--" };
                match &v.ty {
                    Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Real => {
                        let c = if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                            format!("({}{})", o, v.c)
                        } else {
                            format!("({}{})", v.c, o)
                        };
                        V::scalar(c, v.ty.clone())
                    }
                    Ty::Ptr(t) => {
                        let sz = self.types.size_of(t).unwrap_or(1);
                        let sign = if o == "++" { "+" } else { "-" };
                        let c = if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                            format!("({} = (char *){} {} {})", v.c, v.c, sign, sz)
                        } else {
                            let tmp = self.tmp();
                            format!("({{ void *{t} = {v}; {v} = (char *){v} {s} {z}; {t}; }})", t = tmp, v = v.c, s = sign, z = sz)
                        };
                        V::scalar(c, v.ty.clone())
                    }
                    Ty::Error => V::err(),
                    _ => {
                        self.error(span, format!("increment/decrement: not an ordered type ({} needs an int, char, enum, real or pointer variable)", o));
                        V::err()
                    }
                }
            }
            UnaryOp::AddrOf => {
                let v = self.expr(operand);
                if !v.lv {
                    self.error(span, "object of `@' is not a variable");
                    return V::err();
                }
                let c = if v.form == Form::Blob { format!("((void *){})", v.c) } else { format!("((void *)&{})", v.c) };
                V::scalar(c, Ty::Ptr(Box::new(v.ty)))
            }
            UnaryOp::Deref => {
                let v = self.expr(operand);
                self.deref(v, span)
            }
            UnaryOp::Pending => {
                let _ = span;
                self.pending(operand)
            }
        }
    }

    /// Stores `rhs` into the variable `lhs` (with MPD's conversions and checks).
    pub fn assign_into(&mut self, lhs: &V, rhs: V, span: Span) {
        let p = self.pos(span);
        if lhs.ty == Ty::Error || rhs.ty == Ty::Error {
            return;
        }
        if let Some(sl) = &lhs.slice {
            // assignment into a slice
            let (base, lo, hi) = sl.clone();
            // a slice takes a value of its own type and shape (MPD gives no
            // conversion here: a string into an array slice is an error)
            let ok = match &lhs.ty {
                Ty::Str(_) => rhs.ty.is_string() || rhs.ty == Ty::Char || rhs.ty.is_char_array(),
                _ => matches!(rhs.ty, Ty::Arr(..)) && self.types.assignable(&lhs.ty, &rhs.ty) && self.same_rank(&lhs.ty, &rhs.ty),
            };
            if !ok {
                self.error(span, format!("incompatible assignment: cannot assign a {} to a slice of type {}", self.types.show(&rhs.ty), self.types.show(&lhs.ty)));
                return;
            }
            if lo == "#sec" {
                let r = self.array_value(&rhs, lhs.ty.elem().cloned().unwrap_or(Ty::Error), span);
                self.code.put(&format!("mpd_arr_section_set({}, {}, {}, {});", p, base, hi, r));
                return;
            }
            match &lhs.ty {
                Ty::Str(_) => {
                    let v = self.sv(&rhs);
                    self.code.put(&format!("mpd_str_slice_set({}, {}, {}, {}, {});", p, base, lo, hi, v));
                }
                _ => {
                    let r = self.array_value(&rhs, lhs.ty.elem().cloned().unwrap_or(Ty::Error), span);
                    self.code.put(&format!("mpd_arr_slice_set({}, {}, {}, {}, {});", p, base, lo, hi, r));
                }
            }
            return;
        }
        match &lhs.ty {
            Ty::Str(_) => {
                if !(rhs.ty.is_string() || rhs.ty == Ty::Char || rhs.ty.is_char_array()) {
                    self.error(span, format!("{} (cannot assign a {} to a {})", self.mismatch_what(), self.types.show(&rhs.ty), self.types.show(&lhs.ty)));
                    return;
                }
                if rhs.ty.is_char_array() {
                    self.code.put(&format!("mpd_str_set_chars({}, {}, {});", p, lhs.c, rhs.c));
                } else if let Some(tail) = appended_to(&rhs.c, &lhs.c) {
                    // s = s || e appends in place: a loop building a string
                    // this way would otherwise copy s twice per step
                    self.code.put(&format!("mpd_str_append({}, {}, {});", p, lhs.c, tail));
                } else {
                    let v = self.sv(&rhs);
                    self.code.put(&format!("mpd_str_set({}, {}, {});", p, lhs.c, v));
                }
            }
            Ty::Arr(e, _, _) => {
                let e = (**e).clone();
                if !(rhs.ty.is_string() && e == Ty::Char) && !self.types.assignable(&lhs.ty, &rhs.ty) {
                    self.error(span, format!("{} (cannot assign a {} to an {})", self.mismatch_what(), self.types.show(&rhs.ty), self.types.show(&lhs.ty)));
                    return;
                }
                let r = self.array_value(&rhs, e, span);
                let (mut depth, mut t) = (0, &lhs.ty);
                while let Ty::Arr(e, _, _) = t {
                    depth += 1;
                    t = e;
                }
                if depth == 1 && !t.is_string() {
                    self.code.put(&format!("mpd_arr_assign({}, {}, {});", p, lhs.c, r));
                } else {
                    self.code.put(&format!("mpd_arr_assign_d({}, {}, {}, {}, {});", p, lhs.c, r, depth, t.is_string() as i32));
                }
            }
            Ty::Rec(_) => {
                if !self.types.assignable(&lhs.ty, &rhs.ty) {
                    self.error(span, format!("{} (cannot assign a {} to a {})", self.mismatch_what(), self.types.show(&rhs.ty), self.types.show(&lhs.ty)));
                    return;
                }
                let n = self.types.size_of(&lhs.ty).unwrap_or(16);
                self.code.put(&format!("mpd_blob_copy({}, {}, {});", lhs.c, rhs.c, n));
            }
            _ => {
                let r = self.scalar_for(&lhs.ty, rhs, span);
                self.code.put(&format!("{} = {};", lhs.c, r));
            }
        }
    }

    /// Whether two array types have the same number of dimensions.
    fn same_rank(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::Arr(x, ..), Ty::Arr(y, ..)) => self.same_rank(x, y),
            (Ty::Arr(..), _) | (_, Ty::Arr(..)) => false,
            _ => true,
        }
    }

    /// `rc.f = c` for a resource capability variable rc: rc becomes a capability
    /// whose op f is c (a resource capability is a record of op capabilities).
    /// None when `base` is not a resource capability (nothing emitted then).
    fn assign_op_field(&mut self, base: &Expr, name: &ast::Ident, rhs: &Expr, span: Span) -> Option<V> {
        if self.names_component(base) {
            return None;
        }
        let Ty::Cap(super::types::CapTy::Resource(rn)) = self.type_of(base) else { return None };
        let b = self.expr(base);
        let field = match self.res_member(&rn, &name.name) {
            Some(Sym::Proc(sig)) if sig.op.as_ref().map(|r| r.dims.is_empty()).unwrap_or(false) => sig,
            _ => {
                self.error(name.span, format!("resource {} has no operation `{}`", rn, name.name));
                return Some(V::err());
            }
        };
        if !b.lv {
            self.error(base.span, "assignment target is not a variable");
            return Some(V::err());
        }
        let r = field.op.clone().unwrap();
        let k = self.op_sig(&field);
        let fty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
        let v = self.expr(rhs);
        let c = self.scalar_for(&fty, v, span);
        let t = self.tmp();
        let p = self.pos(span);
        self.code.put(&format!("mpd_cap {t} = {c}; {b} = mpd_rescap_with_op({p}, {b}, {i}, {t});", t = t, c = c, b = b.c, p = p, i = r.idx));
        Some(V::scalar(t, fty))
    }

    /// How MPD 1.0.1 names a type mismatch where we are (see `mismatch`).
    pub fn mismatch_what(&self) -> String {
        self.mismatch.clone().unwrap_or_else(|| "incompatible assignment".into())
    }

    /// Runs `f` with `what` as the wording of type mismatches.
    pub fn with_mismatch<R>(&mut self, what: String, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.mismatch.replace(what);
        let r = f(self);
        self.mismatch = saved;
        r
    }

    /// The C text of `v` as a value of scalar type `to`, or an error.
    pub fn scalar_for(&mut self, to: &Ty, v: V, span: Span) -> String {
        if *to == Ty::Real && v.ty == Ty::Int {
            return self.coerce(v, &Ty::Real).c;
        }
        if matches!(to, Ty::Ptr(_) | Ty::PtrAny) && is_noop(&v) {
            // noop names no operation; a pointer takes null
            self.error(span, "can't use `noop' in pointer context (use null)");
            return "0".into();
        }
        if !self.types.assignable(to, &v.ty) {
            if let (Ty::Cap(_), Ty::Cap(_)) = (to, &v.ty) {
                self.error(span, format!("{}: a {} cannot hold a {}", self.mismatch_what(), self.types.show(to), self.types.show(&v.ty)));
                return "0".into();
            }
            self.error(span, format!("{} (expected a value of type {}, found {})", self.mismatch_what(), self.types.show(to), self.types.show(&v.ty)));
            return "0".into();
        }
        if matches!(to, Ty::Cap(_)) && v.ty == Ty::Null {
            return null_cap(&v.c);
        }
        v.c
    }

    /// An array blob for `v` (a string becomes chars(v)).
    fn array_value(&mut self, v: &V, elem: Ty, _span: Span) -> String {
        if v.ty.is_string() && elem == Ty::Char {
            let s = self.sv(v);
            let t = self.t();
            format!("mpd_chars({}, {})", t, s)
        } else {
            v.c.clone()
        }
    }

    /// `rc.f[i] = c` for an op array f of a resource capability variable rc:
    /// as `rc.f = c`, for one element.  None when lhs is something else.
    fn assign_op_elem(&mut self, lhs: &Expr, rhs: &Expr, span: Span) -> Option<V> {
        let (sig, rc, ix) = self.rescap_elem(lhs)?;
        if !rc.lv {
            self.error(lhs.span, "assignment target is not a variable");
            return Some(V::err());
        }
        let slot = format!("{} + {}", sig.op.as_ref().unwrap().idx, ix);
        Some(self.store_op_cap(&sig, &rc.c, &slot, rhs, span))
    }

    /// Stores `rhs` as the op capability in slot `slot` (a C expression) of
    /// the resource capability variable `rc` (C lvalue); the value is the cap.
    fn store_op_cap(&mut self, sig: &super::scope::ProcSig, rc: &str, slot: &str, rhs: &Expr, span: Span) -> V {
        let r = sig.op.as_ref().unwrap();
        let k = self.op_sig(&sig);
        let fty = if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
        let v = self.expr(rhs);
        let c = self.scalar_for(&fty, v, span);
        let t = self.tmp();
        let p = self.pos(span);
        self.code.put(&format!("mpd_cap {t} = {c}; {rc} = mpd_rescap_with_op({p}, {rc}, {slot}, {t});"));
        V::scalar(t, fty)
    }

    fn assign_expr(&mut self, op: AssignOp, lhs: &Expr, rhs: &Expr, span: Span) -> Option<V> {
        if let (AssignOp::Plain, ExprKind::Index { .. }) = (op, &lhs.kind) {
            if let Some(v) = self.assign_op_elem(lhs, rhs, span) {
                return Some(v);
            }
        }
        if let (AssignOp::Plain, ExprKind::Field { base, name }) = (op, &lhs.kind) {
            if let Some(v) = self.assign_op_field(base, name, rhs, span) {
                return Some(v);
            }
        }
        let l = self.expr(lhs);
        if !l.lv && l.ty != Ty::Error {
            self.error(lhs.span, "assignment target is not a variable");
            return None;
        }
        let r = match op {
            AssignOp::Plain => self.expr(rhs),
            AssignOp::Compound(b) => {
                let r = self.expr(rhs);
                let cur = V { lv: false, k: None, slice: None, ..l.clone() };
                self.binary(b, cur, r, span)
            }
        };
        if l.ty.is_scalar() && l.slice.is_none() && l.ty != Ty::Error && r.ty != Ty::Error {
            // the value of the assignment is kept in a temporary, so a variable whose
            // subscript has side effects (a[i++] = e) is evaluated once
            let c = self.scalar_for(&l.ty, r, span);
            let t = self.tmp();
            let ct = self.ctype(&l.ty);
            self.code.put(&format!("{} {} = {}; {} = {};", ct, t, c, l.c, t));
            return Some(V { c: t, ..l });
        }
        self.assign_into(&l, r, span);
        Some(l)
    }

    fn swap(&mut self, lhs: &Expr, rhs: &Expr, span: Span) -> Option<V> {
        let a = self.expr(lhs);
        let b = self.expr(rhs);
        if a.ty == Ty::Error || b.ty == Ty::Error {
            return None;
        }
        // MPD 1.0.1's order: types, then slices, then variables
        if !self.types.assignable(&a.ty, &b.ty) || !self.types.assignable(&b.ty, &a.ty) {
            self.error(span, format!("incompatible swap (cannot swap a {} with a {})", self.types.show(&a.ty), self.types.show(&b.ty)));
            return None;
        }
        if a.slice.is_some() || b.slice.is_some() {
            self.error(span, "cannot swap into or out of a slice");
            return None;
        }
        if !a.lv || !b.lv {
            self.error(span, "both sides of swap operator must be variables");
            return None;
        }
        let p = self.pos(span);
        match &a.ty {
            Ty::Str(_) => {
                self.code.put(&format!("mpd_str_swap({}, {}, {});", p, a.c, b.c));
            }
            Ty::Arr(..) => {
                self.code.put(&format!("mpd_arr_swap({}, {}, {});", p, a.c, b.c));
            }
            Ty::Rec(_) => {
                let n = self.types.size_of(&a.ty).unwrap_or(16);
                self.code.put(&format!("mpd_blob_swap({}, {}, {});", a.c, b.c, n));
            }
            _ => {
                let t = self.tmp();
                let ct = self.ctype(&a.ty);
                self.code.put(&format!("{{ {} {} = {}; {} = {}; {} = {}; }}", ct, t, a.c, a.c, b.c, b.c, t));
                // a scalar result is a snapshot, so later swaps do not change it
                let r = self.tmp();
                self.code.put(&format!("{} {} = {};", ct, r, a.c));
                return Some(V::scalar(r, a.ty.clone()));
            }
        }
        Some(V { lv: false, slice: None, k: None, ..a })
    }

    /// `(e1, [n] e2, ...)`: a new array [1:count].  Counts are evaluated first;
    /// an element repeated zero times is not evaluated.
    fn array_cons(&mut self, elems: &[ast::ArrayElem], span: Span) -> V {
        let p = self.pos(span);
        let mut counts = Vec::new();
        for el in elems {
            let c = self.tmp();
            match &el.count {
                Some(ce) => {
                    let v = self.expr(ce);
                    if v.ty != Ty::Int && v.ty != Ty::Error {
                        self.error(ce.span, "repetition count is not an integer");
                    }
                    self.code.put(&format!("int {} = mpd_rep_count({}, {});", c, p, v.c));
                }
                None => self.code.put(&format!("int {} = 1;", c)),
            }
            counts.push(c);
        }
        let mut vals = Vec::new();
        for el in elems {
            let v = self.expr(&el.value);
            vals.push((v, el.span));
        }
        let mut ety = vals.first().map(|v| v.0.ty.clone()).unwrap_or(Ty::Int);
        if vals.iter().any(|v| v.0.ty == Ty::Real) && vals.iter().all(|v| v.0.ty.is_numeric()) {
            ety = Ty::Real;
        }
        if ety == Ty::Char && vals.iter().any(|v| v.0.ty.is_string()) {
            ety = Ty::Str(None);
        }
        if ety == Ty::Null {
            // the first element gives the type: null/noop have none of their own (MPD 1.0.1's spelling)
            self.error(vals[0].1, "ambigous: don't know what kind of null/noop (put a typed element first)");
            return V::err();
        }
        // evaluate each element once (only if repeated at least once)
        let mut held = Vec::new();
        for (n, ((v, sp), c)) in vals.into_iter().zip(&counts).enumerate() {
            let h = self.tmp();
            if ety.is_string() {
                // MPD: "element N of constructor is incompatible"
                if !(v.ty.is_string() || v.ty == Ty::Char || v.ty.is_char_array() || v.ty == Ty::Error) {
                    self.error(sp, format!("array constructor elements must have one type ({} and {})", self.types.show(&ety), self.types.show(&v.ty)));
                    continue;
                }
                let s = self.sv(&v);
                self.code.put(&format!("mpd_sv {} = {{0, 0}}; if ({} > 0) {} = {};", h, c, h, s));
                held.push((V { c: h, ty: Ty::Str(None), form: Form::View, k: None, lv: false, slice: None }, sp));
            } else if ety.is_scalar() {
                if !self.types.assignable(&ety, &v.ty) && !(ety == Ty::Real && v.ty == Ty::Int) {
                    self.error(sp, format!("element {} of constructor is incompatible ({} and {})", n + 1, self.types.show(&ety), self.types.show(&v.ty)));
                }
                let v = self.coerce(v, &ety);
                let ct = self.ctype(&ety);
                self.code.put(&format!("{} {} = {{0}}; if ({} > 0) {} = {};", ct, h, c, h, v.c));
                held.push((V::scalar(h, ety.clone()), sp));
            } else {
                if !self.types.same(&ety, &v.ty) {
                    self.error(sp, format!("element {} of constructor is incompatible", n + 1));
                }
                self.code.put(&format!("char *{} = NULL; if ({} > 0) {} = {};", h, c, h, v.c));
                held.push((V { c: h, ty: v.ty.clone(), form: Form::Blob, k: None, lv: false, slice: None }, sp));
            }
        }
        let n = self.tmp();
        self.code.put(&format!("int {} = {};", n, if counts.is_empty() { "0".into() } else { counts.join(" + ") }));
        let mut strmax = String::new();
        let esize = match &ety {
            t if t.is_scalar() => self.types.size_of(t).unwrap_or(4).to_string(),
            Ty::Str(_) => {
                let m = self.tmp();
                self.code.put(&format!("int {} = 0;", m));
                for (v, _) in &held {
                    self.code.put(&format!("if ({}.len > {}) {} = {}.len;", v.c, m, m, v.c));
                }
                strmax = m.clone();
                format!("(int)MPD_STR_SIZE({})", m)
            }
            t => match self.types.size_of(t) {
                Some(s) => s.to_string(),
                None => {
                    let e = self.tmp();
                    let first = held[0].0.c.clone();
                    self.code.put(&format!("int {} = 0; if ({}) {} = (int)mpd_blob_size_k({}, {});", e, first, e, first, self.blob_kind(t)));
                    e
                }
            },
        };
        let a = self.tmp();
        let t = self.t();
        self.code.put(&format!("char *{} = mpd_tmp_alloc({}, MPD_ALIGN(mpd_arr_size(1, {}, {})));", a, t, n, esize));
        self.code.put(&format!("mpd_arr_hdr({}, 1, {}, {});", a, n, esize));
        let k = self.tmp();
        self.code.put(&format!("int {} = 0;", k));
        for ((val, sp), c) in held.into_iter().zip(&counts) {
            let r = self.tmp();
            self.code.open(&format!("for (int {r} = {c}; {r} > 0; {r}--, {k}++) {{"));
            let dst_addr = format!("({} + {} + (size_t){} * {})", a, ARR_HDR, k, esize);
            if ety.is_string() {
                self.code.put(&format!("mpd_str_init({}, {});", dst_addr, strmax));
                let dst = V { c: dst_addr, ty: ety.clone(), form: Form::Blob, k: None, lv: true, slice: None };
                self.assign_into(&dst, val, sp);
            } else if ety.is_blob() {
                self.code.put(&format!("memcpy({}, {}, {});", dst_addr, val.c, esize));
            } else {
                let ct = self.ctype(&ety);
                let dst = V { c: format!("(*({} *){})", ct, dst_addr), ty: ety.clone(), form: Form::Scalar, k: None, lv: true, slice: None };
                self.assign_into(&dst, val, sp);
            }
            self.code.close("}");
        }
        V { c: a, ty: Ty::Arr(Box::new(ety), None, None), form: Form::Blob, k: None, lv: false, slice: None }
    }
}

/// `null` or `noop` as a capability value.
fn null_cap(c: &str) -> String {
    if c == "mpd_noop" { "mpd_cap_noop".into() } else { "mpd_cap_null".into() }
}

impl V {
    /// Remembers that this value is the slice base[lo:hi] so it can be assigned to.
    fn with_slice_of(mut self, base: String, lo: String, hi: String, lv: bool) -> V {
        if lv {
            self.lv = true;
            self.slice = Some((base, lo, hi));
        }
        self
    }
}

impl<'a> Checker<'a> {
    /// `new([ranges] op (...))`, `new([ranges] optype)`, `new([ranges] sem)`:
    /// an array of capabilities for that many new dynamic operations.
    fn new_op_array(&mut self, t: &ast::Type, span: ast::Span) -> Option<V> {
        let ast::TypeKind::Array { elem, .. } = &t.kind else { return None };
        if !matches!(elem.kind, ast::TypeKind::Op(_) | ast::TypeKind::Sem | ast::TypeKind::Named(_)) {
            return None;
        }
        self.in_new = true;
        let tx = self.tyx(t, true);
        self.in_new = false;
        let mut leaf = &tx.ty;
        let mut ndims = 0;
        while let Ty::Arr(e, _, _) = leaf {
            leaf = e;
            ndims += 1;
        }
        let flags = match leaf {
            Ty::Cap(super::types::CapTy::Sem) => "MPD_OP_SEMAPHORE",
            Ty::Cap(super::types::CapTy::Op(_)) => "0",
            _ => return None,
        };
        let mut dims = tx.dims.clone();
        self.bind_dims(&mut dims, span);
        let size = self.size_c(&tx.ty, &dims, &None);
        let b = self.tmp();
        let tl = self.t();
        self.code.put(&format!("char *{} = mpd_tmp_alloc({}, {});", b, tl, size));
        let ty = tx.ty.clone();
        self.init_blob(&b, &ty, &dims, &None);
        let p = self.pos(span);
        self.code.put(&format!("mpd_op_new_arr({}, &self->h, {}, {}, {});", p, b, ndims, flags));
        Some(V { c: b, ty, form: Form::Blob, k: None, lv: false, slice: None })
    }
}

/// If `rhs` is the C of `lhs || e` (mpd_str_cat of lhs's own characters and
/// one more operand), that operand's C: the assignment `lhs = lhs || e` is
/// then an append in place.
/// Only a plain variable (`v_s_1`, `self->v_s_1`) qualifies: a target with
/// calls or subscripts in it would be evaluated once instead of twice.
fn appended_to<'a>(rhs: &'a str, lhs: &str) -> Option<&'a str> {
    if !lhs.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'>' || b == b'.') {
        return None;
    }
    let rest = rhs.strip_prefix("mpd_str_cat(")?;
    let (_, rest) = rest.split_once(", ")?; // the temporaries' list
    let rest = rest.strip_prefix("mpd_sv_of(")?.strip_prefix(lhs)?.strip_prefix("), ")?;
    let tail = rest.strip_suffix(')')?;
    one_c_expression(tail).then_some(tail)
}

/// Is `c` one C expression: brackets balanced, never closed below the start,
/// no comma outside them (string and char literals skipped)?
fn one_c_expression(c: &str) -> bool {
    let b = c.as_bytes();
    let (mut depth, mut i) = (0i32, 0usize);
    while i < b.len() {
        match b[i] {
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            b',' if depth == 0 => return false,
            _ => {}
        }
        i += 1;
    }
    depth == 0 && !c.is_empty()
}

/// How many subscripts a slice of a value of type `t` may have: one per
/// array dimension, one for a string (0: not sliceable).
pub(super) fn slice_rank(t: &Ty) -> usize {
    match t {
        Ty::Arr(e, ..) => 1 + match &**e {
            Ty::Arr(..) => slice_rank(e),
            _ => 0,
        },
        Ty::Str(_) => 1,
        Ty::Ptr(t) => slice_rank(t),
        _ => 0,
    }
}

/// The literal `noop` (typed like null, but a capability only).
pub(crate) fn is_noop(v: &V) -> bool {
    v.ty == Ty::Null && v.c == "mpd_noop"
}
