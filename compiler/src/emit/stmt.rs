//! stmt: the C of MPD's sequential statements -- stop, loops and their labels,
//! exit/next/return, destroy, reply, and the conditions of if/while
//! (runtime/include/mpd/abi/lang.h, ops.h).
//!
//! Loops are C `for` loops with two labels: `_next<n>` at the end of the body
//! (next) and `_brk<n>` after the loop (exit), so that exit and next can first
//! end what they leave (input statements, local ops, chunk slices).

/// `stop` / `stop(e)`: ends the program with exit status `status`.
pub fn stop(pos: &str, status: &str) -> String {
    format!("mpd_stop({}, {});", pos, status)
}

/// A jump to a loop's label (exit, next) or the end of an input statement.
pub fn goto(label: &str) -> String {
    format!("goto {};", label)
}

/// A label on an empty statement.
pub fn label(l: &str) -> String {
    format!("{}: ;", l)
}

/// The labels of a new loop: (exit, next).
pub fn loop_labels(n: u32) -> (String, String) {
    (format!("_brk{}", n), format!("_next{}", n))
}

/// The top of a `while` loop: an endless C loop left when the condition fails.
pub const WHILE_OPEN: &str = "for (;;) {";

/// `while` leaves its C loop when `cond` is false.
pub fn while_test(cond: &str) -> String {
    format!("if (!({})) break;", cond)
}

/// Leaving a time-sliced chunk early: its iterations not run go back to the slice.
pub fn chunk_give_back(slice: &str, unrun: &str) -> String {
    format!("{} += {};", slice, unrun)
}

/// After a chunked loop: the slice left goes back where the next loop top reads it.
pub fn slice_put(slice: &str) -> String {
    format!("mpd_slice_put({});", slice)
}

/// A loop top without chunks: a possible context switch (time slice).
pub const LOOP_YIELD: &str = "mpd_maybe_yield();";

/// Leaving the input statement whose invocation is `ib` (exit/next/return out
/// of an arm): the invocation is answered.
pub fn in_done(ib: &str) -> String {
    format!("mpd_in_done({});", ib)
}

/// `return` in an arm of an input statement: answers the invocation and leaves
/// the statement.
pub fn in_return(ib: &str, end: &str) -> String {
    format!("{} {}", in_done(ib), goto(end))
}

/// `return` in the initial code: trace ENDBODY (`end`), free the statement pool,
/// and end the component's initialization.
pub fn init_return(end: &str) -> String {
    format!("{} mpd_tmp_free(&_t); return;", end)
}

