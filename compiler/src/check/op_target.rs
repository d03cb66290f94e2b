//! op_target: what an op designator names -- `f`, `f[i]`, `g.f`, `rc.f`,
//! `rc.f[i]`, or a capability value -- checked for its use (MPD 1.0.1's
//! words for misuse), as a signature and a Target (emit/ops.rs).
use super::ops::{op_key, CapC, OpUse, Target};
use super::resolved::Resolved;
use super::scope::{OpRef, ProcSig, Sym};
use super::types::{CapTy, Ty};
use super::{Checker, V};
use crate::emit::ops as eops;
use crate::syntax::ast::{self, Expr, ExprKind, Span};
use std::rc::Rc;

impl<'a> Checker<'a> {
    /// The op designated by an expression: `f`, `f[i]`, `g.f`, `rc.f`, or a
    /// capability value.  Returns the signature and the target.
    pub fn op_target(&mut self, e: &Expr) -> Option<(Rc<ProcSig>, Target)> {
        self.op_target_for(e, OpUse::Invoke)
    }

    /// `op_target` for a use that needs one op: an op array named whole is
    /// an error in MPD 1.0.1's words for that use.  An input use (in,
    /// receive, P) of an op of this component implements it.
    pub fn op_target_for(&mut self, e: &Expr, how: OpUse) -> Option<(Rc<ProcSig>, Target)> {
        // an external of a resource's spec through a capability (`c.abs`)
        // is a C function: only a plain call reaches it (builtin.rs)
        if let Resolved::ResCapOp { sig } = self.resolution(e) {
            if sig.external {
                self.error(e.span, format!("{} is an external (a C function): it can only be called", sig.name));
                return None;
            }
        }
        let Some(r) = self.op_target_any(e, how) else {
            // a misused op array (`in q[i:2](x)`) is still the op the program
            // services: one error, not a second "declared but not implemented"
            if how == OpUse::Input {
                self.note_input_of_array(e);
            }
            return None;
        };
        if how == OpUse::Input {
            if let Some(op) = &r.0.op {
                self.implemented.insert(op_key(op));
            }
        }
        Some(r)
    }

    fn note_input_of_array(&mut self, e: &Expr) {
        let mut b = e;
        while let ExprKind::Index { base, .. } = &b.kind {
            b = base;
        }
        if let ExprKind::Ident(id) = &b.kind {
            if let Resolved::Op(sig) | Resolved::Proc(sig) = self.resolution_used(b, id, false) {
                if let Some(op) = &sig.op {
                    self.implemented.insert(op_key(op));
                }
            }
        }
    }

