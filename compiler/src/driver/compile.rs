//! compile: what `mpd` does with its .mpd files — parse, check, generate C, write
//! specs into MPDinter and compile each component to an object file.
use super::cc::{self, CcOpts};
use super::MpdOpts;
use crate::check::{self, Iface};
use crate::inter::{Inter, StoredSpec};
use crate::syntax::{self, ast, Diagnostics, SourceMap};
use std::collections::{BTreeMap, HashMap};

/// Set when a message has told the user that a file was kept for them to
/// look at: `mpd run` must then not remove its private directory.
pub static KEPT_FILES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Compiles the sources of `o`; returns the component names in order (for linking)
/// or the exit status on failure.
pub fn compile(o: &MpdOpts) -> Result<Vec<String>, i32> {
    let inter = Inter::named(o.inter.as_deref(), o.lang.inter_dir(), o.lang.path_var());
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let files = parse_sources(o, &mut map, &mut diags)?;
    if diags.has_errors() {
        diags.emit_stderr(&map);
        return Err(error_status(&diags));
    }
    // interfaces of components compiled in earlier runs, for imports: the spec
    // part of each (its body, and what the body imports, are its own business),
    // and transitively the components those spec parts import
    let mut ifaces: BTreeMap<String, Iface> = BTreeMap::new();
    let here: Vec<String> = files.iter().flat_map(|(f, _)| f.components.iter().map(|c| c.name.name.clone())).collect();
    let imported_files = imported_specs(&inter, &files, &here, &mut map, &mut diags);
    let opts = check::Opts {
        no_checks: o.optimize,
        no_fold: o.no_fold,
        lines: true,
        no_slice: o.no_slice,
        audit_types: std::env::var_os("MPD_AUDIT_TYPES").is_some(),
    };
    let mut types = check::types::Types::default();
    let mut specs = HashMap::new();
    // imported specs and this run's components are checked together, in import
    // order; only this run's components give output
    let n_imported = imported_files.len();
    let mut all = imported_files;
    if o.specs_only {
        // -s is the first pass only: bodies may import what is not compiled yet
        all.extend(files.iter().map(|(f, n)| (spec_part(f), n.clone())));
    } else {
        all.extend(files.iter().cloned());
    }
    let outs = check::check_files(&map, &all, &mut diags, &opts, &mut ifaces, &mut types, &mut specs);
    let imported_names: Vec<String> =
        all[..n_imported].iter().flat_map(|(f, _)| f.components.iter().map(|c| c.name.name.clone())).collect();
    let outs: Vec<_> =
        outs.into_iter().filter(|o| here.contains(&o.name) || !imported_names.contains(&o.name)).collect();
    if diags.has_errors() {
        diags.emit_stderr(&map);
        return Err(error_status(&diags));
    }
    if !o.no_warn && !diags.is_empty() {
        diags.emit_stderr(&map);
    }
    if o.deps_only {
        return Ok(vec![]);
    }
    if let Err(e) = inter.create() {
        eprintln!("mpd: {}", e);
        return Err(1);
    }
    write_specs(o, &inter, &map, &files)?;
    if o.specs_only {
        return Ok(vec![]);
    }
    // as MPD 1.0.1's mpd: components imported but compiled elsewhere (earlier
    // mpd -c runs, the MPD library) are linked too, before this run's ones
    let mut names: Vec<String> = imported_names.iter().filter(|n| !here.contains(n)).cloned().collect();
    // their bodies' imports too (the checker needs only specs, the link all)
    let bodies: Vec<String> =
        files.iter().flat_map(|(f, _)| f.components.iter().flat_map(|c| imports_of(c, true))).collect();
    for n in linked_imports(&inter, &names, &bodies) {
        if !here.contains(&n) && !names.contains(&n) {
            names.push(n);
        }
    }
    compile_outputs(o, &inter, &outs, &mut names)?;
    Ok(names)
}

/// Reads and parses each source file of `o`, in order.
fn parse_sources(
    o: &MpdOpts,
    map: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Result<Vec<(ast::SourceFile, String)>, i32> {
    let mut files: Vec<(ast::SourceFile, String)> = Vec::new();
    for src in &o.sources {
        let bytes = match std::fs::read(src) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("mpd: cannot read {}: {}", src, e);
                return Err(1);
            }
        };
        if !o.quiet && o.verbose {
            eprintln!("{}:", src);
        }
        let id = map.add_bytes(src.clone(), &bytes);
        let f = syntax::parse_file(&map, id, diags);
        files.push((f, src.clone()));
    }
    Ok(files)
}

