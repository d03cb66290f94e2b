//! check: name resolution, types and constants over the AST, driving C generation.
//!
//! The checker walks each component once.  For every construct it resolves names in
//! nested scopes, computes types, folds constants, reports errors through
//! syntax::diag, and asks emit/ for the C that implements it (in the way Lua's
//! parser drives lcode.c).  A checked expression is a [`V`]: its C text, its type,
//! its form (scalar value, blob address or string view) and its constant value.
//! If any error is reported the C is discarded, so no C is produced from bad input.
mod assign;
mod builtin;
mod chunk;
mod compile_time;
mod decl;
mod expr;
mod files;
mod in_co;
mod index;
mod input;
mod invoke;
mod konst;
mod leaf;
mod loop_var;
mod msg;
mod op_array_value;
mod op_target;
mod operator;
mod ops;
mod order;
mod predef;
mod predef_args;
mod predef_io;
mod process;
mod procs;
mod quant;
mod scope;
mod spec_order;
mod star_bounds;
mod unit;
pub use files::check_files;
mod resolved;
mod stmt;
mod type_audit;
mod type_const;
mod type_of;
mod type_of_call;
mod type_of_effect;
mod type_operator;
mod type_place;
mod type_written;
mod typed;
pub mod types;
mod typexpr;
mod untyped_init;

use crate::emit::{component, names, Code};
use crate::syntax::ast::{self, Span};
use crate::syntax::{Diagnostics, SourceMap};
use scope::{Scope, Sym};
use std::collections::{BTreeMap, HashMap};
use types::{Ty, Types};

pub use konst::KV;

/// How a checked expression's C text is to be read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// A C scalar (int, double, unsigned char, _Bool, pointer, capability).
    Scalar,
    /// A `char *` address of a blob (string, array, record).
    Blob,
    /// A string view (length and characters; emit::var).
    View,
}

/// A checked expression.
#[derive(Clone, Debug)]
pub struct V {
    pub c: String,
    pub ty: Ty,
    pub form: Form,
    pub k: Option<KV>,
    /// Designates a variable (may be assigned / passed by reference).
    pub lv: bool,
    /// For an assignable slice: (base blob, lo, hi) in C.
    pub slice: Option<(String, String, String)>,
}

impl V {
    pub fn err() -> V {
        V { c: "0".into(), ty: Ty::Error, form: Form::Scalar, k: None, lv: true, slice: None }
    }
    pub fn scalar(c: String, ty: Ty) -> V {
        V { c, ty, form: Form::Scalar, k: None, lv: false, slice: None }
    }
}

/// Options of a compilation that change the C produced.
#[derive(Clone, Debug, Default)]
pub struct Opts {
    /// -O: omit runtime checks where MPD allows.
    pub no_checks: bool,
    /// -F: no constant folding (we still fold what C needs to be constant).
    pub no_fold: bool,
    /// emit #line directives
    pub lines: bool,
    /// -T: no time-slice check at loop tops
    pub no_slice: bool,
    /// Check that `type_of` agrees with `expr` for every expression
    /// translated (a debug mode: MPD_AUDIT_TYPES in the environment, and
    /// the compiler's unit tests); a disagreement is reported as an error.
    pub audit_types: bool,
}

/// One checked and generated component.
pub struct CompOut {
    pub name: String,
    pub global: bool,
    pub c: String,
}

/// The interface a component offers to importers, kept between components of one run.
#[derive(Clone, Default)]
pub struct Iface {
    pub syms: Vec<(String, Sym)>,
    pub global: bool,
    /// C declarations importers need (instance struct, patterns, blocks, procs).
    pub header: String,
    /// Resource parameters (for create).
    pub params: Vec<scope::PSig>,
    /// The spec's constant declarations: `extend` includes the spec where it
    /// stands, so their values are worked out again in the extender's scope.
    pub consts: Vec<ast::Decl>,
    /// The components its spec imports or extends (their enumerations come along).
    pub imports: Vec<String>,
    /// What each spec item declares and uses (import cycles: spec_order).
    pub order: spec_order::SpecOrder,
}

