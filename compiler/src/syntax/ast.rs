//! The abstract syntax tree of MPD: what the parser produces and the checker consumes.
//!
//! Conventions (stable API: later changes only ADD variants/fields, never rename):
//! - Every node carries a [`Span`]: the file it came from and byte offsets `lo..hi`.
//! - The tree is purely syntactic. Names are unresolved [`Ident`]s; whether `foo(x)` is a
//!   call, a record constructor or a conversion, and whether `a.b` is a field or a qualified
//!   name (`res.op`, `glob.x`), is decided by the checker.
//! - Declarations and statements share one list ([`Block::stmts`], [`Component::spec`],
//!   [`Body::items`]) because MPD lets them appear in any order. Which declarations are
//!   legal where (e.g. `proc` only at component level, `var` not in a resource spec) is
//!   checked later, so the parser accepts the union and the checker gives precise errors.
//! - Trees from the parser are bounded: no expression is deeper than
//!   [`crate::syntax::MAX_HEIGHT`] (1000) and statements/types nest at most ~80 levels, so
//!   passes may walk them recursively (on a normal 8 MB main-thread stack).
//! - Assignment, swap and `++`/`--` are expressions (SR/MPD give them the lowest
//!   precedence); a statement like `x = 1` is `StmtKind::Expr(Expr{kind: Assign ..})`.

/// Index of a source file in the [`crate::syntax::diag::SourceMap`].
pub type FileId = u32;

/// The identity of an expression or type node: what the checker's side
/// tables (check/typed.rs) are keyed by.  Both front ends number their nodes
/// from one counter for the whole process, so the nodes of every file of a
/// compilation have distinct ids; a clone keeps its node's id (the same
/// source text).  Ids take no part in comparing trees (`==` is structural).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// A new id, never given before in this process.
    pub fn fresh() -> NodeId {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        NodeId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// A region of source text: byte offsets `lo..hi` (half open) into file `file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(file: FileId, lo: u32, hi: u32) -> Span {
        Span { file, lo, hi }
    }
    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
    /// An empty span at the start of `self`.
    pub fn start(self) -> Span {
        Span { file: self.file, lo: self.lo, hi: self.lo }
    }
}

/// An identifier occurrence. MPD identifiers are case sensitive.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A possibly qualified name used where a type/resource/op name is expected:
/// `foo` or `res.foo` (`parts` has one or two elements, in source order).
#[derive(Clone, Debug, PartialEq)]
pub struct QualName {
    pub parts: Vec<Ident>,
    pub span: Span,
}

// ───────────────────────────── files and components ─────────────────────────────

/// One parsed `.mpd` file: a sequence of components (resources and globals).
/// By MPD convention the last resource is the main one.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFile {
    pub file: FileId,
    pub components: Vec<Component>,
    pub span: Span,
}

/// `resource` or `global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentKind {
    Resource,
    Global,
}

/// Which of the synopsis' component shapes was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentForm {
    /// `resource r  spec...  body r(params)  body...  end r` (also `global g ... body g ... end`).
    Combined,
    /// `resource r(params)  body...  end r` (or `global g()  body... end g`) — spec and
    /// body in one; `spec` is empty, `body.params` holds the parameters. A global without
    /// parentheses and without `body` (`global g  decls... end g`) is
    /// [`ComponentForm::SpecOnly`].
    Simple,
    /// `resource r  spec...  end r`: abstract spec (resource) or a global without body.
    SpecOnly,
    /// `resource r  spec...  body r(params) separate`: spec whose body is compiled apart.
    SeparateSpec,
    /// `body r  body...  end r`: the separately compiled body of an earlier spec. Whether
    /// `r` is a resource or a global is not known syntactically: the parser sets
    /// [`ComponentKind::Resource`] and the checker corrects it from the spec.
    SeparateBody,
}

/// A resource or global, in any of its forms (see [`ComponentForm`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    pub kind: ComponentKind,
    pub form: ComponentForm,
    pub name: Ident,
    /// Spec portion: imports/extends, constants, types, ops, (for globals) variables.
    /// Empty for `Simple` and `SeparateBody`.
    pub spec: Vec<Stmt>,
    /// Body portion; `None` for `SpecOnly`. For `SeparateSpec` it is present with
    /// `separate == true` and no items.
    pub body: Option<Body>,
    /// The identifier after `end`, if written (checker may warn when it differs).
    pub end_name: Option<Ident>,
    pub span: Span,
}

