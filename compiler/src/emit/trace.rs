//! trace: the C that writes MPD_TRACE events (mpdtrace(5), docs/trace.md).
//!
//! Statements the compiler sees (resource bodies, finals, procs, `in`, `co`,
//! semaphore declarations, direct calls) are traced here; the runtime traces
//! what it does itself (invocations, P/V, create/destroy).  Every event costs
//! one predictable test of `mpd_trc_on` when tracing is off.

/// `MPD_TRC(pos, MPD_EV_<ev>, extra);` -- `pos` is the checker's `mpd_F, <line>`.
pub fn event(pos: &str, ev: &str, extra: &str) -> String {
    format!("MPD_TRC({}, MPD_EV_{}, {});", pos, ev, extra)
}

/// The same, as a C expression (for a call inside an expression).
pub fn event_expr(pos: &str, ev: &str) -> String {
    format!("MPD_TRC({}, MPD_EV_{}, 0)", pos, ev)
}

/// Variable that holds a traced proc's frame between PROC and ENDPROC.
pub const FRAME: &str = "_trf";

/// A proc's prologue: PROC under the proc's name `name` ("res.proc"); `ib` is
/// the C expression of its invocation block, NULL for a direct call.
pub fn proc_enter(pos: &str, name: &str, ib: &str) -> String {
    format!(
        "void *{f} = __builtin_expect(mpd_trc_on, 0) ? mpd_trc_enter({p}, {n}, {ib}) : (void *)0;",
        f = FRAME,
        p = pos,
        n = super::lit::c_string(name.as_bytes()),
        ib = ib
    )
}

/// A proc's prologue (`ibp`: its `mpd_invb **` parameter): PROC, after the
/// CALL of a direct call site.
pub fn proc_enter_ibp(pos: &str, name: &str, ibp: &str) -> String {
    format!(
        "void *{f} = __builtin_expect(mpd_trc_on, 0) ? mpd_trc_enter_proc({p}, {n}, (void *)({ibp})) : (void *)0;",
        f = FRAME,
        p = pos,
        n = super::lit::c_string(name.as_bytes()),
        ibp = ibp
    )
}

/// The file-scope descriptor of a direct call site named `var` at `pos`.
pub fn call_site(var: &str, pos: &str) -> String {
    let mut it = pos.splitn(2, ", ");
    let (f, l) = (it.next().unwrap_or("mpd_F"), it.next().unwrap_or("0"));
    format!("static const mpd_trc_site {} = {{ 0, {}, {} }};\n", var, f, l)
}

/// What a direct call passes as the proc's block pointer.
pub fn call_site_arg(var: &str) -> String {
    format!("(mpd_invb **)&{}.none", var)
}

/// A proc's epilogue (before every C `return` of it): ENDPROC.
pub fn proc_leave(pos: &str) -> String {
    format!("if (__builtin_expect({f} != (void *)0, 0)) mpd_trc_leave({p}, {f}); ", f = FRAME, p = pos)
}

/// `return` in a proc: RETURN, with the invoker as its extra field.
pub fn proc_return(pos: &str, ib: &str) -> String {
    format!("if (__builtin_expect({f} != (void *)0, 0)) mpd_trc({p}, MPD_EV_RETURN, mpd_trc_invoker({ib}));", f = FRAME, p = pos, ib = ib)
}

/// `IN`/`NI` and friends whose extra field is the invoker of block `ib`.
pub fn event_invoker(pos: &str, ev: &str, ib: &str) -> String {
    format!("if (__builtin_expect(mpd_trc_on, 0)) mpd_trc({}, MPD_EV_{}, mpd_trc_invoker({}));", pos, ev, ib)
}
