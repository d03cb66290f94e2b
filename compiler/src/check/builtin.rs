//! builtin: invocations — procedures, conversions, record constructors and MPD's
//! predefined functions (I/O through mpd/abi/io.h, the rest through mpd/abi/lang.h or C).
use super::konst::{self, KV};
use super::resolved::Resolved;
use super::scope::{PSig, ProcSig, Sym};
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::convert::{self, FromStr};
use crate::emit::{self, call, data};
use crate::syntax::ast::{self, Expr, ExprKind, ParamMode, Span, TypeKind};
use std::rc::Rc;

impl<'a> Checker<'a> {
    /// The call `e`, `callee(args)`: a conversion, a record constructor, a
    /// call of a proc or op, an invocation through a capability, or a
    /// predefined function.
    pub fn call_expr(&mut self, e: &Expr, callee: &Expr, args: &[Expr]) -> V {
        let span = e.span;
        match &callee.kind {
            ExprKind::Type(t) => {
                let ty = match &t.kind {
                    TypeKind::String(None) => Ty::Str(None),
                    _ => self.ty(t),
                };
                self.convert(e, ty, args)
            }
            ExprKind::Ident(id) => match self.resolution_used(callee, id, true) {
                // an imported op does not hide a predefined function of the same name
                Resolved::Op(_) | Resolved::Proc(_) if self.imported_only(&id.name) && is_predefined(&id.name) => {
                    self.predefined_in_order(e, &id.name, args)
                }
                Resolved::Op(sig) | Resolved::Proc(sig) => self.call_proc(e, &sig, args),
                Resolved::Type(ty) => match ty {
                    Ty::Rec(_) => self.rec_cons(e, ty, args),
                    _ => self.convert(e, ty, args),
                },
                Resolved::Var { .. } => self.op_call(callee, args, span),
                Resolved::NotValue(Sym::Comp(_)) => {
                    self.error(id.span, format!("not an op: {} (it names a component)", id.name));
                    V::err()
                }
                // no symbol: a predefined function, else undefined (EOF and
                // the predefined enumerations' literals are no functions)
                Resolved::Predef(_) | Resolved::Nothing => self.predefined_in_order(e, &id.name, args),
                Resolved::Const { .. } | Resolved::EnumLit { .. } if self.lookup(&id.name).is_none() => {
                    self.predefined_in_order(e, &id.name, args)
                }
                _ => {
                    self.error(id.span, format!("`{}` cannot be invoked", id.name));
                    V::err()
                }
            },
            ExprKind::Field { base, .. } => {
                if let ExprKind::Ident(b) = &base.kind {
                    if matches!(self.lookup(&b.name), Some(Sym::Comp(_))) {
                        if let Resolved::Member(m) = self.resolution(callee) {
                            if let Resolved::Op(sig) | Resolved::Proc(sig) = *m {
                                return self.call_proc(e, &sig, args);
                            }
                        }
                    }
                }
                // an external of a resource's spec through a capability
                // (`c.abs(x)`) is the C function itself, as in MPD 1.0.1
                if let Resolved::ResCapOp { sig } = self.resolution(callee) {
                    if sig.external {
                        return self.call_proc(e, &sig, args);
                    }
                }
                self.op_call(callee, args, span)
            }
            _ => self.op_call(callee, args, span),
        }
    }

    /// The call `e` of an op implemented by a proc: direct, or through an
    /// invocation block.  A direct call's argument count is its rule's
    /// (proc_call_type), checked before the arguments.
    fn call_proc(&mut self, e: &Expr, sig: &Rc<ProcSig>, args: &[Expr]) -> V {
        let span = e.span;
        // ops not implemented by a proc of this component (or of a global) go
        // through an invocation block
        if let Some(r) = &sig.op {
            if !r.dims.is_empty() {
                self.error(span, format!("not an op: {} (it is an array of ops: subscript it)", sig.name));
                return V::err();
            }
            if !self.op_reachable(r, span) || !self.restriction_ok(r, &sig.name, false, span) {
                return V::err();
            }
            let direct = r.proc_impl && (r.owner == self.comp || r.global_owner);
            if !direct {
                let target = super::ops::Target::Op(self.op_ptr(r, &r.idx.to_string()));
                if r.sem {
                    self.error(span, "a semaphore is used with P and V");
                    return V::err();
                }
                return self.invoke_block(sig, target, args, false, span);
            }
        }
        if args.len() != sig.params.len() {
            return self.rejected(e);
        }
        let mut cargs = vec![
            sig.selfc.clone(),
            {
                self.f.used_tmp = true;
                emit::var::STMT_TMPS.to_string()
            },
            call::NO_BLOCK.to_string(),
        ];
        if sig.external {
            cargs.clear();
        }
        let mut writeback: Vec<String> = Vec::new();
        let saved_mismatch = self.mismatch.take();
        for (n, (a, p)) in args.iter().zip(sig.params.iter()).enumerate() {
            self.mismatch = saved_mismatch.clone();
            self.proc_arg(sig, n, a, p, &mut cargs, &mut writeback);
        }
        self.mismatch = saved_mismatch;
        let call = self.proc_call_c(sig, &cargs, span);
        self.call_result(sig, call, writeback)
    }