/// `body name(params)` followed by body items, or the parameters of a simple resource.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub name: Ident,
    /// `None` when no parenthesised list was written (`body b`), `Some(vec![])` for `()`.
    pub params: Option<Vec<Param>>,
    /// Imports, declarations, statements (initial code), procs/procedures/processes and
    /// `final` blocks, in source order.
    pub items: Vec<Stmt>,
    /// `body r(...) separate`.
    pub separate: bool,
    pub span: Span,
}

// ───────────────────────────── declarations ─────────────────────────────

/// A declaration. Appears as [`StmtKind::Decl`] in any statement list.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub kind: DeclKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    /// `import a, b` (`extend == false`) or `extend a, b` (`extend == true`).
    Import { extend: bool, names: Vec<Ident> },
    /// `type T[...]? x[dims] = init, y, ...` — a variable declaration; also `var`-less
    /// `const type x = e` when `constant` is set. `ty` is `None` for `const x = e`.
    Var(VarDecl),
    /// `type name = type_definition`.
    Type { name: Ident, ty: Type },
    /// `op name[dims](params) returns ... {restriction}` or `op optype_name name[dims]`.
    /// A list `op a(), b(int x), T c` declares independent ops: the parser emits one
    /// `Op` declaration (one [`Stmt`]) per item, so `names` normally has one element.
    Op(OpDecl),
    /// `external name[dims](params) returns type result {restriction}`.
    External(OpDecl),
    /// `sem name[dims] = init, ...`.
    Sem(Vec<SemItem>),
    /// `optype name = (params) returns type result {restriction}` (the `=` is optional).
    Optype { name: Ident, sig: OpSig },
    /// `proc`, `procedure` or `process`.
    Proc(ProcDecl),
    /// `final { block }`.
    Final(Block),
}

/// A variable (or constant) declaration: one type shared by several declarators.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `const` was written.
    pub constant: bool,
    /// Declared type (`None` only for `const name = expr` without a type).
    pub ty: Option<Type>,
    pub vars: Vec<VarItem>,
}

/// One declarator: `name[dims] = init`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarItem {
    pub name: Ident,
    /// C-style array dimensions after the name: `int a[10], b[1:n, 0:2]`, `sem f[3][2]`
    /// (each bracket group contributes its ranges, outermost first).
    pub dims: Vec<Range>,
    pub init: Option<Expr>,
    pub span: Span,
}

/// One semaphore declarator: `name[dims] = init`.
#[derive(Clone, Debug, PartialEq)]
pub struct SemItem {
    pub name: Ident,
    pub dims: Vec<Range>,
    pub init: Option<Expr>,
    pub span: Span,
}

/// Operation (or external) declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct OpDecl {
    /// Names with optional array dimensions: `op f[1:10]()`.
    pub names: Vec<OpName>,
    pub sig: OpSig,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpName {
    pub name: Ident,
    pub dims: Vec<Range>,
    pub span: Span,
}

/// An operation signature: `(params) returns type name {call,send}`, or a reference to an
/// optype (`op optype_name x`).
#[derive(Clone, Debug, PartialEq)]
pub enum OpSig {
    Explicit {
        params: Vec<Param>,
        returns: Option<ReturnSpec>,
        restriction: Option<OpRestriction>,
        span: Span,
    },
    /// `op T x`: the signature of optype `T` (possibly qualified `res.T`).
    Optype(QualName),
}

/// `{call}`, `{send}` or `{call,send}` (also written `{send,call}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpRestriction {
    pub call: bool,
    pub send: bool,
    pub span: Span,
}

/// Parameter passing mode. `Default` means none written (value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamMode {
    Default,
    Val,
    Var,
    Res,
    Ref,
}

/// One parameter group: `mode type name1[dims], name2` — names may be absent in op specs
/// (`op o(res int)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub mode: ParamMode,
    pub ty: Type,
    pub names: Vec<ParamName>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamName {
    pub name: Ident,
    /// Array dims after the name: `ref int a[*]`, `int x[1:3, 1:10]`.
    pub dims: Vec<Range>,
    pub span: Span,
}

/// `returns type name[dims]` (op/procedure/external: type required, name optional) or
/// `returns name` (proc: name only, type comes from the op).
#[derive(Clone, Debug, PartialEq)]
pub struct ReturnSpec {
    pub ty: Option<Type>,
    pub name: Option<Ident>,
    pub dims: Vec<Range>,
    pub span: Span,
}

