//! ops: the C of operations and their invocation (runtime mpd/abi/ops.h).
//!
//! check/ops.rs resolves an op designator, checks an invocation and decides
//! its shape; this module alone spells the runtime's op names: op addresses
//! and capabilities, invocation blocks (`struct inv_*`), call/send/forward,
//! `create`, ops and semaphores declared in blocks (local op objects), the
//! procfn wrapper of a proc, and processes.  Input (receive, P/V, `?op`) is
//! in inop.rs, co arms in co.rs.
use super::names;

/// The block type of an op without parameters (a semaphore, `cap sem`).
pub const INV_NONE: &str = "mpd_inv_none";

/// The C type (with its `*`) of a local op object: the ops and semaphores
/// declared in a block, or with bounds known only at run time.
pub const LOCAL_OPS_TYPE: &str = "mpd_res *";

/// The temporaries every generated function with `self` declares (`_t`:
/// the statement's temporaries, `_f`: the function's).
pub const TMPS_DECL: &str = "mpd_tmp *_t = NULL, *_f = NULL; (void)_t; (void)_f;";

/// Where an invocation goes.
pub enum Target {
    /// an op of this instance (or of a global): `&<inst>->h.ops[i]`
    Op(String),
    /// a capability value
    Cap(CapC),
}

/// A capability value as C.  When it is op `i` of a resource capability
/// (`rc.f`, `rc.f[j]`), the parts are kept too: a call then goes through
/// mpd_call_rc, whose fast path tests `rc` itself instead of building the
/// op capability first.
pub struct CapC {
    c: String,
    pub rc_op: Option<(String, String)>,
}

impl CapC {
    /// Op `i` of resource capability `rc`.
    pub fn rc_op(rc: &str, i: String) -> CapC {
        CapC { c: format!("mpd_cap_op_of({}, {})", rc, i), rc_op: Some((rc.to_string(), i)) }
    }
}

impl From<String> for CapC {
    fn from(c: String) -> CapC {
        CapC { c, rc_op: None }
    }
}

impl std::fmt::Display for CapC {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.c)
    }
}

// ---- names of an op's C entities

/// The invocation block struct of op `op` declared at the top of `comp`
/// (a process's too).
pub fn inv_name(comp: &str, op: &str) -> String {
    format!("inv_{}_{}", comp, op)
}

/// The block struct of an op declared in a block: `fresh` makes it unique.
pub fn inv_name_local(comp: &str, op: &str, fresh: u32) -> String {
    format!("inv_{}_{}_{}", comp, op, fresh)
}

/// The creation block of resource `res` (its parameters).
pub fn create_args(res: &str) -> String {
    format!("{}_args", names::res_struct(res))
}

/// The C function of process `name` of `comp` (its procfn).
pub fn process_fn(comp: &str, name: &str) -> String {
    format!("mpdp_{}_{}_proc", comp, name)
}

/// The procfn wrapper of the proc whose C function is `cname`.
pub fn wrapper_fn(cname: &str) -> String {
    format!("{}_ib", cname)
}

/// The variable of quantifier `var` of a process's start code.
pub fn quant_var(var: &str, fresh: u32) -> String {
    format!("{}_{}", names::var(var), fresh)
}

// ---- instances, op addresses and capabilities

/// The instance header of this component's instance.
pub fn self_inst() -> String {
    "(&self->h)".to_string()
}

/// The instance header of global `owner`'s instance.
pub fn global_inst(owner: &str) -> String {
    format!("(&{}->h)", names::global_inst(owner))
}

/// Op `idx` of this component: through `ops_`, the op table pointer every
/// generated function loads once (names::OPS_LOCAL).
pub fn own_op_ptr(idx: &str) -> String {
    format!("&ops_[{}]", idx)
}

/// Op `idx` of the instance (header) `inst`.
pub fn inst_op_ptr(inst: &str, idx: &str) -> String {
    format!("&{}->ops[{}]", inst, idx)
}

