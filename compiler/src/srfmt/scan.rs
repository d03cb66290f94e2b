//! The formatters' scanner: splits SR text into the pieces srtex, srlatex and
//! srgrind typeset differently (keywords, identifiers, numbers, operators,
//! strings, comments, white space, line ends).  It is not the compiler's
//! lexer: it never fails, keeps every byte (white space included, so columns
//! can be kept), and follows SR 2.3.3's formatters where they differ from the
//! language: a token is the longest piece any rule accepts, the first rule
//! winning a tie, so `index` is a name but `in` a keyword, `/*` inside a
//! comment opens a nested one only where a piece starts, and a string ends
//! at the end of its line.

/// Keywords of the language variant the formatter was asked for (srlatex -l).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lang {
    Sr,
    Ftsr,
    Pl,
}

/// What differs between the formatters' scanners.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    pub lang: Lang,
    /// srlatex: `#` inside a comment is a piece of its own, and `#<` opens
    /// an escape (or, without -e, a line comment, even inside `/* */`).
    pub hash_pieces: bool,
    /// srlatex -e: text between `#<` and `>#` is passed through.
    pub escape: bool,
}

/// One piece of the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    Keyword(&'a [u8]),
    Name(&'a [u8]),
    Number(&'a [u8]),
    /// an operator or punctuation without a symbol of its own
    Punct(&'a [u8]),
    Arrow,
    Box,
    Ge,
    Le,
    /// `!=` or `~=`
    Ne(&'a [u8]),
    Colon,
    Parallel,
    Str(&'a [u8]),
    Comment(&'a [u8]),
    /// srlatex -e: escaped text, passed through
    Literal(&'a [u8]),
    /// blanks and tabs
    Space(&'a [u8]),
    /// a line end and the blank lines after it (the count of `\n`s)
    Newlines(usize),
    /// the line end of a `#` comment (blank lines after it come separately)
    CommentEnd,
    Page,
    /// a byte no rule accepts
    Bad(&'a [u8]),
    /// a block ends: 0 a resource (or global), 1 a proc (a page-break hint)
    BlockEnd(u8),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Normal,
    Single,
    Double,
    LineComment,
    BlockComment,
    Escape,
}

/// How a keyword changes the nesting the formatters use to find the end of
/// a resource or proc.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nest {
    Keep,
    Open,
    Close,
    Resource,
    Proc,
}

/// SR's reserved words: the lexer's list (srtex and the compiler agree on them,
/// as SR 2.3.3's scanners do).
const SR_KEYWORDS: &[&str] = crate::syntax::sr::lexer::KEYWORDS;
const PL_KEYWORDS: &[&str] = &[
    "await",
    "barrier",
    "chan",
    "cond",
    "empty",
    "minrank",
    "monitor",
    "region",
    "signal",
    "signal_all",
    "wait",
    "when",
];
const FTSR_KEYWORDS: &[&str] =
    &["backups", "monitor", "monitorend", "persistent", "primary", "private", "recovery", "restart"];

fn keyword(word: &[u8], lang: Lang) -> Option<Nest> {
    let w = std::str::from_utf8(word).ok()?;
    if SR_KEYWORDS.contains(&w) {
        return Some(match w {
            "begin" => Nest::Open,
            "end" | "separate" => Nest::Close,
            "resource" => Nest::Resource,
            "final" | "global" | "initial" | "proc" | "procedure" | "process" => Nest::Proc,
            _ => Nest::Keep,
        });
    }
    match lang {
        Lang::Pl if PL_KEYWORDS.contains(&w) => Some(match w {
            "monitor" => Nest::Resource,
            "region" => Nest::Open,
            _ => Nest::Keep,
        }),
        Lang::Ftsr if FTSR_KEYWORDS.contains(&w) => Some(Nest::Keep),
        _ => None,
    }
}

/// Operators, longest first so the first that fits is the longest.
const OPERATORS: &[&str] = &[
    ":=:", "++", "--", "**", "->", "[]", ":=", ">=", "<=", "!=", "~=", "//", "||", ">>", "<<", ",", ":", ";", "+", "-",
    "*", "/", "%", "(", ")", "[", "]", "=", ">", "<", "|", "&", ".", "~", "@", "^", "{", "}", "?",
];

fn operator(op: &[u8]) -> Tok<'_> {
    match op {
        b"->" => Tok::Arrow,
        b"[]" => Tok::Box,
        b">=" => Tok::Ge,
        b"<=" => Tok::Le,
        b"!=" | b"~=" => Tok::Ne(op),
        b":" => Tok::Colon,
        b"//" => Tok::Parallel,
        _ => Tok::Punct(op),
    }
}

/// The length of the run from `i` of bytes `ok` accepts.
fn run(s: &[u8], i: usize, ok: impl Fn(u8) -> bool) -> usize {
    s[i..].iter().take_while(|&&c| ok(c)).count()
}

/// A line end and the blank (or white) lines after it: (length, `\n` count).
fn newlines(s: &[u8], i: usize) -> (usize, usize) {
    let (mut end, mut count) = (i + 1, 1);
    loop {
        let k = end + run(s, end, |c| c == b' ' || c == b'\t');
        if s.get(k) == Some(&b'\n') {
            end = k + 1;
            count += 1;
        } else {
            return (end - i, count);
        }
    }
}

fn number_len(s: &[u8], i: usize) -> usize {
    let dec = run(s, i, |c| c.is_ascii_digit());
    let oct = run(s, i, |c| (b'0'..=b'7').contains(&c));
    let oct = if oct > 0 && matches!(s.get(i + oct), Some(b'q' | b'Q')) { oct + 1 } else { 0 };
    let hex = 1 + run(s, i + 1, |c| c.is_ascii_hexdigit());
    let hex = if matches!(s.get(i + hex), Some(b'x' | b'X')) { hex + 1 } else { 0 };
    dec.max(oct).max(hex)
}

/// The scanner's state between pieces.
struct Scanner<'a> {
    s: &'a [u8],
    d: Dialect,
    state: State,
    comment_depth: u32,
    escape_depth: u32,
    escape_return: State,
    nest: i32,
}

/// Calls `emit` with each piece of `src` in order.
pub fn scan(src: &[u8], d: Dialect, emit: &mut dyn FnMut(Tok)) {
    let mut sc = Scanner {
        s: src,
        d,
        state: State::Normal,
        comment_depth: 0,
        escape_depth: 0,
        escape_return: State::Normal,
        nest: 0,
    };
    let mut i = 0;
    while i < src.len() {
        let len = match sc.state {
            State::Normal => sc.normal(i, emit),
            State::Single => sc.string(i, b'\'', emit),
            State::Double => sc.string(i, b'"', emit),
            State::LineComment => sc.line_comment(i, emit),
            State::BlockComment => sc.block_comment(i, emit),
            State::Escape => sc.escape(i, emit),
        };
        i += len.max(1);
    }
}

impl<'a> Scanner<'a> {
    fn at(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    /// Pieces every state but Escape shares: line ends, white space; `None`
    /// for anything else.
    fn common(&self, i: usize, emit: &mut dyn FnMut(Tok)) -> Option<usize> {
        match self.s[i] {
            b'\n' => {
                let (len, count) = newlines(self.s, i);
                emit(Tok::Newlines(count));
                Some(len)
            }
            b' ' | b'\t' => {
                let len = run(self.s, i, |c| c == b' ' || c == b'\t');
                emit(Tok::Space(&self.s[i..i + len]));
                Some(len)
            }
            _ => None,
        }
    }

    /// `#<`: an escape with -e, else a line comment (srlatex only).
    fn hash_angle(&mut self, i: usize, emit: &mut dyn FnMut(Tok)) -> usize {
        if self.d.escape {
            self.escape_return = self.state;
            self.escape_depth = 1;
            self.state = State::Escape;
        } else {
            emit(Tok::Comment(&self.s[i..i + 2]));
            self.state = State::LineComment;
        }
        2
    }

    fn is_hash_angle(&self, i: usize) -> bool {
        self.d.hash_pieces && self.s[i] == b'#' && self.at(i + 1) == Some(b'<')
    }

    fn normal(&mut self, i: usize, emit: &mut dyn FnMut(Tok)) -> usize {
        let s = self.s;
        let c = s[i];
        if c.is_ascii_alphabetic() {
            let len = run(s, i, |c| c.is_ascii_alphanumeric() || c == b'_');
            let word = &s[i..i + len];
            match keyword(word, self.d.lang) {
                Some(nest) => {
                    self.nest_change(nest, emit);
                    emit(Tok::Keyword(word));
                }
                None => emit(Tok::Name(word)),
            }
            return len;
        }
        if c.is_ascii_digit() {
            let len = number_len(s, i);
            emit(Tok::Number(&s[i..i + len]));
            return len;
        }
        if c == b'/' && self.at(i + 1) == Some(b'*') {
            emit(Tok::Comment(&s[i..i + 2]));
            self.comment_depth = 1;
            self.state = State::BlockComment;
            return 2;
        }
        if let Some(op) = OPERATORS.iter().find(|op| s[i..].starts_with(op.as_bytes())) {
            emit(operator(&s[i..i + op.len()]));
            return op.len();
        }
        if self.is_hash_angle(i) {
            return self.hash_angle(i, emit);
        }
        match c {
            b'\'' | b'"' => {
                emit(Tok::Str(&s[i..i + 1]));
                self.state = if c == b'"' { State::Double } else { State::Single };
                1
            }
            b'#' => {
                emit(Tok::Comment(&s[i..i + 1]));
                self.state = State::LineComment;
                1
            }
            0x0c => {
                emit(Tok::Page);
                1
            }
            _ => self.common(i, emit).unwrap_or_else(|| {
                emit(Tok::Bad(&s[i..i + 1]));
                1
            }),
        }
    }

    fn nest_change(&mut self, nest: Nest, emit: &mut dyn FnMut(Tok)) {
        match nest {
            Nest::Keep => {}
            Nest::Open => self.nest += 1,
            Nest::Close => {
                self.nest -= 1;
                if self.nest == 0 || self.nest == 1 {
                    emit(Tok::BlockEnd(self.nest as u8));
                }
            }
            Nest::Resource => self.nest = 1,
            Nest::Proc => self.nest = 2,
        }
    }

    /// Inside a string quoted by `q`: it ends at `q` or the end of the line.
    fn string(&mut self, i: usize, q: u8, emit: &mut dyn FnMut(Tok)) -> usize {
        let s = self.s;
        match s[i] {
            b'\\' if self.at(i + 1).is_some_and(|c| c != b'\n') => {
                emit(Tok::Str(&s[i..i + 2]));
                2
            }
            b'\\' => {
                emit(Tok::Bad(&s[i..i + 1]));
                1
            }
            c if c == q => {
                emit(Tok::Str(&s[i..i + 1]));
                self.state = State::Normal;
                1
            }
            _ => self.common(i, emit).unwrap_or_else(|| {
                let len = run(s, i, |c| !matches!(c, b'\\' | b' ' | b'\t' | b'\n') && c != q);
                emit(Tok::Str(&s[i..i + len]));
                len
            }),
        }
    }

    fn line_comment(&mut self, i: usize, emit: &mut dyn FnMut(Tok)) -> usize {
        let s = self.s;
        match s[i] {
            b'\n' => {
                emit(Tok::CommentEnd);
                self.state = State::Normal;
                1
            }
            b' ' | b'\t' => self.common(i, emit).unwrap_or(1),
            b'#' if self.is_hash_angle(i) => self.hash_angle(i, emit),
            b'#' if self.d.hash_pieces => {
                emit(Tok::Comment(&s[i..i + 1]));
                1
            }
            _ => {
                let hash = self.d.hash_pieces;
                let len = run(s, i, |c| !(matches!(c, b' ' | b'\t' | b'\n') || hash && c == b'#'));
                emit(Tok::Comment(&s[i..i + len]));
                len
            }
        }
    }

    fn block_comment(&mut self, i: usize, emit: &mut dyn FnMut(Tok)) -> usize {
        let s = self.s;
        match s[i] {
            b'\\' if self.at(i + 1).is_some_and(|c| c != b'\n') => {
                emit(Tok::Comment(&s[i..i + 2]));
                2
            }
            b'\\' => {
                emit(Tok::Bad(&s[i..i + 1]));
                1
            }
            b'*' if self.at(i + 1) == Some(b'/') => {
                emit(Tok::Comment(&s[i..i + 2]));
                self.comment_depth -= 1;
                if self.comment_depth == 0 {
                    self.state = State::Normal;
                }
                2
            }
            b'*' => {
                emit(Tok::Comment(&s[i..i + 1]));
                1
            }
            b'/' if self.at(i + 1) == Some(b'*') => {
                emit(Tok::Comment(&s[i..i + 2]));
                self.comment_depth += 1;
                2
            }
            b'#' if self.is_hash_angle(i) => self.hash_angle(i, emit),
            b'#' if self.d.hash_pieces => {
                emit(Tok::Comment(&s[i..i + 1]));
                1
            }
            _ => self.common(i, emit).unwrap_or_else(|| {
                let hash = self.d.hash_pieces;
                let len = run(s, i, |c| !(matches!(c, b'\\' | b' ' | b'\t' | b'\n' | b'*') || hash && c == b'#'));
                emit(Tok::Comment(&s[i..i + len]));
                len
            }),
        }
    }

    /// srlatex -e: up to the matching `>#` (escapes nest).
    fn escape(&mut self, i: usize, emit: &mut dyn FnMut(Tok)) -> usize {
        let s = self.s;
        if s[i] == b'>' {
            if self.at(i + 1) == Some(b'#') {
                self.escape_depth -= 1;
                if self.escape_depth == 0 {
                    self.state = self.escape_return;
                } else {
                    emit(Tok::Literal(&s[i..i + 2]));
                }
                return 2;
            }
            emit(Tok::Literal(&s[i..i + 1]));
            return 1;
        }
        let len = run(s, i, |c| c != b'>');
        if len == 2 && s[i..].starts_with(b"#<") {
            self.escape_depth += 1;
        }
        emit(Tok::Literal(&s[i..i + len]));
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(src: &str, d: Dialect) -> Vec<String> {
        let mut v = Vec::new();
        scan(src.as_bytes(), d, &mut |t| v.push(format!("{:?}", t).replace("[", "").replace("]", "")));
        v
    }

    fn text(t: &Tok) -> String {
        format!("{:?}", t)
    }

    const SR: Dialect = Dialect { lang: Lang::Sr, hash_pieces: false, escape: false };
    const LATEX: Dialect = Dialect { lang: Lang::Sr, hash_pieces: true, escape: true };

    #[test]
    fn longest_piece_wins_and_keywords_tie_first() {
        let mut kinds = Vec::new();
        scan(b"in index 0ffx 17q 12ab :=: ~=", SR, &mut |t| kinds.push(text(&t)));
        let want = [
            "Keyword([105, 110])",
            "Name([105, 110, 100, 101, 120])",
            "Number([48, 102, 102, 120])",
            "Number([49, 55, 113])",
            "Number([49, 50])",
            "Name([97, 98])",
            "Punct([58, 61, 58])",
            "Ne([126, 61])",
        ];
        let got: Vec<&String> = kinds.iter().filter(|k| !k.starts_with("Space")).collect();
        assert_eq!(got, want.iter().collect::<Vec<_>>());
    }

    #[test]
    fn comments_nest_only_where_a_piece_starts() {
        // "a/*" is one piece, so only the first */ closes: `x` is code again
        let v = pieces("/* a/* */ x", SR);
        assert!(v.last().unwrap().starts_with("Name"), "{:?}", v);
        // "/*" at a piece's start nests: `x` is still comment
        let v = pieces("/* /* */ x", SR);
        assert!(v.last().unwrap().starts_with("Comment"), "{:?}", v);
    }

    #[test]
    fn strings_end_at_the_line_end_only_by_their_quote() {
        let v = pieces("'ab\ncd' x", SR);
        assert_eq!(v.iter().filter(|p| p.starts_with("Str")).count(), 4, "{:?}", v);
        assert!(v.last().unwrap().starts_with("Name"));
    }

    #[test]
    fn block_ends_mark_resources_and_procs() {
        let mut ends = Vec::new();
        scan(b"resource r proc p end end", SR, &mut |t| {
            if let Tok::BlockEnd(l) = t {
                ends.push(l)
            }
        });
        assert_eq!(ends, [1, 0]);
    }

    #[test]
    fn escapes_nest_and_return_to_their_state() {
        let v = pieces("# c #< a #< b >#> ># d", LATEX);
        assert!(v.iter().any(|p| p.starts_with("Literal")), "{:?}", v);
        assert!(v.last().unwrap().starts_with("Comment"), "{:?}", v);
        let plain = Dialect { escape: false, ..LATEX };
        assert!(pieces("x #< y", plain).iter().all(|p| !p.starts_with("Literal")));
    }
}