/// `proc` / `procedure` / `process`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcKind {
    /// `proc name(formal_ids) returns result_id { block }` — implements a declared op.
    Proc,
    /// `procedure name(params) returns type result_id { block }` — declares and implements.
    Procedure,
    /// `process name[quantifiers] { block }`.
    Process,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProcDecl {
    pub kind: ProcKind,
    pub name: Ident,
    /// `proc f[i](x)` implementing an op array: subscript identifiers (possibly empty).
    /// Also `process p[i = 1 to n]` puts its quantifiers in `quants` instead.
    pub subscripts: Vec<Ident>,
    /// `process p[i = 1 to N, j = ...]`.
    pub quants: Vec<Quantifier>,
    /// `proc`: the formal identifiers `(i, j, k)`.
    pub formals: Vec<Ident>,
    /// `procedure`: typed parameters.
    pub params: Vec<Param>,
    pub returns: Option<ReturnSpec>,
    pub body: Block,
}

// ───────────────────────────── types ─────────────────────────────

#[derive(Clone, Debug)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
    pub id: NodeId,
}

impl Type {
    /// A type node with a fresh id.
    pub fn new(kind: TypeKind, span: Span) -> Type {
        Type { kind, span, id: NodeId::fresh() }
    }
}

impl PartialEq for Type {
    fn eq(&self, o: &Type) -> bool {
        self.kind == o.kind && self.span == o.span
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    Bool,
    Int,
    Char,
    /// `real`.
    Real,
    /// `double` (same meaning as real; kept apart only for faithful printing).
    Double,
    /// `string[n]`, `string[*]`; a bare `string` (e.g. the conversion) has `None`.
    String(Option<Bound>),
    File,
    /// A named type, possibly qualified: `T`, `res.T`.
    Named(QualName),
    /// `enum(a, b, c)`.
    Enum(Vec<Ident>),
    /// `rec(int a; real x, y)`.
    Rec(Vec<Field>),
    /// `ptr T`.
    Ptr(Box<Type>),
    /// `ptr any`.
    PtrAny,
    /// `cap ...` — see [`CapTarget`].
    Cap(CapTarget),
    /// `[ranges] T`: array type with prefix ranges, e.g. `[1:10, *] int`.
    Array {
        ranges: Vec<Range>,
        elem: Box<Type>,
    },
    /// `sem` as a type: only in `new(sem)` (allocates a semaphore, yields `cap sem`).
    Sem,
    /// `op (params) returns ...` as a type: only in `new(op (int))` (allocates an
    /// operation, yields a capability for it).
    Op(Box<OpSig>),
}

/// What a capability refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum CapTarget {
    /// `cap name`: a resource, op, or optype name (the checker decides which).
    Named(QualName),
    /// `cap vm`.
    Vm,
    /// `cap sem`.
    Sem,
    /// `cap (params) returns ... {restriction}`: an anonymous operation signature.
    Sig(Box<OpSig>),
}

/// A record/union field group: `type name1[dims], name2`.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub ty: Type,
    pub names: Vec<ParamName>,
    pub span: Span,
}

/// One array range. `[n]` is `lo: None, hi: Expr(n)` (meaning `1:n`), `[a:b]`,
/// `[*]` is `lo: None, hi: Star`, `[1:*]` is `lo: Some(Expr(1)), hi: Star`.
/// A range may also be written as an enumeration type name (`[color]`), which parses as
/// `hi: Expr(Ident)`; the checker resolves it.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub lo: Option<Bound>,
    pub hi: Bound,
    pub span: Span,
}

/// An array/string bound: an expression or `*` ("determined by the actual").
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Expr(Expr),
    Star(Span),
}

// ───────────────────────────── statements ─────────────────────────────

