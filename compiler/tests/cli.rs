//! The first minutes of a new user: `mpd --version` and a `--help` on
//! stdout that lists `mpd run` and the environment variables; the errors
//! of `mpd run --timeline`.
use std::process::Command;

fn mpd(arg: &str) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mpd")).arg(arg).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn version_is_printed() {
    let (ok, text) = mpd("--version");
    assert!(ok);
    assert!(text.starts_with("mpd "), "{}", text);
}

#[test]
fn help_lists_run_and_environment() {
    let (ok, text) = mpd("--help");
    assert!(ok);
    for want in [
        "mpd run prog.mpd",
        "--version",
        "MPD_HOME",
        "MPD_PATH",
        "MPD_PARALLEL",
        "MPD_MAX_PROCS",
        "MPD_STACK_SIZE",
        "MPD_SCHED",
    ] {
        assert!(text.contains(want), "--help lacks {}:\n{}", want, text);
    }
}

#[test]
fn help_lists_the_timeline() {
    let (ok, text) = mpd("--help");
    assert!(ok);
    for want in ["mpd run --timeline out.html prog.mpd", "MPD_TIMELINE", "MPD_TRACE"] {
        assert!(text.contains(want), "--help lacks {}:\n{}", want, text);
    }
}

/// `mpd run`'s options come before the program; a bad one is refused
/// before anything is compiled, with the usage.
#[test]
fn run_timeline_option_errors() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mpd")).arg("run").args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run(&["--timeline"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--timeline needs a file name"), "{}", err);
    let (code, err) = run(&["--timeline=", "x.mpd"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--timeline needs a file name"), "{}", err);
    let (code, err) = run(&["--timelines", "x.mpd"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown option --timelines") && err.contains("usage: mpd run"), "{}", err);
    let (code, err) = run(&["--timeline", "t.html"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("usage: mpd run"), "{}", err);
}
