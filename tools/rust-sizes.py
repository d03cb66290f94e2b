#!/usr/bin/env python3
"""rust-sizes.py DIR [MAX_FILE MAX_FN]: the compiler's size limits (issue 18).

Lists every .rs file under DIR longer than MAX_FILE lines (default 800) and
every function longer than MAX_FN lines (default 120), tests excepted (a
file's `#[cfg(test)]` part and files under a tests/ directory).  Exit status 1
when any is found.  A function is measured from its `fn` line to the line of
the brace that closes its body; braces inside strings, chars and comments are
skipped, which is all the lexing the compiler's own style needs.
"""
import os
import re
import sys

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?((const|unsafe|async|extern\s+\"[^\"]*\")\s+)*fn\s+(\w+)")


def code_only(line, state):
    """The line with strings, chars and comments blanked; state carries a block comment."""
    out, i, n = [], 0, len(line)
    while i < n:
        if state["block"]:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out)
            state["block"], i = False, j + 2
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"], i = True, i + 2
            continue
        if c == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        if c == "'" and re.match(r"'(\\.|[^\\'])'", line[i:i + 4] + "   "):
            i += len(re.match(r"'(\\.[^']*|[^\\'])'", line[i:]).group(0))
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(lines):
    """(name, first line, length) of each function, up to a #[cfg(test)]."""
    state, found, open_fns, depth = {"block": False}, [], [], 0
    for no, raw in enumerate(lines, 1):
        if raw.strip() == "#[cfg(test)]":
            break
        m = FN.match(raw)
        if m:
            open_fns.append((m.group(5), no, depth))
        for c in code_only(raw, state):
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                while open_fns and depth == open_fns[-1][2]:
                    name, first, _ = open_fns.pop()
                    found.append((name, first, no - first + 1))
        if c_semicolon_decl(raw) and open_fns and open_fns[-1][1] == no and depth == open_fns[-1][2]:
            open_fns.pop()   # a declaration without a body (trait item)
    return found


def c_semicolon_decl(raw):
    return raw.rstrip().endswith(";") and "{" not in raw


def main():
    root = sys.argv[1]
    max_file = int(sys.argv[2]) if len(sys.argv) > 2 else 800
    max_fn = int(sys.argv[3]) if len(sys.argv) > 3 else 120
    bad = 0
    for d, _, files in os.walk(root):
        if "/tests" in d[len(root):] or d.endswith("/tests"):
            continue
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            p = os.path.join(d, f)
            lines = open(p, encoding="utf-8").read().split("\n")
            body = lines[: next((i for i, l in enumerate(lines) if l.strip() == "#[cfg(test)]"), len(lines))]
            if len(body) > max_file:
                bad += 1
                print(f"{p}: {len(body)} lines (limit {max_file})")
            for name, first, length in functions(lines):
                if length > max_fn:
                    bad += 1
                    print(f"{p}:{first}: fn {name} is {length} lines (limit {max_fn})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
