//! Tokens of MPD: kinds, keywords, punctuation, and how each is named in messages.

use super::ast::Span;

/// Reserved words (the synopsis' keyword list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    And,
    Any,
    Begin,
    Body,
    Bool,
    By,
    Call,
    Cap,
    Char,
    Co,
    Const,
    Create,
    Destroy,
    Double,
    Downto,
    Else,
    End,
    Enum,
    Exit,
    Extend,
    External,
    False,
    File,
    Final,
    For,
    Fork,
    Forward,
    Global,
    High,
    If,
    Import,
    In,
    Int,
    Low,
    Mod,
    New,
    Next,
    Ni,
    Noop,
    Not,
    Null,
    Oc,
    On,
    Op,
    Optype,
    Or,
    P,
    Proc,
    Procedure,
    Process,
    Ptr,
    Real,
    Rec,
    Receive,
    Ref,
    Reply,
    Res,
    Resource,
    Return,
    Returns,
    Sem,
    Send,
    Separate,
    Skip,
    St,
    Stderr,
    Stdin,
    Stdout,
    Stop,
    String,
    To,
    True,
    Type,
    Union,
    V,
    Val,
    Var,
    Vm,
    While,
    Xor,
}

const KEYWORDS: &[(&str, Kw)] = &[
    ("and", Kw::And),
    ("any", Kw::Any),
    ("begin", Kw::Begin),
    ("body", Kw::Body),
    ("bool", Kw::Bool),
    ("by", Kw::By),
    ("call", Kw::Call),
    ("cap", Kw::Cap),
    ("char", Kw::Char),
    ("co", Kw::Co),
    ("const", Kw::Const),
    ("create", Kw::Create),
    ("destroy", Kw::Destroy),
    ("double", Kw::Double),
    ("downto", Kw::Downto),
    ("else", Kw::Else),
    ("end", Kw::End),
    ("enum", Kw::Enum),
    ("exit", Kw::Exit),
    ("extend", Kw::Extend),
    ("external", Kw::External),
    ("false", Kw::False),
    ("file", Kw::File),
    ("final", Kw::Final),
    ("for", Kw::For),
    ("fork", Kw::Fork),
    ("forward", Kw::Forward),
    ("global", Kw::Global),
    ("high", Kw::High),
    ("if", Kw::If),
    ("import", Kw::Import),
    ("in", Kw::In),
    ("int", Kw::Int),
    ("low", Kw::Low),
    ("mod", Kw::Mod),
    ("new", Kw::New),
    ("next", Kw::Next),
    ("ni", Kw::Ni),
    ("noop", Kw::Noop),
    ("not", Kw::Not),
    ("null", Kw::Null),
    ("oc", Kw::Oc),
    ("on", Kw::On),
    ("op", Kw::Op),
    ("optype", Kw::Optype),
    ("or", Kw::Or),
    ("P", Kw::P),
    ("proc", Kw::Proc),
    ("procedure", Kw::Procedure),
    ("process", Kw::Process),
    ("ptr", Kw::Ptr),
    ("real", Kw::Real),
    ("rec", Kw::Rec),
    ("receive", Kw::Receive),
    ("ref", Kw::Ref),
    ("reply", Kw::Reply),
    ("res", Kw::Res),
    ("resource", Kw::Resource),
    ("return", Kw::Return),
    ("returns", Kw::Returns),
    ("sem", Kw::Sem),
    ("send", Kw::Send),
    ("separate", Kw::Separate),
    ("skip", Kw::Skip),
    ("st", Kw::St),
    ("stderr", Kw::Stderr),
    ("stdin", Kw::Stdin),
    ("stdout", Kw::Stdout),
    ("stop", Kw::Stop),
    ("string", Kw::String),
    ("to", Kw::To),
    ("true", Kw::True),
    ("type", Kw::Type),
    ("union", Kw::Union),
    ("V", Kw::V),
    ("val", Kw::Val),
    ("var", Kw::Var),
    ("vm", Kw::Vm),
    ("while", Kw::While),
    ("xor", Kw::Xor),
];

impl Kw {
    pub fn lookup(word: &str) -> Option<Kw> {
        KEYWORDS.iter().find(|(s, _)| *s == word).map(|&(_, k)| k)
    }
    pub fn as_str(self) -> &'static str {
        KEYWORDS.iter().find(|(_, k)| *k == self).map(|(s, _)| *s).unwrap_or("?")
    }
}

