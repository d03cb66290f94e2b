//! type_of_call: the pure type rules of invocations -- calls of procs and
//! ops, record constructors, conversions `T(x)` and MPD's predefined
//! functions (their table's result rules, predef.rs).  Each rule says which
//! translation (builtin.rs, invoke.rs, predef.rs) it mirrors.
use super::predef::{self, Predef, Res};
use super::resolved::Resolved;
use super::scope::{ProcSig, Sym};
use super::types::{CapTy, Ty};
use super::Checker;
use crate::syntax::ast::{Expr, ExprKind, TypeKind};

impl<'a> Checker<'a> {
    /// `callee(args)` (call_expr): a conversion when the callee is a type, a
    /// record constructor for a record type's name, a proc's or op's result,
    /// or a predefined function's.  `e` is the call's node, whose errors
    /// are these rules' (a record constructor's item count).
    pub(super) fn call_type(&mut self, e: &Expr, callee: &Expr, args: &[Expr]) -> Ty {
        match &callee.kind {
            ExprKind::Type(t) => {
                let to = match &t.kind {
                    TypeKind::String(None) => Ty::Str(None),
                    _ => self.written_type(t),
                };
                self.convert_type(e, &to, args)
            }
            ExprKind::Ident(id) => {
                let r = self.resolution(callee);
                if let Some(sig) = self.callee_sig(&r) {
                    // an imported op does not hide a predefined function of the same name
                    return match predef::lookup(&id.name) {
                        Some(d) if self.imported_only_name(&id.name) => self.predef_type(e, &id.name, d, args),
                        _ => self.proc_call_type(e, &sig, args),
                    };
                }
                match r {
                    // a record constructor has one item per field
                    Resolved::Type(ty @ Ty::Rec(r)) => {
                        let rec = &self.types.recs[r];
                        if rec.fields.len() == args.len() {
                            return ty;
                        }
                        let m = format!(
                            "wrong number of items for rec constructor ({} has {} fields, not {})",
                            rec.name,
                            rec.fields.len(),
                            args.len()
                        );
                        self.rule_error(e, e.span, m);
                        Ty::Error
                    }
                    Resolved::Type(ty) => self.convert_type(e, &ty, args),
                    Resolved::Var { .. } => self.op_call_type(callee, args),
                    Resolved::Predef(d) => self.predef_type(e, &id.name, d, args),
                    _ => Ty::Error,
                }
            }
            ExprKind::Field { base, .. } => {
                if let ExprKind::Ident(b) = &base.kind {
                    if matches!(self.lookup(&b.name), Some(Sym::Comp(_))) {
                        if let Resolved::Member(m) = self.resolution(callee) {
                            if let Resolved::Op(sig) | Resolved::Proc(sig) = *m {
                                return self.proc_call_type(e, &sig, args);
                            }
                        }
                    }
                }
                // `c.abs(x)` of an external (builtin.rs's call_expr)
                if let Resolved::ResCapOp { sig } = self.resolution(callee) {
                    if sig.external {
                        return self.proc_call_type(e, &sig, args);
                    }
                }
                self.op_call_type(callee, args)
            }
            _ => self.op_call_type(callee, args),
        }
    }

    /// A call of a proc or of an op by its name (call_proc), node `e`: its
    /// result; an error for an op array not subscripted, a semaphore invoked
    /// through a block, a wrong argument count, a result whose size is not
    /// known.  The argument count of a direct call (a procedure, an
    /// external, an op this component's proc implements) is worded here
    /// (an invocation block's is invoke.rs's still).
    fn proc_call_type(&mut self, e: &Expr, sig: &ProcSig, args: &[Expr]) -> Ty {
        let mut direct = true;
        if let Some(r) = &sig.op {
            if !r.dims.is_empty() || !self.op_reachable_here(r) || r.no_call {
                return Ty::Error;
            }
            direct = r.proc_impl && (r.owner == self.comp || r.global_owner);
            if !direct && r.sem {
                return Ty::Error;
            }
            if !direct && sig.ret.is_blob() && self.types.size_of(&sig.ret).is_none() {
                return Ty::Error;
            }
        }
        if args.len() != sig.params.len() {
            if direct {
                self.rule_error(e, e.span, super::msg::arity(&sig.name, sig.params.len(), args.len()));
            }
            return Ty::Error;
        }
        sig.ret.clone()
    }

    /// An invocation of the op a capability (or an op array's element,
    /// rc.f...) designates (op_call, invoke_block): the result of its
    /// signature; an error for a semaphore, a wrong argument count, a result
    /// whose size is not known.
    fn op_call_type(&mut self, callee: &Expr, args: &[Expr]) -> Ty {
        let Some(op) = self.target_op(callee) else { return Ty::Error };
        if op.sem || op.no_call || op.nparams != args.len() {
            return Ty::Error;
        }
        if op.ret.is_blob() && self.types.size_of(&op.ret).is_none() {
            return Ty::Error;
        }
        op.ret
    }