    fn op_target_any(&mut self, e: &Expr, how: OpUse) -> Option<(Rc<ProcSig>, Target)> {
        match &e.kind {
            ExprKind::Ident(id) => match self.resolution_used(e, id, true) {
                Resolved::Op(sig) | Resolved::Proc(sig) if sig.op.is_none() => {
                    // an external: a C function, called in place
                    match how {
                        OpUse::Input => self.error(
                            e.span,
                            format!("duplicate implementation of {} (it is an external, implemented in C)", id.name),
                        ),
                        _ => self
                            .error(e.span, format!("{} is an external (a C function): it can only be called", id.name)),
                    }
                    None
                }
                Resolved::Op(sig) | Resolved::Proc(sig) => {
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
                Resolved::Var { .. } => self.cap_target(e, how),
                // no symbol (EOF and the predefined enumerations' literals are no ops)
                Resolved::Predef(_) | Resolved::Nothing => {
                    self.undefined(e.span, &id.name);
                    None
                }
                Resolved::Const { .. } | Resolved::EnumLit { .. } if self.lookup(&id.name).is_none() => {
                    self.undefined(e.span, &id.name);
                    None
                }
                _ => {
                    self.error(e.span, format!("not an op: {}", id.name));
                    None
                }
            },
            ExprKind::Index { base, subs } => self.op_elem_target(e, base, subs),
            ExprKind::Field { base, name } => {
                if let ExprKind::Ident(b) = &base.kind {
                    if matches!(self.lookup(&b.name), Some(Sym::Comp(_))) {
                        if let Resolved::Op(sig) | Resolved::Proc(sig) = self.resolution(e).member() {
                            let r = sig.op.clone()?;
                            if !r.dims.is_empty() {
                                self.whole_op_array_target(&format!("{}.{}", b.name, name.name), how, e.span);
                                return None;
                            }
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
                        Some(Sym::Proc(sig)) if sig.op.as_ref().is_some_and(|r| !r.dims.is_empty()) => {
                            self.whole_op_array_target(&name.name, how, e.span);
                            None
                        }
                        Some(Sym::Proc(sig)) => {
                            let idx = sig.op.as_ref().map(|r| r.idx).unwrap_or(0);
                            Some((sig, Target::Cap(CapC::rc_op(&bv.c, idx.to_string()))))
                        }
                        _ => {
                            self.error(
                                name.span,
                                format!(
                                    "undefined identifier: {} (resource {} has no operation `{}`)",
                                    name.name, rn, name.name
                                ),
                            );
                            None
                        }
                    };
                }
                self.cap_target(e, how)
            }
            _ => self.cap_target(e, how),
        }
    }

    /// `a[i]`, `a[i][j]`, `g.f[i]`, `rc.p[i]`: an element of an op array.
    fn op_elem_target(&mut self, e: &Expr, base: &Expr, subs: &[ast::Subscript]) -> Option<(Rc<ProcSig>, Target)> {
        // a[i][j]: gather the subscripts of nested indexing of an op array
        let mut all: Vec<ast::Subscript> = subs.to_vec();
        let mut b = base;
        while let ExprKind::Index { base: b2, subs: s2 } = &b.kind {
            let mut v = s2.clone();
            v.extend(all);
            all = v;
            b = b2.as_ref();
        }
        let (base, subs) = (b, &all);
        if let ExprKind::Ident(id) = &base.kind {
            if let Resolved::Op(sig) | Resolved::Proc(sig) = self.resolution_used(base, id, false) {
                let r = sig.op.clone()?;
                if !self.op_reachable(&r, e.span) {
                    return None;
                }
                let ix = self.op_subscripts(&r, &sig.name, subs, e.span)?;
                return Some((sig, Target::Op(self.op_ptr(&r, &eops::op_elem(r.idx, &ix)))));
            }
        }
        // g.f[i]: an element of an op array of component g
        if let ExprKind::Field { base: rb, .. } = &base.kind {
            if self.names_component(rb) {
                if let Resolved::Op(sig) | Resolved::Proc(sig) = self.resolution(base).member() {
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
            if let Resolved::ResCapOp { sig } = self.resolution(base) {
                let bv = self.expr(rb);
                let r = sig.op.clone()?;
                if r.dims.is_empty() {
                    self.error(
                        ie.span,
                        format!("subscripted object is not an array (`{}` is a single operation)", name.name),
                    );
                    return None;
                }
                let i = self.expr(ie);
                let want = r.ixty.first().cloned().unwrap_or(Ty::Int);
                self.check_op_subscript(&want, &i, ie.span);
                let p = self.pos(ie.span);
                let ix = eops::op_index(&p, &i.c, &r.lo, &r.n);
                return Some((sig, Target::Cap(CapC::rc_op(&bv.c, eops::op_elem(r.idx, &ix)))));
            }
        }
        self.cap_target(e, OpUse::Invoke)
    }

    /// The flat, checked index of `op[i, j, ...]` (row-major) as C.
    fn op_subscripts(&mut self, r: &OpRef, name: &str, subs: &[ast::Subscript], span: Span) -> Option<String> {
        // a single op, sem, procedure or process (a process family too) is
        // not an array
        if r.dims.is_empty() {
            self.error(span, format!("subscripted object is not an array (`{}` is a single operation)", name));
            return None;
        }
        let dims = if r.dims.is_empty() { vec![(r.lo.clone(), r.n.clone())] } else { r.dims.clone() };
        // a[i][j] and a[i, j] both list the subscripts in order
        if subs.len() != dims.len() {
            self.error(
                span,
                format!("incorrect subscripting of {} (it has {} dimensions, not {})", name, dims.len(), subs.len()),
            );
            return None;
        }
        let mut acc = String::from("0");
        for (k, (s, (lo, n))) in subs.iter().zip(&dims).enumerate() {
            let ast::Subscript::Index(ie) = s else {
                self.error(
                    span,
                    format!("incorrect subscripting of {} (an operation array takes subscripts, not slices)", name),
                );
                return None;
            };
            let i = self.expr(ie);
            let want = r.ixty.get(k).cloned().unwrap_or(Ty::Int);
            self.check_op_subscript(&want, &i, ie.span);
            let p = self.pos(ie.span);
            let (lo, n) = (self.local_dim(r, lo), self.local_dim(r, n));
            acc = eops::op_index_step(&acc, &p, &i.c, &lo, &n);
        }
        Some(acc)
    }

    /// A bound of a local op array as seen from here: the variable holding
    /// it is reached through an st/by callback's environment, as the op
    /// object itself is (owner_inst).
    fn local_dim(&mut self, r: &OpRef, d: &str) -> String {
        let Some(l) = &r.local else { return d.to_string() };
        let is_var = d.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
            && d.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
        match self.scopes.iter().rposition(|s| s.local_ops.contains(l)) {
            Some(idx) if is_var => self.capture_at(idx, d.to_string(), "int", false),
            _ => d.to_string(),
        }
    }

    /// A subscript of an op or sem array has the type of that dimension's
    /// bounds (MPD: "wrong subscript type"); a bool, real, string or sem
    /// subscript would otherwise reach the C compiler.
    fn check_op_subscript(&mut self, want: &Ty, i: &V, span: Span) {
        let want = if want.is_ordinal() { want.clone() } else { Ty::Int };
        if !self.types.same(&want, &i.ty) {
            self.error(
                span,
                format!(
                    "wrong subscript type: this operation array is indexed by {}, not {}",
                    self.types.show(&want),
                    self.types.show(&i.ty)
                ),
            );
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
        let Ty::Cap(CapTy::Resource(rn)) = self.type_of(rb) else { return None };
        if let Some(Sym::Proc(sig)) = self.res_member(&rn, &name.name) {
            if let Some(r) = sig.op.clone() {
                let bv = self.expr(rb);
                let ix = self.op_subscripts(&r, &sig.name, &all, e.span)?;
                return Some((sig, bv, ix));
            }
        }
        None
    }

    /// Whether `e` is a component name qualifying a member (`g` in `g.x`):
    /// rules that look at the type of the base of `x.f` for a resource
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

    fn cap_target(&mut self, e: &Expr, how: OpUse) -> Option<(Rc<ProcSig>, Target)> {
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
                    op: Some(OpRef {
                        no_send: si.no_send,
                        no_call: si.no_call,
                        ..OpRef::scalar(String::new(), 0, si.inv)
                    }),
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
                // MPD 1.0.1: "not an op: x" for a name, "requires an operation"
                // otherwise; `?x` says which operator wanted one
                let what = match (&e.kind, how) {
                    (ExprKind::Ident(id), OpUse::Pending) => format!("`?' requires an operation: {}", id.name),
                    (ExprKind::Ident(id), _) => format!("not an op: {}", id.name),
                    (_, OpUse::Pending) => "`?' requires an operation".to_string(),
                    _ => "requires an operation".to_string(),
                };
                self.error(e.span, format!("{} (found {})", what, self.types.show(&v.ty)));
                None
            }
        }
    }

    /// The value of an op name used as a capability (`c = links`).
    pub fn op_cap_value(&mut self, sig: &ProcSig, span: Span) -> V {
        let r = sig.op.clone().unwrap();
        if !self.op_reachable(&r, span) {
            return V::err();
        }
        self.note_nosema(&r);
        if !r.dims.is_empty() {
            return self.op_array_value(sig, &|c, r, k| c.named_op_elem_cap(r, k));
        }
        let inst = self.owner_inst(&r);
        let k = self.op_sig(sig);
        let ty = if r.sem { Ty::Cap(CapTy::Sem) } else { Ty::Cap(CapTy::Op(k)) };
        V::scalar(eops::cap_of(&inst, r.idx), ty)
    }

    /// An op array reached through a component or a resource capability
    /// (`g.a`, `rc.a`) where one op is needed: MPD 1.0.1's words for the use.
    fn whole_op_array_target(&mut self, name: &str, how: OpUse, span: Span) {
        let what = match how {
            OpUse::Invoke => format!("invocation: not an op: {} is an array of ops (subscript it)", name),
            OpUse::Input => format!("cannot in/receive/P: not an op: {} is an array of ops (subscript it)", name),
            OpUse::Pending => format!("`?' requires an operation: {} is an array of ops", name),
        };
        self.error(span, what);
    }
}
