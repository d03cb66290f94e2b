//! co: the C of `co [q] inv -> post // ... oc` (runtime mpd/abi/ops.h:
//! mpd_co_begin, mpd_co_wait, mpd_co_release, mpd_co_end; docs/ops.md).
//! check/ marks an invocation as a co arm; it is issued here, and its
//! results are copied out when the arm completes.
//!
//! Every arm (each quantifier instance) is issued first, numbered by one
//! counter; the quantifier values go into an int vector with one slot per
//! quantifier (the stride); then completions are handled in the order they
//! come, each arm's post-processing seeing its instance's values again.
use super::ops::Target;

/// Marks block `b` as arm `arm` (quantified arms: at index `idx`).
pub fn arm(b: &str, arm: u32, idx: &str) -> String {
    format!("{b}->h.co_arm = {arm}; {b}->h.co_idx = (uint32_t)({idx});", b = b, arm = arm, idx = idx)
}

/// Issues arm block `b` of co statement `co` to `target`: the runtime
/// copies the block.
pub fn invoke(pos: &str, co: &str, target: Target, b: &str, send: bool) -> String {
    let kind = if send { "MPD_INV_SEND" } else { "MPD_INV_CALL" };
    match target {
        Target::Op(op) => format!("mpd_co_invoke_op({}, {}, {}, &{}->h, {});", pos, co, op, b, kind),
        Target::Cap(c) => format!("mpd_co_invoke({}, {}, {}, &{}->h, {});", pos, co, c, b, kind),
    }
}

// ---- the statement

/// The C names of co statement `id`: (co, value vector, its capacity, counter).
pub fn names(id: u32) -> (String, String, String, String) {
    (format!("_co{}", id), format!("_coqv{}", id), format!("_coqn{}", id), format!("_cok{}", id))
}

/// The start of the statement: a co record and an empty value vector.
pub fn begin(cv: &str, qv: &str, qcap: &str) -> String {
    format!("mpd_co *{} = mpd_co_begin(); int *{} = NULL; int {} = 0; (void){};", cv, qv, qcap, qcap)
}

/// The base slot of the current instance in the value vector.
pub fn quant_base(k: &str, stride: usize) -> String {
    format!("({}) * {}", k, stride)
}

/// Stores quantifier j's value `c` of the current instance.
pub fn quant_store(qv: &str, qcap: &str, base: &str, j: usize, c: &str) -> String {
    format!("{qv} = mpd_ivec_set({qv}, &{qc}, {b} + {j}, (int)({c}));", qv = qv, qc = qcap, b = base, j = j, c = c)
}

/// The next instance number.
pub fn count(k: &str) -> String {
    format!("{}++;", k)
}

/// The C names of co statement `id`'s completion loop: (done block, exit, next, arm).
pub fn wait_names(id: u32) -> (String, String, String, String) {
    (format!("_cod{}", id), format!("_coend{}", id), format!("_conext{}", id), format!("_coarm{}", id))
}

/// The completed invocation's block.
pub fn done_decl(d: &str) -> String {
    format!("mpd_invb *{};", d)
}

/// Waits for completions until every arm has completed (or `exit` in a post).
pub fn wait_loop(d: &str, pos: &str, cv: &str) -> String {
    format!("while (({} = mpd_co_wait({}, {})) != NULL) {{", d, pos, cv)
}

/// Which arm completed (read once: each arm's code releases the block).
pub fn arm_of(da: &str, d: &str) -> String {
    format!("uint32_t {} = {}->co_arm;", da, d)
}

/// Arm `ai`'s completion code runs when it completed.
pub fn arm_open(da: &str, ai: usize) -> String {
    format!("if ({} == {}) {{", da, ai)
}

/// Quantifier j's value of the completed instance, as a local of C type `ct`.
pub fn quant_load(ct: &str, v: &str, qv: &str, d: &str, stride: usize, j: usize) -> String {
    format!("{} {} = ({}){}[{}->co_idx * {} + {}];", ct, v, ct, qv, d, stride, j)
}

/// Parameter i of a completed block `blk` (scalar).
pub fn block_param(blk: &str, i: usize) -> String {
    format!("{}->p{}", blk, i)
}

/// The result of a completed block `blk`.
pub fn block_result(blk: &str) -> String {
    format!("{}->ret", blk)
}

/// The completed block is handed back once its results are read.
pub fn release(d: &str) -> String {
    format!("mpd_co_release({});", d)
}

/// The end of the statement (exit from a post lands here): outstanding
/// invocations are abandoned and the vector freed.
pub fn end(brk: &str, cv: &str, qv: &str) -> String {
    format!("{}: mpd_co_end({}); free({});", brk, cv, qv)
}