    /// A conversion `to(x)`, node `e` (convert): `to`, but a string keeps a
    /// string's type and a char becomes a string of length 1
    /// (convert_to_string).  An error, in MPD 1.0.1's words, for a count
    /// of arguments other than one, null or noop converted to what is no
    /// pointer, and a pair with no conversion.
    pub(super) fn convert_type(&mut self, e: &Expr, to: &Ty, args: &[Expr]) -> Ty {
        if args.len() != 1 {
            self.rule_error(e, e.span, "illegal conversion: a conversion takes one argument".into());
            return Ty::Error;
        }
        let from = self.type_of(&args[0]);
        if from == Ty::Error || *to == Ty::Error {
            return Ty::Error;
        }
        let ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
        if from == Ty::Null && !ptr(to) {
            let m = format!("illegal conversion: cannot convert null or noop to {}", self.types.show(to));
            self.rule_error(e, e.span, m);
            return Ty::Error;
        }
        let t = conversion_type(to, &from);
        if t == Ty::Error {
            let (sf, st) = (self.types.show(&from), self.types.show(to));
            let m = match to {
                Ty::Str(_) => format!("illegal conversion: cannot convert a {} to a string", sf),
                _ => format!("illegal conversion: cannot convert a {} to {}", sf, st),
            };
            self.rule_error(e, e.span, m);
        }
        t
    }

    /// A call of predefined function `name`, of row `d` (predefined): an
    /// error for arguments its row rejects (predef_args), else the row's
    /// result rule.
    fn predef_type(&mut self, e: &Expr, name: &str, d: &Predef, args: &[Expr]) -> Ty {
        if let Some((least, most, kinds)) = d.args {
            if args.len() < least || args.len() > most {
                return Ty::Error;
            }
            for (a, k) in args.iter().zip(kinds) {
                if self.arg_problem_of(*k, a) {
                    return Ty::Error;
                }
            }
        }
        match d.result {
            Res::Void if name == "put" => self.put_type(args),
            Res::Void => Ty::Void,
            Res::Int => self.int_result_type(name, args),
            Res::Real => Ty::Real,
            Res::Bool => Ty::Bool,
            Res::File => Ty::File,
            Res::Vm => Ty::Cap(CapTy::Vm),
            Res::Resource => Ty::Cap(CapTy::Resource(self.comp.clone())),
            Res::Chars => self.one_type(args, |t| t.is_string() || *t == Ty::Char, Ty::arr(Ty::Char, None, None)),
            Res::ArgType => self.arg_type_result(name, args),
            Res::IndexType => self.index_type_result(e, name, args),
        }
    }

    /// Int results: length and maxlength take one string (pd_length); get
    /// one variable after an optional file, not a slice (pd_get); the
    /// others' arguments are checked by the row or where input is read.
    fn int_result_type(&mut self, name: &str, args: &[Expr]) -> Ty {
        match name {
            "length" | "maxlength" => self.one_type(args, Ty::is_string, Ty::Int),
            "get" => {
                let file = args.first().is_some_and(|a| matches!(self.type_of(a), Ty::File | Ty::Null));
                let [dest] = &args[file as usize..] else { return Ty::Error };
                let sliced = matches!(&dest.kind, ExprKind::Index { subs, .. }
                    if subs.iter().any(|s| matches!(s, crate::syntax::ast::Subscript::Slice { .. })));
                if self.type_of(dest) != Ty::Error && (sliced || !self.is_variable(dest)) {
                    return Ty::Error;
                }
                Ty::Int
            }
            _ => Ty::Int,
        }
    }

    /// put: one text after an optional file; two arguments whose first is
    /// no file are an error (pd_put, file_first).
    fn put_type(&mut self, args: &[Expr]) -> Ty {
        let file = args.first().is_some_and(|a| matches!(self.type_of(a), Ty::File | Ty::Null));
        if args.len() - file as usize != 1 {
            return Ty::Error;
        }
        Ty::Void
    }

    /// `res` for one argument whose type passes `ok`, else an error.
    fn one_type(&mut self, args: &[Expr], ok: impl Fn(&Ty) -> bool, res: Ty) -> Ty {
        if args.len() != 1 {
            return Ty::Error;
        }
        match self.type_of(&args[0]) {
            Ty::Error => Ty::Error,
            t if ok(&t) => res,
            _ => Ty::Error,
        }
    }

