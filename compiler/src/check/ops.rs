//! ops: operations and their invocation blocks (mpd/abi/ops.h) — op declarations,
//! call/send through blocks, receive, P/V, processes, create/destroy, capabilities.
use super::konst::KV;
use super::scope::{OpRef, PSig, ProcSig, Sym};
use super::types::{CapTy, SigInfo, Ty};
use super::{Checker, Form, V};
use crate::emit::{co, inop, names, ops as eops};
use crate::syntax::ast::{self, Expr, ExprKind, ParamMode, Span};
use std::rc::Rc;

/// Invocation blocks up to this many bytes of parameters live on the invoker's
/// stack (process stacks are 256 KiB by default); bigger ones on the heap.
const INV_STACK_MAX: usize = 1024;

/// How an op of this component is implemented (decided when the component ends).
#[derive(Clone, Debug)]
pub struct OpEntry {
    pub name: String,
    pub idx: u32,
    pub n: u32,
    /// the procfn wrapper, when a proc/process implements it
    pub procfn: Option<String>,
    pub sem: bool,
    pub flags: String,
}

/// What an op designator is used for (MPD 1.0.1 words misuse by use).
#[derive(Clone, Copy, PartialEq)]
pub enum OpUse {
    /// call, send, forward, co
    Invoke,
    /// in, receive, P: implements the op
    Input,
    /// `?op`
    Pending,
}

/// Identifies an op declaration (for "declared but not implemented").
pub fn op_key(r: &OpRef) -> String {
    match &r.local {
        Some(l) => l.clone(),
        None => format!("{}#{}", r.owner, r.idx),
    }
}

/// Where an invocation goes, and a capability value as C (emit/ops.rs).
pub use crate::emit::ops::{CapC, Target};

impl<'a> Checker<'a> {
    /// The instance pointer of an op's owner, as seen from here.
    pub fn owner_inst(&self, r: &OpRef) -> String {
        if let Some(l) = &r.local {
            l.clone()
        } else if r.owner == self.comp {
            eops::self_inst()
        } else {
            eops::global_inst(&r.owner)
        }
    }

    /// The address of op `idx` of an op's owner, as C.  The component's own
    /// ops go through `ops_`, the op table pointer every generated function
    /// loads once (it never changes while the instance lives): a store in a
    /// loop (a semaphore's count) could otherwise alias `self->h.ops` and make
    /// the compiler reload it every iteration.
    pub fn op_ptr(&self, r: &OpRef, idx: &str) -> String {
        if r.local.is_none() && r.owner == self.comp {
            eops::own_op_ptr(idx)
        } else {
            eops::inst_op_ptr(&self.owner_inst(r), idx)
        }
    }

    /// An op of another resource exists once per instance: it is reached
    /// through a capability, never by its bare name (a global's ops are
    /// unique and may be named).  Reports the error and returns false.
    pub fn op_reachable(&mut self, r: &OpRef, span: Span) -> bool {
        if r.local.is_some() || r.owner.is_empty() || r.owner == self.comp || r.global_owner {
            return true;
        }
        if self.ifaces.get(&r.owner).map(|i| i.global).unwrap_or(false) {
            return true;
        }
        self.error(span, format!("imported op must be referenced via a capability (an op of resource {} needs a `cap {}`)", r.owner, r.owner));
        false
    }

    /// Remembers an op or semaphore declared outside a spec: it must be
    /// implemented (MPD 1.0.1's opscan; an exported op may be implemented
    /// by an extending resource).
    fn note_op_decl(&mut self, name: &ast::Ident, key: String, sem: bool) {
        if !self.in_spec {
            self.declared_ops.push((key, name.clone(), sem));
        }
    }

    /// Ops declared but never implemented by a proc or an input statement,
    /// and never given away as a capability: every invocation would wait
    /// forever, so MPD 1.0.1 rejects them.
    pub fn unimplemented_ops(&mut self) {
        for (key, name, sem) in std::mem::take(&mut self.declared_ops) {
            if self.implemented.contains(&key) || (key.contains('#') && self.proc_names.contains(&name.name)) {
                continue;
            }
            if sem {
                self.error(name.span, format!("semaphore {} never implemented by P()", name.name));
            } else {
                self.error(name.span, format!("op {} declared but not implemented (no proc, in or receive services it)", name.name));
            }
        }
    }

    /// An op is implemented once: by a proc, or by input statements (in,
    /// receive).  Servicing a proc's op with input would wait for
    /// invocations the proc takes (MPD: "duplicate implementation").
    pub fn input_impl_check(&mut self, sig: &ProcSig, target: &Target, span: Span) {
        let Some(r) = &sig.op else { return };
        if matches!(target, Target::Op(_)) && r.local.is_none() && !r.sem && r.owner == self.comp && self.proc_names.contains(&sig.name) {
            self.error(span, format!("duplicate implementation of {}: it is implemented by a proc, so in, receive and P cannot service it", sig.name));
        }
    }

