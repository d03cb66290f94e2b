//! Lexer: MPD source text → tokens, including the rule that turns line breaks into separators.
//!
//! Lexical rules (synopsis, tutorial, and the verification suite):
//! - comments: `# ...` to end of line; `/* ... */` nesting. `*/` outside a comment is an error.
//! - outside literals, a backslash followed by blanks and a line break joins the lines.
//! - integers: decimal `123`, octal `17q`/`17Q`, hexadecimal `0FFx`/`0FFX` (starts with a
//!   digit); reals: `1.5`, `1.`, `.5`, `1e9`, `1.5E-3`.
//! - `'c'` character and `"..."` string literals with MPD 1.0.1's escapes: `\n \t \r \b
//!   \f \v \a`, `\e` (ESC, 27), `\ooo` (one to three octal digits, kept modulo 256),
//!   `\xhh` (zero to two hex digits; `\x` alone is NUL), backslash-newline (a newline
//!   character); any other `\c` is `c`. A string may not contain a raw line break.
//!
//! Line breaks: a break ends a statement (becomes a [`TokKind::Newline`]) when
//! 1. the token before it can end a statement (a name, literal, `)`, `]`, `}`, `^`, `++`,
//!    `--`, or a keyword such as `skip`, `end`, `ni`, `int`), and
//! 2. we are not directly inside parentheses, and
//! 3. the token after it cannot only continue an expression — binary operators, `=` and
//!    the other assignment operators, `,` `)` `]` `{` `.` `:` `->`, `else`, `to`, `downto`,
//!    `by`, `st`, `returns`, `on`, `separate`, `and`, `or`, `xor`, `mod` keep the line going
//!    (but not `+`/`-`, which may start a statement: `-x`, like `++x`).
//!
//! A line that starts with a statement keyword (`if`, `end`, `proc`, ...) also closes any
//! parentheses left open, so one missing `)` does not swallow the rest of the file.
//!
//! So `x = a +` ⏎ `b`, `write(a,` ⏎ `b)`, `x` ⏎ `| y`, `}` ⏎ `else {` all continue, while
//! `for [ i` ⏎ `end` reports "unexpected newline".

use super::ast::{FileId, Span};
use super::diag::Diagnostics;
use super::token::{Kw, Punct, TokKind, Token, PUNCTS};

/// The raw tokens of `src`, line breaks only noted in `nl_before` (no separators): the
/// SR front end shares the literals, comments and escapes, and applies its own rules.
pub fn scan(file: FileId, src: &str, diags: &mut Diagnostics) -> Vec<Token> {
    Scanner { file, src: src.as_bytes(), pos: 0, diags, nl: false }.run()
}

/// Tokenize `src`; lexical errors go to `diags`. The result always ends with `Eof`.
pub fn lex(file: FileId, src: &str, diags: &mut Diagnostics) -> Vec<Token> {
    let raw = Scanner { file, src: src.as_bytes(), pos: 0, diags, nl: false }.run();
    insert_separators(raw)
}

struct Scanner<'a, 'd> {
    file: FileId,
    src: &'a [u8],
    pos: usize,
    diags: &'d mut Diagnostics,
    /// A line break was seen since the last token.
    nl: bool,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}
fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl<'a, 'd> Scanner<'a, 'd> {
    fn peek(&self, k: usize) -> u8 {
        *self.src.get(self.pos + k).unwrap_or(&0)
    }
    fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }
    fn span(&self, lo: usize) -> Span {
        Span::new(self.file, lo as u32, self.pos as u32)
    }
    fn error(&mut self, lo: usize, hi: usize, msg: impl Into<String>) {
        self.diags.error(Span::new(self.file, lo as u32, hi as u32), msg);
    }

    fn run(mut self) -> Vec<Token> {
        let mut out = Vec::new();
        loop {
            self.skip_space();
            let lo = self.pos;
            if self.at_end() {
                out.push(Token { kind: TokKind::Eof, span: self.span(lo), nl_before: true });
                return out;
            }
            let kind = self.token();
            let nl_before = std::mem::replace(&mut self.nl, false);
            out.push(Token { kind, span: self.span(lo), nl_before });
        }
    }

    /// Skip blanks, comments and backslash-newline joins; note real line breaks.
    fn skip_space(&mut self) {
        while !self.at_end() {
            let c = self.peek(0);
            match c {
                b'\n' => {
                    self.nl = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'\\' if self.continuation_len() > 0 => self.pos += self.continuation_len(),
                b'#' => {
                    while !self.at_end() && self.peek(0) != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'*' if self.peek(1) == b'/' => {
                    self.error(self.pos, self.pos + 2, "comment terminator outside comment");
                    self.pos += 2;
                }
                _ => return,
            }
        }
    }

    /// Length of a line continuation at the current backslash: `\`, blanks, line break
    /// (0 if there is none).
    fn continuation_len(&self) -> usize {
        let mut k = 1;
        while matches!(self.peek(k), b' ' | b'\t' | b'\r') {
            k += 1;
        }
        if self.peek(k) == b'\n' {
            k + 1
        } else {
            0
        }
    }

    /// `/* ... */`, nesting. A line break inside still separates statements.
    fn block_comment(&mut self) {
        let lo = self.pos;
        self.pos += 2;
        let mut depth = 1usize;
        while !self.at_end() {
            if self.peek(0) == b'/' && self.peek(1) == b'*' {
                depth += 1;
                self.pos += 2;
            } else if self.peek(0) == b'*' && self.peek(1) == b'/' {
                depth -= 1;
                self.pos += 2;
                if depth == 0 {
                    return;
                }
            } else {
                if self.peek(0) == b'\n' {
                    self.nl = true;
                }
                self.pos += 1;
            }
        }
        self.error(lo, lo + 2, "unterminated comment at EOF");
    }

    fn token(&mut self) -> TokKind {
        let c = self.peek(0);
        if is_ident_start(c) {
            let lo = self.pos;
            while is_ident_char(self.peek(0)) {
                self.pos += 1;
            }
            let word = std::str::from_utf8(&self.src[lo..self.pos]).unwrap_or("");
            return match Kw::lookup(word) {
                Some(k) => TokKind::Kw(k),
                None => TokKind::Ident(word.to_string()),
            };
        }
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_ascii_digit()) {
            return self.number();
        }
        if c == b'\'' {
            return self.char_lit();
        }
        if c == b'"' {
            return self.string_lit();
        }
        let rest = &self.src[self.pos..];
        for (text, p) in PUNCTS {
            if rest.starts_with(text.as_bytes()) {
                self.pos += text.len();
                return TokKind::Punct(*p);
            }
        }
        // Unknown byte (or a whole UTF-8 character): report it, and swallow a run of
        // further illegal characters with it so garbage gives one message, not hundreds.
        let lo = self.pos;
        let len = utf8_len(c).min(self.src.len() - self.pos).max(1);
        self.pos += len;
        let shown = String::from_utf8_lossy(&self.src[lo..self.pos]).into_owned();
        while !self.at_end() && self.is_illegal_here() {
            self.pos += utf8_len(self.peek(0)).min(self.src.len() - self.pos).max(1);
        }
        self.error(lo, self.pos, format!("illegal character '{}'", shown));
        TokKind::Error
    }

    /// Does the text at the current position start no token, blank or comment?
    fn is_illegal_here(&self) -> bool {
        let c = self.peek(0);
        if c.is_ascii_alphanumeric()
            || c == b'_'
            || c == b'\''
            || c == b'"'
            || c == b'#'
            || c.is_ascii_whitespace()
            || c == b'\\'
        {
            return false;
        }
        let rest = &self.src[self.pos..];
        !PUNCTS.iter().any(|(text, _)| rest.starts_with(text.as_bytes()))
    }

    /// Numbers; see the module comment for the forms.
    fn number(&mut self) -> TokKind {
        let lo = self.pos;
        // The maximal run of letters/digits decides hex/octal before we look at reals.
        let mut end = self.pos;
        while is_ident_char(*self.src.get(end).unwrap_or(&0)) {
            end += 1;
        }
        let word = &self.src[lo..end];
        if word.len() >= 2 && word[0].is_ascii_digit() {
            let (body, last) = (&word[..word.len() - 1], word[word.len() - 1]);
            if (last == b'x' || last == b'X') && body.iter().all(|c| c.is_ascii_hexdigit()) {
                self.pos = end;
                return self.int_value(lo, body, 16);
            }
            if (last == b'q' || last == b'Q') && body.iter().all(|c| c.is_ascii_digit()) {
                self.pos = end;
                if body.iter().any(|&c| c > b'7') {
                    self.error(lo, end, "digit out of range in octal literal");
                    return TokKind::Error;
                }
                return self.int_value(lo, body, 8);
            }
        }
        // Decimal integer or real.
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let mut is_real = false;
        if self.peek(0) == b'.' && self.peek(1) != b'.' && !is_ident_start(self.peek(1)) {
            is_real = true;
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        } else if self.peek(0) == b'.'
            && (self.peek(1) == b'e' || self.peek(1) == b'E')
            && self.exponent_at(self.pos + 1)
        {
            // `8.e-10`
            is_real = true;
            self.pos += 1;
        }
        if (self.peek(0) == b'e' || self.peek(0) == b'E') && self.exponent_at(self.pos) {
            is_real = true;
            self.pos += 1;
            if self.peek(0) == b'+' || self.peek(0) == b'-' {
                self.pos += 1;
            }
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        if is_ident_char(self.peek(0)) {
            while is_ident_char(self.peek(0)) {
                self.pos += 1;
            }
            let text = String::from_utf8_lossy(&self.src[lo..self.pos]).into_owned();
            self.error(lo, self.pos, format!("malformed number '{}'", text));
            return TokKind::Error;
        }
        let text = std::str::from_utf8(&self.src[lo..self.pos]).unwrap_or("0");
        if is_real {
            match text.parse::<f64>() {
                Ok(v) => TokKind::Real(v),
                Err(_) => {
                    self.error(lo, self.pos, format!("malformed real literal '{}'", text));
                    TokKind::Error
                }
            }
        } else {
            let digits = self.src[lo..self.pos].to_vec();
            self.int_value(lo, &digits, 10)
        }
    }

    /// Is there an exponent `e[+-]digit` starting at byte `at`?
    fn exponent_at(&self, at: usize) -> bool {
        let g = |k: usize| *self.src.get(at + k).unwrap_or(&0);
        match g(1) {
            b'+' | b'-' => g(2).is_ascii_digit(),
            d => d.is_ascii_digit(),
        }
    }

    fn int_value(&mut self, lo: usize, digits: &[u8], radix: u32) -> TokKind {
        let mut v: u64 = 0;
        for &d in digits {
            let dv = (d as char).to_digit(radix).unwrap_or(0) as u64;
            match v.checked_mul(radix as u64).and_then(|x| x.checked_add(dv)) {
                Some(n) if n <= i64::MAX as u64 => v = n,
                _ => {
                    self.error(lo, self.pos, "integer literal is too large");
                    return TokKind::Error;
                }
            }
        }
        TokKind::Int(v as i64)
    }

    /// One escape after a backslash (the backslash already consumed); returns the byte.
    fn escape(&mut self) -> u8 {
        let c = self.peek(0);
        self.pos += 1;
        match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'a' => 7,
            b'e' => 27,
            // A backslash-newline inside a literal is a newline character (MPD 1.0.1).
            b'\n' => b'\n',
            b'\r' if self.peek(0) == b'\n' => {
                self.pos += 1;
                b'\n'
            }
            // `\x` takes at most two hex digits; with none it is NUL and the next
            // character is left alone (MPD 1.0.1's rule).
            b'x' => {
                let mut v: u32 = 0;
                for _ in 0..2 {
                    match (self.peek(0) as char).to_digit(16) {
                        Some(d) if !self.at_end() => {
                            v = v * 16 + d;
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            b'0'..=b'7' => {
                let mut v: u32 = (c - b'0') as u32;
                for _ in 0..2 {
                    let d = self.peek(0);
                    if (b'0'..=b'7').contains(&d) {
                        v = v * 8 + (d - b'0') as u32;
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                (v & 0xff) as u8
            }
            // Anything else stands for itself: \\ \' \" \8 ...
            other => other,
        }
    }

    /// `'c'`.
    fn char_lit(&mut self) -> TokKind {
        let lo = self.pos;
        self.pos += 1;
        match self.peek(0) {
            b'\'' => {
                self.pos += 1;
                self.error(lo, self.pos, "empty character literal");
                return TokKind::Error;
            }
            b'\n' => {
                self.error(lo, self.pos + 1, "newline in character literal");
                self.skip_to_quote(b'\'');
                return TokKind::Error;
            }
            0 if self.at_end() => {
                self.error(lo, self.pos, "unterminated character literal");
                return TokKind::Error;
            }
            _ => {}
        }
        let value = if self.peek(0) == b'\\' && !self.at_end() && self.pos + 1 < self.src.len() {
            self.pos += 1;
            self.escape()
        } else {
            let c = self.peek(0);
            self.pos += 1;
            c
        };
        if self.peek(0) == b'\'' {
            self.pos += 1;
            return TokKind::Char(value);
        }
        if self.skip_to_quote(b'\'') {
            self.error(lo, self.pos, "character literal contains multiple characters");
        } else {
            self.error(lo, self.pos, "unterminated character literal");
        }
        TokKind::Error
    }

    /// Skip to just past the next `quote` (true) or to the end of input (false).
    fn skip_to_quote(&mut self, quote: u8) -> bool {
        while !self.at_end() {
            let c = self.peek(0);
            self.pos += 1;
            if c == b'\\' && !self.at_end() {
                self.pos += 1;
            } else if c == quote {
                return true;
            }
        }
        false
    }

    /// `"..."`.
    fn string_lit(&mut self) -> TokKind {
        let lo = self.pos;
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            if self.at_end() || self.peek(0) == b'\n' {
                self.error(lo, self.pos, "unterminated string");
                return TokKind::Error;
            }
            let c = self.peek(0);
            self.pos += 1;
            match c {
                b'"' => return TokKind::Str(bytes),
                b'\\' if !self.at_end() => {
                    let e = self.escape();
                    bytes.push(e);
                }
                _ => bytes.push(c),
            }
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// Can a statement end with this token? (rule 1 of the module comment)
fn can_end(k: &TokKind) -> bool {
    match k {
        TokKind::Ident(_) | TokKind::Int(_) | TokKind::Real(_) | TokKind::Char(_) | TokKind::Str(_) => true,
        TokKind::Error => true,
        TokKind::Punct(p) => matches!(
            p,
            Punct::RParen | Punct::RBracket | Punct::RBrace | Punct::Caret | Punct::PlusPlus | Punct::MinusMinus
        ),
        TokKind::Kw(k) => matches!(
            k,
            Kw::Skip
                | Kw::Exit
                | Kw::Next
                | Kw::Return
                | Kw::Reply
                | Kw::Stop
                | Kw::End
                | Kw::Ni
                | Kw::Oc
                | Kw::True
                | Kw::False
                | Kw::Null
                | Kw::Noop
                | Kw::Stdin
                | Kw::Stdout
                | Kw::Stderr
                | Kw::Int
                | Kw::Bool
                | Kw::Char
                | Kw::Real
                | Kw::Double
                | Kw::File
                | Kw::String
                | Kw::Any
                | Kw::Vm
                | Kw::Sem
                | Kw::Separate
        ),
        TokKind::Newline | TokKind::Eof => false,
    }
}

/// Does this token only continue the line before it? (rule 3)
fn continues(k: &TokKind) -> bool {
    match k {
        TokKind::Punct(p) => matches!(
            p,
            Punct::Comma
                | Punct::RParen
                | Punct::RBracket
                | Punct::LBrace
                | Punct::Dot
                | Punct::Colon
                | Punct::Arrow
                | Punct::Star
                | Punct::Slash
                | Punct::Percent
                | Punct::StarStar
                | Punct::Concat
                | Punct::Shl
                | Punct::Shr
                | Punct::Eq
                | Punct::EqEq
                | Punct::Ne
                | Punct::TildeEq
                | Punct::Lt
                | Punct::Le
                | Punct::Gt
                | Punct::Ge
                | Punct::Amp
                | Punct::Bar
                | Punct::Swap
                | Punct::PlusEq
                | Punct::MinusEq
                | Punct::StarEq
                | Punct::SlashEq
                | Punct::PercentEq
                | Punct::StarStarEq
                | Punct::BarEq
                | Punct::AmpEq
                | Punct::ConcatEq
                | Punct::ShlEq
                | Punct::ShrEq
                | Punct::Caret
        ),
        TokKind::Kw(k) => matches!(
            k,
            Kw::Else
                | Kw::To
                | Kw::Downto
                | Kw::By
                | Kw::St
                | Kw::Returns
                | Kw::On
                | Kw::Separate
                | Kw::And
                | Kw::Or
                | Kw::Xor
                | Kw::Mod
        ),
        _ => false,
    }
}

/// Keywords that can only begin a statement, declaration or component (or end a list),
/// never appear inside parentheses.
fn starts_statement_only(k: &TokKind) -> bool {
    matches!(
        k,
        TokKind::Kw(
            Kw::If
                | Kw::While
                | Kw::For
                | Kw::In
                | Kw::Co
                | Kw::End
                | Kw::Ni
                | Kw::Oc
                | Kw::Resource
                | Kw::Global
                | Kw::Body
                | Kw::Proc
                | Kw::Procedure
                | Kw::Process
                | Kw::Begin
                | Kw::Skip
                | Kw::Exit
                | Kw::Next
                | Kw::Stop
                | Kw::Return
                | Kw::Reply
                | Kw::Send
                | Kw::Receive
                | Kw::Forward
                | Kw::Destroy
                | Kw::Fork
                | Kw::Import
                | Kw::Extend
                | Kw::Final
                | Kw::Type
                | Kw::Const
                | Kw::Optype
                | Kw::External
        )
    )
}

/// Apply the line-break rule: insert `Newline` tokens where a break ends a statement.
fn insert_separators(raw: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(raw.len() + raw.len() / 4);
    // Innermost open bracket kinds; breaks directly inside `(` never separate.
    let mut open: Vec<Punct> = Vec::new();
    for tok in raw {
        if tok.nl_before && starts_statement_only(&tok.kind) {
            // An unclosed `(` must not swallow the rest of the file: a line that starts
            // with a statement keyword is never inside parentheses.
            while open.last() == Some(&Punct::LParen) {
                open.pop();
            }
        }
        if tok.nl_before {
            if let Some(prev) = out.last() {
                let in_parens = open.last() == Some(&Punct::LParen);
                if can_end(&prev.kind) && !in_parens && !continues(&tok.kind) {
                    let at = Span::new(prev.span.file, prev.span.hi, prev.span.hi);
                    out.push(Token { kind: TokKind::Newline, span: at, nl_before: false });
                }
            }
        }
        if let TokKind::Punct(p) = tok.kind {
            match p {
                Punct::LParen | Punct::LBracket | Punct::LBrace => open.push(p),
                Punct::RParen => pop_to(&mut open, Punct::LParen),
                Punct::RBracket => pop_to(&mut open, Punct::LBracket),
                Punct::RBrace => pop_to(&mut open, Punct::LBrace),
                _ => {}
            }
        }
        out.push(tok);
    }
    out
}

/// Close the innermost `want` bracket (and anything unclosed inside it); an unmatched
/// closer leaves the stack alone (the parser reports it).
fn pop_to(open: &mut Vec<Punct>, want: Punct) {
    if let Some(i) = open.iter().rposition(|&p| p == want) {
        open.truncate(i);
    }
}
