//! check: name resolution, types and constants over the AST, driving C generation.
//!
//! The checker walks each component once.  For every construct it resolves names in
//! nested scopes, computes types, folds constants, reports errors through
//! syntax::diag, and asks emit/ for the C that implements it (in the way Lua's
//! parser drives lcode.c).  A checked expression is a [`V`]: its C text, its type,
//! its form (scalar value, blob address or string view) and its constant value.
//! If any error is reported the C is discarded, so no C is produced from bad input.
pub mod types;
mod scope;
mod expr;
mod stmt;
mod decl;
mod builtin;
mod konst;

use crate::emit::{names, Code};
use crate::syntax::ast::{self, Span};
use crate::syntax::{Diagnostics, SourceMap};
use scope::{Scope, Sym};
use std::collections::HashMap;
use types::{Ty, Types};

pub use konst::KV;

/// How a checked expression's C text is to be read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// A C scalar (int, double, unsigned char, _Bool, pointer, mpd_cap).
    Scalar,
    /// A `char *` address of a blob (string, array, record).
    Blob,
    /// An `mpd_sv` string view.
    View,
}

/// A checked expression.
#[derive(Clone, Debug)]
pub struct V {
    pub c: String,
    pub ty: Ty,
    pub form: Form,
    pub k: Option<KV>,
    /// Designates a variable (may be assigned / passed by reference).
    pub lv: bool,
    /// For an assignable slice: (base blob, lo, hi) in C.
    pub slice: Option<(String, String, String)>,
}

impl V {
    pub fn err() -> V {
        V { c: "0".into(), ty: Ty::Error, form: Form::Scalar, k: None, lv: true, slice: None }
    }
    pub fn scalar(c: String, ty: Ty) -> V {
        V { c, ty, form: Form::Scalar, k: None, lv: false, slice: None }
    }
}

/// Options of a compilation that change the C produced.
#[derive(Clone, Debug, Default)]
pub struct Opts {
    /// -O: omit runtime checks where MPD allows.
    pub no_checks: bool,
    /// -F: no constant folding (we still fold what C needs to be constant).
    pub no_fold: bool,
    /// emit #line directives
    pub lines: bool,
}

/// One checked and generated component.
pub struct CompOut {
    pub name: String,
    pub global: bool,
    pub c: String,
}

/// The interface a component offers to importers, kept between components of one run.
#[derive(Clone, Default)]
pub struct Iface {
    pub syms: Vec<(String, Sym)>,
    pub global: bool,
    pub header: String,
}

/// The checker state for one component.
pub struct Checker<'a> {
    pub map: &'a SourceMap,
    pub diags: &'a mut Diagnostics,
    pub opts: Opts,
    pub types: Types,
    scopes: Vec<Scope>,
    comp: String,
    file_name: String,
    /// Which kind of component we are in.
    global: bool,
    /// The current function body.
    code: Code,
    /// Struct members of the component instance.
    fields: String,
    /// Type/prototype declarations, then function definitions.
    protos: String,
    funcs: String,
    /// Counter for fresh C names.
    fresh: u32,
    /// Nesting of loops in the current function (exit/next legality).
    loops: u32,
    /// Result handling of the current procedure.
    ret: Option<RetInfo>,
    /// Imported component interfaces by name.
    pub ifaces: &'a HashMap<String, Iface>,
    /// Symbols exported by this component (its spec), for importers.
    exports: Vec<(String, Sym)>,
    /// Body declarations are being collected into the component instance.
    at_top: bool,
    /// Globals whose init must run before this component's code.
    imported_globals: Vec<String>,
    /// The current statement allocated temporaries (`_t`).
    used_tmp: bool,
    /// C labels (exit, next) of the enclosing loops.
    loop_labels: Vec<(String, String)>,
    /// The body of the component's `final` block.
    final_body: Option<String>,
}

#[derive(Clone)]
struct RetInfo {
    /// C text returning from the function (e.g. `return v_r;`).
    stmt: String,
}

