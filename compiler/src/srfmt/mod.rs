//! srfmt: SR's program formatters, command-line compatible with SR 2.3.3's:
//! `srtex` (plain TeX or LaTeX, tex.rs), `srlatex` (LaTeX with the srlatex
//! package, latex.rs) and `srgrind` (troff, grind.rs).  All three share one
//! scanner (scan.rs) that cuts the program into keywords, names, strings,
//! comments, operators and white space without parsing it, so any text --
//! a wrong program, a fragment -- is formatted.
pub mod grind;
pub mod latex;
pub mod scan;
pub mod tex;

use std::io::Write;

/// An option letter and its value (`None` for a flag).
pub type Opt = (char, Option<String>);

/// Splits `args` as getopt(3) does with `spec` ("t:pl": `t` takes a value):
/// clustered flags (`-lp`), values attached or separate (`-t4`, `-t 4`),
/// `--` ending the options; like GNU getopt, options may follow file names.
pub fn getopt(args: &[String], spec: &str) -> Result<(Vec<Opt>, Vec<String>), String> {
    let mut opts = Vec::new();
    let mut files = Vec::new();
    let mut k = 0;
    while k < args.len() {
        let a = &args[k];
        k += 1;
        if a == "--" {
            files.extend(args[k..].iter().cloned());
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            files.push(a.clone());
            continue;
        }
        for (at, c) in a[1..].char_indices() {
            let pos = spec.find(c).filter(|_| c != ':');
            let Some(pos) = pos else { return Err(format!("unknown option -{}", c)) };
            if spec[pos + 1..].starts_with(':') {
                let rest = &a[1 + at + c.len_utf8()..];
                let value = if !rest.is_empty() {
                    rest.to_string()
                } else if k < args.len() {
                    k += 1;
                    args[k - 1].clone()
                } else {
                    return Err(format!("option -{} needs a value", c));
                };
                opts.push((c, Some(value)));
                break;
            }
            opts.push((c, None));
        }
    }
    Ok((opts, files))
}

/// C's atoi: optional blanks and sign, then digits; 0 without digits.
pub fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = t.bytes().take_while(|c| c.is_ascii_digit()).fold(0i64, |n, d| n.saturating_mul(10) + (d - b'0') as i64);
    if neg {
        -n
    } else {
        n
    }
}

/// One input: its name for messages, and its text.
pub struct Input {
    pub name: String,
    pub text: Vec<u8>,
}

/// Reads the named files, or standard input when there are none; the first
/// that cannot be read ends the list with its message.
pub fn read_inputs(tool: &str, files: &[String]) -> (Vec<Input>, Option<String>) {
    let mut inputs = Vec::new();
    if files.is_empty() {
        let mut text = Vec::new();
        return match std::io::Read::read_to_end(&mut std::io::stdin(), &mut text) {
            Ok(_) => (vec![Input { name: "(standard input)".into(), text }], None),
            Err(e) => (inputs, Some(format!("{}: standard input: {}", tool, e))),
        };
    }
    for f in files {
        match std::fs::read(f) {
            Ok(text) => inputs.push(Input { name: f.clone(), text }),
            Err(e) => return (inputs, Some(format!("{}: cannot read {}: {}", tool, f, io_reason(&e)))),
        }
    }
    (inputs, None)
}

/// The reason without Rust's "(os error N)".
fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(k) => s[..k].to_string(),
        None => s,
    }
}

/// Writes `out` to standard output, then `err` (if any) to standard error;
/// the exit status.
pub fn finish(tool: &str, out: &[u8], err: Option<String>) -> i32 {
    let mut so = std::io::stdout().lock();
    if let Err(e) = so.write_all(out).and_then(|_| so.flush()) {
        eprintln!("{}: cannot write the output: {}", tool, io_reason(&e));
        return 1;
    }
    match err {
        Some(m) => {
            eprintln!("{}", m);
            1
        }
        None => 0,
    }
}

fn usage_error(tool: &str, msg: &str, usage: &str) -> i32 {
    eprintln!("{}: {}", tool, msg);
    eprintln!("usage: {} {}", tool, usage);
    1
}

/// `srtex [-lp] [-a n] [-t n] [-C font] [-I font] [-K font] [-S font] [file ...]`
pub fn srtex_main() -> i32 {
    const USAGE: &str = "[-lp] [-a n] [-t n] [-CIKS font] [file ...]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (opts, files) = match getopt(&args, "t:pla:C:K:S:I:") {
        Ok(x) => x,
        Err(m) => return usage_error("srtex", &m, USAGE),
    };
    let mut o = tex::TexOptions::default();
    for (c, v) in opts {
        let v = v.unwrap_or_default();
        match c {
            't' => o.tab = Some(atoi(&v)).filter(|&t| t > 0).unwrap_or(8),
            'p' => o.wrapper = true,
            'l' => o.latex = true,
            'a' => o.align = atoi(&v),
            'C' => o.comment_font = v,
            'K' => o.keyword_font = v,
            'S' => o.string_font = v,
            _ => o.id_font = v,
        }
    }
    let (inputs, err) = read_inputs("srtex", &files);
    let mut w = tex::TexWriter::new(&o);
    w.prologue();
    for i in &inputs {
        w.file(&i.text);
    }
    if err.is_none() {
        w.epilogue();
    }
    finish("srtex", &w.out, err)
}

/// `srlatex [-ep] [-l lang] [-a n] [-t n] [file ...]`
pub fn srlatex_main() -> i32 {
    const USAGE: &str = "[-ep] [-l lang] [-a n] [-t n] [file ...]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (opts, files) = match getopt(&args, "el:t:pa:") {
        Ok(x) => x,
        Err(m) => return usage_error("srlatex", &m, USAGE),
    };
    let mut o = latex::LatexOptions::default();
    for (c, v) in opts {
        let v = v.unwrap_or_default();
        match c {
            // -e and -p toggle, as SR 2.3.3's did
            'e' => o.escape = !o.escape,
            'p' => o.wrapper = !o.wrapper,
            'l' => {
                o.lang = match v.as_bytes().first() {
                    Some(b's') => scan::Lang::Sr,
                    Some(b'f') => scan::Lang::Ftsr,
                    Some(b'p') => scan::Lang::Pl,
                    _ => return usage_error("srlatex", "language should be one of sr, ftsr, or pl", USAGE),
                }
            }
            't' => o.tab = Some(atoi(&v)).filter(|&t| t > 0).unwrap_or(8),
            _ => o.align = atoi(&v),
        }
    }
    let (inputs, err) = read_inputs("srlatex", &files);
    let mut w = latex::LatexWriter::new(&o);
    w.prologue();
    for i in &inputs {
        w.file(&i.name, &i.text);
    }
    if err.is_none() {
        w.epilogue();
    }
    for m in &w.warnings {
        eprintln!("srlatex: {}", m);
    }
    finish("srlatex", &w.out, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn getopt_clusters_values_and_late_options() {
        let (o, f) = getopt(&strings(&["-lp", "a.sr", "-t4", "-a", "2", "--", "-x"]), "t:pla:").unwrap();
        let want: Vec<Opt> = vec![('l', None), ('p', None), ('t', Some("4".into())), ('a', Some("2".into()))];
        assert_eq!(o, want);
        assert_eq!(f, strings(&["a.sr", "-x"]));
        assert!(getopt(&strings(&["-q"]), "t:p").is_err());
        assert!(getopt(&strings(&["-t"]), "t:p").is_err());
    }

    #[test]
    fn atoi_is_cs() {
        assert_eq!(atoi(" -12x"), -12);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("+7"), 7);
    }
}