    /// Argument `n` of a direct call (`a` for formal `p`): its C, pushed on `cargs`;
    /// what goes back into the actual after the call is pushed on `writeback`.
    fn proc_arg(
        &mut self,
        sig: &ProcSig,
        n: usize,
        a: &Expr,
        p: &PSig,
        cargs: &mut Vec<String>,
        writeback: &mut Vec<String>,
    ) {
        if sig.external {
            if let Some((arg, back)) = self.int_cell_arg(a, &p.ty) {
                cargs.push(arg);
                writeback.extend(back);
                return;
            }
        }
        let v = self.expr(a);
        if v.ty == Ty::Error {
            cargs.push("0".into());
            return;
        }
        self.mismatch = Some(format!("{}(): argument {} is incompatible", sig.name, n + 1));
        let byref = !matches!(p.mode, ParamMode::Default | ParamMode::Val);
        if p.mode == ParamMode::Ref && v.slice.is_some() {
            // a slice is a copy, not the variable: the callee could not change it
            self.error(a.span, "cannot pass slice expression to ref parameter");
            cargs.push("0".into());
            return;
        }
        if p.ty.is_blob() {
            let c = self.blob_arg(a, p, &v, byref, writeback);
            if sig.external && p.ty.is_string() {
                // C may store a shorter string into a var/res one: its NUL sets the length
                if matches!(p.mode, ParamMode::Var | ParamMode::Res) {
                    writeback.push(call::ext_str_sync(&c));
                }
                cargs.push(call::ext_str(&c));
            } else if sig.external && matches!(p.ty, Ty::Arr(..)) {
                // C sees the elements, not the array header
                cargs.push(call::ext_arr(&c));
            } else {
                cargs.push(c);
            }
        } else if byref {
            if !v.lv || v.form != Form::Scalar {
                self.error(a.span, "var/res/ref parameter is not a variable");
                cargs.push("0".into());
                return;
            }
            if !self.types.same(&p.ty, &v.ty) {
                self.error(
                    a.span,
                    format!(
                        "{} (expected a {} variable, found {})",
                        self.mismatch_what(),
                        self.types.show(&p.ty),
                        self.types.show(&v.ty)
                    ),
                );
            }
            if sig.external && p.mode != ParamMode::Ref {
                // an external's var/res scalar: C gets the value (MPD 1.0.1)
                let file = p.ty == Ty::File;
                cargs.push(if file { call::ext_file(&v.c) } else { v.c.clone() });
            } else {
                cargs.push(call::by_ref(&v.c));
            }
        } else {
            let file = p.ty == Ty::File;
            let c = self.scalar_for(&p.ty, v, a.span);
            cargs.push(if sig.external && file { call::ext_file(&c) } else { c });
        }
    }

