//! run: `mpd run [--vms N] [--timeline FILE] prog.mpd [args...]` -- compile into a private directory,
//! run the program, and pass its end on faithfully.
//!
//! The program's exit status becomes ours.  A program killed by a signal is
//! reported as such ("mpd run: program killed by signal 15 (SIGTERM)") and
//! gives the shell's status for it, 128 + the signal.  While it runs, mpd
//! ignores SIGINT and SIGQUIT as system(3) does (the terminal sends them to
//! the program too, which decides), and passes SIGTERM and SIGHUP on to it,
//! so the private directory is always removed -- except when a message said
//! that a file in it was kept for the user, which stays.
use super::compile::{self, KEPT_FILES};
use super::link;
use super::{MpdOpts, MpdlOpts};
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicI32, Ordering};

const SIGHUP: i32 = 1;
const SIGINT: i32 = 2;
const SIGQUIT: i32 = 3;
const SIGTERM: i32 = 15;
const SIG_DFL: usize = 0;
const SIG_IGN: usize = 1;

extern "C" {
    fn signal(sig: i32, handler: usize) -> usize;
    fn kill(pid: i32, sig: i32) -> i32;
    fn geteuid() -> u32;
}

/// The running program's pid, for the forwarding handler (0: none).
static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward(sig: i32) {
    let pid = CHILD.load(Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe and takes plain integers.
        unsafe {
            kill(pid, sig);
        }
    }
}

fn set_handler(sig: i32, h: usize) -> usize {
    // SAFETY: installs a handler that only reads an atomic and calls kill,
    // or SIG_IGN/SIG_DFL; signal(2) has no other preconditions.
    unsafe { signal(sig, h) }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => "a signal",
    }
}

/// Runs exe with args (and the environment variables env); its status as a
/// shell would give it.  vms > 0: under mpirun, one process per virtual
/// machine (docs/distributed.md).
fn run_program(exe: &std::path::Path, args: &[String], env: &[(&str, String)], vms: usize, who: &str) -> i32 {
    let mut cmd = if vms > 0 {
        let mut c = std::process::Command::new(std::env::var("MPIRUN").unwrap_or_else(|_| "mpirun".to_string()));
        c.arg("-q").arg("--oversubscribe").arg("-n").arg(vms.to_string()).arg(exe);
        // the main vm writes straight to our stdout and stderr (runtime/dist)
        c.env("MPD_DIST_OUT", std::process::id().to_string());
        if unsafe { geteuid() } == 0 {
            c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        c
    } else {
        std::process::Command::new(exe)
    };
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: cannot run {}: {}", who, exe.display(), e);
            return 1;
        }
    };
    CHILD.store(child.id() as i32, Ordering::Relaxed);
    let fwd = forward as extern "C" fn(i32) as usize;
    let saved: Vec<(i32, usize)> = [(SIGINT, SIG_IGN), (SIGQUIT, SIG_IGN), (SIGTERM, fwd), (SIGHUP, fwd)]
        .iter()
        .map(|&(s, h)| (s, set_handler(s, h)))
        .collect();
    let status = child.wait();
    CHILD.store(0, Ordering::Relaxed);
    for (s, h) in saved {
        set_handler(s, if h == usize::MAX { SIG_DFL } else { h });
    }
    match status {
        Ok(s) => match (s.code(), s.signal()) {
            (Some(c), _) => c,
            (None, Some(sig)) => {
                let core = if s.core_dumped() { ", core dumped" } else { "" };
                eprintln!("{} run: program killed by signal {} ({}{})", who, sig, signal_name(sig), core);
                128 + sig
            }
            _ => 1,
        },
        Err(e) => {
            eprintln!("{}: cannot wait for {}: {}", who, exe.display(), e);
            1
        }
    }
}

/// The one-line usage of `mpd run` (or `sr run`, with `prog.sr`).
fn run_usage(lang: super::Lang) -> String {
    format!("usage: {} run [--vms N] [--timeline out.html|out.json] prog{} [args...]", lang.compiler(), lang.suffix())
}

/// The options of `mpd run` before the program: `--timeline FILE` (or
/// `--timeline=FILE`) records the run's timeline into FILE (MPD_TIMELINE,
/// docs/trace.md); `--vms N` runs it distributed in N processes
/// (docs/distributed.md).  Returns the environment they give the program,
/// the number of processes (0: the embedded default) and the rest of the
/// arguments, or a message.
fn run_options(args: &[String], lang: super::Lang) -> Result<(Vec<(&'static str, String)>, usize, &[String]), String> {
    let who = lang.compiler();
    let mut env = Vec::new();
    let mut vms = 0usize;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--vms" {
            match args.get(i + 1).and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n >= 1 => vms = n,
                _ => {
                    return Err(format!("{} run: --vms needs a number of processes (N >= 1)\n{}", who, run_usage(lang)))
                }
            }
            i += 2;
            continue;
        }
        let file = if a == "--timeline" {
            i += 1;
            match args.get(i) {
                Some(f) if !f.is_empty() => f.clone(),
                _ => {
                    return Err(format!(
                        "{} run: --timeline needs a file name (out.html, or out.json for Chrome/Perfetto)",
                        who
                    ))
                }
            }
        } else if let Some(f) = a.strip_prefix("--timeline=") {
            if f.is_empty() {
                return Err(format!(
                    "{} run: --timeline needs a file name (out.html, or out.json for Chrome/Perfetto)",
                    who
                ));
            }
            f.to_string()
        } else if a == "--help" || a == "-h" {
            return Err(run_usage(lang));
        } else if a.starts_with("--") && a != "--" {
            return Err(format!("{} run: unknown option {}\n{}", who, a, run_usage(lang)));
        } else {
            break;
        };
        env.push(("MPD_TIMELINE", file));
        i += 1;
    }
    if args.get(i).map(|a| a == "--").unwrap_or(false) {
        i += 1;
    }
    Ok((env, vms, &args[i..]))
}

/// `mpd run [--vms N] [--timeline FILE] prog.mpd [args...]` (and `sr run`):
/// compile into a private directory and run.
pub fn run_main(args: &[String], lang: super::Lang) -> i32 {
    let who = lang.compiler();
    let (env, vms, args) = match run_options(args, lang) {
        Ok(r) => r,
        Err(e) if e.starts_with("usage:") => {
            println!("{}", e); // asked for with --help
            return 0;
        }
        Err(e) => {
            eprintln!("{}", e);
            return 2;
        }
    };
    if vms > 0 {
        std::env::set_var("MPD_DIST", "mpi");
    }
    let Some(src) = args.first() else {
        eprintln!("{}", run_usage(lang));
        return 2;
    };
    let dir = std::env::temp_dir().join(format!("mpd-run-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: cannot create {}: {}", who, dir.display(), e);
        return 1;
    }
    let exe = dir.join("a.out");
    let o = MpdOpts {
        quiet: true,
        inter: Some(dir.to_string_lossy().into_owned()),
        output: Some(exe.to_string_lossy().into_owned()),
        sources: vec![src.clone()],
        lang,
        ..Default::default()
    };
    let code = match compile::compile(&o) {
        Ok(comps) => {
            let lo = MpdlOpts {
                inter: o.inter.clone(),
                output: o.output.clone(),
                components: comps,
                lang,
                ..Default::default()
            };
            match link::link(&lo, false) {
                0 => run_program(&exe, &args[1..], &env, vms, who),
                c => c,
            }
        }
        Err(c) => c,
    };
    if KEPT_FILES.load(Ordering::Relaxed) {
        // the message named a file in dir: it must still be there
        let _ = std::fs::remove_file(&exe);
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    code
}
