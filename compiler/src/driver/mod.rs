//! driver: the `mpd` and `mpdl` command lines (MPD 1.0.1 compatible) and `mpd run`.
pub mod cc;
pub mod compile;
pub mod lang;
pub mod link;
pub mod paths;
mod run;

use clap::{Arg, ArgAction, Command};
pub use lang::Lang;

/// Options of one `mpd` run.
#[derive(Clone, Debug, Default)]
pub struct MpdOpts {
    pub specs_only: bool,  // -s
    pub bodies_only: bool, // -b
    pub no_link: bool,     // -c
    pub quiet: bool,       // -q
    pub no_warn: bool,     // -w
    pub debug: bool,       // -g
    pub verbose: bool,     // -v
    pub optimize: bool,    // -O: omit runtime checks, optimize C
    pub no_slice: bool,    // -T: no loop-top yield
    pub deps_only: bool,   // -M
    pub keep_c: bool,      // -C: stop after .c files
    pub no_fold: bool,     // -F
    pub no_opt: bool,      // -P
    pub inter: Option<String>,
    pub output: Option<String>,
    pub sources: Vec<String>,
    pub others: Vec<String>, // .o .a -lxx passed to the linker
    pub lang: Lang,
}

/// Options of one `mpdl` run.
#[derive(Clone, Debug, Default)]
pub struct MpdlOpts {
    pub no_warn: bool,
    pub list: bool,
    pub verbose: bool,
    pub async_out: bool,
    pub debug: bool,
    pub inter: Option<String>,
    pub output: Option<String>,
    pub limits: Vec<(char, String)>,
    pub components: Vec<String>,
    pub others: Vec<String>,
    pub lang: Lang,
}

/// `--mpi` anywhere on a command line selects the distributed deployment
/// (docs/distributed.md): the program is linked with libmpddist and MPI.
/// It travels to the linker as MPD_DIST=mpi, which may also be set directly.
fn take_mpi_flag(args: Vec<String>) -> Vec<String> {
    let (mpi, rest): (Vec<String>, Vec<String>) = args.into_iter().partition(|a| a == "--mpi");
    if !mpi.is_empty() {
        std::env::set_var("MPD_DIST", "mpi");
    }
    rest
}