/// Op `ix` of an array starting at op `first`: `first + ix`.
pub fn op_elem(first: u32, ix: &str) -> String {
    format!("{} + {}", first, ix)
}

/// The checked offset of subscript `i` in a dimension of `n` ops from `lo`.
pub fn op_index(pos: &str, i: &str, lo: &str, n: &str) -> String {
    format!("mpd_op_index({}, {}, {}, {})", pos, i, lo, n)
}

/// Row-major flattening: the offset `acc` so far, times the `n` of this
/// dimension, plus this dimension's checked subscript.
pub fn op_index_step(acc: &str, pos: &str, i: &str, lo: &str, n: &str) -> String {
    format!("(({}) * ({}) + {})", acc, n, op_index(pos, i, lo, n))
}

/// The capability of op `idx` of instance `inst` (`c = op`).
pub fn cap_of(inst: &str, idx: u32) -> String {
    format!("mpd_cap_of({}, {})", inst, idx)
}

/// The capability of the op at address `op`.
pub fn cap_of_op(op: &str) -> String {
    format!("mpd_cap_of_op({})", op)
}

/// The slot of element `ix` (flat, from 0) of the op array starting at slot `first`.
pub fn op_slot(first: u32, ix: &str) -> String {
    format!("{} + {}", first, ix)
}

/// The upper bound of an op array dimension of `n` elements from `lo`.
pub fn op_dim_ub(lo: &str, n: &str) -> String {
    format!("(({}) + ({}) - 1)", lo, n)
}

/// `rc.f := c`: keeps op capability `c` in `t`, then makes resource
/// capability variable `rc` one whose op in slot `slot` is `t`.
pub fn rescap_store_op(t: &str, c: &str, p: &str, rc: &str, slot: &str) -> String {
    format!("mpd_cap {t} = {c}; {rc} = mpd_rescap_with_op({p}, {rc}, {slot}, {t});")
}

/// `new(op ...)`, `new(sem)`: a dynamic operation (a semaphore if `sem`)
/// owned by this instance.
pub fn op_new(p: &str, sem: bool) -> String {
    format!("mpd_op_new({}, &self->h, 1, {})", p, op_flags(sem))
}

/// `new([...] op ...)`: fills the capability array `b` of `ndims`
/// dimensions with new dynamic operations.
pub fn op_new_arr(p: &str, b: &str, ndims: usize, sem: bool) -> String {
    format!("mpd_op_new_arr({}, &self->h, {}, {}, {});", p, b, ndims, op_flags(sem))
}

fn op_flags(sem: bool) -> &'static str {
    if sem {
        "MPD_OP_SEMAPHORE"
    } else {
        "0"
    }
}

/// The capability of op slot `slot` of resource capability `rc`.
pub fn rescap_op(rc: &str, slot: &str) -> String {
    format!("mpd_rescap_op({}, {})", rc, slot)
}

// ---- invocation block structs

/// The field of parameter `i` in a block struct.
pub fn param_field(i: usize) -> String {
    format!("p{}", i)
}

/// The field of the return value in a block struct.
pub const RET_FIELD: &str = "ret";

/// What a ref parameter's field points to when the parameter is a blob.
pub const BLOB_REF_CTYPE: &str = "char";

/// A ref parameter's field: the address of the actual (`char *` for a blob).
pub fn ref_field(ctype: &str, i: usize) -> String {
    format!(" {} *p{};", ctype, i)
}

/// A scalar field of C type `ctype`.
pub fn scalar_field(ctype: &str, name: &str) -> String {
    format!(" {} {};", ctype, name)
}

/// A blob (string, array, record) field of static size `n` bytes.
pub fn blob_field(name: &str, n: usize) -> String {
    format!(" _Alignas(16) char {}[{}];", name, n)
}

/// A field sized at run time: stored after the struct, at this offset.
pub fn dynamic_field(name: &str) -> String {
    format!(" uint32_t {}_off;", name)
}

