//! srgrind: SR program -> troff, in the manner of vgrind(1) but on its own
//! (no vgrind, no vgrind macro package: the few strings and macros the
//! output uses are defined at its top).  Keywords are bold (`\*(+K`..`\*(-K`,
//! empty with -n), comments italic (`\*(+C`..`\*(-C`), strings between
//! `\*(+S` and `\*(-S` (empty: the document may redefine them); lines are
//! kept (no-fill) and white space with a tab, or two blanks or more, moves to
//! the source column (`\h'|Nn'`, one en a column, tab stops every 8 columns
//! or, with -w, 4).  The name a line declares (`resource r`, `global g`,
//! `proc p`, `process p`, `body b` alone on its line) is set in the left
//! margin and listed by -x.  Each file starts a page whose header is the -h
//! text, the file name and the page number.  With -f the input is a troff
//! document passed through as it is, but for the SR text between `.vS` and
//! `.vE` lines.
use super::scan::{scan, Dialect, Lang, Tok};

/// srgrind's options.
#[derive(Default)]
pub struct GrindOptions {
    pub filter: bool,
    pub no_bold: bool,
    pub tab4: bool,
    pub index: bool,
    pub size: Option<String>,
    pub header: Option<String>,
    /// keywords read from a vgrindefs file (-d), instead of SR's
    pub keywords: Option<Vec<String>>,
}

/// Text for troff: a backslash as `\e`, other characters than ASCII as
/// `\[uXXXX]` (a byte that is not UTF-8 taken as Latin-1), control
/// characters (a DOS line's CR, a form feed inside a string) dropped.
fn escape(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(s.len());
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => v.extend_from_slice(b"\\e"),
                '\t' | ' '..='~' => v.push(c as u8),
                _ if c.is_control() => {}
                _ => v.extend_from_slice(format!("\\[u{:04X}]", c as u32).as_bytes()),
            }
        }
        for &b in chunk.invalid() {
            v.extend_from_slice(format!("\\[u{:04X}]", b as u32).as_bytes());
        }
    }
    v
}

/// Formats SR text into troff lines, one a source line.
struct Lines<'o> {
    o: &'o GrindOptions,
    out: Vec<u8>,
    line: Vec<u8>,
    col: i64,
    /// the string that closes the comment or string font in use
    open_font: Option<&'static [u8]>,
    /// the keyword and name before, for the margin names
    last_word: Option<Vec<u8>>,
    body_name: Option<Vec<u8>>,
    margin: Option<Vec<u8>>,
    line_no: usize,
    /// (name, line) of each margin name
    names: Vec<(String, usize)>,
}

impl<'o> Lines<'o> {
    /// SR's keywords but the predefined files (`stdout` is an identifier
    /// that happens to be reserved), or the -d list.
    fn is_keyword(&self, w: &[u8], scanned: bool) -> bool {
        match &self.o.keywords {
            Some(list) => list.iter().any(|k| k.as_bytes() == w),
            None => scanned && !matches!(w, b"stdin" | b"stdout" | b"stderr"),
        }
    }

    fn end_font(&mut self) {
        if let Some(close) = self.open_font.take() {
            self.line.extend_from_slice(close);
        }
    }

    /// Text in the comment (`+C`) or string (`+S`) font: a run of pieces
    /// shares one font change.
    fn in_font(&mut self, open: &'static [u8], close: &'static [u8], s: &[u8]) {
        if self.open_font != Some(close) {
            self.end_font();
            self.line.extend_from_slice(open);
            self.open_font = Some(close);
        }
        self.text(s);
    }

    fn text(&mut self, s: &[u8]) {
        self.col += String::from_utf8_lossy(s).chars().count() as i64;
        self.line.extend(escape(s));
    }

    /// A piece of code (not white space, not a comment): the margin name
    /// rules look at the words in order.
    fn code(&mut self, s: &[u8], word: bool, keyword: bool) {
        self.end_font();
        if self.body_name.is_some() {
            self.body_name = None;
        }
        if word && !keyword && self.margin.is_none() {
            match self.last_word.as_deref() {
                Some(b"proc" | b"procedure" | b"process" | b"resource" | b"global") => self.margin = Some(s.to_vec()),
                Some(b"body") => self.body_name = Some(s.to_vec()),
                _ => {}
            }
        }
        // any word, so a -d keyword list without `proc` still finds `proc p`
        self.last_word = if word { Some(s.to_vec()) } else { None };
        if keyword {
            self.line.extend_from_slice(b"\\*(+K");
            self.text(s);
            self.line.extend_from_slice(b"\\*(-K");
        } else {
            self.text(s);
        }
    }

