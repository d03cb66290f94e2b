//! inter: the MPDinter directory that carries specs and objects between mpd and mpdl runs.
//!
//! For each component X compiled, MPDinter holds:
//!   X.spec  a header line `#mpdspec <kind> <line> <source file>` followed by the
//!           component's source text (importers re-read its spec portion);
//!   X.c     the generated C (kept with -C/-g, otherwise deleted after cc);
//!   X.o     the object file mpdl links;
//!   X.ld    (optional, written by hand for library components) what linking X
//!           also needs: words starting with `-` go to the linker as they are,
//!           others name files beside X.o (MPDWin: `mpdwin.a -lX11`).
//! Specs and objects are searched in MPD_PATH, `.`, MPDinter, then the MPD
//! library (`<root>/lib/mpd`, see driver::paths::library_dir).
use crate::driver::paths::library_dir;
use std::fs;
use std::path::{Path, PathBuf};

pub struct Inter {
    pub dir: PathBuf,
    /// The variable listing more directories to search: MPD_PATH, or SR_PATH.
    pub path_var: &'static str,
}

/// A component spec as stored in MPDinter.
#[derive(Clone, Debug)]
pub struct StoredSpec {
    pub kind: String,
    pub line: u32,
    pub file: String,
    pub text: String,
}

impl Inter {
    /// The MPDinter directory under `base` (from -I) or under the current directory.
    pub fn new(base: Option<&str>) -> Inter {
        Inter::named(base, "MPDinter", "MPD_PATH")
    }

    /// The interface directory `dir` (MPDinter, or SR's Interfaces) under `base`.
    pub fn named(base: Option<&str>, dir: &str, path_var: &'static str) -> Inter {
        let b = base.map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        Inter { dir: b.join(dir), path_var }
    }

    pub fn create(&self) -> Result<(), String> {
        fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {}", self.dir.display(), e))
    }

    pub fn path(&self, name: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{}", name, ext))
    }

    pub fn write_spec(&self, name: &str, s: &StoredSpec) -> Result<(), String> {
        self.create()?;
        let body = format!("#mpdspec {} {} {}\n{}", s.kind, s.line, s.file, s.text);
        let p = self.path(name, "spec");
        fs::write(&p, body).map_err(|e| format!("cannot write {}: {}", p.display(), e))
    }

    /// Finds X.spec: MPD_PATH directories, the current directory, MPDinter,
    /// then the MPD library.
    pub fn read_spec(&self, name: &str) -> Option<StoredSpec> {
        let mut dirs = path_dirs(self.path_var);
        dirs.push(PathBuf::from("."));
        dirs.push(self.dir.clone());
        dirs.push(library_dir());
        for d in dirs {
            let p = d.join(format!("{}.spec", name));
            if let Ok(t) = fs::read_to_string(&p) {
                if let Some(s) = parse_spec(&t) {
                    return Some(s);
                }
            }
        }
        None
    }

    /// Finds X.o for mpdl: MPD_PATH directories, MPDinter, then the MPD library.
    pub fn find_object(&self, name: &str) -> Option<PathBuf> {
        let mut dirs = path_dirs(self.path_var);
        dirs.push(self.dir.clone());
        dirs.push(library_dir());
        dirs.into_iter().map(|d| d.join(format!("{}.o", name))).find(|p| p.exists())
    }

    /// What linking the object `obj` (X.o) also needs, from X.ld beside it:
    /// `-` words as they are, other words as files in obj's directory.
    pub fn link_needs(obj: &Path) -> Vec<String> {
        let Ok(text) = fs::read_to_string(obj.with_extension("ld")) else {
            return Vec::new();
        };
        let dir = obj.parent().unwrap_or(Path::new("."));
        text.lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .flat_map(|l| l.split_whitespace())
            .map(|w| if w.starts_with('-') { w.to_string() } else { dir.join(w).to_string_lossy().into_owned() })
            .collect()
    }

    /// Finds a plain file named on mpdl's command line (`func.o`, `lib.a`): as
    /// given if it has a directory part, else MPD_PATH directories, the current
    /// directory, MPDinter, then `lib_dir` and the MPD library (`mpdwin.o`).
    /// None if nowhere.
    pub fn find_extra(&self, name: &str, lib_dir: &Path) -> Option<PathBuf> {
        let p = PathBuf::from(name);
        if name.contains('/') {
            return p.exists().then_some(p);
        }
        let mut dirs = path_dirs(self.path_var);
        dirs.push(PathBuf::from("."));
        dirs.push(self.dir.clone());
        dirs.push(lib_dir.to_path_buf());
        dirs.push(library_dir());
        dirs.into_iter().map(|d| d.join(name)).find(|p| p.exists())
    }
}

/// The directories listed in `var` (MPD_PATH or SR_PATH; colon-separated,
/// empty entries skipped).
fn path_dirs(var: &str) -> Vec<PathBuf> {
    std::env::var(var)
        .map(|mp| mp.split(':').filter(|d| !d.is_empty()).map(PathBuf::from).collect())
        .unwrap_or_default()
}

fn parse_spec(t: &str) -> Option<StoredSpec> {
    let (first, rest) = t.split_once('\n')?;
    let mut it = first.strip_prefix("#mpdspec ")?.splitn(3, ' ');
    let kind = it.next()?.to_string();
    let line = it.next()?.parse().ok()?;
    let file = it.next()?.to_string();
    Some(StoredSpec { kind, line, file, text: rest.to_string() })
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn spec_roundtrip() {
        let d = std::env::temp_dir().join(format!("mpdinter-test-{}", std::process::id()));
        let i = Inter::new(Some(d.to_str().unwrap()));
        let s = StoredSpec { kind: "global".into(), line: 3, file: "a b.mpd".into(), text: "global g\nend\n".into() };
        i.write_spec("g", &s).unwrap();
        let r = i.read_spec("g").unwrap();
        assert_eq!(r.kind, "global");
        assert_eq!(r.line, 3);
        assert_eq!(r.file, "a b.mpd");
        assert_eq!(r.text, s.text);
        let _ = std::fs::remove_dir_all(d);
    }
}