    /// A string, array or record argument `v` (of `a`) for blob formal `p`: its C
    /// (a var slice is passed through a temporary written back after the call).
    fn blob_arg(&mut self, a: &Expr, p: &PSig, v: &V, byref: bool, writeback: &mut Vec<String>) -> String {
        match &p.ty {
            Ty::Str(_) => {
                if !v.ty.is_string() {
                    self.error(
                        a.span,
                        format!("{} (expected a string, found {})", self.mismatch_what(), self.types.show(&v.ty)),
                    );
                }
                if byref {
                    if !v.lv || v.form != Form::Blob {
                        self.error(a.span, "var/res/ref parameter is not a variable");
                    }
                    v.c.clone()
                } else if v.form == Form::Blob && v.ty.is_string() {
                    v.c.clone()
                } else {
                    let s = self.sv(v);
                    let t = self.t();
                    call::str_blob(t, &s)
                }
            }
            _ => {
                if !self.types.assignable(&p.ty, &v.ty) {
                    self.error(
                        a.span,
                        format!(
                            "{} (expected a {}, found {})",
                            self.mismatch_what(),
                            self.types.show(&p.ty),
                            self.types.show(&v.ty)
                        ),
                    );
                }
                if byref && !v.lv {
                    self.error(a.span, "var/res/ref parameter is not a variable");
                }
                if v.ty.is_string() {
                    let s = self.sv(v);
                    let t = self.t();
                    emit::builtin::chars(t, &s)
                } else if let (true, Some((base, lo, hi))) = (byref, v.slice.clone()) {
                    // a slice passed var: the callee's result goes back into it
                    let tmp = self.tmp();
                    self.f.code.put(&emit::var::local_blob_init(&tmp, &v.c));
                    let p = self.pos(a.span);
                    if lo == "#sec" {
                        writeback.push(data::arr_section_set(&p, &base, &hi, &tmp));
                    } else {
                        writeback.push(data::arr_slice_set(&p, &base, &lo, &hi, &tmp));
                    }
                    tmp
                } else {
                    v.c.clone()
                }
            }
        }
    }

    /// The C call of a proc with arguments `cargs`: while tracing, through the proc's
    /// traced twin, told the call site.
    fn proc_call_c(&mut self, sig: &ProcSig, cargs: &[String], span: Span) -> String {
        let mut call = call::call(&sig.cname, cargs);
        if !sig.external && cargs.len() == sig.params.len() + 3 {
            // while tracing, the proc's traced twin, told the call site
            self.fresh += 1;
            let var = emit::trace::call_site_name(self.fresh);
            let p = self.pos(span);
            self.out.protos.push_str(&crate::emit::trace::call_site(&var, &p));
            let types: Vec<String> = sig
                .params
                .iter()
                .map(|p| {
                    let byref = !matches!(p.mode, ast::ParamMode::Default | ast::ParamMode::Val);
                    if byref && !p.ty.is_blob() {
                        emit::var::ptr_ctype(&self.ctype(&p.ty), false)
                    } else {
                        self.ctype(&p.ty)
                    }
                })
                .collect();
            call = crate::emit::trace::direct_call(
                &sig.cname,
                &cargs[0],
                &cargs[1],
                &crate::emit::trace::call_site_arg(&var),
                &types,
                &cargs[3..],
            );
        }
        call
    }

    /// The value of a direct call `call`: the write-backs into its actuals run after
    /// it, and an external's C string result becomes a string view.
    fn call_result(&mut self, sig: &ProcSig, mut call: String, mut writeback: Vec<String>) -> V {
        if sig.external && sig.ret.is_string() && !writeback.is_empty() {
            let t = self.tmp();
            self.f.code.put(&emit::var::local_blob_init(&t, &call));
            for w in writeback.drain(..) {
                self.f.code.put(&w);
            }
            call = t;
        }
        if !writeback.is_empty() {
            if sig.ret == Ty::Void {
                self.f.code.put(&emit::stmt::expr_stmt(&call));
                for w in writeback {
                    self.f.code.put(&w);
                }
                return V::scalar("0".into(), Ty::Void);
            }
            let t = self.tmp();
            let ct = self.ctype(&sig.ret);
            self.f.code.put(&emit::var::local_c(&ct, &t, &call));
            for w in writeback {
                self.f.code.put(&w);
            }
            let form = if sig.ret.is_blob() { Form::Blob } else { Form::Scalar };
            return V { c: t, ty: sig.ret.clone(), form, k: None, lv: false, slice: None };
        }
        if sig.external && sig.ret.is_string() {
            // a C string result: NULL is "", longer than the declared size is cut
            let max = match sig.ret {
                Ty::Str(Some(n)) => n,
                _ => i64::from(i32::MAX),
            };
            let c = call::ext_str_result(&call, max);
            return V { c, ty: sig.ret.clone(), form: Form::View, k: None, lv: false, slice: None };
        }
        if sig.ret.is_blob() {
            let t = self.tmp();
            self.f.code.put(&emit::var::local_blob_init(&t, &call));
            V { c: t, ty: sig.ret.clone(), form: Form::Blob, k: None, lv: false, slice: None }
        } else {
            V::scalar(call, sig.ret.clone())
        }
    }

