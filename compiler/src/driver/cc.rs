//! cc: running the C compiler on generated code and linking programs.
use super::paths;
use std::path::Path;
use std::process::Command;

/// Options that reach the C compiler.
#[derive(Clone, Debug, Default)]
pub struct CcOpts {
    pub optimize: bool,
    pub debug: bool,
    pub verbose: bool,
}

fn base(o: &CcOpts) -> Command {
    let cc = paths::cc();
    let mut parts = cc.split_whitespace();
    let mut cmd = Command::new(parts.next().unwrap_or("cc"));
    for p in parts {
        cmd.arg(p);
    }
    cmd.arg("-std=gnu11").arg("-fno-strict-aliasing").arg("-fwrapv");
    cmd.arg(if o.optimize { "-O2" } else { "-O1" });
    if o.optimize {
        // Loops start on a 32-byte boundary, so a short loop body never
        // straddles a 64-byte fetch line: measured on the timing suite's
        // empty loop (x86-64), such a split doubled its time, and where a
        // loop lands otherwise depends on unrelated code before it.
        cmd.arg("-falign-loops=32");
        // A loop whose body tests a loop-invariant flag runs as two loops,
        // one per value: MPD_TRACE's test of a direct call (the constant
        // mpd_trc_on, docs/trace.md) leaves the loop that runs untraced
        // exactly as it was without tracing support.
        cmd.arg("-funswitch-loops");
    }
    // Line tables always (-g1 does not change the code): a fault in a
    // program is then reported with its MPD file and line, which the
    // runtime reads from them (runtime/core/lineinfo.c; the C carries #line).
    cmd.arg(if o.debug { "-g" } else { "-g1" });
    cmd
}

fn run(cmd: &mut Command, verbose: bool) -> Result<(), String> {
    if verbose {
        eprintln!("{:?}", cmd);
    }
    match cmd.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
            msg.push_str(&String::from_utf8_lossy(&out.stdout));
            Err(msg)
        }
        Err(e) => Err(format!("cannot run {:?}: {}", cmd.get_program(), e)),
    }
}

/// Compile one generated C file to an object file.
pub fn compile(c_file: &Path, obj: &Path, o: &CcOpts) -> Result<(), String> {
    let mut cmd = base(o);
    cmd.arg("-w").arg("-c").arg("-I").arg(paths::include_dir()).arg(c_file).arg("-o").arg(obj);
    run(&mut cmd, o.verbose)
}

/// Link objects, extra inputs (.o, .a, -lxx) and the runtime into an executable.
pub fn link(objs: &[std::path::PathBuf], extra: &[String], out: &Path, o: &CcOpts) -> Result<(), String> {
    let lib = paths::runtime_lib();
    if !lib.exists() {
        return Err(format!("runtime library {} not found (set MPD_HOME)", lib.display()));
    }
    let mut cmd = base(o);
    cmd.arg("-o").arg(out);
    for f in objs {
        cmd.arg(f);
    }
    for e in extra {
        cmd.arg(e);
    }
    if distributed() {
        // the distributed layer, pulled in whole by one symbol; patterns
        // exported so another process finds them by name (runtime/dist/)
        let dist = paths::dist_lib();
        if !dist.exists() {
            return Err(format!(
                "distributed runtime {} not found (build it where mpicc is installed)",
                dist.display()
            ));
        }
        cmd.arg("-rdynamic").arg("-Wl,-u,mpd_dist_link").arg(dist);
    }
    cmd.arg(lib).arg("-lpthread").arg("-lm");
    if needs_libatomic() {
        cmd.arg("-latomic");
    }
    if distributed() {
        cmd.args(mpi_link_flags()?);
        cmd.arg("-ldl");
    }
    run(&mut cmd, o.verbose)
}

/// RISC-V has no 1- or 2-byte atomic instructions: GCC before 13 turns the
/// runtime's byte-sized atomics into calls to libatomic, which it does not
/// link by default.  Native riscv64 builds, or a cross compiler named for it.
fn needs_libatomic() -> bool {
    cfg!(any(target_arch = "riscv64", target_arch = "riscv32")) || paths::cc().contains("riscv")
}

/// MPD_DIST=mpi (or --mpi): link for the distributed deployment.
pub fn distributed() -> bool {
    std::env::var("MPD_DIST").map(|v| v == "mpi").unwrap_or(false)
}

/// What mpicc adds when it links (`mpicc --showme:link`).
fn mpi_link_flags() -> Result<Vec<String>, String> {
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    match Command::new(&mpicc).arg("--showme:link").output() {
        Ok(out) if out.status.success() => {
            Ok(String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect())
        }
        _ => Err(format!(
            "cannot run {} --showme:link: the distributed deployment needs Open MPI (Debian: libopenmpi-dev)",
            mpicc
        )),
    }
}
