//! types: MPD types as the checker and emitter see them, with their C layout.
//!
//! Scalars are C scalars; strings, arrays and records are blobs (see mpd/abi/lang.h):
//! a string[n] is {len,max,chars}, an array is {lb,ub,esize,pad} then elements
//! (a k-dimensional array is an array of (k-1)-dimensional arrays), a record
//! has its fields at offsets fixed here.

/// A type.  `Arr` bounds and `Str` lengths are `Some` when known at compile time.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// The type of an erroneous expression; compatible with everything so one
    /// error is not reported many times.
    Error,
    /// No value (procedures without `returns`).
    Void,
    Bool,
    Int,
    Char,
    Real,
    File,
    Str(Option<i64>),
    Enum(usize),
    Rec(usize),
    Ptr(Box<Ty>),
    PtrAny,
    /// The type of `null` before it meets a pointer, file or capability.
    Null,
    /// An array: element, static lower and upper bounds, and the type of its
    /// index (int, char, bool or an enumeration: a subscript must have it,
    /// MPD's "wrong subscript type", wherever the array is reached from).
    Arr(Box<Ty>, Option<i64>, Option<i64>, Box<Ty>),
    /// Capability: to a resource, an operation (by signature index) or a sem.
    Cap(CapTy),
    /// A type named before its declaration (only behind `ptr`); resolved by name
    /// where the pointer is dereferenced.
    Fwd(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum CapTy {
    Resource(String),
    Op(usize),
    Sem,
    Vm,
}

/// A record type (`union` is parsed as `rec`, as MPD 1.0.1 does).
#[derive(Clone, Debug)]
pub struct RecInfo {
    pub name: String,
    pub fields: Vec<(String, Ty, usize)>,
    pub size: usize,
}

#[derive(Clone, Debug)]
pub struct EnumInfo {
    pub name: String,
    pub lits: Vec<String>,
}

/// The type tables of one compilation.
#[derive(Clone, Debug, Default)]
pub struct Types {
    pub recs: Vec<RecInfo>,
    pub enums: Vec<EnumInfo>,
    /// operation signatures (capabilities to ops name one of these)
    pub sigs: Vec<SigInfo>,
    /// Nesting of signature comparisons (an op's parameter may be a
    /// capability to an op of its own kind): deep ones are taken as equal.
    pub cmp_depth: std::cell::Cell<u32>,
    /// The signatures of each resource's spec ops, in declaration order:
    /// resource capabilities are compatible when these are (MPD 1.0.1).
    pub res_ops: std::collections::HashMap<String, Vec<usize>>,
}

/// An operation signature and the C struct of its invocation block.
#[derive(Clone, Debug)]
pub struct SigInfo {
    pub params: Vec<super::scope::PSig>,
    pub ret: Ty,
    pub inv: String,
    /// `{call}` (cannot be sent to) and `{send}` (cannot be called): part
    /// of the signature, so capabilities of different restrictions differ
    pub no_send: bool,
    pub no_call: bool,
}

pub fn align(n: usize, a: usize) -> usize {
    (n + a - 1) / a * a
}

/// Size in bytes of the C header of a string blob / array blob.
pub const STR_HDR: usize = 8;
pub const ARR_HDR: usize = 16;

impl Ty {
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Ty::Str(_) | Ty::Arr(..) | Ty::Rec(_))
    }
    pub fn is_blob(&self) -> bool {
        !self.is_scalar()
    }
    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Real | Ty::Error)
    }
    /// Ordered types: usable in <, ++, for-loops, as subscripts (int, char, enum, bool).
    pub fn is_ordinal(&self) -> bool {
        matches!(self, Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Bool | Ty::Error)
    }
    pub fn is_string(&self) -> bool {
        matches!(self, Ty::Str(_))
    }
    pub fn is_char_array(&self) -> bool {
        matches!(self, Ty::Arr(e, ..) if **e == Ty::Char)
    }
    /// An int-indexed array (slices, constructors and other values MPD
    /// indexes from 1).
    pub fn arr(e: Ty, lo: Option<i64>, hi: Option<i64>) -> Ty {
        Ty::Arr(Box::new(e), lo, hi, Box::new(Ty::Int))
    }
    /// The index types of the dimensions of an array type, outermost first
    /// (empty for anything else).
    pub fn index_types(&self) -> Vec<Ty> {
        let mut out = Vec::new();
        let mut t = self;
        while let Ty::Arr(e, _, _, ix) = t {
            out.push((**ix).clone());
            t = e;
        }
        out
    }
    pub fn elem(&self) -> Option<&Ty> {
        match self {
            Ty::Arr(e, ..) => Some(e),
            _ => None,
        }
    }
}