    /// An external's `ptr int` (or `ptr any`) argument written `@x`, x an
    /// int variable or field: C gets the address of a long-sized cell holding
    /// x, and x takes the cell's value back after the call.  SR and MPD were
    /// defined on 32-bit machines, where C's `time_t *` and `long *` were
    /// `int *`; on a 64-bit one such a callee reads or writes 8 bytes, and
    /// through `&x` it would read the neighbour of x or overwrite it
    /// (`time(@t)`, `ctime(@t)`).  A callee taking `int *` still sees x in the
    /// cell's first 4 bytes (little-endian targets).  Returns (argument,
    /// write-back), or None for any other argument.
    fn int_cell_arg(&mut self, a: &Expr, pty: &Ty) -> Option<(String, Option<String>)> {
        let ExprKind::Unary { op: ast::UnaryOp::AddrOf, operand } = &a.kind else { return None };
        // `@a[i]` may be the start of an int array C walks: left as it is
        if !matches!(operand.kind, ExprKind::Ident(_) | ExprKind::Field { .. }) {
            return None;
        }
        if !matches!(pty, Ty::PtrAny) && !matches!(pty, Ty::Ptr(t) if **t == Ty::Int) {
            return None;
        }
        // a name or field: evaluating it again below (when it is no int) is harmless
        let v = self.expr(operand);
        if v.ty == Ty::Error {
            return Some(("0".into(), None)); // reported once
        }
        if !(v.lv && v.form == Form::Scalar && v.ty == Ty::Int && v.slice.is_none()) {
            return None;
        }
        let cell = self.tmp();
        let (decl, arg, back) = call::ext_int_cell(&cell, &v.c);
        self.f.code.put(&decl);
        Some((arg, Some(back)))
    }

    /// An invocation of an op designated by an expression (capability, op array element...).
    fn op_call(&mut self, callee: &Expr, args: &[Expr], span: Span) -> V {
        let Some((sig, target)) = self.op_target(callee) else { return V::err() };
        if sig.op.as_ref().map(|r| r.sem).unwrap_or(false) {
            self.error(span, "a semaphore is used with P and V");
            return V::err();
        }
        self.invoke_block(&sig, target, args, false, span)
    }

    /// The record constructor `e`, `ty(args)`: its item count is its rule's
    /// (call_type), checked before the items.
    fn rec_cons(&mut self, e: &Expr, ty: Ty, args: &[Expr]) -> V {
        let Ty::Rec(r) = ty else { return V::err() };
        if !self.passes(e) {
            return V::err();
        }
        let fields = self.types.recs[r].fields.clone();
        let size = self.types.recs[r].size;
        let b = self.tmp();
        let t = self.t();
        self.f.code.put(&data::tmp_block(&b, t, &size.to_string()));
        let b2 = b.clone();
        self.init_blob(&b2, &ty, &[], &None);
        for (n, ((_, fty, off), a)) in fields.iter().zip(args).enumerate() {
            let v = self.expr(a);
            let dst = if fty.is_blob() {
                V { c: data::field_addr(&b, *off), ty: fty.clone(), form: Form::Blob, k: None, lv: true, slice: None }
            } else {
                let ct = self.ctype(fty);
                V {
                    c: data::at(&ct, &data::field_addr(&b, *off)),
                    ty: fty.clone(),
                    form: Form::Scalar,
                    k: None,
                    lv: true,
                    slice: None,
                }
            };
            self.with_mismatch(format!("item {} of rec constructor is incompatible", n + 1), |c| {
                c.assign_into(&dst, v, a.span)
            });
        }
        V { c: b, ty, form: Form::Blob, k: None, lv: false, slice: None }
    }

    pub(super) fn one_arg(&mut self, args: &[Expr], span: Span, what: &str) -> Option<V> {
        if args.len() != 1 {
            self.error(span, format!("{} takes one argument", what));
            return None;
        }
        Some(self.expr(&args[0]))
    }