/// `struct <inv>`: the block header, then `fields`; guarded, as several
/// components' C may define the same block.
pub fn inv_struct(inv: &str, fields: &str) -> String {
    format!("#ifndef MPD_INV_{n}\n#define MPD_INV_{n}\nstruct {n} {{ mpd_invb h;{f} }};\n#endif\n", n = inv, f = fields)
}

/// Parameter `i` of block pointer `ib`: inline, or (`dynamic`: its size
/// known only at run time) after the struct at its recorded offset.
pub fn blk_param(ib: &str, i: usize, dynamic: bool) -> String {
    if dynamic {
        format!("((char *)({ib}) + ({ib})->p{i}_off)", ib = ib, i = i)
    } else {
        format!("({})->p{}", ib, i)
    }
}

/// Ref parameter `i` of block `ib` as a value (a blob is its address).
pub fn blk_ref_param(ib: &str, i: usize, blob: bool) -> String {
    if blob {
        format!("({})->p{}", ib, i)
    } else {
        format!("(*({})->p{})", ib, i)
    }
}

/// Stores the address of the actual `v` of ref parameter `i` in block `b`
/// (a blob's C is already its address).
pub fn ref_arg(b: &str, i: usize, v: &str, blob: bool) -> String {
    if blob {
        format!("{}->p{} = {};", b, i, v)
    } else {
        format!("{}->p{} = &({});", b, i, v)
    }
}

/// The return value in block `b`.
pub fn block_ret(b: &str) -> String {
    format!("{}->ret", b)
}

// ---- filling an invocation block

/// `size_t sz = sizeof(struct inv);`: the size, grown by each parameter
/// sized at run time.
pub fn block_size(sz: &str, inv: &str) -> String {
    format!("size_t {} = sizeof(struct {});", sz, inv)
}

/// The size of blob value `v` (a string's or an array's).
pub fn blob_size(v: &str, string: bool) -> String {
    format!("mpd_blob_size_k({}, {})", v, blob_kind(string))
}

fn blob_kind(string: bool) -> &'static str {
    if string {
        "MPD_BLOB_STR"
    } else {
        "MPD_BLOB_ARR"
    }
}

/// A string view `t` of a string argument `s`.
pub fn str_view(t: &str, s: &str) -> String {
    format!("mpd_sv {} = {};", t, s)
}

/// `size_t o = sz;`: a dynamic parameter's offset is the size so far.
pub fn param_offset(o: &str, sz: &str) -> String {
    format!("size_t {} = {};", o, sz)
}

/// Grows block size `sz` by a string of view `t`.
pub fn grow_by_str(sz: &str, t: &str) -> String {
    format!("{} += MPD_STR_SIZE({}.len);", sz, t)
}

/// Grows block size `sz` by `size` bytes, aligned.
pub fn grow_by(sz: &str, size: &str) -> String {
    format!("{} += MPD_ALIGN({});", sz, size)
}

/// Block `b` of static size on the invoker's stack: the runtime sets every
/// header field it reads except `size`; the parameters start zeroed, as on
/// the heap.
pub fn block_on_stack(inv: &str, b: &str, sz: &str) -> String {
    format!(
        "struct {inv} {b}s, *{b} = &{b}s; {b}s.h.size = (uint32_t){sz}; memset((char *){b} + sizeof(mpd_invb), 0, {sz} - sizeof(mpd_invb));",
        inv = inv,
        b = b,
        sz = sz
    )
}

/// Block `b` on the heap, freed with the statement's temporaries `t`.
/// With dynamic parameters only the fixed part (`struct inv`) is zeroed:
/// every byte after it is a dynamic parameter copied in whole next, or
/// alignment padding nobody reads (a 64 KiB `string[*]` argument is
/// copied once, not zeroed and then copied).
pub fn block_on_heap(inv: &str, b: &str, t: &str, sz: &str, dynamic: bool) -> String {
    if dynamic {
        return format!(
            "struct {inv} *{b} = mpd_tmp_alloc_head({t}, {sz}, sizeof(struct {inv})); {b}->h.size = (uint32_t){sz};",
            inv = inv,
            b = b,
            t = t,
            sz = sz
        );
    }
    format!(
        "struct {inv} *{b} = mpd_tmp_alloc({t}, {sz}); {b}->h.size = (uint32_t){sz};",
        inv = inv,
        b = b,
        t = t,
        sz = sz
    )
}

