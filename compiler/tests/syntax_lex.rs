//! Lexer unit tests: literal forms, comments, and where line breaks become separators.

use mpdc::syntax::lexer::lex;
use mpdc::syntax::token::{Kw, Punct, TokKind};
use mpdc::syntax::Diagnostics;

/// Token kinds of `src` without the final EOF; panics on lexical errors.
fn kinds(src: &str) -> Vec<TokKind> {
    let mut d = Diagnostics::new();
    let mut toks: Vec<TokKind> = lex(0, src, &mut d).into_iter().map(|t| t.kind).collect();
    assert!(!d.has_errors(), "lexical errors in {:?}", src);
    assert_eq!(toks.pop(), Some(TokKind::Eof));
    // End of input ends the last statement like a line break does.
    if toks.last() == Some(&TokKind::Newline) {
        toks.pop();
    }
    toks
}

fn id(s: &str) -> TokKind {
    TokKind::Ident(s.to_string())
}

use TokKind::{Int, Newline, Real};

#[test]
fn integer_forms() {
    assert_eq!(
        kinds("0 42 17q 17Q 0Ax 0ffX 7FFFFFFFx 000012"),
        [Int(0), Int(42), Int(15), Int(15), Int(10), Int(255), Int(2147483647), Int(12)]
    );
}

#[test]
fn real_forms() {
    assert_eq!(
        kinds("1.5 1. .25 2e3 2E-3 8.e+10 3.14159"),
        [Real(1.5), Real(1.0), Real(0.25), Real(2000.0), Real(0.002), Real(8e10), Real(3.14159)]
    );
    // `1e` is not an exponent: `e` must be followed by digits.
    let mut d = Diagnostics::new();
    lex(0, "x = 1e", &mut d);
    assert!(d.has_errors());
}

#[test]
fn char_and_string_escapes() {
    assert_eq!(
        kinds(r"'a' '\n' '\t' '\\' '\'' '\0' '\177' '\q'"),
        [
            TokKind::Char(b'a'),
            TokKind::Char(b'\n'),
            TokKind::Char(b'\t'),
            TokKind::Char(b'\\'),
            TokKind::Char(b'\''),
            TokKind::Char(0),
            TokKind::Char(127),
            TokKind::Char(b'q')
        ]
    );
    assert_eq!(kinds(r#""a\"b\\c\r""#), [TokKind::Str(b"a\"b\\c\r".to_vec())]);
    // MPD 1.0.1: backslash-newline in a literal is a newline character
    assert_eq!(kinds("\"ab\\\ncd\""), [TokKind::Str(b"ab\ncd".to_vec())]);
    // \x: zero to two hex digits; \e: ESC; octal kept modulo 256
    assert_eq!(
        kinds(r"'\x41' '\x9' '\x' '\e'"),
        [TokKind::Char(b'A'), TokKind::Char(9), TokKind::Char(0), TokKind::Char(27)]
    );
    assert_eq!(kinds(r#""\x4a\xFFF\xg\777""#), [TokKind::Str(b"J\xffF\0g\xff".to_vec())]);
}

#[test]
fn keywords_and_operators() {
    assert_eq!(kinds("P V p v"), [TokKind::Kw(Kw::P), TokKind::Kw(Kw::V), id("p"), id("v")]);
    assert_eq!(
        kinds("a:=:b **= ||= [] // -> ~= !="),
        [
            id("a"),
            TokKind::Punct(Punct::Swap),
            id("b"),
            TokKind::Punct(Punct::StarStarEq),
            TokKind::Punct(Punct::ConcatEq),
            TokKind::Punct(Punct::Box),
            TokKind::Punct(Punct::SlashSlash),
            TokKind::Punct(Punct::Arrow),
            TokKind::Punct(Punct::TildeEq),
            TokKind::Punct(Punct::Ne)
        ]
    );
}

#[test]
fn comments_nest_and_break_lines() {
    assert_eq!(kinds("a /* x /* y */ z */ b # c\nd"), [id("a"), id("b"), Newline, id("d")]);
    assert_eq!(kinds("a /* line\nbreak */ b"), [id("a"), Newline, id("b")]);
    assert_eq!(kinds("/*/*/****/****//*/*****/*/****/ x"), [id("x")]);
}

#[test]
fn line_break_rule() {
    // After a token that can end a statement, before one that can start one.
    assert_eq!(kinds("x\ny"), [id("x"), Newline, id("y")]);
    assert_eq!(kinds("skip\nexit"), [TokKind::Kw(Kw::Skip), Newline, TokKind::Kw(Kw::Exit)]);
    // After an operator or comma: continues.
    assert_eq!(kinds("x +\ny"), [id("x"), TokKind::Punct(Punct::Plus), id("y")]);
    assert_eq!(kinds("x,\ny"), [id("x"), TokKind::Punct(Punct::Comma), id("y")]);
    // Before a continuing token: continues.
    assert_eq!(kinds("x\n= y"), [id("x"), TokKind::Punct(Punct::Eq), id("y")]);
    assert_eq!(kinds("}\nelse"), [TokKind::Punct(Punct::RBrace), TokKind::Kw(Kw::Else)]);
    // Inside parentheses: never separates; inside brackets: the general rule.
    assert_eq!(kinds("(x\ny)"), [TokKind::Punct(Punct::LParen), id("x"), id("y"), TokKind::Punct(Punct::RParen)]);
    assert_eq!(
        kinds("[x\ny]"),
        [TokKind::Punct(Punct::LBracket), id("x"), Newline, id("y"), TokKind::Punct(Punct::RBracket)]
    );
    // A statement keyword closes parentheses left open.
    assert_eq!(kinds("f(x\nend"), [id("f"), TokKind::Punct(Punct::LParen), id("x"), Newline, TokKind::Kw(Kw::End)]);
    // Backslash-newline joins lines.
    assert_eq!(kinds("x\\\ny"), [id("x"), id("y")]);
}

#[test]
fn lexical_errors_are_reported_not_fatal() {
    for (src, msg) in [
        ("\"abc\nx", "unterminated string"),
        ("''", "empty character literal"),
        ("'ab'", "character literal contains multiple characters"),
        ("'\n'", "newline in character literal"),
        ("$", "illegal character '$'"),
        ("$$\u{e9}\u{e9}$ x", "illegal character '$'"),
        ("*/", "comment terminator outside comment"),
        ("/* /* */", "unterminated comment at EOF"),
        ("99999999999999999999", "integer literal is too large"),
        ("18q", "digit out of range in octal literal"),
        ("12ab", "malformed number '12ab'"),
    ] {
        let mut d = Diagnostics::new();
        let toks = lex(0, src, &mut d);
        assert_eq!(toks.last().map(|t| &t.kind), Some(&TokKind::Eof));
        let msgs: Vec<&str> = d.iter().map(|x| x.message.as_str()).collect();
        assert!(msgs.contains(&msg), "{:?}: got {:?}", src, msgs);
        assert_eq!(msgs.len(), 1, "{:?}: one message expected, got {:?}", src, msgs);
    }
}
