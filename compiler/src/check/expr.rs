//! expr: checking and translating expressions -- literals, names, fields, pointers,
//! new, array constructors; operators are in operator.rs, subscripts and slices
//! in index.rs, assignments in assign.rs, calls in builtin.rs and predef.rs.
use super::konst::{wrap, KV};
use super::resolved::Resolved;
use super::scope::Sym;
use super::types::{Ty, ARR_HDR};
use super::{Checker, Form, V};
use crate::emit::{self, data, io, lit, ops, var};
use crate::syntax::ast::{self, BinaryOp, Expr, ExprKind, Span};

impl<'a> Checker<'a> {
    /// The statement-temporaries list, marking that the statement used it.
    pub fn t(&mut self) -> &'static str {
        self.f.used_tmp = true;
        var::STMT_TMPS
    }

    /// Frees statement temporaries after a statement that made some.
    pub fn flush_tmps(&mut self) {
        if self.f.used_tmp {
            self.f.code.put(data::TMP_FREE);
            self.f.used_tmp = false;
        }
    }

    pub fn konst(&self, k: KV, ty: Ty) -> V {
        let c = match &k {
            KV::Int(n) => lit::c_int(*n),
            KV::Real(x) => lit::c_real(*x),
            KV::Bool(b) => {
                if *b {
                    "1".into()
                } else {
                    "0".into()
                }
            }
            KV::Char(c) => lit::c_char(*c),
            KV::Str(s) => data::sv_lit(s),
        };
        let form = if matches!(k, KV::Str(_)) { Form::View } else { Form::Scalar };
        V { c, ty, form, k: Some(k), lv: false, slice: None }
    }

    /// Checks an expression and returns its C translation.
    /// The value a name resolved to a variable, a constant or an
    /// enumeration literal stands for (a name, or a component's member).
    fn named_value(&mut self, r: Resolved) -> V {
        match r {
            Resolved::Var { c, ty, assignable } => {
                let form = if ty.is_blob() { Form::Blob } else { Form::Scalar };
                V { c, ty, form, k: None, lv: assignable, slice: None }
            }
            Resolved::Const { v, ty } => {
                let mut r = self.konst(v, ty.clone());
                r.ty = ty;
                r
            }
            Resolved::EnumLit { e, i } => {
                let mut v = self.konst(KV::Int(i), Ty::Enum(e));
                v.ty = Ty::Enum(e);
                v
            }
            _ => V::err(),
        }
    }

    pub fn expr(&mut self, e: &Expr) -> V {
        if let Some(v) = self.preset_of(e) {
            return v; // evaluated already, in order (order.rs)
        }
        if self.opts.audit_types && !self.auditing {
            return self.audited_expr(e);
        }
        self.expr_of(e)
    }

    /// `expr` proper.
    pub(super) fn expr_of(&mut self, e: &Expr) -> V {
        match &e.kind {
            ExprKind::Int(n) => {
                self.checked(e);
                self.konst(KV::Int(wrap(*n)), Ty::Int)
            }
            ExprKind::Real(x) => self.konst(KV::Real(*x), Ty::Real),
            ExprKind::Char(c) => self.konst(KV::Char(*c), Ty::Char),
            ExprKind::Bool(b) => self.konst(KV::Bool(*b), Ty::Bool),
            ExprKind::Str(s) => {
                let n = s.len() as i64;
                self.konst(KV::Str(s.clone()), Ty::Str(Some(n)))
            }
            ExprKind::Null => V::scalar(emit::expr::NULL.into(), Ty::Null),
            ExprKind::Noop => V::scalar(emit::expr::NOOP.into(), Ty::Null),
            ExprKind::StdFile(f) => V::scalar(
                match f {
                    ast::StdFile::Stdin => io::STDIN,
                    ast::StdFile::Stdout => io::STDOUT,
                    ast::StdFile::Stderr => io::STDERR,
                }
                .into(),
                Ty::File,
            ),
            ExprKind::Ident(id) => self.ident(e, id),
            ExprKind::Paren(inner) => {
                let mut v = self.expr(inner);
                v.lv = false;
                v
            }
            ExprKind::Field { base, name } => self.field(e, base, name),
            ExprKind::Index { base, subs } => self.index_value(e, base, subs),
            ExprKind::Call { callee, args } => self.call_expr(e, callee, args),
            ExprKind::Unary { op, operand } => self.unary(e, *op, operand),
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), lhs, rhs } => self.and_or(e, *op, lhs, rhs),
            ExprKind::Binary { op, lhs, rhs } => {
                let rtl = |s: &mut Self| super::order::call_operator(*op, s.type_of(lhs).is_string());
                self.in_order(&[&**lhs, &**rhs], &[], rtl, |s| {
                    let a = s.expr(lhs);
                    let b = s.expr(rhs);
                    s.binary_node(e, *op, a, b)
                })
            }
            ExprKind::Assign { op, lhs, rhs } => {
                // a value that is none (`c = abs`): the rule's error
                // (assign_type; its only one so far, found before the target)
                if !self.passes(e) {
                    return V::err();
                }
                // the value of an assignment is the variable's new value
                match self.assign_expr(*op, lhs, rhs, e.span) {
                    Some(l) => V { lv: false, slice: None, k: None, ..l },
                    None => V::err(),
                }
            }
            // the value of a swap is the left variable's new value
            ExprKind::Swap { lhs, rhs } => self.swap(e, lhs, rhs).unwrap_or_else(V::err),
            ExprKind::ArrayCons(elems) => self.array_cons(elems, e.span),
            ExprKind::Type(_) => {
                self.checked(e);
                V::err()
            }
            ExprKind::New(t) => self.new_value(t, e.span),
            ExprKind::Low(t) | ExprKind::High(t) => self.low_high(t, matches!(e.kind, ExprKind::High(_))),
            ExprKind::Create { target, args, on } => self.create(target, args, on.as_deref(), e.span),
        }
    }

    /// An indexed expression used as a value: an element of an op array (its capability),
    /// an op of a resource capability's op array, or an array element or slice.
    fn index_value(&mut self, e: &Expr, base: &Expr, subs: &[ast::Subscript]) -> V {
        // an element of an op array used as a value: its capability
        let mut root = base;
        while let ExprKind::Index { base: b2, .. } = &root.kind {
            root = b2.as_ref();
        }
        if let ExprKind::Ident(id) = &root.kind {
            if let Some(Sym::Proc(sig)) = self.lookup(&id.name).cloned() {
                if sig.op.is_some() {
                    return match self.op_target(e) {
                        Some((sig, super::ops::Target::Op(op))) => {
                            let r = sig.op.clone().unwrap();
                            self.note_nosema(&r);
                            let k = self.op_sig(&sig);
                            let ty = if r.sem {
                                Ty::Cap(super::types::CapTy::Sem)
                            } else {
                                Ty::Cap(super::types::CapTy::Op(k))
                            };
                            V::scalar(ops::cap_of_op(&op.to_string()), ty)
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
            return V::scalar(ops::rescap_op(&rc.c, &ops::op_slot(r.idx, &ix)), ty);
        }
        let b = self.expr(base);
        self.index(b, subs, e.span)
    }

    /// `new(t)`: a dynamic operation, semaphore or op array, or a fresh block of type t.
    fn new_value(&mut self, t: &ast::Type, span: Span) -> V {
        if let Some(v) = self.new_op_array(t, span) {
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
            let p = self.pos(span);
            let sem = matches!(ty, Ty::Cap(super::types::CapTy::Sem));
            return V::scalar(ops::op_new(&p, sem), ty);
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
            self.f.code.put(&var::local_int(&n, &s));
            n
        });
        let size = self.size_c(&ty, &dims, &strlen);
        let tmp = self.tmp();
        self.f.code.put(&data::new_block(&tmp, &size));
        self.init_blob(&tmp, &ty, &dims, &strlen);
        V::scalar(data::new_ptr(&tmp), Ty::Ptr(Box::new(ty)))
    }

    /// `low(t)`, `high(t)`: the least or greatest value of an ordered type.
    fn low_high(&mut self, t: &ast::Type, high: bool) -> V {
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

    /// `a and b`, `a or b`.  On bools b is evaluated only when a does not
    /// decide: C's && and || do that for b's expression, but the statements
    /// some operands need first (a call through a capability, a string
    /// result, ...) are put under an `if` on a's value.  On ints (bitwise)
    /// both are evaluated.
    pub(super) fn and_or(&mut self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> V {
        let a = self.expr(lhs);
        let mark = self.f.code.out.len();
        let b = self.expr(rhs);
        if self.f.code.out.len() == mark || a.ty != Ty::Bool || b.ty != Ty::Bool {
            return self.binary_node(e, op, a, b);
        }
        let pre = self.f.code.out.split_off(mark);
        let t = self.tmp();
        for l in emit::expr::short_circuit_open(&t, &a.c, op == BinaryOp::And) {
            self.f.code.put(&l);
        }
        self.f.code.out.push_str(&pre);
        self.f.code.put(&var::store(&t, &b.c));
        self.f.code.put(emit::BLOCK_END);
        V::scalar(t, Ty::Bool)
    }

    /// A name `e` (`id`) as a value, by what it resolves to (resolved.rs).
    pub(super) fn ident(&mut self, e: &Expr, id: &ast::Ident) -> V {
        // a procedure named as a value (a capability) above its heading is
        // undefined there, as a call is
        match self.resolution_used(e, id, true) {
            Resolved::Var { c, ty, assignable } => {
                let c = self.captured(&id.name, c, &ty);
                self.named_value(Resolved::Var { c, ty, assignable })
            }
            r @ (Resolved::Const { .. } | Resolved::EnumLit { .. }) => self.named_value(r),
            Resolved::Op(s) => self.op_cap_value(&s, id.span),
            // no value here: the rule's error (type_of.rs's not_a_value_error)
            _ => {
                self.checked(e);
                V::err()
            }
        }
    }

    /// Why a name with no symbol is not a value: a predefined function
    /// (called only), or a component's name.  None: `e` is something else.
    pub(crate) fn not_a_value(&self, e: &Expr) -> Option<String> {
        let ExprKind::Ident(id) = &e.kind else { return None };
        match self.lookup(&id.name) {
            // this component, or another one where it is imported
            Some(Sym::Comp(_)) => return Some(format!("{} names a component, not a value", id.name)),
            Some(_) => return None,
            None => {}
        }
        if super::builtin::is_predefined(&id.name) {
            return Some(format!("{} is a predefined function: it can only be called", id.name));
        }
        None
    }

    /// `base.name` (`e`): a component's member, an op of a resource
    /// capability, a record's field.
    pub(super) fn field(&mut self, e: &Expr, base: &Expr, name: &ast::Ident) -> V {
        // qualified name: component.member (`t.f` of a type t: its rule's error)
        if let ExprKind::Ident(b) = &base.kind {
            if matches!(self.lookup(&b.name), Some(Sym::Type(_))) || self.names_component(base) {
                if !self.passes(e) {
                    return V::err();
                }
                return match self.resolution(e) {
                    Resolved::Member(m) => match *m {
                        r @ (Resolved::Var { .. } | Resolved::Const { .. } | Resolved::EnumLit { .. }) => {
                            self.named_value(r)
                        }
                        // `g.op` is a capability for the global's op, as `op` is
                        Resolved::Op(s) => self.op_cap_value(&s, name.span),
                        _ => V::err(),
                    },
                    _ => V::err(),
                };
            }
        }
        let b = self.expr(base);
        // what has no such op or field: the rule's error (type_of.rs's field_error)
        if !self.passes(e) {
            return V::err();
        }
        if let Ty::Cap(super::types::CapTy::Resource(rn)) = &b.ty {
            // rc.op: the capability of one op of the resource
            return match self.res_member(&rn.clone(), &name.name) {
                Some(Sym::Proc(sig)) if sig.op.is_some() => {
                    let r = sig.op.clone().unwrap();
                    if !r.dims.is_empty() {
                        // rc.a whole: the capabilities of the instance's ops
                        let rc = b.c.clone();
                        return self.op_array_value(&sig, &move |_, r, k| ops::rescap_op(&rc, &ops::op_elem(r.idx, k)));
                    }
                    let k = self.op_sig(&sig);
                    let ty =
                        if r.sem { Ty::Cap(super::types::CapTy::Sem) } else { Ty::Cap(super::types::CapTy::Op(k)) };
                    // as a value, rc.f is the op it names (rc.f = x may have changed it)
                    V::scalar(ops::rescap_op(&b.c, &r.idx.to_string()), ty)
                }
                _ => V::err(),
            };
        }
        let Ty::Rec(r) = &b.ty else { return V::err() };
        let info = &self.types.recs[*r];
        let Some((_, fty, off)) = info.fields.iter().find(|f| f.0 == name.name) else { return V::err() };
        let (fty, off) = (fty.clone(), *off);
        let addr = data::field_addr(&b.c, off);
        if fty.is_blob() {
            V { c: addr, ty: fty, form: Form::Blob, k: None, lv: b.lv, slice: None }
        } else {
            let ct = self.ctype(&fty);
            V { c: data::at(&ct, &addr), ty: fty, form: Form::Scalar, k: None, lv: b.lv, slice: None }
        }
    }

    /// MPD's predefined enumerations accessmode (READ, WRITE, READWRITE) and
    /// seektype (ABSOLUTE, RELATIVE, EXTEND), in the shared type table.
    pub fn predefined_enum(&mut self, name: &str) -> usize {
        if let Some(i) = self.types.enums.iter().position(|e| e.name == name) {
            return i;
        }
        let lits =
            if name == "accessmode" { ["READ", "WRITE", "READWRITE"] } else { ["ABSOLUTE", "RELATIVE", "EXTEND"] };
        self.types
            .enums
            .push(super::types::EnumInfo { name: name.into(), lits: lits.iter().map(|s| s.to_string()).collect() });
        self.types.enums.len() - 1
    }

    /// Inside an st/by callback, a local of the enclosing code is reached through
    /// the callback's environment.
    pub(super) fn captured(&mut self, name: &str, c: String, ty: &Ty) -> String {
        if self.f.capture.is_none() {
            return c;
        }
        let idx = self.scopes.iter().rposition(|s| s.map.contains_key(name)).unwrap_or(0);
        let ct = self.ctype(ty);
        self.capture_at(idx, c, &ct, ty.is_blob())
    }

    /// `captured` for the C variable `c` of C type `ct` declared in scope
    /// `idx` (a blob's is its address).
    pub(super) fn capture_at(&mut self, idx: usize, c: String, ct: &str, blob: bool) -> String {
        let Some((depth, _)) = &self.f.capture else { return c };
        if idx >= *depth || emit::names::outside_frame(&c) {
            return c;
        }
        let ct = var::ptr_ctype(ct, blob);
        let list = &mut self.f.capture.as_mut().unwrap().1;
        let k = match list.iter().position(|(x, _)| *x == c) {
            Some(k) => k,
            None => {
                list.push((c.clone(), ct));
                list.len() - 1
            }
        };
        emit::inop::env_ref(k, blob)
    }

    /// The C of `p^`, which passed the rules (type_operator.rs).
    pub fn deref(&mut self, p: V, span: Span) -> V {
        let Ty::Ptr(inner) = &p.ty else { return V::err() };
        let inner = match &**inner {
            Ty::Fwd(n) => match self.lookup(n) {
                Some(Sym::Type(t)) => t.clone(),
                _ => return V::err(),
            },
            t => t.clone(),
        };
        let pc = if self.opts.no_checks { p.c.clone() } else { data::ptr_check(&self.pos(span), &p.c) };
        if inner.is_blob() {
            V { c: data::blob_at(&pc), ty: inner, form: Form::Blob, k: None, lv: true, slice: None }
        } else {
            let ct = self.ctype(&inner);
            V { c: data::at(&ct, &pc), ty: inner, form: Form::Scalar, k: None, lv: true, slice: None }
        }
    }

    /// The value of an ordinal expression as a C int (subscripts, bounds);
    /// `what` is MPD 1.0.1's message for a value of another type.
    pub fn ordinal_value(&mut self, v: V, span: Span, what: &str) -> V {
        if !v.ty.is_ordinal() {
            self.error(
                span,
                format!("{} (expected an int, char, bool or enum value, found {})", what, self.types.show(&v.ty)),
            );
            return V::err();
        }
        v
    }

    /// The string view of a string-like value (string, char, char array).
    pub fn sv(&mut self, v: &V) -> String {
        match (&v.ty, v.form) {
            (Ty::Str(_), Form::Blob) => data::sv_of(&v.c),
            (Ty::Str(_), _) => v.c.clone(),
            (Ty::Char, _) => {
                let t = self.t();
                data::sv_of_char(t, &v.c)
            }
            (t, _) if t.is_char_array() => {
                let t = self.t();
                data::sv_of_chars(t, &v.c)
            }
            _ => io::EMPTY_SV.into(),
        }
    }

    /// `(e1, [n] e2, ...)`: a new array [1:count].  Counts are evaluated first;
    /// an element repeated zero times is not evaluated.
    pub(super) fn array_cons(&mut self, elems: &[ast::ArrayElem], span: Span) -> V {
        let p = self.pos(span);
        let counts = self.cons_counts(elems, &p);
        let mut vals = Vec::new();
        for el in elems {
            let v = self.expr(&el.value);
            vals.push((v, el.span));
        }
        let Some(ety) = self.cons_elem_type(&vals) else { return V::err() };
        let held = self.cons_hold(vals, &counts, &ety);
        let n = self.tmp();
        self.f.code.put(&var::local_int(&n, &data::cons_total(&counts)));
        let (esize, strmax) = self.cons_elem_size(&ety, &held);
        let a = self.tmp();
        let t = self.t();
        for l in data::cons_alloc(&a, t, &n, &esize) {
            self.f.code.put(&l);
        }
        let k = self.tmp();
        self.f.code.put(&var::local_int(&k, "0"));
        let into = ConsInto { a: &a, k: &k, esize: &esize, strmax: &strmax };
        self.cons_fill(held, &counts, &ety, &into);
        V { c: a, ty: Ty::arr(ety, None, None), form: Form::Blob, k: None, lv: false, slice: None }
    }

    /// An array constructor's repetition counts, each in a temporary (1 when absent).
    fn cons_counts(&mut self, elems: &[ast::ArrayElem], p: &str) -> Vec<String> {
        let mut counts = Vec::new();
        for el in elems {
            let c = self.tmp();
            match &el.count {
                Some(ce) => {
                    let v = self.expr(ce);
                    if v.ty != Ty::Int && v.ty != Ty::Error {
                        self.error(ce.span, "repetition count is not an integer");
                    }
                    self.f.code.put(&data::cons_count(&c, p, &v.c));
                }
                None => self.f.code.put(&var::local_int(&c, "1")),
            }
            counts.push(c);
        }
        counts
    }

    /// An array constructor's element type: the first element's (MPD 1.0.1: every other
    /// element must have exactly that type, so an int does not become a real here);
    /// None (with the error) for a null first.
    fn cons_elem_type(&mut self, vals: &[(V, Span)]) -> Option<Ty> {
        let ety = vals.first().map(|v| v.0.ty.clone()).unwrap_or(Ty::Int);
        if ety == Ty::Null {
            // the first element gives the type: null/noop have none of their own (MPD 1.0.1's spelling)
            self.error(vals[0].1, "ambigous: don't know what kind of null/noop (put a typed element first)");
            return None;
        }
        Some(ety)
    }

    /// Evaluates each constructor element once (only if repeated at least once) into a temporary.
    fn cons_hold(&mut self, vals: Vec<(V, Span)>, counts: &[String], ety: &Ty) -> Vec<(V, Span)> {
        let mut held = Vec::new();
        for (n, ((v, sp), c)) in vals.into_iter().zip(counts).enumerate() {
            let h = self.tmp();
            if ety.is_string() {
                // MPD 1.0.1 compares element types exactly, a string's
                // declared length included when both are known ("ab" and
                // "c", string[5] and string[3]); a length known only at run
                // time (a slice, a concatenation) meets any (the longest
                // sets the element size)
                let lengths_differ = matches!((&ety, &v.ty), (Ty::Str(Some(a)), Ty::Str(Some(b))) if a != b);
                if !(v.ty.is_string() || v.ty == Ty::Error) || lengths_differ {
                    self.cons_mismatch(n, &ety, &v.ty, sp);
                    continue;
                }
                let s = self.sv(&v);
                self.f.code.put(&data::cons_hold_sv(&h, c, &s));
                held.push((V { c: h, ty: Ty::Str(None), form: Form::View, k: None, lv: false, slice: None }, sp));
            } else if ety.is_scalar() {
                if !self.types.assignable(&ety, &v.ty) {
                    self.cons_mismatch(n, &ety, &v.ty, sp);
                }
                let v = self.coerce(v, &ety);
                let ct = self.ctype(&ety);
                self.f.code.put(&data::cons_hold_scalar(&ct, &h, c, &v.c));
                held.push((V::scalar(h, ety.clone()), sp));
            } else {
                if !self.types.same(&ety, &v.ty) {
                    self.error(sp, format!("element {} of constructor is incompatible", n + 1));
                }
                self.f.code.put(&data::cons_hold_blob(&h, c, &v.c));
                held.push((V { c: h, ty: v.ty.clone(), form: Form::Blob, k: None, lv: false, slice: None }, sp));
            }
        }
        held
    }

    /// MPD 1.0.1's "element N of constructor is incompatible" (`n` counts from 0).
    fn cons_mismatch(&mut self, n: usize, ety: &Ty, got: &Ty, sp: Span) {
        let (e, g) = (self.types.show(ety), self.types.show(got));
        self.error(
            sp,
            format!(
                "element {} of constructor is incompatible ({} and {}: the first element gives the type)",
                n + 1,
                e,
                g
            ),
        );
    }

    /// The size of a constructor's element (C expression) and, for strings, the temporary
    /// holding the longest element's length.
    fn cons_elem_size(&mut self, ety: &Ty, held: &[(V, Span)]) -> (String, String) {
        let mut strmax = String::new();
        let esize = match ety {
            t if t.is_scalar() => self.types.size_of(t).unwrap_or(4).to_string(),
            Ty::Str(_) => {
                let m = self.tmp();
                let hs: Vec<String> = held.iter().map(|h| h.0.c.clone()).collect();
                let (lines, size) = data::cons_str_max(&m, &hs);
                for l in lines {
                    self.f.code.put(&l);
                }
                strmax = m;
                size
            }
            t => match self.types.size_of(t) {
                Some(s) => s.to_string(),
                None => {
                    let e = self.tmp();
                    let first = held[0].0.c.clone();
                    let kind = self.blob_kind(t);
                    self.f.code.put(&data::cons_blob_size(&e, &first, &kind));
                    e
                }
            },
        };
        (esize, strmax)
    }

    /// Copies each held constructor element count times into the new array.
    fn cons_fill(&mut self, held: Vec<(V, Span)>, counts: &[String], ety: &Ty, into: &ConsInto) {
        let ConsInto { a, k, esize, strmax } = *into;
        for ((val, sp), c) in held.into_iter().zip(counts) {
            let r = self.tmp();
            self.f.code.open(&data::cons_repeat(&r, c, k));
            let dst_addr = data::cons_elem(a, ARR_HDR, k, esize);
            if ety.is_string() {
                self.f.code.put(&var::str_init(&dst_addr, strmax));
                let dst = V { c: dst_addr, ty: ety.clone(), form: Form::Blob, k: None, lv: true, slice: None };
                self.assign_into(&dst, val, sp);
            } else if ety.is_blob() {
                self.f.code.put(&var::blob_copy(&dst_addr, &val.c, esize));
            } else {
                let ct = self.ctype(&ety);
                let dst = V {
                    c: data::at(&ct, &dst_addr),
                    ty: ety.clone(),
                    form: Form::Scalar,
                    k: None,
                    lv: true,
                    slice: None,
                };
                self.assign_into(&dst, val, sp);
            }
            self.f.code.close_block();
        }
    }
}

impl<'a> Checker<'a> {
    /// `new([ranges] op (...))`, `new([ranges] optype)`, `new([ranges] sem)`:
    /// an array of capabilities for that many new dynamic operations.
    pub(super) fn new_op_array(&mut self, t: &ast::Type, span: ast::Span) -> Option<V> {
        let ast::TypeKind::Array { elem, .. } = &t.kind else { return None };
        if !matches!(elem.kind, ast::TypeKind::Op(_) | ast::TypeKind::Sem | ast::TypeKind::Named(_)) {
            return None;
        }
        self.in_new = true;
        let tx = self.tyx(t, true);
        self.in_new = false;
        let mut leaf = &tx.ty;
        let mut ndims = 0;
        while let Ty::Arr(e, _, _, _) = leaf {
            leaf = e;
            ndims += 1;
        }
        let sem = match leaf {
            Ty::Cap(super::types::CapTy::Sem) => true,
            Ty::Cap(super::types::CapTy::Op(_)) => false,
            _ => return None,
        };
        let mut dims = tx.dims.clone();
        self.bind_dims(&mut dims, span);
        let size = self.size_c(&tx.ty, &dims, &None);
        let b = self.tmp();
        let tl = self.t();
        self.f.code.put(&data::tmp_block(&b, tl, &size));
        let ty = tx.ty.clone();
        self.init_blob(&b, &ty, &dims, &None);
        let p = self.pos(span);
        self.f.code.put(&ops::op_new_arr(&p, &b, ndims, sem));
        Some(V { c: b, ty, form: Form::Blob, k: None, lv: false, slice: None })
    }
}

/// Where an array constructor's elements go: the new array `a`, the index
/// `k` of the next element, the element size, and (strings) the longest
/// element's length.
#[derive(Clone, Copy)]
struct ConsInto<'s> {
    a: &'s str,
    k: &'s str,
    esize: &'s str,
    strmax: &'s str,
}

/// The literal `noop` (typed like null, but a capability only).
pub(crate) fn is_noop(v: &V) -> bool {
    v.ty == Ty::Null && v.c == emit::expr::NOOP
}
