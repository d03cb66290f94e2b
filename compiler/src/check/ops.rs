//! ops: operations -- op and semaphore declarations (at the top of a
//! component, in blocks, with run-time bounds), their signatures and block
//! structs, and which ops must be implemented.  Designators are resolved in
//! op_target.rs, invocations in invoke.rs, input in input.rs, processes in
//! process.rs; the C is spelled in emit/ops.rs and emit/inop.rs.
use super::scope::{OpRef, PSig, ProcSig, Sym};
use super::types::{SigInfo, Ty};
use super::{Checker, V};
use crate::emit::{inop, names, ops as eops};
use crate::syntax::ast::{self, ExprKind, ParamMode, Span};
use std::rc::Rc;

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

/// The most op (and semaphore) array elements one component declares.
const MAX_OPS: u32 = 1 << 20;

impl<'a> Checker<'a> {
    /// The instance pointer of an op's owner, as seen from here.
    pub fn owner_inst(&mut self, r: &OpRef) -> String {
        if let Some(l) = &r.local {
            // inside an st/by callback, a local op object of the enclosing
            // code is reached through the callback's environment
            match self.scopes.iter().rposition(|s| s.local_ops.contains(l)) {
                Some(idx) => self.capture_at(idx, l.clone(), eops::LOCAL_OPS_TYPE, false),
                None => l.clone(),
            }
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
    pub fn op_ptr(&mut self, r: &OpRef, idx: &str) -> String {
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
        if self.op_reachable_here(r) {
            return true;
        }
        self.error(
            span,
            format!(
                "imported op must be referenced via a capability (an op of resource {} needs a `cap {}`)",
                r.owner, r.owner
            ),
        );
        false
    }

    /// `op_reachable` without the message.
    pub fn op_reachable_here(&self, r: &OpRef) -> bool {
        r.local.is_some()
            || r.owner.is_empty()
            || r.owner == self.comp
            || r.global_owner
            || self.ifaces.get(&r.owner).is_some_and(|i| i.global)
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
                self.error(
                    name.span,
                    format!("op {} declared but not implemented (no proc, in or receive services it)", name.name),
                );
            }
        }
    }

    /// A use of op `r` after which MPD 1.0.1 makes no semaphore of it
    /// (op.c's opscan: called, forwarded, sent to in a co, used as a
    /// capability, served by an `in` with else; declared in a spec): its
    /// waking arrivals hold its class as any op's would.
    pub fn note_nosema(&mut self, r: &OpRef) {
        if r.owner == self.comp && r.local.is_none() {
            self.nosema.insert(r.idx);
        }
    }

    /// An op is implemented once: by a proc, or by input statements (in,
    /// receive).  Servicing a proc's op with input would wait for
    /// invocations the proc takes (MPD: "duplicate implementation").
    pub fn input_impl_check(&mut self, sig: &ProcSig, target: &Target, span: Span) {
        let Some(r) = &sig.op else { return };
        if matches!(target, Target::Op(_))
            && r.local.is_none()
            && !r.sem
            && r.owner == self.comp
            && self.proc_names.contains(&sig.name)
        {
            self.error(span, format!("duplicate implementation of {}: it is implemented by a proc, so in, receive and P cannot service it", sig.name));
        }
    }