impl<'a> Checker<'a> {
    pub fn new(map: &'a SourceMap, diags: &'a mut Diagnostics, opts: Opts, ifaces: &'a HashMap<String, Iface>) -> Self {
        Checker {
            map,
            diags,
            opts,
            types: Types::default(),
            scopes: vec![Scope::default()],
            comp: String::new(),
            file_name: String::new(),
            global: false,
            code: Code::default(),
            fields: String::new(),
            protos: String::new(),
            funcs: String::new(),
            fresh: 0,
            loops: 0,
            ret: None,
            ifaces,
            exports: Vec::new(),
            at_top: false,
            imported_globals: Vec::new(),
            used_tmp: false,
            loop_labels: Vec::new(),
            final_body: None,
        }
    }

    // ---- diagnostics and positions -----------------------------------------

    pub fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    pub fn line(&self, span: Span) -> u32 {
        self.map.line_col(span.file, span.lo).0 as u32
    }

    /// `mpd_F, <line>`: the position arguments of runtime calls.
    pub fn pos(&self, span: Span) -> String {
        format!("mpd_F, {}", self.line(span))
    }

    pub fn tmp(&mut self) -> String {
        self.fresh += 1;
        format!("_m{}", self.fresh)
    }

    // ---- scopes ------------------------------------------------------------

