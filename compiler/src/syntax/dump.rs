//! Compact S-expression rendering of the AST, for tests and debugging (`(+ a (* b c))`).
//! Spans are omitted; the form is meant to show structure, precedence and grouping.

use super::ast::*;
use super::token::show_bytes;

/// Render a whole file, one component per line.
pub fn file(f: &SourceFile) -> String {
    f.components.iter().map(component).collect::<Vec<_>>().join("\n")
}

pub fn component(c: &Component) -> String {
    let kind = match c.kind {
        ComponentKind::Resource => "resource",
        ComponentKind::Global => "global",
    };
    let mut s = format!("({} {} {:?}", kind, c.name.name, c.form);
    if !c.spec.is_empty() {
        s.push_str(&format!(" (spec {})", stmts(&c.spec)));
    }
    if let Some(b) = &c.body {
        s.push_str(&format!(" (body {}", b.name.name));
        if let Some(ps) = &b.params {
            s.push_str(&format!(" (params{})", params(ps)));
        }
        if b.separate {
            s.push_str(" separate");
        }
        if !b.items.is_empty() {
            s.push(' ');
            s.push_str(&stmts(&b.items));
        }
        s.push(')');
    }
    s.push(')');
    s
}

pub fn stmts(list: &[Stmt]) -> String {
    list.iter().map(stmt).collect::<Vec<_>>().join(" ")
}

fn block(b: &Block) -> String {
    format!("{{{}}}", stmts(&b.stmts))
}

fn opt<T>(o: &Option<T>, f: impl Fn(&T) -> String) -> String {
    o.as_ref().map(|x| format!(" {}", f(x))).unwrap_or_default()
}

fn quants(qs: &[Quantifier]) -> String {
    let parts: Vec<String> = qs
        .iter()
        .map(|q| {
            format!(
                "({} {} {} {}{}{})",
                q.var.name,
                expr(&q.start),
                if q.downto { "downto" } else { "to" },
                expr(&q.end),
                opt(&q.step, |e| format!("by {}", expr(e))),
                opt(&q.st, |e| format!("st {}", expr(e)))
            )
        })
        .collect();
    format!("[{}]", parts.join(" "))
}

pub fn stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Decl(d) => decl(d),
        StmtKind::Expr(e) => expr(e),
        StmtKind::Skip => "skip".into(),
        StmtKind::Stop(e) => format!("(stop{})", opt(e, expr)),
        StmtKind::Exit => "exit".into(),
        StmtKind::Next => "next".into(),
        StmtKind::If { arms, else_block } => {
            let mut out = String::from("(if");
            for a in arms {
                out.push_str(&format!(" {} {}", expr(&a.cond), block(&a.body)));
            }
            if let Some(b) = else_block {
                out.push_str(&format!(" else {}", block(b)));
            }
            out.push(')');
            out
        }
        StmtKind::While { cond, body } => format!("(while {} {})", expr(cond), block(body)),
        StmtKind::For { quants: q, body } => format!("(for {} {})", quants(q), block(body)),
        StmtKind::Begin(b) => format!("(begin {})", block(b)),
        StmtKind::Call(e) => format!("(call {})", expr(e)),
        StmtKind::Send { inv, fork } => format!("({} {})", if *fork { "fork" } else { "send" }, expr(inv)),
        StmtKind::Forward(e) => format!("(forward {})", expr(e)),
        StmtKind::Receive(e) => format!("(receive {})", expr(e)),
        StmtKind::In(i) => {
            let mut out = String::from("(in");
            for a in &i.arms {
                let f: Vec<&str> = a.formals.iter().map(|f| f.name.as_str()).collect();
                out.push_str(&format!(
                    " ({}{} ({}){}{}{} -> {})",
                    if a.quants.is_empty() { String::new() } else { format!("{} ", quants(&a.quants)) },
                    expr(&a.op),
                    f.join(" "),
                    opt(&a.returns, |r| format!("returns {}", r.name)),
                    opt(&a.st, |e| format!("st {}", expr(e))),
                    opt(&a.by, |e| format!("by {}", expr(e))),
                    block(&a.body)
                ));
            }
            if let Some(b) = &i.else_block {
                out.push_str(&format!(" (else {})", block(b)));
            }
            out.push(')');
            out
        }
        StmtKind::P(e) => format!("(P {})", expr(e)),
        StmtKind::V(e) => format!("(V {})", expr(e)),
        StmtKind::Return(e) => format!("(return{})", opt(e, expr)),
        StmtKind::Reply => "reply".into(),
        StmtKind::Destroy(e) => format!("(destroy {})", expr(e)),
        StmtKind::Co(c) => {
            let arms: Vec<String> = c
                .arms
                .iter()
                .map(|a| {
                    format!(
                        "({}{}{}{})",
                        if a.quants.is_empty() { String::new() } else { format!("{} ", quants(&a.quants)) },
                        if a.send { "send " } else { "" },
                        expr(&a.inv),
                        opt(&a.post, |b| format!("-> {}", block(b)))
                    )
                })
                .collect();
            format!("(co {})", arms.join(" // "))
        }
        StmtKind::Empty => "()".into(),
    }
}

