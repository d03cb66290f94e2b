//! invoke: call, send, forward and create through invocation blocks: the
//! arguments checked against the op's signature and restriction, the block
//! filled (emit/ops.rs spells it), results copied back.
use super::konst::KV;
use super::ops::Target;
use super::resolved::Resolved;
use super::scope::{OpRef, PSig, ProcSig, Sym};
use super::types::{CapTy, Ty};
use super::{Checker, FnKind, Form, Issue, V};
use crate::emit::{co, inop, ops as eops};
use crate::syntax::ast::{self, Expr, ExprKind, ParamMode, Span};

/// Invocation blocks up to this many bytes of parameters live on the invoker's
/// stack (process stacks are 256 KiB by default); bigger ones on the heap.
const INV_STACK_MAX: usize = 1024;

impl<'a> Checker<'a> {
    /// `forward op(...)` hands the invocation being serviced to `op`: the
    /// invoker's block must fit it, so both ops have the same signature
    /// (MPD 1.0.1 compares them exactly, restrictions included), and a
    /// forward is a send (no `{call}` op).
    fn forward_ok(&mut self, to: &ProcSig, span: Span) -> bool {
        let from = match self.f.in_stack.last() {
            Some(a) => a.sig.clone(),
            None => match &self.f.kind {
                FnKind::Proc { sig, .. } => sig.clone(),
                _ => return true,
            },
        };
        if let Some(r) = &from.op {
            self.note_nosema(r); /* MPD: forwarding unmakes both semaphores */
        }
        let sig_of = |s: &ProcSig| {
            let r = s.op.as_ref();
            super::types::SigInfo {
                params: s.params.clone(),
                ret: s.ret.clone(),
                inv: String::new(),
                no_send: r.map_or(false, |r| r.no_send),
                no_call: r.map_or(false, |r| r.no_call),
            }
        };
        self.types.sigs.push(sig_of(&from));
        self.types.sigs.push(sig_of(to));
        let n = self.types.sigs.len();
        let same = self.types.cap_compat(&CapTy::Op(n - 2), &CapTy::Op(n - 1));
        self.types.sigs.truncate(n - 2);
        if !same {
            self.error(
                span,
                format!(
                    "forward to incompatible op: `{}` does not have the signature of the op being serviced",
                    to.name
                ),
            );
            return false;
        }
        if to.op.as_ref().map_or(false, |r| r.no_send) {
            self.error(span, format!("forward: op is restricted {{call}}: `{}` can only be called", to.name));
            return false;
        }
        true
    }

