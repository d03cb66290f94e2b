//! component: the C of a component (resource or global) -- its instance
//! layout, the header importers include, the initial code, the final code,
//! the op table set up at creation, and the pattern the runtime creates it by
//! (runtime/include/mpd/abi/lang.h: mpd_res, mpd_respat, mpd_invb).
//!
//! check/ decides what a component holds; this module alone knows how the
//! runtime expects it laid out.
use super::{lit, names, trace};
use crate::check::types::Ty;

/// The C type of a scalar MPD type (blobs are reached through `char *`).
pub fn ctype(t: &Ty) -> String {
    match t {
        Ty::Bool => "_Bool".into(),
        Ty::Char => "unsigned char".into(),
        Ty::Int | Ty::Enum(_) | Ty::Error => "int".into(),
        Ty::Real => "double".into(),
        Ty::File => "mpd_file".into(),
        Ty::Ptr(_) | Ty::PtrAny | Ty::Null => "void *".into(),
        Ty::Cap(_) => "mpd_cap".into(),
        Ty::Void => "void".into(),
        _ => "char *".into(),
    }
}

/// `proto` made `static` when only this file calls the function.
pub fn file_local(local: bool, proto: &str) -> String {
    format!("{}{}", if local { "static " } else { "" }, proto)
}

/// A member of the instance struct: `    <ctype> <name>;`.
pub fn field_line(ctype: &str, cname: &str) -> String {
    format!("    {} {};\n", ctype, cname)
}

/// The member of an importer's instance pointing to an imported global's instance.
pub fn global_ptr_field(cname: &str) -> String {
    format!("    void *{};\n", cname)
}

/// How the component's code reaches member `cname` of its instance: through
/// `self` in a resource, through the per-VM instance pointer in a global.
pub fn field_access(global: bool, comp: &str, cname: &str) -> String {
    if global {
        format!("{}->{}", names::global_inst(comp), cname)
    } else {
        format!("self->{}", cname)
    }
}

/// The blob kind argument of runtime blob calls for a string or array type;
/// None for records (whose size is known at compile time).
pub fn blob_kind(t: &Ty) -> Option<&'static str> {
    match t {
        Ty::Str(_) => Some("MPD_BLOB_STR"),
        Ty::Arr(..) => Some("MPD_BLOB_ARR"),
        _ => None,
    }
}

/// Resource parameter `i` of blob type: a private copy of the blob in the
/// creation block (`src`), of size kind `kind`, into field `field`.
pub fn res_param_blob(field: &str, src: &str, kind: &str) -> String {
    format!(
        "{c} = mpd_res_blob_new(&self->h, mpd_blob_size_k({s}, {k})); memcpy({c}, {s}, mpd_blob_size_k({s}, {k}));",
        c = field,
        s = src,
        k = kind
    )
}

/// Resource parameter `i` of scalar type: read from the creation block.
pub fn res_param_scalar(field: &str, i: usize) -> String {
    format!("{} = args->p{};", field, i)
}

/// The creation block's C expression for the i-th resource parameter.
pub fn res_param_block_name(i: usize) -> String {
    format!("p{}", i)
}

/// `import G` of a global in a component: the instance of G on this VM is
/// found (created on first use) and kept in the importer's field.
pub fn import_global(field: &str, pos: &str, gstruct: &str) -> String {
    format!("if (!self->{f}) self->{f} = mpd_global_at({}, &{}_pat, &self->h);", pos, gstruct, f = field)
}

/// One entry of the component's op table, as registered when the instance is made.
pub struct OpInit<'a> {
    pub idx: u32,
    pub n: u32,
    /// The name shown in traces ("R.f").
    pub name: &'a str,
    /// The proc wrapper or process that implements it; None: an input op.
    pub procfn: Option<&'a str>,
    pub flags: &'a str,
    /// A parameterless input op no input statement needs the queue of: a
    /// semaphore at run time.
    pub as_sem: bool,
}

/// In the class map: the op's own class, and no semaphore in MPD's sense
/// (MPD_OP_CLASS_HELD: counted, but held).
pub const CLASS_HELD: u32 = u32::MAX - 1;

