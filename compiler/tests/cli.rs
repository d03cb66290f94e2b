//! The first minutes of a new user: `mpd --version` and a `--help` on
//! stdout that lists `mpd run` and the environment variables.
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
    for want in ["mpd run prog.mpd", "--version", "MPD_HOME", "MPD_PATH", "MPD_PARALLEL", "MPD_MAX_PROCS", "MPD_STACK_SIZE", "MPD_SCHED"] {
        assert!(text.contains(want), "--help lacks {}:\n{}", want, text);
    }
}
