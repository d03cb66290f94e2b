//! process: `process p[quantifiers]` -- an op implemented by a process
//! started once per quantifier value when the initial code reaches it --
//! and the procfn wrapper through which an invocation block reaches a proc.
use super::ops::OpEntry;
use super::scope::{OpRef, PSig, ProcSig, Sym};
use super::types::Ty;
use super::Checker;
use crate::emit::ops as eops;
use crate::syntax::ast::{self, ParamMode};
use std::rc::Rc;

impl<'a> Checker<'a> {
    /// `process p[quantifiers] { body }`: a proc run once per quantifier value,
    /// started when the initial code ends.
    pub fn process_decl(&mut self, p: &ast::ProcDecl) {
        let idx = self.out.nops;
        self.out.nops += 1;
        let fname = eops::process_fn(&self.comp, &p.name.name);
        let inv = eops::inv_name(&self.comp, &p.name.name);
        // a process is an op taking its quantifier variables: `send p(v)`
        // starts another instance.  Its parameters are ints whatever the
        // quantifier ranges over, as in MPD 1.0.1: `process p[c = 'a' to 'b']`
        // sees c as 97 and 98 in its body (a real quantifier is truncated);
        // the `st` condition still sees the quantifier's own type
        let params: Vec<PSig> =
            p.quants.iter().map(|q| PSig { mode: ParamMode::Default, ty: Ty::Int, name: q.var.name.clone() }).collect();
        self.inv_struct(&inv, &params, &Ty::Void, p.name.span);
        let sig = ProcSig {
            name: p.name.name.clone(),
            cname: fname.clone(),
            params: params.clone(),
            ret: Ty::Void,
            ret_name: None,
            selfc: self.self_arg(),
            external: false,
            op: Some(OpRef {
                global_owner: self.global,
                no_call: true,
                ..OpRef::scalar(self.comp.clone(), idx, inv.clone())
            }),
        };
        self.declare(&p.name, Sym::Proc(Rc::new(sig)));
        self.names_changed();
        self.out.ops.push(OpEntry {
            name: p.name.name.clone(),
            idx,
            n: 1,
            procfn: Some(fname.clone()),
            sem: false,
            flags: eops::PROCESS_FLAGS.into(),
        });
        // start code (runs at the end of the initial code)
        let saved = std::mem::replace(&mut self.f.code, crate::emit::Code::new(&self.file_name, self.opts.lines));
        self.f.code.indent = 1;
        self.push();
        let b = self.tmp();
        let mut opened = 0;
        let mut qvars = Vec::new();
        for q in &p.quants {
            let super::quant::Quant { ty, real, start, end, step } = self.quant(q);
            let v = eops::quant_var(&q.var.name, self.fresh);
            self.fresh += 1;
            // downto's default step is -1 (quant.rs)
            self.f.code.open(&eops::process_quant_loop(&v, real, q.downto, &start.c, &end.c, &step));
            opened += 1;
            let ct = self.ctype(&ty);
            self.f.code.put(&eops::process_quant_var(&ct, &v));
            self.declare(&q.var, Sym::Var { c: v.clone(), ty, assignable: false });
            if let Some(stc) = &q.st {
                let c = self.quant_st(stc);
                self.f.code.open(&eops::process_quant_st(&c));
                opened += 1;
            }
            qvars.push(v);
        }
        self.f.code.put(&eops::process_block(&inv, &b));
        for (i, v) in qvars.iter().enumerate() {
            self.f.code.put(&eops::process_block_param(&b, i, v));
        }
        let pos = self.pos(p.name.span);
        self.f.code.put(&eops::process_start(&pos, idx, &b));
        for _ in 0..opened {
            self.f.code.close_block();
        }
        self.pop();
        let start = std::mem::replace(&mut self.f.code, saved).take();
        // MPD starts a process when initial code reaches its declaration
        self.f.code.out.push_str(&start);
        // the process body
        let saved = std::mem::replace(&mut self.f.code, crate::emit::Code::new(&self.file_name, self.opts.lines));
        let saved_top = self.at_top;
        let saved_loops = std::mem::take(&mut self.f.loop_labels);
        self.at_top = false;
        self.push();
        self.f.code.line(self.line(p.name.span));
        for line in eops::process_prologue(&inv, &self.self_type()) {
            self.f.code.put(&line);
        }
        for (i, ps) in params.iter().enumerate() {
            self.declare(
                &p.quants[i].var,
                // each process's own copy of its quantifier value: MPD
                // 1.0.1 lets the body assign it
                Sym::Var { c: eops::process_param(i), ty: ps.ty.clone(), assignable: true },
            );
        }
        // tracing: a process is traced as a proc (after the SEND that
        // started it), by a traced copy chosen when its op is declared
        let tpos = self.pos(p.name.span);
        let ret = eops::PROCESS_RETURN.to_string();
        let saved_ret = self.f.ret.replace(super::RetInfo { stmt: ret.clone() });
        let saved_kind = std::mem::replace(&mut self.f.kind, super::FnKind::Process);
        self.block_stmts(&p.body.stmts);
        self.f.kind = saved_kind;
        self.local_ops_end_all();
        self.f.code.put(&ret);
        self.f.ret = saved_ret;
        self.pop();
        self.at_top = saved_top;
        self.f.loop_labels = saved_loops;
        let body = std::mem::replace(&mut self.f.code, saved).take();
        self.out.protos.push_str(&eops::process_proto(&fname));
        let (plain, traced) = eops::process_defs(&fname, &body, &tpos, &format!("{}.{}", self.comp, p.name.name));
        self.out.funcs.push_str(&plain);
        self.out.funcs.push_str(&traced);
    }

    /// The procfn wrapper of a proc: unpacks its block and calls the C function.
    pub fn proc_wrapper(&mut self, sig: &ProcSig, pos: &str) -> String {
        let r = sig.op.clone().unwrap();
        let w = eops::wrapper_fn(&sig.cname);
        let mut args = eops::wrapper_head_args(&self.self_type());
        for (i, p) in sig.params.iter().enumerate() {
            let byref = !matches!(p.mode, ParamMode::Default | ParamMode::Val);
            if p.mode == ParamMode::Ref {
                args.push(eops::wrapper_ref_arg(i));
            } else if p.ty.is_blob() || !byref {
                args.push(self.blk_param(eops::WRAPPER_IB, i, &p.ty));
            } else {
                args.push(eops::wrapper_var_arg(i));
            }
        }
        let ret = if sig.ret == Ty::Void {
            eops::WrapRet::Void
        } else if sig.ret.is_blob() {
            eops::WrapRet::Blob(self.types.size_of(&sig.ret).unwrap_or(16))
        } else {
            eops::WrapRet::Scalar
        };
        let call = eops::wrapper_call(&sig.cname, &args, ret);
        let (traced, plain) = eops::wrapper_defs(&w, pos, &self.comp, &sig.name, &r.inv, &call);
        self.out.funcs.push_str(&traced);
        self.out.funcs.push_str(&plain);
        w
    }
}