    fn end_line(&mut self) {
        self.end_font();
        if let Some(n) = self.body_name.take() {
            self.margin.get_or_insert(n);
        }
        self.out.extend_from_slice(b"\\&");
        if let Some(name) = self.margin.take() {
            // zero-width, from the left edge of the indent
            self.out.extend_from_slice(b"\\Z'\\h'-\\n(.iu'\\fB");
            self.out.extend(escape(&name));
            self.out.extend_from_slice(b"\\fR'");
            self.names.push((String::from_utf8_lossy(&name).into_owned(), self.line_no));
        }
        self.out.append(&mut self.line);
        self.out.push(b'\n');
        self.col = 0;
        self.last_word = None;
        self.line_no += 1;
    }

    fn piece(&mut self, t: Tok) {
        match t {
            Tok::Keyword(w) => self.code(w, true, self.is_keyword(w, true)),
            Tok::Name(w) => self.code(w, true, self.is_keyword(w, false)),
            Tok::Number(w) | Tok::Punct(w) | Tok::Bad(w) | Tok::Ne(w) | Tok::Literal(w) => self.code(w, false, false),
            Tok::Arrow => self.code(b"->", false, false),
            Tok::Box => self.code(b"[]", false, false),
            Tok::Ge => self.code(b">=", false, false),
            Tok::Le => self.code(b"<=", false, false),
            Tok::Colon => self.code(b":", false, false),
            Tok::Parallel => self.code(b"//", false, false),
            Tok::Str(w) => {
                if self.open_font != Some(b"\\*(-S") {
                    // a string is code: it ends a comment's font and a declaration
                    self.code(b"", false, false);
                }
                self.in_font(b"\\*(+S", b"\\*(-S", w);
            }
            Tok::Comment(w) => self.in_font(b"\\*(+C", b"\\*(-C", w),
            Tok::Space(w) => {
                let tab = if self.o.tab4 { 4 } else { 8 };
                if w.contains(&b'\t') || w.len() >= 2 {
                    self.col = super::tex::column_after(self.col, w, tab);
                    self.line.extend_from_slice(format!("\\h'|{}n'", self.col).as_bytes());
                } else {
                    self.text(w);
                }
            }
            Tok::Newlines(n) => {
                for _ in 0..n {
                    self.end_line();
                }
            }
            Tok::CommentEnd => self.end_line(),
            Tok::Page => {
                self.end_line();
                self.out.extend_from_slice(b".bp\n");
            }
            Tok::BlockEnd(_) => {}
        }
    }
}

/// Formats `src` (SR text) as troff lines; also the margin names and lines.
fn format(o: &GrindOptions, src: &[u8]) -> (Vec<u8>, Vec<(String, usize)>) {
    let mut l = Lines {
        o,
        out: Vec::new(),
        line: Vec::new(),
        col: 0,
        open_font: None,
        last_word: None,
        body_name: None,
        margin: None,
        line_no: 1,
        names: Vec::new(),
    };
    let dialect = Dialect { lang: Lang::Sr, hash_pieces: false, escape: false };
    scan(src, dialect, &mut |t| l.piece(t));
    if !l.line.is_empty() || src.last().is_some_and(|&c| c != b'\n') {
        l.end_line();
    }
    (l.out, l.names)
}

/// A `.ds` line: the text quoted so leading blanks survive.
fn define_string(name: &str, text: &str) -> String {
    // a quote would end the header's part of .tl
    let text = String::from_utf8_lossy(&escape(text.as_bytes())).replace('\'', "\\(aq");
    format!(".ds {} \"{}\n", name, text)
}

/// The strings every output defines (fonts), then the page layout.
fn prologue(o: &GrindOptions) -> String {
    let mut s = String::from(".\\\" troff text made by srgrind from SR program text\n");
    let (kw_on, kw_off) = if o.no_bold { ("", "") } else { ("\\fB", "\\fR") };
    s += &format!(".ds +K {}\n.ds -K {}\n.ds +C \\fI\n.ds -C \\fR\n.ds +S\n.ds -S\n", kw_on, kw_off);
    if let Some(size) = &o.size {
        s += &format!(".ps {}\n.vs \\n(.sp+2p\n", size);
    }
    if o.filter {
        return s;
    }
    s += ".de vH\n'sp 0.5i\n.tl '\\\\*(=H''\\\\*(=F  page %'\n'sp 0.5i\n..\n";
    s += ".de vF\n'bp\n..\n.wh 0 vH\n.wh -1i vF\n";
    s
}