/// What `destroy` destroys, by the type of its operand.
pub enum Destroyed<'a> {
    Vm(&'a str),
    Resource(&'a str),
    /// `destroy null`
    Null,
    Op(&'a str),
    /// An array of op capabilities of `n` dimensions: each element.
    OpArray(&'a str, usize),
}

/// `destroy e`: ends a virtual machine, a resource instance, or ops.
pub fn destroy(pos: &str, d: Destroyed) -> String {
    match d {
        Destroyed::Vm(c) => format!("mpd_vm_destroy({}, {});", pos, c),
        Destroyed::Resource(c) => format!("mpd_destroy({}, {});", pos, c),
        Destroyed::Null => format!("mpd_destroy({}, mpd_cap_null);", pos),
        Destroyed::Op(c) => format!("mpd_op_destroy({}, {});", pos, c),
        Destroyed::OpArray(c, n) => format!("mpd_op_destroy_arr({}, {}, {});", pos, c, n),
    }
}

/// `reply` in an arm of an input statement: answers invocation `ib` early.
pub fn reply_in_arm(pos: &str, ib: &str) -> String {
    format!("{} = mpd_reply({}, {});", ib, pos, ib)
}

/// `reply` in a proc: the results and var/res parameters (`copy`) go into
/// the invoker's block, which is answered (when invoked through a block).
pub fn reply_in_proc(pos: &str, copy: &str) -> String {
    format!("if (_ibp) {{ {}*_ibp = mpd_reply({}, *_ibp); }}", copy, pos)
}

/// `reply` in a process (its creation block `args_`).
pub fn reply_in_process(pos: &str) -> String {
    format!("args_ = mpd_reply({}, args_);", pos)
}

/// The invocation a proc is serving, as `forward` hands it on.
pub const PROC_INVOCATION: &str = "(*_ibp)";

/// A condition evaluated into a fresh bool before a branch.
pub fn cond_local(c: &str, v: &str) -> String {
    format!("_Bool {} = {};", c, v)
}

/// `if (c) {`: the start of an `if` arm.
pub fn if_open(c: &str) -> String {
    format!("if ({}) {{", c)
}

/// The ops declared in a block end when the block is left.
pub fn local_ops_end(ops: &str) -> String {
    format!("mpd_ops_local_end({});", ops)
}

/// A quantifier's end and step, evaluated once before its loop (`et`: int or double).
pub fn quant_bounds(et: &str, e: &str, end: &str, st: &str, step: &str) -> String {
    format!("{et} {} = {}; {et} {} = {};", e, end, st, step, et = et)
}

/// The loop top of a loop whose limit only other processes can change: `e`
/// read again (`end`) when the time slice ran out there.
pub fn loop_yield_reread(e: &str, end: &str) -> String {
    format!("if (mpd_maybe_yielded()) {} = ({});", e, end)
}

/// The limit `e` of a quantifier tested afresh at each iteration.
pub fn quant_limit(et: &str, e: &str) -> String {
    format!("{} {};", et, e)
}

/// The test's side of a limit tested afresh: evaluated into `e`, which the
/// loop's body reads (what is left of a chunk).
pub fn quant_limit_test(e: &str, end: &str) -> String {
    format!("({} = ({}))", e, end)
}

/// A step added afresh at each iteration.
pub fn quant_step(step: &str) -> String {
    format!("({})", step)
}

/// The C names of chunk `n`'s variables: (slice left, switch now, chunk size, counter).
pub fn chunk_names(n: u32) -> (String, String, String, String) {
    (format!("_sl{}", n), format!("_sk{}", n), format!("_sn{}", n), format!("_su{}", n))
}

/// A quantifier loop counting its time slice in chunks: the slice is read
/// once, then each chunk runs as many iterations as the slice allows
/// (`left`: iterations left after this one); at a chunk's start, a slice
/// about to run out switches as mpd_maybe_yield() would and takes a fresh one.
/// Opens the outer loop (`open`) and returns the chunk's lines and its inner loop.
pub struct ChunkLoop {
    pub head: String,
    pub open: String,
    pub body: Vec<String>,
    pub inner: String,
}

/// See [`ChunkLoop`]; `v` the loop's long long induction variable.
pub fn chunk_loop(n: u32, v: &str, start: &str, cmp: &str, e: &str, left: &str, st: &str) -> ChunkLoop {
    let (sl, k, m, su) = chunk_names(n);
    ChunkLoop {
        head: format!("long {} = mpd_slice_get(); long long {} = {};", sl, v, start),
        open: format!("while ({} {} {}) {{", v, cmp, e),
        body: vec![
            format!("long long {k} = {sl} > 1; if (!{k}) {sl} = mpd_slice_renew();", k = k, sl = sl),
            format!(
                "long long {m} = ({left}) + 1; if ({m} > {sl} - {k}) {m} = {sl} - {k};",
                m = m,
                left = left,
                sl = sl,
                k = k
            ),
            format!("{sl} -= {m} - 1 + {k};", sl = sl, m = m, k = k),
        ],
        inner: format!("for (long long {su} = {m}; {su} > 0; {su}--, {v} += {st}) {{", su = su, m = m, v = v, st = st),
    }
}

/// What is left of a chunk when it is left early (`exit`): counter `su` minus one.
pub fn chunk_unrun(n: u32) -> String {
    format!("{} - 1", chunk_names(n).3)
}

/// A plain quantifier loop over `<var>_l` (of C type `lt`).
pub fn quant_loop(lt: &str, var: &str, start: &str, cmp: &str, e: &str, st: &str) -> String {
    format!(
        "for ({lt} {v}_l = {s}; {v}_l {cmp} {e}; {v}_l += {st}) {{",
        lt = lt,
        v = var,
        s = start,
        cmp = cmp,
        e = e,
        st = st
    )
}

/// A quantifier loop whose body may assign the variable (MPD 1.0.1's loop
/// variable steers the loop): the variable is declared outside the C loop
/// and each step starts from its value.
pub fn steered_quant_loop(
    ct: &str,
    lt: &str,
    var: &str,
    start: &str,
    cmp: &str,
    e: &str,
    st: &str,
) -> (String, String) {
    (
        format!("{} {};", ct, var),
        format!(
            "for ({lt} {v}_l = {s}; {v}_l {cmp} {e}; {v}_l = ({lt}){v} + {st}) {{",
            lt = lt,
            v = var,
            s = start,
            cmp = cmp,
            e = e,
            st = st
        ),
    )
}

/// The quantifier variable, of C type `ct`, from the loop's counter `<var>_l`.
pub fn quant_var(ct: &str, var: &str) -> String {
    format!("{} {} = ({}){}_l;", ct, var, ct, var)
}

/// A steered loop's variable (declared before the loop) set from its counter.
pub fn steered_quant_var(ct: &str, var: &str) -> String {
    format!("{} = ({}){}_l;", var, ct, var)
}

/// An expression statement: evaluated for its effect.
pub fn expr_stmt(c: &str) -> String {
    format!("{};", c)
}

/// An expression statement whose value is discarded.
pub fn discard(c: &str) -> String {
    format!("(void)({});", c)
}

/// Leaves the enclosing `switch` case.
pub const BREAK: &str = "break;";
