//! paths: where the installed runtime library and headers are, relative to the compiler.
//!
//! Layout of an install tree (and of build/): <root>/bin/mpd, <root>/lib/libmpdrt.a,
//! <root>/include/mpd/*.h.  MPD_HOME overrides <root>.
use std::path::PathBuf;

/// The root of the install tree the running compiler belongs to.
pub fn root() -> PathBuf {
    if let Some(h) = std::env::var_os("MPD_HOME") {
        if !h.is_empty() {
            return PathBuf::from(h);
        }
    }
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .unwrap_or_else(|| PathBuf::from("/usr/local/bin/mpd"));
    exe.parent().and_then(|b| b.parent()).map(|p| p.to_path_buf()).unwrap_or_else(|| PathBuf::from("/usr/local"))
}

pub fn include_dir() -> PathBuf {
    root().join("include")
}

/// The MPD library: the components every program may import (MPDgetopt,
/// MPDWin...), searched after MPD_PATH, `.` and MPDinter, as MPD 1.0.1 does.
pub fn library_dir() -> PathBuf {
    root().join("lib").join("mpd")
}

pub fn runtime_lib() -> PathBuf {
    root().join("lib").join("libmpdrt.a")
}

/// The distributed deployment's layer (linked with --mpi).
pub fn dist_lib() -> PathBuf {
    root().join("lib").join("libmpddist.a")
}

/// The C compiler: $CC or cc.
pub fn cc() -> String {
    match std::env::var("CC") {
        Ok(c) if !c.trim().is_empty() => c,
        _ => "cc".to_string(),
    }
}
