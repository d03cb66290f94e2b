//! Parser unit tests on small snippets: tree shapes (via syntax::dump), precedence,
//! line-break handling, and error messages.

use mpdc::syntax::{dump, parse_source, Diagnostics, SourceMap};

/// Parse a whole file; return (dump, rendered errors).
fn parse(src: &str) -> (String, String) {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let f = parse_source(&mut map, "t.mpd", src, &mut diags);
    (dump::file(&f), diags.render(&map))
}

/// Parse `body` as the body of `resource main()`; return the dumped items.
fn body(body: &str) -> String {
    let src = format!("resource main()\n{}\nend\n", body);
    let (d, errs) = parse(&src);
    assert!(errs.is_empty(), "unexpected errors for {:?}:\n{}", body, errs);
    let prefix = "(resource main Simple (body main (params) ";
    d.strip_prefix(prefix).and_then(|s| s.strip_suffix("))")).unwrap_or(&d).to_string()
}

/// Errors for a body snippet.
fn body_errors(b: &str) -> String {
    parse(&format!("resource main()\n{}\nend\n", b)).1
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(body("x = a + b * c"), "(= x (+ a (* b c)))");
    assert_eq!(body("x = a - b - c"), "(= x (- (- a b) c))");
    assert_eq!(body("x = a ** b ** c"), "(= x (** a (** b c)))");
    assert_eq!(body("x = -a ** 2"), "(= x (** (neg a) 2))");
    assert_eq!(body("x = a || b + c"), "(= x (+ (|| a b) c))");
    assert_eq!(body("x = a << 1 + 2"), "(= x (<< a (+ 1 2)))");
    assert_eq!(body("x = a < b == c"), "(= x (== (< a b) c))");
    assert_eq!(body("x = a | b & c"), "(= x (| a (& b c)))");
    assert_eq!(body("x = a xor b or c and d"), "(= x (xor a (| b (& c d))))");
    assert_eq!(body("x = a mod b % c * d"), "(= x (* (% (mod a b) c) d))");
    assert_eq!(body("x = not a == b"), "(= x (== (not a) b))");
    assert_eq!(body("x = y = z"), "(= x (= y z))");
    assert_eq!(body("x += y -= 2"), "(+= x (-= y 2))");
    assert_eq!(body("a[i] :=: a[j]"), "(:=: (index a i) (index a j))");
    assert_eq!(body("x = a ~= b"), "(= x (!= a b))");
}

#[test]
fn postfix_and_prefix() {
    assert_eq!(body("i++"), "(post++ i)");
    assert_eq!(body("--i"), "(-- i)");
    assert_eq!(body("p = @a[1]"), "(= p (@ (index a 1)))");
    assert_eq!(body("x = p^.f[2]"), "(= x (index (. (^ p) f) 2))");
    assert_eq!(body("write(?o[i,j])"), "(call write (? (index o i j)))");
    assert_eq!(body("r.f(1)(2)"), "(call (call (. r f) 1) 2)");
}

