//! index: checking and translating subscripts, slices and sections of arrays
//! and strings.
use super::konst::KV;
use super::types::Ty;
use super::{Checker, Form, V};
use crate::emit::data as ed;
use crate::syntax::ast::{self, Span, Subscript};

impl<'a> Checker<'a> {
    pub(super) fn index(&mut self, mut b: V, subs: &[Subscript], span: Span) -> V {
        // an array carries its index types in its type (a declaration's,
        // a type name's, a formal's, a record field's, what a subscript or
        // slice leaves)
        let ixty = b.ty.index_types();
        // a list with a slice takes at most one subscript per dimension (a
        // string has one): `s[1:2, 3]` is not a slice of a slice
        if subs.iter().any(|s| matches!(s, Subscript::Slice { .. })) {
            let rank = slice_rank(&b.ty);
            if rank > 0 && subs.len() > rank {
                self.error(
                    span,
                    format!("too many subscripts (a {} takes {} in a slice)", self.types.show(&b.ty), rank),
                );
                return V::err();
            }
        }
        for (k, s) in subs.iter().enumerate() {
            if matches!(s, Subscript::Slice { .. }) && k + 1 < subs.len() && matches!(b.ty, Ty::Arr(..)) {
                let rest = ixty.get(k..).unwrap_or_default().to_vec();
                return self.section(b, &subs[k..], span, &rest);
            }
            b = self.auto_deref_arr(b);
            b = match s {
                Subscript::Index(ie) => {
                    let i = self.expr(ie);
                    let i = self.ordinal_value(i, ie.span, "wrong subscript type");
                    if let (Some(want), Ty::Arr(..)) = (ixty.get(k), &b.ty) {
                        self.check_subscript_type(want, &i.ty, ie.span);
                    }
                    self.subscript(b, i, ie.span)
                }
                Subscript::Slice { lo, hi, span: ssp } => {
                    let want = if matches!(b.ty, Ty::Arr(..)) { ixty.get(k).cloned() } else { Some(Ty::Int) };
                    self.slice_bound_types(lo.as_ref(), hi, want.as_ref());
                    self.slice(b, lo.as_ref(), hi, *ssp)
                }
            };
        }
        // what is left keeps its index types in its type: a[i][j] and
        // r.a[i] are checked as a[i, j] is; a slice is indexed from 1 by int,
        // whatever its array's index type (MPD 1.0.1)
        let _ = span;
        b
    }

    /// A section like `a[*, 2]`: a range followed by more subscripts; `ixty`:
    /// the index types of the dimensions from the first one subscripted.
    pub(super) fn section(&mut self, b: V, subs: &[Subscript], span: Span, ixty: &[Ty]) -> V {
        let mut parts = Vec::new();
        let mut ty = b.ty.clone();
        let mut shape: Vec<bool> = Vec::new();
        for (k, s) in subs.iter().enumerate() {
            let want = ixty.get(k);
            let elem = match &ty {
                Ty::Arr(e, _, _, _) => (**e).clone(),
                Ty::Error => return V::err(),
                _ => {
                    self.error(span, format!("too many subscripts for a {}", self.types.show(&b.ty)));
                    return V::err();
                }
            };
            match s {
                Subscript::Index(ie) => {
                    let i = self.expr(ie);
                    let i = self.ordinal_value(i, ie.span, "wrong subscript type");
                    if let Some(want) = want {
                        self.check_subscript_type(want, &i.ty, ie.span);
                    }
                    parts.push(ed::section_index(&i.c));
                    shape.push(false);
                }
                Subscript::Slice { lo, hi, .. } => {
                    self.slice_bound_types(lo.as_ref(), hi, want);
                    let l = lo.as_ref().and_then(|l| self.bound_c(l)).unwrap_or_else(|| ed::SECTION_LO.into());
                    let h = self.bound_c(hi).unwrap_or_else(|| ed::SECTION_HI.into());
                    parts.push(ed::section_range(&l, &h));
                    shape.push(true);
                }
            }
            ty = elem;
        }
        for sl in shape.iter().rev() {
            if *sl {
                ty = Ty::arr(ty, None, None);
            }
        }
        let subs_c = ed::section_subs(&parts);
        let p = self.pos(span);
        let t = self.t();
        let v = V { c: ed::arr_section(&p, t, &b.c, &subs_c), ty, form: Form::Blob, k: None, lv: false, slice: None };
        let v = v.with_slice_of(b.c.clone(), "#sec".into(), subs_c, b.lv);
        v
    }

    /// A subscript of type `got` where the dimension is indexed by `want`.
    fn check_subscript_type(&mut self, want: &Ty, got: &Ty, span: Span) {
        if !self.types.same(want, got) {
            self.error(
                span,
                format!(
                    "wrong subscript type: this array is indexed by {}, not {}",
                    self.types.show(want),
                    self.types.show(got)
                ),
            );
        }
    }

    pub(super) fn auto_deref_arr(&mut self, b: V) -> V {
        b
    }

