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


def _pick_same(rng, toks, idx, kind):
    same = [t.text for t in toks if t.kind == kind]
    return rng.choice(same) if same else toks[idx].text


def mutate_once(rng, toks, vocab):
    """One mutation of toks (a new list); vocab: words seen in all seeds."""
    w = words(toks)
    if not w:
        return toks
    i = rng.choice(w)
    t = toks[i]
    r = rng.random()
    out = list(toks)
    if r < 0.14:                                   # delete a word
        del out[i]
    elif r < 0.24:                                 # duplicate a word
        out.insert(i, Tok(t.kind, t.text))
        out.insert(i + 1, Tok("ws", " "))
    elif r < 0.36:                                 # swap with the next word
        j = next((k for k in w if k > i), None)
        if j is not None:
            out[i], out[j] = out[j], out[i]
    elif r < 0.52 and t.kind == "ident":           # another identifier of the program
        out[i] = Tok("ident", _pick_same(rng, toks, i, "ident"))
    elif r < 0.62:                                 # a type name where a word was
        out[i] = Tok("ident", rng.choice(TYPE_WORDS))
    elif r < 0.72 and t.kind == "op":              # another operator
        out[i] = Tok("op", rng.choice(OPERATORS))
    elif r < 0.82:                                 # a literal of some type
        out[i] = Tok("num", rng.choice(LITERALS))
    elif r < 0.90:                                 # a keyword
        out[i] = Tok("kw", rng.choice(KEYWORD_SWAPS))
    else:                                          # a word from any seed
        out.insert(i, Tok("ident", rng.choice(vocab) if vocab else "x"))
        out.insert(i + 1, Tok("ws", " "))
    return out


def mutate(rng, src, vocab, n=None):
    """src with 1-3 mutations (n of them if given)."""
    toks = lex(src)
    for _ in range(n or rng.choice([1, 1, 1, 2, 3])):
        toks = mutate_once(rng, toks, vocab)
    return join(toks)