    /// Invocation through a block: fills it, invokes (call or send), and for a call
    /// copies var/res results back and yields the return value.
    pub fn invoke_block(&mut self, sig: &ProcSig, target: Target, args: &[Expr], send: bool, span: Span) -> V {
        if args.len() != sig.params.len() {
            self.error(span, super::msg::arity(&sig.name, sig.params.len(), args.len()));
            return V::err();
        }
        if sig.ret.is_blob() && self.types.size_of(&sig.ret).is_none() {
            self.error(
                span,
                format!(
                    "`{}` returns a value whose size is known only at run time; this invocation is not supported yet",
                    sig.name
                ),
            );
            return V::err();
        }
        let r = sig.op.clone().unwrap();
        let forward = matches!(self.issue, Issue::Forward { .. });
        if forward && !self.forward_ok(sig, span) {
            return V::err();
        }
        if !send || !matches!(self.issue, Issue::Plain) {
            self.note_nosema(&r);
        }
        let restricted = matches!(self.issue, Issue::Plain | Issue::CoArm { .. });
        if restricted && !self.restriction_ok(&r, &sig.name, send, span) {
            return V::err();
        }
        // the arguments' own invocations stand alone: they are not the co
        // arm, forward or create being issued (`co a = f(g(x)) oc`)
        let issue = std::mem::take(&mut self.issue);
        let vals: Vec<V> = args.iter().map(|a| self.expr(a)).collect();
        self.issue = issue;
        // the block: the struct, then the parameters sized at run time
        let b = self.tmp();
        let sz = self.tmp();
        self.f.code.put(&eops::block_size(&sz, &r.inv));
        let Some(offs) = self.dynamic_params(sig, args, &vals, &sz) else { return V::err() };
        // `send c.op(...)`: the blob arguments are copied into the block by
        // the runtime (emit::ops::send_gather), which sends them from where they
        // are when c is of another vm (the distributed deployment)
        let gather = send && matches!(self.issue, Issue::Plain) && matches!(target, Target::Cap(_));
        let pieces = self.block_alloc(sig, &r.inv, &b, &sz, &offs, &vals, gather);
        let backs = self.fill_params(sig, &b, vals, args, send);
        let pos = self.pos(span);
        match self.issue.clone() {
            Issue::Create { res, on } => {
                self.issue = Issue::Plain;
                let t = self.tmp();
                let vm = eops::create_vm_arg(on);
                self.f.code.put(&eops::create(&t, &pos, &res, &b, &vm, &self.self_arg()));
                return V::scalar(t, Ty::Cap(CapTy::Resource(res)));
            }
            Issue::Forward { cur } => {
                // forward: the invoker of `cur` is answered when this invocation is
                let cap = match target {
                    Target::Op(op) => eops::cap_of_op(&op),
                    Target::Cap(c) => c.to_string(),
                };
                self.f.code.put(&eops::forward(&pos, &cur, &cap, &b));
                return V::scalar("0".into(), Ty::Void);
            }
            Issue::CoArm { co, arm, idx } => {
                // an arm of a co statement: the runtime copies the block; results are
                // copied out when the arm completes
                self.f.code.put(&co::arm(&b, arm, &idx));
                self.f.code.put(&co::invoke(&pos, &co, target, &b, send));
                return V::scalar("0".into(), Ty::Void);
            }
            Issue::Plain => {}
        }
        let gathered = match (&target, &pieces) {
            (Target::Cap(c), Some((g, n))) => Some(eops::send_gather(&pos, &c.to_string(), &b, g, *n)),
            _ => None,
        };
        match gathered {
            Some(code) => self.f.code.put(&code),
            None => self.f.code.put(&eops::invoke(&pos, target, &b, send)),
        }
        for (v, dst, sp) in backs {
            let src = V { lv: false, ..dst };
            self.assign_into(&v, src, sp);
        }
        if sig.ret != Ty::Void && !send {
            let c = eops::block_ret(&b);
            if sig.ret.is_blob() {
                V { c, ty: sig.ret.clone(), form: Form::Blob, k: None, lv: false, slice: None }
            } else {
                V::scalar(c, sig.ret.clone())
            }
        } else {
            V::scalar("0".into(), Ty::Void)
        }
    }

    /// The parameters of an invocation block sized at run time (strings and
    /// arrays of unknown size): each is stored after the struct, at an offset
    /// `sz` grows by.  Returns (parameter, offset, string view if copied
    /// from one), or None after an error.
    fn dynamic_params(
        &mut self,
        sig: &ProcSig,
        args: &[Expr],
        vals: &[V],
        sz: &str,
    ) -> Option<Vec<(usize, String, Option<String>)>> {
        let mut offs = Vec::new();
        for (i, (v, p)) in vals.iter().zip(sig.params.iter()).enumerate() {
            if p.ty.is_blob() && self.types.size_of(&p.ty).is_none() && p.mode != ParamMode::Ref {
                // the value is copied by its own size into the block: it must
                // be a blob of the parameter's kind (a scalar has no size)
                let fits = match &p.ty {
                    Ty::Str(_) => v.ty.is_string(),
                    _ => matches!(v.ty, Ty::Arr(..)) && self.types.assignable(&p.ty, &v.ty),
                };
                if !fits && v.ty != Ty::Error {
                    self.error(
                        args[i].span,
                        format!(
                            "`{}`, argument {}: incompatible (a {} for a {})",
                            sig.name,
                            i + 1,
                            self.types.show(&v.ty),
                            self.types.show(&p.ty)
                        ),
                    );
                    return None;
                }
                let o = self.tmp();
                let size = match (&p.ty, v.form) {
                    (Ty::Str(_), Form::Blob) if v.ty.is_string() => eops::blob_size(&v.c, true),
                    (Ty::Str(_), _) => {
                        let s = self.sv(v);
                        let t = self.tmp();
                        self.f.code.put(&eops::str_view(&t, &s));
                        offs.push((i, o.clone(), Some(t.clone())));
                        self.f.code.put(&eops::param_offset(&o, sz));
                        self.f.code.put(&eops::grow_by_str(sz, &t));
                        continue;
                    }
                    (Ty::Arr(..), _) if v.ty.is_string() => {
                        self.error(args[i].span, "pass chars(s) for a char array parameter");
                        "16".into()
                    }
                    _ => eops::blob_size(&v.c, false),
                };
                self.f.code.put(&eops::param_offset(&o, sz));
                self.f.code.put(&eops::grow_by(sz, &size));
                offs.push((i, o, None));
            }
        }
        Some(offs)
    }