    pub(super) fn subscript(&mut self, b: V, i: V, span: Span) -> V {
        let p = self.pos(span);
        match &b.ty {
            Ty::Arr(e, _, _, _) => {
                let e = (**e).clone();
                let addr = ed::arr_elem(&p, &b.c, &i.c, self.opts.no_checks);
                if e.is_blob() {
                    V { c: addr, ty: e, form: Form::Blob, k: None, lv: b.lv, slice: None }
                } else {
                    let ct = self.ctype(&e);
                    V { c: ed::at(&ct, &addr), ty: e, form: Form::Scalar, k: None, lv: b.lv, slice: None }
                }
            }
            Ty::Str(_) => {
                if let (Some(KV::Str(s)), Some(KV::Int(n))) = (&b.k, &i.k) {
                    if *n >= 1 && (*n as usize) <= s.len() {
                        return self.konst(KV::Char(s[*n as usize - 1]), Ty::Char);
                    }
                }
                match b.form {
                    Form::Blob if b.lv => V {
                        c: ed::str_at(&p, &b.c, &i.c),
                        ty: Ty::Char,
                        form: Form::Scalar,
                        k: None,
                        lv: true,
                        slice: None,
                    },
                    Form::Blob => V::scalar(ed::str_get(&p, &b.c, &i.c), Ty::Char),
                    _ => {
                        let t = self.t();
                        V::scalar(ed::str_get_view(&p, t, &b.c, &i.c), Ty::Char)
                    }
                }
            }
            Ty::Error => V::err(),
            _ => {
                self.error(span, format!("subscripted object is not an array ({})", self.types.show(&b.ty)));
                V::err()
            }
        }
    }

    pub(super) fn bound_c(&mut self, b: &ast::Bound) -> Option<String> {
        match b {
            ast::Bound::Star(_) => None,
            ast::Bound::Expr(e) => {
                let v = self.expr(e);
                let v = self.ordinal_value(v, e.span, "wrong subscript type (incompatible slice indices)");
                Some(v.c)
            }
        }
    }

    /// The bounds of a slice have one type, that of the dimension's index
    /// (`want`, when known): MPD 1.0.1's "incompatible slice indices" and
    /// "wrong subscript type".  Non-ordinal bounds are bound_c's.
    pub(super) fn slice_bound_types(&mut self, lo: Option<&ast::Bound>, hi: &ast::Bound, want: Option<&Ty>) {
        let ty_of = |c: &mut Self, b: Option<&ast::Bound>| match b {
            Some(ast::Bound::Expr(e)) => Some((c.type_of(e), e.span)),
            _ => None,
        };
        let (l, h) = (ty_of(self, lo), ty_of(self, Some(hi)));
        if let (Some((x, _)), Some((y, sp))) = (&l, &h) {
            if x.is_ordinal() && y.is_ordinal() && !self.types.same(x, y) {
                self.error(
                    *sp,
                    format!("incompatible slice indices (a {} and a {})", self.types.show(x), self.types.show(y)),
                );
                return;
            }
        }
        if let Some(want) = want {
            for (t, sp) in [l, h].into_iter().flatten() {
                if t.is_ordinal() && !self.types.same(want, &t) {
                    self.error(
                        sp,
                        format!(
                            "wrong subscript type: this dimension is indexed by {}, not {}",
                            self.types.show(want),
                            self.types.show(&t)
                        ),
                    );
                    return;
                }
            }
        }
    }

    pub(super) fn slice(&mut self, b: V, lo: Option<&ast::Bound>, hi: &ast::Bound, span: Span) -> V {
        let p = self.pos(span);
        let loc = lo.and_then(|l| self.bound_c(l));
        let hic = self.bound_c(hi);
        match &b.ty {
            Ty::Arr(e, _, _, _) => {
                let lo = loc.unwrap_or_else(|| ed::arr_lb(&b.c));
                let hi = hic.unwrap_or_else(|| ed::arr_ub(&b.c));
                let t = self.t();
                V {
                    c: ed::arr_slice(&p, t, &b.c, &lo, &hi),
                    ty: Ty::arr((**e).clone(), None, None),
                    form: Form::Blob,
                    k: None,
                    lv: false,
                    slice: None,
                }
                .with_slice_of(b.c.clone(), lo, hi, b.lv)
            }
            Ty::Str(_) => {
                let sv = self.sv(&b);
                // a computed view (a slice, a `||`) is named once: its C
                // written twice doubled the C at each nested slice
                let bound = (b.form != Form::Blob).then(|| (self.tmp(), sv.clone()));
                let sv = bound.as_ref().map_or(sv, |(t, _)| t.clone());
                let max = if b.form == Form::Blob { ed::str_max(&b.c) } else { ed::sv_len(&sv) };
                let lo = loc.unwrap_or_else(|| "1".into());
                let hi = hic.unwrap_or_else(|| ed::sv_len(&sv));
                let c = ed::str_slice(&p, &sv, &max, &lo, &hi);
                V {
                    c: match bound {
                        Some(t) => crate::emit::expr::sequenced(&[t], &c),
                        None => c,
                    },
                    ty: Ty::Str(None),
                    form: Form::View,
                    k: None,
                    lv: false,
                    slice: None,
                }
                .with_slice_of(b.c.clone(), lo, hi, b.lv && b.form == Form::Blob)
            }
            Ty::Error => V::err(),
            _ => {
                self.error(
                    span,
                    format!("subscripted object is not an array (cannot slice a {})", self.types.show(&b.ty)),
                );
                V::err()
            }
        }
    }
}

impl V {
    /// Remembers that this value is the slice base[lo:hi] so it can be assigned to.
    pub(super) fn with_slice_of(mut self, base: String, lo: String, hi: String, lv: bool) -> V {
        if lv {
            self.lv = true;
            self.slice = Some((base, lo, hi));
        }
        self
    }
}

/// How many subscripts a slice of a value of type `t` may have: one per
/// array dimension, one for a string (0: not sliceable).
pub(super) fn slice_rank(t: &Ty) -> usize {
    match t {
        Ty::Arr(e, ..) => {
            1 + match &**e {
                Ty::Arr(..) => slice_rank(e),
                _ => 0,
            }
        }
        Ty::Str(_) => 1,
        Ty::Ptr(t) => slice_rank(t),
        _ => 0,
    }
}
