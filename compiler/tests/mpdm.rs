//! mpdm end to end: generate a makefile for a program spread over three files,
//! build and run it with make, and check the errors mpdm must report.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const COUNTER: &str = "\
global counter
    int n = 0
    op bump(int k) returns int r
body counter
    proc bump(k) returns r { n += k; r = n }
end counter
";

const WORKER: &str = "\
resource worker
    import counter
    op run(int times)
body worker(int id)
    proc run(times) {
        for [i = 1 to times] { bump(id) }
    }
end worker
";

const MAIN: &str = "\
resource main()
    import worker, counter
    int reps = 2
    getarg(1, reps)
    cap worker w1 = create worker(1)
    cap worker w2 = create worker(10)
    w1.run(reps); w2.run(reps)
    write(\"total\", n)
end main
";

/// A fresh scratch directory holding `files`.
fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mpdm-test-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (f, text) in files {
        std::fs::write(d.join(f), text).unwrap();
    }
    d
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_mpdm")).parent().unwrap().to_path_buf()
}

/// Runs `prog args` in `dir` with the crate's binaries first on PATH.
fn run(dir: &Path, prog: &str, args: &[&str]) -> Output {
    let path = format!("{}:{}", bin_dir().display(), std::env::var("PATH").unwrap_or_default());
    let mut c = Command::new(prog);
    c.args(args).current_dir(dir).env("PATH", path).env("MPDMOPTS", "").env("MPD_PATH", "");
    // a make of our own, not a sub-make of `make test`'s: no "Entering
    // directory" lines (the scratch dir's name contains "mpd")
    c.env_remove("MAKEFLAGS").env_remove("MFLAGS").env_remove("MAKELEVEL");
    // the runtime library of the build tree, when it has been built
    let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("../build");
    if build.join("lib/libmpdrt.a").exists() {
        c.env("MPD_HOME", build.canonicalize().unwrap());
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn mpdm(dir: &Path, args: &[&str]) -> Output {
    run(dir, env!("CARGO_BIN_EXE_mpdm"), args)
}

#[test]
fn makefile_builds_and_runs_a_three_file_program() {
    let d = scratch("build", &[("counter.mpd", COUNTER), ("worker.mpd", WORKER), ("main.mpd", MAIN)]);
    let out = mpdm(&d, &["-o", "./prog", "-R", "3", "main.mpd", "worker.mpd", "counter.mpd", "-lm"]);
    assert!(out.status.success(), "mpdm failed: {}", text(&out.stderr));
    let mk = std::fs::read_to_string(d.join("Makefile")).unwrap();
    assert!(mk.starts_with("#\tMakefile created by MPDM\n"));
    // main is imported by nobody: it is the main resource, named last to mpdl
    assert!(mk.contains("\tmpdl  -o ./prog worker counter main -lm\n"), "{}", mk);
    // main's body needs the specs it imports, and the imported global's object
    assert!(mk.contains("$I/main.o: $I/main.spec $I/counter.spec $I/counter.o $I/worker.spec main.mpd\n"), "{}", mk);
    assert!(mk.contains("$I/worker.o: $I/counter.spec $I/counter.o $I/worker.spec worker.mpd\n"), "{}", mk);
    assert!(mk.contains("\t./prog 3\n"), "{}", mk);
    assert!(mk.contains("\tmpdm -o ./prog -R 3 main.mpd worker.mpd counter.mpd -lm\n"), "{}", mk);

    let ls = run(&d, "make", &["-s", "ls"]);
    assert_eq!(text(&ls.stdout), "main.mpd worker.mpd counter.mpd\n");
    if !Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/lib/libmpdrt.a").exists() {
        eprintln!("runtime not built (make at the top first): build and run part skipped");
        return;
    }
    let made = run(&d, "make", &[]);
    assert!(made.status.success(), "make failed:\n{}{}", text(&made.stdout), text(&made.stderr));
    let ran = run(&d, "make", &["-s", "run"]);
    assert!(ran.status.success(), "make run failed: {}", text(&ran.stderr));
    assert_eq!(text(&ran.stdout), "total 33\n");
    // everything is up to date: no compiler runs
    let again = run(&d, "make", &[]);
    assert!(!text(&again.stdout).contains("mpd"), "{}", text(&again.stdout));
    // `make make` re-creates the makefile; `make cleanx` removes all it built
    assert!(run(&d, "make", &["make"]).status.success());
    assert!(run(&d, "make", &["cleanx"]).status.success());
    assert!(!d.join("MPDinter").exists() && !d.join("prog").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn makefile_to_stdout_and_chosen_main() {
    let d = scratch("stdout", &[("counter.mpd", COUNTER), ("worker.mpd", WORKER)]);
    let out = mpdm(&d, &["-f", "-", "-m", "worker", "counter.mpd", "worker.mpd"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mk = text(&out.stdout);
    assert!(mk.contains("\tmpdl  -o a.out counter worker\n"), "{}", mk);
    assert!(!d.join("Makefile").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// -C/-L/-R/-Z given again replace the earlier value, MPDMOPTS first; -I goes
/// before the -C options and after mpdl's `-o exe`, where MPD 1.0.1 puts it.
#[test]
fn later_options_override_earlier_and_mpdmopts() {
    let d = scratch("override", &[("counter.mpd", COUNTER), ("worker.mpd", WORKER)]);
    let mut c = Command::new(env!("CARGO_BIN_EXE_mpdm"));
    c.current_dir(&d)
        .env("MPD_PATH", "")
        .env("PATH", format!("{}:{}", bin_dir().display(), std::env::var("PATH").unwrap_or_default()));
    c.env("MPDMOPTS", "-Zfirst.tmp -Rold -Lold");
    c.args(["-f", "-", "-m", "worker", "-C", "-O", "-L", "-x", "-I", "lib", "-Z", "second.tmp", "-C", "-w"]);
    let out = c.args(["counter.mpd", "worker.mpd"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mk = text(&out.stdout);
    assert!(mk.contains("MPDFLAGS = -I lib -w\n"), "{}", mk);
    assert!(mk.contains("\tmpdl -x -o a.out -I lib counter worker\n"), "{}", mk);
    assert!(mk.contains("\trm -f core a.out second.tmp\n"), "{}", mk);
    assert!(mk.contains("\ta.out old\n"), "{}", mk);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn long_lines_are_folded_unless_wide() {
    let names: Vec<String> = (0..12).map(|i| format!("component_number_{}", i)).collect();
    let mut src = String::new();
    for n in &names {
        src.push_str(&format!("resource {}\nbody {}()\nend\n", n, n));
    }
    src.push_str(&format!("resource top()\n    import {}\nend\n", names.join(", ")));
    let d = scratch("fold", &[("many.mpd", &src)]);
    let out = mpdm(&d, &["-f", "-", "many.mpd"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mk = text(&out.stdout);
    assert!(mk.lines().all(|l| l.replace('\t', "        ").len() <= 78), "{}", mk);
    assert!(mk.contains(" \\\n\t"));
    let wide = text(&mpdm(&d, &["-w", "-f", "-", "many.mpd"]).stdout);
    assert!(!wide.contains('\\'));
    assert_eq!(mk.replace(" \\\n\t", " "), wide.replace("mpdl  -o", "mpdl -o").replace("mpdm -w", "mpdm"));
    let _ = std::fs::remove_dir_all(&d);
}

/// mpdm must fail with status 1, mention `msg`, and leave no makefile.
fn fails(name: &str, files: &[(&str, &str)], args: &[&str], msg: &str) {
    let d = scratch(name, files);
    let out = mpdm(&d, args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", err);
    assert!(err.contains(msg), "expected {:?} in:\n{}", msg, err);
    assert!(!d.join("Makefile").exists() || name == "foreign");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn errors_are_reported() {
    fails("nofile", &[], &["nothere.mpd"], "cannot read nothere.mpd");
    fails("noargs", &[], &[], "no .mpd files");
    fails("badopt", &[("a.mpd", MAIN)], &["-q", "a.mpd"], "unknown option -q");
    fails("syntax", &[("bad.mpd", "resource r()\n  int x = \nend\n")], &["bad.mpd"], "bad.mpd:");
    fails("import", &[("w.mpd", WORKER)], &["w.mpd"], "missing resource or global counter (imported by worker)");
    fails(
        "main",
        &[("c.mpd", COUNTER), ("w.mpd", WORKER)],
        &["-m", "nosuch", "c.mpd", "w.mpd"],
        "missing main resource nosuch",
    );
    fails(
        "globalmain",
        &[("c.mpd", COUNTER), ("w.mpd", WORKER)],
        &["-m", "counter", "c.mpd", "w.mpd"],
        "it is a global",
    );
    fails("nospec", &[("b.mpd", "body lonely\nend\n")], &["b.mpd"], "spec for lonely not found");
    fails("dup", &[("c.mpd", COUNTER), ("d.mpd", COUNTER)], &["c.mpd", "d.mpd"], "duplicate spec for counter");
    fails(
        "compiler",
        &[("c.mpd", COUNTER)],
        &["-c", "/nonexistent/mpd", "c.mpd"],
        "cannot run the compiler /nonexistent/mpd",
    );
}

#[test]
fn foreign_makefile_is_not_overwritten() {
    let files = [("c.mpd", COUNTER), ("w.mpd", WORKER), ("Makefile", "all:\n\ttrue\n")];
    fails("foreign", &files, &["c.mpd", "w.mpd"], "not created by mpdm");
    let d = scratch("foreign2", &files);
    mpdm(&d, &["c.mpd", "w.mpd"]);
    assert_eq!(std::fs::read_to_string(d.join("Makefile")).unwrap(), "all:\n\ttrue\n");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compiled_imports_are_linked_not_rebuilt() {
    // counter compiled beforehand into MPDinter: mpdm links it without a rule
    let d = scratch("external", &[("counter.mpd", COUNTER), ("worker.mpd", WORKER)]);
    let inter = d.join("MPDinter");
    std::fs::create_dir_all(&inter).unwrap();
    std::fs::write(inter.join("counter.spec"), "#mpdspec global 1 counter.mpd\n").unwrap();
    std::fs::write(inter.join("counter.o"), "").unwrap();
    let out = mpdm(&d, &["-f", "-", "worker.mpd"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mk = text(&out.stdout);
    assert!(mk.contains("\tmpdl  -o a.out counter worker\n"), "{}", mk);
    assert!(mk.contains("$I/worker.o: $I/worker.spec worker.mpd\n"), "{}", mk);
    assert!(!mk.contains("counter.spec"), "{}", mk);
    let _ = std::fs::remove_dir_all(&d);
}