/// A `{ ... }` block or the statement list of an `in`/`co` arm.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// Any declaration (see [`DeclKind`]).
    Decl(Decl),
    /// An expression statement: an assignment, swap, `++`/`--`, or an invocation
    /// (`write(x)`, `f(1)` — a call of an op/procedure).
    Expr(Expr),
    /// `skip`.
    Skip,
    /// `stop` or `stop(code)`.
    Stop(Option<Expr>),
    /// `exit`: leave the innermost loop.
    Exit,
    /// `next`: next iteration of the innermost loop.
    Next,
    /// `if (c) {..} else if (c) {..} else {..}`.
    If { arms: Vec<IfArm>, else_block: Option<Block> },
    /// `while (c) { .. }`.
    While { cond: Expr, body: Block },
    /// `for [quantifiers] { .. }`.
    For { quants: Vec<Quantifier>, body: Block },
    /// `begin { .. }`.
    Begin(Block),
    /// `call op(args)`: explicit synchronous invocation. The expression is normally a
    /// [`ExprKind::Call`]; it may be an [`ExprKind::Assign`] whose rhs is a call.
    Call(Expr),
    /// `send op(args)` or `fork op(args)` (`fork == true`).
    Send { inv: Expr, fork: bool },
    /// `forward op(args)`.
    Forward(Expr),
    /// `receive op(v1, v2)`: `inv` is the call-shaped expression whose args are variables.
    Receive(Expr),
    /// The input statement `in ... ni`.
    In(InStmt),
    /// `P(sem)`.
    P(Expr),
    /// `V(sem)`.
    V(Expr),
    /// `return` (an expression after it is accepted syntactically; checker rejects).
    Return(Option<Expr>),
    /// `reply`.
    Reply,
    /// `destroy(cap)` / `destroy cap`.
    Destroy(Expr),
    /// The concurrent statement `co ... oc`.
    Co(CoStmt),
    /// An empty statement (a stray `;`) — kept so spans stay faithful; semantically skip.
    Empty,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IfArm {
    pub cond: Expr,
    pub body: Block,
    pub span: Span,
}

/// `var = start to|downto end by step st cond`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantifier {
    pub var: Ident,
    pub start: Expr,
    pub downto: bool,
    pub end: Expr,
    pub step: Option<Expr>,
    pub st: Option<Expr>,
    pub span: Span,
}

/// `in arm [] arm ... [] else -> block ni`.
#[derive(Clone, Debug, PartialEq)]
pub struct InStmt {
    pub arms: Vec<InArm>,
    pub else_block: Option<Block>,
}

/// `[quants] op(formals) returns r st sync by sched -> block`.
#[derive(Clone, Debug, PartialEq)]
pub struct InArm {
    pub quants: Vec<Quantifier>,
    /// The operation designator: a name, subscripted op array element `a[i]`, a field
    /// `r.op`, etc. (an expression without the formals).
    pub op: Expr,
    /// Formal identifiers bound in the arm.
    pub formals: Vec<Ident>,
    /// `returns r`: name of the result in the arm.
    pub returns: Option<Ident>,
    pub st: Option<Expr>,
    pub by: Option<Expr>,
    pub body: Block,
    pub span: Span,
}

/// `co arm // arm ... oc`.
#[derive(Clone, Debug, PartialEq)]
pub struct CoStmt {
    pub arms: Vec<CoArm>,
}

/// `[quants] call|send invocation -> post_block`.
#[derive(Clone, Debug, PartialEq)]
pub struct CoArm {
    pub quants: Vec<Quantifier>,
    /// `send` was written (default/`call` is a call).
    pub send: bool,
    /// The invocation: a call expression, or `x = f(a)` (an [`ExprKind::Assign`]).
    pub inv: Expr,
    /// Post-processing block after `->`.
    pub post: Option<Block>,
    pub span: Span,
}

// ───────────────────────────── expressions ─────────────────────────────

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    pub id: NodeId,
}

impl Expr {
    /// An expression node with a fresh id.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span, id: NodeId::fresh() }
    }
}

