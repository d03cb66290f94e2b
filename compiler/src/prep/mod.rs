//! prep: SR's preprocessors `ccr2sr` (ccr.rs), `m2sr` (monitor.rs) and
//! `csp2sr` (csp.rs) on one engine. A preprocessor reads SR text with its
//! notation's macros -- calls like `_region(r, cond)` and bare words like
//! `_proc_end` -- and object-like `#define NAME text` lines, and writes plain SR. Each expansion stays on the line of its call, so
//! the compiler's messages point at the programmer's lines.
pub mod ccr;
pub mod csp;
pub mod monitor;

/// What a notation does with one macro: `Some(text)` replaces it, `None`
/// leaves an unknown name alone (it may be the program's own identifier).
/// The arguments are `None` for a bare word (`_proc_end`), `Some` for a call.
pub type Expander = dyn Fn(&str, Option<&[String]>) -> Option<Result<String, String>>;

/// Expands `src`: `#define` lines are recorded (and left empty), defined names
/// replaced, and `_name(args)` calls given to `ex`. Strings, characters and
/// comments are copied untouched.
/// At the end, `ex` is called once with the empty name, so a notation can
/// report what is still open (`_monitor` without `_monitor_end`).
pub fn expand(src: &str, ex: &Expander) -> Result<String, String> {
    let mut defs: Vec<(String, String)> = Vec::new();
    let out = expand_with(src, ex, &mut defs, 0)?;
    if let Some(Err(e)) = ex("", None) {
        return Err(format!("line {} (end of file): {}", src.lines().count().max(1), e));
    }
    Ok(out)
}