/// Runs srgrind over `inputs`; the troff text.
pub fn grind(o: &GrindOptions, inputs: &[super::Input]) -> Vec<u8> {
    let mut out = prologue(o).into_bytes();
    let header = o.header.as_deref().unwrap_or("");
    let mut index: Vec<(String, String, usize)> = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        if o.filter {
            out.extend(filter(o, &input.text));
            continue;
        }
        let (text, names) = format(o, &input.text);
        index.extend(names.into_iter().map(|(n, l)| (n, input.name.clone(), l)));
        if o.index {
            continue;
        }
        // the header's strings first: the first line of text springs the page trap
        out.extend(define_string("=F", &input.name).bytes());
        out.extend(define_string("=H", header).bytes());
        out.extend_from_slice(if k == 0 { b".nf\n.in 12n\n" } else { b".bp\n" });
        out.extend(text);
    }
    if o.index && !o.filter {
        out.extend(define_string("=F", "Index").bytes());
        out.extend(define_string("=H", header).bytes());
        out.extend_from_slice(b".nf\n.in 12n\n");
        out.extend(index_page(index));
    }
    out
}

/// -x: the declared names, sorted, each with its file and line.
fn index_page(mut index: Vec<(String, String, usize)>) -> Vec<u8> {
    index.sort_by(|a, b| a.0.to_lowercase().cmp(&b.0.to_lowercase()).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut s = String::from(".ta 24n\n");
    for (name, file, line) in index {
        let entry = format!("{}\t{}, line {}", name, file, line);
        s += &format!("\\&{}\n", String::from_utf8_lossy(&escape(entry.as_bytes())));
    }
    s.into_bytes()
}

/// -f: lines between `.vS` and `.vE` are SR text; the rest passes through.
fn filter(o: &GrindOptions, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut program: Option<Vec<u8>> = None;
    for line in text.split_inclusive(|&c| c == b'\n') {
        let bare = line.strip_suffix(b"\n").unwrap_or(line);
        match program.as_mut() {
            Some(p) if bare.starts_with(b".vE") => {
                out.extend(format(o, p).0);
                program = None;
                out.extend_from_slice(line);
            }
            Some(p) => p.extend_from_slice(line),
            None => {
                if bare.starts_with(b".vS") {
                    program = Some(Vec::new());
                }
                out.extend_from_slice(line);
            }
        }
        if !line.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    if let Some(p) = program {
        out.extend(format(o, &p).0);
    }
    out
}

/// The `kw=` list of the entry named `sr` in a vgrindefs(5) file.
pub fn keywords_from_defs(defs: &str) -> Option<Vec<String>> {
    let joined = defs.replace("\\\n", "");
    for entry in joined.lines() {
        let mut fields = entry.split(':');
        let names = fields.next()?;
        if !names.split('|').any(|n| n.trim() == "sr") {
            continue;
        }
        let kw = fields.map(str::trim).find_map(|f| f.strip_prefix("kw="))?;
        return Some(kw.split_whitespace().map(String::from).collect());
    }
    None
}

/// `srgrind [-f] [-n] [-w] [-x] [-d defs] [-h header] [-s size] [file ...]`
pub fn srgrind_main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (o, files) = match parse_args(&args) {
        Ok(x) => x,
        Err(m) => {
            eprintln!("srgrind: {}", m);
            eprintln!("usage: srgrind [-f] [-n] [-w] [-x] [-s size] [-d defs] [-h header] [file...]");
            return 1;
        }
    };
    let (inputs, err) = super::read_inputs("srgrind", &files);
    if err.is_some() {
        return super::finish("srgrind", b"", err);
    }
    super::finish("srgrind", &grind(&o, &inputs), None)
}

/// srgrind's options, which stop at the first file name; a value may be
/// attached (`-s10`) or the next argument (`-s 10`).
fn parse_args(args: &[String]) -> Result<(GrindOptions, Vec<String>), String> {
    let mut o = GrindOptions::default();
    let mut k = 0;
    while k < args.len() {
        let a = args[k].as_str();
        k += 1;
        let (flag, attached) = match a {
            "--" => break,
            _ if !a.starts_with('-') || a == "-" => {
                k -= 1;
                break;
            }
            _ => (&a[..2.min(a.len())], &a[2.min(a.len())..]),
        };
        let mut value = || -> Result<String, String> {
            if !attached.is_empty() {
                return Ok(attached.to_string());
            }
            k += 1;
            args.get(k - 1).cloned().ok_or_else(|| format!("{} requires a value", flag))
        };
        match flag {
            "-f" | "-n" | "-w" | "-x" if !attached.is_empty() => return Err(format!("unknown option {}", a)),
            "-f" => o.filter = true,
            "-n" => o.no_bold = true,
            "-w" => o.tab4 = true,
            "-x" => o.index = true,
            "-s" => {
                let v = value()?;
                if v.is_empty() || !v.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(format!("-s needs a point size, not `{}'", v));
                }
                o.size = Some(v);
            }
            "-h" => o.header = Some(value()?),
            "-d" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {}", path, e))?;
                let kw = keywords_from_defs(&text).ok_or_else(|| format!("{}: no `sr' entry with kw=", path))?;
                o.keywords = Some(kw);
            }
            _ => return Err(format!("unknown option {}", a)),
        }
    }
    Ok((o, args[k..].to_vec()))
}