fn ranges(rs: &[Range]) -> String {
    let parts: Vec<String> = rs
        .iter()
        .map(|r| match &r.lo {
            Some(lo) => format!("{}:{}", bound(lo), bound(&r.hi)),
            None => bound(&r.hi),
        })
        .collect();
    format!("[{}]", parts.join(","))
}

fn bound(b: &Bound) -> String {
    match b {
        Bound::Expr(e) => expr(e),
        Bound::Star(_) => "*".into(),
    }
}

fn params(ps: &[Param]) -> String {
    ps.iter()
        .map(|p| {
            let mode = match p.mode {
                ParamMode::Default => "",
                ParamMode::Val => "val ",
                ParamMode::Var => "var ",
                ParamMode::Res => "res ",
                ParamMode::Ref => "ref ",
            };
            let names: Vec<String> = p.names.iter().map(|n| format!(" {}{}", n.name.name, dims(&n.dims))).collect();
            format!(" ({}{}{})", mode, ty(&p.ty), names.concat())
        })
        .collect()
}

fn dims(d: &[Range]) -> String {
    if d.is_empty() {
        String::new()
    } else {
        ranges(d)
    }
}

fn sig(s: &OpSig) -> String {
    match s {
        OpSig::Optype(q) => format!("(optype {})", qual(q)),
        OpSig::Explicit { params: ps, returns, restriction, .. } => {
            let mut out = format!("(sig{}", params(ps));
            if let Some(r) = returns {
                out.push_str(" returns");
                if let Some(t) = &r.ty {
                    out.push_str(&format!(" {}", ty(t)));
                }
                if let Some(n) = &r.name {
                    out.push_str(&format!(" {}{}", n.name, dims(&r.dims)));
                }
            }
            if let Some(r) = restriction {
                out.push_str(match (r.call, r.send) {
                    (true, true) => " {call,send}",
                    (true, false) => " {call}",
                    _ => " {send}",
                });
            }
            out.push(')');
            out
        }
    }
}

fn qual(q: &QualName) -> String {
    q.parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(".")
}

pub fn decl(d: &Decl) -> String {
    match &d.kind {
        DeclKind::Import { extend, names } => {
            let n: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
            format!("({} {})", if *extend { "extend" } else { "import" }, n.join(" "))
        }
        DeclKind::Var(v) => {
            let items: Vec<String> = v
                .vars
                .iter()
                .map(|i| format!(" {}{}{}", i.name.name, dims(&i.dims), opt(&i.init, |e| format!("= {}", expr(e)))))
                .collect();
            format!("({}{}{})", if v.constant { "const" } else { "var" }, opt(&v.ty, ty), items.concat())
        }
        DeclKind::Type { name, ty: t } => format!("(type {} {})", name.name, ty(t)),
        DeclKind::Op(o) | DeclKind::External(o) => {
            let kw = if matches!(d.kind, DeclKind::Op(_)) { "op" } else { "external" };
            let n: Vec<String> = o.names.iter().map(|n| format!("{}{}", n.name.name, dims(&n.dims))).collect();
            format!("({} {} {})", kw, n.join(" "), sig(&o.sig))
        }
        DeclKind::Sem(items) => {
            let i: Vec<String> = items
                .iter()
                .map(|i| format!(" {}{}{}", i.name.name, dims(&i.dims), opt(&i.init, |e| format!("= {}", expr(e)))))
                .collect();
            format!("(sem{})", i.concat())
        }
        DeclKind::Optype { name, sig: s } => format!("(optype {} {})", name.name, sig(s)),
        DeclKind::Proc(p) => {
            let kw = match p.kind {
                ProcKind::Proc => "proc",
                ProcKind::Procedure => "procedure",
                ProcKind::Process => "process",
            };
            let mut out = format!("({} {}", kw, p.name.name);
            if !p.subscripts.is_empty() {
                let s: Vec<&str> = p.subscripts.iter().map(|s| s.name.as_str()).collect();
                out.push_str(&format!(" [{}]", s.join(" ")));
            }
            if !p.quants.is_empty() {
                out.push_str(&format!(" {}", quants(&p.quants)));
            }
            if p.kind == ProcKind::Proc {
                let f: Vec<&str> = p.formals.iter().map(|s| s.name.as_str()).collect();
                out.push_str(&format!(" ({})", f.join(" ")));
            }
            if p.kind == ProcKind::Procedure {
                out.push_str(&format!(" (params{})", params(&p.params)));
            }
            if let Some(r) = &p.returns {
                out.push_str(" returns");
                if let Some(t) = &r.ty {
                    out.push_str(&format!(" {}", ty(t)));
                }
                if let Some(n) = &r.name {
                    out.push_str(&format!(" {}{}", n.name, dims(&r.dims)));
                }
            }
            out.push_str(&format!(" {})", block(&p.body)));
            out
        }
        DeclKind::Final(b) => format!("(final {})", block(b)),
    }
}