/// The op table set-up at the start of the initial code: the operation
/// classes (when some are not the default), then one runtime call per op.
/// Procs' wrappers and processes have traced copies (`_tr`), chosen when tracing is on.
fn op_inits(comp: &str, ops: &[OpInit], classes: &[Option<u32>]) -> String {
    let mut decls = String::new();
    if !classes.is_empty() {
        let map: Vec<String> = classes
            .iter()
            .map(|c| match c {
                None => "MPD_OP_CLASS_OWN".to_string(),
                Some(CLASS_HELD) => "MPD_OP_CLASS_HELD".to_string(),
                Some(r) => r.to_string(),
            })
            .collect();
        decls.push_str(&format!(
            "    static const uint32_t opclass_[{}] = {{{}}};\n    mpd_op_classes(&self->h, opclass_);\n",
            map.len(),
            map.join(", ")
        ));
    }
    for o in ops {
        match o.procfn {
            Some(f) => decls.push_str(&format!(
                "    mpd_op_proc(&self->h, {}, {}, {}, \"{}.{}\", {});\n",
                o.idx,
                o.n,
                if f.ends_with("_ib") || f.ends_with("_proc") {
                    format!("mpd_trc_on ? {f}_tr : {f}", f = f)
                } else {
                    f.to_string()
                },
                comp,
                o.name,
                if o.flags.is_empty() { "0" } else { o.flags }
            )),
            None if o.as_sem => {
                decls.push_str(&format!("    mpd_op_sem(mpd_F, 0, &self->h, {}, {}, 0);\n", o.idx, o.n))
            }
            None => decls.push_str(&format!("    mpd_op_input(&self->h, {}, {}, 0);\n", o.idx, o.n)),
        }
    }
    decls
}

/// Everything check/ collected about one component, for [`unit`].
pub struct Unit<'a> {
    pub comp: &'a str,
    pub file_name: &'a str,
    pub global: bool,
    /// Members of the instance struct (field_line each).
    pub fields: &'a str,
    /// Invocation block structs.
    pub invdefs: &'a str,
    /// Members of the creation block (resource parameters).
    pub args: &'a str,
    /// Type and prototype declarations, then function definitions.
    pub protos: &'a str,
    pub funcs: &'a str,
    /// Headers of the imported components (name, header, is a global), by name.
    pub imports: Vec<(&'a str, &'a str, bool)>,
    /// Lines of each proc (first, last, "R.f") for the blocked-process report.
    pub proc_spans: &'a [(u32, u32, String)],
    pub ops: Vec<OpInit<'a>>,
    /// The first op of each op's class, None: its declaration's (check::op_classes).
    pub classes: Vec<Option<u32>>,
    pub nops: u32,
    pub spec_nops: u32,
    /// The initial code, the C that starts the processes, and the final code.
    pub init_body: &'a str,
    pub process_starts: &'a str,
    pub final_body: &'a str,
    /// `mpd_F, <line>` of the component's header (trace BODY/ENDBODY).
    pub trace_pos: &'a str,
}

/// The header importers include: the instance struct, invocation blocks, the
/// creation block, the pattern, the spec's externals and (for a global) its
/// procedures' prototypes.
pub fn header(u: &Unit) -> String {
    let comp = u.comp;
    let st = if u.global { names::global_struct(comp) } else { names::res_struct(comp) };
    let mut header = String::new();
    header.push_str(&format!("#ifndef MPD_COMP_{c}\n#define MPD_COMP_{c}\n", c = comp));
    header.push_str(&format!("struct {} {{\n    mpd_res h;\n{}}};\n", st, u.fields));
    header.push_str(u.invdefs);
    header.push_str(&format!("struct {}_args {{ mpd_invb h;{} }};\n", st, u.args));
    header.push_str(&format!("extern const mpd_respat {}_pat;\n", st));
    // externals declared in the spec are callable by importers
    header.push_str(
        &u.protos
            .lines()
            .filter(|l| l.starts_with("extern ") && l.contains("__asm__"))
            .map(|l| format!("{}\n", l))
            .collect::<String>(),
    );
    if u.global {
        header.push_str(
            &u.protos
                .lines()
                .filter(|l| {
                    l.starts_with("char *mpdp_") || !l.starts_with("static") && l.contains(&format!("mpdp_{}_", comp))
                })
                .map(|l| format!("{}\n", l))
                .collect::<String>(),
        );
    }
    header.push_str("#endif\n");
    header
}

