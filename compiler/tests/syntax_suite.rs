//! Parses every program of the MPD verification suite (read from ../shared at test time).
//!
//! - Every ordinary `.mpd` file must parse without a syntax error.
//! - The diag/ collections (`% message` followed by a program, see diag/mkscript.sh) are
//!   split into their programs: those whose expected message is a syntax error must yield
//!   exactly that message from the parser; the others must parse cleanly (their errors are
//!   the checker's business).
//! The suite is optional: without it the test prints a note and passes.

use mpdc::syntax::{parse_source, Diagnostics, SourceMap};
use std::path::{Path, PathBuf};

fn suite_dir() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [manifest.join("../../shared/mpd-vsuite"), manifest.join("../shared/mpd-vsuite")];
    candidates.into_iter().find(|p| p.is_dir())
}

fn mpd_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mpd_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mpd") {
            out.push(p);
        }
    }
}

/// Parse `src`; return the rendered diagnostics (empty if it parsed).
fn parse_errors(name: &str, src: &str) -> (usize, String) {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let _ = parse_source(&mut map, name, src, &mut diags);
    (diags.error_count(), diags.render(&map))
}

/// Messages of diag/ that the syntax stage is responsible for (MPD's wording; the suite
/// matches them with grep, `.` standing for any quote character).
const SYNTAX_MESSAGES: &[&str] = &[
    "parse error at",
    "unexpected newline",
    "unterminated string",
    "unterminated comment at EOF",
    "empty character literal",
    "newline in character literal",
    "character literal contains multiple characters",
    "illegal character",
    "comment terminator outside comment",
    "expected .end",
    "missing parameter list for resource",
    "a global cannot have a parameter list",
    "no arguments allowed in .create vm().",
    "both bounds are",
];

/// grep-style match where `.` matches any character and `\*` a literal star.
fn grep_match(pattern: &str, text: &str) -> bool {
    let pat: Vec<char> = pattern.replace("\\*", "*").chars().collect();
    let txt: Vec<char> = text.chars().collect();
    (0..txt.len()).any(|start| {
        pat.len() + start <= txt.len() && pat.iter().enumerate().all(|(i, &c)| c == '.' || txt[start + i] == c)
    })
}

#[test]
fn suite_programs_parse() {
    let Some(dir) = suite_dir() else {
        eprintln!("note: mpd-vsuite not found next to the repository; skipping");
        return;
    };
    let mut files = Vec::new();
    mpd_files(&dir, &mut files);
    let (mut parsed, mut failed, mut collections) = (0, Vec::new(), 0);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let src = String::from_utf8_lossy(&bytes);
        let rel = f.strip_prefix(&dir).unwrap().display().to_string();
        if src.lines().any(|l| l.starts_with('%')) {
            collections += 1;
            continue; // checked by diag_collections
        }
        if rel.starts_with("diag/long/") {
            continue; // fragments glued together by a shell script
        }
        let (n, text) = parse_errors(&rel, &src);
        if n == 0 {
            parsed += 1;
        } else {
            failed.push(format!("{}:\n{}", rel, text));
        }
    }
    eprintln!(
        "syntax suite: {} programs parsed, {} failed ({} diag collections checked separately)",
        parsed,
        failed.len(),
        collections
    );
    assert!(failed.is_empty(), "programs that should parse:\n{}", failed.join("\n"));
}

#[test]
fn diag_collections() {
    let Some(dir) = suite_dir() else {
        eprintln!("note: mpd-vsuite not found; skipping");
        return;
    };
    let mut files = Vec::new();
    mpd_files(&dir.join("diag"), &mut files);
    let (mut syntax_ok, mut clean_ok, mut problems) = (0, 0, Vec::new());
    for f in &files {
        let src = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        if !src.lines().any(|l| l.starts_with('%')) {
            continue;
        }
        // Split into (message, program) pairs as mkscript.sh does.
        let mut cases: Vec<(String, String)> = Vec::new();
        for line in src.split_inclusive('\n') {
            if let Some(msg) = line.strip_prefix('%') {
                cases.push((msg.trim_end_matches('\n').get(1..).unwrap_or("").to_string(), String::new()));
            } else if let Some(last) = cases.last_mut() {
                last.1.push_str(line);
            }
        }
        for (i, (msg, prog)) in cases.iter().enumerate() {
            let name = format!("test{}.mpd", i + 1);
            let (n, text) = parse_errors(&name, prog);
            let syntactic = SYNTAX_MESSAGES.iter().any(|m| grep_match(m, msg));
            if syntactic {
                if grep_match(msg, &text) {
                    syntax_ok += 1;
                } else {
                    problems.push(format!("{} case {} expects '{}', got:\n{}", f.display(), i + 1, msg, text));
                }
            } else if n == 0 {
                clean_ok += 1;
            } else {
                problems.push(format!("{} case {} ('{}') should parse, got:\n{}", f.display(), i + 1, msg, text));
            }
        }
    }
    eprintln!("diag collections: {} syntax errors diagnosed as expected, {} other cases parse", syntax_ok, clean_ok);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Debugging aid: `MPD_DUMP=file.mpd cargo test --test syntax_suite dump -- --nocapture`
/// prints the S-expression tree and diagnostics of one file.
#[test]
fn dump_from_env() {
    let Ok(path) = std::env::var("MPD_DUMP") else { return };
    let src = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let f = parse_source(&mut map, &path, &src, &mut diags);
    println!("{}", mpdc::syntax::dump::file(&f).replace(") (", ")\n  ("));
    print!("{}", diags.render(&map));
}
