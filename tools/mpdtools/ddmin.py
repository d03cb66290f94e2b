"""Delta debugging: the smallest input (by lines, then by words) that keeps a
property, e.g. "the compiler still fails in the same way"."""
from .tokens import lex, join, words


def ddmin(items, keeps, budget):
    """Classic ddmin over a list; keeps(sub) -> bool; budget: a list holding the
    number of tests still allowed (shared between passes)."""
    n = 2
    while len(items) >= 2 and budget[0] > 0:
        chunk = max(1, len(items) // n)
        parts = [items[k:k + chunk] for k in range(0, len(items), chunk)]
        reduced = False
        for k in range(len(parts)):
            if budget[0] <= 0:
                break
            rest = [x for j, p in enumerate(parts) if j != k for x in p]
            budget[0] -= 1
            if rest and keeps(rest):
                items, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    return items


def minimize(src, keeps, budget=400):
    """Shrinks program text src while keeps(text) holds: whole lines first,
    then single words (whitespace and comments between them are kept)."""
    left = [budget]
    lines = src.splitlines(keepends=True)
    lines = ddmin(lines, lambda ls: keeps("".join(ls)), left)
    src = "".join(lines)
    toks = lex(src)
    w = words(toks)
    keep_idx = ddmin(w, lambda idx: keeps(_only(toks, idx)), left)
    out = _only(toks, keep_idx)
    # drop comments and blank lines when that keeps the property
    bare = "\n".join(l for l in join([t for t in lex(out) if t.kind != "comment"]).splitlines() if l.strip()) + "\n"
    if bare != out and left[0] > 0 and keeps(bare):
        out = bare
    return out


def _only(toks, idx):
    keep = set(idx)
    return join([t for i, t in enumerate(toks) if t.kind in ("ws", "comment") or i in keep])