impl Types {
    /// C alignment of a value of this type inside a blob.
    pub fn align_of(&self, t: &Ty) -> usize {
        match t {
            Ty::Bool | Ty::Char => 1,
            Ty::Int | Ty::Enum(_) => 4,
            Ty::Cap(_) => 8,
            Ty::Real | Ty::Ptr(_) | Ty::PtrAny | Ty::File | Ty::Null => 8,
            _ => 16,
        }
    }

    /// Size in bytes when known at compile time.
    pub fn size_of(&self, t: &Ty) -> Option<usize> {
        Some(match t {
            Ty::Bool | Ty::Char => 1,
            Ty::Int | Ty::Enum(_) => 4,
            Ty::Real | Ty::Ptr(_) | Ty::PtrAny | Ty::File | Ty::Null => 8,
            Ty::Cap(_) => 16,
            Ty::Str(Some(n)) => align(STR_HDR + *n as usize + 1, 16),
            Ty::Arr(e, Some(lo), Some(hi), _) => {
                let n = if hi >= lo { (hi - lo + 1) as usize } else { 0 };
                align(ARR_HDR + n * self.size_of(e)?, 16)
            }
            Ty::Rec(i) => self.recs[*i].size,
            _ => return None,
        })
    }

    /// Lays out a record from its fields; None when a field has no static size.
    pub fn layout(&self, fields: &[(String, Ty)]) -> Option<(Vec<(String, Ty, usize)>, usize)> {
        let mut off = 0usize;
        let mut out = Vec::new();
        for (n, t) in fields {
            let sz = self.size_of(t)?;
            off = align(off, self.align_of(t));
            out.push((n.clone(), t.clone(), off));
            off += sz;
        }
        Some((out, align(off.max(1), 16)))
    }