/// Records dynamic parameter `i`'s offset `o` in block `b`.
pub fn set_param_offset(b: &str, i: usize, o: &str) -> String {
    format!("{}->p{}_off = (uint32_t){};", b, i, o)
}

/// Where a dynamic parameter at offset `o` of block `b` lives.
pub fn param_at(b: &str, o: &str) -> String {
    format!("((char *){} + {})", b, o)
}

/// Copies a string of view `t` into a dynamic parameter at `dst`.
pub fn copy_str_param(dst: &str, t: &str) -> String {
    format!("mpd_str_init({d}, {t}.len); mpd_str_set(mpd_F, 0, {d}, {t});", d = dst, t = t)
}

/// Copies blob `v` (by its own size) into a dynamic parameter at `dst`.
pub fn copy_blob_param(dst: &str, v: &str, string: bool) -> String {
    format!("memcpy({d}, {v}, mpd_blob_size_k({v}, {k}));", d = dst, v = v, k = blob_kind(string))
}

/// `mpd_gather g[n];`: the blob copies a `send` leaves to the runtime.
pub fn gather_decl(g: &str, n: usize) -> String {
    format!("mpd_gather {}[{}];", g, n)
}

/// Piece `k` of `g`: blob `v` (by its own size) goes to `dst`.
pub fn gather_piece(g: &str, k: usize, dst: &str, v: &str, string: bool) -> String {
    format!(
        "{g}[{k}].dst = {d}; {g}[{k}].src = {v}; {g}[{k}].n = mpd_blob_size_k({v}, {kind}); {g}[{k}].str = {s};",
        g = g,
        k = k,
        d = dst,
        v = v,
        kind = blob_kind(string),
        s = string as i32
    )
}

// ---- issuing an invocation

/// `send c(args)` of block `b` whose blob arguments are the `n` pieces of
/// `g`, copied in (or sent from where they are) by the runtime.
pub fn send_gather(pos: &str, c: &str, b: &str, g: &str, n: usize) -> String {
    format!("mpd_send_gather({}, {}, &{}->h, {}, {});", pos, c, b, g, n)
}

/// `send f()` of an external runs the C function `call` in place.
pub fn discard(call: &str) -> String {
    format!("(void)({});", call)
}

/// `call`/`send` of block `b` to `target`.  A call of op `i` of a resource
/// capability goes through mpd_call_rc (see CapC).
pub fn invoke(pos: &str, target: Target, b: &str, send: bool) -> String {
    let kind = if send { "send" } else { "call" };
    match target {
        Target::Op(op) => format!("mpd_{}_op({}, {}, &{}->h);", kind, pos, op, b),
        Target::Cap(CapC { rc_op: Some((rc, i)), .. }) if !send => {
            format!("mpd_call_rc({}, {}, {}, &{}->h);", pos, rc, i, b)
        }
        Target::Cap(c) => format!("mpd_{}({}, {}, &{}->h);", kind, pos, c, b),
    }
}

/// `forward`: the invoker of block `cur` is answered when the invocation of
/// block `b` to capability `cap` is.
pub fn forward(pos: &str, cur: &str, cap: &str, b: &str) -> String {
    format!("{cur} = mpd_forward({}, {cur}, {}, &{}->h);", pos, cap, b, cur = cur)
}

/// `create res(...)`: the creation block `b`, on vm capability `vm` (C, or
/// `NULL`), by the instance `self_arg`; the new capability in `t`.
pub fn create(t: &str, pos: &str, res: &str, b: &str, vm: &str, self_arg: &str) -> String {
    format!(
        "mpd_cap {} = mpd_create_on({}, &{}_pat, &{}->h, {}, &{}->h);",
        t,
        pos,
        names::res_struct(res),
        b,
        vm,
        self_arg
    )
}

