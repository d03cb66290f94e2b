//! srlatex: SR program -> LaTeX for the `srlatex` package (the style file
//! defines the macros and fonts).  Each line is text mode with math-mode
//! runs for operators and digits; keywords, identifiers, strings and
//! comments go to `\srTeXkw`, `\srTeXid`, `\srTeXst`, `\srTeXcm`; blanks to
//! `\srTeXsp{n}` (n character widths, `\srTeXcw` each).  White space with a
//! tab, or at least -a blanks, closes the text before it in an
//! `\srTeXmb{columns}{text}` box, so what follows keeps its source column.
//! With -e, text between `#<` and `>#` is copied as it is.
use super::scan::{scan, Dialect, Lang, Tok};
use super::tex::{column_after, up_to_nul};

/// srlatex's options.
pub struct LatexOptions {
    pub lang: Lang,
    pub escape: bool,
    pub wrapper: bool,
    pub tab: i64,
    pub align: i64,
}

impl Default for LatexOptions {
    fn default() -> Self {
        LatexOptions { lang: Lang::Sr, escape: false, wrapper: false, tab: 8, align: 3 }
    }
}

/// One run of srlatex.
pub struct LatexWriter<'o> {
    o: &'o LatexOptions,
    pub out: Vec<u8>,
    /// warnings (a byte no rule accepts), one a line
    pub warnings: Vec<String>,
    line: Vec<u8>,
    read: i64,
    placed: i64,
    math: bool,
    resource_ends: bool,
    line_no: usize,
}

impl<'o> LatexWriter<'o> {
    pub fn new(o: &'o LatexOptions) -> Self {
        LatexWriter {
            o,
            out: Vec::new(),
            warnings: Vec::new(),
            line: Vec::new(),
            read: 0,
            placed: 0,
            math: false,
            resource_ends: false,
            line_no: 1,
        }
    }

    pub fn prologue(&mut self) {
        if self.o.wrapper {
            self.put("\\documentclass{article}\n\\usepackage{srlatex}\n\\begin{document}\n\\raggedbottom\n");
        }
        self.put("\\begin{flushleft}\n");
    }

    pub fn epilogue(&mut self) {
        self.put("\\end{flushleft}\n");
        if self.o.wrapper {
            self.put("\\vfill\n\\end{document}\n");
        }
    }

    fn put(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    /// Formats one file's text; `name` locates warnings.
    pub fn file(&mut self, name: &str, src: &[u8]) {
        self.line.clear();
        self.line_no = 1;
        self.put("\\begin{srTeXprogram}\n");
        self.start_line();
        let dialect = Dialect { lang: self.o.lang, hash_pieces: true, escape: self.o.escape };
        scan(src, dialect, &mut |t| self.piece(name, t));
        self.end_line();
        self.put("\\end{srTeXprogram}\n");
    }

    fn text_mode(&mut self) {
        if self.math {
            self.line.push(b'$');
            self.math = false;
        }
    }

    fn math_mode(&mut self) {
        if !self.math {
            self.line.push(b'$');
            self.math = true;
        }
    }

    fn start_line(&mut self) {
        self.read = 0;
        self.placed = 0;
        self.math = false;
    }

    fn end_line(&mut self) {
        self.text_mode();
        if self.line.is_empty() {
            self.put("\\hspace{0pt}\\\\\n");
        } else {
            self.out.append(&mut self.line);
            self.put("\\\\\n");
        }
        if self.resource_ends {
            self.put("\\goodbreak\n");
            self.resource_ends = false;
        }
    }

    /// Appends `s` escaped: operators and digits in math mode, the rest in
    /// text mode, runs of blanks as `\srTeXsp`.
    fn text(&mut self, s: &[u8]) {
        let s = up_to_nul(s);
        self.read += s.len() as i64;
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            i += 1;
            let math: &[u8] = match c {
                b' ' => {
                    let n = 1 + s[i..].iter().take_while(|&&b| b == b' ').count();
                    i += n - 1;
                    self.line.extend_from_slice(format!("\\srTeXsp{{{}}}", n).as_bytes());
                    continue;
                }
                b'\\' => b"\\backslash ",
                b'{' => b"\\lbrace ",
                b'}' => b"\\rbrace ",
                b'~' => b"\\sim ",
                b'@' => b"\\char`\\@ ",
                b'^' => b"\\char`\\^ ",
                b'*'
                | b'>'
                | b'<'
                | b'='
                | b'('
                | b')'
                | b','
                | b';'
                | b'+'
                | b'-'
                | b'/'
                | b':'
                | b'['
                | b']'
                | b'!'
                | b'|'
                | b'?'
                | b'0'..=b'9' => {
                    self.math_mode();
                    self.line.push(c);
                    continue;
                }
                b'$' | b'&' | b'#' | b'%' | b'_' => {
                    self.text_mode();
                    self.line.push(b'\\');
                    self.line.push(c);
                    continue;
                }
                _ => {
                    self.text_mode();
                    self.line.push(c);
                    continue;
                }
            };
            self.math_mode();
            self.line.extend_from_slice(math);
        }
    }