    /// An op restricted to `{send}` (a process too) is not called, one
    /// restricted to `{call}` is not sent to (MPD: "op is restricted").
    pub fn restriction_ok(&mut self, r: &OpRef, name: &str, send: bool, span: Span) -> bool {
        if !send && r.no_call {
            self.error(span, format!("op is restricted {{send}}: `{}` can only be sent to", name));
            return false;
        }
        if send && r.no_send {
            let head = super::msg::words(super::msg::Wording::SendRestrictedCall, self.dialect(span));
            self.error(span, format!("{}: `{}` can only be called", head, name));
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
        self.types.sigs.push(SigInfo {
            params: params.to_vec(),
            ret: ret.clone(),
            inv: inv.to_string(),
            no_send,
            no_call,
        });
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
        if self.out.inv_defined.contains(inv) {
            return;
        }
        self.out.inv_defined.insert(inv.to_string());
        let mut fields = String::new();
        for (i, p) in params.iter().enumerate() {
            if p.mode == ParamMode::Ref {
                // a ref parameter travels as the address of the actual variable
                let t = if p.ty.is_blob() { eops::BLOB_REF_CTYPE.to_string() } else { self.ctype(&p.ty) };
                fields.push_str(&eops::ref_field(&t, i));
                continue;
            }
            fields.push_str(&self.block_field(&eops::param_field(i), &p.ty, span));
        }
        if *ret != Ty::Void {
            fields.push_str(&self.block_field(eops::RET_FIELD, ret, span));
        }
        self.out.invdefs.push_str(&eops::inv_struct(inv, &fields));
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
    pub fn declare_ops(
        &mut self,
        op: &ast::OpDecl,
        params: Vec<PSig>,
        ret: Ty,
        ret_name: Option<String>,
        sig_idx: Option<usize>,
        span: Span,
    ) {
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
            let idx = self.out.nops;
            self.out.nops += cnt;
            self.note_op_decl(&n.name, format!("{}#{}", self.comp, idx), false);
            let proc_impl = self.proc_names.contains(&n.name.name);
            self.names_changed();
            self.out.ops.push(OpEntry {
                name: n.name.name.clone(),
                idx,
                n: cnt,
                procfn: None,
                sem: false,
                flags: String::new(),
            });
            if params.is_empty() && ret == Ty::Void {
                self.plain_ops.insert(idx);
                if self.in_spec {
                    self.nosema.insert(idx);
                }
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
        let idx = self.out.nops;
        self.out.nops += 1;
        let proc_impl = self.proc_names.contains(&name.name) && !self.replying.contains(&name.name);
        self.names_changed();
        self.out.ops.push(OpEntry {
            name: name.name.clone(),
            idx,
            n: 1,
            procfn: None,
            sem: false,
            flags: String::new(),
        });
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
        let top = self.top_scope();
        top.map.insert(name.name.clone(), Sym::Proc(Rc::new(sig)));
    }

    /// Ops declared in a block: a local op object, killed when the block ends.
    fn declare_local_ops(
        &mut self,
        op: &ast::OpDecl,
        params: Vec<PSig>,
        ret: Ty,
        ret_name: Option<String>,
        sig_idx: Option<usize>,
        span: Span,
    ) {
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
            self.f.code.put(&eops::local_ops_input(&obj, &cnt));
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
            self.f.code.put(&eops::local_ops_set(&f, cnt));
            f
        } else {
            let o = self.tmp();
            self.f.code.put(&eops::local_ops_decl(&o, cnt));
            self.top_scope().local_ops.push(o.clone());
            o
        }
    }

    /// Whether an op array's bound is known at compile time: `*`, a type
    /// name (`[color]`), a constant expression -- or an erroneous one (its
    /// error is reported where the bounds are worked out, as for a
    /// constant's).
    fn is_const_expr(&mut self, b: &ast::Bound) -> bool {
        match b {
            ast::Bound::Star(_) => true,
            ast::Bound::Expr(e) => {
                if let ExprKind::Ident(id) = &e.kind {
                    if matches!(self.lookup(&id.name), Some(Sym::Type(_))) {
                        return true;
                    }
                }
                self.const_of(e).is_some() || self.type_of(e) == Ty::Error
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
            self.f.code.put(&eops::local_ops_end(o));
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
                (self.raw_field(eops::DIM_CTYPE), self.raw_field(eops::DIM_CTYPE))
            } else {
                let (a, b) = (self.tmp(), self.tmp());
                self.f.code.put(&eops::dim_decl(&a, &b));
                (a, b)
            };
            for line in eops::dim_set(&a, &l, &b, &h) {
                self.f.code.put(&line);
            }
            total = eops::dims_product(&total, &b);
            out.push((a, b));
        }
        (out, total)
    }

    /// A semaphore's initial value: an int for one semaphore, an array of
    /// ints of the declaration's shape for an array of them (MPD 1.0.1:
    /// `sem s[3] = 0` and `sem s = (1, 2)` are an "incompatible semaphore
    /// initializer"); the value and its depth.  The sizes are checked when
    /// it runs (the runtime compares the counts).
    fn sem_init(&mut self, e: &ast::Expr, ndims: usize) -> (V, usize) {
        let v = self.expr(e);
        let mut leaf = &v.ty;
        let mut depth = 0;
        while let Ty::Arr(el, _, _, _) = leaf {
            leaf = el;
            depth += 1;
        }
        if *leaf != Ty::Int && *leaf != Ty::Error {
            self.error(e.span, "incompatible semaphore initializer (it must be an int)");
        } else if depth != ndims && *leaf != Ty::Error {
            let want = if ndims == 0 {
                "one int".to_string()
            } else {
                format!("an array of ints with {} dimension(s), as `([n] 0)`", ndims)
            };
            self.error(e.span, format!("incompatible semaphore initializer (it must be {})", want));
        }
        (v, depth)
    }

    /// A semaphore array with bounds known at run time: a local op object.
    fn dyn_sem(&mut self, it: &ast::SemItem) {
        let ixty = self.index_types(&it.dims);
        let (dims, cnt) = self.dyn_dims(&it.dims);
        let obj = self.local_ops(&cnt);
        self.note_op_decl(&it.name, obj.clone(), true);
        let p = self.pos(it.span);
        // MPD makes no semaphore of one declared in a block or a spec
        let held = !self.at_top || self.in_spec;
        match &it.init {
            Some(e) => {
                let (v, depth) = self.sem_init(e, it.dims.len());
                if depth == 0 {
                    self.f.code.put(&inop::sem_local(&p, &obj, &cnt, &v.c, held));
                } else {
                    self.f.code.put(&inop::sem_local_arr(&p, &obj, &cnt, &v.c, depth, held));
                }
                self.f.code.put(&inop::trace_sems(&p, &inop::sem_local_first(&obj), &cnt, depth == 0));
            }
            None => {
                self.f.code.put(&inop::sem_local(&p, &obj, &cnt, "0", held));
                self.f.code.put(&inop::trace_sems(&p, &inop::sem_local_first(&obj), &cnt, false));
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

    /// The index type of each dimension of an op or sem array.
    fn index_types(&mut self, dims: &[ast::Range]) -> Vec<Ty> {
        dims.iter().map(|r| self.range_type(r)).collect()
    }

    /// Constant dimensions of an op or sem array: ([(lo, count)], total).
    fn const_dims(&mut self, dims: &[ast::Range], span: Span) -> (Vec<(String, String)>, u32) {
        let mut out = Vec::new();
        // counted in u64: one dimension of a full int range is 2^32 elements
        let mut total = 1u64;
        for r in dims {
            let (lo, hi, _, _) = self.range(r, false);
            match (lo, hi) {
                (Some(l), Some(h)) if h >= l - 1 => {
                    let n = (h - l + 1) as u64;
                    total = total.saturating_mul(n);
                    out.push((l.to_string(), n.to_string()));
                }
                _ => {
                    self.error(span, "array bounds of operations must be constants here");
                    out.push(("1".into(), "1".into()));
                }
            }
        }
        // each element is an op of the instance's table (and a slot of its
        // class map): more than the runtime can hold is an error here, not
        // an allocation failure of the compiler or of the program
        if self.out.nops as u64 + total > MAX_OPS as u64 {
            self.error(
                span,
                format!("too many operations: {} more elements (at most {} in one component)", total, MAX_OPS),
            );
            return (vec![("1".into(), "1".into()); out.len()], 1);
        }
        (out, total as u32)
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
            let idx = self.out.nops;
            self.out.nops += cnt;
            if self.in_spec {
                self.nosema.insert(idx);
            }
            self.note_op_decl(&it.name, format!("{}#{}", self.comp, idx), true);
            self.f.code.line(self.line(it.span));
            let p = self.pos(it.span);
            match &it.init {
                Some(e) => {
                    let (v, depth) = self.sem_init(e, it.dims.len());
                    if depth == 0 {
                        self.f.code.put(&inop::sem_own(&p, idx, cnt, &v.c));
                    } else {
                        self.f.code.put(&inop::sem_own_arr(&p, idx, cnt, &v.c, depth));
                    }
                    self.f.code.put(&inop::trace_sems(&p, &inop::sem_own_first(idx), &cnt.to_string(), depth == 0));
                }
                None => {
                    self.f.code.put(&inop::sem_own(&p, idx, cnt, "0"));
                    self.f.code.put(&inop::trace_sems(&p, &inop::sem_own_first(idx), &cnt.to_string(), false));
                }
            }
            self.flush_tmps();
            self.names_changed();
            self.out.ops.push(OpEntry {
                name: it.name.name.clone(),
                idx,
                n: cnt,
                procfn: None,
                sem: true,
                flags: String::new(),
            });
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
}

/// The `{call}` / `{send}` restriction written in an op declaration.
fn restriction(op: &ast::OpDecl) -> Option<ast::OpRestriction> {
    match &op.sig {
        ast::OpSig::Explicit { restriction, .. } => *restriction,
        _ => None,
    }
}
