//! The SR front end: SR 2.3.3 source text → the same AST as MPD's parser
//! (`syntax::ast`), so the checker, the C generator and the runtime are shared.
//!
//! lexer.rs: SR's words, operators and line-break rule on top of MPD's scanner;
//! parser.rs: components, declarations, types; stmt.rs: statements; expr.rs:
//! expressions. How SR's constructs map onto the AST is in docs/sr.md.

mod expr;
pub mod lexer;
mod parser;
mod stmt;
mod types;

use super::ast::{FileId, SourceFile};
use super::diag::Diagnostics;

/// Parse SR source `src` (file `file`) into an AST; errors go to `diags`.
pub fn parse(file: FileId, src: &str, diags: &mut Diagnostics) -> SourceFile {
    let mut local = Diagnostics::new();
    let toks = lexer::lex(file, src, &mut local);
    let mut p = parser::Parser::new(toks, file, &mut local);
    let tree = p.source_file();
    local.sort_by_position();
    diags.extend(local);
    tree
}

/// Does this file name say SR (`.sr`, or an SR interface `.spec` written by `sr`)?
pub fn is_sr_name(name: &str) -> bool {
    name.ends_with(".sr")
}

#[cfg(test)]
mod tests {
    use super::lexer::{lex, T};
    use crate::syntax::ast::*;
    use crate::syntax::{Diagnostics, SourceMap};

    fn toks(src: &str) -> Vec<T> {
        let mut d = Diagnostics::new();
        lex(0, src, &mut d).into_iter().map(|t| t.t).collect()
    }

    fn parse_ok(src: &str) -> SourceFile {
        let mut map = SourceMap::new();
        let mut d = Diagnostics::new();
        let f = crate::syntax::parse_source(&mut map, "t.sr", src, &mut d);
        assert!(!d.has_errors(), "{}", d.render(&map));
        f
    }

    #[test]
    fn assignment_operators_join() {
        assert_eq!(toks("a +:= b")[1], T::Op("+:="));
        assert_eq!(toks("a := b")[1], T::Op(":="));
        assert_eq!(toks("a :=: b")[1], T::Op(":=:"));
        // apart, they stay apart: a colon then an equality
        assert_eq!(&toks("a : = b")[1..3], &[T::Op(":"), T::Op("=")]);
    }

    #[test]
    fn line_breaks_separate_only_between_ends_and_beginnings() {
        // `x +` / `y`: `+` cannot end a line, no separator
        assert!(!toks("x := a +\n b\n").iter().take(4).any(|t| *t == T::Sep));
        // `a` / `b`: both can, one separator
        assert_eq!(toks("a\nb").iter().filter(|t| **t == T::Sep).count(), 2);
        // MPD-only words are names in SR
        assert_eq!(toks("for")[0], T::Id("for".into()));
        assert_eq!(toks("fa")[0], T::Kw("fa"));
    }

    fn body_items(f: &SourceFile) -> &[Stmt] {
        &f.components[0].body.as_ref().unwrap().items
    }

    #[test]
    fn guarded_loops() {
        let f = parse_ok("resource r()\n var x := 1\n do x < 3 -> x++ od\n do x > 9 -> x-- [] x < 5 -> x++ od\nend\n");
        let items = body_items(&f);
        assert!(matches!(items[1].kind, StmtKind::While { .. }));
        // several guards: while true { if .. else exit }
        let StmtKind::While { cond, body } = &items[2].kind else { panic!("not a loop") };
        assert!(matches!(cond.kind, ExprKind::Bool(true)));
        let StmtKind::If { arms, else_block: Some(e) } = &body.stmts[0].kind else { panic!("not an if") };
        assert_eq!(arms.len(), 2);
        assert!(matches!(e.stmts[0].kind, StmtKind::Exit));
    }

    #[test]
    fn declarations_and_headings() {
        let f = parse_ok(
            "resource r\n op f(a[1:*] : int; var s : string[5]) returns n : int\nbody r(k : int)\n \
             var a, b[1:2] : int, c := 'x'\n proc f(a, s) returns n\n n := 1\n end\n \
             process p(i := 1 to k)\n skip\n end\nend r\n",
        );
        let c = &f.components[0];
        assert_eq!(c.form, ComponentForm::Combined);
        let StmtKind::Decl(Decl { kind: DeclKind::Op(op), .. }) = &c.spec[0].kind else { panic!("no op") };
        let OpSig::Explicit { params, returns: Some(r), .. } = &op.sig else { panic!("sig") };
        assert_eq!(params.len(), 2);
        assert_eq!(params[1].mode, ParamMode::Var);
        assert_eq!(r.name.as_ref().unwrap().name, "n");
        let items = body_items(&f);
        // `var a, b[1:2] : int, c := 'x'`: two declarations
        assert!(matches!(&items[0].kind, StmtKind::Decl(Decl { kind: DeclKind::Var(v), .. }) if v.vars.len() == 2));
        assert!(matches!(&items[1].kind, StmtKind::Decl(Decl { kind: DeclKind::Var(v), .. }) if v.ty.is_none()));
        assert!(
            matches!(&items[2].kind, StmtKind::Decl(Decl { kind: DeclKind::Proc(p), .. }) if p.kind == ProcKind::Proc)
        );
        assert!(matches!(&items[3].kind, StmtKind::Decl(Decl { kind: DeclKind::Proc(p), .. }) if p.quants.len() == 1));
    }

    #[test]
    fn procedure_is_a_call_op_and_its_proc() {
        let mut map = SourceMap::new();
        let mut d = Diagnostics::new();
        let f = crate::syntax::parse_source(
            &mut map,
            "t.sr",
            "resource r()\n procedure p(real; x : int)\n end\nend\n",
            &mut d,
        );
        assert!(!d.has_errors());
        assert!(d.render(&map).contains("unnamed parameter is inaccessible"));
        let items = body_items(&f);
        let StmtKind::Decl(Decl { kind: DeclKind::Op(op), .. }) = &items[0].kind else { panic!("no op") };
        assert!(matches!(&op.sig, OpSig::Explicit { restriction: Some(r), .. } if r.call && !r.send));
        let StmtKind::Decl(Decl { kind: DeclKind::Proc(p), .. }) = &items[1].kind else { panic!("no proc") };
        assert_eq!(p.formals.len(), 2);
    }

    #[test]
    fn errors_are_located_and_do_not_stop_the_parse() {
        let mut map = SourceMap::new();
        let mut d = Diagnostics::new();
        let src = "resource r()\n x == 1\n y := )\n write(2)\nend\n";
        crate::syntax::parse_source(&mut map, "t.sr", src, &mut d);
        assert!(d.error_count() >= 2);
        assert!(d.render(&map).contains("t.sr:2:"));
    }
}