    /// abs of an int or real (pd_abs); min and max of ordered values of one
    /// type, or of numbers, real if any is (pd_min_max); pred and succ of an
    /// ordered value (pd_pred_succ).
    fn arg_type_result(&mut self, name: &str, args: &[Expr]) -> Ty {
        match name {
            "abs" => {
                if args.len() != 1 {
                    return Ty::Error;
                }
                match self.type_of(&args[0]) {
                    t @ (Ty::Int | Ty::Real) => t,
                    _ => Ty::Error,
                }
            }
            "min" | "max" => {
                let ts: Vec<Ty> = args.iter().map(|a| self.type_of(a)).collect();
                let Some(first) = ts.first() else { return Ty::Error };
                let ty = if ts.contains(&Ty::Real) { Ty::Real } else { first.clone() };
                if ty == Ty::Error || !(ty.is_ordinal() || ty == Ty::Real) {
                    return Ty::Error;
                }
                let coerced = |t: &Ty| if ty == Ty::Real && *t == Ty::Int { Ty::Real } else { t.clone() };
                if ts.iter().all(|t| self.types.same(&coerced(t), &ty)) {
                    ty
                } else {
                    Ty::Error
                }
            }
            _ => {
                if args.len() != 1 {
                    return Ty::Error;
                }
                match self.type_of(&args[0]) {
                    t if t.is_ordinal() => t,
                    _ => Ty::Error,
                }
            }
        }
    }

    /// lb and ub (pd_bound, pd_bound_n, array_bound), node `e`: the index
    /// type of the dimension asked for when the array's declaration gave it
    /// (bool, char, an enumeration), else int; an op array's bounds are
    /// ints.  An error, after the array, for what is no array or has fewer
    /// dimensions (the argument count and the dimension's literal are the
    /// handler's).
    fn index_type_result(&mut self, e: &Expr, name: &str, args: &[Expr]) -> Ty {
        let dim = if name.len() == 3 {
            (name.as_bytes()[2] - b'0') as i64
        } else {
            if args.is_empty() || args.len() > 2 {
                return Ty::Error;
            }
            predef::bound_dim(args.get(1))
        };
        if args.len() != 1 && name.len() == 3 {
            return Ty::Error;
        }
        let a = &args[0];
        if let (ExprKind::Ident(_), Resolved::Op(sig)) = (&a.kind, self.resolution(a)) {
            if sig.op.as_ref().is_some_and(|r| !r.dims.is_empty()) {
                return Ty::Int;
            }
        }
        let outer = self.type_of(a);
        let mut t = outer.clone();
        for _ in 1..dim {
            match t {
                Ty::Arr(e, _, _, _) => t = *e,
                _ => break,
            }
        }
        match t {
            Ty::Arr(..) => {}
            Ty::Error => return Ty::Error,
            _ => {
                let m = if matches!(outer, Ty::Arr(..)) {
                    format!("{}(), argument 2: array does not have that many dimensions", name)
                } else {
                    format!("{}(), argument 1: not an array ({})", name, self.types.show(&outer))
                };
                self.rule_error(e, a.span, m);
                return Ty::Error;
            }
        }
        match outer.index_types().get((dim - 1) as usize) {
            Some(t @ (Ty::Bool | Ty::Char | Ty::Enum(_))) => t.clone(),
            _ => Ty::Int,
        }
    }
}

/// The type of the conversion `to(x)` of an x of type `from` (neither an
/// error, x not null unless `to` is a pointer), Ty::Error for a pair with no
/// conversion: numbers, characters, truth values, enumerations, pointers
/// and text convert among themselves as builtin.rs's `convert` translates
/// them; a file or capability has no text.
fn conversion_type(to: &Ty, from: &Ty) -> Ty {
    let stringy = from.is_string() || from.is_char_array();
    let ptr = |t: &Ty| matches!(t, Ty::Ptr(_) | Ty::PtrAny);
    let ok = match to {
        Ty::Int => matches!(from, Ty::Int | Ty::Real | Ty::Char | Ty::Bool | Ty::Enum(_)) || ptr(from) || stringy,
        Ty::Real => {
            matches!(from, Ty::Int | Ty::Real | Ty::Char | Ty::Bool | Ty::Enum(_) | Ty::Null) || ptr(from) || stringy
        }
        Ty::Char => matches!(from, Ty::Int | Ty::Char | Ty::Bool | Ty::Enum(_) | Ty::Real) || ptr(from) || stringy,
        Ty::Bool => {
            matches!(from, Ty::Bool | Ty::Int | Ty::Char | Ty::Real | Ty::Enum(_) | Ty::Null) || ptr(from) || stringy
        }
        Ty::Enum(_) => matches!(from, Ty::Int | Ty::Char | Ty::Enum(_) | Ty::Bool | Ty::Real),
        Ty::Str(_) => {
            return match from {
                Ty::Str(_) => from.clone(),
                Ty::Char => Ty::Str(Some(1)),
                Ty::File | Ty::Cap(_) => Ty::Error, // no text (convert_to_string)
                t if t.is_char_array() || t.is_scalar() => Ty::Str(None),
                _ => Ty::Error,
            };
        }
        Ty::Ptr(_) | Ty::PtrAny => ptr(from) || matches!(from, Ty::Null | Ty::Int) || stringy,
        _ => false,
    };
    if ok {
        to.clone()
    } else {
        Ty::Error
    }
}
