//! mpdm: the makefile generator of MPD 1.0.1. It asks the compiler (`mpd -M`) which
//! components the .mpd files define and import, works out the main resource and the
//! order of compilation, and writes a makefile that builds the program with mpd and
//! mpdl. See docs/man/mpdm.1.
pub mod deps;
pub mod plan;
pub mod write;

use crate::driver::Lang;
use std::path::PathBuf;
use std::process::Command;

const USAGE: &str = "usage: mpdm [-f mfile] [-I dir] [-o ofile] [-c compiler] [-m res] [-v] [-w] \
                     [-C opts] [-L opts] [-R args] [-Z files] file.mpd ... [file.c file.o file.a -lxx ...]";

/// The command line of one mpdm run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opts {
    pub makefile: Option<String>,
    pub inter: Option<String>,
    pub exe: Option<String>,
    pub compiler: Option<String>,
    pub main: Option<String>,
    pub verbose: bool,
    pub wide: bool,
    /// -C, -L, -R, -Z: each one word list; a later option replaces an earlier
    /// one (MPDMOPTS are read first, so the command line overrides them).
    pub mpd_opts: Option<String>,
    pub mpdl_opts: Option<String>,
    pub run_args: Option<String>,
    pub cleanx: Option<String>,
    /// .mpd files, in order.
    pub sources: Vec<String>,
    /// .c .o .a .so files and -lxx libraries, in order.
    pub extras: Vec<String>,
    /// mpdm or srm.
    pub lang: Lang,
}

/// Parses mpdm's arguments (program name excluded). Options may be clustered
/// (`-vw`) and take their value attached (`-fmk`) or as the next argument.
pub fn parse_args(args: &[String]) -> Result<Opts, String> {
    parse_args_for(args, Lang::Mpd)
}

/// `parse_args` for the makefile generator of `lang` (sources end in its suffix).
pub fn parse_args_for(args: &[String], lang: Lang) -> Result<Opts, String> {
    let mut o = Opts { lang, ..Default::default() };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a.starts_with("-l") && a.len() > 2 {
            o.extras.push(a.clone());
            continue;
        }
        if !a.starts_with('-') || a == "-" {
            if a.ends_with(lang.suffix()) {
                o.sources.push(a.clone());
            } else if [".c", ".o", ".a", ".so"].iter().any(|s| a.ends_with(s)) {
                o.extras.push(a.clone());
            } else {
                return Err(format!(
                    "don't know what to do with {} (expected {}, .c, .o, .a files or -lxx)",
                    a,
                    lang.suffix()
                ));
            }
            continue;
        }
        let flags: Vec<char> = a[1..].chars().collect();
        for (k, &f) in flags.iter().enumerate() {
            match f {
                'v' => o.verbose = true,
                'w' => o.wide = true,
                'f' | 'I' | 'o' | 'c' | 'm' | 'C' | 'L' | 'R' | 'Z' => {
                    let rest: String = flags[k + 1..].iter().collect();
                    let val = if !rest.is_empty() {
                        rest
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        return Err(format!("option -{} needs a value", f));
                    };
                    match f {
                        'f' => o.makefile = Some(val),
                        'I' => o.inter = Some(val),
                        'o' => o.exe = Some(val),
                        'c' => o.compiler = Some(val),
                        'm' => o.main = Some(val),
                        'C' => o.mpd_opts = Some(val),
                        'L' => o.mpdl_opts = Some(val),
                        'R' => o.run_args = Some(val),
                        _ => o.cleanx = Some(val),
                    }
                    break;
                }
                _ => return Err(format!("unknown option -{}", f)),
            }
        }
    }
    Ok(o)
}

/// Entry point of the `mpdm` binary; returns the exit status.
pub fn mpdm_main() -> i32 {
    maker_main(Lang::Mpd)
}

/// Entry point of the `srm` binary.
pub fn srm_main() -> i32 {
    maker_main(Lang::Sr)
}