/// Splits off arguments clap must not see as options: -lxx libraries.
fn split_libs(args: Vec<String>, keep_l_flag: bool) -> (Vec<String>, Vec<String>) {
    let mut rest = Vec::new();
    let mut libs = Vec::new();
    for (i, a) in args.into_iter().enumerate() {
        if i > 0 && a.starts_with("-l") && a.len() > 2 && !(keep_l_flag && a == "-l") {
            libs.push(a);
        } else {
            rest.push(a);
        }
    }
    (rest, libs)
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn flag(c: char, help: &'static str) -> Arg {
    Arg::new(leak(c.to_string())).short(c).action(ArgAction::SetTrue).help(help)
}

/// The end of `mpd --help`: the other ways to run it and what it reads
/// from the environment (the compiler's, then the compiled program's).
const HELP_MORE: &str = "\
Compile and run in one step:
  mpd run prog.mpd [args...]   compile into a private directory, run with args,
                               and exit with the program's status
  mpd run --timeline out.html prog.mpd [args...]
                               the same, and write the run's timeline: a page
                               that opens in any browser (out.json: Chrome/
                               Perfetto trace-event JSON)
  mpd run --vms N prog.mpd ... the same, distributed: each virtual machine is an
                               MPI process (mpirun -n N; docs/distributed.md)
  mpd --version                print the version

Distributed deployment:
  --mpi           link for MPI: run with mpirun -n N ./a.out (rank 0 is the main
                  virtual machine, create vm() takes a free rank); also mpdl --mpi

Environment of the compiler:
  MPD_HOME        root of the installation (bin/, lib/libmpdrt.a, include/mpd/);
                  default: the directory above the mpd binary
  MPD_PATH        colon-separated directories searched for imported components
  CC              the C compiler (default cc)

Environment of a compiled program (see mpd(1)):
  MPD_PARALLEL    number of virtual processors (OS threads); default 1
  MPD_MAX_PROCS   most processes alive at once
  MPD_STACK_SIZE  stack size of each process, in bytes
  MPD_SCHED       scheduler of the virtual processors: fifo, prio or steal
  MPD_SLICE       loop iterations between context switches
  MPD_IDLE_SPIN   how long an idle virtual processor spins before sleeping
  MPD_TRACE       write every runtime event to this file (mpdtrace(5))
  MPD_TIMELINE    write the run's timeline to this file (.html, or .json)";

/// The compiler's command line, `mpd` or `sr` (sr(1) of SR 2.3.3: the flags
/// mean what they mean for `mpd`; only the names and the interface folder differ).
fn mpd_command(lang: Lang) -> Command {
    let (name, about, inter, sources) = match lang {
        Lang::Mpd => (
            "mpd",
            "MPD compiler: mpd [-sbcqwgvOTMCFP] [-I dir] [-o file] file.mpd ... other.o -lxx\n       mpd run [--timeline out.html] prog.mpd [args...]",
            "use DIR/MPDinter",
            "MPD sources (.mpd); objects, archives and -lxx go to the linker",
        ),
        Lang::Sr => (
            "sr",
            "SR compiler: sr [-sbcqwgvOTMCFP] [-I dir] [-o file] file.sr ... other.o -lxx\n       sr run prog.sr [args...]",
            "use DIR/Interfaces",
            "SR sources (.sr); objects, archives and -lxx go to the linker",
        ),
    };
    let cmd = Command::new(name).about(about).disable_version_flag(true);
    let cmd = if lang == Lang::Mpd { cmd.after_help(HELP_MORE) } else { cmd };
    cmd.arg(flag('s', "create specification files only"))
        .arg(flag('b', "compile bodies only"))
        .arg(flag('c', "compile but do not link"))
        .arg(flag('q', "do not echo source file names"))
        .arg(flag('w', "suppress warnings"))
        .arg(flag('e', "experimental (ignored)"))
        .arg(flag('g', "compile for debugging, keep .c files"))
        .arg(flag('v', "verbose: show programs invoked"))
        .arg(flag('O', "omit runtime checks, optimize"))
        .arg(flag('T', "omit loop-top context switch code"))
        .arg(flag('M', "print dependencies and exit"))
        .arg(flag('C', "stop after generating .c files"))
        .arg(flag('F', "inhibit constant folding"))
        .arg(flag('P', "inhibit optimizations"))
        .arg(Arg::new("I").short('I').num_args(1).value_name("dir").help(inter))
        .arg(Arg::new("o").short('o').num_args(1).value_name("file").help("executable name (default a.out)"))
        .arg(Arg::new("d").short('d').num_args(1).value_name("flags").help("debug flags (ignored)"))
        .arg(Arg::new("files").num_args(0..).action(ArgAction::Append).value_name("file").help(sources))
}

#[cfg(test)]
fn parse_mpd(args: Vec<String>) -> Result<MpdOpts, String> {
    parse_compiler(args, Lang::Mpd)
}

fn parse_compiler(args: Vec<String>, lang: Lang) -> Result<MpdOpts, String> {
    let (args, libs) = split_libs(args, false);
    let m = mpd_command(lang).try_get_matches_from(args).map_err(|e| e.to_string())?;
    let f = |c: &str| m.get_flag(c);
    let mut o = MpdOpts {
        specs_only: f("s"),
        bodies_only: f("b"),
        no_link: f("c"),
        quiet: f("q"),
        no_warn: f("w"),
        debug: f("g"),
        verbose: f("v"),
        optimize: f("O"),
        no_slice: f("T"),
        deps_only: f("M"),
        keep_c: f("C"),
        no_fold: f("F"),
        no_opt: f("P"),
        inter: m.get_one::<String>("I").cloned(),
        output: m.get_one::<String>("o").cloned(),
        lang,
        ..Default::default()
    };
    for a in m.get_many::<String>("files").into_iter().flatten() {
        if a.ends_with(lang.suffix()) {
            o.sources.push(a.clone());
        } else {
            o.others.push(a.clone());
        }
    }
    o.others.extend(libs);
    Ok(o)
}

/// Entry point of the `mpd` binary; returns the exit status.
pub fn mpd_main() -> i32 {
    compiler_main(Lang::Mpd)
}

/// Entry point of the `sr` binary.
pub fn sr_main() -> i32 {
    compiler_main(Lang::Sr)
}

fn compiler_main(lang: Lang) -> i32 {
    let me = lang.compiler();
    let args: Vec<String> = take_mpi_flag(std::env::args().collect());
    if args.len() >= 2 && args[1] == "run" {
        return run::run_main(&args[2..], lang);
    }
    if args.len() == 2 && (args[1] == "--help" || args[1] == "-h") {
        // to stdout, so `mpd --help | less` works
        print!("{}", mpd_command(lang).render_help());
        return 0;
    }
    if args.len() == 2 && (args[1] == "--version" || args[1] == "-V") {
        match lang {
            Lang::Mpd => println!(
                "mpd {} (MPD language compiler, command-line compatible with MPD 1.0.1)",
                env!("CARGO_PKG_VERSION")
            ),
            Lang::Sr => println!(
                "sr {} (SR language compiler, command-line compatible with SR 2.3.3)",
                env!("CARGO_PKG_VERSION")
            ),
        }
        return 0;
    }
    let o = match parse_compiler(args, lang) {
        Ok(o) => o,
        Err(e) => {
            eprint!("{}", e);
            return if e.starts_with("Usage") || e.contains("Print help") && !e.contains("error") { 0 } else { 2 };
        }
    };
    if o.deps_only {
        // dependency report for mpdm: syntax only, nothing compiled
        return crate::mpdm::deps::print_report(&o.sources);
    }
    if o.sources.is_empty() {
        eprintln!(
            "{me}: no {} files given\nusage: {me} [-sbcqwgvOTMCFP] [-I dir] [-o file] file{} ... other.o -lxx",
            lang.suffix(),
            lang.suffix()
        );
        return 1;
    }
    let comps = match compile::compile(&o) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if o.specs_only || o.bodies_only || o.no_link || o.deps_only || o.keep_c {
        return 0;
    }
    let lo = MpdlOpts {
        no_warn: o.no_warn,
        verbose: o.verbose,
        debug: o.debug,
        inter: o.inter.clone(),
        output: o.output.clone(),
        components: comps,
        others: o.others.clone(),
        lang,
        ..Default::default()
    };
    link::link(&lo, o.optimize)
}

fn mpdl_command(lang: Lang) -> Command {
    let mut c = Command::new(lang.linker())
        .about("MPD linker: mpdl [-wlvA] [-I dir] [-o file] [-C -L -N -O -P -Q -R -V -S n] component ...")
        .disable_version_flag(true)
        .arg(flag('w', "suppress warnings"))
        .arg(flag('l', "list runtime limits and exit"))
        .arg(flag('v', "verbose"))
        .arg(flag('A', "asynchronous output"))
        .arg(flag('e', "experimental (ignored)"))
        .arg(flag('g', "debugging"))
        .arg(Arg::new("I").short('I').num_args(1))
        .arg(Arg::new("o").short('o').num_args(1))
        .arg(Arg::new("r").short('r').num_args(1))
        .arg(Arg::new("files").num_args(0..).action(ArgAction::Append));
    for l in ['C', 'L', 'N', 'O', 'P', 'Q', 'R', 'V', 'S'] {
        c = c.arg(Arg::new(leak(l.to_string())).short(l).num_args(1).action(ArgAction::Append));
    }
    c
}

/// Entry point of the `mpdl` binary.
pub fn mpdl_main() -> i32 {
    linker_main(Lang::Mpd)
}

/// Entry point of the `srl` binary.
pub fn srl_main() -> i32 {
    linker_main(Lang::Sr)
}

fn linker_main(lang: Lang) -> i32 {
    let args: Vec<String> = take_mpi_flag(std::env::args().collect());
    let (args, libs) = split_libs(args, true);
    let m = match mpdl_command(lang).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            eprint!("{}", e);
            return 2;
        }
    };
    let mut o = MpdlOpts {
        no_warn: m.get_flag("w"),
        list: m.get_flag("l"),
        verbose: m.get_flag("v"),
        async_out: m.get_flag("A"),
        debug: m.get_flag("g"),
        inter: m.get_one::<String>("I").cloned(),
        output: m.get_one::<String>("o").cloned(),
        lang,
        ..Default::default()
    };
    for l in ['C', 'L', 'N', 'O', 'P', 'Q', 'R', 'V', 'S'] {
        for v in m.get_many::<String>(&l.to_string()).into_iter().flatten() {
            o.limits.push((l, v.clone()));
        }
    }
    for a in m.get_many::<String>("files").into_iter().flatten() {
        if a.ends_with(".o") || a.ends_with(".a") || a.ends_with(".so") || a.contains('/') {
            o.others.push(a.clone());
        } else {
            o.components.push(a.clone());
        }
    }
    o.others.extend(libs);
    if o.list {
        link::list_limits();
        return 0;
    }
    if o.components.is_empty() {
        eprintln!("{}: no components named", lang.linker());
        return 1;
    }
    link::link(&o, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }
    #[test]
    fn mpd_flags_cluster() {
        let o = parse_mpd(v("mpd -cq -I dir -o prog a.mpd b.mpd x.o -lm")).unwrap();
        assert!(o.no_link && o.quiet && !o.optimize);
        assert_eq!(o.inter.as_deref(), Some("dir"));
        assert_eq!(o.output.as_deref(), Some("prog"));
        assert_eq!(o.sources, v("a.mpd b.mpd"));
        assert_eq!(o.others, v("x.o -lm"));
    }
    #[test]
    fn mpd_bad_flag() {
        assert!(parse_mpd(v("mpd -Z a.mpd")).is_err());
    }
}
