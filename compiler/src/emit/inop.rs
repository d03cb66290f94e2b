//! inop: the C of input (runtime mpd/abi/ops.h): `receive`, P and V,
//! `?op`, and semaphore declarations.  check/ops.rs decides which of these
//! a statement is (a parameterless op is received by P, sent to by V) and
//! checks it; the `in` statement's arms use `in_cap` too.
//!
//! The input statement `in arm [] ... [] else ni` (mpd_in, mpd_arm,
//! mpd_in_wait, mpd_in_done): each arm gets a vector of the ops it may
//! service (one per quantifier value); `st` and `by` become callbacks that
//! read the enclosing locals through an environment struct; mpd_in_wait
//! picks an invocation and the statement then runs the chosen arm.
use super::ops::Target;

/// The op of capability `c` that this process may service (an input op).
pub fn in_cap(pos: &str, c: &str) -> String {
    format!("mpd_in_cap({}, {})", pos, c)
}

/// `P(op)`, or `receive op` of a parameterless op: the runtime receives
/// and completes the invocation when the op is not a semaphore.
pub fn p(pos: &str, op: &str) -> String {
    format!("mpd_op_P({}, {});", pos, op)
}

/// `P(op)` in a loop taking its slice in chunks (check/chunk.rs): only a P
/// that waits takes up the countdown `sl` (the chunk's `unrun` iterations
/// put back first), so the loop's yields stay exact.
pub fn p_chunked(pos: &str, op: &str, sl: &str, unrun: &str) -> String {
    format!("mpd_op_P_chunked({}, {}, &{}, {});", pos, op, sl, unrun)
}

/// `V(op)`, or `send op()` of a parameterless op: the runtime sends when
/// the op is not a semaphore.
pub fn v(pos: &str, op: &str) -> String {
    format!("mpd_op_V({}, {});", pos, op)
}

/// V of a capability: a send of an empty block.
pub fn v_cap(pos: &str, c: &str) -> String {
    format!("mpd_send({}, {}, &(mpd_invb){{ .size = sizeof(mpd_invb) }});", pos, c)
}

/// P or V of `target` (a capability's P takes it as an input op).
pub fn p_or_v(pos: &str, target: Target, v_op: bool) -> String {
    match (target, v_op) {
        (Target::Op(op), true) => v(pos, &op),
        (Target::Cap(c), true) => v_cap(pos, &c.to_string()),
        (Target::Op(op), false) => p(pos, &op),
        (Target::Cap(c), false) => p(pos, &in_cap(pos, &c.to_string())),
    }
}

/// The header of block pointer `ib` (what the runtime and the trace take).
pub fn block_hdr(ib: &str) -> String {
    format!("&{}->h", ib)
}

/// `receive`: waits for an invocation of `op`; its block in `ib`.
pub fn receive(inv: &str, ib: &str, pos: &str, op: &str) -> String {
    format!("struct {} *{} = (struct {} *)mpd_receive_op({}, {});", inv, ib, inv, pos, op)
}

/// The invocation of block `ib` is serviced (a call's invoker goes on).
pub fn in_done(ib: &str) -> String {
    format!("mpd_in_done(&{}->h);", ib)
}

/// `?op`: the pending invocations of op `target`.
pub fn pending(pos: &str, target: Target) -> String {
    match target {
        Target::Op(op) => format!("mpd_pending_op({})", op),
        Target::Cap(c) => format!("mpd_pending({}, {})", pos, c),
    }
}

// ---- semaphore declarations

/// The semaphores declared in a block or with run-time bounds: the
/// `cnt` ops of local op object `obj`, all initialized to `init`.
/// `held`: no semaphore in MPD's sense (declared in a block, or exported):
/// counted, but a process it wakes holds its class.
pub fn sem_local(pos: &str, obj: &str, cnt: &str, init: &str, held: bool) -> String {
    let f = if held { "mpd_op_sem_held" } else { "mpd_op_sem" };
    format!("{}({}, {}, 0, (uint32_t)({}), {});", f, pos, obj, cnt, init)
}

/// Local semaphores initialized from array `init` of `depth` dimensions.
pub fn sem_local_arr(pos: &str, obj: &str, cnt: &str, init: &str, depth: usize, held: bool) -> String {
    let f = if held { "mpd_sem_init_arr_held" } else { "mpd_sem_init_arr" };
    format!("{}({}, {}, 0, (uint32_t)({}), {}, {});", f, pos, obj, cnt, init, depth)
}

/// The first semaphore of local op object `obj`.
pub fn sem_local_first(obj: &str) -> String {
    format!("&({})->ops[0]", obj)
}

/// The `cnt` semaphores of the component from op `idx`, all initialized to `init`.
pub fn sem_own(pos: &str, idx: u32, cnt: u32, init: &str) -> String {
    format!("mpd_op_sem({}, &self->h, {}, {}, {});", pos, idx, cnt, init)
}

/// The component's semaphores initialized from array `init`, one initial
/// value per element, row by row.
pub fn sem_own_arr(pos: &str, idx: u32, cnt: u32, init: &str, depth: usize) -> String {
    format!("mpd_sem_init_arr({}, &self->h, {}, {}, {}, {});", pos, idx, cnt, init, depth)
}