fn maker_main(lang: Lang) -> i32 {
    let me = lang.maker();
    let usage = USAGE.replace("mpdm", me).replace(".mpd", lang.suffix());
    let given: Vec<String> = std::env::args().skip(1).collect();
    let mut args: Vec<String> = std::env::var(format!("{}OPTS", me.to_uppercase()))
        .map(|v| v.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    args.extend(given.iter().cloned());
    let o = match parse_args_for(&args, lang) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{}: {}\n{}", me, e, usage);
            return 1;
        }
    };
    if o.sources.is_empty() {
        eprintln!("{}: no {} files given\n{}", me, lang.suffix(), usage);
        return 1;
    }
    match run(&o, &given) {
        Ok(()) => 0,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("{}: {}", me, e);
            }
            1
        }
    }
}

fn run(o: &Opts, given: &[String]) -> Result<(), String> {
    for s in &o.sources {
        if let Err(e) = std::fs::metadata(s) {
            return Err(format!("cannot read {}: {}", s, e));
        }
        if s.contains('\n') {
            return Err(format!("file name {:?} holds a newline", s));
        }
    }
    let files = ask_compiler(o)?;
    let inter_base = o.inter.clone().unwrap_or_else(|| ".".to_string());
    let me = o.lang.maker();
    let mut search: Vec<PathBuf> = std::env::var(o.lang.path_var())
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    search.push(PathBuf::from(&inter_base).join(o.lang.inter_dir()));
    // the MPD library (MPDgetopt, MPDWin): compiled already, like MPD_PATH's
    search.push(crate::driver::paths::library_dir());
    let mut notes = plan::Notes::default();
    let p = plan::plan(&files, o.main.as_deref(), &search, &mut notes);
    for w in &notes.warnings {
        eprintln!("{}: warning: {}", me, w);
    }
    for e in &notes.errors {
        eprintln!("{}: {}", me, e);
    }
    let Some(p) = p else {
        return Err("no makefile written".to_string());
    };
    if o.verbose {
        describe(&p, me);
    }
    let text = write::makefile(&p, &layout(o, given));
    match o.makefile.as_deref().unwrap_or("Makefile") {
        "-" => {
            print!("{}", text);
            Ok(())
        }
        path => {
            if let Ok(old) = std::fs::read_to_string(path) {
                if old.lines().next() != Some(write::header(o.lang).as_str()) {
                    return Err(format!("{} exists and was not created by {}; not overwritten", path, me));
                }
            } else if std::path::Path::new(path).exists() {
                return Err(format!("{} exists and was not created by {}; not overwritten", path, me));
            }
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {}", path, e))?;
            if o.verbose {
                eprintln!("{}: wrote {}", me, path);
            }
            Ok(())
        }
    }
}

/// Runs `compiler -M` on the sources and reads its report. The compiler is the -c
/// choice, else the `mpd` installed beside mpdm, else `mpd` from PATH.
fn ask_compiler(o: &Opts) -> Result<Vec<deps::FileDeps>, String> {
    let compiler = o.compiler.clone().unwrap_or_else(|| default_compiler(o.lang));
    if o.verbose {
        eprintln!("{}: {} -M {}", o.lang.maker(), compiler, o.sources.join(" "));
    }
    let out = Command::new(&compiler)
        .arg("-M")
        .args(&o.sources)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run the compiler {}: {}", compiler, e))?;
    if !out.status.success() {
        return Err(format!("{} found errors in the sources; no makefile written", compiler));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let files = deps::parse_report(&text).map_err(|e| format!("{}: {}", compiler, e))?;
    if files.len() != o.sources.len() {
        return Err(format!("{} -M reported on {} files, not {}", compiler, files.len(), o.sources.len()));
    }
    Ok(files)
}

fn default_compiler(lang: Lang) -> String {
    if let Ok(me) = std::env::current_exe() {
        if let Some(dir) = me.parent() {
            let beside = dir.join(lang.compiler());
            if beside.is_file() {
                return beside.to_string_lossy().into_owned();
            }
        }
    }
    lang.compiler().to_string()
}

/// The makefile's settings from the command line.
fn layout<'a>(o: &'a Opts, given: &[String]) -> write::Layout<'a> {
    let inter = match &o.inter {
        Some(d) => format!("{}/{}", d, o.lang.inter_dir()),
        None => format!("./{}", o.lang.inter_dir()),
    };
    // MPD's places: MPDFLAGS = -I dir opts; mpdl opts -o exe -I dir comps
    let mpd_flags = match (&o.inter, &o.mpd_opts) {
        (Some(d), Some(c)) => format!("-I {} {}", d, c),
        (Some(d), None) => format!("-I {}", d),
        (None, c) => c.clone().unwrap_or_default(),
    };
    let as_object = |e: &String| match e.strip_suffix(".c") {
        Some(stem) => format!("{}.o", stem),
        None => e.clone(),
    };
    let mut sources = o.sources.clone();
    sources.extend(o.extras.iter().filter(|e| e.ends_with(".c")).cloned());
    let mut remake = vec![o.lang.maker().to_string()];
    remake.extend(given.iter().map(|a| shell_word(a)));
    write::Layout {
        inter,
        exe: o.exe.as_deref().unwrap_or("a.out"),
        mpd_flags,
        mpdl_flags: o.mpdl_opts.clone().unwrap_or_default(),
        link_inter: o.inter.clone(),
        run_args: o.run_args.clone().unwrap_or_default(),
        cleanx_files: o.cleanx.iter().cloned().collect(),
        sources,
        extras: o.extras.iter().map(as_object).collect(),
        c_objects: o.extras.iter().filter(|e| e.ends_with(".c")).map(as_object).collect(),
        remake: remake.join(" "),
        wide: o.wide,
        lang: o.lang,
    }
}