/// Where `create ... on c` creates: the address of vm capability `c`.
pub fn create_vm_arg(c: Option<String>) -> String {
    c.map(|c| format!("&{}", c)).unwrap_or_else(|| "NULL".into())
}

/// Keeps capability value `c` in `t` (evaluated once, before the block).
pub fn cap_tmp(t: &str, c: &str) -> String {
    format!("mpd_cap {} = {};", t, c)
}

/// `create vm() on machine`: a new virtual machine's capability in `t`.
pub fn vm_create(t: &str, pos: &str, machine: &str, self_arg: &str) -> String {
    format!("mpd_cap {} = mpd_vm_create({}, {}, &{}->h);", t, pos, machine, self_arg)
}

/// A machine given by an int.
pub fn machine_int(c: &str) -> String {
    format!("(int)({})", c)
}

/// A machine given by a name (string view `sv`).
pub fn machine_named(sv: &str) -> String {
    format!("mpd_vm_machine_of({})", sv)
}

/// No machine named: this one.
pub const MACHINE_HERE: &str = "-1";

// ---- ops declared in blocks, and op arrays with run-time bounds

/// Stores a new local op object of `cnt` ops in `dst` (a field).
pub fn local_ops_set(dst: &str, cnt: &str) -> String {
    format!("{} = mpd_ops_local(&self->h, (uint32_t)({}));", dst, cnt)
}

/// Declares local op object `o` of `cnt` ops (a block's).
pub fn local_ops_decl(o: &str, cnt: &str) -> String {
    format!("{}{} = mpd_ops_local(&self->h, (uint32_t)({}));", LOCAL_OPS_TYPE, o, cnt)
}

/// The `cnt` ops of local op object `obj` are input ops (served by in and
/// receive).
pub fn local_ops_input(obj: &str, cnt: &str) -> String {
    format!("mpd_op_input({}, 0, (uint32_t)({}), 0);", obj, cnt)
}

/// Kills local op object `o` when its block ends.
pub fn local_ops_end(o: &str) -> String {
    format!("mpd_ops_local_end({});", o)
}

/// The C type of a dimension's low bound and count evaluated at run time.
pub const DIM_CTYPE: &str = "int";

/// Declares the locals `a` (low bound) and `b` (count) of a dimension.
pub fn dim_decl(a: &str, b: &str) -> String {
    format!("int {}, {};", a, b)
}

/// A dimension from `l` to `h` evaluated at run time: its low bound in `a`,
/// its count in `b` (never negative).
pub fn dim_set(a: &str, l: &str, b: &str, h: &str) -> [String; 2] {
    [format!("{} = {}; {} = ({}) - {} + 1;", a, l, b, h, a), format!("if ({} < 0) {} = 0;", b, b)]
}

/// The total count so far times a dimension's count `b`.
pub fn dims_product(total: &str, b: &str) -> String {
    format!("({}) * ({})", total, b)
}

// ---- the procfn wrapper of a proc

/// What a proc returns, as its wrapper stores it in the block.
pub enum WrapRet {
    Void,
    /// a blob of this many bytes
    Blob(usize),
    Scalar,
}

/// The block pointer (typed) in a procfn wrapper.
pub const WRAPPER_IB: &str = "ib";

/// The wrapper's first arguments of the proc: the instance, the statement
/// temporaries, the block pointer.
pub fn wrapper_head_args(self_type: &str) -> Vec<String> {
    vec![format!("({} *)self_", self_type), "&_t".to_string(), "&ib_".to_string()]
}

/// A ref parameter `i`: the block holds the address already.
pub fn wrapper_ref_arg(i: usize) -> String {
    format!("ib->p{}", i)
}

/// A scalar var/res parameter `i`: the address of its field.
pub fn wrapper_var_arg(i: usize) -> String {
    format!("&ib->p{}", i)
}

