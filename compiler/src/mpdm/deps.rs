//! deps: the dependency report of `mpd -M` — which components each source file
//! defines and which names each of them imports — and how mpdm reads it back.
//!
//! The report is plain text, one fact a line, so any compiler given to mpdm with
//! `-c` can produce it:
//!
//! ```text
//! file main.mpd
//! component resource combined A
//! import spec B
//! import body g
//! ```
//!
//! `component KIND FORM NAME` starts a component of the latest `file`; KIND is
//! `resource` or `global`, FORM one of `combined`, `simple`, `spec`, `separate`
//! (spec whose body is compiled apart) or `body` (such a separate body).
//! `import spec|body NAME` lists, in source order, the names imported (or
//! extended) by the component's spec part or body part; body imports include
//! those written inside blocks and procs.
use crate::syntax::{self, ast, Diagnostics, SourceMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Resource,
    Global,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// spec and body in one component (`resource r ... body r() ... end`).
    Combined,
    /// `resource r() ... end`: no separate spec part.
    Simple,
    /// spec only: an abstract resource or a global without body.
    SpecOnly,
    /// spec ending in `body r() separate`.
    SeparateSpec,
    /// `body r ... end`: the separately written body of a spec.
    SeparateBody,
}

impl Form {
    fn word(self) -> &'static str {
        match self {
            Form::Combined => "combined",
            Form::Simple => "simple",
            Form::SpecOnly => "spec",
            Form::SeparateSpec => "separate",
            Form::SeparateBody => "body",
        }
    }
    fn from_word(w: &str) -> Option<Form> {
        [Form::Combined, Form::Simple, Form::SpecOnly, Form::SeparateSpec, Form::SeparateBody]
            .into_iter()
            .find(|f| f.word() == w)
    }
    /// Whether this form holds the component's spec.
    pub fn has_spec(self) -> bool {
        self != Form::SeparateBody
    }
    /// Whether this form holds the component's body code.
    pub fn has_body(self) -> bool {
        matches!(self, Form::Combined | Form::Simple | Form::SeparateBody)
    }
}

/// One component as found in a source file.
#[derive(Clone, Debug, PartialEq)]
pub struct CompDeps {
    pub kind: Kind,
    pub form: Form,
    pub name: String,
    /// Names imported or extended by the spec part, in source order.
    pub spec_imports: Vec<String>,
    /// Names imported by the body part (anywhere in it), in source order.
    pub body_imports: Vec<String>,
}

/// The components of one source file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileDeps {
    pub path: String,
    pub comps: Vec<CompDeps>,
}

/// Parses `paths` (syntax only: imports need not be compiled yet) and returns their
/// components; on an unreadable file or syntax errors, reports them on stderr and
/// returns `None`.
pub fn scan(paths: &[String]) -> Option<Vec<FileDeps>> {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let mut parsed = Vec::new();
    for p in paths {
        let bytes = std::fs::read(p).map_err(|e| eprintln!("mpd: cannot read {}: {}", p, e)).ok()?;
        let id = map.add_bytes(p.clone(), &bytes);
        parsed.push((p.clone(), syntax::parse_file(&map, id, &mut diags)));
    }
    if diags.has_errors() {
        diags.emit_stderr(&map);
        return None;
    }
    Some(
        parsed
            .into_iter()
            .map(|(path, f)| FileDeps { path, comps: f.components.iter().map(component).collect() })
            .collect(),
    )
}

fn component(c: &ast::Component) -> CompDeps {
    let form = match c.form {
        ast::ComponentForm::Combined => Form::Combined,
        ast::ComponentForm::Simple => Form::Simple,
        ast::ComponentForm::SpecOnly => Form::SpecOnly,
        ast::ComponentForm::SeparateSpec => Form::SeparateSpec,
        ast::ComponentForm::SeparateBody => Form::SeparateBody,
    };
    let kind = if c.kind == ast::ComponentKind::Global { Kind::Global } else { Kind::Resource };
    let mut spec_imports = Vec::new();
    imports_in(&c.spec, &mut spec_imports);
    let mut body_imports = Vec::new();
    if let Some(b) = &c.body {
        imports_in(&b.items, &mut body_imports);
    }
    CompDeps { kind, form, name: c.name.name.clone(), spec_imports, body_imports }
}

