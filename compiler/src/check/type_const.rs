//! type_const: the compile-time value of an expression, worked out from the
//! symbols and the folding rules alone (no C, no messages).
//!
//! `const_of(e)` is the `k` that `expr(e)` gives: Some for literals,
//! constants and enumeration literals, and for the operators, conversions
//! and predefined functions that `expr` folds; None otherwise (and for an
//! erroneous expression).  The type audit (type_audit.rs) checks the two
//! agree.
use super::konst::{self, fold_typed, wrap, KV};
use super::resolved::Resolved;
use super::scope::Sym;
use super::types::Ty;
use super::Checker;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, Subscript, TypeKind, UnaryOp};

impl<'a> Checker<'a> {
    /// The value `expr(e)` folds `e` to, if it does (the typed table's).
    pub(super) fn const_of(&mut self, e: &Expr) -> Option<KV> {
        if let Some(k) = self.typed.get(e.id, &self.types).and_then(|n| n.k.clone()) {
            return k;
        }
        let s = self.typed_stamp();
        let k = self.const_rules(e);
        self.typed_keep(e.id, s, |n| n.k = Some(k.clone()));
        k
    }

    /// `const_of` by the rules.
    fn const_rules(&mut self, e: &Expr) -> Option<KV> {
        match &e.kind {
            ExprKind::Int(n) => Some(KV::Int(wrap(*n))),
            ExprKind::Real(x) => Some(KV::Real(*x)),
            ExprKind::Char(c) => Some(KV::Char(*c)),
            ExprKind::Bool(b) => Some(KV::Bool(*b)),
            ExprKind::Str(s) => Some(KV::Str(s.clone())),
            ExprKind::Paren(inner) => self.const_of(inner),
            ExprKind::Ident(id) => match self.lookup(&id.name).cloned() {
                Some(Sym::Const { v, .. }) => Some(v),
                Some(Sym::EnumLit { i, .. }) => Some(KV::Int(i)),
                Some(_) => None,
                None => match id.name.as_str() {
                    "EOF" => Some(KV::Int(-1)),
                    "READ" | "ABSOLUTE" => Some(KV::Int(0)),
                    "WRITE" | "RELATIVE" => Some(KV::Int(1)),
                    "READWRITE" | "EXTEND" => Some(KV::Int(2)),
                    _ => None,
                },
            },
            // g.k for a constant k of component g (what the name resolves to)
            ExprKind::Field { base, .. } if self.names_component(base) => match self.resolution(e) {
                Resolved::Member(m) => match *m {
                    Resolved::Const { v, .. } => Some(v),
                    Resolved::EnumLit { i, .. } => Some(KV::Int(i)),
                    _ => None,
                },
                _ => None,
            },
            ExprKind::Unary { op, operand } => self.unary_const(*op, operand),
            ExprKind::Binary { op, lhs, rhs } => self.const_binary(*op, lhs, rhs).map(|(k, _)| k),
            ExprKind::Index { base, subs } => self.char_const(base, subs),
            ExprKind::Call { callee, args } => self.call_const(e, callee, args),
            ExprKind::Low(t) | ExprKind::High(t) => {
                let high = matches!(e.kind, ExprKind::High(_));
                match self.written_type(t) {
                    Ty::Int => Some(KV::Int(if high { i32::MAX as i64 } else { i32::MIN as i64 })),
                    Ty::Char => Some(KV::Char(if high { 255 } else { 0 })),
                    Ty::Bool => Some(KV::Bool(high)),
                    Ty::Real => Some(KV::Real(if high { f64::MAX } else { f64::MIN_POSITIVE })),
                    Ty::Enum(en) => Some(KV::Int(if high { self.types.enums[en].lits.len() as i64 - 1 } else { 0 })),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `-k`, `+k`, `not k` (operator.rs's `unary`).
    fn unary_const(&mut self, op: UnaryOp, operand: &Expr) -> Option<KV> {
        let ty = self.type_of(operand);
        let k = self.const_of(operand)?;
        match (op, ty, k) {
            (UnaryOp::Plus, t, k) if t.is_numeric() && t != Ty::Error => Some(k),
            (UnaryOp::Neg, Ty::Int, KV::Int(n)) => Some(KV::Int(wrap(-n))),
            (UnaryOp::Neg, Ty::Real, KV::Real(x)) => Some(KV::Real(-x)),
            (UnaryOp::Not, Ty::Bool, KV::Bool(b)) => Some(KV::Bool(!b)),
            (UnaryOp::Not, Ty::Int, KV::Int(n)) => Some(KV::Int(!n)),
            _ => None,
        }
    }

    /// `a op b` of two constants (operator.rs's `binary`): folded when the
    /// operation is well defined and its operand types pass the rules;
    /// with the type of the value.
    pub(super) fn const_binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Option<(KV, Ty)> {
        let (x, a) = self.const_typed(lhs)?;
        let (y, b) = self.const_typed(rhs)?;
        if self.operands_type(op, a, b) == Ty::Error {
            return None;
        }
        fold_typed(op, x, y)
    }

    /// A constant and its type: a fold's type comes with its value, so a
    /// chain of folded operators is typed once.
    fn const_typed(&mut self, e: &Expr) -> Option<(KV, Ty)> {
        match &e.kind {
            ExprKind::Paren(inner) => self.const_typed(inner),
            ExprKind::Binary { op, lhs, rhs } => self.const_binary(*op, lhs, rhs),
            _ => {
                let k = self.const_of(e)?;
                Some((k, self.type_of(e)))
            }
        }
    }

    /// `s[i]` of a constant string and a constant index within it (index.rs).
    fn char_const(&mut self, base: &Expr, subs: &[Subscript]) -> Option<KV> {
        let [Subscript::Index(ie)] = subs else { return None };
        let Some(KV::Str(s)) = self.const_of(base) else { return None };
        if !matches!(self.type_of(ie), Ty::Int) {
            return None;
        }
        match self.const_of(ie)? {
            KV::Int(n) if n >= 1 && n as usize <= s.len() => Some(KV::Char(s[n as usize - 1])),
            _ => None,
        }
    }

    /// Conversions of constants (builtin.rs's convert and convert_const),
    /// and the predefined functions folded on constants: length, maxlength,
    /// abs, min, max, lb and ub of an array with constant bounds.
    fn call_const(&mut self, e: &Expr, callee: &Expr, args: &[Expr]) -> Option<KV> {
        if self.type_of(e) == Ty::Error {
            return None;
        }
        let to = match &callee.kind {
            ExprKind::Type(t) if matches!(t.kind, TypeKind::String(None)) => Ty::Str(None),
            ExprKind::Type(t) => self.written_type(t),
            ExprKind::Ident(id) => match self.lookup(&id.name).cloned() {
                Some(Sym::Type(t)) => t,
                Some(_) => return None,
                None => return self.predef_const(&id.name, args),
            },
            _ => return None,
        };
        let from = self.type_of(&args[0]);
        let k = self.const_of(&args[0])?;
        match (&to, &from) {
            (Ty::Str(_), Ty::Str(_)) | (Ty::Int, Ty::Int) | (Ty::Char, Ty::Char) | (Ty::Bool, Ty::Bool) => {
                return Some(k)
            }
            (Ty::Str(_), _) => return None,
            _ => {}
        }
        let target = match &to {
            Ty::Int => konst::ConvTo::Int,
            Ty::Real => konst::ConvTo::Real,
            Ty::Char => konst::ConvTo::Char,
            Ty::Bool => konst::ConvTo::Bool,
            Ty::Enum(e) => konst::ConvTo::Enum(self.types.enums[*e].lits.len()),
            _ => return None,
        };
        if !matches!(from, Ty::Int | Ty::Real | Ty::Char | Ty::Bool | Ty::Enum(_)) {
            return None;
        }
        konst::convert(target, &k)
    }

    /// The predefined functions `expr` folds on constant arguments.
    fn predef_const(&mut self, name: &str, args: &[Expr]) -> Option<KV> {
        match name {
            "length" | "maxlength" => {
                if let Some(KV::Str(s)) = self.const_of(&args[0]) {
                    return Some(KV::Int(s.len() as i64));
                }
                match (name, self.type_of(&args[0])) {
                    ("maxlength", Ty::Str(Some(n))) => Some(KV::Int(n)),
                    _ => None,
                }
            }
            "abs" => match (self.type_of(&args[0]), self.const_of(&args[0])) {
                (Ty::Int, Some(KV::Int(n))) => Some(KV::Int(wrap(n.abs()))),
                _ => None,
            },
            // one argument is itself, whatever its kind
            "min" | "max" if args.len() == 1 => self.const_of(&args[0]),
            "min" | "max" => {
                let mut acc: Option<i64> = None;
                let real = args.iter().any(|a| self.type_of(a) == Ty::Real);
                for a in args {
                    let Some(KV::Int(y)) = self.const_of(a) else { return None };
                    if real {
                        return None;
                    }
                    acc = Some(match acc {
                        None => y,
                        Some(x) if name == "min" => x.min(y),
                        Some(x) => x.max(y),
                    });
                }
                acc.map(KV::Int)
            }
            _ if name.starts_with("lb") || name.starts_with("ub") => self.bound_const(name, args),
            _ => None,
        }
    }

    /// lb/ub of an array whose bound asked for is known, or of an op array
    /// with constant bounds (array_bound).
    fn bound_const(&mut self, name: &str, args: &[Expr]) -> Option<KV> {
        let is_lb = name.starts_with('l');
        let dim = if name.len() == 3 {
            (name.as_bytes()[2] - b'0') as i64
        } else {
            match args.get(1).map(|d| &d.kind) {
                Some(ExprKind::Int(n)) if *n >= 1 => *n,
                _ => 1,
            }
        };
        let a = &args[0];
        if let ExprKind::Ident(id) = &a.kind {
            if let Some(Sym::Proc(sig)) = self.lookup(&id.name) {
                let r = sig.op.as_ref().filter(|r| !r.dims.is_empty())?;
                let (l, n) = (r.lo.parse::<i64>().ok()?, r.n.parse::<i64>().ok()?);
                return Some(KV::Int(if is_lb { l } else { l + n - 1 }));
            }
        }
        let mut t = self.type_of(a);
        for _ in 1..dim {
            match t {
                Ty::Arr(e, _, _, _) => t = *e,
                _ => break,
            }
        }
        let Ty::Arr(_, lo, hi, _) = t else { return None };
        let k = if is_lb { lo } else { hi }?;
        Some(match self.type_of(a).index_types().get((dim - 1) as usize) {
            Some(Ty::Bool) => KV::Bool(k != 0),
            Some(Ty::Char) => KV::Char(k as u8),
            _ => KV::Int(k),
        })
    }
}