/// The checker state for one component.
pub struct Checker<'a> {
    pub map: &'a SourceMap,
    pub diags: &'a mut Diagnostics,
    pub opts: Opts,
    pub types: Types,
    scopes: Vec<Scope>,
    comp: String,
    file_name: String,
    /// Which kind of component we are in.
    global: bool,
    /// Counter for fresh C names.
    fresh: u32,
    /// Imported component interfaces by name.
    pub ifaces: &'a BTreeMap<String, Iface>,
    /// Symbols exported by this component (its spec), for importers.
    exports: Vec<(String, Sym)>,
    /// The index of the spec item being checked, and the names of imported
    /// components the spec used: (item, component, name, written `c.name`)
    /// (see spec_order).
    spec_item: usize,
    spec_uses: std::cell::RefCell<Vec<(usize, String, String, bool)>>,
    /// Body declarations are being collected into the component instance.
    at_top: bool,
    /// Globals whose init must run before this component's code.
    imported_globals: Vec<String>,
    /// MPD 1.0.1's words for a type mismatch in what is being checked (an
    /// initialization, argument n of p, ...); None: an assignment.
    mismatch: Option<String>,
    /// Names of procs/procedures/processes in the body (ops they implement).
    proc_names: std::collections::HashSet<String>,
    /// Resource parameters.
    res_params: Vec<scope::PSig>,
    /// Procs that contain `reply` or `forward` (never called on the caller's stack).
    replying: std::collections::HashSet<String>,
    /// Spec pre-pass: produce the interface even when some names are still unknown.
    lenient: bool,
    /// What the invocation being translated is issued as (a create, a
    /// forward, a co arm, or a plain call or send).
    issue: Issue,
    /// Ops and semaphores declared outside a spec: (key, name, is a sem).
    declared_ops: Vec<(String, ast::Ident, bool)>,
    /// Keys (ops::op_key) of ops serviced by in/receive/P or given away as
    /// capabilities.
    implemented: std::collections::HashSet<String>,
    /// The spec of the component is being checked.
    in_spec: bool,
    /// Names under `ptr` before their declaration (`ptr node`), and the
    /// names of every type declared: each must be declared somewhere.
    fwd_types: Vec<ast::Ident>,
    /// The depth of the scope of the body being checked (it continues the spec's).
    body_depth: Option<usize>,
    /// The depth of the component's spec scope: the component's own name
    /// lives there (MPD 1.0.1), so its top-level names may not repeat it.
    spec_depth: usize,
    /// `Sym::Comp` of the component being checked: its name is an own name,
    /// found after the declarations in scope but before imported names and
    /// predefined functions (MPD 1.0.1: "not an op: writes" in `resource writes`)
    comp_sym: Option<Sym>,
    /// The final code is being checked (a reply there is ignored).
    in_final: bool,
    /// The type of a `new(...)` is being elaborated (an optype may be named).
    in_new: bool,
    /// An audit's `type_of` is running (type_audit.rs): no nested audits.
    auditing: bool,
    /// What the type rules found for each expression node (typed.rs).
    typed: typed::Typed,
    type_names: std::collections::HashSet<String>,
    /// Type names whose definition has a `*` bound (not for variables).
    star_types: HashMap<String, star_bounds::StarIn>,
    /// Procedures of the body whose text is not reached yet: (scope, line of
    /// the heading).  MPD 1.0.1 declares names in text order (procs.rs)
    later_procs: HashMap<String, (usize, usize)>,
    /// the first bound (span; a string length?) of the type being elaborated
    /// that MPD 1.0.1 does not fold (compile_time.rs)
    unfolded: Option<(Span, bool)>,
    /// types declared with such a bound (they may not size a record field)
    unfolded_types: HashMap<String, (Span, bool)>,
    /// Input ops (first index) without parameters or result: semaphores at run
    /// time (a semaphore op) unless an input statement needs their queue.
    pub(crate) plain_ops: std::collections::HashSet<u32>,
    /// Ops (first indexes) MPD 1.0.1 makes no semaphore of (its opscan):
    /// exported, called, forwarded, sent to in a co, used as a capability or
    /// served by an `in` with else.  Counted all the same, but held.
    pub(crate) nosema: std::collections::HashSet<u32>,
    /// Ops named by an `in` with several ops or st/by: they keep a real queue
    /// (arrival order across ops); `queue_all`: such an `in` names a capability.
    pub(crate) queue_ops: std::collections::HashSet<u32>,
    pub(crate) queue_all: bool,
    /// The component's ops (first indexes) each input statement with several
    /// ops or st/by names: MPD joins them into one operation class.
    pub(crate) class_sets: Vec<Vec<u32>>,
    /// Traces: the C position (file, line) of the component's header (BODY, ENDBODY).
    trace_pos: String,
    /// Operands already evaluated into temporaries, in MPD 1.0.1's order
    /// (order.rs): `expr` of one of these gives its temporary.
    preset: HashMap<*const ast::Expr, V>,
    /// The statements of each proc of the body, by name (unit.rs), for what
    /// a call of it may assign (order.rs `limit_kept`).
    proc_bodies: HashMap<String, Vec<ast::Stmt>>,
    /// The function being compiled (its body, loops, result, modes).
    f: FnCtx,
    /// The component's C collected so far (members, prototypes, functions, op table).
    pub(crate) out: UnitOut,
}

