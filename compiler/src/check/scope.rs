//! scope: what a name means in the checker (variables, constants, types, procedures...).
use super::konst::KV;
use super::types::Ty;
use crate::syntax::ast::ParamMode;
use std::collections::HashMap;
use std::rc::Rc;

/// A parameter of a procedure or operation.
#[derive(Clone, Debug)]
pub struct PSig {
    pub mode: ParamMode,
    pub ty: Ty,
    pub name: String,
}

/// A procedure, proc, or operation that can be called.
#[derive(Clone, Debug)]
pub struct ProcSig {
    pub name: String,
    pub cname: String,
    pub params: Vec<PSig>,
    pub ret: Ty,
    pub ret_name: Option<String>,
    /// The instance argument calls pass (`self`, or `&<global instance>`).
    pub selfc: String,
    /// An `external` C function: called with plain C arguments.
    pub external: bool,
}

#[derive(Clone, Debug)]
pub enum Sym {
    /// `c` is a C lvalue (scalars) or a `char *` address (blobs).
    Var { c: String, ty: Ty, assignable: bool },
    Const { v: KV, ty: Ty },
    Type(Ty),
    EnumLit { e: usize, i: i64 },
    Proc(Rc<ProcSig>),
    /// A `procedure` whose signature is elaborated on first use.
    PendingProc(Rc<crate::syntax::ast::ProcDecl>),
    /// An imported component, for qualified names `g.x`.
    Comp(String),
}

#[derive(Default)]
pub struct Scope {
    pub map: HashMap<String, Sym>,
}