/// `a` quoted for the shell when it holds characters the shell would interpret.
fn shell_word(a: &str) -> String {
    let plain = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=+,:@%".contains(c));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''")).replace('$', "$$")
    }
}

/// -v: what mpdm found.
fn describe(p: &plan::Plan, me: &str) {
    for c in &p.comps {
        let what = if c.kind == deps::Kind::Global { "global" } else { "resource" };
        let imports: Vec<&str> = c.spec_imports.iter().chain(&c.body_imports).map(String::as_str).collect();
        eprintln!(
            "{}: {} {}: spec in {}, {}{}",
            me,
            what,
            c.name,
            c.spec_file.as_deref().unwrap_or("?"),
            match &c.body_file {
                Some(b) => format!("object from {}", b),
                None => "no object".to_string(),
            },
            if imports.is_empty() { String::new() } else { format!("; imports {}", imports.join(", ")) }
        );
    }
    for e in &p.externals {
        eprintln!("{}: {} is compiled elsewhere; linked only", me, e);
    }
    eprintln!("{}: main resource {}", me, p.main);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_and_files() {
        let o = parse_args(&v("-w -c /x/mpd -fmk -m main -vC -O a.mpd b.mpd -lm x.a y.o z.c")).unwrap();
        assert!(o.wide && o.verbose);
        assert_eq!(o.compiler.as_deref(), Some("/x/mpd"));
        assert_eq!(o.makefile.as_deref(), Some("mk"));
        assert_eq!(o.main.as_deref(), Some("main"));
        assert_eq!(o.mpd_opts.as_deref(), Some("-O"));
        assert_eq!(o.sources, v("a.mpd b.mpd"));
        assert_eq!(o.extras, v("-lm x.a y.o z.c"));
    }

    #[test]
    fn later_option_values_replace_earlier_ones() {
        let o = parse_args(&v("-Zone -C -O -L -x -Ztwo -C -w a.mpd")).unwrap();
        assert_eq!(o.cleanx.as_deref(), Some("two"));
        assert_eq!(o.mpd_opts.as_deref(), Some("-w"));
        assert_eq!(o.mpdl_opts.as_deref(), Some("-x"));
    }

    #[test]
    fn bad_arguments() {
        assert!(parse_args(&v("-q a.mpd")).is_err());
        assert!(parse_args(&v("a.mpd -f")).is_err());
        assert!(parse_args(&v("a.mpd notes.txt")).is_err());
    }

    #[test]
    fn remake_words_are_quoted_when_needed() {
        assert_eq!(shell_word("a.mpd"), "a.mpd");
        assert_eq!(shell_word("-q -O"), "'-q -O'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
