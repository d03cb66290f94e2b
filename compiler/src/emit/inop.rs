//! inop: the C of input (runtime mpd/abi/ops.h): `receive`, P and V,
//! `?op`, and semaphore declarations.  check/ops.rs decides which of these
//! a statement is (a parameterless op is received by P, sent to by V) and
//! checks it; the `in` statement's arms use `in_cap` too.
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
pub fn sem_local(pos: &str, obj: &str, cnt: &str, init: &str) -> String {
    format!("mpd_op_sem({}, {}, 0, (uint32_t)({}), {});", pos, obj, cnt, init)
}

/// Local semaphores initialized from array `init` of `depth` dimensions.
pub fn sem_local_arr(pos: &str, obj: &str, cnt: &str, init: &str, depth: usize) -> String {
    format!("mpd_sem_init_arr({}, {}, 0, (uint32_t)({}), {}, {});", pos, obj, cnt, init, depth)
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