/// The wrapper's statement: calls `f(args)` and stores its result.
pub fn wrapper_call(f: &str, args: &[String], ret: WrapRet) -> String {
    let call = format!("{}({})", f, args.join(", "));
    match ret {
        WrapRet::Void => format!("{};", call),
        WrapRet::Blob(n) => format!("memcpy(ib->ret, {}, {});", call, n),
        WrapRet::Scalar => format!("ib->ret = {};", call),
    }
}

/// The wrapper `w` of proc `comp.name` (block `inv`, statement `call`),
/// then its traced copy `<w>_tr`, which writes PROC and ENDPROC around the
/// proc: the op gets it while tracing (chosen when the op is declared), so
/// the wrapper itself has no test.  Returned as (traced, plain).
pub fn wrapper_defs(w: &str, pos: &str, comp: &str, name: &str, inv: &str, call: &str) -> (String, String) {
    let traced = format!(
        "__attribute__((noinline, cold)) static void {w}_tr(mpd_res *self_, mpd_invb *ib_) {{\n    void *_trf = mpd_trc_enter_proc({p}, \"{c}.{n}\", (void *)&ib_);\n    struct {inv} *ib = (struct {inv} *)ib_;\n    mpd_tmp *_t = NULL;\n    {call}\n    mpd_trc_leave({p}, _trf);\n    mpd_tmp_free(&_t);\n}}\n",
        w = w,
        p = pos,
        c = comp,
        n = name,
        inv = inv,
        call = call
    );
    let plain = format!(
        "static void {w}(mpd_res *self_, mpd_invb *ib_) {{\n    struct {inv} *ib = (struct {inv} *)ib_;\n    mpd_tmp *_t = NULL;\n    {call}\n    mpd_tmp_free(&_t);\n}}\n",
        w = w,
        inv = inv,
        call = call
    );
    (traced, plain)
}

// ---- processes

/// The MPD_OP_* flags of a process's op: it is only sent to.
pub const PROCESS_FLAGS: &str = "MPD_OP_SENDONLY";

/// The start code's loop over quantifier variable `v` (as in `for`: the
/// step `st` is added as written; a wide variable `<v>_l`, so that the end
/// of the int range ends the loop).
pub fn process_quant_loop(v: &str, real: bool, downto: bool, start: &str, end: &str, st: &str) -> String {
    let cmp = if downto { ">=" } else { "<=" };
    let lt = if real { "double" } else { "long long" };
    format!(
        "for ({lt} {v}_l = {s}; {v}_l {cmp} {e}; {v}_l += {st}) {{",
        lt = lt,
        v = v,
        s = start,
        e = end,
        cmp = cmp,
        st = st
    )
}

/// The quantifier variable `v` of C type `ct`, from its wide counter.
pub fn process_quant_var(ct: &str, v: &str) -> String {
    format!("{ct} {v} = ({ct}){v}_l;", ct = ct, v = v)
}

/// The start code's `such that` test `c`.
pub fn process_quant_st(c: &str) -> String {
    format!("if ({}) {{", c)
}

/// The start code's block `b` (on the stack: a send copies it).
pub fn process_block(inv: &str, b: &str) -> String {
    format!("struct {} {} = {{ .h.size = sizeof({}) }};", inv, b, b)
}

/// Quantifier `i` of the start code's block `b` is `v`.
pub fn process_block_param(b: &str, i: usize, v: &str) -> String {
    format!("{}.p{} = {};", b, i, v)
}

/// Starts one process: sends block `b` to the process's op `idx`.
pub fn process_start(pos: &str, idx: u32, b: &str) -> String {
    format!("mpd_send_op({}, &self->h.ops[{}], &{}.h);", pos, idx, b)
}

/// The first lines of a process's body: its block, its instance, the op
/// table, the temporaries.
pub fn process_prologue(inv: &str, self_type: &str) -> [String; 4] {
    [
        format!("struct {} *ib = (struct {} *)ib_; (void)ib;", inv, inv),
        format!("{} *self = ({} *)self_; (void)self;", self_type, self_type),
        names::OPS_LOCAL.to_string(),
        TMPS_DECL.to_string(),
    ]
}

