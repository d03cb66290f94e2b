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

/// Variable that holds a traced proc's frame between PROC and ENDPROC.
pub const FRAME: &str = "_trf";

/// The name of the descriptor of direct call site number `n`.
pub fn call_site_name(n: u32) -> String {
    format!("mpd_cs_{}", n)
}

/// The name of the traced twin of the proc whose C function is `cname`.
pub fn twin_name(cname: &str) -> String {
    format!("{}_tr", cname)
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

/// `return` in a proc: RETURN, with the invoker of block `ib` as its extra field.
pub fn proc_return(pos: &str, ib: &str) -> String {
    format!(
        "if (__builtin_expect(mpd_trc_on, 0)) mpd_trc({p}, MPD_EV_RETURN, mpd_trc_invoker({ib}));",
        p = pos,
        ib = ib
    )
}

/// The traced twin of proc `cname`: same prototype `proto_tr` (named
/// `<cname>_tr`), PROC (after a direct call's CALL), the proc itself, ENDPROC.
/// Callers choose it only while tracing, so the proc keeps no trace code and
/// stays as small (and as inlinable) as without tracing.  `nparams`: the
/// proc's MPD parameters (p0, p1, ...).
pub fn twin(proto_tr: &str, cname: &str, pos: &str, name: &str, returns: bool, nparams: usize) -> String {
    let mut args = vec!["self".to_string(), "_rt".to_string(), "(_ibp && *_ibp) ? _ibp : (mpd_invb **)0".to_string()];
    for i in 0..nparams {
        args.push(format!("p{}", i));
    }
    let call = format!("{}({})", cname, args.join(", "));
    let (keep, give) =
        if returns { (format!("__typeof__({}) _r = {};", call, call), " _r") } else { (format!("{};", call), "") };
    format!(
        "{proto} {{\n    void *{f} = mpd_trc_enter_proc({p}, {n}, (void *)_ibp);\n    {keep}\n    mpd_trc_leave({p}, {f});\n    return{give};\n}}\n",
        proto = proto_tr,
        f = FRAME,
        p = pos,
        n = super::lit::c_string(name.as_bytes()),
        keep = keep,
        give = give
    )
}

/// A direct call of proc `cname`: its arguments (C types `types`, texts
/// `args`, after self, _rt and the block pointer) evaluated once, then the
/// proc, or its traced twin while tracing (given the call site `site`).
pub fn direct_call(cname: &str, self_arg: &str, rt: &str, site: &str, types: &[String], args: &[String]) -> String {
    let mut decls = String::new();
    let mut names = Vec::new();
    for (i, (t, a)) in types.iter().zip(args).enumerate() {
        decls.push_str(&format!("{} _ca{} = {}; ", t, i, a));
        names.push(format!("_ca{}", i));
    }
    let rest: String = names.iter().map(|n| format!(", {}", n)).collect();
    format!(
        "({{ {decls}__builtin_expect(mpd_trc_on, 0) ? {c}_tr({s}, {rt}, {site}{rest}) : {c}({s}, {rt}, NULL{rest}); }})",
        decls = decls,
        c = cname,
        s = self_arg,
        rt = rt,
        site = site,
        rest = rest
    )
}

/// `IN`/`NI` and friends whose extra field is the invoker of block `ib`.
pub fn event_invoker(pos: &str, ev: &str, ib: &str) -> String {
    format!("if (__builtin_expect(mpd_trc_on, 0)) mpd_trc({}, MPD_EV_{}, mpd_trc_invoker({}));", pos, ev, ib)
}
