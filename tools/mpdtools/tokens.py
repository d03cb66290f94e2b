"""MPD source as a list of tokens that joins back to the exact text.

Whitespace and comments are tokens too (kinds 'ws' and 'comment'), so a
mutation or a minimisation step edits the program's words and keeps the rest
of its layout.  The lexer only needs to be good enough to cut words apart:
anything it does not know becomes a one-character 'op' token."""
import re

# longest first: compound assignments, then two-character operators
_OPS = [":=:", "**:=", "<<:=", ">>:=", "||:=", "+:=", "-:=", "*:=", "/:=", "%:=",
        "&:=", "|:=", "**", "||", "&&", "->", "//", "[]", "==", "!=", "<=", ">=",
        "<<", ">>", "++", "--", ":=", "~="]
_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)"
    r"|(?P<comment>#[^\n]*|/\*.*?\*/)"
    r"|(?P<str>\"(?:\\.|[^\"\\\n])*\")"
    r"|(?P<chr>'(?:\\.|[^'\\\n])*')"
    r"|(?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in _OPS) + r"|.)",
    re.S)

KEYWORDS = set("""
and any bool by call cap char co const create destroy do downto else end exit
extend external fa false file fi final forward global if import in int low high
mod new next ni not null noop oc od op optype or proc procedure process ptr
real receive ref reply res resource result returns send sem separate skip st
stop string to true type union val var vm write while xor body begin begin
P V rec enum stderr stdin stdout
""".split())

TYPE_WORDS = ["int", "real", "bool", "char", "string[5]", "string[*]", "ptr int",
              "cap sem", "file", "ptr any"]


class Tok:
    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        self.kind, self.text = kind, text

    def __repr__(self):
        return "Tok(%s, %r)" % (self.kind, self.text)


def lex(src):
    """Splits src into tokens; ''.join(t.text) == src."""
    out = []
    for m in _TOKEN.finditer(src):
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "ident" and text in KEYWORDS:
            kind = "kw"
        out.append(Tok(kind, text))
    return out


def join(toks):
    return "".join(t.text for t in toks)


def words(toks):
    """Indices of the tokens that are not whitespace or comments."""
    return [i for i, t in enumerate(toks) if t.kind not in ("ws", "comment")]