/// Quantifier variable `i` of a process, in its body: the block's field.
pub fn process_param(i: usize) -> String {
    format!("ib->p{}", i)
}

/// How a process returns (its end and `return`): frees its temporaries.
pub const PROCESS_RETURN: &str = "mpd_tmp_free(&_t); mpd_tmp_free(&_f); return;";

/// The block pointer a process's traced events name.
pub const PROCESS_IB: &str = "ib_";

/// The prototype of process function `f`.
pub fn process_proto(f: &str) -> String {
    format!("static void {}(mpd_res *self_, mpd_invb *ib_);\n", f)
}

/// Process function `f` with `body`, and its traced copy (a process is
/// traced as a proc, after the SEND that started it): (plain, traced).
pub fn process_defs(f: &str, body: &str, pos: &str, qualname: &str) -> (String, String) {
    let plain = format!("static void {}(mpd_res *self_, mpd_invb *ib_) {{\n{}}}\n", f, body);
    let traced = format!(
        "__attribute__((noinline, cold)) static void {f}_tr(mpd_res *self_, mpd_invb *ib_) {{\n    void *_trf = mpd_trc_enter({p}, {n}, ib_);\n    {f}(self_, ib_);\n    mpd_trc_leave({p}, _trf);\n}}\n",
        f = f,
        p = pos,
        n = super::lit::c_string(qualname.as_bytes())
    );
    (plain, traced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_of_a_resource_capabilitys_op_tests_the_resource_capability() {
        let call = invoke("mpd_F, 3", Target::Cap(CapC::rc_op("rc", "2".into())), "_m1", false);
        assert_eq!(call, "mpd_call_rc(mpd_F, 3, rc, 2, &_m1->h);");
        // a send has no fast path: it takes the op capability
        let send = invoke("mpd_F, 3", Target::Cap(CapC::rc_op("rc", "2".into())), "_m1", true);
        assert_eq!(send, "mpd_send(mpd_F, 3, mpd_cap_op_of(rc, 2), &_m1->h);");
        let own = invoke("mpd_F, 3", Target::Op(own_op_ptr("4")), "_m1", true);
        assert_eq!(own, "mpd_send_op(mpd_F, 3, &ops_[4], &_m1->h);");
    }

    #[test]
    fn a_parameter_sized_at_run_time_is_reached_by_its_offset() {
        assert_eq!(blk_param("ib", 1, false), "(ib)->p1");
        assert_eq!(blk_param("ib", 1, true), "((char *)(ib) + (ib)->p1_off)");
        assert_eq!(blk_ref_param("ib", 0, false), "(*(ib)->p0)");
    }

    #[test]
    fn op_array_subscripts_flatten_row_major() {
        let first = op_index_step("0", "mpd_F, 1", "i", "1", "3");
        assert_eq!(first, "((0) * (3) + mpd_op_index(mpd_F, 1, i, 1, 3))");
        assert_eq!(op_elem(5, &first), format!("5 + {}", first));
    }

    /// The check/ files of operations decide and check; only emit/ spells
    /// the runtime's names (issue 18).
    #[test]
    fn check_op_files_spell_no_runtime_name() {
        let files = [
            ("ops.rs", include_str!("../check/ops.rs")),
            ("op_target.rs", include_str!("../check/op_target.rs")),
            ("invoke.rs", include_str!("../check/invoke.rs")),
            ("input.rs", include_str!("../check/input.rs")),
            ("process.rs", include_str!("../check/process.rs")),
            ("leaf.rs", include_str!("../check/leaf.rs")),
            ("chunk.rs", include_str!("../check/chunk.rs")),
        ];
        for (name, src) in files {
            assert!(!src.contains("mpd_") && !src.contains("MPD_"), "check/{} spells a runtime name", name);
        }
    }
}