    /// `\macro{text}`, the text in text mode at both ends.
    fn wrapped(&mut self, mac: &str, s: &[u8]) {
        self.text_mode();
        self.line.extend_from_slice(mac.as_bytes());
        self.line.push(b'{');
        self.text(s);
        self.text_mode();
        self.line.push(b'}');
    }

    fn symbol(&mut self, cols: i64, tex: &str) {
        self.read += cols;
        self.math_mode();
        self.line.extend_from_slice(tex.as_bytes());
    }

    fn piece(&mut self, name: &str, t: Tok) {
        match t {
            Tok::Keyword(w) => self.wrapped("\\srTeXkw", w),
            Tok::Name(w) => self.wrapped("\\srTeXid", w),
            Tok::Str(w) => self.wrapped("\\srTeXst", w),
            Tok::Comment(w) => self.wrapped("\\srTeXcm", w),
            Tok::Number(w) => {
                self.math_mode();
                self.text(w)
            }
            Tok::Punct(w) => self.text(w),
            Tok::Bad(w) => {
                let shown: String = w
                    .iter()
                    .map(|&c| if c.is_ascii_graphic() { (c as char).to_string() } else { format!("\\x{:02x}", c) })
                    .collect();
                self.warnings.push(format!("{}:{}: unknown character `{}'", name, self.line_no, shown));
                self.text(w)
            }
            Tok::Literal(w) => {
                self.line_no += w.iter().filter(|&&c| c == b'\n').count();
                self.text_mode();
                self.line.extend_from_slice(up_to_nul(w));
            }
            Tok::Arrow => self.symbol(2, "\\rightarrow "),
            Tok::Box => self.symbol(2, "\\srTeXbx "),
            Tok::Ge => self.symbol(2, "\\geq "),
            Tok::Le => self.symbol(2, "\\leq "),
            Tok::Ne(_) => self.symbol(2, "\\neq "),
            Tok::Colon => {
                self.read += 1;
                self.text_mode();
                self.line.extend_from_slice(b"\\,:\\,");
            }
            Tok::Parallel => self.symbol(2, "\\srTeXpl "),
            Tok::Space(w) => self.space(w),
            Tok::Newlines(n) => {
                self.line_no += n;
                self.end_line();
                if n > 1 {
                    self.put(&format!("\\vskip{}\\baselineskip\n", n - 1));
                }
                self.start_line();
            }
            Tok::CommentEnd => {
                self.line_no += 1;
                self.end_line();
                self.start_line();
            }
            Tok::Page => self.put("\\eject"),
            Tok::BlockEnd(0) => self.resource_ends = true,
            Tok::BlockEnd(_) => {}
        }
    }

    fn space(&mut self, w: &[u8]) {
        let cols = column_after(self.read, w, self.o.tab);
        self.text_mode();
        if w.contains(&b'\t') || cols - self.read >= self.o.align {
            let n = cols - self.placed;
            if self.line.is_empty() {
                self.put(&format!("\\srTeXsp{{{}}}", n));
            } else {
                self.put(&format!("\\srTeXmb{{{}}}{{", n));
                self.out.append(&mut self.line);
                self.put("}");
            }
            self.read = cols;
            self.placed = cols;
        } else {
            self.text(w);
        }
    }
}
