//! srtex: SR program -> plain TeX (or, with -l, LaTeX) that keeps the
//! program's lines, indentation and columns.  Each line is a `\line{...}` of
//! math-mode boxes: keywords, identifiers, strings and comments each in their
//! font (-K -I -S -C), operators as math symbols (`->` an arrow, `!=` a
//! struck-out equals).  White space with a tab, or at least -a blanks, starts
//! a new box as wide as the columns it skips (a character is 1/1.8 em), so
//! text after it lines up as it did in the source.  Blank lines become
//! vertical skips; the end of a resource or proc is a good place for a page
//! break (`\filbreak`).
use super::scan::{scan, Dialect, Lang, Tok};

/// srtex's options.
pub struct TexOptions {
    pub latex: bool,
    pub wrapper: bool,
    pub tab: i64,
    pub align: i64,
    pub comment_font: String,
    pub id_font: String,
    pub keyword_font: String,
    pub string_font: String,
}

impl Default for TexOptions {
    fn default() -> Self {
        TexOptions {
            latex: false,
            wrapper: false,
            tab: 8,
            align: 3,
            comment_font: "it".into(),
            id_font: "rm".into(),
            keyword_font: "bf".into(),
            string_font: "tt".into(),
        }
    }
}

/// The width of a character, in em.
const CHAR_EM: f64 = 1.0 / 1.8;

const BOX_SYMBOL: &str = "\\hbox to 1.25em{\\kern.2em\\lower.5ex\\hbox{\\vrule\\kern -.4pt\\vbox{\\hrule\\kern 2.3ex\\hbox to 0.45em{}\\hrule}\\kern -.4pt\\vrule}\\hfill}";
const PARALLEL_SYMBOL: &str = "\\hbox to 1.25em{/\\kern -.1em/\\hfill}";

/// One run of srtex: the output so far and the current line.
pub struct TexWriter<'o> {
    o: &'o TexOptions,
    pub out: Vec<u8>,
    /// the current box's text
    line: Vec<u8>,
    /// columns read on this line, and columns already set in earlier boxes
    read: i64,
    placed: i64,
    resource_ends: bool,
    proc_ends: bool,
}

impl<'o> TexWriter<'o> {
    pub fn new(o: &'o TexOptions) -> Self {
        TexWriter { o, out: Vec::new(), line: Vec::new(), read: 0, placed: 0, resource_ends: false, proc_ends: false }
    }

    pub fn prologue(&mut self) {
        let text = match (self.o.latex, self.o.wrapper) {
            (true, true) => "\\documentstyle{article}\n\\begin{document}\n\\raggedbottom\n\\begin{flushleft}\n",
            (true, false) => "\\begin{flushleft}\n",
            (false, true) => "\\raggedbottom\n",
            (false, false) => "",
        };
        self.out.extend_from_slice(text.as_bytes());
    }

    pub fn epilogue(&mut self) {
        let text = match (self.o.latex, self.o.wrapper) {
            (true, true) => "\\end{flushleft}\n\\end{document}\n",
            (true, false) => "\\end{flushleft}\n",
            (false, true) => "\\bye\n",
            (false, false) => "",
        };
        self.out.extend_from_slice(text.as_bytes());
    }

    /// Formats one file's text.
    pub fn file(&mut self, src: &[u8]) {
        self.line.clear();
        self.start_line();
        let dialect = Dialect { lang: Lang::Sr, hash_pieces: false, escape: false };
        scan(src, dialect, &mut |t| self.piece(t));
        self.end_line();
        self.out.extend_from_slice(b"\\filbreak\n\\eject\n");
    }

    fn start_line(&mut self) {
        self.read = 0;
        self.placed = 0;
        let open: &[u8] = if self.o.latex { b"$" } else { b"\\line{$" };
        self.out.extend_from_slice(open);
    }

    fn end_line(&mut self) {
        self.out.extend_from_slice(b"\\hbox{$");
        self.out.append(&mut self.line);
        self.out.extend_from_slice(b"$}$\\hfill");
        let close: &[u8] = if self.o.latex { b" \\\\ \n" } else { b"}\n" };
        self.out.extend_from_slice(close);
        if self.resource_ends {
            self.out.extend_from_slice(b"\\filbreak\n\\goodbreak\n");
            self.resource_ends = false;
        }
        if self.proc_ends {
            self.out.extend_from_slice(b"\\filbreak\n");
            self.proc_ends = false;
        }
    }

