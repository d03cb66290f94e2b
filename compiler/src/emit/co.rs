//! co: the C of a `co` statement's arms (runtime mpd/abi/ops.h).  check/
//! marks an invocation as a co arm; it is issued here, and its results
//! are copied out when the arm completes.
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
