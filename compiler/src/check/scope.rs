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
    /// The operation behind it (None for an `external`).
    pub op: Option<OpRef>,
}

/// Where an operation lives: component, index in its op table, and its
/// invocation block struct.
#[derive(Clone, Debug)]
pub struct OpRef {
    pub owner: String,
    pub idx: u32,
    /// op arrays: lower bound and count as C expressions (scalar ops: 1, 1)
    pub lo: String,
    pub n: String,
    /// a local op object (ops declared in a block): its C variable
    pub local: Option<String>,
    /// every dimension of an op array: (lower bound, count) as C expressions
    pub dims: Vec<(String, String)>,
    pub inv: String,
    /// implemented by a proc/procedure of its component (a direct C call works)
    pub proc_impl: bool,
    /// the owner is a global (its instance pointer is known statically)
    pub global_owner: bool,
    /// semaphore (sem declaration)
    pub sem: bool,
    /// the index type of each dimension of an op array (empty: all int);
    /// a subscript must have that type ("wrong subscript type")
    pub ixty: Vec<super::types::Ty>,
    /// `{send}` (or a process): the op cannot be called; `{call}`: it
    /// cannot be sent to
    pub no_call: bool,
    pub no_send: bool,
}

impl OpRef {
    /// A scalar (non-array, non-local) op of `owner` at `idx`; callers
    /// override the flags that differ.
    pub fn scalar(owner: String, idx: u32, inv: String) -> OpRef {
        OpRef {
            owner,
            idx,
            lo: "1".into(),
            n: "1".into(),
            local: None,
            dims: vec![],
            inv,
            ixty: vec![],
            no_call: false,
            no_send: false,
            proc_impl: false,
            global_owner: false,
            sem: false,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Sym {
    /// `c` is a C lvalue (scalars) or a `char *` address (blobs).
    Var {
        c: String,
        ty: Ty,
        assignable: bool,
    },
    Const {
        v: KV,
        ty: Ty,
        /// MPD 1.0.1 folds its value at compile time (compile_time.rs): it
        /// may be a bound of a spec, a record or a type
        folds: bool,
    },
    Type(Ty),
    /// An optype (by signature index): names op signatures, not a type of values.
    Optype(usize),
    EnumLit {
        e: usize,
        i: i64,
    },
    Proc(Rc<ProcSig>),
    /// A `procedure` whose signature is elaborated on first use.
    PendingProc(Rc<crate::syntax::ast::ProcDecl>),
    /// An imported component, for qualified names `g.x`.
    Comp(String),
    /// A formal parameter while its own parameter list is elaborated: the
    /// types of a list cannot refer to its parameters (MPD 1.0.1).
    Formal,
}

#[derive(Default)]
pub struct Scope {
    pub map: HashMap<String, Sym>,
    /// local op objects created in this scope (killed when it ends)
    pub local_ops: Vec<String>,
    /// Names brought in by `import` here: name -> (component, symbol).
    /// Own declarations (at any depth) win over them; a name imported from
    /// two components is ambiguous (MPD 1.0.1).
    pub imported: HashMap<String, Vec<(String, Sym)>>,
    /// the scope of a `for`'s quantifier variables: its body block shares
    /// their name space (MPD 1.0.1: `for [i = ...] { int i }` is a duplicate)
    pub for_quants: bool,
}
