"""Token-level mutations of MPD programs: delete, duplicate, swap, and
replace identifiers, type names, operators and literals."""
from .tokens import Tok, lex, join, words, TYPE_WORDS

LITERALS = ["0", "1", "-1", "2147483647", "-2147483648", "3", "1.5", "0.0",
            '"x"', '""', '"hello"', "'c'", "'\\0'", "true", "false", "null", "noop"]
OPERATORS = ["+", "-", "*", "/", "%", "**", "||", "&", "|", "<", ">", "<=", ">=",
             "=", "!=", ":=", "==", "~", "^", "@", ".", ",", ";", ":", "[", "]",
             "(", ")", "{", "}", "->", "[]", "//", "++", "--", "?", "<<", ">>"]
KEYWORD_SWAPS = ["int", "real", "bool", "char", "string", "sem", "op", "proc",
                 "process", "procedure", "cap", "ptr", "in", "ni", "co", "oc",
                 "send", "call", "receive", "reply", "forward", "return", "returns",
                 "var", "val", "res", "ref", "const", "type", "rec", "union",
                 "enum", "resource", "global", "import", "extend", "body", "end",
                 "create", "destroy", "new", "if", "fi", "do", "od", "fa", "af",
                 "for", "while", "exit", "next", "skip", "stop", "P", "V",
                 "to", "downto", "by", "st", "file", "any", "null", "final"]


BINARY = ["+", "-", "*", "/", "%", "**", "||", "<", ">", "<=", ">=", "==", "!=", "&", "|"]
TYPE_KEYWORDS = {"int", "real", "bool", "char", "string", "file", "sem", "ptr", "cap", "any"}
LITERAL_WORDS = {"true", "false", "null", "noop"}


def _is_literal(t):
    return t.kind in ("num", "str", "chr") or t.text in LITERAL_WORDS


# (weight, name): mutations that keep the program parseable more often
# weigh more, so more mutants get through the checker to cc
_KINDS = [(8, "delete"), (5, "duplicate"), (7, "swap"), (25, "ident"), (14, "type"),
          (14, "operator"), (15, "literal"), (6, "keyword"), (6, "insert")]


def mutate_once(rng, toks, vocab):
    """One mutation of toks (a new list); vocab: words seen in all seeds."""
    w = words(toks)
    if not w:
        return toks
    total = sum(k for k, _ in _KINDS)
    x = rng.uniform(0, total)
    for weight, kind in _KINDS:
        x -= weight
        if x <= 0:
            break
    cands = {
        "ident": [i for i in w if toks[i].kind == "ident"],
        "type": [i for i in w if toks[i].text in TYPE_KEYWORDS],
        "operator": [i for i in w if toks[i].kind == "op" and toks[i].text in BINARY],
        "literal": [i for i in w if _is_literal(toks[i])],
    }.get(kind) or w
    i = rng.choice(cands)
    t = toks[i]
    out = list(toks)
    if kind == "delete":
        del out[i]
    elif kind == "duplicate":
        out.insert(i, Tok(t.kind, t.text))
        out.insert(i + 1, Tok("ws", " "))
    elif kind == "swap":
        j = next((k for k in w if k > i), None)
        if j is not None:
            out[i], out[j] = out[j], out[i]
    elif kind == "ident":
        same = [u.text for u in toks if u.kind == "ident"]
        out[i] = Tok("ident", rng.choice(same) if same else "x")
    elif kind == "type":
        out[i] = Tok("ident", rng.choice(TYPE_WORDS))
    elif kind == "operator":
        out[i] = Tok("op", rng.choice(BINARY if rng.random() < 0.8 else OPERATORS))
    elif kind == "literal":
        out[i] = Tok("num", rng.choice(LITERALS))
    elif kind == "keyword":
        out[i] = Tok("kw", rng.choice(KEYWORD_SWAPS))
    else:
        out.insert(i, Tok("ident", rng.choice(vocab) if vocab else "x"))
        out.insert(i + 1, Tok("ws", " "))
    return out


def mutate(rng, src, vocab, n=None):
    """src with 1-3 mutations (n of them if given)."""
    toks = lex(src)
    for _ in range(n or rng.choice([1, 1, 1, 2, 3])):
        toks = mutate_once(rng, toks, vocab)
    return join(toks)