    /// Allocates block `b` of struct `inv` and size `sz`, and copies the
    /// dynamic parameters `offs` into it -- or, with `gather`, records the
    /// copies of blob values in an array of pieces (emit::ops::gather_piece) the runtime makes
    /// them from: returns that array's name and length when there is one.
    #[allow(clippy::too_many_arguments)]
    fn block_alloc(
        &mut self,
        sig: &ProcSig,
        inv: &str,
        b: &str,
        sz: &str,
        offs: &[(usize, String, Option<String>)],
        vals: &[V],
        gather: bool,
    ) -> Option<(String, usize)> {
        // A block of static size lives on the invoker's stack: the runtime copies
        // it whenever it must outlive the statement (send, co, forward, create,
        // a proc that gets a process), so only its size is a concern.
        let static_size: Option<usize> = if offs.is_empty() {
            sig.params
                .iter()
                .map(|p| self.types.size_of(&p.ty))
                .chain(std::iter::once(match sig.ret {
                    Ty::Void => Some(0),
                    ref t => self.types.size_of(t),
                }))
                .sum()
        } else {
            None
        };
        if static_size.map_or(false, |n| n <= INV_STACK_MAX) {
            self.f.code.put(&eops::block_on_stack(inv, b, sz));
        } else {
            let t = self.t();
            self.f.code.put(&eops::block_on_heap(inv, b, t, sz, !offs.is_empty()));
        }
        let nblobs = offs.iter().filter(|(_, _, view)| view.is_none()).count();
        let g = if gather && nblobs > 0 {
            let g = self.tmp();
            self.f.code.put(&eops::gather_decl(&g, nblobs));
            Some(g)
        } else {
            None
        };
        let mut k = 0;
        for (i, o, view) in offs {
            self.f.code.put(&eops::set_param_offset(b, *i, o));
            let dst = eops::param_at(b, o);
            let string = sig.params[*i].ty.is_string();
            match (view, &g) {
                (Some(t), _) => self.f.code.put(&eops::copy_str_param(&dst, t)),
                (None, Some(g)) => {
                    self.f.code.put(&eops::gather_piece(g, k, &dst, &vals[*i].c, string));
                    k += 1;
                }
                (None, None) => self.f.code.put(&eops::copy_blob_param(&dst, &vals[*i].c, string)),
            }
        }
        g.map(|g| (g, nblobs))
    }

    /// Assigns the value and var arguments to their fields of block `b`
    /// (ref arguments: their addresses).  Returns what a call copies back
    /// (var/res arguments, their fields, where).
    fn fill_params(&mut self, sig: &ProcSig, b: &str, vals: Vec<V>, args: &[Expr], send: bool) -> Vec<(V, V, Span)> {
        let mut backs = Vec::new();
        for (i, ((v, a), p)) in vals.into_iter().zip(args.iter()).zip(sig.params.iter()).enumerate() {
            let byref = !matches!(p.mode, ParamMode::Default | ParamMode::Val);
            if byref && !v.lv && v.ty != Ty::Error {
                self.error(a.span, "var/res/ref parameter is not a variable");
                continue;
            }
            if p.mode == ParamMode::Ref {
                self.ref_arg(b, i, p, &v, a.span);
                continue;
            }
            let field = self.blk_param(b, i, &p.ty);
            let dynamic = p.ty.is_blob() && self.types.size_of(&p.ty).is_none();
            let dst = if p.ty.is_blob() {
                if !dynamic {
                    let t = p.ty.clone();
                    self.init_blob(&field, &t, &[], &None);
                }
                V { c: field.clone(), ty: p.ty.clone(), form: Form::Blob, k: None, lv: true, slice: None }
            } else {
                V { c: field.clone(), ty: p.ty.clone(), form: Form::Scalar, k: None, lv: true, slice: None }
            };
            if p.mode != ParamMode::Res && !dynamic {
                let what = format!("{}(): argument {} is incompatible", sig.name, i + 1);
                self.with_mismatch(what, |c| c.assign_into(&dst, v.clone(), a.span));
            }
            if byref && !send {
                backs.push((v, dst, a.span));
            }
        }
        backs
    }