    /// Whether a value of type `from` may be assigned to a variable of type `to`.
    pub fn assignable(&self, to: &Ty, from: &Ty) -> bool {
        match (to, from) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Real, Ty::Real) => true,
            (Ty::Str(_), Ty::Str(_)) => true,
            (Ty::Ptr(_), Ty::Null) | (Ty::PtrAny, Ty::Null) | (Ty::File, Ty::Null) | (Ty::Cap(_), Ty::Null) => true,
            (Ty::PtrAny, Ty::Ptr(_)) | (Ty::Ptr(_), Ty::PtrAny) => true,
            (Ty::Ptr(a), Ty::Ptr(b)) => self.same(a, b),
            (Ty::Arr(a, ..), Ty::Arr(b, ..)) => self.assignable(a, b) && self.same_shape(a, b),
            (Ty::Cap(a), Ty::Cap(b)) => self.cap_compat(a, b),
            _ => self.same(to, from),
        }
    }

    fn same_shape(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::Str(_), Ty::Str(_)) => true,
            (Ty::Arr(x, ..), Ty::Arr(y, ..)) => self.same_shape(x, y),
            _ => a.is_scalar() == b.is_scalar() && self.same(a, b),
        }
    }

    /// Structural equality, ignoring array bounds and string lengths.
    pub fn same(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Fwd(_), _) | (_, Ty::Fwd(_)) => true,
            (Ty::Str(_), Ty::Str(_)) => true,
            (Ty::Arr(x, ..), Ty::Arr(y, ..)) => self.same(x, y),
            (Ty::Ptr(x), Ty::Ptr(y)) => self.same(x, y),
            // records match by structure, as in MPD 1.0.1 (field names
            // aside): their fields exactly, string lengths and array bounds
            // included (one record is copied over the other, so the layouts
            // must agree); records that point to themselves are compared to
            // a few levels (they overflowed the compiler's stack)
            (Ty::Rec(x), Ty::Rec(y)) => {
                x == y || self.cmp_depth.get() > 8 || {
                    let (p, q) = (&self.recs[*x], &self.recs[*y]);
                    self.cmp_depth.set(self.cmp_depth.get() + 1);
                    let r = p.fields.len() == q.fields.len()
                        && p.fields.iter().zip(&q.fields).all(|(f, g)| self.same_exact(&f.1, &g.1));
                    self.cmp_depth.set(self.cmp_depth.get() - 1);
                    r
                }
            }
            // enumerations match when they have as many literals (MPD 1.0.1)
            (Ty::Enum(x), Ty::Enum(y)) => self.enums[*x].lits.len() == self.enums[*y].lits.len(),
            (Ty::Cap(x), Ty::Cap(y)) => self.cap_compat(x, y),
            _ => a == b,
        }
    }

    /// Capabilities are compatible when they designate the same kind of
    /// thing: a resource of the same name, or operations of the same
    /// signature (parameter kinds and types, result); a semaphore is an op
    /// `() {send}`.  An op capability given another
    /// signature would invoke the op with a block of the wrong layout.
    pub fn cap_compat(&self, a: &CapTy, b: &CapTy) -> bool {
        match (a, b) {
            // resources: MPD compares their specs' ops, in order and
            // exactly (an extended resource's cap does not fit its base's);
            // a resource compiled in another run is taken on trust
            (CapTy::Resource(x), CapTy::Resource(y)) => {
                if x == y {
                    return true;
                }
                match (self.res_ops.get(x), self.res_ops.get(y)) {
                    (Some(a), Some(b)) => {
                        a.len() == b.len()
                            && a.iter().zip(b).all(|(p, q)| self.cap_compat(&CapTy::Op(*p), &CapTy::Op(*q)))
                    }
                    _ => true,
                }
            }
            (CapTy::Op(x), CapTy::Op(y)) => {
                if x == y || self.cmp_depth.get() > 8 {
                    return true;
                }
                // MPD 1.0.1 compares restrictions exactly: a `{send}` op does
                // not fit a `cap () {send,call}` (nor the other way round)
                let (p, q) = (&self.sigs[*x], &self.sigs[*y]);
                if (p.no_send, p.no_call) != (q.no_send, q.no_call) {
                    return false;
                }
                self.cmp_depth.set(self.cmp_depth.get() + 1);
                let r = self.sig_compat(&self.sigs[*x], &self.sigs[*y]);
                self.cmp_depth.set(self.cmp_depth.get() - 1);
                r
            }
            (CapTy::Sem, CapTy::Sem) | (CapTy::Vm, CapTy::Vm) => true,
            // a semaphore is an op without parameters or result that can
            // only be sent to: MPD 1.0.1 rejects `cap () c = s`
            // ("incompatible initialization") and takes `cap () {send}`
            (CapTy::Sem, CapTy::Op(k)) | (CapTy::Op(k), CapTy::Sem) => {
                let p = &self.sigs[*k];
                p.params.is_empty() && p.ret == Ty::Void && p.no_call && !p.no_send
            }
            _ => false,
        }
    }

    fn sig_compat(&self, x: &SigInfo, y: &SigInfo) -> bool {
        x.params.len() == y.params.len()
            && x.params.iter().zip(&y.params).all(|(p, q)| {
                by_value(p.mode) == by_value(q.mode)
                    && (by_value(p.mode) || p.mode == q.mode)
                    && self.same_exact(&p.ty, &q.ty)
            })
            && self.same_exact(&x.ret, &y.ret)
    }

    /// `same`, with array bounds and string lengths too where both are known
    /// (a block's layout depends on them).
    fn same_exact(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::Str(Some(x)), Ty::Str(Some(y))) => x == y,
            (Ty::Arr(x, l1, h1, _), Ty::Arr(y, l2, h2, _)) => {
                (l1.is_none() || l2.is_none() || l1 == l2)
                    && (h1.is_none() || h2.is_none() || h1 == h2)
                    && self.same_exact(x, y)
            }
            _ => self.same(a, b),
        }
    }

    /// How MPD names a type in messages.
    pub fn show(&self, t: &Ty) -> String {
        self.show_within(t, 0)
    }

    /// `show` at nesting `depth` of op signatures: an op whose parameter is a
    /// capability of itself (`op p(cap p q)`) is named to a few levels only.
    fn show_within(&self, t: &Ty, depth: usize) -> String {
        let show = |t: &Ty| self.show_within(t, depth);
        match t {
            Ty::Error => "<error>".into(),
            Ty::Void => "no value".into(),
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Char => "char".into(),
            Ty::Real => "real".into(),
            Ty::File => "file".into(),
            Ty::Str(Some(n)) => format!("string[{}]", n),
            Ty::Str(None) => "string".into(),
            Ty::Enum(i) => self.enums[*i].name.clone(),
            Ty::Rec(i) => self.recs[*i].name.clone(),
            Ty::Ptr(t) => format!("ptr {}", show(t)),
            Ty::PtrAny => "ptr any".into(),
            Ty::Null => "null".into(),
            Ty::Arr(e, _, _, _) => format!("array of {}", show(e)),
            Ty::Cap(CapTy::Resource(r)) => format!("cap {}", r),
            Ty::Cap(CapTy::Sem) => "cap sem".into(),
            Ty::Cap(CapTy::Vm) => "cap vm".into(),
            Ty::Cap(CapTy::Op(_)) if depth >= 3 => "cap op(...)".into(),
            Ty::Cap(CapTy::Op(k)) => {
                // an op capability is named by its signature
                let sg = &self.sigs[*k];
                let show = |t: &Ty| self.show_within(t, depth + 1);
                let ps: Vec<String> = sg
                    .params
                    .iter()
                    .map(|p| {
                        let m = match p.mode {
                            crate::syntax::ast::ParamMode::Var => "var ",
                            crate::syntax::ast::ParamMode::Res => "res ",
                            crate::syntax::ast::ParamMode::Ref => "ref ",
                            _ => "",
                        };
                        format!("{}{}", m, show(&p.ty))
                    })
                    .collect();
                let r = if sg.ret == Ty::Void { String::new() } else { format!(" returns {}", show(&sg.ret)) };
                let restr = match (sg.no_send, sg.no_call) {
                    (true, false) => " {call}",
                    (false, true) => " {send}",
                    _ => "",
                };
                format!("cap op({}){}{}", ps.join(", "), r, restr)
            }
            Ty::Fwd(n) => n.clone(),
        }
    }
}

/// A value parameter (no mode, or `val`).
fn by_value(m: crate::syntax::ast::ParamMode) -> bool {
    matches!(m, crate::syntax::ast::ParamMode::Default | crate::syntax::ast::ParamMode::Val)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sizes() {
        let t = Types::default();
        assert_eq!(t.size_of(&Ty::Int), Some(4));
        assert_eq!(t.size_of(&Ty::Str(Some(10))), Some(32));
        let a = Ty::arr(Ty::Int, Some(1), Some(10));
        assert_eq!(t.size_of(&a), Some(16 + 48));
        assert_eq!(t.size_of(&Ty::arr(Ty::Int, None, Some(3))), None);
    }
    #[test]
    fn record_layout() {
        let t = Types::default();
        let (f, size) = t.layout(&[("c".into(), Ty::Char), ("i".into(), Ty::Int), ("r".into(), Ty::Real)]).unwrap();
        assert_eq!(f[1].2, 4);
        assert_eq!(f[2].2, 8);
        assert_eq!(size, 16);
    }
}
