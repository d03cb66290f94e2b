//! prof: `mpdprof`, the MPD profiler (mpdprof(1)).
//!
//! Reads an MPD_TRACE file (mpdtrace(5)) and totals the events by source
//! line: a summary line per (file, line), or with `-a` each source file
//! listed with the counts as comments under the lines they belong to.
//! Files, and the events of a line, are reported in the order they first
//! appear in the trace, as MPD 1.0.1's mpdprof did (the suite's diag/trace
//! pins both orders down).
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

/// Counts of one source file: line -> events in order of first appearance.
#[derive(Default, Debug, PartialEq)]
pub struct FileCounts {
    pub name: String,
    pub lines: BTreeMap<u32, Vec<(String, u64)>>,
}

/// Totals a trace.  A line counts when its first four blank-separated words
/// are `file,` `line` `proc` `EVENT` (so "(unknown location)" lines and
/// anything else are skipped).
pub fn totals<R: BufRead>(r: R) -> io::Result<Vec<FileCounts>> {
    let mut files: Vec<FileCounts> = Vec::new();
    for line in r.split(b'\n') {
        let line = line?;
        let text = String::from_utf8_lossy(&line);
        let mut w = text.split_whitespace();
        let (Some(f), Some(l), Some(_proc), Some(ev)) = (w.next(), w.next(), w.next(), w.next()) else {
            continue;
        };
        let Some(fname) = f.strip_suffix(',') else { continue };
        let Ok(lno) = l.parse::<u32>() else { continue };
        let i = match files.iter().position(|x| x.name == fname) {
            Some(i) => i,
            None => {
                files.push(FileCounts { name: fname.to_string(), ..Default::default() });
                files.len() - 1
            }
        };
        let evs = files[i].lines.entry(lno).or_default();
        match evs.iter_mut().find(|(e, _)| e == ev) {
            Some((_, n)) => *n += 1,
            None => evs.push((ev.to_string(), 1)),
        }
    }
    Ok(files)
}

fn counts(evs: &[(String, u64)]) -> String {
    let mut s = String::new();
    for (e, n) in evs {
        s.push_str(&format!("  {}:{}", e, n));
    }
    s.push('\n');
    s
}

/// The summary of one file: `file,  NN   EV:n  EV:n`.
pub fn summary(f: &FileCounts) -> String {
    let mut s = String::new();
    for (lno, evs) in &f.lines {
        s.push_str(&format!("{},{:4} {}", f.name, lno, counts(evs)));
    }
    s
}

/// The annotated listing of one file whose text is `src`: each line, then
/// (if it has events) its leading blanks, `#` and the counts.
pub fn annotate(f: &FileCounts, src: &[u8]) -> String {
    let mut s = format!("#====================\n#  {}\n#====================\n", f.name);
    let mut lno = 0u32;
    for line in src.split_inclusive(|&b| b == b'\n') {
        lno += 1;
        let text = String::from_utf8_lossy(line);
        s.push_str(&text);
        if !text.ends_with('\n') {
            s.push('\n');
        }
        if let Some(evs) = f.lines.get(&lno) {
            let indent: String = text.chars().take_while(|c| c.is_whitespace() && *c != '\n').collect();
            s.push_str(&indent);
            s.push('#');
            s.push_str(&counts(evs));
        }
    }
    for (l, evs) in f.lines.range(lno + 1..) {
        s.push_str(&format!("(beyond EOF) {},{:4} {}", f.name, l, counts(evs)));
    }
    s
}

/// The command: `mpdprof [-a] [tracefile]` (standard input without a file).
pub fn mpdprof_main() -> i32 {
    prof_main("mpdprof")
}

/// `srprof`: the same profiler under SR's name (SR_TRACE writes the same
/// lines as MPD_TRACE, so only the messages' name differs).
pub fn srprof_main() -> i32 {
    prof_main("srprof")
}

fn prof_main(me: &str) -> i32 {
    let usage = format!("usage: {} [-a] [tracefile]", me);
    let mut annotated = false;
    let mut file: Option<String> = None;
    for a in std::env::args().skip(1) {
        if a == "-a" {
            annotated = true;
        } else if a.starts_with('-') && a != "-" {
            eprintln!("{}: unknown option {}\n{}", me, a, usage);
            return 1;
        } else if file.is_none() {
            file = Some(a);
        } else {
            eprintln!("{}", usage);
            return 1;
        }
    }
    let files = match &file {
        Some(p) if p != "-" => match std::fs::File::open(p) {
            Ok(f) => totals(io::BufReader::new(f)),
            Err(e) => {
                eprintln!("{}: cannot open {}: {}", me, p, e);
                return 1;
            }
        },
        _ => totals(io::stdin().lock()),
    };
    let files = match files {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}: cannot read the trace: {}", me, e);
            return 1;
        }
    };
    let mut out = String::new();
    for (i, f) in files.iter().enumerate() {
        let text = if annotated {
            // the listing needs the source, found from the current directory
            match std::fs::read(&f.name) {
                Ok(src) => annotate(f, &src),
                Err(e) => {
                    eprintln!("{}: {}", f.name, e);
                    summary(f)
                }
            }
        } else {
            summary(f)
        };
        out.push_str(&text);
        if i + 1 < files.len() {
            out.push('\n');
        }
    }
    let mut so = io::stdout().lock();
    if so.write_all(out.as_bytes()).and_then(|_| so.flush()).is_err() {
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "a.mpd, 3            x.body                BODY      10001     0\n\
a.mpd, 5            x.body                SEND      10001     0\n\
a.mpd, 3            x.body                ENDBODY   10001     0\n\
b.mpd, 12           vm(1).y.p             PROC      10002     10001\n\
a.mpd, 5            x.body                SEND      10001     0\n\
(unknown location)  x.body                CALL      10001     0\n\
garbage\n";

    #[test]
    fn totals_by_file_and_line_in_trace_order() {
        let f = totals(TRACE.as_bytes()).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].name, "a.mpd");
        assert_eq!(f[0].lines[&3], vec![("BODY".to_string(), 1), ("ENDBODY".to_string(), 1)]);
        assert_eq!(f[0].lines[&5], vec![("SEND".to_string(), 2)]);
        assert_eq!(f[1].lines[&12], vec![("PROC".to_string(), 1)]);
        assert_eq!(summary(&f[0]), "a.mpd,   3   BODY:1  ENDBODY:1\na.mpd,   5   SEND:2\n");
    }

    #[test]
    fn annotation_keeps_indent_and_reports_lines_past_the_end() {
        let f = totals("s.mpd, 2  r.body  IN  1 0\ns.mpd, 9  r.body  NI  1 0\n".as_bytes()).unwrap();
        let out = annotate(&f[0], b"resource r()\n\t  in a() -> skip ni\nend\n");
        assert_eq!(
            out,
            "#====================\n#  s.mpd\n#====================\nresource r()\n\t  in a() -> skip ni\n\t  #  IN:1\nend\n(beyond EOF) s.mpd,   9   NI:1\n"
        );
    }
}