/// Punctuation and operator symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Colon,
    Dot,
    /// `[]` (guard separator in `in`).
    Box,
    /// `//` (arm separator in `co`).
    SlashSlash,
    /// `->`.
    Arrow,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    StarStar,
    Concat,
    Shl,
    Shr,
    Eq,
    EqEq,
    Ne,
    TildeEq,
    Lt,
    Le,
    Gt,
    Ge,
    Amp,
    Bar,
    Tilde,
    Bang,
    Caret,
    At,
    Question,
    PlusPlus,
    MinusMinus,
    Swap,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    StarStarEq,
    BarEq,
    AmpEq,
    ConcatEq,
    ShlEq,
    ShrEq,
}

/// Longest first, so the lexer can take the first match.
pub const PUNCTS: &[(&str, Punct)] = &[
    (":=:", Punct::Swap),
    ("**=", Punct::StarStarEq),
    ("||=", Punct::ConcatEq),
    ("<<=", Punct::ShlEq),
    (">>=", Punct::ShrEq),
    ("**", Punct::StarStar),
    ("||", Punct::Concat),
    ("<<", Punct::Shl),
    (">>", Punct::Shr),
    ("<=", Punct::Le),
    (">=", Punct::Ge),
    ("==", Punct::EqEq),
    ("!=", Punct::Ne),
    ("~=", Punct::TildeEq),
    ("+=", Punct::PlusEq),
    ("-=", Punct::MinusEq),
    ("*=", Punct::StarEq),
    ("/=", Punct::SlashEq),
    ("%=", Punct::PercentEq),
    ("|=", Punct::BarEq),
    ("&=", Punct::AmpEq),
    ("++", Punct::PlusPlus),
    ("--", Punct::MinusMinus),
    ("->", Punct::Arrow),
    ("[]", Punct::Box),
    ("//", Punct::SlashSlash),
    ("(", Punct::LParen),
    (")", Punct::RParen),
    ("[", Punct::LBracket),
    ("]", Punct::RBracket),
    ("{", Punct::LBrace),
    ("}", Punct::RBrace),
    (",", Punct::Comma),
    (";", Punct::Semi),
    (":", Punct::Colon),
    (".", Punct::Dot),
    ("+", Punct::Plus),
    ("-", Punct::Minus),
    ("*", Punct::Star),
    ("/", Punct::Slash),
    ("%", Punct::Percent),
    ("=", Punct::Eq),
    ("<", Punct::Lt),
    (">", Punct::Gt),
    ("&", Punct::Amp),
    ("|", Punct::Bar),
    ("~", Punct::Tilde),
    ("!", Punct::Bang),
    ("^", Punct::Caret),
    ("@", Punct::At),
    ("?", Punct::Question),
];

impl Punct {
    pub fn as_str(self) -> &'static str {
        PUNCTS.iter().find(|(_, p)| *p == self).map(|(s, _)| *s).unwrap_or("?")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TokKind {
    Ident(String),
    Int(i64),
    Real(f64),
    Char(u8),
    Str(Vec<u8>),
    Kw(Kw),
    Punct(Punct),
    /// A line break that ends a statement (see `lexer` for when breaks count).
    Newline,
    /// The lexer already reported an error for this stretch of text.
    Error,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokKind,
    pub span: Span,
    /// A line break separated this token from the previous one.
    pub nl_before: bool,
}

impl Token {
    /// How MPD's messages name the token: `keyword 'by'`, `identifier 'r'`, `token ':'`,
    /// `literal 'x'` (text cut to 16 characters), `EOF`, `newline`.
    pub fn describe(&self, src: &str) -> String {
        match &self.kind {
            TokKind::Ident(s) => format!("identifier '{}'", s),
            TokKind::Int(_) | TokKind::Real(_) => {
                let text = src.get(self.span.lo as usize..self.span.hi as usize).unwrap_or("");
                format!("literal '{}'", text)
            }
            TokKind::Char(c) => format!("literal '{}'", show_bytes(&[*c])),
            TokKind::Str(s) => format!("literal '{}'", show_bytes(&s[..s.len().min(16)])),
            TokKind::Kw(k) => format!("keyword '{}'", k.as_str()),
            TokKind::Punct(p) => format!("token '{}'", p.as_str()),
            TokKind::Newline => "newline".to_string(),
            TokKind::Error => "invalid text".to_string(),
            TokKind::Eof => "EOF".to_string(),
        }
    }
}

/// Printable form of literal bytes for messages.
pub fn show_bytes(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        match c {
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\{:03o}", c)),
        }
    }
    s
}