    pub fn push(&mut self) {
        self.scopes.push(Scope::default());
    }
    pub fn pop(&mut self) {
        self.scopes.pop();
    }
    pub fn declare(&mut self, id: &ast::Ident, sym: Sym) {
        let top = self.scopes.last_mut().unwrap();
        if top.map.contains_key(&id.name) {
            self.diags.error(id.span, format!("`{}` is already declared in this scope", id.name));
            return;
        }
        top.map.insert(id.name.clone(), sym);
    }
    pub fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.map.get(name))
    }

    // ---- components ----------------------------------------------------------

    /// Checks one component and returns its C translation unit (None on errors).
    pub fn component(&mut self, c: &ast::Component, file_name: &str) -> Option<(CompOut, Iface)> {
        let errors_before = self.diags.error_count();
        self.comp = c.name.name.clone();
        self.file_name = file_name.to_string();
        self.global = c.kind == ast::ComponentKind::Global;
        self.code = Code::new(file_name, self.opts.lines);
        self.push();
        let self_c = if self.global {
            names::global_inst(&self.comp)
        } else {
            "(*self)".to_string()
        };
        let _ = self_c;
        // spec portion: exported declarations
        self.at_top = true;
        for s in &c.spec {
            self.stmt(s);
        }
        let spec_syms: Vec<(String, Sym)> =
            self.scopes.last().unwrap().map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        self.exports = spec_syms;
        let mut params_ok = true;
        if let Some(body) = &c.body {
            if body.separate {
                self.error(body.span, "separately compiled bodies are not supported yet");
                params_ok = false;
            }
            if let Some(ps) = &body.params {
                if !ps.is_empty() {
                    if self.global {
                        self.error(body.span, "a global has no parameters");
                    } else {
                        self.resource_params(ps);
                    }
                }
            }
            self.push();
            // procedures may be called before their text: declare them first
            for it in &body.items {
                if let ast::StmtKind::Decl(d) = &it.kind {
                    if let ast::DeclKind::Proc(p) = &d.kind {
                        self.predeclare_proc(p);
                    }
                }
            }
            for it in &body.items {
                self.stmt(it);
            }
            self.pop();
        }
        let _ = params_ok;
        self.pop();
        self.at_top = false;
        if self.diags.error_count() > errors_before {
            return None;
        }
        let c_text = self.finish_component();
        let iface = Iface { syms: self.exports.clone(), global: self.global, header: String::new() };
        Some((CompOut { name: self.comp.clone(), global: self.global, c: c_text }, iface))
    }

    fn resource_params(&mut self, ps: &[ast::Param]) {
        // The main resource has no parameters; others get theirs from `create`
        // (next issue).  Declare them as fields so the body type-checks.
        for p in ps {
            let ty = self.ty(&p.ty);
            for n in &p.names {
                let ty = self.with_dims(&ty, &n.dims, true);
                let c = self.field_decl(&n.name.name, &ty);
                self.declare(&n.name, Sym::Var { c, ty, assignable: true });
            }
        }
    }

    /// Adds a member to the component instance; returns how code reaches it.
    pub fn field_decl(&mut self, name: &str, ty: &Ty) -> String {
        let cn = format!("{}_{}", names::var(name), self.fresh);
        self.fresh += 1;
        let ctype = if ty.is_blob() { "char *".to_string() } else { self.ctype(ty) };
        self.fields.push_str(&format!("    {} {};\n", ctype, cn));
        if self.global {
            format!("{}.{}", names::global_inst(&self.comp), cn)
        } else {
            format!("self->{}", cn)
        }
    }

    /// The C type of a scalar MPD type.
    pub fn ctype(&self, t: &Ty) -> String {
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

    fn finish_component(&mut self) -> String {
        let comp = self.comp.clone();
        let init_body = self.code.take();
        let mut out = String::new();
        out.push_str(&format!("/* {}.c: generated by mpd from {} — do not edit. */\n", comp, self.file_name));
        out.push_str("#include <mpd/lang.h>\n#include <mpd/rt.h>\n#include <mpd/ops.h>\n#include <math.h>\n");
        out.push_str(&format!("static const char mpd_F[] = {};\n", crate::emit::lit::c_string(self.file_name.as_bytes())));
        let st = if self.global { names::global_struct(&comp) } else { names::res_struct(&comp) };
        out.push_str(&format!("struct {} {{\n    int mpd_unused;\n{}}};\n", st, self.fields));
        if self.global {
            out.push_str(&format!("struct {} {};\n", st, names::global_inst(&comp)));
        }
        out.push_str(&self.protos);
        out.push_str(&self.funcs);
        let imports: String =
            self.imported_globals.iter().map(|g| format!("    {}();\n", names::global_init(g))).collect();
        if self.global {
            out.push_str(&format!(
                "void {}(void) {{\n    static int done;\n    if (done) return;\n    done = 1;\n{}    mpd_tmp *_t = NULL, *_f = NULL; (void)_t; (void)_f;\n{}    mpd_tmp_free(&_t);\n}}\n",
                names::global_init(&comp),
                imports,
                init_body
            ));
        } else {
            out.push_str(&format!(
                "static void {}(struct {} *self) {{\n    mpd_tmp *_t = NULL, *_f = NULL; (void)_t; (void)_f;\n{}    mpd_tmp_free(&_t);\n}}\n",
                names::res_init(&comp),
                st,
                init_body
            ));
            let fin = self.final_body.take().unwrap_or_default();
            out.push_str(&format!("static void {}_final(struct {} *self) {{\n    (void)self;\n{}}}\n", names::res_init(&comp), st, fin));
            out.push_str(&format!(
                "void {}(void *arg) {{\n    (void)arg;\n{}    struct {} *self = mpd_blob_new(sizeof(struct {}));\n    {}(self);\n    {}_final(self);\n}}\n",
                names::res_main(&comp),
                imports,
                st,
                st,
                names::res_init(&comp),
                names::res_init(&comp)
            ));
        }
        out
    }
}

/// Checks and translates every component of the given files.  `ifaces` holds the
/// interfaces of components compiled earlier (from MPDinter); new ones are added.
pub fn check_files(
    map: &SourceMap,
    files: &[(ast::SourceFile, String)],
    diags: &mut Diagnostics,
    opts: &Opts,
    ifaces: &mut HashMap<String, Iface>,
    types: &mut Types,
) -> Vec<CompOut> {
    let mut outs = Vec::new();
    for (f, name) in files {
        for c in &f.components {
            let snapshot = ifaces.clone();
            let mut ck = Checker::new(map, diags, opts.clone(), &snapshot);
            // one type table for the whole run: imported types keep their identity
            ck.types = std::mem::take(types);
            let r = ck.component(c, name);
            *types = std::mem::take(&mut ck.types);
            if let Some((out, iface)) = r {
                ifaces.insert(out.name.clone(), iface);
                outs.push(out);
            }
        }
    }
    outs
}