    /// `forward op(...)` hands the invocation being serviced to `op`: the
    /// invoker's block must fit it, so both ops have the same signature
    /// (MPD 1.0.1 compares them exactly, restrictions included), and a
    /// forward is a send (no `{call}` op).
    fn forward_ok(&mut self, to: &ProcSig, span: Span) -> bool {
        let from = match self.in_stack.last() {
            Some(a) => a.sig.clone(),
            None => match &self.serving {
                Some(s) => s.clone(),
                None => return true,
            },
        };
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
            self.error(span, format!("forward to incompatible op: `{}` does not have the signature of the op being serviced", to.name));
            return false;
        }
        if to.op.as_ref().map_or(false, |r| r.no_send) {
            self.error(span, format!("forward: op is restricted {{call}}: `{}` can only be called", to.name));
            return false;
        }
        true
    }

    /// An op restricted to `{send}` (a process too) is not called, one
    /// restricted to `{call}` is not sent to (MPD: "op is restricted").
    pub fn restriction_ok(&mut self, r: &OpRef, name: &str, send: bool, span: Span) -> bool {
        if !send && r.no_call {
            self.error(span, format!("op is restricted {{send}}: `{}` can only be sent to", name));
            return false;
        }
        if send && r.no_send {
            self.error(span, format!("send/fork: op is restricted {{call}}: `{}` can only be called", name));
            return false;
        }
        true
    }

    /// Registers a signature; returns its index in the shared table.
    pub fn register_sig(&mut self, params: &[PSig], ret: &Ty, inv: &str) -> usize {
        self.register_sig_r(params, ret, inv, None)
    }

    /// Registers a signature with the restriction written in it.
    pub fn register_sig_r(&mut self, params: &[PSig], ret: &Ty, inv: &str, r: Option<ast::OpRestriction>) -> usize {
        let (no_send, no_call) = r.map_or((false, false), |r| (!r.send, !r.call));
        self.types.sigs.push(SigInfo { params: params.to_vec(), ret: ret.clone(), inv: inv.to_string(), no_send, no_call });
        self.types.sigs.len() - 1
    }

    /// The signature (with its restriction) of a capability of the op.  A
    /// reference to the op other than an invocation (a capability of it, or
    /// `cap op` as a type) may let it be implemented elsewhere: MPD 1.0.1
    /// then does not require an implementation here.
    pub fn op_sig(&mut self, sig: &ProcSig) -> usize {
        self.implemented.insert(op_key(sig.op.as_ref().unwrap()));
        self.sig_index(sig)
    }

    /// The signature (with its restriction) of an op, registered.
    pub fn sig_index(&mut self, sig: &ProcSig) -> usize {
        let r = sig.op.as_ref().unwrap();
        let k = self.register_sig(&sig.params, &sig.ret, &r.inv);
        self.types.sigs[k].no_send = r.no_send;
        self.types.sigs[k].no_call = r.no_call;
        k
    }

    /// Defines `struct <inv>` (the invocation block of a signature) once.
    pub fn inv_struct(&mut self, inv: &str, params: &[PSig], ret: &Ty, span: Span) {
        if self.inv_defined.contains(inv) {
            return;
        }
        self.inv_defined.insert(inv.to_string());
        let mut fields = String::new();
        for (i, p) in params.iter().enumerate() {
            if p.mode == ParamMode::Ref {
                // a ref parameter travels as the address of the actual variable
                let t = if p.ty.is_blob() { "char".to_string() } else { self.ctype(&p.ty) };
                fields.push_str(&eops::ref_field(&t, i));
                continue;
            }
            fields.push_str(&self.block_field(&format!("p{}", i), &p.ty, span));
        }
        if *ret != Ty::Void {
            fields.push_str(&self.block_field("ret", ret, span));
        }
        self.invdefs.push_str(&eops::inv_struct(inv, &fields));
    }

    pub(crate) fn block_field(&mut self, name: &str, t: &Ty, span: Span) -> String {
        if t.is_scalar() {
            eops::scalar_field(&self.ctype(t), name)
        } else {
            let _ = span;
            match self.types.size_of(t) {
                Some(n) => eops::blob_field(name, n),
                None => eops::dynamic_field(name),
            }
        }
    }

    /// Declares the ops `op a, b[1:3](...)` of this component.
    pub fn declare_ops(&mut self, op: &ast::OpDecl, params: Vec<PSig>, ret: Ty, ret_name: Option<String>, sig_idx: Option<usize>, span: Span) {
        // `op T f`: the restriction is the optype's
        let (no_send, no_call) = match sig_idx {
            Some(k) => (self.types.sigs[k].no_send, self.types.sigs[k].no_call),
            None => restriction(op).map_or((false, false), |r| (!r.send, !r.call)),
        };
        let mut dynamic = false;
        for n in &op.names {
            for r in &n.dims {
                if let Some(lo) = &r.lo {
                    dynamic |= !self.is_const_expr(lo);
                }
                dynamic |= !self.is_const_expr(&r.hi);
            }
        }
        if !self.at_top || dynamic {
            return self.declare_local_ops(op, params, ret, ret_name, sig_idx, span);
        }
        for n in &op.names {
            let ixty = self.index_types(&n.dims);
            let (dims, cnt) = self.const_dims(&n.dims, n.span);
            let lo: String = dims.first().map(|d| d.0.clone()).unwrap_or_else(|| "1".into());
            let inv = match sig_idx {
                Some(k) => self.types.sigs[k].inv.clone(),
                None => eops::inv_name(&self.comp, &n.name.name),
            };
            self.inv_struct(&inv, &params, &ret, span);
            let idx = self.nops;
            self.nops += cnt;
            self.note_op_decl(&n.name, format!("{}#{}", self.comp, idx), false);
            let proc_impl = self.proc_names.contains(&n.name.name);
            self.ops.push(OpEntry { name: n.name.name.clone(), idx, n: cnt, procfn: None, sem: false, flags: String::new() });
            if params.is_empty() && ret == Ty::Void {
                self.plain_ops.insert(idx);
            }
            let sig = ProcSig {
                name: n.name.name.clone(),
                cname: names::proc_fn(&self.comp, &n.name.name),
                params: params.clone(),
                ret: ret.clone(),
                ret_name: ret_name.clone(),
                selfc: self.self_arg(),
                external: false,
                op: Some(OpRef {
                    owner: self.comp.clone(),
                    idx,
                    lo: lo.to_string(),
                    n: cnt.to_string(),
                    local: None,
                    dims,
                    inv,
                    proc_impl: proc_impl && n.dims.is_empty() && !self.replying.contains(&n.name.name),
                    global_owner: self.global,
                    sem: false,
                    ixty,
                    no_call,
                    no_send,
                }),
            };
            self.declare(&n.name, Sym::Proc(Rc::new(sig)));
        }
    }

    /// Declares one scalar op of this component with a known block struct.
    pub fn own_op(&mut self, name: &ast::Ident, params: Vec<PSig>, ret: Ty, ret_name: Option<String>, inv: String) {
        let idx = self.nops;
        self.nops += 1;
        let proc_impl = self.proc_names.contains(&name.name) && !self.replying.contains(&name.name);
        self.ops.push(OpEntry { name: name.name.clone(), idx, n: 1, procfn: None, sem: false, flags: String::new() });
        let sig = ProcSig {
            name: name.name.clone(),
            cname: names::proc_fn(&self.comp, &name.name),
            params,
            ret,
            ret_name,
            selfc: self.self_arg(),
            external: false,
            op: Some(OpRef { proc_impl, global_owner: self.global, ..OpRef::scalar(self.comp.clone(), idx, inv) }),
        };
        let top = self.scopes.last_mut().unwrap();
        top.map.insert(name.name.clone(), Sym::Proc(Rc::new(sig)));
    }

    /// Ops declared in a block: a local op object, killed when the block ends.
    fn declare_local_ops(&mut self, op: &ast::OpDecl, params: Vec<PSig>, ret: Ty, ret_name: Option<String>, sig_idx: Option<usize>, span: Span) {
        // `op T f`: the restriction is the optype's
        let (no_send, no_call) = match sig_idx {
            Some(k) => (self.types.sigs[k].no_send, self.types.sigs[k].no_call),
            None => restriction(op).map_or((false, false), |r| (!r.send, !r.call)),
        };
        for n in &op.names {
            let ixty = self.index_types(&n.dims);
            let (dims, cnt) = self.dyn_dims(&n.dims);
            let lo = dims.first().map(|d| d.0.clone()).unwrap_or_else(|| "1".into());
            let inv = match sig_idx {
                Some(k) => self.types.sigs[k].inv.clone(),
                None => eops::inv_name_local(&self.comp, &n.name.name, self.fresh),
            };
            self.inv_struct(&inv, &params, &ret, span);
            let obj = self.local_ops(&cnt);
            self.code.put(&eops::local_ops_input(&obj, &cnt));
            self.note_op_decl(&n.name, obj.clone(), false);
            let sig = ProcSig {
                name: n.name.name.clone(),
                cname: String::new(),
                params: params.clone(),
                ret: ret.clone(),
                ret_name: ret_name.clone(),
                selfc: self.self_arg(),
                external: false,
                op: Some(OpRef {
                    owner: self.comp.clone(),
                    idx: 0,
                    lo: lo.clone(),
                    n: dims.first().map(|d| d.1.clone()).unwrap_or_else(|| "1".into()),
                    local: Some(obj),
                    dims,
                    inv,
                    proc_impl: false,
                    global_owner: false,
                    sem: false,
                    ixty,
                    no_call,
                    no_send,
                }),
            };
            self.declare(&n.name, Sym::Proc(Rc::new(sig)));
        }
    }

    /// A new local op object of `cnt` ops: in a field of the instance at the
    /// top of a component, else in a local killed when its block ends.
    fn local_ops(&mut self, cnt: &str) -> String {
        if self.at_top {
            let f = self.raw_field(eops::LOCAL_OPS_TYPE);
            self.code.put(&eops::local_ops_set(&f, cnt));
            f
        } else {
            let o = self.tmp();
            self.code.put(&eops::local_ops_decl(&o, cnt));
            self.scopes.last_mut().unwrap().local_ops.push(o.clone());
            o
        }
    }

    fn is_const_expr(&mut self, b: &ast::Bound) -> bool {
        match b {
            ast::Bound::Star(_) => true,
            ast::Bound::Expr(e) => {
                if let ExprKind::Ident(id) = &e.kind {
                    if matches!(self.lookup(&id.name), Some(Sym::Type(_))) {
                        return true;
                    }
                }
                let saved = self.code.out.len();
                let mut scratch = crate::syntax::Diagnostics::new();
                std::mem::swap(self.diags, &mut scratch);
                let v = self.expr(e);
                std::mem::swap(self.diags, &mut scratch);
                self.code.out.truncate(saved);
                v.k.is_some() || scratch.has_errors()
            }
        }
    }

    /// Kills the local op objects of every open scope (before a return).
    pub fn local_ops_end_all(&mut self) {
        self.local_ops_end_from(0);
    }

    /// Kills the local op objects of the open scopes from `depth` in, innermost
    /// first (leaving them by return, exit or next).
    pub fn local_ops_end_from(&mut self, depth: usize) {
        let depth = depth.min(self.scopes.len());
        let all: Vec<String> = self.scopes[depth..].iter().flat_map(|s| s.local_ops.iter().cloned()).collect();
        for o in all.iter().rev() {
            self.code.put(&eops::local_ops_end(o));
        }
    }

    /// Dimensions of an op or sem array evaluated at run time, kept in the instance
    /// (resource level) or in locals: ([(lo, count)], total count) as C.
    fn dyn_dims(&mut self, ranges: &[ast::Range]) -> (Vec<(String, String)>, String) {
        let mut out = Vec::new();
        let mut total = "1".to_string();
        for r in ranges {
            let (_, _, l, h) = self.range(r, true);
            let (a, b) = if self.at_top {
                (self.raw_field("int"), self.raw_field("int"))
            } else {
                let (a, b) = (self.tmp(), self.tmp());
                self.code.put(&eops::dim_decl(&a, &b));
                (a, b)
            };
            for line in eops::dim_set(&a, &l, &b, &h) {
                self.code.put(&line);
            }
            total = eops::dims_product(&total, &b);
            out.push((a, b));
        }
        (out, total)
    }

    /// A semaphore array with bounds known at run time: a local op object.
    fn dyn_sem(&mut self, it: &ast::SemItem) {
        let ixty = self.index_types(&it.dims);
        let (dims, cnt) = self.dyn_dims(&it.dims);
        let obj = self.local_ops(&cnt);
        self.note_op_decl(&it.name, obj.clone(), true);
        let p = self.pos(it.span);
        match &it.init {
            Some(e) => {
                let v = self.expr(e);
                let mut leaf = &v.ty;
                let mut depth = 0;
                while let Ty::Arr(el, _, _) = leaf {
                    leaf = el;
                    depth += 1;
                }
                if *leaf != Ty::Int && *leaf != Ty::Error {
                    self.error(e.span, "incompatible semaphore initializer (it must be an int)");
                }
                if depth == 0 {
                    self.code.put(&inop::sem_local(&p, &obj, &cnt, &v.c));
                } else {
                    self.code.put(&inop::sem_local_arr(&p, &obj, &cnt, &v.c, depth));
                }
                self.code.put(&inop::trace_sems(&p, &inop::sem_local_first(&obj), &cnt, depth == 0));
            }
            None => {
                self.code.put(&inop::sem_local(&p, &obj, &cnt, "0"));
                self.code.put(&inop::trace_sems(&p, &inop::sem_local_first(&obj), &cnt, false));
            }
        }
        self.flush_tmps();
        let sig = ProcSig {
            name: it.name.name.clone(),
            cname: String::new(),
            params: vec![],
            ret: Ty::Void,
            ret_name: None,
            selfc: self.self_arg(),
            external: false,
            op: Some(OpRef {
                owner: self.comp.clone(),
                idx: 0,
                lo: dims.first().map(|d| d.0.clone()).unwrap_or_else(|| "1".into()),
                n: dims.first().map(|d| d.1.clone()).unwrap_or_else(|| "1".into()),
                local: Some(obj),
                dims,
                inv: eops::INV_NONE.into(),
                proc_impl: false,
                global_owner: false,
                sem: true,
                ixty,
                no_call: false,
                no_send: false,
            }),
        };
        self.declare(&it.name, Sym::Proc(Rc::new(sig)));
    }

    /// Constant dimensions of an op or sem array: ([(lo, count)], total).
    fn const_dims(&mut self, dims: &[ast::Range], span: Span) -> (Vec<(String, String)>, u32) {
        let mut out = Vec::new();
        let mut total = 1u32;
        for r in dims {
            let (lo, hi, _, _) = self.range(r, false);
            match (lo, hi) {
                (Some(l), Some(h)) if h >= l - 1 => {
                    let n = (h - l + 1) as u32;
                    total = total.saturating_mul(n);
                    out.push((l.to_string(), n.to_string()));
                }
                _ => {
                    self.error(span, "array bounds of operations must be constants here");
                    out.push(("1".into(), "1".into()));
                }
            }
        }
        (out, total)
    }

    /// `sem s[dims] = init`.
    pub fn sem_decl(&mut self, items: &[ast::SemItem]) {
        for it in items {
            let mut all_const = true;
            for r in &it.dims {
                if let Some(l) = &r.lo {
                    all_const &= self.is_const_expr(l);
                }
                all_const &= self.is_const_expr(&r.hi);
            }
            if !all_const {
                self.dyn_sem(it);
                continue;
            }
            let ixty = self.index_types(&it.dims);
            let (dims, cnt) = self.const_dims(&it.dims, it.span);
            let lo: String = dims.first().map(|d| d.0.clone()).unwrap_or_else(|| "1".into());
            if !self.at_top {
                // a semaphore of a block: a local op object
                self.dyn_sem(it);
                continue;
            }
            let idx = self.nops;
            self.nops += cnt;
            self.note_op_decl(&it.name, format!("{}#{}", self.comp, idx), true);
            self.code.line(self.line(it.span));
            let p = self.pos(it.span);
            match &it.init {
                Some(e) => {
                    let v = self.expr(e);
                    let mut leaf = &v.ty;
                    let mut depth = 0;
                    while let Ty::Arr(el, _, _) = leaf {
                        leaf = el;
                        depth += 1;
                    }
                    if *leaf != Ty::Int && *leaf != Ty::Error {
                        self.error(e.span, "incompatible semaphore initializer (it must be an int)");
                    }
                    if depth == 0 {
                        self.code.put(&inop::sem_own(&p, idx, cnt, &v.c));
                    } else {
                        self.code.put(&inop::sem_own_arr(&p, idx, cnt, &v.c, depth));
                    }
                    self.code.put(&inop::trace_sems(&p, &inop::sem_own_first(idx), &cnt.to_string(), depth == 0));
                }
                None => {
                    self.code.put(&inop::sem_own(&p, idx, cnt, "0"));
                    self.code.put(&inop::trace_sems(&p, &inop::sem_own_first(idx), &cnt.to_string(), false));
                }
            }
            self.flush_tmps();
            self.ops.push(OpEntry { name: it.name.name.clone(), idx, n: cnt, procfn: None, sem: true, flags: String::new() });
            let sig = ProcSig {
                name: it.name.name.clone(),
                cname: String::new(),
                params: vec![],
                ret: Ty::Void,
                ret_name: None,
                selfc: self.self_arg(),
                external: false,
                op: Some(OpRef {
                    owner: self.comp.clone(),
                    idx,
                    lo: lo.to_string(),
                    n: cnt.to_string(),
                    local: None,
                    dims,
                    inv: eops::INV_NONE.into(),
                    proc_impl: false,
                    global_owner: self.global,
                    sem: true,
                    ixty,
                    no_call: false,
                    no_send: false,
                }),
            };
            self.declare(&it.name, Sym::Proc(Rc::new(sig)));
        }
    }

    /// The op designated by an expression: `f`, `f[i]`, `g.f`, `rc.f`, or a
    /// capability value.  Returns the signature and the target.
    pub fn op_target(&mut self, e: &Expr) -> Option<(Rc<ProcSig>, Target)> {
        self.op_target_for(e, OpUse::Invoke)
    }

    /// `op_target` for a use that needs one op: an op array named whole is
    /// an error in MPD 1.0.1's words for that use.  An input use (in,
    /// receive, P) of an op of this component implements it.
    pub fn op_target_for(&mut self, e: &Expr, how: OpUse) -> Option<(Rc<ProcSig>, Target)> {
        let r = self.op_target_any(e, how)?;
        if how == OpUse::Input {
            if let Some(op) = &r.0.op {
                self.implemented.insert(op_key(op));
            }
        }
        Some(r)
    }

    fn op_target_any(&mut self, e: &Expr, how: OpUse) -> Option<(Rc<ProcSig>, Target)> {
        match &e.kind {
            ExprKind::Ident(id) => match self.resolve(&id.name) {
                Some(Sym::Proc(sig)) if sig.op.is_none() => {
                    // an external: a C function, called in place
                    match how {
                        OpUse::Input => self.error(e.span, format!("duplicate implementation of {} (it is an external, implemented in C)", id.name)),
                        _ => self.error(e.span, format!("{} is an external (a C function): it can only be called", id.name)),
                    }
                    None
                }
                Some(Sym::Proc(sig)) => {
                    let r = sig.op.clone()?;
                    if !r.dims.is_empty() {
                        let what = match how {
                            OpUse::Invoke => format!("not an op: {} (it is an array of ops: subscript it)", id.name),
                            OpUse::Input => format!("incorrect subscripting of {} (it is an array of ops)", id.name),
                            OpUse::Pending => format!("`?' requires an operation: {} is an array of ops", id.name),
                        };
                        self.error(e.span, what);
                        return None;
                    }
                    if !self.op_reachable(&r, e.span) {
                        return None;
                    }
                    Some((sig, Target::Op(self.op_ptr(&r, &r.idx.to_string()))))
                }
                Some(Sym::Var { .. }) => self.cap_target(e),
                None => {
                    self.undefined(e.span, &id.name);
                    None
                }
                _ => {
                    self.error(e.span, format!("not an op: {}", id.name));
                    None
                }
            },
            ExprKind::Index { base, subs } => {
                // a[i][j]: gather the subscripts of nested indexing of an op array
                let mut all: Vec<ast::Subscript> = subs.clone();
                let mut b = base.as_ref();
                while let ExprKind::Index { base: b2, subs: s2 } = &b.kind {
                    let mut v = s2.clone();
                    v.extend(all);
                    all = v;
                    b = b2.as_ref();
                }
                let (base, subs) = (b, &all);
                if let ExprKind::Ident(id) = &base.kind {
                    if let Some(Sym::Proc(sig)) = self.resolve(&id.name) {
                        let r = sig.op.clone()?;
                        if !self.op_reachable(&r, e.span) {
                            return None;
                        }
                        let ix = self.op_subscripts(&r, &sig.name, subs, e.span)?;
                        return Some((sig, Target::Op(self.op_ptr(&r, &eops::op_elem(r.idx, &ix)))));
                    }
                }
                // g.f[i]: an element of an op array of component g
                if let ExprKind::Field { base: rb, name } = &base.kind {
                    if let (true, ExprKind::Ident(b)) = (self.names_component(rb), &rb.kind) {
                        if let Some(Sym::Proc(sig)) = self.qualified(b, name) {
                            let r = sig.op.clone()?;
                            if !self.op_reachable(&r, e.span) {
                                return None;
                            }
                            let ix = self.op_subscripts(&r, &sig.name, subs, e.span)?;
                            return Some((sig, Target::Op(self.op_ptr(&r, &eops::op_elem(r.idx, &ix)))));
                        }
                    }
                }
                // rc.p[i]: an element of an op array of a resource capability
                if let (ExprKind::Field { base: rb, name }, [ast::Subscript::Index(ie)]) = (&base.kind, subs.as_slice()) {
                    let saved = self.code.out.len();
                    let bv = self.expr(rb);
                    if let Ty::Cap(CapTy::Resource(rn)) = &bv.ty {
                        if let Some(Sym::Proc(sig)) = self.res_member(&rn.clone(), &name.name) {
                            let r = sig.op.clone()?;
                            let i = self.expr(ie);
                            let want = r.ixty.first().cloned().unwrap_or(Ty::Int);
                            self.check_op_subscript(&want, &i, ie.span);
                            let p = self.pos(ie.span);
                            let ix = eops::op_index(&p, &i.c, &r.lo, &r.n);
                            return Some((sig, Target::Cap(CapC::rc_op(&bv.c, eops::op_elem(r.idx, &ix)))));
                        }
                    }
                    self.code.out.truncate(saved);
                }
                self.cap_target(e)
            }
            ExprKind::Field { base, name } => {
                if let ExprKind::Ident(b) = &base.kind {
                    if matches!(self.lookup(&b.name), Some(Sym::Comp(_))) {
                        if let Some(Sym::Proc(sig)) = self.qualified(b, name) {
                            let r = sig.op.clone()?;
                            if !self.op_reachable(&r, e.span) {
                                return None;
                            }
                            return Some((sig, Target::Op(self.op_ptr(&r, &r.idx.to_string()))));
                        }
                    }
                }
                // resource capability . op
                let bv = self.expr(base);
                if let Ty::Cap(CapTy::Resource(rn)) = &bv.ty {
                    let sig = self.res_member(rn, &name.name);
                    return match sig {
                        Some(Sym::Proc(sig)) => {
                            let idx = sig.op.as_ref().map(|r| r.idx).unwrap_or(0);
                            Some((sig, Target::Cap(CapC::rc_op(&bv.c, idx.to_string()))))
                        }
                        _ => {
                            self.error(name.span, format!("resource {} has no operation `{}`", rn, name.name));
                            None
                        }
                    };
                }
                self.cap_target(e)
            }
            _ => self.cap_target(e),
        }
    }

    /// The flat, checked index of `op[i, j, ...]` (row-major) as C.
    fn op_subscripts(&mut self, r: &OpRef, name: &str, subs: &[ast::Subscript], span: Span) -> Option<String> {
        let dims = if r.dims.is_empty() { vec![(r.lo.clone(), r.n.clone())] } else { r.dims.clone() };
        // a[i][j] and a[i, j] both list the subscripts in order
        if subs.len() != dims.len() {
            self.error(span, format!("incorrect subscripting of {} (it has {} dimensions, not {})", name, dims.len(), subs.len()));
            return None;
        }
        let mut acc = String::from("0");
        for (k, (s, (lo, n))) in subs.iter().zip(&dims).enumerate() {
            let ast::Subscript::Index(ie) = s else {
                self.error(span, format!("incorrect subscripting of {} (an operation array takes subscripts, not slices)", name));
                return None;
            };
            let i = self.expr(ie);
            let want = r.ixty.get(k).cloned().unwrap_or(Ty::Int);
            self.check_op_subscript(&want, &i, ie.span);
            let p = self.pos(ie.span);
            acc = eops::op_index_step(&acc, &p, &i.c, lo, n);
        }
        Some(acc)
    }

    /// The index type of each dimension of an op or sem array.
    fn index_types(&mut self, dims: &[ast::Range]) -> Vec<Ty> {
        dims.iter().map(|r| self.range_type(r)).collect()
    }

    /// A subscript of an op or sem array has the type of that dimension's
    /// bounds (MPD: "wrong subscript type"); a bool, real, string or sem
    /// subscript would otherwise reach the C compiler.
    fn check_op_subscript(&mut self, want: &Ty, i: &V, span: Span) {
        let want = if want.is_ordinal() { want.clone() } else { Ty::Int };
        if !self.types.same(&want, &i.ty) {
            self.error(span, format!("wrong subscript type: this operation array is indexed by {}, not {}", self.types.show(&want), self.types.show(&i.ty)));
        }
    }

    /// `rc.p[i]...` where rc is a resource capability and p an op array: the
    /// element's op, rc, and the element's offset in p (C text).  None (and
    /// no code) when `e` is something else.
    pub fn rescap_elem(&mut self, e: &Expr) -> Option<(Rc<ProcSig>, V, String)> {
        let mut all: Vec<ast::Subscript> = Vec::new();
        let mut b = e;
        while let ExprKind::Index { base: b2, subs: s2 } = &b.kind {
            let mut v = s2.clone();
            v.extend(all);
            all = v;
            b = b2.as_ref();
        }
        let ExprKind::Field { base: rb, name } = &b.kind else { return None };
        if all.is_empty() || self.names_component(rb) {
            return None;
        }
        let saved = self.code.out.len();
        let bv = self.expr(rb);
        if let Ty::Cap(CapTy::Resource(rn)) = &bv.ty {
            if let Some(Sym::Proc(sig)) = self.res_member(&rn.clone(), &name.name) {
                if let Some(r) = sig.op.clone() {
                    let ix = self.op_subscripts(&r, &sig.name, &all, e.span)?;
                    return Some((sig, bv, ix));
                }
            }
        }
        self.code.out.truncate(saved);
        None
    }

    /// Whether `e` is a component name qualifying a member (`g` in `g.x`):
    /// probes that evaluate the base of `x.f` to look for a resource
    /// capability must not evaluate it then (a component is not a value).
    pub fn names_component(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(b) => matches!(self.lookup(&b.name), Some(Sym::Comp(_))) || b.name == self.comp,
            _ => false,
        }
    }

    /// A member of resource `rn`'s spec (this resource's own, or an imported one).
    pub fn res_member(&self, rn: &str, name: &str) -> Option<Sym> {
        if rn == self.comp {
            return self.exports.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone());
        }
        self.ifaces.get(rn).and_then(|i| i.syms.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone()))
    }

    fn cap_target(&mut self, e: &Expr) -> Option<(Rc<ProcSig>, Target)> {
        let v = self.expr(e);
        match &v.ty {
            Ty::Cap(CapTy::Op(k)) => {
                let si = self.types.sigs[*k].clone();
                let sig = ProcSig {
                    name: "capability".into(),
                    cname: String::new(),
                    params: si.params,
                    ret: si.ret,
                    ret_name: None,
                    selfc: String::new(),
                    external: false,
                    op: Some(OpRef { no_send: si.no_send, no_call: si.no_call, ..OpRef::scalar(String::new(), 0, si.inv) }),
                };
                Some((Rc::new(sig), Target::Cap(v.c.into())))
            }
            Ty::Cap(CapTy::Sem) => {
                let sig = ProcSig {
                    name: "sem".into(),
                    cname: String::new(),
                    params: vec![],
                    ret: Ty::Void,
                    ret_name: None,
                    selfc: String::new(),
                    external: false,
                    op: Some(OpRef { sem: true, ..OpRef::scalar(String::new(), 0, eops::INV_NONE.into()) }),
                };
                Some((Rc::new(sig), Target::Cap(v.c.into())))
            }
            Ty::Error => None,
            _ => {
                // MPD 1.0.1: "not an op: x" for a name, "requires an operation" otherwise
                let what = match &e.kind {
                    ExprKind::Ident(id) => format!("not an op: {}", id.name),
                    _ => "requires an operation".to_string(),
                };
                self.error(e.span, format!("{} (found {})", what, self.types.show(&v.ty)));
                None
            }
        }
    }

    /// Invocation through a block: fills it, invokes (call or send), and for a call
    /// copies var/res results back and yields the return value.
    pub fn invoke_block(&mut self, sig: &ProcSig, target: Target, args: &[Expr], send: bool, span: Span) -> V {
        if args.len() != sig.params.len() {
            self.error(span, super::msg::arity(&sig.name, sig.params.len(), args.len()));
            return V::err();
        }
        if sig.ret.is_blob() && self.types.size_of(&sig.ret).is_none() {
            self.error(span, format!("`{}` returns a value whose size is known only at run time; this invocation is not supported yet", sig.name));
            return V::err();
        }
        let r = sig.op.clone().unwrap();
        if self.fwd_issue.is_some() && !self.forward_ok(sig, span) {
            return V::err();
        }
        if self.fwd_issue.is_none() && self.create_issue.is_none() && !self.restriction_ok(&r, &sig.name, send, span) {
            return V::err();
        }
        // the arguments' own invocations stand alone: they are not the co
        // arm, forward or create being issued (`co a = f(g(x)) oc`)
        let issue = (self.co_issue.take(), self.fwd_issue.take(), self.create_issue.take(), self.create_on.take());
        let vals: Vec<V> = args.iter().map(|a| self.expr(a)).collect();
        (self.co_issue, self.fwd_issue, self.create_issue, self.create_on) = issue;
        // the block: the struct, then the parameters sized at run time
        let b = self.tmp();
        let sz = self.tmp();
        self.code.put(&eops::block_size(&sz, &r.inv));
        let mut offs = Vec::new();
        for (i, (v, p)) in vals.iter().zip(sig.params.iter()).enumerate() {
            if p.ty.is_blob() && self.types.size_of(&p.ty).is_none() && p.mode != ParamMode::Ref {
                // the value is copied by its own size into the block: it must
                // be a blob of the parameter's kind (a scalar has no size)
                let fits = match &p.ty {
                    Ty::Str(_) => v.ty.is_string() || v.ty == Ty::Char || v.ty.is_char_array(),
                    _ => matches!(v.ty, Ty::Arr(..)) && self.types.assignable(&p.ty, &v.ty) || v.ty.is_string() && p.ty.is_char_array(),
                };
                if !fits && v.ty != Ty::Error {
                    self.error(args[i].span, format!("`{}`, argument {}: incompatible (a {} for a {})", sig.name, i + 1, self.types.show(&v.ty), self.types.show(&p.ty)));
                    return V::err();
                }
                let o = self.tmp();
                let size = match (&p.ty, v.form) {
                    (Ty::Str(_), Form::Blob) if v.ty.is_string() => eops::blob_size(&v.c, true),
                    (Ty::Str(_), _) => {
                        let s = self.sv(v);
                        let t = self.tmp();
                        self.code.put(&eops::str_view(&t, &s));
                        offs.push((i, o.clone(), Some(t.clone())));
                        self.code.put(&eops::param_offset(&o, &sz));
                        self.code.put(&eops::grow_by_str(&sz, &t));
                        continue;
                    }
                    (Ty::Arr(..), _) if v.ty.is_string() => {
                        self.error(args[i].span, "pass chars(s) for a char array parameter");
                        "16".into()
                    }
                    _ => eops::blob_size(&v.c, false),
                };
                self.code.put(&eops::param_offset(&o, &sz));
                self.code.put(&eops::grow_by(&sz, &size));
                offs.push((i, o, None));
            }
        }
        // A block of static size lives on the invoker's stack: the runtime copies
        // it whenever it must outlive the statement (send, co, forward, create,
        // a proc that gets a process), so only its size is a concern.
        let static_size: Option<usize> = if offs.is_empty() {
            sig.params.iter().map(|p| self.types.size_of(&p.ty)).chain(std::iter::once(match sig.ret {
                Ty::Void => Some(0),
                ref t => self.types.size_of(t),
            })).sum()
        } else {
            None
        };
        if static_size.map_or(false, |n| n <= INV_STACK_MAX) {
            self.code.put(&eops::block_on_stack(&r.inv, &b, &sz));
        } else {
            let t = self.t();
            self.code.put(&eops::block_on_heap(&r.inv, &b, t, &sz));
        }
        for (i, o, view) in &offs {
            self.code.put(&eops::set_param_offset(&b, *i, o));
            let dst = eops::param_at(&b, o);
            match view {
                Some(t) => self.code.put(&eops::copy_str_param(&dst, t)),
                None => self.code.put(&eops::copy_blob_param(&dst, &vals[*i].c, sig.params[*i].ty.is_string())),
            }
        }
        let mut backs = Vec::new();
        for (i, ((v, a), p)) in vals.into_iter().zip(args.iter()).zip(sig.params.iter()).enumerate() {
            let byref = !matches!(p.mode, ParamMode::Default | ParamMode::Val);
            if byref && !v.lv && v.ty != Ty::Error {
                self.error(a.span, "var/res/ref parameter is not a variable");
                continue;
            }
            if p.mode == ParamMode::Ref {
                self.ref_arg(&b, i, p, &v, a.span);
                continue;
            }
            let field = self.blk_param(&b, i, &p.ty);
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
        let pos = self.pos(span);
        if let Some(res) = self.create_issue.take() {
            let t = self.tmp();
            let vm = eops::create_vm_arg(self.create_on.take());
            self.code.put(&eops::create(&t, &pos, &res, &b, &vm, &self.self_arg()));
            return V::scalar(t, Ty::Cap(CapTy::Resource(res)));
        }
        if let Some(cur) = self.fwd_issue.clone() {
            // forward: the invoker of `cur` is answered when this invocation is
            let cap = match target {
                Target::Op(op) => eops::cap_of_op(&op),
                Target::Cap(c) => c.to_string(),
            };
            self.code.put(&eops::forward(&pos, &cur, &cap, &b));
            return V::scalar("0".into(), Ty::Void);
        }
        if let Some((co, arm, idx)) = self.co_issue.clone() {
            // an arm of a co statement: the runtime copies the block; results are
            // copied out when the arm completes
            self.code.put(&co::arm(&b, arm, &idx));
            self.code.put(&co::invoke(&pos, &co, target, &b, send));
            return V::scalar("0".into(), Ty::Void);
        }
        self.code.put(&eops::invoke(&pos, target, &b, send));
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
            self.error(span, format!("expected a {} variable, found {}", self.types.show(&p.ty), self.types.show(&v.ty)));
            return;
        }
        if p.ty.is_blob() {
            if v.form != Form::Blob || v.slice.is_some() {
                self.error(span, "a ref argument must be a whole variable");
                return;
            }
            self.code.put(&eops::ref_arg(b, i, &v.c, true));
        } else {
            if v.form != Form::Scalar {
                self.error(span, "a ref argument must be a variable");
                return;
            }
            self.code.put(&eops::ref_arg(b, i, &v.c, false));
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
        if let ExprKind::Ident(id) = &callee.kind {
            if let Some(Sym::Proc(sig)) = self.resolve(&id.name) {
                if sig.external && self.plain_issue() {
                    // `send f()` of an external: MPD 1.0.1 runs it; here in place
                    let v = self.call_expr(callee, args, e.span);
                    if v.ty != Ty::Error {
                        self.code.put(&format!("(void)({});", v.c));
                    }
                    return V::scalar("0".into(), Ty::Void);
                }
            }
        }
        let Some((sig, target)) = self.op_target(callee) else { return V::err() };
        let r = sig.op.clone().unwrap();
        if r.sem {
            if !args.is_empty() {
                self.error(e.span, "a semaphore takes no arguments");
            }
            let p = self.pos(e.span);
            self.code.put(&inop::p_or_v(&p, target, true));
            return V::scalar("0".into(), Ty::Void);
        }
        // `send op()` of a parameterless op known statically is V (mpd_op_V
        // sends when the op is not a semaphore at run time)
        if send && args.is_empty() && sig.params.is_empty() && sig.ret == Ty::Void && self.plain_issue() {
            if !self.restriction_ok(&r, &sig.name, send, e.span) {
                return V::err();
            }
            if let Target::Op(op) = &target {
                let p = self.pos(e.span);
                // (MPD_TRACE shows it as SEND unless the op is a `sem`)
                self.code.put(&inop::v(&p, op));
                return V::scalar("0".into(), Ty::Void);
            }
        }
        self.invoke_block(&sig, target, args, send, e.span)
    }

    /// Not inside a co arm, forward or create: an invocation stands alone.
    fn plain_issue(&self) -> bool {
        self.co_issue.is_none() && self.fwd_issue.is_none() && self.create_issue.is_none()
    }

    /// `receive op(v1, ...)`.
    pub fn receive(&mut self, e: &Expr) {
        let (callee, args) = match &e.kind {
            ExprKind::Call { callee, args } => (callee.as_ref(), args.as_slice()),
            _ => (e, &[][..]),
        };
        let Some((sig, target)) = self.op_target_for(callee, OpUse::Input) else { return };
        self.input_impl_check(&sig, &target, callee.span);
        let r = sig.op.clone().unwrap();
        let p = self.pos(e.span);
        if sig.ret != Ty::Void {
            self.error(e.span, format!("cannot receive an op that returns a value (`{}` returns {})", sig.name, self.types.show(&sig.ret)));
            return;
        }
        if sig.params.iter().any(|p| matches!(p.mode, ast::ParamMode::Var | ast::ParamMode::Res)) {
            self.error(e.span, format!("cannot receive an op having a var or res param (`{}`)", sig.name));
            return;
        }
        let op = match target {
            Target::Op(op) => op,
            Target::Cap(c) => inop::in_cap(&p, &c.to_string()),
        };
        if args.len() != sig.params.len() {
            self.error(e.span, format!("receive: wrong number of arguments (`{}` has {} parameters, not {})", sig.name, sig.params.len(), args.len()));
            return;
        }
        // receive of a parameterless op is P (mpd_op_P receives and completes
        // the invocation when the op is not a semaphore at run time)
        if r.sem || (sig.params.is_empty() && sig.ret == Ty::Void) {
            // (MPD_TRACE shows it as IN/ARM/NI unless the op is a `sem`)
            self.code.put(&inop::p(&p, &op));
            return;
        }
        let ib = self.tmp();
        self.code.put(&crate::emit::trace::event(&p, "IN", "0"));
        self.code.put(&inop::receive(&r.inv, &ib, &p, &op));
        self.code.put(&crate::emit::trace::event_invoker(&p, "ARM", &inop::block_hdr(&ib)));
        for (i, (a, ps)) in args.iter().zip(sig.params.iter()).enumerate() {
            let v = self.expr(a);
            if !v.lv && v.ty != Ty::Error {
                self.error(a.span, "assignment target is not a variable (receive needs variables)");
                continue;
            }
            let c = self.blk_param_of(&ib, i, ps);
            let src = if ps.ty.is_blob() {
                V { c, ty: ps.ty.clone(), form: Form::Blob, k: None, lv: false, slice: None }
            } else {
                V::scalar(c, ps.ty.clone())
            };
            self.with_mismatch(format!("receive: argument {} is incompatible", i + 1), |c| c.assign_into(&v, src, a.span));
        }
        self.code.put(&crate::emit::trace::event_invoker(&p, "NI", &inop::block_hdr(&ib)));
        self.code.put(&inop::in_done(&ib));
        self.flush_tmps();
    }

    /// `P(s)` / `V(s)`.
    pub fn p_v(&mut self, e: &Expr, v: bool) {
        let Some((sig, target)) = self.op_target_for(e, if v { OpUse::Invoke } else { OpUse::Input }) else { return };
        let r = sig.op.clone().unwrap();
        let p = self.pos(e.span);
        if !r.sem && !sig.params.is_empty() {
            self.error(e.span, "P and V need a semaphore");
            return;
        }
        // P is input on the op, as receive is
        if !v {
            self.input_impl_check(&sig, &target, e.span);
        }
        match (&self.chunk, v, target) {
            // in a loop taking its slice in chunks (chunk.rs): a P that waits
            // keeps the loop's countdown right
            (Some(ch), false, target) => {
                let op = match target {
                    Target::Op(op) => op,
                    Target::Cap(c) => inop::in_cap(&p, &c.to_string()),
                };
                self.code.put(&inop::p_chunked(&p, &op, &ch.sl, &ch.unrun));
            }
            (_, v, Target::Cap(c)) if v => {
                self.code.put(&inop::v_cap(&p, &c.to_string()));
                return;
            }
            (_, v, target) => self.code.put(&inop::p_or_v(&p, target, v)),
        }
        self.flush_tmps();
    }

    /// The value of an op name used as a capability (`c = links`).
    pub fn op_cap_value(&mut self, sig: &ProcSig, span: Span) -> V {
        let r = sig.op.clone().unwrap();
        if !self.op_reachable(&r, span) {
            return V::err();
        }
        let inst = self.owner_inst(&r);
        let k = self.op_sig(sig);
        let ty = if r.sem { Ty::Cap(CapTy::Sem) } else { Ty::Cap(CapTy::Op(k)) };
        V::scalar(eops::cap_of(&inst, r.idx), ty)
    }

    /// `?op`.
    pub fn pending(&mut self, e: &Expr) -> V {
        let Some((_, target)) = self.op_target_for(e, OpUse::Pending) else { return V::err() };
        let p = self.pos(e.span);
        V::scalar(inop::pending(&p, target), Ty::Int)
    }

    /// `process p[quantifiers] { body }`: a proc run once per quantifier value,
    /// started when the initial code ends.
    pub fn process_decl(&mut self, p: &ast::ProcDecl) {
        let idx = self.nops;
        self.nops += 1;
        let fname = eops::process_fn(&self.comp, &p.name.name);
        let inv = eops::inv_name(&self.comp, &p.name.name);
        // a process is an op taking its quantifier variables: `send p(v)`
        // starts another instance.  Its parameters are ints whatever the
        // quantifier ranges over, as in MPD 1.0.1: `process p[c = 'a' to 'b']`
        // sees c as 97 and 98 in its body (a real quantifier is truncated);
        // the `st` condition still sees the quantifier's own type
        let params: Vec<PSig> =
            p.quants.iter().map(|q| PSig { mode: ParamMode::Default, ty: Ty::Int, name: q.var.name.clone(), ixty: vec![] }).collect();
        self.inv_struct(&inv, &params, &Ty::Void, p.name.span);
        let sig = ProcSig {
            name: p.name.name.clone(),
            cname: fname.clone(),
            params: params.clone(),
            ret: Ty::Void,
            ret_name: None,
            selfc: self.self_arg(),
            external: false,
            op: Some(OpRef { global_owner: self.global, no_call: true, ..OpRef::scalar(self.comp.clone(), idx, inv.clone()) }),
        };
        self.declare(&p.name, Sym::Proc(Rc::new(sig)));
        self.ops.push(OpEntry {
            name: p.name.name.clone(),
            idx,
            n: 1,
            procfn: Some(fname.clone()),
            sem: false,
            flags: eops::PROCESS_FLAGS.into(),
        });
        // start code (runs at the end of the initial code)
        let saved = std::mem::replace(&mut self.code, crate::emit::Code::new(&self.file_name, self.opts.lines));
        self.code.indent = 1;
        self.push();
        let b = self.tmp();
        let mut opened = 0;
        let mut qvars = Vec::new();
        for q in &p.quants {
            let super::quant::Quant { ty, real, start, end, step } = self.quant(q);
            let v = eops::quant_var(&q.var.name, self.fresh);
            self.fresh += 1;
            // downto's default step is -1 (quant.rs)
            self.code.open(&eops::process_quant_loop(&v, real, q.downto, &start.c, &end.c, &step));
            opened += 1;
            let ct = self.ctype(&ty);
            self.code.put(&eops::process_quant_var(&ct, &v));
            self.declare(&q.var, Sym::Var { c: v.clone(), ty, assignable: false });
            if let Some(stc) = &q.st {
                let c = self.quant_st(stc);
                self.code.open(&eops::process_quant_st(&c));
                opened += 1;
            }
            qvars.push(v);
        }
        self.code.put(&eops::process_block(&inv, &b));
        for (i, v) in qvars.iter().enumerate() {
            self.code.put(&eops::process_block_param(&b, i, v));
        }
        let pos = self.pos(p.name.span);
        self.code.put(&eops::process_start(&pos, idx, &b));
        for _ in 0..opened {
            self.code.close("}");
        }
        self.pop();
        let start = std::mem::replace(&mut self.code, saved).take();
        // MPD starts a process when initial code reaches its declaration
        self.code.out.push_str(&start);
        // the process body
        let saved = std::mem::replace(&mut self.code, crate::emit::Code::new(&self.file_name, self.opts.lines));
        let saved_top = self.at_top;
        let saved_loops = std::mem::take(&mut self.loop_labels);
        self.at_top = false;
        self.push();
        self.code.line(self.line(p.name.span));
        for line in eops::process_prologue(&inv, &self.self_type()) {
            self.code.put(&line);
        }
        for (i, ps) in params.iter().enumerate() {
            self.declare(&p.quants[i].var, Sym::Var { c: eops::process_param(i), ty: ps.ty.clone(), assignable: false });
        }
        // MPD_TRACE: a process is traced as a proc (after the SEND that
        // started it), by a traced copy chosen when its op is declared
        let tpos = self.pos(p.name.span);
        let ret = eops::PROCESS_RETURN.to_string();
        let saved_ret = self.ret.replace(super::RetInfo { stmt: ret.clone() });
        let saved_tp = self.trace_proc.replace(eops::PROCESS_IB.into());
        self.block_stmts(&p.body.stmts);
        self.trace_proc = saved_tp;
        self.local_ops_end_all();
        self.code.put(&ret);
        self.ret = saved_ret;
        self.pop();
        self.at_top = saved_top;
        self.loop_labels = saved_loops;
        let body = std::mem::replace(&mut self.code, saved).take();
        self.protos.push_str(&eops::process_proto(&fname));
        let (plain, traced) = eops::process_defs(&fname, &body, &tpos, &format!("{}.{}", self.comp, p.name.name));
        self.funcs.push_str(&plain);
        self.funcs.push_str(&traced);
    }

    /// The procfn wrapper of a proc: unpacks its block and calls the C function.
    pub fn proc_wrapper(&mut self, sig: &ProcSig, pos: &str) -> String {
        let r = sig.op.clone().unwrap();
        let w = eops::wrapper_fn(&sig.cname);
        let mut args = eops::wrapper_head_args(&self.self_type());
        for (i, p) in sig.params.iter().enumerate() {
            let byref = !matches!(p.mode, ParamMode::Default | ParamMode::Val);
            if p.mode == ParamMode::Ref {
                args.push(eops::wrapper_ref_arg(i));
            } else if p.ty.is_blob() || !byref {
                args.push(self.blk_param("ib", i, &p.ty));
            } else {
                args.push(eops::wrapper_var_arg(i));
            }
        }
        let ret = if sig.ret == Ty::Void {
            eops::WrapRet::Void
        } else if sig.ret.is_blob() {
            eops::WrapRet::Blob(self.types.size_of(&sig.ret).unwrap_or(16))
        } else {
            eops::WrapRet::Scalar
        };
        let call = eops::wrapper_call(&sig.cname, &args, ret);
        let (traced, plain) = eops::wrapper_defs(&w, pos, &self.comp, &sig.name, &r.inv, &call);
        self.funcs.push_str(&traced);
        self.funcs.push_str(&plain);
        w
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
                            self.error(o.span, format!("vm location is neither integer nor string ({})", self.types.show(&v.ty)));
                        }
                        eops::MACHINE_HERE.to_string()
                    }
                }
            };
            if !args.is_empty() {
                self.error(span, "create vm() takes no arguments");
            }
            let t = self.tmp();
            let p = self.pos(span);
            self.code.put(&eops::vm_create(&t, &p, &machine, &self.self_arg()));
            return V::scalar(t, Ty::Cap(CapTy::Vm));
        };
        self.create_on = None;
        if let Some(o) = on {
            let v = self.expr(o);
            match v.ty {
                Ty::Cap(CapTy::Vm) => {
                    let t = self.tmp();
                    self.code.put(&eops::cap_tmp(&t, &v.c));
                    self.create_on = Some(t);
                }
                Ty::Error => {}
                _ => self.error(o.span, format!("location is not a vm cap ({})", self.types.show(&v.ty))),
            }
        }
        let name = q.parts.last().unwrap().name.clone();
        let Some(iface) = self.ifaces.get(&name).cloned() else {
            if name == self.comp {
                return self.create_self(args, span);
            }
            self.error(q.span, format!("undefined identifier: {} (no resource of that name compiled before this one)", name));
            return V::err();
        };
        if iface.global {
            self.error(q.span, format!("not a resource: `{}` is a global; it cannot be created", name));
            return V::err();
        }
        self.create_of(&name, &iface.params, args, span)
    }

    fn create_self(&mut self, args: &[Expr], span: Span) -> V {
        let params = self.res_params.clone();
        let name = self.comp.clone();
        self.create_of(&name, &params, args, span)
    }

    fn create_of(&mut self, name: &str, params: &[PSig], args: &[Expr], span: Span) -> V {
        if args.len() != params.len() {
            self.error(span, format!("resource {} takes {} parameters, not {}", name, params.len(), args.len()));
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
        self.create_issue = Some(name.to_string());
        let v = self.invoke_block(&sig, Target::Cap(String::new().into()), args, false, span);
        self.create_issue = None;
        v
    }

    pub fn konst_int(&self, v: &V) -> Option<i64> {
        match v.k {
            Some(KV::Int(n)) => Some(n),
            _ => None,
        }
    }
}

/// The `{call}` / `{send}` restriction written in an op declaration.
fn restriction(op: &ast::OpDecl) -> Option<ast::OpRestriction> {
    match &op.sig {
        ast::OpSig::Explicit { restriction, .. } => *restriction,
        _ => None,
    }
}