/// What the invocation being translated is issued as.  A construct that
/// issues an invocation its own way sets it around that one invocation;
/// the invocations in its arguments are plain ones again (`co a = f(g(x))
/// oc`: g is called).
#[derive(Clone, Default)]
pub(crate) enum Issue {
    /// A call or send standing alone.
    #[default]
    Plain,
    /// The creation block of `create R(...)`: R, and the C of the vm
    /// capability of `on vm` (created here without one).
    Create { res: String, on: Option<String> },
    /// `forward`: the C lvalue of the invocation being serviced.
    Forward { cur: String },
    /// An arm of a co statement: the co variable, the arm's number, the
    /// C of the instance's index.
    CoArm { co: String, arm: u32, idx: String },
}

/// The kind of function being compiled, as `reply`, `forward` and traces
/// see it.
#[derive(Clone, Default)]
pub(crate) enum FnKind {
    /// Initial or final code: no invocation of its own.
    #[default]
    Code,
    /// A process: traced as a proc, through its block (RETURN's invoker).
    Process,
    /// A proc serving the op `sig` (what `forward` hands on); `reply_code`
    /// puts the results so far into the invoker's block before a `reply`.
    Proc { sig: std::rc::Rc<scope::ProcSig>, reply_code: String },
}

impl FnKind {
    /// Traces: the C expression of the function's invocation block (RETURN).
    pub fn trace_ib(&self) -> Option<&'static str> {
        match self {
            FnKind::Code => None,
            FnKind::Process => Some(crate::emit::ops::PROCESS_IB),
            FnKind::Proc { .. } => Some(crate::emit::component::PROC_INVB),
        }
    }
}

/// Per-function context: what the code of the function (proc, process,
/// initial or final code, st/by callback) being compiled needs, saved and
/// restored around nested functions.
#[derive(Default)]
pub(crate) struct FnCtx {
    /// The current function body.
    pub code: Code,
    /// Nesting of loops in the current function (exit/next legality).
    pub loops: u32,
    /// Result handling of the current procedure.
    pub ret: Option<RetInfo>,
    /// C labels (exit, next) of the enclosing loops, and the scope depth at
    /// each loop (exit and next end the local ops of deeper scopes).
    pub loop_labels: Vec<(String, String, usize)>,
    /// The loop taking its time slice in chunks that the code is in.
    pub chunk: Option<chunk::ChunkVars>,
    /// The current statement allocated temporaries (`_t`).
    pub used_tmp: bool,
    /// The `in` arms being executed: exit/next answer the invocations of
    /// those they leave, `return` in an arm leaves the innermost statement.
    pub in_stack: Vec<InArm>,
    /// What the function is: a proc serving an op, a process, or other code.
    pub kind: FnKind,
    /// While compiling an `st`/`by` callback: locals of the enclosing code it
    /// reads (their C text and C type), reached through the callback's env.
    pub capture: Option<(usize, Vec<(String, String)>)>,
}