/// The component's semaphore `idx`.
pub fn sem_own_first(idx: u32) -> String {
    format!("&self->h.ops[{}]", idx)
}

/// MPD_TRACE of a semaphore declaration: CREATES, and INITS when it has a
/// (scalar) initial value, which the runtime reads back (so the initial
/// expression is evaluated once).
pub fn trace_sems(pos: &str, op: &str, n: &str, init: bool) -> String {
    format!(
        "if (__builtin_expect(mpd_trc_on, 0)) mpd_trc_sems({}, {}, (uint32_t)({}), {});",
        pos,
        op,
        n,
        if init { "1" } else { "0" }
    )
}

// ---- the `in` statement

/// A local of the enclosing code reached from an st/by callback: field `k`
/// of the callback's environment (a blob's address, a scalar's pointer).
pub fn env_ref(k: usize, blob: bool) -> String {
    if blob {
        format!("_env->c{}", k)
    } else {
        format!("(*_env->c{})", k)
    }
}

/// The C name of arm `ai`'s op vector.
pub fn ops_name(id: u32, ai: usize) -> String {
    format!("_ops{}_{}", id, ai)
}

/// A quantified arm: the count of quantifier values (`n`, 0 at first), and the
/// op vector `ops` and value vector `qv` sized for that many, in the
/// statement's pool (`t1`, `t2`: the pool, one per allocation).
pub fn quant_vectors(
    n: &str,
    qv: &str,
    ops: &str,
    t1: &str,
    t2: &str,
    start: &str,
    end: &str,
    step: &str,
) -> Vec<String> {
    let cnt = format!("(({e}) - ({s})) / ({st}) + 1", e = end, s = start, st = step);
    vec![
        format!("int {n} = 0;"),
        format!("int _cap{qv} = {cnt} > 0 ? {cnt} : 0;", qv = qv, cnt = cnt),
        format!(
            "mpd_op **{ops} = mpd_tmp_alloc({t}, sizeof(mpd_op *) * (size_t)(_cap{qv} + 1));",
            ops = ops,
            t = t1,
            qv = qv
        ),
        format!("int *{qv} = mpd_tmp_alloc({t}, sizeof(int) * (size_t)(_cap{qv} + 1));", qv = qv, t = t2),
    ]
}

/// The loop over a quantified arm's values; never more values than counted
/// (a step away from the end never ends).
pub fn quant_loop(var: &str, start: &str, end: &str, downto: bool, n: &str, qv: &str, step: &str) -> String {
    let cmp = if downto { ">=" } else { "<=" };
    format!(
        "for (int {v} = {s}; {v} {cmp} {e} && {n} < _cap{qv}; {v} += {st}) {{",
        v = var,
        s = start,
        e = end,
        cmp = cmp,
        st = step,
        n = n,
        qv = qv
    )
}

/// A quantifier value that fails the quantifier's `st` is skipped.
pub fn quant_skip_unless(c: &str) -> String {
    format!("if (!({})) continue;", c)
}

/// Records op `op` for quantifier value `v` in the arm's vectors.
pub fn quant_record(ops: &str, n: &str, op: &str, qv: &str, v: &str) -> String {
    format!("{ops}[{n}] = {op}; {qv}[{n}] = {v}; {n}++;", ops = ops, n = n, op = op, qv = qv, v = v)
}

/// An unquantified arm's vector of one op.
pub fn single_op(ops: &str, op: &str) -> String {
    format!("mpd_op *{}[1] = {{ {} }};", ops, op)
}

/// The st/by callback's dispatch on the arm.
pub const CB_SWITCH: &str = "switch (_arm) {";

/// The start of arm `ai` in a callback.
pub fn cb_case(ai: usize) -> String {
    format!("case {}: {{", ai)
}

/// A callback's value for an arm (st: true/false; by: the priority).
pub fn cb_value(v: &str) -> String {
    format!("_r = (double)({});", v)
}

/// The invocation block of an arm in a callback.
pub const CB_INVB: &str = "_ib";

/// Quantifier values of arm `ai`, as a callback reads them (index `_k`).
pub fn cb_quant_value(ai: usize) -> String {
    format!("_env->q{}[_k]", ai)
}

/// An `st` (kind "st", int result, true by default) or `by` (kind "by",
/// double, 0 by default) callback of input statement `id`; `self_type`: the
/// instance's struct; `body`: the switch on the arm.
pub fn callback(kind: &str, id: u32, self_type: &str, ops_local: &str, body: &str) -> String {
    let rt = if kind == "st" { "int" } else { "double" };
    format!(
        "static {rt} mpd_{kind}_{id}(void *e_, uint32_t _arm, uint32_t _k, mpd_invb *_ib) {{\n    struct env_{id} *_env = e_; {st} *self = _env->self; (void)self; (void)_k;\n    {ops}\n    mpd_tmp *_t = NULL; double _r = {dflt};\n{body}    mpd_tmp_free(&_t);\n    return ({rt})_r;\n}}\n",
        rt = rt,
        kind = kind,
        id = id,
        st = self_type,
        ops = ops_local,
        dflt = if kind == "st" { "1" } else { "0" },
        body = body
    )
}