    /// Parameter `i` of block pointer `ib` (a typed pointer): inline, or after
    /// the struct at its recorded offset when its size is known only at run time.
    pub fn blk_param(&self, ib: &str, i: usize, t: &Ty) -> String {
        eops::blk_param(ib, i, t.is_blob() && self.types.size_of(t).is_none())
    }

    /// Parameter `i` of block `ib` as a value of its type, for any mode (a ref
    /// parameter is reached through the address the block holds).
    pub fn blk_param_of(&self, ib: &str, i: usize, p: &PSig) -> String {
        match (p.mode, p.ty.is_blob()) {
            (ParamMode::Ref, blob) => eops::blk_ref_param(ib, i, blob),
            _ => self.blk_param(ib, i, &p.ty),
        }
    }

    /// Stores the address of the actual of ref parameter `i` in block `b`.
    fn ref_arg(&mut self, b: &str, i: usize, p: &PSig, v: &V, span: Span) {
        if v.ty == Ty::Error {
            return;
        }
        if v.slice.is_some() {
            // a slice is a copy, not the variable: the callee could not change it
            self.error(span, "cannot pass slice expression to ref parameter");
            return;
        }
        let fits = if p.ty.is_blob() {
            match &p.ty {
                Ty::Str(_) => v.ty.is_string(),
                _ => self.types.assignable(&p.ty, &v.ty),
            }
        } else {
            self.types.same(&p.ty, &v.ty)
        };
        if !fits {
            self.error(
                span,
                format!("expected a {} variable, found {}", self.types.show(&p.ty), self.types.show(&v.ty)),
            );
            return;
        }
        if p.ty.is_blob() {
            if v.form != Form::Blob || v.slice.is_some() {
                self.error(span, "a ref argument must be a whole variable");
                return;
            }
            self.f.code.put(&eops::ref_arg(b, i, &v.c, true));
        } else {
            if v.form != Form::Scalar {
                self.error(span, "a ref argument must be a variable");
                return;
            }
            self.f.code.put(&eops::ref_arg(b, i, &v.c, false));
        }
    }

    /// `send op(args)` / `call op(args)` statements and plain invocations of ops
    /// that are not procs of this component.
    pub fn invoke_stmt(&mut self, e: &Expr, send: bool) -> V {
        let (callee, args) = match &e.kind {
            ExprKind::Call { callee, args } => (callee.as_ref(), args.as_slice()),
            _ => {
                self.error(e.span, "expected an invocation");
                return V::err();
            }
        };
        // `send f()` / `call c.f()` of an external (by name, or of a
        // resource's spec through a capability): MPD 1.0.1 runs the C
        // function; here in place.  Co, forward and create cannot issue it
        // (op_target says so).
        let external = match &callee.kind {
            ExprKind::Field { .. } => matches!(self.resolution(callee), Resolved::ResCapOp { sig } if sig.external),
            ExprKind::Ident(id) => {
                matches!(self.resolution_used(callee, id, false), Resolved::Op(sig) | Resolved::Proc(sig) if sig.external)
            }
            _ => false,
        };
        if external && self.plain_issue() {
            let v = self.call_expr(e, callee, args);
            if v.ty != Ty::Error {
                self.f.code.put(&eops::discard(&v.c));
            }
            return V::scalar("0".into(), Ty::Void);
        }
        let Some((sig, target)) = self.op_target(callee) else { return V::err() };
        let r = sig.op.clone().unwrap();
        if r.sem {
            if !args.is_empty() {
                self.error(e.span, "a semaphore takes no arguments");
            }
            let p = self.pos(e.span);
            self.f.code.put(&inop::p_or_v(&p, target, true));
            return V::scalar("0".into(), Ty::Void);
        }
        // `send op()` of a parameterless op known statically is V (the
        // runtime's V sends when the op is not a semaphore: emit/inop.rs)
        if send && args.is_empty() && sig.params.is_empty() && sig.ret == Ty::Void && self.plain_issue() {
            if !self.restriction_ok(&r, &sig.name, send, e.span) {
                return V::err();
            }
            if let Target::Op(op) = &target {
                let p = self.pos(e.span);
                // (a trace shows it as SEND unless the op is a `sem`)
                self.f.code.put(&inop::v(&p, op));
                return V::scalar("0".into(), Ty::Void);
            }
        }
        self.invoke_block(&sig, target, args, send, e.span)
    }