    /// Appends `s` escaped for TeX's math mode; it took `s.len()` columns.
    fn text(&mut self, s: &[u8]) {
        let s = up_to_nul(s);
        self.read += s.len() as i64;
        for &c in s {
            let esc: &[u8] = match c {
                b'\\' => b"{\\tt\\char92}",
                b' ' => b"\\ ",
                b'{' => b"\\lbrace ",
                b'}' => b"\\rbrace ",
                b'~' => b"\\sim ",
                b'"' => b"\\char34 ",
                b'^' => b"\\char94 ",
                b'$' | b'&' | b'#' | b'%' | b'_' => {
                    self.line.push(b'\\');
                    self.line.push(c);
                    continue;
                }
                _ => {
                    self.line.push(c);
                    continue;
                }
            };
            self.line.extend_from_slice(esc);
        }
    }

    /// `s` in `font` (`{\bf do}`), or in an `\hbox` for strings and comments.
    fn in_font(&mut self, font: &str, hbox: bool, s: &[u8]) {
        let open = if hbox { format!("\\hbox{{\\{} ", font) } else { format!("{{\\{} ", font) };
        self.line.extend_from_slice(open.as_bytes());
        self.text(s);
        self.line.push(b'}');
    }

    /// A symbol standing for `cols` columns of the source.
    fn symbol(&mut self, cols: i64, tex: &str) {
        self.read += cols;
        self.line.extend_from_slice(tex.as_bytes());
    }

    fn piece(&mut self, t: Tok) {
        let o = self.o;
        match t {
            Tok::Keyword(w) => self.in_font(&o.keyword_font, false, w),
            Tok::Name(w) => self.in_font(&o.id_font, false, w),
            Tok::Str(w) => self.in_font(&o.string_font, true, w),
            Tok::Comment(w) => self.in_font(&o.comment_font, true, w),
            Tok::Number(w) | Tok::Punct(w) | Tok::Bad(w) | Tok::Literal(w) => self.text(w),
            Tok::Arrow => self.symbol(2, "\\rightarrow "),
            Tok::Box => self.symbol(2, BOX_SYMBOL),
            Tok::Ge => self.symbol(2, "\\geq "),
            Tok::Le => self.symbol(2, "\\leq "),
            Tok::Ne(_) => self.symbol(2, "\\not= "),
            Tok::Colon => self.symbol(1, "\\,\\colon "),
            Tok::Parallel => self.symbol(2, PARALLEL_SYMBOL),
            Tok::Space(w) => self.space(w),
            Tok::Newlines(n) => {
                self.end_line();
                if n > 1 {
                    self.out.extend_from_slice(format!("\\vskip{}\\baselineskip\n", n - 1).as_bytes());
                }
                self.start_line();
            }
            Tok::CommentEnd => {
                self.end_line();
                self.start_line();
            }
            Tok::Page => self.out.extend_from_slice(b"\\eject"),
            Tok::BlockEnd(0) => self.resource_ends = true,
            Tok::BlockEnd(_) => self.proc_ends = true,
        }
    }

    /// White space: a tab or -a blanks close the current box at the column
    /// the space reaches; fewer blanks are set as blanks.
    fn space(&mut self, w: &[u8]) {
        let cols = column_after(self.read, w, self.o.tab);
        let tab = w.contains(&b'\t');
        if tab || cols - self.read >= self.o.align {
            let width = (cols - self.placed) as f64 * CHAR_EM;
            self.out.extend_from_slice(format!("\\hbox to {:.6}em{{$", width).as_bytes());
            self.out.append(&mut self.line);
            self.out.extend_from_slice(b"$\\hfill}");
            self.read = cols;
            self.placed = cols;
        } else {
            self.text(w);
        }
    }
}

/// The column after white space `w` that starts at column `col`, with tab
/// stops every `tab` columns.
pub fn column_after(col: i64, w: &[u8], tab: i64) -> i64 {
    w.iter().fold(col, |c, &b| if b == b'\t' { (c / tab + 1) * tab } else { c + 1 })
}

/// A NUL byte, which TeX cannot take, ends a piece's text (as in SR 2.3.3's
/// formatters, whose pieces were C strings).
pub fn up_to_nul(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())]
}
