"""Random valid MPD programs that are deterministic by construction, for the
differential harness (tools/difftest.py).

A program is one resource whose initial code does everything in a fixed
order: declarations of every basic type, arrays and a record; assignments of
random typed expressions (arithmetic, comparisons, conversions, strings and
slices, predefined functions); write, writes and printf with many formats;
if, for, while and do loops; procedures; ops with send and receive, `in` with
`st`, ops implemented by procs (call), `co` of calls, semaphores, and a
process that starts after the initial code.  Values stay small (no overflow),
divisors are never zero and slices stay inside their strings, so both
implementations should print the same thing."""
import random

INT_VARS = ["i1", "i2", "i3"]
REAL_VARS = ["r1", "r2"]
BOOL_VARS = ["b1", "b2"]
CHAR_VARS = ["c1", "c2"]
STR_VARS = [("s1", 12), ("s2", 20)]


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.ind = 1
        self.loopvars = []
        self.n = 0

    def put(self, s):
        self.lines.append("  " * self.ind + s)

    def fresh(self, p):
        self.n += 1
        return "%s%d" % (p, self.n)

    # ---- expressions of a type, depth-bounded ----
    def int_e(self, d=2):
        r = self.rng
        leaves = [str(r.randint(0, 20)), r.choice(INT_VARS), r.choice(INT_VARS)] + self.loopvars
        if d <= 0:
            return r.choice(leaves)
        k = r.randint(0, 13)
        a = lambda: self.int_e(d - 1)
        if k <= 2:
            return r.choice(leaves)
        if k == 3:
            return "(%s %s %s)" % (a(), r.choice(["+", "-", "*"]), a())
        if k == 4:
            return "(%s %s %d)" % (a(), r.choice(["/", "%"]), r.randint(1, 7))
        if k == 5:
            return "abs(%s)" % a()
        if k == 6:
            return "%s(%s, %s)" % (r.choice(["min", "max"]), a(), a())
        if k == 7:
            return "length(%s)" % self.str_e(d - 1)
        if k == 8:
            return "int(%s)" % self.real_e(d - 1)
        if k == 9:
            return "int(%s)" % self.char_e(d - 1)
        if k == 10:
            return "(%s ** %d)" % (a(), r.randint(0, 3))
        if k == 11:
            return "-(%s)" % a()
        if k == 12:
            return r.choice(["sq(%s %% 50)", "early(%s %% 50)", "addp(%s, 3)"]) % a()
        return "int(%s)" % self.bool_e(d - 1)

    def real_e(self, d=2):
        r = self.rng
        leaves = [r.choice(["0.5", "1.25", "3.0", "2.75", "10.0", "0.1"]), r.choice(REAL_VARS)]
        if d <= 0:
            return r.choice(leaves)
        k = r.randint(0, 8)
        a = lambda: self.real_e(d - 1)
        if k <= 2:
            return r.choice(leaves)
        if k == 3:
            return "(%s %s %s)" % (a(), r.choice(["+", "-", "*"]), a())
        if k == 4:
            return "(%s / %s)" % (a(), r.choice(["2.0", "4.0", "0.5", "3.0"]))
        if k == 5:
            return "real(%s)" % self.int_e(d - 1)
        if k == 6:
            return "abs(%s)" % a()
        if k == 7:
            return "%s(%s)" % (r.choice(["sqrt", "floor", "ceil", "round"]), "abs(%s)" % a())
        return "(%s + %s)" % (a(), self.int_e(d - 1))

    def bool_e(self, d=2):
        r = self.rng
        leaves = [r.choice(["true", "false"]), r.choice(BOOL_VARS)]
        if d <= 0:
            return r.choice(leaves)
        k = r.randint(0, 8)
        cmp = r.choice(["<", "<=", ">", ">=", "==", "!="])
        if k <= 1:
            return r.choice(leaves)
        if k == 2:
            return "(%s %s %s)" % (self.int_e(d - 1), cmp, self.int_e(d - 1))
        if k == 3:
            return "(%s %s %s)" % (self.real_e(d - 1), cmp, self.real_e(d - 1))
        if k == 4:
            return "(%s %s %s)" % (self.char_e(d - 1), cmp, self.char_e(d - 1))
        if k == 5:
            return "(%s %s %s)" % (self.str_e(d - 1), cmp, self.str_e(d - 1))
        if k == 6:
            return "(%s %s %s)" % (self.bool_e(d - 1), r.choice(["and", "or", "xor"]), self.bool_e(d - 1))
        if k == 7:
            return "not %s" % self.bool_e(d - 1)
        return "(%s == %s)" % (self.bool_e(d - 1), self.bool_e(d - 1))

    def char_e(self, d=2):
        r = self.rng
        leaves = ["'%s'" % r.choice("abcxyzAZ09 "), r.choice(CHAR_VARS)]
        if d <= 0:
            return r.choice(leaves)
        k = r.randint(0, 4)
        if k <= 1:
            return r.choice(leaves)
        if k == 2:
            return "char(int('a') + abs(%s) %% 26)" % self.int_e(d - 1)
        if k == 3:
            return "%s[1]" % r.choice(["s1", "s2"]) if False else "\"%s\"[%d]" % ("mpdtest", r.randint(1, 7))
        return "%s(%s)" % (r.choice(["pred", "succ"]), "'m'")

    def str_e(self, d=2):
        r = self.rng
        leaves = ['"%s"' % r.choice(["", "a", "ab", "hello", "MPD", "x y"]), r.choice(STR_VARS)[0]]
        if d <= 0:
            return r.choice(leaves)
        k = r.randint(0, 5)
        if k == 0:
            return r.choice(leaves)
        if k == 1:
            # a slice of a variable, inside its current length
            v = r.choice(STR_VARS)[0]
            return "%s[1:min(%d, length(%s))]" % (v, r.randint(0, 4), v)
        if k == 2:
            return "string(%s)" % self.int_e(d - 1)
        if k == 3:
            return "(%s || %s)" % (self.str_e(d - 1), self.str_e(d - 1))
        if k == 4:
            # a slice inside the literal
            lit = "abcdefgh"
            lo = r.randint(1, 8)
            hi = r.randint(lo - 1, 8)
            return '"%s"[%d:%d]' % (lit, lo, hi)
        return "string(%s)" % self.char_e(d - 1)

    def any_print(self):
        t = self.rng.randint(0, 4)
        return [self.int_e, self.real_e, self.bool_e, self.char_e, self.str_e][t]()

    # ---- statements ----
    def assign(self):
        r = self.rng
        k = r.randint(0, 4)
        if k == 0:
            self.put("%s = %s" % (r.choice(INT_VARS), self.int_e()))
        elif k == 1:
            self.put("%s = %s" % (r.choice(REAL_VARS), self.real_e()))
        elif k == 2:
            self.put("%s = %s" % (r.choice(BOOL_VARS), self.bool_e()))
        elif k == 3:
            self.put("%s = %s" % (r.choice(CHAR_VARS), self.char_e()))
        else:
            name, n = r.choice(STR_VARS)
            # short enough for the variable: a literal or a slice of one
            self.put('%s = "%s"' % (name, "".join(r.choice("abcdef") for _ in range(r.randint(0, min(n, 8))))))

    def output(self):
        r = self.rng
        k = r.randint(0, 3)
        if k == 0:
            self.put("write(%s)" % ", ".join(self.any_print() for _ in range(r.randint(1, 4))))
        elif k == 1:
            self.put('writes(%s, "\\n")' % ", ".join(self.any_print() for _ in range(r.randint(1, 3))))
        else:
            fmts, args = [], []
            for _ in range(r.randint(1, 3)):
                t = r.randint(0, 4)
                if t == 0:
                    fmts.append(r.choice(["%d", "%5d", "%-4d", "%x", "%o", "%03d"]))
                    args.append(self.int_e())
                elif t == 1:
                    fmts.append(r.choice(["%f", "%.2f", "%8.3f", "%e", "%g"]))
                    args.append(self.real_e())
                elif t == 2:
                    fmts.append(r.choice(["%s", "%10s", "%-6s"]))
                    args.append(self.str_e())
                elif t == 3:
                    fmts.append("%c")
                    args.append(self.char_e())
                else:
                    fmts.append("%b")
                    args.append(self.bool_e())
            self.put('printf("%s\\n", %s)' % (" ".join(fmts), ", ".join(args)))

    def block(self, depth):
        for _ in range(self.rng.randint(1, 3)):
            self.stmt(depth)

    def stmt(self, depth):
        r = self.rng
        k = r.randint(0, 12 if depth > 0 else 5)
        if k <= 2:
            self.assign()
        elif k <= 5:
            self.output()
        elif k == 6:
            self.put("if (%s) {" % self.bool_e())
            self.ind += 1
            self.block(depth - 1)
            self.ind -= 1
            self.put("} else {")
            self.ind += 1
            self.block(depth - 1)
            self.ind -= 1
            self.put("}")
        elif k == 7:
            v = self.fresh("k")
            lo, hi = r.randint(-2, 3), r.randint(0, 5)
            st = " st %s %% 2 == 0" % v if r.random() < 0.3 else ""
            self.put("for [%s = %d %s %d%s] {" % (v, lo, "to" if r.random() < 0.7 else "downto", hi, st))
            self.ind += 1
            self.loopvars.append(v)
            self.block(depth - 1)
            self.loopvars.pop()
            self.ind -= 1
            self.put("}")
        elif k == 8:
            v = self.fresh("w")
            self.put("int %s = 0" % v)
            self.put("while (%s < %d) {" % (v, r.randint(0, 4)))
            self.ind += 1
            self.put("%s++" % v)
            self.block(depth - 1)
            self.ind -= 1
            self.put("}")
        elif k == 9:
            # ops: sends queue in order; in takes the first that satisfies st
            a, b = self.int_e(1), self.int_e(1)
            self.put("send q(%s); send q(%s)" % (a, b))
            v = self.fresh("x")
            self.put("in q(%s) st %s %% 2 = 0 -> write(\"even first\", %s) [] q2(s) -> write(s) ni" % (v, v, v) if False else
                     "in q(%s) -> write(\"in q\", %s) ni" % (v, v))
            self.put("int %s; receive q(%s); write(\"received\", %s)" % (v + "r", v + "r", v + "r"))
        elif k == 10:
            a, b = self.int_e(1), self.int_e(1)
            v1, v2 = self.fresh("co"), self.fresh("co")
            self.put("int %s, %s" % (v1, v2))
            self.put("co %s = sq(%s %% 100) // %s = twice(%s %% 100) oc" % (v1, a, v2, b))
            self.put("write(\"co\", %s, %s)" % (v1, v2))
        elif k == 11:
            self.put("V(mutex); P(mutex); V(tokens); P(tokens)")
            self.put("write(\"sem\", ?tokens)")
        else:
            v = self.fresh("a")
            n = r.randint(1, 5)
            self.put("int %s[%d]" % (v, n))
            self.put("for [j = 1 to %d] { %s[j] = j * %s }" % (n, v, self.int_e(1)))
            self.put("p.x = %s[%d]; p.y = real(%s[1]) / 2.0" % (v, r.randint(1, n), v))
            self.put("write(\"rec\", p.x, p.y, %s[%d])" % (v, n))

    def program(self, name):
        r = self.rng
        body = []
        self.lines = body
        for _ in range(r.randint(4, 14)):
            self.stmt(2)
        head = [
            "# generated by tools/mpdtools/gen.py",
            "resource %s()" % name,
            "  type point = rec(int x; real y)",
            "  op sq(int x) returns int y",
            "  op twice(int x) returns int y",
            "  op q(int x)",
            "  op done_(int n)",
            "  sem mutex = 0, tokens = 1",
            "  point p",
            "  int i1 = %d, i2 = %d, i3 = %d" % (r.randint(0, 9), r.randint(0, 9), r.randint(-9, 9)),
            "  real r1 = %s, r2 = %s" % (r.choice(["1.5", "0.25", "2.0"]), r.choice(["3.5", "-1.0", "0.0"])),
            "  bool b1 = true, b2 = false",
            "  char c1 = 'q', c2 = 'B'",
            "  string[12] s1 = \"start\"",
            "  string[20] s2 = \"\"",
            "  proc sq(x) returns y { y = x * x }",
            "  proc twice(x) returns y { y = x + x }",
            "  op early(int x) returns int y",
            "  proc early(x) returns y { y = x + 1; reply; int z = y * 2 }",
            "  procedure addp(int a, int b) returns int s { s = a + b }",
            "  process last { receive done_(i1); write(\"last\", i1) }",
            # every op and semaphore is implemented whatever the body holds
            "  V(mutex); P(mutex); V(tokens); P(tokens)",
            "  send q(i1); receive q(i1); send q(i2); in q(x) -> i2 = x ni",
        ]
        tail = ["  send done_(%d)" % r.randint(0, 99), "end"]
        return "\n".join(head + body + tail) + "\n"


def program(seed, name="gen"):
    return Gen(seed).program(name)