    /// The conversion `e`, `to(x)`: its rule (convert_type) checks the
    /// argument count before the argument and the pair after it.
    fn convert(&mut self, e: &Expr, to: Ty, args: &[Expr]) -> V {
        if args.len() != 1 {
            return self.rejected(e);
        }
        let v = self.expr(&args[0]);
        if !self.passes(e) || v.ty == Ty::Error || to == Ty::Error {
            return V::err();
        }
        if let Some(k) = self.convert_const(&to, &v) {
            return k;
        }
        let p = self.pos(e.span);
        let stringy = v.ty.is_string() || v.ty.is_char_array();
        let sv = if stringy { self.sv(&v) } else { String::new() };
        match (&to, &v.ty) {
            // a conversion's value is never its operand's variable (`int(n) = 3`)
            (Ty::Int, Ty::Int) => V { lv: false, ..v },
            (Ty::Int, Ty::Real) => match v.k {
                Some(KV::Real(x)) if x.abs() < 2147483648.0 => self.konst(KV::Int(x.trunc() as i64), Ty::Int),
                _ => V::scalar(convert::int_of_real(&p, &v.c), Ty::Int),
            },
            (Ty::Int, Ty::Char) => match v.k {
                Some(KV::Char(c)) => self.konst(KV::Int(c as i64), Ty::Int),
                _ => V::scalar(convert::int_of_char(&v.c), Ty::Int),
            },
            (Ty::Int, Ty::Bool) | (Ty::Int, Ty::Enum(_)) | (Ty::Int, Ty::Ptr(_)) | (Ty::Int, Ty::PtrAny) => match v.k {
                Some(KV::Bool(b)) => self.konst(KV::Int(b as i64), Ty::Int),
                Some(KV::Int(n)) => self.konst(KV::Int(n), Ty::Int),
                _ => V::scalar(convert::int_of_ord(&v.c), Ty::Int),
            },
            (Ty::Int, _) if stringy => V::scalar(convert::of_str(FromStr::Int, &p, &sv), Ty::Int),
            (Ty::Real, Ty::Int) | (Ty::Real, Ty::Real) | (Ty::Real, Ty::Char) => match v.k {
                Some(KV::Int(n)) => self.konst(KV::Real(n as f64), Ty::Real),
                Some(KV::Char(n)) => self.konst(KV::Real(n as f64), Ty::Real),
                _ => V::scalar(convert::real_of(&v.c), Ty::Real),
            },
            (Ty::Real, Ty::Bool) | (Ty::Real, Ty::Enum(_)) => match v.k {
                Some(KV::Bool(b)) => self.konst(KV::Real(b as i64 as f64), Ty::Real),
                Some(KV::Int(n)) => self.konst(KV::Real(n as f64), Ty::Real),
                _ => V::scalar(convert::real_of(&v.c), Ty::Real),
            },
            // a pointer's address as a number (null is 0)
            (Ty::Real, Ty::Ptr(_) | Ty::PtrAny | Ty::Null) => V::scalar(convert::real_of_ptr(&v.c), Ty::Real),
            (Ty::Real, _) if stringy => V::scalar(convert::of_str(FromStr::Real, &p, &sv), Ty::Real),
            (Ty::Char, Ty::Int) => match v.k {
                Some(KV::Int(n)) if (0..=255).contains(&n) => self.konst(KV::Char(n as u8), Ty::Char),
                _ => V::scalar(convert::char_of_int(&p, &v.c), Ty::Char),
            },
            (Ty::Char, Ty::Char) => V { lv: false, ..v },
            (Ty::Char, Ty::Bool) | (Ty::Char, Ty::Enum(_)) => V::scalar(convert::char_of_ord(&p, &v.c), Ty::Char),
            // a pointer's address, as MPD 1.0.1 converts it: only a small one fits
            // (null gives '\0'; any other aborts as char(int) does)
            (Ty::Char, Ty::Ptr(_) | Ty::PtrAny) => V::scalar(convert::char_of_ptr(&p, &v.c), Ty::Char),
            (Ty::Char, Ty::Real) => V::scalar(convert::char_of_real(&p, &v.c), Ty::Char),
            (Ty::Char, _) if stringy => V::scalar(convert::char_of_str(&sv), Ty::Char),
            (Ty::Bool, Ty::Bool) => V { lv: false, ..v },
            // bool of a number, character or pointer: true when not zero (null)
            (Ty::Bool, Ty::Int | Ty::Char | Ty::Real | Ty::Enum(_) | Ty::Ptr(_) | Ty::PtrAny | Ty::Null) => match v.k {
                Some(KV::Int(n)) => self.konst(KV::Bool(n != 0), Ty::Bool),
                Some(KV::Char(n)) => self.konst(KV::Bool(n != 0), Ty::Bool),
                Some(KV::Real(x)) => self.konst(KV::Bool(x != 0.0), Ty::Bool),
                _ => V::scalar(convert::bool_of(&v.c), Ty::Bool),
            },
            (Ty::Bool, _) if stringy => V::scalar(convert::of_str(FromStr::Bool, &p, &sv), Ty::Bool),
            (Ty::Enum(e), Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Bool | Ty::Real) => {
                let n = self.types.enums[*e].lits.len();
                let name = &self.types.enums[*e].name;
                V::scalar(convert::enum_of(&p, &v.c, v.ty == Ty::Real, n, name), to.clone())
            }
            (Ty::Str(_), _) => self.convert_to_string(e, v, &p),
            (Ty::Ptr(_) | Ty::PtrAny, Ty::Ptr(_) | Ty::PtrAny | Ty::Null) => V::scalar(v.c, to.clone()),
            (Ty::Ptr(_) | Ty::PtrAny, Ty::Int) => V::scalar(convert::ptr_of_int(&v.c), to.clone()),
            (Ty::Ptr(_) | Ty::PtrAny, _) if stringy => V::scalar(convert::of_str(FromStr::Ptr, &p, &sv), to.clone()),
            _ => self.rejected(e),
        }
    }