#[test]
fn literals() {
    assert_eq!(body("f(17q, 0Ax, 255, 7FFFFFFFx)"), "(call f 15 10 255 2147483647)");
    assert_eq!(body("f(1.5, 1., .5, 2e3, 8.e-10, 1.5E+2)"), "(call f 1.5 1.0 0.5 2000.0 8e-10 150.0)");
    assert_eq!(body(r"f('a', '\n', '\\', '\'', '\177', '\0')"), r"(call f 'a' '\n' '\' ''' '\177' '\000')");
    assert_eq!(body(r#"f("a\tb\"c")"#), r#"(call f "a\tb"c")"#);
    assert_eq!(
        body("f(true, false, null, noop, stdin, stdout, stderr)"),
        "(call f true false null noop stdin stdout stderr)"
    );
    assert_eq!(body("s = \"ab\\\ncd\""), "(= s \"ab\\ncd\")");
}

#[test]
fn constructors_slices_and_conversions() {
    assert_eq!(body("x = ([3] 0)"), "(= x (array [3]0))");
    assert_eq!(body("x = ([2] 2, 1, [5] f(5))"), "(= x (array [2]2 1 [5](call f 5)))");
    assert_eq!(body("c = ((1, 2), (3, 4))"), "(= c (array (array 1 2) (array 3 4)))");
    assert_eq!(body("x = (a)"), "(= x a)");
    assert_eq!(body("s = t[2:4]"), "(= s (index t 2:4))");
    assert_eq!(body("f(a[*], b[2:*], c[1, *])"), "(call f (index a *) (index b 2:*) (index c 1 *))");
    assert_eq!(body("x = int(r) + real(i) + string(c)"), "(= x (+ (+ (call int r) (call real i)) (call string c)))");
    assert_eq!(
        body("p = new(int); q = new(sem); c = new(op (int))"),
        "(= p (new int)) (= q (new sem)) (= c (new (op (sig (int)))))"
    );
    assert_eq!(body("x = low(color) + high(int)"), "(= x (+ (low color) (high int)))");
}

#[test]
fn declarations() {
    assert_eq!(body("int a = 1, b[10], c[1:n, 0:2] = x"), "(var int a = 1 b[10] c[1:n,0:2] = x)");
    assert_eq!(body("const int N = 10; const char C = 'c'"), "(const int N = 10) (const char C = 'c')");
    assert_eq!(body("string[10] s; string[*] t"), "(var string[10] s) (var string[*] t)");
    assert_eq!(body("[*]string[*] s"), "(var ([*] string[*]) s)");
    assert_eq!(body("fa i"), "(var fa i)");
    assert_eq!(body("r.T x"), "(var r.T x)");
    assert_eq!(body("type t = rec(int a, b; real x)"), "(type t (rec (int a b) (real x)))");
    assert_eq!(body("type e = enum(red, green)"), "(type e (enum red green))");
    assert_eq!(body("ptr any p; ptr int q; cap vm v; cap sem s; cap r c; cap (int x) returns int r f"),
        "(var (ptr any) p) (var (ptr int) q) (var (cap vm) v) (var (cap sem) s) (var (cap r) c) (var (cap (sig (int x) returns int r)) f)");
    assert_eq!(
        body("cap (int) returns int v fc; cap (int x) returns int r f = g"),
        "(var (cap (sig (int) returns int v)) fc) (var (cap (sig (int x) returns int r)) f = g)"
    );
    assert_eq!(body("sem s[3] = 1, t"), "(sem s[3] = 1 t)");
    assert_eq!(body("sem f[3][2]"), "(sem f[3,2])");
    assert_eq!(
        body("op f[1:10](int x, y, res real z) returns int r {send}"),
        // one name per type: `y` is the type of an unnamed parameter (MPD 1.0.1)
        "(op f[1:10] (sig (int x) (y) (res real z) returns int r {send}))"
    );
    assert_eq!(body("op a(), b(int), T c"), "(op a (sig)) (op b (sig (int))) (op c (optype T))");
    assert_eq!(body("op o(res int) {call,send}"), "(op o (sig (res int) {call,send}))");
    assert_eq!(
        body("optype t = (int x) returns int; optype u (char c)"),
        "(optype t (sig (int x) returns int)) (optype u (sig (char c)))"
    );
    assert_eq!(
        body("external e(val char c, res real d) returns int"),
        "(external e (sig (val char c) (res real d) returns int))"
    );
    assert_eq!(
        body("rec(\n string[12] s\n rec(int n; char c[5]) r\n) u"),
        "(var (rec (string[12] s) ((rec (int n) (char c[5])) r)) u)"
    );
    // `union` is read as `rec`, with MPD 1.0.1's warning
    let (d, errs) = parse("resource main()\nunion(int i; real x) u\nend\n");
    assert!(d.contains("(var (rec (int i) (real x)) u)"), "{}", d);
    assert!(errs.contains("warning: `union' treated as `rec'"), "{}", errs);
}

#[test]
fn procs() {
    assert_eq!(body("proc f(a, b) returns r { r = a }"), "(proc f (a b) returns r {(= r a)})");
    assert_eq!(
        body("procedure g(ref int a[*]) returns int r { }"),
        "(procedure g (params (ref int a[*])) returns int r {})"
    );
    assert_eq!(
        body("process p[i = 1 to N, j = 2 downto 1 by -1 st i != j] { skip }"),
        "(process p [(i 1 to N) (j 2 downto 1 by (neg 1) st (!= i j))] {skip})"
    );
    assert_eq!(body("final { write(1) }"), "(final {(call write 1)})");
}

#[test]
fn statements() {
    assert_eq!(
        body("if (a) { x = 1 } else if (b) { x = 2 }\nelse { x = 3 }"),
        "(if a {(= x 1)} b {(= x 2)} else {(= x 3)})"
    );
    assert_eq!(body("while (i < 10) { i++; next; exit }"), "(while (< i 10) {(post++ i) next exit})");
    assert_eq!(body("for [i = 1 to n by 2] { skip }"), "(for [(i 1 to n by 2)] {skip})");
    assert_eq!(body("begin { stop }; stop(2)"), "(begin {(stop)}) (stop 2)");
    assert_eq!(
        body("call f(1); send g(2); fork h(); forward k(x)"),
        "(call (call f 1)) (send (call g 2)) (fork (call h)) (forward (call k x))"
    );
    assert_eq!(
        body("receive q(x, y); P(s); V(s[i]); reply; return"),
        "(receive (call q x y)) (P s) (V (index s i)) reply (return)"
    );
    assert_eq!(
        body("c = create r(1, 2) on vmc; v = create vm() on 3; destroy c"),
        "(= c (create r 1 2 on vmc)) (= v (create vm on 3)) (destroy c)"
    );
}

#[test]
fn input_and_concurrent_statements() {
    assert_eq!(
        body("in p(x) -> write(x)\n[] q(y) returns z st y > 0 by -y -> z = y\n[] else -> skip\nni"),
        "(in (p (x) -> {(call write x)}) (q (y) returns z st (> y 0) by (neg y) -> {(= z y)}) (else {skip}))"
    );
    assert_eq!(
        body("in [i = 1 to 3] a[i](x) and x > i -> skip ni"),
        "(in ([(i 1 to 3)] (index a i) (x) st (> x i) -> {skip}))"
    );
    assert_eq!(
        body("co p(1) // send q(2) -> write(2)\n// [i = 1 to 3] x = f(i) oc"),
        "(co ((call p 1)) // (send (call q 2) -> {(call write 2)}) // ([(i 1 to 3)] (= x (call f i))))"
    );
    assert_eq!(body("co\n [ i\n =\n 1\n to\n 5\n ]\n w (\n i\n )\n oc"), "(co ([(i 1 to 5)] (call w i)))");
}

#[test]
fn line_breaks() {
    // An operator, comma or open bracket at line end continues the statement.
    assert_eq!(body("x = a +\n b\ny = 2"), "(= x (+ a b)) (= y 2)");
    // A binary operator or `=` at line start continues too.
    assert_eq!(body("x = a\n | b\nwinRectangle c[1]\n = (1)"), "(= x (| a b)) (var winRectangle c[1] = 1)");
    // Inside parentheses line breaks never separate.
    assert_eq!(body("write(\n\"b:\"\n,\n++ v\n)"), "(call write \"b:\" (++ v))");
    // `-x` and `++x` on a new line start a new statement.
    assert_eq!(body("x = 1\n-y\n++z"), "(= x 1) (neg y) (++ z)");
    // A backslash joins lines.
    assert_eq!(body("int \\\n n"), "(var int n)");
    // Comments: nested block comments, and `#`.
    assert_eq!(body("x = 1 /* a /* b */ c */ + 2 # comment\ny = 3"), "(= x (+ 1 2)) (= y 3)");
}

#[test]
fn components() {
    let (d, e) =
        parse("resource a\n op f()\nbody a(int n)\n write(n)\nend a\nglobal g\n int v\nend\nbody b\n int x\nend\n");
    assert_eq!(e, "");
    assert_eq!(
        d,
        "(resource a Combined (spec (op f (sig))) (body a (params (int n)) (call write n)))\n\
                   (global g SpecOnly (spec (var int v)))\n\
                   (resource b SeparateBody (body b (var int x)))"
    );
    let (d, e) = parse("resource r\n op f()\nbody r() separate\nglobal f;end\nglobal h()\n process p { skip }\nend h");
    assert_eq!(e, "");
    assert_eq!(
        d,
        "(resource r SeparateSpec (spec (op f (sig))) (body r (params) separate))\n\
                   (global f SpecOnly)\n\
                   (global h Simple (body h (params) (process p {skip})))"
    );
}

#[test]
fn error_messages_follow_mpd_wording() {
    let e = body_errors("\tfa i by 3 }");
    assert!(e.starts_with("t.mpd:2:7: error: parse error at keyword 'by'"), "{}", e);
    assert!(body_errors("fa i : }").contains("parse error at token ':'"));
    assert!(
        body_errors("x := 1").contains("parse error at token ':': expected ';' or a new line (MPD assigns with '=')")
    );
    assert!(body_errors("fa i 'x' }").contains("parse error at literal 'x'"));
    // MPD's constants have a type (SR's `const N := 5` is the SR parser's)
    assert!(body_errors("const M = 5").contains("parse error at token '=': expected the constant's type"));
    assert!(body_errors("fa i \"abcdefghijklmnopqrstuvwxyz\"").contains("parse error at literal 'abcdefghijklmnop'"));
    assert!(body_errors("for [ i\n").contains("unexpected newline"));
    assert!(body_errors("s = \"abc\n").contains("unterminated string"));
    assert!(body_errors("c = ''").contains("empty character literal"));
    assert!(body_errors("c = 'kd\n'").contains("character literal contains multiple characters"));
    assert!(body_errors("c ='\n'").contains("newline in character literal"));
    assert!(body_errors("$").contains("illegal character '$'"));
    assert!(body_errors("create vm(3)").contains("no arguments allowed in 'create vm()'"));
    assert!(parse("resource r ()\nbegin {\n}\n").1.contains("parse error at EOF"));
    assert!(parse("*/\nresource main()\nend\n").1.contains("comment terminator outside comment"));
    assert!(parse("resource main()\nend\n/*\n").1.contains("unterminated comment at EOF"));
    assert!(parse("resource b()\nend a\n").1.contains("expected 'end b'"));
    assert!(parse("resource r\nbody r\nend\n").1.contains("missing parameter list for resource"));
    assert!(parse("global g (int i)\nend\n").1.contains("a global cannot have a parameter list"));
}

#[test]
fn recovery_reports_several_errors() {
    let e = body_errors("x = )\ny = 1\nz = 1 +* 2\nw = ]\nok = 1");
    assert_eq!(e.matches(": error: ").count(), 3, "{}", e);
}

#[test]
fn diagnostic_rendering_has_source_line_and_caret() {
    let e = body_errors("x = 1 +");
    assert_eq!(e, "t.mpd:3:1: error: parse error at keyword 'end': expected an expression\n  |\n3 | end\n  | ^^^\n\n");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("x = {}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(body_errors(&deep).contains("nested too deeply"));
    let deep = format!("x = {}1", "-".repeat(100_000));
    assert!(body_errors(&deep).contains("nested too deeply"));
    let deep = format!("{}{}", "begin {".repeat(50_000), "}".repeat(50_000));
    assert!(body_errors(&deep).contains("nested too deeply"));
    let deep = format!("{} int p", "ptr ".repeat(100_000));
    assert!(body_errors(&deep).contains("nested too deeply"));
    // Trees built by loops are bounded too (dropping or walking them must not overflow).
    for deep in [
        format!("x = 1{}", "+1".repeat(200_000)),
        format!("x = a{}", "[1]".repeat(200_000)),
        format!("x = a{}", "^".repeat(200_000)),
        format!("x = f{}", "()".repeat(200_000)),
        format!("x = {}", "(1+".repeat(60) + "1" + &"+1".repeat(900) + &")".repeat(60)),
    ] {
        assert!(body_errors(&deep).contains("expression is nested too deeply"), "{}", &deep[..40]);
    }
    // ... while long but shallow expressions are fine.
    let wide = format!("write({})", vec!["1"; 20_000].join(", "));
    assert_eq!(body_errors(&wide), "");
}

#[test]
fn recovery_keeps_going_in_source_order() {
    let src = "resource main()\n  int x =\n  if (x > ) {\n     y = 1\n  }\n  }\n  write(x\n  z = [1]\n  in p(x) -> skip\n  [] q(1) -> skip ni\n  proc f(a) { a = 1 }\n  s = \"abc\n  c = 'ab'\n  x = 3 $ 4\nend\n";
    let (d, e) = parse(src);
    let lines: Vec<&str> =
        e.lines().filter(|l| l.contains(": error: ")).map(|l| l.split(": error: ").next().unwrap()).collect();
    assert_eq!(
        lines,
        ["t.mpd:3:3", "t.mpd:6:3", "t.mpd:8:3", "t.mpd:10:8", "t.mpd:12:7", "t.mpd:13:7", "t.mpd:14:9"],
        "{}",
        e
    );
    // What parsed correctly is still in the tree.
    assert!(d.contains("(proc f (a) {(= a 1)})"), "{}", d);
    assert!(d.contains("(in (p (x) -> {skip}))"), "{}", d);
}

/// The node ids of a parsed file (from its Debug form), in order.
fn node_ids(src: &str, name: &str) -> (mpdc::syntax::ast::SourceFile, Vec<u32>) {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let f = parse_source(&mut map, name, src, &mut diags);
    assert!(diags.render(&map).is_empty(), "unexpected errors in {}", name);
    let dbg = format!("{:?}", f);
    let ids = dbg.split("NodeId(").skip(1).map(|s| s[..s.find(')').unwrap()].parse().unwrap()).collect();
    (f, ids)
}

#[test]
fn every_expression_and_type_has_its_own_node_id() {
    // both front ends number their nodes from one counter: no two nodes of
    // a compilation share an id, and ids take no part in comparing trees
    let mpd = "resource main()\n  type t = rec(int a; [3] real b)\n  t r\n  r.a = -(1 + r.a) * int(2.5)\n  write(r.b[2], new(int))\nend\n";
    let sr = "resource main()\n  var x : int := 2\n  x := x * (x + 1)\n  write(x)\nend\n";
    let (a, ia) = node_ids(mpd, "a.mpd");
    let (b, ib) = node_ids(mpd, "a.mpd");
    let (_, is) = node_ids(sr, "s.sr");
    assert!(ia.len() > 15 && is.len() > 5, "too few ids: {:?} {:?}", ia, is);
    assert!(a == b, "the same source parses to equal trees whatever their ids");
    let mut all: Vec<u32> = ia.iter().chain(&ib).chain(&is).copied().collect();
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "a node id was given twice");
}