impl PartialEq for Expr {
    fn eq(&self, o: &Expr) -> bool {
        self.kind == o.kind && self.span == o.span
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal: decimal `42`, octal `17q`/`17Q`, hex `0Fx`/`0FX` (hex must start
    /// with a digit). Values beyond 64 bits are reported by the lexer.
    Int(i64),
    /// Real literal: `1.5`, `.5`, `1.`, `1e10`, `1.5e-3`.
    Real(f64),
    /// Character literal `'a'`, `'\n'`, `'\''`, `'\012'` (value is one byte).
    Char(u8),
    /// String literal `"..."` with escapes decoded (bytes; may contain any byte).
    Str(Vec<u8>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// `noop`.
    Noop,
    /// `stdin`, `stdout`, `stderr`.
    StdFile(StdFile),
    /// A name.
    Ident(Ident),
    /// `base.name`: record/union field, or qualified name (`res.op`, `glob.var`).
    Field {
        base: Box<Expr>,
        name: Ident,
    },
    /// `base[s1, s2]`, `base[i][j]` (nested), slices `a[i:j]`, `a[*]`, `a[2:*]`.
    Index {
        base: Box<Expr>,
        subs: Vec<Subscript>,
    },
    /// `callee(args)`: op/procedure invocation, predefined function, record constructor
    /// (`T(a, b)`) or conversion (`int(x)`, `T(x)` — callee is [`ExprKind::Type`] for
    /// keyword types).
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs = rhs`, `lhs += rhs`, ... (right associative, lowest precedence).
    Assign {
        op: AssignOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs :=: rhs`.
    Swap {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `(e1, [n] e2, ...)`: array constructor (also nested `((1,2),(3,4))`). A single
    /// parenthesised expression without `[n]` is [`ExprKind::Paren`], not a constructor.
    ArrayCons(Vec<ArrayElem>),
    /// `(e)`.
    Paren(Box<Expr>),
    /// A keyword type in expression position: the callee of a conversion `int(x)`,
    /// `string(x)`, `char(x)`, `real(x)`, `bool(x)`, `ptr ...`.
    Type(Box<Type>),
    /// `new(T)`.
    New(Box<Type>),
    /// `low(T)`.
    Low(Box<Type>),
    /// `high(T)`.
    High(Box<Type>),
    /// `create res(args) on vm_expr` or `create vm() on machine`.
    Create {
        target: CreateTarget,
        args: Vec<Expr>,
        on: Option<Box<Expr>>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdFile {
    Stdin,
    Stdout,
    Stderr,
}

/// What `create` makes.
#[derive(Clone, Debug, PartialEq)]
pub enum CreateTarget {
    /// `create name(args)` — a resource (possibly qualified).
    Resource(QualName),
    /// `create vm()`.
    Vm(Span),
}

/// One subscript position.
#[derive(Clone, Debug, PartialEq)]
pub enum Subscript {
    /// `a[i]`.
    Index(Expr),
    /// `a[lo:hi]`, `a[*]` (lo None, hi Star), `a[lo:*]`.
    Slice { lo: Option<Bound>, hi: Bound, span: Span },
}

/// One element of an array constructor: `[count] value` or `value`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayElem {
    pub count: Option<Expr>,
    pub value: Expr,
    pub span: Span,
}

/// Unary operators (appendix C: postfix group, then prefix group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// prefix `-`.
    Neg,
    /// prefix `+`.
    Plus,
    /// `not` or `~`: logical/bitwise complement.
    Not,
    /// prefix `++x`.
    PreInc,
    /// prefix `--x`.
    PreDec,
    /// postfix `x++`.
    PostInc,
    /// postfix `x--`.
    PostDec,
    /// prefix `@x`: address of.
    AddrOf,
    /// postfix `p^`: dereference.
    Deref,
    /// prefix `?op`: number of pending invocations.
    Pending,
}

/// Binary operators in appendix C order (precedence groups, highest first):
/// `**` (right) ; `* / % mod` ; `+ - ||` ; `<< >>` ; `== != < <= > >=` ; `& and` ;
/// `| or` ; `xor`. All but `**` are left associative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Pow,
    Mul,
    Div,
    /// `%`.
    Rem,
    /// `mod`.
    Mod,
    Add,
    Sub,
    /// `||` string concatenation.
    Concat,
    Shl,
    Shr,
    /// `==` (MPD spells assignment `=`, equality `==`).
    Eq,
    /// `!=` or `~=`.
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&` or `and`.
    And,
    /// `|` or `or`.
    Or,
    Xor,
}

/// `=` is `AssignOp::Plain`; `op=` forms carry the binary operator (`+=` → `Compound(Add)`,
/// also `-= *= /= %= **= |= &= ||= <<= >>=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Plain,
    Compound(BinaryOp),
}

impl BinaryOp {
    /// Source spelling (canonical form), for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Pow => "**",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Mod => "mod",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Concat => "||",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&",
            BinaryOp::Or => "|",
            BinaryOp::Xor => "xor",
        }
    }
}

impl UnaryOp {
    /// Source spelling, for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "not",
            UnaryOp::PreInc | UnaryOp::PostInc => "++",
            UnaryOp::PreDec | UnaryOp::PostDec => "--",
            UnaryOp::AddrOf => "@",
            UnaryOp::Deref => "^",
            UnaryOp::Pending => "?",
        }
    }
}