    /// A conversion `string(x)`, node `e`: of a string, a char array, a char
    /// or another scalar (the rest its rule rejects).
    fn convert_to_string(&mut self, e: &Expr, v: V, p: &str) -> V {
        match &v.ty {
            Ty::Str(_) => V { lv: false, ..v },
            t if t.is_char_array() => {
                let t = self.t();
                V {
                    c: data::sv_of_chars(t, &v.c),
                    ty: Ty::Str(None),
                    form: Form::View,
                    k: None,
                    lv: false,
                    slice: None,
                }
            }
            Ty::Char => {
                let s = self.sv(&v);
                V { c: s, ty: Ty::Str(Some(1)), form: Form::View, k: None, lv: false, slice: None }
            }
            // a file or capability has no text (MPD: illegal conversion)
            t if t.is_scalar() && !matches!(t, Ty::File | Ty::Cap(_)) => {
                let val = self.out_val(&v);
                let t = self.t();
                V {
                    c: convert::string_of_val(p, t, &val),
                    ty: Ty::Str(None),
                    form: Form::View,
                    k: None,
                    lv: false,
                    slice: None,
                }
            }
            _ => self.rejected(e),
        }
    }

    /// A conversion of constant `v` to `to`, folded (constants stay constants through
    /// conversions, usable as bounds); None when not a constant or not foldable.
    fn convert_const(&mut self, to: &Ty, v: &V) -> Option<V> {
        if let (Some(k), true) = (&v.k, matches!(v.ty, Ty::Int | Ty::Real | Ty::Char | Ty::Bool | Ty::Enum(_))) {
            let target = match to {
                Ty::Int => Some(konst::ConvTo::Int),
                Ty::Real => Some(konst::ConvTo::Real),
                Ty::Char => Some(konst::ConvTo::Char),
                Ty::Bool => Some(konst::ConvTo::Bool),
                Ty::Enum(e) => Some(konst::ConvTo::Enum(self.types.enums[*e].lits.len())),
                _ => None,
            };
            // Constants stay constants through conversions (usable as bounds).
            if let Some(k) = target.and_then(|t| konst::convert(t, k)) {
                return Some(self.konst(k, to.clone()));
            }
        }
        None
    }

    pub(super) fn want(&mut self, args: &[Expr], n: std::ops::RangeInclusive<usize>, name: &str, span: Span) -> bool {
        if !n.contains(&args.len()) {
            let (a, b) = (n.start(), n.end());
            let how = if a == b { format!("{}", a) } else { format!("{} to {}", a, b) };
            let few = args.len() < *a;
            self.error(
                span,
                format!(
                    "{}(): too {} arguments ({} takes {}, not {})",
                    name,
                    if few { "few" } else { "many" },
                    name,
                    how,
                    args.len()
                ),
            );
            return false;
        }
        true
    }

