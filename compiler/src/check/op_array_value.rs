//! op_array_value: an op or sem array named whole where a value is wanted.
//! MPD 1.0.1 takes it as an array of capabilities with the op array's bounds
//! (`cap (int) c[3]; c = a`, `cap (int) d[3] = a`, an actual for a
//! `cap (int) c[3]` parameter); it is not one capability, so comparing it with
//! `noop` or storing it in a scalar capability stays an error.
use super::scope::{OpRef, ProcSig};
use super::types::{CapTy, Ty, ARR_HDR};
use super::{Checker, Form, V};
use crate::emit::{component::ctype, ops as eops, var};

impl<'a> Checker<'a> {
    /// The type of op array `sig` as a value: its element capability in one
    /// array level per dimension, bounds known where the op's are constants.
    pub(super) fn op_array_value_type(&mut self, sig: &ProcSig) -> Ty {
        let r = sig.op.as_ref().unwrap();
        let cap = if r.sem { Ty::Cap(CapTy::Sem) } else { Ty::Cap(CapTy::Op(self.sig_index(sig))) };
        r.dims.iter().enumerate().rev().fold(cap, |e, (i, (lo, n))| {
            let lo = lo.trim().parse::<i64>().ok();
            let hi = lo.zip(n.trim().parse::<i64>().ok()).map(|(l, n)| l + n - 1);
            let ix = r.ixty.get(i).cloned().unwrap_or(Ty::Int);
            Ty::Arr(Box::new(e), lo, hi, Box::new(ix))
        })
    }

    /// The value: a fresh array in the statement's pool, element k (row-major,
    /// as op subscripts flatten) the capability of the array's op k; `elem`
    /// gives that capability from k's C expression.
    pub(super) fn op_array_value(&mut self, sig: &ProcSig, elem: &dyn Fn(&mut Self, &OpRef, &str) -> String) -> V {
        let r = sig.op.clone().unwrap();
        let ty = self.op_array_value_type(sig);
        let dims: Vec<(String, String)> =
            r.dims.iter().map(|(lo, n)| (lo.clone(), format!("({}) + ({}) - 1", lo, n))).collect();
        let size = self.size_c(&ty, &dims, &None);
        let (a, k) = (self.tmp(), self.tmp());
        let t = self.t();
        self.f.code.put(&var::tmp_blob(&a, t, &size));
        self.init_blob(&a, &ty, &dims, &None);
        self.f.code.put(&var::local_int(&k, "0"));
        self.fill_caps(&a, &ty, &dims, &r, &k, elem);
        V { c: a, ty, form: Form::Blob, k: None, lv: false, slice: None }
    }

    /// One loop per array level over the blob at `addr`; the innermost stores
    /// capability `k` and counts it.
    fn fill_caps(
        &mut self,
        addr: &str,
        ty: &Ty,
        dims: &[(String, String)],
        r: &OpRef,
        k: &str,
        elem: &dyn Fn(&mut Self, &OpRef, &str) -> String,
    ) {
        let Ty::Arr(e, ..) = ty else {
            let cap = elem(self, r, k);
            self.f.code.put(&var::store(&format!("*({} *){}", ctype(ty), addr), &cap));
            self.f.code.put(&format!("{}++;", k));
            return;
        };
        let (lo, hi) = dims[0].clone();
        let es = self.size_c(e, &dims[1..], &None);
        let i = self.tmp();
        self.f.code.open(&var::elem_loop(&i, &lo, &hi));
        let at = var::elem_addr(addr, ARR_HDR, &i, &es);
        self.fill_caps(&at, e, &dims[1..], r, k, elem);
        self.f.code.close_block();
    }

    /// Element `k` of an op array named in this scope (`a`, `g.a`).
    pub(super) fn named_op_elem_cap(&mut self, r: &OpRef, k: &str) -> String {
        let op = self.op_ptr(r, &eops::op_elem(r.idx, k));
        eops::cap_of_op(&op)
    }
}