fn expand_with(src: &str, ex: &Expander, defs: &mut Vec<(String, String)>, depth: u32) -> Result<String, String> {
    if depth > 50 {
        return Err("macros nested too deeply".into());
    }
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len() + src.len() / 2);
    let mut i = 0;
    let mut line_start = true;
    let mut line = 1usize;
    while i < b.len() {
        let c = b[i];
        if line_start {
            // a `#define` line: record it, keep the line (empty) for the numbering
            let mut j = i;
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            if src[j..].starts_with("#define") {
                let end = src[j..].find('\n').map(|k| j + k).unwrap_or(b.len());
                let text = strip_comments(&src[j + 7..end]);
                let mut parts = text.trim().splitn(2, |c: char| c.is_whitespace());
                let name = parts.next().unwrap_or("").to_string();
                if name.is_empty() || name.contains('(') {
                    return Err(format!("line {}: only `#define NAME text` is understood", line));
                }
                let val = parts.next().unwrap_or("").trim().to_string();
                defs.retain(|(n, _)| *n != name);
                defs.push((name, val));
                i = end;
                continue;
            }
        }
        line_start = false;
        match c {
            b'\n' => {
                out.push('\n');
                line += 1;
                line_start = true;
                i += 1;
            }
            b'"' | b'\'' => {
                let j = skip_quoted(b, i);
                out.push_str(&src[i..j]);
                i = j;
            }
            b'#' => {
                let j = src[i..].find('\n').map(|k| i + k).unwrap_or(b.len());
                out.push_str(&src[i..j]);
                i = j;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let j = src[i + 2..].find("*/").map(|k| i + 4 + k).unwrap_or(b.len());
                out.push_str(&src[i..j]);
                line += src[i..j].matches('\n').count();
                i = j;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let mut j = i;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                let word = &src[i..j];
                if let Some((_, v)) = defs.iter().find(|(n, _)| n == word) {
                    let v = v.clone();
                    out.push_str(&expand_with(&v, ex, defs, depth + 1)?);
                    i = j;
                    continue;
                }
                if word.starts_with('_') {
                    let mut k = j;
                    while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
                        k += 1;
                    }
                    if b.get(k) == Some(&b'(') {
                        let (args, after) = call_args(src, k).map_err(|e| format!("line {}: {}", line, e))?;
                        let mut xargs = Vec::new();
                        for a in &args {
                            xargs.push(expand_with(a.trim(), ex, defs, depth + 1)?.replace('\n', " "));
                        }
                        if let Some(r) = ex(word, Some(&xargs)) {
                            let text = r.map_err(|e| format!("line {}: {}", line, e))?;
                            out.push_str(&text);
                            // keep the line count when the call spanned lines
                            let nl = src[k..after].matches('\n').count();
                            for _ in 0..nl {
                                out.push('\n');
                            }
                            line += nl;
                            i = after;
                            continue;
                        }
                    } else if let Some(r) = ex(word, None) {
                        out.push_str(&r.map_err(|e| format!("line {}: {}", line, e))?);
                        i = j;
                        continue;
                    }
                }
                out.push_str(word);
                i = j;
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    Ok(out)
}

/// End of the string or character literal starting at `i` (on its line).
fn skip_quoted(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != q && b[j] != b'\n' {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    (j + 1).min(b.len())
}

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(k) = rest.find("/*") {
        out.push_str(&rest[..k]);
        match rest[k + 2..].find("*/") {
            Some(e) => rest = &rest[k + 4 + e..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The arguments of the call whose `(` is at `open`, split at top-level commas,
/// and the position after its `)`.
fn call_args(src: &str, open: usize) -> Result<(Vec<String>, usize), String> {
    let b = src.as_bytes();
    let mut depth = 0;
    let mut args = Vec::new();
    let mut start = open + 1;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    args.push(src[start..i].to_string());
                    return Ok((args, i + 1));
                }
            }
            b',' if depth == 1 => {
                args.push(src[start..i].to_string());
                start = i + 1;
            }
            b'"' | b'\'' => {
                i = skip_quoted(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Err("unclosed macro call".into())
}

/// The command line shared by the preprocessors: `NAME [OPTION] [-e] file.EXT`
/// writes file.sr, which must not exist unless an earlier run of NAME wrote it.
/// `opts` are the tool's options (the last one given wins; `make` gets it, or
/// "" for the default); `-e` (the original's "experimental" header switch)
/// is accepted and means nothing here.
pub fn tool_main(name: &str, ext: &str, opts: &[&str], make: &dyn Fn(&str) -> Box<Expander>) -> i32 {
    let mut chosen = "";
    let mut args: Vec<String> = Vec::new();
    let mut usage = format!("usage: {}", name);
    for o in opts {
        usage.push_str(&format!(" [{}]", o));
    }
    usage.push_str(&format!(" [-e] file{}", ext));
    for a in std::env::args().skip(1) {
        if args.is_empty() && a.starts_with('-') {
            if let Some(o) = opts.iter().find(|o| **o == a) {
                chosen = o;
            } else if a != "-e" {
                eprintln!("{}", usage);
                return 1;
            }
        } else {
            args.push(a);
        }
    }
    if args.len() != 1 || !args[0].ends_with(ext) || args[0].len() == ext.len() {
        eprintln!("{}", usage);
        return 1;
    }
    let ex = make(chosen);
    let ex: &Expander = &*ex;
    let input = &args[0];
    let out = format!("{}.sr", &input[..input.len() - ext.len()]);
    let banner = format!("/* This SR file was generated by {} */", name);
    let src = match std::fs::read_to_string(input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: cannot read {}: {}", name, input, e);
            return 1;
        }
    };
    if let Ok(old) = std::fs::read_to_string(&out) {
        if !old.starts_with(&banner) {
            eprintln!("{}: {} exists and was not created by {} - will not overwrite", name, out, name);
            return 1;
        }
    }
    match expand(&src, ex) {
        Ok(text) => {
            // the banner shares the first line, so line numbers stay the input's
            if let Err(e) = std::fs::write(&out, format!("{} {}", banner, text)) {
                eprintln!("{}: cannot write {}: {}", name, out, e);
                return 1;
            }
            0
        }
        Err(e) => {
            eprintln!("{}: {}: {}", name, input, e);
            1
        }
    }
}