    pub(super) fn real_arg(&mut self, e: &Expr) -> String {
        let v = self.expr(e);
        if !v.ty.is_numeric() {
            self.error(e.span, format!("expected an int or real, found {}", self.types.show(&v.ty)));
            return "0.0".into();
        }
        self.coerce(v, &Ty::Real).c
    }

    pub(super) fn int_arg(&mut self, e: &Expr) -> String {
        let v = self.expr(e);
        // open's mode and seek's type are enumerations (accessmode, seektype)
        if let Ty::Enum(k) = &v.ty {
            if matches!(self.types.enums[*k].name.as_str(), "accessmode" | "seektype") {
                return v.c;
            }
        }
        if v.ty != Ty::Int && v.ty != Ty::Error {
            self.error(e.span, format!("expected an int, found {}", self.types.show(&v.ty)));
        }
        v.c
    }

    /// lb/ub of dimension `dim` of an array (or of an op array); the result has
    /// the index type of that dimension (int, bool, char or an enumeration).
    /// Node `call`'s errors (what is no array, too few dimensions) are its
    /// rule's, index_type_result's, reported after the array.
    pub(super) fn array_bound(&mut self, call: &Expr, is_lb: bool, a: &Expr, dim: i64) -> V {
        if let ExprKind::Ident(id) = &a.kind {
            if let Some(Sym::Proc(sig)) = self.lookup(&id.name).cloned() {
                // an op array's bounds; a single op or procedure has none
                if let Some(r) = sig.op.as_ref().filter(|r| !r.dims.is_empty()) {
                    let c = if is_lb { r.lo.clone() } else { emit::ops::op_dim_ub(&r.lo, &r.n) };
                    return match (r.lo.parse::<i64>(), r.n.parse::<i64>()) {
                        (Ok(l), Ok(n)) => self.konst(KV::Int(if is_lb { l } else { l + n - 1 }), Ty::Int),
                        _ => V::scalar(c, Ty::Int),
                    };
                }
            }
        }
        let v = self.expr(a);
        let mut c = v.c.clone();
        let mut t = v.ty.clone();
        for _ in 1..dim {
            match t {
                Ty::Arr(e, _, _, _) => {
                    c = data::arr_data(&c);
                    t = *e;
                }
                _ => break,
            }
        }
        let ity = v.ty.index_types().get((dim - 1) as usize).cloned();
        match &t {
            Ty::Arr(_, lo, hi, _) => {
                let k = if is_lb { *lo } else { *hi };
                if let Some(k) = k {
                    return match ity {
                        Some(Ty::Bool) => self.konst(KV::Bool(k != 0), Ty::Bool),
                        Some(Ty::Char) => self.konst(KV::Char(k as u8), Ty::Char),
                        Some(t @ Ty::Enum(_)) => {
                            let mut r = self.konst(KV::Int(k), t.clone());
                            r.ty = t;
                            r
                        }
                        _ => self.konst(KV::Int(k), Ty::Int),
                    };
                }
                let b = if is_lb { data::arr_lb(&c) } else { data::arr_ub(&c) };
                match ity {
                    Some(Ty::Bool) => V::scalar(convert::bound_as_bool(&b), Ty::Bool),
                    Some(Ty::Char) => V::scalar(convert::bound_as_char(&b), Ty::Char),
                    Some(t @ Ty::Enum(_)) => V::scalar(b, t),
                    _ => V::scalar(b, Ty::Int),
                }
            }
            Ty::Error => V::err(),
            _ => self.rejected(call),
        }
    }

    fn imported_only(&self, name: &str) -> bool {
        !self.scopes.iter().any(|s| s.map.contains_key(name))
    }

    /// Whether name is declared only by an import (an imported op does not
    /// hide a predefined function of the same name).
    pub fn imported_only_name(&self, name: &str) -> bool {
        self.imported_only(name)
    }

    /// For `low(x)`-style uses of a kind: unused helper kept small.
    pub fn is_type_name(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Ident(id) if matches!(self.lookup(&id.name), Some(Sym::Type(_))))
    }
}

/// Names of MPD's predefined functions (the table in predef.rs).
pub(crate) use super::predef::is_predefined;
