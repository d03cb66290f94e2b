//! resolved: what a name or a field names, recorded per node in the typed
//! table (typed.rs) by the rule that first finds it.
//!
//! `resolution(e)` answers for a name `x` and a field `a.f`: a variable
//! (with its C name), a constant, an enumeration literal, an op (its
//! signature), a procedure, a predefined function (its table row), a type,
//! a member `g.x` of a component, an op `rc.f` of a resource capability, a
//! record's field.  The type rules (`ident_type`, `field_type`,
//! `op_elem_type`, the callee of `call_type`, `target_op`), `const_of` and
//! `place` ask it, and so does the translation (`expr`'s names and
//! component members, `call_expr`'s callees, op_target.rs's designators,
//! through `resolution_used`): each node is looked up once per state of
//! the names, and what the rules typed is what the translation emits.
use super::konst::KV;
use super::predef::{self, Predef};
use super::scope::{ProcSig, Sym};
use super::types::{CapTy, Ty};
use super::Checker;
use crate::syntax::ast::{Expr, ExprKind, Ident};
use std::rc::Rc;

/// What a name or a field names.
#[derive(Clone)]
pub(crate) enum Resolved {
    /// A variable: its C (lvalue, or a blob's address), type, assignability.
    Var {
        c: String,
        ty: Ty,
        assignable: bool,
    },
    Const {
        v: KV,
        ty: Ty,
    },
    /// A literal of enumeration `e` (its ordinal `i`).
    EnumLit {
        e: usize,
        i: i64,
    },
    /// An op or op array (a proc serving it included), by its signature.
    Op(Rc<ProcSig>),
    /// A procedure that is no op (an external).
    Proc(Rc<ProcSig>),
    /// A predefined function: its row (predef.rs).
    Predef(&'static Predef),
    Type(Ty),
    /// `g.x`: what member x of component g names there.
    Member(Box<Resolved>),
    /// `rc.f`: member f of a resource's spec that is an op (or an external:
    /// no `op` in its signature), through a capability.
    ResCapOp {
        sig: Rc<ProcSig>,
    },
    /// `r.f`: field `field` of record type `rec`.
    RecField {
        rec: usize,
        field: usize,
    },
    /// A name that is no value (a component, an optype, a procedure whose
    /// heading is not elaborated yet, a formal of the list being elaborated):
    /// a procedure is one as a callee (`callee_sig`).
    NotValue(Sym),
    /// Nothing of that name (no member, no field).
    Nothing,
}

impl Resolved {
    /// What member `g.x` names (Nothing for what is no member).
    pub(super) fn member(self) -> Resolved {
        match self {
            Resolved::Member(m) => *m,
            _ => Resolved::Nothing,
        }
    }

    pub(super) fn of_sym(s: Sym) -> Resolved {
        match s {
            Sym::Var { c, ty, assignable } => Resolved::Var { c, ty, assignable },
            Sym::Const { v, ty, .. } => Resolved::Const { v, ty },
            Sym::EnumLit { e, i } => Resolved::EnumLit { e, i },
            Sym::Proc(sig) if sig.op.is_some() => Resolved::Op(sig),
            Sym::Proc(sig) => Resolved::Proc(sig),
            Sym::Type(t) => Resolved::Type(t),
            s => Resolved::NotValue(s),
        }
    }
}

impl<'a> Checker<'a> {
    /// What name or field `e` names (the typed table's, looked up the first
    /// time); Nothing for other expressions.
    pub(super) fn resolution(&mut self, e: &Expr) -> Resolved {
        if let Some(r) = self.typed.get(e.id, &self.types).and_then(|n| n.res.clone()) {
            return r;
        }
        let s = self.typed_stamp();
        let r = match &e.kind {
            ExprKind::Ident(id) => self.resolve_name(&id.name),
            ExprKind::Field { base, name } => self.resolve_field(base, name),
            _ => Resolved::Nothing,
        };
        self.typed_keep(e.id, s, |n| n.res = Some(r.clone()));
        r
    }

    /// What name `e` (`id`) names where the translation uses it: the
    /// table's, but a procedure whose heading is not elaborated yet is
    /// elaborated now (procs.rs's `resolve`: its signature goes into the
    /// scope, its invocation block into the C), and one of the body named
    /// above its heading is reported there when `report` (`resolve_use`).
    pub(super) fn resolution_used(&mut self, e: &Expr, id: &Ident, report: bool) -> Resolved {
        if report && self.is_later_proc(&id.name) {
            return match self.resolve_use(id) {
                Some(s) => Resolved::of_sym(s),
                None => self.resolution(e),
            };
        }
        match self.resolution(e) {
            Resolved::NotValue(Sym::PendingProc(_)) => {
                self.resolve(&id.name).map_or(Resolved::Nothing, Resolved::of_sym)
            }
            r => r,
        }
    }

    /// The signature `r` names as the callee of a call or the op of an
    /// invocation: an op's or a procedure's, or the one a procedure whose
    /// heading is not elaborated yet will have (type_written.rs's
    /// `pending_sig`, not kept: working it out may register its formals'
    /// types, see typed.rs).
    pub(super) fn callee_sig(&mut self, r: &Resolved) -> Option<Rc<ProcSig>> {
        match r {
            Resolved::Op(sig) | Resolved::Proc(sig) => Some(sig.clone()),
            Resolved::NotValue(Sym::PendingProc(p)) => Some(self.pending_sig(p)),
            _ => None,
        }
    }

    /// A name: its symbol in the scopes open here, else MPD's predefined
    /// constants (EOF, the literals of accessmode and seektype) and
    /// functions.
    fn resolve_name(&mut self, name: &str) -> Resolved {
        if let Some(s) = self.lookup(name).cloned() {
            return Resolved::of_sym(s);
        }
        let lit = |lits: [&str; 3]| lits.iter().position(|x| *x == name).map(|i| i as i64);
        if name == "EOF" {
            Resolved::Const { v: KV::Int(-1), ty: Ty::Int }
        } else if let Some(i) = lit(["READ", "WRITE", "READWRITE"]) {
            Resolved::EnumLit { e: self.predefined_enum("accessmode"), i }
        } else if let Some(i) = lit(["ABSOLUTE", "RELATIVE", "EXTEND"]) {
            Resolved::EnumLit { e: self.predefined_enum("seektype"), i }
        } else {
            predef::lookup(name).map_or(Resolved::Nothing, Resolved::Predef)
        }
    }

    /// `g.x` for a component g (a type's name qualifies nothing), else by
    /// the base's type: an op of a resource capability, a record's field
    /// (`p.f` with p a pointer is not `p^.f`).
    fn resolve_field(&mut self, base: &Expr, name: &Ident) -> Resolved {
        if let ExprKind::Ident(b) = &base.kind {
            if matches!(self.lookup(&b.name), Some(Sym::Type(_))) {
                return Resolved::Nothing;
            }
            if self.names_component(base) {
                return match self.qualified(b, name) {
                    Some(s) => Resolved::Member(Box::new(Resolved::of_sym(s))),
                    None => Resolved::Nothing,
                };
            }
        }
        match self.type_of(base) {
            Ty::Cap(CapTy::Resource(rn)) => match self.res_member(&rn, &name.name) {
                Some(Sym::Proc(sig)) => Resolved::ResCapOp { sig },
                _ => Resolved::Nothing,
            },
            Ty::Rec(r) => match self.types.recs[r].fields.iter().position(|f| f.0 == name.name) {
                Some(field) => Resolved::RecField { rec: r, field },
                None => Resolved::Nothing,
            },
            _ => Resolved::Nothing,
        }
    }
}
