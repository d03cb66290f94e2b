//! Randomized robustness of the front end on the stable toolchain: the lexer and parser
//! must never panic or hang, whatever the input. Inputs are suite programs (when
//! ../shared is present) and built-in snippets, mutated by a seeded PRNG, plus random
//! token soups and random bytes. The cargo-fuzz target in compiler/fuzz does the same
//! with coverage guidance on nightly.
//!
//! MPD_ROBUST_ITERS scales the number of inputs (default 8000).

use mpdc::syntax::{dump, parse_source, Diagnostics, SourceMap};
use std::path::{Path, PathBuf};

/// xorshift64*: small, deterministic, good enough for mutation choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const SNIPPETS: &[&str] = &[
    "resource main()\n int a[1:10] = ([10] 0)\n for [i = 1 to 10 st i % 2 == 0] { a[i] += i ** 2 }\n write(a[2:4])\nend\n",
    "resource r\n op f(int x) returns int y {call}\nbody r(int n) separate\nbody r\n proc f(x) returns y { y = x }\n final { reply }\nend r\n",
    "global g\n sem s = 1\n type t = rec(int a; ptr t next)\nbody g\n process p[i = 1 to 3] { P(s); V(s) }\nend\n",
    "resource m()\n in a[i](x) st x > 0 by -x -> write(x)\n [] else -> skip\n ni\n co [i = 1 to 3] call p(i) -> write(i) // send q() oc\nend\n",
    "resource c()\n cap (int x) returns int r f\n c = create c() on create vm() on 3\n p = @a[1]; p^ :=: q^; x = ?o\n s = \"a\\tb\\\"\" || 'c'\nend\n",
];

const TOKENS: &[&str] = &[
    "resource",
    "global",
    "body",
    "end",
    "separate",
    "import",
    "extend",
    "op",
    "proc",
    "procedure",
    "process",
    "const",
    "type",
    "sem",
    "optype",
    "external",
    "final",
    "if",
    "else",
    "while",
    "for",
    "in",
    "ni",
    "co",
    "oc",
    "[]",
    "//",
    "->",
    "call",
    "send",
    "receive",
    "return",
    "reply",
    "create",
    "destroy",
    "on",
    "vm",
    "int",
    "real",
    "char",
    "bool",
    "string",
    "string[*]",
    "file",
    "rec",
    "union",
    "enum",
    "ptr",
    "any",
    "cap",
    "returns",
    "res",
    "var",
    "val",
    "ref",
    "to",
    "downto",
    "by",
    "st",
    "and",
    "or",
    "xor",
    "not",
    "mod",
    "new",
    "low",
    "high",
    "null",
    "noop",
    "P",
    "V",
    "skip",
    "stop",
    "exit",
    "next",
    "begin",
    "x",
    "y",
    "f",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ":",
    ".",
    "=",
    "==",
    "!=",
    "~=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "||",
    "<<",
    ">>",
    "<",
    "<=",
    ">",
    ">=",
    "&",
    "|",
    "~",
    "^",
    "@",
    "?",
    "++",
    "--",
    ":=:",
    "+=",
    "||=",
    "\n",
    "\n",
    "\n",
    "1",
    "17q",
    "0FFx",
    "1.5e3",
    ".5",
    "'a'",
    "'\\n'",
    "\"s\"",
    "\"\\\n\"",
    "/*",
    "*/",
    "#",
    "\\\n",
    "'",
    "\"",
    "$",
    "\u{e9}",
    "\0",
];

fn suite_sources() -> Vec<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = manifest.join("../../shared/mpd-vsuite");
    let mut files: Vec<PathBuf> = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "mpd") {
                out.push(p);
            }
        }
    }
    walk(&dir, &mut files);
    files.sort();
    files.iter().filter_map(|f| std::fs::read(f).ok()).map(|b| String::from_utf8_lossy(&b).into_owned()).collect()
}

/// Parse and exercise the renderer and the dumper (they must cope with any tree).
fn run(src: &str) -> usize {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let f = parse_source(&mut map, "fuzz.mpd", src, &mut diags);
    let _ = dump::file(&f);
    let _ = diags.render(&map);
    diags.error_count()
}

fn mutate(rng: &mut Rng, base: &str) -> String {
    let mut b: Vec<u8> = base.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = b.len();
        match rng.below(6) {
            0 if len > 0 => {
                // delete a range
                let at = rng.below(len);
                let n = rng.below(16).min(len - at);
                b.drain(at..at + n);
            }
            1 => {
                // insert a token
                let at = rng.below(len + 1);
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                b.splice(at..at, t.iter().copied());
            }
            2 if len > 0 => {
                // duplicate a range somewhere else
                let at = rng.below(len);
                let n = rng.below(64).min(len - at);
                let chunk: Vec<u8> = b[at..at + n].to_vec();
                let to = rng.below(b.len() + 1);
                b.splice(to..to, chunk);
            }
            3 if len > 0 => {
                // flip a byte
                let at = rng.below(len);
                b[at] = (rng.next() & 0xff) as u8;
            }
            4 => {
                // truncate
                let at = rng.below(len + 1);
                b.truncate(at);
            }
            _ if len > 1 => {
                // swap two bytes
                let (i, j) = (rng.below(len), rng.below(len));
                b.swap(i, j);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutated_programs_never_panic() {
    let iters: usize = std::env::var("MPD_ROBUST_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(8_000);
    let mut bases: Vec<String> = SNIPPETS.iter().map(|s| s.to_string()).collect();
    bases.extend(suite_sources());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut with_errors = 0;
    for _ in 0..iters {
        let base = &bases[rng.below(bases.len())];
        let input = mutate(&mut rng, base);
        if run(&input) > 0 {
            with_errors += 1;
        }
    }
    eprintln!(
        "robustness: {} mutated inputs from {} bases, {} had syntax errors, no panic",
        iters,
        bases.len(),
        with_errors
    );
    assert!(with_errors > 0, "mutations should produce some syntax errors");
}

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Rng(12345);
    for _ in 0..5_000 {
        let n = rng.below(200);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(TOKENS[rng.below(TOKENS.len())]);
            if rng.below(3) > 0 {
                s.push(' ');
            }
        }
        run(&s);
        run(&format!("resource main()\n{}\nend\n", s));
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(777);
    for _ in 0..5_000 {
        let n = rng.below(300);
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next() & 0xff) as u8).collect();
        run(&String::from_utf8_lossy(&bytes));
    }
}
