//! procs: procedure and proc declarations -- signatures, prototypes, formals,
//! results, and the op entries they implement.
use super::scope::{PSig, ProcSig, Sym};
use super::types::Ty;
use super::{Checker, FnKind, RetInfo};
use crate::emit::{component, names, var, Code};
use crate::syntax::ast::{self, ParamMode, ProcKind};
use std::rc::Rc;

impl<'a> Checker<'a> {
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
                self.top_scope().map.insert(n.name.name.clone(), Sym::Formal);
            }
        }
        let r = f(self);
        self.pop();
        r
    }

    /// An op's or procedure's heading, elaborated in MPD 1.0.1's order: the
    /// result's name, then the result's type and bounds, then each parameter's
    /// type and bounds followed by its name.  A type or bound that names a
    /// formal declared before it is an "illegal reference to formal parameter"
    /// (`returns money money`, `(int n, int x[n])`); one declared after it is
    /// not seen (`(int x[n], int n)` takes the outer n).
    pub(crate) fn heading(
        &mut self,
        params: &[ast::Param],
        r: Option<&ast::ReturnSpec>,
    ) -> (Vec<PSig>, Ty, Option<String>) {
        // a formal may not hide an enumeration literal (MPD 1.0.1)
        let ret_name = r.and_then(|r| r.name.as_ref());
        for n in params.iter().flat_map(|p| p.names.iter().map(|n| &n.name)).chain(ret_name) {
            self.no_enum_lit(n);
        }
        self.push();
        if let Some(n) = ret_name {
            self.top_scope().map.insert(n.name.clone(), Sym::Formal);
        }
        let ret = self.ret_type(r);
        let mut out = Vec::new();
        for p in params {
            let t = self.ty(&p.ty);
            if p.names.is_empty() {
                out.push(PSig { mode: p.mode, ty: t.clone(), name: String::new() });
            }
            for n in &p.names {
                let ty = self.with_dims(&t, &n.dims, true);
                out.push(PSig { mode: p.mode, ty, name: n.name.name.clone() });
                self.top_scope().map.insert(n.name.name.clone(), Sym::Formal);
            }
        }
        self.pop();
        (out, ret, ret_name.map(|n| n.name.clone()))
    }

    /// The type of a heading's result (void without one).
    fn ret_type(&mut self, r: Option<&ast::ReturnSpec>) -> Ty {
        let Some(r) = r else { return Ty::Void };
        let t = match &r.ty {
            Some(t) if self.no_stars(t, &r.dims, r.span) => Ty::Error,
            Some(t) => self.ty(t),
            None => Ty::Error,
        };
        self.with_dims(&t, &r.dims, true)
    }

    /// `procedure` declares its op itself; declare it before the body text so calls
    /// that precede it resolve.
    pub fn predeclare_proc(&mut self, p: &ast::ProcDecl) {
        if p.kind != ProcKind::Procedure {
            return;
        }
        // the signature is elaborated on first use, when the types it names exist
        let idx = self.out.nops;
        self.out.nops += 1;
        self.names_changed();
        self.out.ops.push(super::ops::OpEntry {
            name: p.name.name.clone(),
            idx,
            n: 1,
            procfn: None,
            sem: false,
            flags: String::new(),
        });
        self.declare(&p.name, Sym::PendingProc(Rc::new(p.clone())));
        let line = self.map.line_col(p.name.span.file, p.name.span.lo).0;
        self.names_changed();
        self.later_procs.insert(p.name.name.clone(), (self.scopes.len() - 1, line));
    }

    /// `resolve` for a use of `id` as an operation: a procedure of the body
    /// used above its heading is undefined there (MPD 1.0.1 reads once, in
    /// order; an `op` declared above and a `proc` give the earlier use).
    pub fn resolve_use(&mut self, id: &ast::Ident) -> Option<Sym> {
        if let Some(&(scope, line)) = self.later_procs.get(&id.name) {
            let found = self.scopes.iter().rposition(|s| s.map.contains_key(&id.name));
            if found == Some(scope) {
                self.error(
                    id.span,
                    format!(
                        "undefined identifier: {} (procedure {} is declared below, at line {}; declare `op {}` above and implement it with `proc`)",
                        id.name, id.name, line, id.name
                    ),
                );
                // the call is checked on as if it were declared
            }
        }
        self.resolve(&id.name)
    }

    /// Whether `name` is a procedure of the body whose heading is not yet reached.
    pub(crate) fn is_later_proc(&self, name: &str) -> bool {
        self.later_procs.contains_key(name)
    }

    /// Looks a name up, elaborating a procedure's signature on first use.
    pub fn resolve(&mut self, name: &str) -> Option<Sym> {
        let Some(idx) = self.scopes.iter().rposition(|s| s.map.contains_key(name)) else {
            return self.lookup(name).cloned();
        };
        if let Some(Sym::PendingProc(p)) = self.scopes[idx].map.get(name).cloned() {
            let sig = self.procedure_sig(&p);
            self.names_changed();
            self.scopes[idx].map.insert(name.to_string(), sig.clone());
            return Some(sig);
        }
        self.scopes[idx].map.get(name).cloned()
    }

    pub(crate) fn procedure_sig(&mut self, p: &ast::ProcDecl) -> Sym {
        let (params, ret, ret_name) = self.heading(&p.params, p.returns.as_ref());
        let idx = self.out.ops.iter().find(|o| o.name == p.name.name).map(|o| o.idx).unwrap_or(0);
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
        let ps: Vec<component::CParam> = s
            .params
            .iter()
            .map(|p| component::CParam { ty: &p.ty, byref: !matches!(p.mode, ParamMode::Default | ParamMode::Val) })
            .collect();
        component::proc_proto(&self.self_type(), &s.cname, &s.ret, &ps)
    }

    /// Whether `proc p` may implement the op `sig` it names (MPD 1.0.1's
    /// rules): one op of this component, not an array, and the proc's
    /// `returns` names a result exactly when the op has one.
    pub(crate) fn proc_implements(&mut self, p: &ast::ProcDecl, sig: &ProcSig) -> bool {
        let r = sig.op.as_ref().unwrap();
        let name = &p.name.name;
        if r.owner != self.comp {
            self.error(
                p.name.span,
                format!("a proc cannot implement an imported op ({} is an op of {})", name, r.owner),
            );
            return false;
        }
        if !r.dims.is_empty() {
            self.error(p.name.span, format!("a proc cannot implement an array op ({} is an array of ops)", name));
            return false;
        }
        if r.sem || r.local.is_some() {
            self.error(
                p.name.span,
                format!("a proc cannot implement {}: it is a {}", name, if r.sem { "semaphore" } else { "local op" }),
            );
            return false;
        }
        if p.kind == ProcKind::Proc {
            let named = p.returns.as_ref().map_or(false, |r| r.name.is_some());
            if sig.ret != Ty::Void && !named {
                self.error(
                    p.name.span,
                    format!(
                        "missing return parameter (op {} returns {}: name its result in `returns`)",
                        name,
                        self.types.show(&sig.ret)
                    ),
                );
                return false;
            }
            if sig.ret == Ty::Void && named {
                self.error(p.name.span, format!("unexpected return parameter (op {} returns no value)", name));
                return false;
            }
        }
        true
    }

    /// A `proc` or `procedure` body: the C function implementing its op.
    pub(crate) fn proc_decl(&mut self, p: &ast::ProcDecl) {
        if p.kind == ProcKind::Process {
            self.process_decl(p);
            return;
        }
        // from its heading on, a procedure may be used (and call itself)
        self.names_changed();
        self.later_procs.remove(&p.name.name);
        let sig = match self.resolve(&p.name.name) {
            Some(Sym::Proc(s)) if s.op.is_some() => s,
            None => {
                self.error(
                    p.name.span,
                    format!(
                        "undefined identifier: {} (`proc {}` has no matching `op` declaration)",
                        p.name.name, p.name.name
                    ),
                );
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
        let formal_names = self.proc_formal_names(p);
        if formal_names.len() != sig.params.len() {
            self.error(
                p.name.span,
                format!(
                    "proc: wrong number of arguments (`{}` has {} parameters but its op has {})",
                    p.name.name,
                    formal_names.len(),
                    sig.params.len()
                ),
            );
            return;
        }
        let last = ast::Span { lo: p.body.span.hi.saturating_sub(1), ..p.body.span };
        self.out.proc_spans.push((self.line(p.name.span), self.line(last), format!("{}.{}", self.comp, p.name.name)));
        let saved_code = std::mem::replace(&mut self.f.code, Code::new(&self.file_name, self.opts.lines));
        let saved_top = self.at_top;
        let saved_loops = self.f.loops;
        self.at_top = false;
        self.f.loops = 0;
        self.push();
        self.f.code.line(self.line(p.name.span));
        self.f.code.put(names::OPS_LOCAL);
        self.f.code.put(var::PROC_TEMPS_DECL);
        // traced: PROC and ENDPROC are the traced twin's (below)
        let tpos = self.pos(p.name.span);
        let mut copyback = String::new();
        for (i, ((n, sp), ps)) in formal_names.iter().zip(sig.params.iter()).enumerate() {
            self.proc_formal(i, n, *sp, ps, &mut copyback);
        }
        // the result variable
        let rname = p.returns.as_ref().and_then(|r| r.name.as_ref()).map(|n| n.name.clone()).or(sig.ret_name.clone());
        let (ret_stmt, reply_copy) = self.proc_result(p, &sig, rname, &copyback);
        let kind = FnKind::Proc { sig: sig.clone(), reply_code: format!("{}{}", copyback, reply_copy) };
        let saved_kind = std::mem::replace(&mut self.f.kind, kind);
        let saved_ret = self.f.ret.replace(RetInfo { stmt: ret_stmt.clone() });
        self.block_stmts(&p.body.stmts);
        self.local_ops_end_all();
        self.f.code.put(&ret_stmt);
        self.f.ret = saved_ret;
        self.f.kind = saved_kind;
        self.pop();
        let body = std::mem::replace(&mut self.f.code, saved_code).take();
        self.at_top = saved_top;
        self.f.loops = saved_loops;
        self.proc_emit(p, &sig, &body, &tpos);
    }

    /// A proc's formal names: the procedure's parameters or the proc's identifiers.
    fn proc_formal_names(&mut self, p: &ast::ProcDecl) -> Vec<(String, ast::Span)> {
        if p.kind == ProcKind::Procedure {
            let mut v = Vec::new();
            for g in &p.params {
                // `procedure p(real)`: a parameter the body cannot name; not
                // said of `procedure p(x)` with x undefined (one error is enough)
                let undefined = matches!(&g.ty.kind, ast::TypeKind::Named(_)) && self.written_type(&g.ty) == Ty::Error;
                if g.names.is_empty() && !undefined {
                    self.diags.warning(g.span, "unnamed parameter is inaccessible");
                }
                if g.names.is_empty() {
                    v.push((format!("_unnamed{}", v.len()), g.span));
                }
                v.extend(g.names.iter().map(|n| (n.name.name.clone(), n.name.span)));
            }
            v
        } else {
            p.formals.iter().map(|f| (f.name.clone(), f.span)).collect()
        }
    }

    /// Formal parameter `i` of a proc: its local (a copy or the actual itself), declared
    /// under name `n`; var/res copy-back code is appended to `copyback`.
    fn proc_formal(&mut self, i: usize, n: &str, sp: ast::Span, ps: &PSig, copyback: &mut String) {
        let byref = !matches!(ps.mode, ParamMode::Default | ParamMode::Val);
        let c = format!("{}_{}", names::var(n), i);
        if let (Ty::Arr(..), ParamMode::Ref) = (&ps.ty, ps.mode) {
            // a ref array is the actual itself, with the actual's bounds
            self.f.code.put(&var::local_blob_init(&c, &var::param(i)));
            let ty = unbounded(&ps.ty);
            self.declare(&ast::Ident { name: n.to_string(), span: sp }, Sym::Var { c, ty, assignable: true });
            return;
        } else if let Ty::Arr(..) = ps.ty {
            // arrays take the formal's lower bounds: a private copy, rebased;
            // var/res/ref copy back when the procedure returns
            // (or, for `[*:hi]`, its upper bound)
            let (lbs, ubs) = formal_bounds(&ps.ty);
            for l in var::arr_param_copy(&c, i, &lbs, &ubs) {
                self.f.code.put(&l);
            }
            if byref {
                copyback.push_str(&var::arr_copyback(i, &c, lbs.len()));
            }
        } else if let (Ty::Str(Some(n)), ParamMode::Var | ParamMode::Res) = (&ps.ty, ps.mode) {
            // var/res `string[n]`: value-result through a private string[n], as in
            // MPD 1.0.1 (a var actual longer than n, or a result longer than the
            // actual's maximum, aborts)
            let pos = self.pos(sp);
            let n = n.to_string();
            self.f.code.put(&format!("{} {}", var::str_param_alloc(&c, &n), var::str_init(&c, &n)));
            if ps.mode == ParamMode::Var {
                self.f.code.put(&var::str_set_blob(&pos, &c, &var::param(i)));
            }
            copyback.push_str(&format!("{} ", var::str_set_blob(&pos, &var::param(i), &c)));
        } else if ps.ty.is_blob() {
            if byref {
                self.f.code.put(&var::local_blob_init(&c, &var::param(i)));
            } else if let Ty::Str(Some(n)) = ps.ty {
                // value `string[n]`: a private string[n], whatever the actual's size
                // (MPD 1.0.1: maxlength is n; a longer actual aborts)
                let pos = self.pos(sp);
                let n = n.to_string();
                self.f.code.put(&var::str_param_alloc(&c, &n));
                self.f.code.put(&format!("{} {}", var::str_init(&c, &n), var::str_set_blob(&pos, &c, &var::param(i))));
            } else {
                // value parameter: a private copy
                self.f.code.put(&var::blob_param_copy(&c, i, &self.blob_kind(&ps.ty)));
            }
        } else if ps.mode == ParamMode::Ref {
            let c2 = format!("(*{})", var::param(i));
            self.declare(
                &ast::Ident { name: n.to_string(), span: sp },
                Sym::Var { c: c2, ty: ps.ty.clone(), assignable: true },
            );
            return;
        } else if byref {
            // var and res are value-result: a local copy, copied back (left to
            // right) when the procedure returns or replies
            self.f.code.put(&var::local_scalar_init(&ps.ty, &c, &var::param_value(i)));
            copyback.push_str(&var::copy_back(i, &c));
        } else {
            self.f.code.put(&var::local_scalar_init(&ps.ty, &c, &var::param(i)));
        }
        self.declare(
            &ast::Ident { name: n.to_string(), span: sp },
            Sym::Var { c, ty: ps.ty.clone(), assignable: true },
        );
    }

    /// A proc's result variable (named `rname`, if any): returns the return statement
    /// and the code copying the result into the invoker's block on reply.
    fn proc_result(
        &mut self,
        p: &ast::ProcDecl,
        sig: &ProcSig,
        rname: Option<String>,
        copyback: &str,
    ) -> (String, String) {
        if sig.ret == Ty::Void {
            return (component::proc_return(copyback, None), String::new());
        }
        // result type: for a procedure, elaborate again here so dims may use params
        let (rty, mut dims, strlen) = match (&p.kind, p.returns.as_ref().and_then(|r| r.ty.as_ref())) {
            (ProcKind::Procedure, Some(t)) => {
                let tx = self.tyx(t, true);
                let mut outer = Vec::new();
                for r in &p.returns.as_ref().unwrap().dims {
                    outer.push(self.range(r, true));
                }
                let mut ty = tx.ty;
                let ixs: Vec<Ty> = p.returns.as_ref().unwrap().dims.iter().map(|r| self.range_type(r)).collect();
                for ((lo, hi, _, _), ix) in outer.iter().zip(ixs).rev() {
                    ty = Ty::Arr(Box::new(ty), *lo, *hi, Box::new(ix));
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
            self.f.code.put(&var::result_alloc(&c, &size));
            self.init_blob(&c, &rty, &dims, &strlen);
        } else {
            self.f.code.put(&var::local_scalar(&rty, &c));
        }
        if let Some(rn) = &rname {
            let sp = p.returns.as_ref().map(|r| r.span).unwrap_or(p.name.span);
            self.declare(
                &ast::Ident { name: rn.clone(), span: sp },
                Sym::Var { c: c.clone(), ty: rty.clone(), assignable: true },
            );
        }
        // reply: the result goes into the invoker's block first
        let inv = sig.op.as_ref().map(|r| r.inv.clone()).unwrap_or_default();
        let reply_copy = if rty.is_blob() {
            match self.types.size_of(&rty) {
                Some(n) => component::reply_result(&inv, &c, Some(n)),
                None => String::new(),
            }
        } else {
            component::reply_result(&inv, &c, None)
        };
        (component::proc_return(copyback, Some(&c)), reply_copy)
    }

    /// A proc's C output: its function and prototype, its traced twin, and the op
    /// entry (wrapper) that runs it for invocations by block.
    fn proc_emit(&mut self, p: &ast::ProcDecl, sig: &ProcSig, body: &str, tpos: &str) {
        let proto = self.proc_proto(sig);
        self.out.protos.push_str(&component::proto_line(&proto));
        self.out.funcs.push_str(&component::function(&proto, body));
        // the traced twin (traced runs): the same prototype, named <cname>_tr
        let twin_sig = ProcSig { cname: crate::emit::trace::twin_name(&sig.cname), ..sig.clone() };
        // static where only this file can call it, so an unused twin is dropped
        // (and leaves its proc with one caller, the op's wrapper, to inline into)
        let proto_tr = component::file_local(!self.global, &self.proc_proto(&twin_sig));
        self.out.protos.push_str(&component::proto_line(&proto_tr));
        self.out.funcs.push_str(&crate::emit::trace::twin(
            &proto_tr,
            &sig.cname,
            tpos,
            &format!("{}.{}", self.comp, p.name.name),
            sig.ret != Ty::Void,
            sig.params.len(),
        ));
        // the op's entry: invocations by block run the proc through a wrapper
        if let Some(r) = &sig.op {
            if r.owner == self.comp && !self.block_dyn_ret(sig) {
                let w = self.proc_wrapper(sig, tpos);
                let direct = !self.replying.contains(&sig.name);
                // a leaf cannot switch: its direct calls need no hold (check/leaf.rs)
                let leaf = direct && self.is_leaf_body(&p.body.stmts);
                if let Some(o) = self.out.ops.iter_mut().find(|o| o.idx == r.idx) {
                    o.procfn = Some(w);
                    o.flags = component::proc_op_flags(direct, leaf);
                }
            }
        }
    }

    /// Whether a signature returns a value whose size is known only at run time
    /// (such ops are called directly, never through a block).
    pub(crate) fn block_dyn_ret(&self, s: &ProcSig) -> bool {
        s.ret.is_blob() && self.types.size_of(&s.ret).is_none()
    }

    /// "bounds known statically" dims of a type, as C text.
    pub fn static_dims(&self, t: &Ty) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut t = t;
        while let Ty::Arr(e, lo, hi, _) = t {
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
pub(super) fn unbounded(t: &Ty) -> Ty {
    match t {
        Ty::Arr(e, _, _, ix) => Ty::Arr(Box::new(unbounded(e)), None, None, ix.clone()),
        t => t.clone(),
    }
}

/// The C of an array formal's bounds, per dimension (INT_MIN where the
/// actual's bound is kept): what its actual is rebased to.
pub(super) fn formal_bounds(ty: &Ty) -> (Vec<String>, Vec<String>) {
    let (mut lbs, mut ubs) = (Vec::new(), Vec::new());
    let mut t = ty;
    let bound = |b: &Option<i64>| b.map(|l| l.to_string()).unwrap_or_else(|| "INT_MIN".into());
    while let Ty::Arr(e, lo, hi, _) = t {
        lbs.push(bound(lo));
        ubs.push(bound(hi));
        t = e;
    }
    (lbs, ubs)
}