/// The environment struct of input statement `id`: the instance, the captured
/// locals (`c<k>`, by address unless blobs), and each quantified arm's value
/// vector (`q<ai>`: `quant_arms` lists those arms).
pub fn env_struct(id: u32, self_type: &str, captured: &[(String, String)], quant_arms: &[usize]) -> String {
    let mut env_def = format!("struct env_{} {{ {} *self;", id, self_type);
    for (k, (_, ct)) in captured.iter().enumerate() {
        env_def.push_str(&format!(" {} c{};", ct, k));
    }
    for ai in quant_arms {
        env_def.push_str(&format!(" int *q{};", ai));
    }
    env_def.push_str(" };\n");
    env_def
}

/// The environment of input statement `id`, filled in (`qvs`: the quantified
/// arms' value vectors, in arm order).
pub fn env_init(id: u32, captured: &[(String, String)], qvs: &[&str]) -> String {
    let mut init = vec!["self".to_string()];
    for (c, ct) in captured {
        init.push(if ct == "char *" { c.clone() } else { format!("&{}", c) });
    }
    init.extend(qvs.iter().map(|q| q.to_string()));
    format!("struct env_{} _env{} = {{ {} }};", id, id, init.join(", "))
}

/// One arm for the runtime: its op vector, how many ops, whether it has st/by.
pub struct ArmInit<'a> {
    pub ops: &'a str,
    pub n: &'a str,
    pub st: bool,
    pub by: bool,
}

/// The arm table and the statement struct of input statement `id`.
pub fn in_struct(id: u32, arms: &[ArmInit], has_else: bool, has_st: bool, has_by: bool) -> Vec<String> {
    let arm_inits: Vec<String> = arms
        .iter()
        .map(|a| format!("{{ {}, (uint32_t)({}), {}, {}, 0, 0 }}", a.ops, a.n, a.st as i32, a.by as i32))
        .collect();
    vec![
        format!("mpd_arm _arms{}[{}] = {{ {} }};", id, arms.len(), arm_inits.join(", ")),
        format!(
            "mpd_in _in{id} = {{ _arms{id}, {n}, {e}, {st}, {by}, &_env{id}, 0, 0 }};",
            id = id,
            n = arms.len(),
            e = has_else as i32,
            st = if has_st { format!("mpd_st_{}", id) } else { "NULL".into() },
            by = if has_by { format!("mpd_by_{}", id) } else { "NULL".into() }
        ),
    ]
}

/// The C name of the chosen invocation of input statement `id`.
pub fn chosen(id: u32) -> String {
    format!("_ib{}", id)
}

/// Waits for an invocation of one of the arms (NULL: the else arm).
pub fn wait(ib: &str, pos: &str, id: u32) -> String {
    format!("mpd_invb *{} = mpd_in_wait({}, &_in{});", ib, pos, id)
}

/// The chosen quantifier value of arm `ai`, copied out of the statement's pool.
pub fn chosen_quant(l: &str, ib: &str, id: u32, ai: usize, q: &str) -> String {
    format!("int {l} = {ib} && _in{id}.arm == {ai} ? {q}[_in{id}.k] : 0;")
}

/// The else arm runs when no invocation was chosen.
pub fn else_open(ib: &str) -> String {
    format!("if (!{}) {{", ib)
}

/// No invocation (the else arm's, for traces).
pub const NO_INVB: &str = "(mpd_invb *)0";

/// Arm `ai` runs when it was chosen.
pub fn arm_open(ib: &str, id: u32, ai: usize) -> String {
    format!("if ({} && _in{}.arm == {}) {{", ib, id, ai)
}

/// The label at the end of input statement `id` (where `return` in an arm goes).
pub fn end_label(id: u32) -> String {
    format!("_inend{}", id)
}

/// An invocation block `ib` seen as op `inv`'s block struct.
pub fn inv_block(inv: &str, ib: &str) -> String {
    format!("((struct {} *){})", inv, ib)
}

/// The result field of invocation block `ib` of op `inv`.
pub fn inv_result(inv: &str, ib: &str) -> String {
    format!("{}->ret", inv_block(inv, ib))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::ops::CapC;

    #[test]
    fn p_and_v_of_a_capability() {
        // V of a capability sends an empty block; P takes it as an input op
        let c = || Target::Cap(CapC::from("c".to_string()));
        assert_eq!(p_or_v("mpd_F, 2", c(), true), "mpd_send(mpd_F, 2, c, &(mpd_invb){ .size = sizeof(mpd_invb) });");
        assert_eq!(p_or_v("mpd_F, 2", c(), false), "mpd_op_P(mpd_F, 2, mpd_in_cap(mpd_F, 2, c));");
        assert_eq!(p_or_v("mpd_F, 2", Target::Op("&ops_[0]".into()), true), "mpd_op_V(mpd_F, 2, &ops_[0]);");
    }
}
