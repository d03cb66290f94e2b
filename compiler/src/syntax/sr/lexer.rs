//! SR tokens: MPD's scanner (literals, comments, escapes and line joins are the same in
//! both languages) followed by SR's own words, operators and line-break rule.
//!
//! Differences from MPD's tokens:
//! - keywords: SR adds `af do od fa fi initial`; MPD-only words (`for`, `while`, `fork`,
//!   `double`...) are identifiers in SR.
//! - `:=` assigns and `=` compares; the augmented assignments are `+:=`, `-:=`, `*:=`,
//!   `/:=`, `%:=`, `**:=`, `|:=`, `&:=`, `||:=`, `<<:=`, `>>:=`.
//! - a line break is a separator when the token before it can end a statement and the
//!   token after it can begin one (the rule of SR 2.3.3, from Icon), and always after
//!   `end` or `end name`, so a component ends at its line.

use crate::syntax::ast::{FileId, Span};
use crate::syntax::diag::Diagnostics;
use crate::syntax::lexer;
use crate::syntax::token::{Punct, TokKind};

#[derive(Clone, Debug, PartialEq)]
pub enum T {
    Id(String),
    Int(i64),
    Real(f64),
    Char(u8),
    Str(Vec<u8>),
    /// A reserved word.
    Kw(&'static str),
    /// An operator or punctuation, spelled as in SR (`:=`, `+:=`, `[]`, `//`, `->`...).
    Op(&'static str),
    /// `;` or a line break that separates.
    Sep,
    /// The scanner reported this stretch already.
    Error,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Tok {
    pub t: T,
    pub span: Span,
    /// Written as a line break (not `;`), for messages.
    pub newline: bool,
}

pub const KEYWORDS: &[&str] = &[
    "P",
    "V",
    "af",
    "and",
    "any",
    "begin",
    "body",
    "bool",
    "by",
    "call",
    "cap",
    "char",
    "co",
    "const",
    "create",
    "destroy",
    "do",
    "downto",
    "else",
    "end",
    "enum",
    "exit",
    "extend",
    "external",
    "fa",
    "false",
    "fi",
    "file",
    "final",
    "forward",
    "global",
    "high",
    "if",
    "import",
    "in",
    "initial",
    "int",
    "low",
    "mod",
    "new",
    "next",
    "ni",
    "noop",
    "not",
    "null",
    "oc",
    "od",
    "on",
    "op",
    "optype",
    "or",
    "proc",
    "procedure",
    "process",
    "ptr",
    "real",
    "rec",
    "receive",
    "ref",
    "reply",
    "res",
    "resource",
    "return",
    "returns",
    "sem",
    "send",
    "separate",
    "skip",
    "st",
    "stderr",
    "stdin",
    "stdout",
    "stop",
    "string",
    "to",
    "true",
    "type",
    "union",
    "val",
    "var",
    "vm",
    "xor",
];

fn keyword(w: &str) -> Option<&'static str> {
    KEYWORDS.iter().copied().find(|k| *k == w)
}

/// Tokenize SR text. The result ends with a separator and `Eof`.
pub fn lex(file: FileId, src: &str, diags: &mut Diagnostics) -> Vec<Tok> {
    let raw = lexer::scan(file, src, diags);
    let mut toks: Vec<(T, Span, bool)> = Vec::with_capacity(raw.len());
    for tok in raw {
        let t = match tok.kind {
            TokKind::Ident(s) => match keyword(&s) {
                Some(k) => T::Kw(k),
                None => T::Id(s),
            },
            TokKind::Kw(k) => match keyword(k.as_str()) {
                Some(k) => T::Kw(k),
                None => T::Id(k.as_str().to_string()),
            },
            TokKind::Int(n) => T::Int(n),
            TokKind::Real(r) => T::Real(r),
            TokKind::Char(c) => T::Char(c),
            TokKind::Str(s) => T::Str(s),
            TokKind::Punct(p) => op(p),
            TokKind::Newline => continue,
            TokKind::Error => T::Error,
            TokKind::Eof => T::Eof,
        };
        // `:` `=` written together is `:=`; an operator before it makes `+:=` etc.
        if t == T::Op("=") {
            if let Some((T::Op(":"), sp, _)) = toks.last() {
                if sp.hi == tok.span.lo && !tok.nl_before {
                    let lo = sp.lo;
                    toks.pop();
                    let mut t2 = T::Op(":=");
                    let mut lo2 = lo;
                    if let Some((T::Op(o), sp0, _)) = toks.last() {
                        if sp0.hi == lo {
                            if let Some(aug) = augmented(o) {
                                t2 = T::Op(aug);
                                lo2 = sp0.lo;
                                toks.pop();
                            }
                        }
                    }
                    toks.push((t2, Span::new(file, lo2, tok.span.hi), false));
                    continue;
                }
            }
        }
        toks.push((t, tok.span, tok.nl_before));
    }
    separators(toks)
}

fn op(p: Punct) -> T {
    use Punct::*;
    T::Op(match p {
        LParen => "(",
        RParen => ")",
        LBracket => "[",
        RBracket => "]",
        LBrace => "{",
        RBrace => "}",
        Comma => ",",
        Semi => return T::Sep,
        Colon => ":",
        Dot => ".",
        Box => "[]",
        SlashSlash => "//",
        Arrow => "->",
        Plus => "+",
        Minus => "-",
        Star => "*",
        Slash => "/",
        Percent => "%",
        StarStar => "**",
        Concat => "||",
        Shl => "<<",
        Shr => ">>",
        Eq => "=",
        Ne | TildeEq => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        Amp => "&",
        Bar => "|",
        Tilde => "~",
        Caret => "^",
        At => "@",
        Question => "?",
        PlusPlus => "++",
        MinusMinus => "--",
        Swap => ":=:",
        // MPD's spellings that SR does not have: kept apart so the parser names them
        EqEq => "==",
        Bang => "!",
        PlusEq => "+=",
        MinusEq => "-=",
        StarEq => "*=",
        SlashEq => "/=",
        PercentEq => "%=",
        StarStarEq => "**=",
        BarEq => "|=",
        AmpEq => "&=",
        ConcatEq => "||=",
        ShlEq => "<<=",
        ShrEq => ">>=",
    })
}

fn augmented(o: &str) -> Option<&'static str> {
    Some(match o {
        "+" => "+:=",
        "-" => "-:=",
        "*" => "*:=",
        "/" => "/:=",
        "%" => "%:=",
        "**" => "**:=",
        "|" => "|:=",
        "&" => "&:=",
        "||" => "||:=",
        "<<" => "<<:=",
        ">>" => ">>:=",
        _ => return None,
    })
}

/// Can this token end a line (come before a separator)?
fn can_end(t: &T) -> bool {
    match t {
        T::Id(_) | T::Int(_) | T::Real(_) | T::Char(_) | T::Str(_) => true,
        T::Kw(k) => matches!(
            *k,
            "af" | "any"
                | "bool"
                | "char"
                | "end"
                | "exit"
                | "fi"
                | "false"
                | "file"
                | "int"
                | "next"
                | "ni"
                | "noop"
                | "null"
                | "oc"
                | "od"
                | "real"
                | "reply"
                | "return"
                | "sem"
                | "separate"
                | "skip"
                | "stop"
                | "true"
                | "vm"
                | "stdin"
                | "stdout"
                | "stderr"
        ),
        T::Op(o) => matches!(*o, ")" | "]" | "++" | "--" | "^" | "->" | "}"),
        _ => false,
    }
}

/// Can this token begin a line (follow a separator)?
fn can_begin(t: &T) -> bool {
    match t {
        T::Id(_) | T::Int(_) | T::Real(_) | T::Char(_) | T::Str(_) => true,
        T::Kw(k) => matches!(
            *k,
            "P" | "V"
                | "begin"
                | "body"
                | "bool"
                | "call"
                | "char"
                | "co"
                | "const"
                | "create"
                | "destroy"
                | "do"
                | "end"
                | "exit"
                | "extend"
                | "external"
                | "fa"
                | "false"
                | "file"
                | "final"
                | "forward"
                | "global"
                | "high"
                | "if"
                | "import"
                | "in"
                | "initial"
                | "int"
                | "low"
                | "new"
                | "next"
                | "noop"
                | "null"
                | "op"
                | "optype"
                | "proc"
                | "procedure"
                | "process"
                | "real"
                | "receive"
                | "ref"
                | "reply"
                | "res"
                | "resource"
                | "return"
                | "sem"
                | "send"
                | "skip"
                | "stop"
                | "string"
                | "type"
                | "val"
                | "var"
                | "true"
                | "stdin"
                | "stdout"
                | "stderr"
        ),
        T::Op(o) => matches!(*o, "(" | "~" | "@" | "?" | "++" | "--" | "+" | "-" | "[]"),
        T::Eof => true,
        _ => false,
    }
}

fn separators(toks: Vec<(T, Span, bool)>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len() + toks.len() / 3);
    for (t, span, nl) in toks {
        if let Some(prev) = out.last() {
            let n = out.len();
            let after_end = matches!(prev.t, T::Kw("end"))
                || (matches!(prev.t, T::Id(_)) && n >= 2 && matches!(out[n - 2].t, T::Kw("end")));
            let sep_before = prev.t == T::Sep;
            if !sep_before && ((nl && ((can_end(&prev.t) && can_begin(&t)) || after_end)) || t == T::Eof) {
                let at = Span::new(span.file, prev.span.hi, prev.span.hi);
                out.push(Tok { t: T::Sep, span: at, newline: true });
            }
        }
        out.push(Tok { t, span, newline: false });
    }
    out
}