fn fields(fs: &[Field]) -> String {
    fs.iter()
        .map(|f| {
            let names: Vec<String> = f.names.iter().map(|n| format!(" {}{}", n.name.name, dims(&n.dims))).collect();
            format!(" ({}{})", ty(&f.ty), names.concat())
        })
        .collect()
}

pub fn ty(t: &Type) -> String {
    match &t.kind {
        TypeKind::Bool => "bool".into(),
        TypeKind::Int => "int".into(),
        TypeKind::Char => "char".into(),
        TypeKind::Real => "real".into(),
        TypeKind::Double => "double".into(),
        TypeKind::String(None) => "string".into(),
        TypeKind::String(Some(b)) => format!("string[{}]", bound(b)),
        TypeKind::File => "file".into(),
        TypeKind::Named(q) => qual(q),
        TypeKind::Enum(ids) => {
            let n: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
            format!("(enum {})", n.join(" "))
        }
        TypeKind::Rec(fs) => format!("(rec{})", fields(fs)),
        TypeKind::Ptr(t) => format!("(ptr {})", ty(t)),
        TypeKind::PtrAny => "(ptr any)".into(),
        TypeKind::Cap(c) => match c {
            CapTarget::Named(q) => format!("(cap {})", qual(q)),
            CapTarget::Vm => "(cap vm)".into(),
            CapTarget::Sem => "(cap sem)".into(),
            CapTarget::Sig(s) => format!("(cap {})", sig(s)),
        },
        TypeKind::Array { ranges: r, elem } => format!("({} {})", ranges(r), ty(elem)),
        TypeKind::Sem => "sem".into(),
        TypeKind::Op(s) => format!("(op {})", sig(s)),
    }
}

pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Real(v) => format!("{:?}", v),
        ExprKind::Char(c) => format!("'{}'", show_bytes(&[*c])),
        ExprKind::Str(s) => format!("\"{}\"", show_bytes(s)),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Null => "null".into(),
        ExprKind::Noop => "noop".into(),
        ExprKind::StdFile(f) => match f {
            StdFile::Stdin => "stdin",
            StdFile::Stdout => "stdout",
            StdFile::Stderr => "stderr",
        }
        .into(),
        ExprKind::Ident(i) => i.name.clone(),
        ExprKind::Field { base, name } => format!("(. {} {})", expr(base), name.name),
        ExprKind::Index { base, subs } => {
            let s: Vec<String> = subs
                .iter()
                .map(|s| match s {
                    Subscript::Index(e) => expr(e),
                    Subscript::Slice { lo: Some(lo), hi, .. } => format!("{}:{}", bound(lo), bound(hi)),
                    Subscript::Slice { lo: None, hi, .. } => bound(hi),
                })
                .collect();
            format!("(index {} {})", expr(base), s.join(" "))
        }
        ExprKind::Call { callee, args } => {
            let a: Vec<String> = args.iter().map(|a| format!(" {}", expr(a))).collect();
            format!("(call {}{})", expr(callee), a.concat())
        }
        ExprKind::Unary { op, operand } => {
            let name = match op {
                UnaryOp::PostInc => "post++",
                UnaryOp::PostDec => "post--",
                UnaryOp::Neg => "neg",
                other => other.as_str(),
            };
            format!("({} {})", name, expr(operand))
        }
        ExprKind::Binary { op, lhs, rhs } => format!("({} {} {})", op.as_str(), expr(lhs), expr(rhs)),
        ExprKind::Assign { op, lhs, rhs } => {
            let o = match op {
                AssignOp::Plain => "=".to_string(),
                AssignOp::Compound(b) => format!("{}=", b.as_str()),
            };
            format!("({} {} {})", o, expr(lhs), expr(rhs))
        }
        ExprKind::Swap { lhs, rhs } => format!("(:=: {} {})", expr(lhs), expr(rhs)),
        ExprKind::ArrayCons(elems) => {
            let e: Vec<String> = elems
                .iter()
                .map(|el| match &el.count {
                    Some(c) => format!(" [{}]{}", expr(c), expr(&el.value)),
                    None => format!(" {}", expr(&el.value)),
                })
                .collect();
            format!("(array{})", e.concat())
        }
        ExprKind::Paren(e) => expr(e),
        ExprKind::Type(t) => ty(t),
        ExprKind::New(t) => format!("(new {})", ty(t)),
        ExprKind::Low(t) => format!("(low {})", ty(t)),
        ExprKind::High(t) => format!("(high {})", ty(t)),
        ExprKind::Create { target, args, on } => {
            let t = match target {
                CreateTarget::Resource(q) => qual(q),
                CreateTarget::Vm(_) => "vm".into(),
            };
            let a: Vec<String> = args.iter().map(|a| format!(" {}", expr(a))).collect();
            format!("(create {}{}{})", t, a.concat(), opt(on, |e| format!("on {}", expr(e))))
        }
    }
}