/// Per-component output: the pieces emit::component::unit assembles.
#[derive(Default)]
pub(crate) struct UnitOut {
    /// Struct members of the component instance.
    pub fields: String,
    /// Type/prototype declarations, then function definitions.
    pub protos: String,
    pub funcs: String,
    /// Invocation block structs (exported to importers too).
    pub invdefs: String,
    pub inv_defined: std::collections::HashSet<String>,
    /// C that starts the processes at the end of the initial code.
    pub process_starts: String,
    /// The body of the component's `final` block.
    pub final_body: Option<String>,
    /// The op table of the instance.
    pub ops: Vec<ops::OpEntry>,
    pub nops: u32,
    /// Ops declared by the spec (the first ones of the table).
    pub spec_nops: u32,
    /// Lines of each proc and procedure (first, last, "R.f"), registered
    /// with the runtime for the blocked-process report.
    pub proc_spans: Vec<(u32, u32, String)>,
}

#[derive(Clone)]
pub(crate) struct RetInfo {
    /// C text returning from the function (e.g. `return v_r;`).
    stmt: String,
}

impl<'a> Checker<'a> {
    pub fn new(
        map: &'a SourceMap,
        diags: &'a mut Diagnostics,
        opts: Opts,
        ifaces: &'a BTreeMap<String, Iface>,
    ) -> Self {
        Checker {
            map,
            diags,
            opts,
            types: Types::default(),
            f: FnCtx::default(),
            out: UnitOut::default(),
            scopes: vec![Scope::default()],
            comp: String::new(),
            file_name: String::new(),
            global: false,
            fresh: 0,
            ifaces,
            exports: Vec::new(),
            spec_item: 0,
            spec_uses: Default::default(),
            at_top: false,
            imported_globals: Vec::new(),
            mismatch: None,
            proc_names: Default::default(),
            res_params: Vec::new(),
            trace_pos: String::new(),
            replying: Default::default(),
            issue: Issue::Plain,
            later_procs: HashMap::new(),
            unfolded: None,
            unfolded_types: HashMap::new(),
            declared_ops: Vec::new(),
            implemented: Default::default(),
            in_spec: false,
            fwd_types: Vec::new(),
            in_new: false,
            auditing: false,
            typed: Default::default(),
            body_depth: None,
            spec_depth: 0,
            comp_sym: None,
            in_final: false,
            type_names: Default::default(),
            star_types: HashMap::new(),
            lenient: false,
            plain_ops: Default::default(),
            nosema: Default::default(),
            queue_ops: Default::default(),
            queue_all: false,
            class_sets: Vec::new(),
            preset: HashMap::new(),
            proc_bodies: HashMap::new(),
        }
    }

    // ---- diagnostics and positions -----------------------------------------

    pub fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    /// The language of the source at `span`: picks SR's words where they
    /// differ from MPD's (`msg::words`).
    pub fn dialect(&self, span: Span) -> msg::Dialect {
        msg::dialect(self.map, span)
    }

    pub fn line(&self, span: Span) -> u32 {
        self.map.line_col(span.file, span.lo).0 as u32
    }

    /// The C position (file, line): the position arguments of runtime calls.
    pub fn pos(&self, span: Span) -> String {
        component::pos(self.line(span))
    }

    pub fn tmp(&mut self) -> String {
        self.fresh += 1;
        names::tmp(self.fresh)
    }

    // ---- scopes ------------------------------------------------------------

    pub fn push(&mut self) {
        self.names_changed();
        self.scopes.push(Scope::default());
    }
    pub fn pop(&mut self) {
        self.names_changed();
        self.scopes.pop();
    }

    /// The innermost scope, to declare in (the typed table's answers go stale).
    pub(crate) fn top_scope(&mut self) -> &mut Scope {
        self.names_changed();
        self.scopes.last_mut().unwrap()
    }
    pub fn declare(&mut self, id: &ast::Ident, sym: Sym) {
        self.declare_named(id, sym, false)
    }