/// The proc-span table registered with the runtime at load time (which proc a
/// blocked process is in: mpd_procspan_name).
fn proc_span_table(spans: &[(u32, u32, String)]) -> String {
    if spans.is_empty() {
        return String::new();
    }
    let spans: Vec<String> =
        spans.iter().map(|(lo, hi, n)| format!("{{ {}, {}, {} }}", lo, hi, lit::c_string(n.as_bytes()))).collect();
    format!(
        "static const mpd_procspan mpd_spans_[] = {{ {} }};
static mpd_procspans mpd_spanlist_ = {{ mpd_F, mpd_spans_, {}, 0 }};
__attribute__((constructor)) static void mpd_spans_reg_(void) {{ mpd_register_procspans(&mpd_spanlist_); }}
",
        spans.join(", "),
        spans.len()
    )
}

/// The component's C file (its translation unit) and the header importers need.
/// Order: includes, imported headers, own header, global-instance macros,
/// prototypes, functions, proc spans, init, final, pattern, main entry.
pub fn unit(u: &Unit) -> (String, String) {
    let comp = u.comp;
    let st = if u.global { names::global_struct(comp) } else { names::res_struct(comp) };
    let pat = format!("{}_pat", st);
    let header = header(u);
    let mut out = String::new();
    out.push_str(&format!("/* {}.c: generated by mpd from {} -- do not edit. */\n", comp, u.file_name));
    out.push_str("#include <stdlib.h>\n#include <mpd/abi/lang.h>\n#include <mpd/rt.h>\n#include <mpd/abi/ops.h>\n#include <mpd/abi/trace.h>\n#include <math.h>\n");
    out.push_str(&format!("static const char mpd_F[] = {};\n", lit::c_string(u.file_name.as_bytes())));
    for (n, h, _) in &u.imports {
        // an earlier spec-only compilation of this very component is replaced
        if *n != comp {
            out.push_str(h);
        }
    }
    out.push_str(&header);
    // a global has one instance per virtual machine: its own code reaches it
    // as `self`, an importer through the pointer its import stored in it
    if u.global {
        out.push_str(&format!("#define {} self\n", names::global_inst(comp)));
    }
    for (n, _, g) in &u.imports {
        if *n != comp && *g {
            out.push_str(&format!(
                "#define {} ((struct {} *)self->{})\n",
                names::global_inst(n),
                names::global_struct(n),
                names::global_field(n)
            ));
        }
    }
    out.push_str(u.protos);
    out.push_str(u.funcs);
    out.push_str(&proc_span_table(u.proc_spans));
    out.push_str(&format!(
        "static void {init}(mpd_res *self_, mpd_invb *args_) {{\n    struct {st} *self = (struct {st} *)self_;\n    {ops}\n    struct {st}_args *args = (struct {st}_args *)args_; (void)args;\n{decls}    mpd_tmp *_t = NULL, *_f = NULL; (void)_t; (void)_f;\n    {tbody}\n{body}{starts}    {tend}\n    mpd_tmp_free(&_t);\n}}\n",
        tbody = trace::event(u.trace_pos, "BODY", "0"),
        tend = trace::event(u.trace_pos, "ENDBODY", "0"),
        init = names::res_init(comp),
        ops = names::OPS_LOCAL,
        st = st,
        decls = op_inits(comp, &u.ops, &u.classes),
        body = u.init_body,
        starts = u.process_starts
    ));
    out.push_str(&format!(
        "static void {}_final(mpd_res *self_) {{\n    struct {st} *self = (struct {st} *)self_; (void)self;\n    {ops}\n{}}}\n",
        names::res_init(comp),
        u.final_body,
        st = st,
        ops = names::OPS_LOCAL
    ));
    out.push_str(&format!(
        "const mpd_respat {pat} = {{ \"{name}\", sizeof(struct {st}), {nops}, {flags}, {init}, {init}_final, {file} }};\n",
        pat = pat,
        name = comp,
        st = st,
        nops = u.nops,
        flags = format!("{}MPD_RES_SPEC_OPS({})", if u.global { "MPD_RES_GLOBAL | " } else { "" }, u.spec_nops),
        init = names::res_init(comp),
        file = lit::c_string(u.file_name.as_bytes())
    ));
    if !u.global {
        out.push_str(&format!(
            "void {}(void *arg) {{\n    (void)arg;\n    mpd_main_resource(&{}, NULL);\n}}\n",
            names::res_main(comp),
            pat
        ));
    }
    (out, header)
}

/// `mpd_F, <line>`: the position arguments of runtime calls.
pub fn pos(line: u32) -> String {
    format!("mpd_F, {}", line)
}