    /// Not inside a co arm, forward or create: an invocation stands alone.
    fn plain_issue(&self) -> bool {
        matches!(self.issue, Issue::Plain)
    }

    /// `create R(args)`.
    pub fn create(&mut self, target: &ast::CreateTarget, args: &[Expr], on: Option<&Expr>, span: Span) -> V {
        let ast::CreateTarget::Resource(q) = target else {
            // `on host` names a physical machine (int or string); every virtual
            // machine lives in this process, so it is evaluated and not used
            let machine = match on {
                None => eops::MACHINE_HERE.to_string(),
                Some(o) => {
                    let v = self.expr(o);
                    if v.ty == Ty::Int {
                        eops::machine_int(&v.c)
                    } else if v.ty.is_string() || v.ty.is_char_array() {
                        eops::machine_named(&self.sv(&v))
                    } else {
                        if v.ty != Ty::Error {
                            self.error(
                                o.span,
                                format!("vm location is neither integer nor string ({})", self.types.show(&v.ty)),
                            );
                        }
                        eops::MACHINE_HERE.to_string()
                    }
                }
            };
            if !args.is_empty() {
                self.error(span, "no arguments allowed in 'create vm()'");
            }
            let t = self.tmp();
            let p = self.pos(span);
            self.f.code.put(&eops::vm_create(&t, &p, &machine, &self.self_arg()));
            return V::scalar(t, Ty::Cap(CapTy::Vm));
        };
        let mut vm = None;
        if let Some(o) = on {
            let v = self.expr(o);
            match v.ty {
                Ty::Cap(CapTy::Vm) => {
                    let t = self.tmp();
                    self.f.code.put(&eops::cap_tmp(&t, &v.c));
                    vm = Some(t);
                }
                Ty::Error => {}
                _ => self.error(o.span, format!("location is not a vm cap ({})", self.types.show(&v.ty))),
            }
        }
        let name = q.parts.last().unwrap().name.clone();
        if !self.comp_visible(&name) && self.ifaces.contains_key(&name) {
            self.error(
                q.span,
                format!("undefined identifier: {} (a resource is named only where it is imported)", name),
            );
            return V::err();
        }
        let Some(iface) = self.ifaces.get(&name).cloned() else {
            if name == self.comp {
                return self.create_self(args, vm, span);
            }
            // a name declared here that is not a resource: MPD 1.0.1's words
            let msg = match self.lookup(&name) {
                Some(Sym::Comp(_)) | None => {
                    format!("undefined identifier: {} (no resource of that name compiled before this one)", name)
                }
                Some(_) => format!("not a resource: {}", name),
            };
            self.error(q.span, msg);
            return V::err();
        };
        if iface.global {
            self.error(q.span, format!("not a resource: `{}` is a global; it cannot be created", name));
            return V::err();
        }
        self.create_of(&name, &iface.params, args, vm, span)
    }

    fn create_self(&mut self, args: &[Expr], vm: Option<String>, span: Span) -> V {
        let params = self.res_params.clone();
        let name = self.comp.clone();
        self.create_of(&name, &params, args, vm, span)
    }

    /// `create name(args)` [on the vm capability `vm`, C].
    fn create_of(&mut self, name: &str, params: &[PSig], args: &[Expr], vm: Option<String>, span: Span) -> V {
        if args.len() != params.len() {
            self.error(span, super::msg::arity(name, params.len(), args.len()));
            return V::err();
        }
        // the creation block is filled like an invocation block
        let sig = ProcSig {
            name: name.to_string(),
            cname: String::new(),
            params: params.to_vec(),
            ret: Ty::Void,
            ret_name: None,
            selfc: String::new(),
            external: false,
            op: Some(OpRef::scalar(name.to_string(), 0, eops::create_args(name))),
        };
        self.issue = Issue::Create { res: name.to_string(), on: vm };
        let v = self.invoke_block(&sig, Target::Cap(String::new().into()), args, false, span);
        self.issue = Issue::Plain;
        v
    }

    pub fn konst_int(&self, v: &V) -> Option<i64> {
        match v.k {
            Some(KV::Int(n)) => Some(n),
            _ => None,
        }
    }
}