/// The spec parts, from MPDinter, of the components this run's files import (and, for a
/// separate body, its own spec), transitively; a component comes after those it imports.
fn imported_specs(
    inter: &Inter,
    files: &[(ast::SourceFile, String)],
    here: &[String],
    map: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Vec<(ast::SourceFile, String)> {
    let mut imported_files: Vec<(ast::SourceFile, String)> = Vec::new();
    let mut wanted: Vec<String> = Vec::new();
    for (f, _) in files {
        for c in &f.components {
            wanted.extend(imports_of(c, true));
            if c.form == ast::ComponentForm::SeparateBody {
                wanted.push(c.name.name.clone());
            }
        }
    }
    let mut looked: Vec<String> = Vec::new();
    while let Some(name) = wanted.pop() {
        if looked.contains(&name) {
            continue;
        }
        looked.push(name.clone());
        let separate_body_here = files.iter().any(|(f, _)| {
            f.components.iter().any(|c| c.name.name == name && c.form == ast::ComponentForm::SeparateBody)
        });
        let spec_here = files.iter().any(|(f, _)| {
            f.components.iter().any(|c| c.name.name == name && c.form != ast::ComponentForm::SeparateBody)
        });
        if spec_here || (here.contains(&name) && !separate_body_here) {
            continue;
        }
        if let Some(spec) = inter.read_spec(&name) {
            let id = map.add(spec.file.clone(), spec.text.clone());
            let sf = spec_part(&syntax::parse_file(&map, id, diags));
            for c in &sf.components {
                wanted.extend(imports_of(c, false));
            }
            imported_files.push((sf, spec.file.clone()));
        }
    }
    // a component comes after those it imports (check_files orders them, too)
    imported_files.reverse();
    imported_files
}

/// Writes each component's spec (its source text) into MPDinter.
fn write_specs(o: &MpdOpts, inter: &Inter, map: &SourceMap, files: &[(ast::SourceFile, String)]) -> Result<(), i32> {
    // specs: the source text of each component
    for (f, name) in files {
        let text = map.source(f.file);
        for c in &f.components {
            let lo = c.span.lo as usize;
            let hi = (c.span.hi as usize).min(text.len());
            let body = text.get(lo..hi).unwrap_or("");
            let line = map.line_col(f.file, c.span.lo).0 as u32;
            // keep line numbers: pad with newlines up to the component's first line
            let padded = format!("{}{}\n", "\n".repeat(line.saturating_sub(1) as usize), body);
            let spec = StoredSpec {
                kind: if c.kind == ast::ComponentKind::Global { "global".into() } else { "resource".into() },
                line,
                file: name.clone(),
                text: padded,
            };
            if !o.bodies_only && c.form != ast::ComponentForm::SeparateBody {
                if let Err(e) = inter.write_spec(&c.name.name, &spec) {
                    eprintln!("mpd: {}", e);
                    return Err(1);
                }
            }
        }
    }
    Ok(())
}

/// Writes each generated C file and compiles it to an object file; the component
/// goes to the end of `names`.
fn compile_outputs(o: &MpdOpts, inter: &Inter, outs: &[check::CompOut], names: &mut Vec<String>) -> Result<(), i32> {
    let co = CcOpts { optimize: o.optimize, debug: o.debug, verbose: o.verbose };
    for out in outs {
        let c_file = inter.path(&out.name, "c");
        if let Err(e) = std::fs::write(&c_file, &out.c) {
            eprintln!("mpd: cannot write {}: {}", c_file.display(), e);
            return Err(1);
        }
        // a spec and its separate body compiled in one run give one component
        names.retain(|n| *n != out.name);
        names.push(out.name.clone());
        if o.keep_c {
            continue;
        }
        let obj = inter.path(&out.name, "o");
        if let Err(e) = cc::compile(&c_file, &obj, &co) {
            KEPT_FILES.store(true, std::sync::atomic::Ordering::Relaxed);
            eprintln!(
                "mpd: internal error: the C compiler rejected the code generated for {} (kept in {}):\n{}",
                out.name,
                c_file.display(),
                e
            );
            return Err(1);
        }
        if !o.debug {
            let _ = std::fs::remove_file(&c_file);
        }
    }
    Ok(())
}

/// `f` with its bodies emptied (parameters kept) and separate bodies dropped.
fn spec_part(f: &ast::SourceFile) -> ast::SourceFile {
    let mut f = f.clone();
    f.components.retain(|c| c.form != ast::ComponentForm::SeparateBody);
    for c in &mut f.components {
        if let Some(b) = &mut c.body {
            b.items.clear();
        }
    }
    f
}

/// Names a component imports in its spec, and in its body if `body`.
fn imports_of(c: &ast::Component, body: bool) -> Vec<String> {
    let mut out = Vec::new();
    let body_items = c.body.as_ref().filter(|_| body).map(|b| b.items.as_slice()).unwrap_or(&[]);
    for s in c.spec.iter().chain(body_items.iter()) {
        if let ast::StmtKind::Decl(d) = &s.kind {
            if let ast::DeclKind::Import { names, .. } = &d.kind {
                out.extend(names.iter().map(|n| n.name.clone()));
            }
        }
    }
    out
}

/// The components compiled elsewhere that `names` and `more` need at link
/// time: those they import, spec or body, found with an object, transitively.
fn linked_imports(inter: &Inter, names: &[String], more: &[String]) -> Vec<String> {
    let mut todo: Vec<String> = names.iter().chain(more.iter()).cloned().collect();
    let mut seen: Vec<String> = Vec::new();
    while let Some(n) = todo.pop() {
        if seen.contains(&n) {
            continue;
        }
        seen.push(n.clone());
        let (Some(spec), Some(_)) = (inter.read_spec(&n), inter.find_object(&n)) else {
            continue;
        };
        let mut map = SourceMap::new();
        let mut diags = Diagnostics::new();
        let id = map.add(spec.file.clone(), spec.text.clone());
        let f = syntax::parse_file(&map, id, &mut diags);
        todo.extend(f.components.iter().flat_map(|c| imports_of(c, true)));
    }
    seen.retain(|n| inter.find_object(n).is_some());
    seen
}

/// MPD's exit status after compile errors: the number of errors (1..=255).
fn error_status(d: &Diagnostics) -> i32 {
    d.error_count().clamp(1, 255) as i32
}