/// Appends the names imported or extended anywhere in `stmts` (nested blocks too).
fn imports_in(stmts: &[ast::Stmt], out: &mut Vec<String>) {
    use ast::StmtKind as S;
    for s in stmts {
        match &s.kind {
            S::Decl(d) => match &d.kind {
                ast::DeclKind::Import { names, .. } => out.extend(names.iter().map(|n| n.name.clone())),
                ast::DeclKind::Proc(p) => imports_in(&p.body.stmts, out),
                ast::DeclKind::Final(b) => imports_in(&b.stmts, out),
                _ => {}
            },
            S::If { arms, else_block } => {
                for a in arms {
                    imports_in(&a.body.stmts, out);
                }
                if let Some(b) = else_block {
                    imports_in(&b.stmts, out);
                }
            }
            S::While { body, .. } | S::For { body, .. } | S::Begin(body) => imports_in(&body.stmts, out),
            S::In(i) => {
                for a in &i.arms {
                    imports_in(&a.body.stmts, out);
                }
                if let Some(b) = &i.else_block {
                    imports_in(&b.stmts, out);
                }
            }
            S::Co(c) => {
                for a in &c.arms {
                    if let Some(b) = &a.post {
                        imports_in(&b.stmts, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The text of the report for `files`.
pub fn report(files: &[FileDeps]) -> String {
    let mut s = String::new();
    for f in files {
        s.push_str(&format!("file {}\n", f.path));
        for c in &f.comps {
            let kind = if c.kind == Kind::Global { "global" } else { "resource" };
            s.push_str(&format!("component {} {} {}\n", kind, c.form.word(), c.name));
            for n in &c.spec_imports {
                s.push_str(&format!("import spec {}\n", n));
            }
            for n in &c.body_imports {
                s.push_str(&format!("import body {}\n", n));
            }
        }
    }
    s
}

/// `mpd -M files`: prints the report on stdout; returns the exit status.
pub fn print_report(paths: &[String]) -> i32 {
    match scan(paths) {
        Some(files) => {
            print!("{}", report(&files));
            0
        }
        None => 1,
    }
}

/// Reads a report back; the error names the first line that does not fit.
pub fn parse_report(text: &str) -> Result<Vec<FileDeps>, String> {
    let mut files: Vec<FileDeps> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = || format!("line {} of the dependency report not understood: {:?}", i + 1, line);
        if let Some(path) = line.strip_prefix("file ") {
            files.push(FileDeps { path: path.to_string(), comps: Vec::new() });
            continue;
        }
        let w: Vec<&str> = line.split(' ').collect();
        match w.as_slice() {
            ["component", kind, form, name] => {
                let kind = match *kind {
                    "resource" => Kind::Resource,
                    "global" => Kind::Global,
                    _ => return Err(bad()),
                };
                let form = Form::from_word(form).ok_or_else(bad)?;
                let f = files.last_mut().ok_or_else(bad)?;
                let c = CompDeps { kind, form, name: name.to_string(), spec_imports: vec![], body_imports: vec![] };
                f.comps.push(c);
            }
            ["import", part, name] => {
                let c = files.last_mut().and_then(|f| f.comps.last_mut()).ok_or_else(bad)?;
                match *part {
                    "spec" => c.spec_imports.push(name.to_string()),
                    "body" => c.body_imports.push(name.to_string()),
                    _ => return Err(bad()),
                }
            }
            [""] => {}
            _ => return Err(bad()),
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(src: &str) -> Vec<CompDeps> {
        let mut map = SourceMap::new();
        let mut d = Diagnostics::new();
        let f = syntax::parse_source(&mut map, "t.mpd", src, &mut d);
        assert!(!d.has_errors());
        f.components.iter().map(component).collect()
    }

    #[test]
    fn imports_by_part_and_nesting() {
        let c = scan_text(
            "resource a\n import b\n extend c\nbody a()\n import d\n if (true) { import e }\n \
             proc p() { begin { import f } }\nend\n",
        );
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].form, Form::Combined);
        assert_eq!(c[0].spec_imports, vec!["b", "c"]);
        assert_eq!(c[0].body_imports, vec!["d", "e", "f"]);
    }

    #[test]
    fn forms() {
        let c = scan_text(
            "global g\n int x\nend\nresource r\nbody r() separate\nbody r\nend\nresource s()\n import r\nend\n",
        );
        let forms: Vec<Form> = c.iter().map(|c| c.form).collect();
        assert_eq!(forms, vec![Form::SpecOnly, Form::SeparateSpec, Form::SeparateBody, Form::Simple]);
        assert_eq!(c[0].kind, Kind::Global);
        assert_eq!(c[3].body_imports, vec!["r"]);
    }

    #[test]
    fn report_roundtrip() {
        let files = vec![FileDeps {
            path: "dir with space/m.mpd".into(),
            comps: scan_text("resource a\n import b\nbody a()\n import c\nend\nglobal g\nend\n"),
        }];
        assert_eq!(parse_report(&report(&files)).unwrap(), files);
        assert!(parse_report("component resource combined a\n").is_err());
        assert!(parse_report("file x\ncomponent thing combined a\n").is_err());
    }
}