/// The C struct type of the component's instance.
pub fn self_type(global: bool, comp: &str) -> String {
    if global {
        format!("struct {}", names::global_struct(comp))
    } else {
        format!("struct {}", names::res_struct(comp))
    }
}

/// What a call passes as the instance of this component.
pub fn self_arg(global: bool, comp: &str) -> String {
    if global {
        names::global_inst(comp)
    } else {
        "self".into()
    }
}

/// A formal parameter as the C prototype sees it.
pub struct CParam<'a> {
    pub ty: &'a Ty,
    /// var, res and ref pass the actual's address.
    pub byref: bool,
}

/// The C prototype of a procedure: the instance, the caller's result pool,
/// the invocation block (when invoked through one), then parameter i as `p<i>`
/// (blobs by address; var/res/ref scalars by address).
pub fn proc_proto(self_type: &str, cname: &str, ret: &Ty, params: &[CParam]) -> String {
    let mut ps = vec![format!("{} *self", self_type), "mpd_tmp **_rt".to_string(), "mpd_invb **_ibp".to_string()];
    for (i, p) in params.iter().enumerate() {
        let t = if p.ty.is_blob() {
            "char *".to_string()
        } else if p.byref {
            format!("{} *", ctype(p.ty))
        } else {
            ctype(p.ty)
        };
        ps.push(format!("{} p{}", t, i));
    }
    let r = if ret.is_blob() { "char *".to_string() } else { ctype(ret) };
    format!("{} {}({})", r, cname, ps.join(", "))
}

/// The prototype of an `external` op: C types as a C library expects them
/// (strings as `char *`, files as `FILE *`, only `ref` scalars by address).
/// An asm label binds our own name to the C symbol, so a prototype that differs
/// from a system header's (printf, puts...) cannot conflict.
pub fn external_proto(cname: &str, c_symbol: &str, ret: &Ty, params: &[CParam]) -> String {
    let ps: Vec<String> = params
        .iter()
        .map(|p| {
            let base = match p.ty {
                Ty::Str(_) => "char *".to_string(),
                Ty::File => "FILE *".to_string(),
                t if t.is_blob() => "void *".to_string(),
                t => ctype(t),
            };
            if p.byref && !p.ty.is_blob() {
                format!("{} *", base)
            } else {
                base
            }
        })
        .collect();
    let r = if ret.is_blob() { "char *".to_string() } else { ctype(ret) };
    format!(
        "extern {} {}({}) __asm__(\"{}\");\n",
        r,
        cname,
        if ps.is_empty() { "void".into() } else { ps.join(", ") },
        c_symbol
    )
}

/// A procedure's invocation block, or none when called directly (for traces).
pub const PROC_INVB: &str = "(_ibp ? *_ibp : (mpd_invb *)0)";

/// The flags of an op implemented by a proc: called on the caller's stack
/// when it never replies early (direct), and without a hold when it cannot
/// switch (leaf).
pub fn proc_op_flags(direct: bool, leaf: bool) -> String {
    match (direct, leaf) {
        (true, true) => "MPD_OP_DIRECT | MPD_OP_LEAF".into(),
        (true, false) => "MPD_OP_DIRECT".into(),
        _ => String::new(),
    }
}

/// The final code's way out: trace ENDFINAL, free the pools, return.
pub fn final_return(endfinal: &str) -> String {
    format!("{} {} return;", endfinal, super::var::TEMPS_FREE)
}

/// A procedure's way out: copy var/res parameters back, free the pools, and
/// return the result `ret` (None: no result).
pub fn proc_return(copyback: &str, ret: Option<&str>) -> String {
    match ret {
        None => format!("{}{} return;", copyback, super::var::TEMPS_FREE),
        Some(c) => format!("{}{} return {};", copyback, super::var::TEMPS_FREE, c),
    }
}

/// Before `reply`: the result into the invoker's block `inv` (a struct of that
/// name); `size`: Some(n) for a blob of n bytes, None for a scalar.
pub fn reply_result(inv: &str, c: &str, size: Option<usize>) -> String {
    match size {
        Some(n) => format!("memcpy(((struct {} *)*_ibp)->ret, {}, {}); ", inv, c, n),
        None => format!("((struct {} *)*_ibp)->ret = {}; ", inv, c),
    }
}

/// A procedure's definition from its prototype and body.
pub fn function(proto: &str, body: &str) -> String {
    format!("{} {{\n{}}}\n", proto, body)
}

/// A prototype declaration line.
pub fn proto_line(proto: &str) -> String {
    format!("{};\n", proto)
}