    /// `declare`; `param` is true for a resource parameter, which MPD 1.0.1
    /// puts a level below the component's name (it may repeat it).
    fn declare_named(&mut self, id: &ast::Ident, sym: Sym, param: bool) {
        let n = self.scopes.len();
        // a body's own declarations share the spec's name space (MPD 1.0.1)
        let in_spec = self.body_depth == Some(n)
            && (self.scopes[n - 2].map.contains_key(&id.name)
                || self.scopes[self.spec_depth - 1].map.contains_key(&id.name));
        let in_quants = n >= 2 && self.scopes[n - 2].for_quants && self.scopes[n - 2].map.contains_key(&id.name);
        let comp_level = (n == self.spec_depth && !param) || self.body_depth == Some(n);
        let is_comp = comp_level && id.name == self.comp;
        let top = self.scopes.last_mut().unwrap();
        if top.map.contains_key(&id.name) || in_spec || in_quants || is_comp {
            self.diags.error(id.span, format!("duplicate identifier: {}", id.name));
            return;
        }
        if matches!(sym, Sym::Type(_)) {
            self.type_names.insert(id.name.clone());
        }
        self.no_enum_lit(id);
        self.top_scope().map.insert(id.name.clone(), sym);
    }

    /// A name declared in an inner scope may not hide an enumeration literal (MPD 1.0.1).
    /// Imported literals do not count: own names win over imported ones.
    pub fn no_enum_lit(&mut self, id: &ast::Ident) {
        if matches!(self.scopes.iter().rev().find_map(|s| s.map.get(&id.name)), Some(Sym::EnumLit { .. })) {
            self.error(id.span, format!("id `{}' duplicates enum literal", id.name));
        }
    }
    pub fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.map.get(name))
            .or_else(|| self.comp_sym.as_ref().filter(|_| name == self.comp))
            .or_else(|| match self.imports_of(name).as_slice() {
                [(c, s)] => {
                    self.note_spec_use(c, name, false);
                    Some(*s)
                }
                _ => None,
            })
    }

    /// Records a use of `name` of the imported component `comp` by the spec
    /// item being checked (import cycles: spec_order).
    pub(crate) fn note_spec_use(&self, comp: &str, name: &str, qualified: bool) {
        if self.in_spec {
            self.spec_uses.borrow_mut().push((self.spec_item, comp.to_string(), name.to_string(), qualified));
        }
    }

    /// Checks one spec item (a statement, or a variable in a resource's spec, is an error).
    fn spec_item_decl(&mut self, s: &ast::Stmt) {
        // a spec part declares; code runs in a body (MPD 1.0.1 and SR 2.3.3:
        // "statement not allowed in specification part", or a parse error for
        // an expression such as a bare `f` or `write(x)`)
        let declares = match &s.kind {
            ast::StmtKind::Decl(d) => !matches!(d.kind, ast::DeclKind::Proc(_) | ast::DeclKind::Final(_)),
            ast::StmtKind::Empty => true,
            _ => false,
        };
        if !declares {
            self.error(s.span, "statement not allowed in specification part: only declarations and imports");
            return;
        }
        // a resource's spec is its interface, shared by all its instances:
        // a variable there has no instance to live in (a global's may)
        if let ast::StmtKind::Decl(d) = &s.kind {
            if matches!(&d.kind, ast::DeclKind::Var(v) if !v.constant) && !self.global {
                self.error(
                    s.span,
                    "var decl in spec part of resource: only constants, types and ops may be declared there",
                );
                return;
            }
        }
        self.names_changed();
        self.in_spec = true;
        self.stmt(s);
        self.names_changed();
        self.in_spec = false;
    }

    /// The symbols `name` is imported as in the scopes open here, one per component.
    fn imports_of(&self, name: &str) -> Vec<(&str, &Sym)> {
        let mut out: Vec<(&str, &Sym)> = Vec::new();
        for s in self.scopes.iter().rev() {
            for (c, sym) in s.imported.get(name).into_iter().flatten() {
                if !out.iter().any(|(d, _)| d == c) {
                    out.push((c, sym));
                }
            }
        }
        out
    }

    /// Reports a name with no symbol: undefined, or imported from several components.
    /// Whether another component's name may be used here: the component
    /// itself, or one imported (or extended) in scope.  MPD 1.0.1 knows a
    /// resource compiled before only through an import.
    pub(crate) fn comp_visible(&self, name: &str) -> bool {
        name == self.comp || matches!(self.lookup(name), Some(Sym::Comp(_)))
    }

    pub fn undefined(&mut self, span: Span, name: &str) {
        let m = self.undefined_words(name);
        self.error(span, m);
    }

    /// What a name with no symbol is called: undefined, or ambiguous.
    pub(crate) fn undefined_words(&self, name: &str) -> String {
        if self.imports_of(name).len() > 1 {
            format!("ambiguous identifier: {} (imported from several components; qualify it)", name)
        } else {
            format!("undefined identifier: {}", name)
        }
    }

    /// `ptr T` where T is never declared (MPD 1.0.1: "T: type never defined").
    fn undefined_fwd_types(&mut self) {
        for id in std::mem::take(&mut self.fwd_types) {
            let imported =
                self.ifaces.values().any(|i| i.syms.iter().any(|(n, s)| *n == id.name && matches!(s, Sym::Type(_))));
            if !self.type_names.contains(&id.name) && !imported {
                self.error(id.span, format!("{}: type never defined", id.name));
            }
        }
    }

    /// Records the signatures of the spec's ops for capability compatibility.
    fn register_res_ops(&mut self) {
        if self.global {
            return;
        }
        let mut ops: Vec<(u32, std::rc::Rc<scope::ProcSig>)> = self
            .exports
            .iter()
            .filter_map(|(_, s)| match s {
                Sym::Proc(p) => p.op.as_ref().map(|r| (r.idx, p.clone())),
                _ => None,
            })
            .collect();
        ops.sort_by_key(|(i, _)| *i);
        let ks = ops.iter().map(|(_, p)| self.sig_index(p)).collect();
        self.types.res_ops.insert(self.comp.clone(), ks);
    }

    fn resource_params(&mut self, ps: &[ast::Param]) {
        // The main resource has no parameters; others get theirs from `create`
        // (next issue).  Declare them as fields so the body type-checks.
        // the types first, without the parameters (they cannot use each other)
        let tys: Vec<Vec<Ty>> = self.without_formals(ps, |c| {
            ps.iter()
                .map(|p| {
                    let ty = c.ty(&p.ty);
                    p.names.iter().map(|n| c.with_dims(&ty, &n.dims, true)).collect()
                })
                .collect()
        });
        for (p, tys) in ps.iter().zip(tys) {
            if p.mode != ast::ParamMode::Default && p.mode != ast::ParamMode::Val {
                self.error(p.span, "resources can only have value parameters");
            }
            for (n, ty) in p.names.iter().zip(tys) {
                let c = self.field_decl(&n.name.name, &ty);
                let i = self.res_params.len();
                if ty.is_blob() {
                    let src = self.blk_param("args", i, &ty);
                    let kind = match component::blob_kind(&ty) {
                        Some(k) => k.to_string(),
                        None => self.types.size_of(&ty).unwrap_or(16).to_string(),
                    };
                    self.f.code.put(&component::res_param_blob(&c, &src, &kind));
                } else {
                    self.f.code.put(&component::res_param_scalar(&c, i));
                }
                self.names_changed();
                self.res_params.push(scope::PSig { mode: p.mode, ty: ty.clone(), name: n.name.name.clone() });
                self.declare_named(&n.name, Sym::Var { c, ty, assignable: true }, true);
            }
        }
    }

    /// Adds a member to the component instance; returns how code reaches it.
    pub fn field_decl(&mut self, name: &str, ty: &Ty) -> String {
        let cn = names::var_n(name, self.fresh);
        self.fresh += 1;
        let ctype = self.ctype(ty);
        self.out.fields.push_str(&component::field_line(&ctype, &cn));
        component::field_access(self.global, &self.comp, &cn)
    }

    /// Adds an unnamed member of C type `ctype` to the instance; returns its access.
    pub fn raw_field(&mut self, ctype: &str) -> String {
        self.fresh += 1;
        let cn = names::member(self.fresh);
        self.out.fields.push_str(&component::field_line(ctype, &cn));
        component::field_access(self.global, &self.comp, &cn)
    }

    /// The C type of a scalar MPD type.
    pub fn ctype(&self, t: &Ty) -> String {
        component::ctype(t)
    }

    /// MPD's operation classes (a woken input statement holds its class:
    /// docs/ops.md): by default each op declaration is its own class; ops
    /// an input statement services together are one (union-find over the
    /// statements), and all input ops of a global are one, since its
    /// importers' statements cannot be seen.  For each op index, the first
    /// op of its class, or None for the default.  Empty when all are default.
    fn op_classes(&self) -> Vec<Option<u32>> {
        let mut map: Vec<Option<u32>> = vec![None; self.out.nops as usize];
        let input = |o: &&ops::OpEntry| o.procfn.is_none();
        if self.global {
            for o in self.out.ops.iter().filter(input) {
                for i in o.idx..o.idx + o.n {
                    map[i as usize] = Some(0);
                }
            }
        } else if !self.class_sets.is_empty() {
            let mut parent: HashMap<u32, u32> = HashMap::new();
            fn find(p: &mut HashMap<u32, u32>, x: u32) -> u32 {
                let mut r = x;
                while let Some(&q) = p.get(&r) {
                    if q == r {
                        break;
                    }
                    r = q;
                }
                p.insert(x, r);
                r
            }
            for set in &self.class_sets {
                for &x in set {
                    parent.entry(x).or_insert(x);
                    let (a, b) = (find(&mut parent, set[0]), find(&mut parent, x));
                    // the smaller index stands for the class
                    if a != b {
                        parent.insert(a.max(b), a.min(b));
                    }
                }
            }
            for o in self.out.ops.iter().filter(input) {
                if parent.contains_key(&o.idx) {
                    let r = find(&mut parent, o.idx);
                    for i in o.idx..o.idx + o.n {
                        map[i as usize] = Some(r);
                    }
                }
            }
        }
        for o in self.out.ops.iter().filter(input) {
            if self.nosema.contains(&o.idx) {
                for i in o.idx..o.idx + o.n {
                    map[i as usize].get_or_insert(component::CLASS_HELD);
                }
            }
        }
        if map.iter().all(|m| m.is_none()) {
            map.clear();
        }
        map
    }

    /// Assembles the component's C file (emit::component); returns it and the header importers need.
    fn finish_component(&mut self) -> (String, String) {
        let init_body = self.f.code.take();
        let mut args = String::new();
        let res_params = self.res_params.clone();
        for (i, p) in res_params.iter().enumerate() {
            let f = self.block_field(&component::res_param_block_name(i), &p.ty, ast::Span::default());
            args.push_str(&f);
        }
        let fin = self.out.final_body.take().unwrap_or_default();
        let ops = self
            .out
            .ops
            .iter()
            .filter(|o| !o.sem)
            .map(|o| component::OpInit {
                idx: o.idx,
                n: o.n,
                name: &o.name,
                procfn: o.procfn.as_deref(),
                flags: &o.flags,
                // parameterless input ops whose queue no input statement needs
                // cost what a semaphore costs (they stay fully general at run time)
                as_sem: self.plain_ops.contains(&o.idx) && !self.queue_all && !self.queue_ops.contains(&o.idx),
            })
            .collect();
        let classes = self.op_classes();
        component::unit(&component::Unit {
            classes,
            comp: &self.comp,
            file_name: &self.file_name,
            global: self.global,
            fields: &self.out.fields,
            invdefs: &self.out.invdefs,
            args: &args,
            protos: &self.out.protos,
            funcs: &self.out.funcs,
            imports: self.ifaces.iter().map(|(n, i)| (n.as_str(), i.header.as_str(), i.global)).collect(),
            proc_spans: &self.out.proc_spans,
            ops,
            nops: self.out.nops,
            spec_nops: self.out.spec_nops,
            init_body: &init_body,
            process_starts: &self.out.process_starts,
            final_body: &fin,
            trace_pos: &self.trace_pos,
        })
    }
}

/// Checks and translates every component of the given files.  `ifaces` holds the
/// interfaces of components compiled earlier (from MPDinter); new ones are added.
/// An `in` arm being executed.
#[derive(Clone)]
pub(crate) struct InArm {
    /// Its invocation block (C).
    pub ib: String,
    /// The loop depth at which the statement was entered.
    pub loops: usize,
    /// The label at the end of the statement, and the scope depth there.
    pub end: String,
    pub scopes: usize,
    /// The op the arm services (what `forward` hands on).
    pub sig: std::rc::Rc<scope::ProcSig>,
}
