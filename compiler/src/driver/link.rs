//! link: what mpdl does — find component objects in MPDinter, write the start-up
//! file MPDinter/_ofile.c that runs the main resource, and link with libmpdrt.
use super::cc::{self, CcOpts};
use super::MpdlOpts;
use crate::emit::names;
use crate::inter::Inter;
use std::path::PathBuf;

pub fn list_limits() {
    println!("MPD runtime limits: none fixed; processes, operations, resources, semaphores and");
    println!("co statements are limited only by memory.  -S n sets the process stack size;");
    println!("-L n the loop iterations between context switches (default {}); -R n the active", names::DEFAULT_SLICE);
    println!("resources (default: no limit).");
}

/// Links the named components; the last resource named is the main one.
pub fn link(o: &MpdlOpts, optimize: bool) -> i32 {
    let me = o.lang.linker(); // messages in the language's words: mpdl or srl
    let inter = Inter::named(o.inter.as_deref(), o.lang.inter_dir(), o.lang.path_var());
    let mut objs: Vec<PathBuf> = Vec::new();
    let mut needs: Vec<String> = Vec::new();
    let mut main: Option<String> = None;
    for c in &o.components {
        let Some(obj) = inter.find_object(c) else {
            eprintln!(
                "{}: component {} not found (no {}/{}.o); compile it with {} first",
                me,
                c,
                inter.dir.display(),
                c,
                o.lang.compiler()
            );
            return 1;
        };
        // a library component's C part and system libraries (MPDWin: X11),
        // linked only into programs that use it
        for n in Inter::link_needs(&obj) {
            if !needs.contains(&n) {
                needs.push(n);
            }
        }
        objs.push(obj);
        match inter.read_spec(c) {
            Some(s) if s.kind == "global" => {}
            Some(_) => main = Some(c.clone()),
            None => {
                eprintln!("{}: no specification for {} in {}", me, c, inter.dir.display());
                return 1;
            }
        }
    }
    let Some(main) = main else {
        eprintln!("{}: no resource named; the last resource named is the main one", me);
        return 1;
    };
    let stack = o.limits.iter().rev().find(|(l, _)| *l == 'S').map(|(_, v)| v.clone());
    let slice = o.limits.iter().rev().find(|(l, _)| *l == 'L').map(|(_, v)| v.clone());
    let max_res = o.limits.iter().rev().find(|(l, _)| *l == 'R').map(|(_, v)| v.clone());
    let prefix = if o.lang == super::Lang::Sr { Some("SR_") } else { None };
    let stub = names::start_file_env(&main, stack.as_deref(), slice.as_deref(), max_res.as_deref(), prefix);
    if let Err(e) = inter.create() {
        eprintln!("{}: {}", me, e);
        return 1;
    }
    let c_file = inter.path("_ofile", "c");
    let o_file = inter.path("_ofile", "o");
    if let Err(e) = std::fs::write(&c_file, stub) {
        eprintln!("{}: cannot write {}: {}", me, c_file.display(), e);
        return 1;
    }
    let co = CcOpts { optimize, debug: o.debug, verbose: o.verbose };
    if let Err(e) = cc::compile(&c_file, &o_file, &co) {
        eprintln!("{}: internal error compiling {}:\n{}", me, c_file.display(), e);
        return 1;
    }
    objs.push(o_file);
    let out = PathBuf::from(o.output.clone().unwrap_or_else(|| "a.out".to_string()));
    let Some(mut others) = extra_files(&inter, &o.others, o.lang) else {
        return 1;
    };
    // after the command line's files: an archive there only fills what they
    // leave undefined; an object already linked as a component is not repeated
    let linked: Vec<PathBuf> = objs.iter().filter_map(|p| p.canonicalize().ok()).collect();
    others.extend(needs.into_iter().filter(|n| !PathBuf::from(n).canonicalize().is_ok_and(|c| linked.contains(&c))));
    if let Err(e) = cc::link(&objs, &others, &out, &co) {
        eprintln!("{}: link failed:\n{}", me, e);
        return 1;
    }
    0
}

/// Resolves the object files and archives named on the command line (see
/// `Inter::find_extra`); `-lxx` and other options pass through unchanged.
fn extra_files(inter: &Inter, others: &[String], lang: super::Lang) -> Option<Vec<String>> {
    let lib_dir = super::paths::root().join("lib");
    let mut out = Vec::new();
    for a in others {
        if a.starts_with('-') {
            out.push(a.clone());
            continue;
        }
        match inter.find_extra(a, &lib_dir) {
            Some(p) => out.push(p.to_string_lossy().into_owned()),
            None => {
                eprintln!(
                    "{}: cannot find {} (looked in {}, ., {} and {})",
                    lang.linker(),
                    a,
                    lang.path_var(),
                    inter.dir.display(),
                    lib_dir.display()
                );
                return None;
            }
        }
    }
    Some(out)
}
