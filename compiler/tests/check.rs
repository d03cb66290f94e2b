//! Checker tests: programs that must be accepted (and give C), programs that
//! must be rejected with a given message, and inputs that must never panic.
use mpdc::check::{self, types::Types, Iface, Opts};
use mpdc::syntax::{self, Diagnostics, SourceMap};
use std::collections::{BTreeMap, HashMap};

/// Parses and checks `src`; returns (rendered diagnostics, C of each component).
fn compile(src: &str) -> (String, Vec<String>) {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let f = syntax::parse_source(&mut map, "t.mpd", src, &mut diags);
    if diags.has_errors() {
        return (diags.render(&map), vec![]);
    }
    let mut ifaces: BTreeMap<String, Iface> = BTreeMap::new();
    let mut types = Types::default();
    let mut specs = HashMap::new();
    let outs = check::check_files(
        &map,
        &[(f, "t.mpd".into())],
        &mut diags,
        &Opts { lines: true, ..Opts::default() },
        &mut ifaces,
        &mut types,
        &mut specs,
    );
    (diags.render(&map), outs.into_iter().map(|o| o.c).collect())
}

fn ok(src: &str) -> String {
    let (d, c) = compile(src);
    assert!(d.is_empty(), "unexpected diagnostics:\n{}", d);
    c.join("\n")
}

fn err(src: &str, msg: &str) {
    let (d, c) = compile(src);
    assert!(d.contains(msg), "expected `{}` in:\n{}", msg, d);
    assert!(c.is_empty(), "no C may be produced when there are errors");
}

#[test]
fn hello_world_becomes_a_main_resource() {
    let c = ok("resource hello()\n  write(\"hi\", 1, 2.5)\nend\n");
    assert!(c.contains("mpd_main_resource(&mpdr_hello_pat"));
    assert!(c.contains("mpd_write(mpd_F, 2"));
    assert!(c.contains("#line 2 \"t.mpd\""));
}

#[test]
fn constants_fold() {
    let c = ok("resource r()\n  const int k = 2 ** 10 + 3 * 4\n  write(k)\nend\n");
    assert!(c.contains("MPD_VI(1036)"), "{}", c);
}

#[test]
fn string_literals_are_escaped() {
    let c = ok("resource r()\n  write(\"a\\\"b\\\\c??=\")\nend\n");
    assert!(c.contains("\\\"") && c.contains("\\?"), "{}", c);
}

#[test]
fn undeclared_names_are_errors() {
    err("resource r()\n  x = 1\nend\n", "t.mpd:2:3: error: undefined identifier: x");
}

#[test]
fn type_mismatch_is_an_error() {
    err("resource r()\n  int i\n  i = \"s\"\nend\n", "expected a value of type int, found string[1]");
    err("resource r()\n  bool b = 1 + true\nend\n", "operator + needs int or real operands");
    err("resource r()\n  if (1) { skip }\nend\n", "guard expression is not boolean (int)");
}

#[test]
fn exit_outside_loop_is_an_error() {
    err("resource r()\n  exit\nend\n", "no enclosing loop");
}

#[test]
fn var_argument_must_be_a_variable() {
    err("resource r()\n  procedure p(var int v) { v++ }\n  p(3)\nend\n", "var/res/ref parameter is not a variable");
}

#[test]
fn arity_is_checked() {
    err("resource r()\n  procedure p(int v) { skip }\n  p(1, 2)\nend\n", "p(): too many arguments");
}

#[test]
fn ops_and_processes_use_the_ops_abi() {
    let c = ok("resource r()\n  sem s = 0\n  op c(int x)\n  process p { send c(1); V(s) }\n  int v\n  P(s); receive c(v)\nend\n");
    assert!(c.contains("mpd_op_sem("));
    assert!(c.contains("mpd_send_op("));
    assert!(c.contains("mpd_receive_op("));
    assert!(c.contains("mpd_op_input("));
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "",
        "resource",
        "resource r(",
        "resource r() end",
        "resource r()\n x[1:2:3] = ((\nend",
        "global g\n op f(int x)\nend\nresource r()\n import g\n g.f(1, 2)\n f(\"x\")\nend",
        "resource r()\n int a[1:0]\n a[1] = a\n write(a[*,*])\nend",
        "resource r()\n type t = rec(int a; ptr t n)\n t x\n x.n^.n^.a = x\nend",
        "resource r()\n in f(x) -> skip ni\n co g() // h() oc\nend",
        "resource r()\n string[-1] s\n real x = 1 mod 0.0\n write(low(string))\nend",
    ];
    for s in inputs {
        let _ = compile(s);
    }
}

/// Every program of the verification suite (read from ../shared when present)
/// goes through the checker without a panic.
#[test]
fn suite_programs_never_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/mpd-vsuite");
    if !root.is_dir() {
        return;
    }
    let mut stack = vec![root];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().map(|x| x == "mpd").unwrap_or(false) {
                let src = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                let _ = compile(&src);
                n += 1;
            }
        }
    }
    assert!(n > 100, "found only {} suite programs", n);
}

#[test]
fn constant_illegal_bounds_warn_and_check_at_run_time() {
    // MPD 1.0.1 compiles `int a[5:3]` and aborts when it runs (suite
    // diag/runtime): a warning, C that checks the bounds, and [5:4] is fine
    let (d, c) = compile("resource r()\n  int e[5:4]\n  int a[5:3]\nend\n");
    assert!(d.contains("t.mpd:3:"), "{}", d);
    assert!(d.contains("warning: illegal bounds [5:3] for array"), "{}", d);
    assert!(!d.contains("error"), "{}", d);
    let c = c.join("\n");
    assert!(c.contains("mpd_arr_check_bounds(mpd_F, 3, 5, 3)"), "{}", c);
    assert!(!c.contains("mpd_arr_check_bounds(mpd_F, 2, 5, 4)"), "{}", c);
}

#[test]
fn destroy_of_a_vm_capability_checks_for_null() {
    let c = ok("resource r()\n  cap vm v = null\n  destroy v\n  cap r x = null\n  destroy x\nend\n");
    assert!(c.contains("mpd_vm_destroy(mpd_F, 3,"), "{}", c);
    assert!(c.contains("mpd_destroy(mpd_F, 5,"), "{}", c);
}

#[test]
fn union_is_a_record_with_a_warning() {
    // MPD 1.0.1: "`union' treated as `rec'"; the members get separate storage
    let (d, c) = compile("resource r()\n  type u = union(int i; real x)\n  u v\n  v.i = 1; v.x = 2.0\nend\n");
    assert!(d.contains("t.mpd:2:12: warning: `union' treated as `rec'"), "{}", d);
    assert!(!d.contains("error"), "{}", d);
    assert!(!c.is_empty());
}

#[test]
fn messages_use_mpds_words() {
    // MPD 1.0.1's texts inside our located format (suite diag/*)
    err("resource r()\n  int a\n  int a\nend\n", "t.mpd:3:7: error: duplicate identifier: a");
    err("resource r()\n  procedure p(int v) { skip }\n  p()\nend\n", "p(): not enough arguments");
    err("resource r()\n  write(exp())\nend\n", "exp(): too few arguments");
    err("resource r()\n  int i\n  3++\nend\n", "expr++: not a variable");
    err("resource r()\n  int i = 1 || 2\nend\n", "non-string concatenation");
    err("resource r()\n  for [i = 1 to 3 st 1] { skip }\nend\n", "`st' expression must be boolean");
    err("resource r()\n  cap r c\n  if (c < c) { skip }\nend\n", "illegal comparison for unordered type");
    err("resource r()\n  if (1 < \"a\") { skip }\nend\n", "incompatible comparison");
    err("resource r()\n  type t = rec(int a)\n  t x\n  x.c = 1\nend\n", "unknown field: c");
    err("resource r()\n  int a[3]\n  write(ub(a, 0))\nend\n", "ub(), argument 2: value must be greater than zero");
    err("resource r()\n  for [i = 1 to 3 by 0.5] { skip }\nend\n", "incompatible quantifier increment");
    err("resource r()\n  ptr int p\n  real x = p - 1.5\nend\n", "incompatible pointer subtraction");
    err("resource r()\n  real x = 1.5 * \"a\"\nend\n", "non-numeric arithmetic operand");
}

#[test]
fn appending_to_a_string_variable_is_in_place() {
    // s = s || e is linear (mpd_str_append), not a copy of s into a
    // temporary and back; other targets keep the general form
    let c = ok("resource a()\n  string[100] s = \"\"\n  string[5] u[2]\n  for [i = 1 to 10] { s = s || \"x\" }\n  s = s || s\n  u[1] = u[1] || \"y\"\n  s = \"z\" || s\nend\n");
    assert!(c.contains("mpd_str_append(mpd_F, 4, self->v_s_"), "{}", c);
    assert!(c.contains("mpd_str_append(mpd_F, 5, self->v_s_"), "{}", c);
    assert_eq!(c.matches("mpd_str_append(").count(), 2, "{}", c);
}

/// The diagnostics `d` are exactly the errors `order`, in that order, each
/// once (a message given by its position and start).
fn errors_in_order(d: &str, order: &[&str]) {
    let pos: Vec<usize> = order
        .iter()
        .map(|m| {
            assert_eq!(d.matches(m).count(), 1, "{} once in:\n{}", m, d);
            d.find(m).unwrap()
        })
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "out of order:\n{}", d);
    assert_eq!(d.matches("error:").count(), order.len(), "{}", d);
}

#[test]
fn rule_errors_come_in_walk_order_once() {
    // the operators' rules word their errors (type_operator.rs); each is
    // reported when the walk reaches its node, once, though write types its
    // arguments ahead and `||` its operands again
    let (d, c) = compile(concat!(
        "resource r()\n  bool b\n  ptr int p\n",
        "  write(undeclared_v, b + 1, (b - 1) || \"x\", p == noop)\n",
        "  if (b * 1 < 2 / \"y\") { skip }\nend\n"
    ));
    assert!(c.is_empty());
    let order = [
        "4:9: error: undefined identifier: undeclared_v",
        "4:23: error: non-numeric arithmetic operand: operator + needs int or real operands, not bool and int",
        "4:31: error: non-numeric arithmetic operand: operator - needs",
        "4:46: error: can't use `noop' in pointer context (use null)",
        "5:7: error: non-numeric arithmetic operand: operator * needs",
        "5:15: error: non-numeric arithmetic operand: operator / needs int or real operands, not int and string[1]",
    ];
    errors_in_order(&d, &order);
}

#[test]
fn unary_rule_errors_come_in_walk_order_once() {
    // the unary operators' rules (type_operator.rs): one message per node,
    // none for an operand whose own error stands
    let (d, c) = compile(concat!(
        "resource r()\n  bool b; int i; ptr any pa\n",
        "  write(-b, -(-b), not undeclared_v, @3, pa^, i^)\n  3++\nend\n"
    ));
    assert!(c.is_empty());
    let order = [
        "3:9: error: unary +/- operand is not simple numeric (bool)",
        "3:15: error: unary +/- operand is not simple numeric (bool)",
        "3:24: error: undefined identifier: undeclared_v",
        "3:38: error: object of `@' is not a variable",
        "3:42: error: cannot dereference a `ptr any'",
        "3:47: error: dereference object is not a pointer (int)",
        "4:3: error: expr++: not a variable",
    ];
    errors_in_order(&d, &order);
}

#[test]
fn names_that_are_no_values_are_the_rules_errors() {
    // a name's rule words why it is no value (type_of.rs); each is reported
    // once, where the walk meets it, among the operators' errors
    let (d, c) = compile(concat!(
        "resource r()\n  type t = int\n  int x = t + 1\n",
        "  write(abs, r, undeclared_q, 99999999999 + true, x)\n",
        "  procedure pp(int n, int a[1:n]) { skip }\nend\n"
    ));
    assert!(c.is_empty());
    let order = [
        "3:11: error: `t` is not a value",
        "4:9: error: illegal use of predefined function (abs is a predefined function: it can only be called)",
        "4:14: error: `r` is not a value",
        "4:17: error: undefined identifier: undeclared_q",
        "4:31: error: integer literal too large",
        "4:31: error: non-numeric arithmetic operand: operator + needs int or real operands, not int and bool",
        "5:31: error: illegal reference to formal parameter n",
    ];
    errors_in_order(&d, &order);
}

#[test]
fn missing_fields_are_the_rules_errors() {
    // field_error (type_of.rs) words them; once each, in the walk's order
    let (d, c) = compile(concat!(
        "resource r()\n  type t = rec(int a; int b)\n  t x; int i\n",
        "  write(t.a, x.zz, i.f, x.zz.yy, (x.a).q, r.a)\nend\n"
    ));
    assert!(c.is_empty());
    let order = [
        "4:9: error: not a variable: t is a type",
        "4:16: error: unknown field: zz (in t)",
        "4:20: error: not a rec: `.f` needs a record, not a int",
        "4:27: error: unknown field: zz (in t)",
        "4:34: error: not a rec: `.q` needs a record, not a int",
        "4:45: error: undefined identifier: a (`r` has no member of that name in its spec)",
    ];
    errors_in_order(&d, &order);
}

#[test]
fn swap_errors_are_its_rules() {
    // swap_type (type_of_effect.rs): types, then slices, then variables
    let (d, c) = compile(concat!(
        "resource r()\n  int a[5]; int b[5]; string[5] s; int i; real x\n",
        "  (a[1:2]) :=: b\n  i :=: x\n  (i) :=: i\n  (s || s)[1:2] :=: s\nend\n"
    ));
    assert!(c.is_empty());
    errors_in_order(
        &d,
        &[
            "3:3: error: cannot swap into or out of a slice",
            "4:3: error: incompatible swap (cannot swap a int with a real)",
            "5:3: error: both sides of swap operator must be variables",
            "6:3: error: both sides of swap operator must be variables",
        ],
    );
}

#[test]
fn an_operand_the_rules_find_erroneous_gives_no_second_error() {
    // succ/pred of an undefined name: its translation gave a bool after the
    // error and the operator then reported a mismatch; the operator's rule
    // sees an erroneous operand and stays quiet (MPD 1.0.1: the one error)
    let (d, c) = compile(concat!(
        "resource r()\n  type color = enum(red, green, blue)\n",
        "  write(succ(cwf) == green, pred(undeclared_z) + 1)\nend\n"
    ));
    assert!(c.is_empty());
    errors_in_order(&d, &["3:14: error: undefined identifier: cwf", "3:34: error: undefined identifier: undeclared_z"]);
}

#[test]
fn assigning_what_is_no_value_is_the_rules_error() {
    // assign_type words it at the value, before the target is looked at
    let (d, c) = compile("resource r()\n  int c\n  c = abs\n  write(c = r, c = undeclared_u)\nend\n");
    assert!(c.is_empty());
    errors_in_order(
        &d,
        &[
            "3:7: error: incompatible assignment (abs is a predefined function: it can only be called)",
            "4:13: error: incompatible assignment (r names a component, not a value)",
            "4:20: error: undefined identifier: undeclared_u",
        ],
    );
}

#[test]
fn a_wrong_maxlength_is_reported_once() {
    // a real, string or bool maximum length: one message each, as MPD 1.0.1
    // gives (the bound's own evaluation used to report it a second time)
    for (len, shown) in [("2.5", "real"), ("\"ab\"", "string[2]"), ("true", "bool"), ("1.5 * 2", "real")] {
        let (d, c) = compile(&format!("resource r()\n  string[{}] s\nend\n", len));
        assert!(c.is_empty());
        assert_eq!(d.matches("error:").count(), 1, "{}", d);
        assert!(d.contains(&format!("maxlength is not an integer ({})", shown)), "{}", d);
    }
}

/// Checks `src` with the type audit on (type_audit.rs: every expression's
/// type_of, const_of and is_variable against its translation); returns all
/// the rendered diagnostics.
fn audited(src: &str) -> String {
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    diags.max_errors = 0;
    let f = syntax::parse_source(&mut map, "t.mpd", src, &mut diags);
    assert!(!diags.has_errors(), "{}", diags.render(&map));
    let mut ifaces: BTreeMap<String, Iface> = BTreeMap::new();
    let mut types = Types::default();
    let mut specs = HashMap::new();
    let opts = Opts { lines: true, audit_types: true, ..Opts::default() };
    check::check_files(&map, &[(f, "t.mpd".into())], &mut diags, &opts, &mut ifaces, &mut types, &mut specs);
    diags.render(&map)
}

#[test]
fn type_rules_agree_with_the_translation_for_every_expression_kind() {
    let d = audited(include_str!("type_audit/kinds.mpd"));
    // ub2(m) is there on purpose: its warning (MPD 1.0.1's) is the one message
    let w = "warning: ub2() changed to ub(,2)";
    assert!(d.matches("warning:").count() == 1 && d.contains(w) && !d.contains("error:"), "{}", d);
}

#[test]
fn type_rules_give_an_error_only_where_the_translation_reports_one() {
    let d = audited(include_str!("type_audit/errors.mpd"));
    assert!(d.contains("error"), "the program has errors:\n{}", d);
    assert!(!d.contains("disagree"), "{}", d);
}

#[test]
fn an_op_named_in_a_rejected_predefined_argument_is_still_referenced() {
    // the call is not translated after the argument's error; f's
    // capability still counts as a reference (MPD 1.0.1 reports only the
    // argument)
    let (d, _) = compile("resource a()\n  op f()\n  op g[2]()\n  seek(f, ABSOLUTE, 3)\n  close(g[1])\nend\n");
    assert!(d.contains("seek(), argument 1: not a file"), "{}", d);
    assert!(!d.contains("declared but not implemented"), "{}", d);
}

#[test]
fn an_undefined_parameter_type_is_the_only_message() {
    // `procedure p(x)` with x undefined: MPD 1.0.1 reports the name only; the
    // "unnamed parameter" warning is for a known type without a name
    let (d, c) = compile("resource r()\n  procedure p(colour) { skip }\nend\n");
    assert!(c.is_empty());
    assert!(d.contains("undefined identifier: colour"), "{}", d);
    assert!(!d.contains("unnamed parameter"), "{}", d);
    let (d, _) = compile("resource r()\n  type colour = int\n  procedure p(colour) { skip }\n  p(1)\nend\n");
    assert!(d.contains("warning: unnamed parameter is inaccessible"), "{}", d);
}

#[test]
fn invocation_errors_are_their_rules() {
    // call_type (type_of_call.rs) words a record constructor's item count
    // and a conversion's argument count, before the arguments, and a
    // conversion's pair and lb/ub's array after their argument (lb's
    // dimension is its handler's, before); once though write types its
    // arguments ahead
    let (d, c) = compile(concat!(
        "resource r()\n  type pt = rec(int x; real y)\n",
        "  write(undeclared_a, int(pt(1, undeclared_b)), int(pt(undeclared_c)))\n",
        "  pt q = pt(1, 2.0, 3)\n",
        "  write(real(undeclared_d, 1), bool(null), string(stdin), char(2.5) || \"x\")\n",
        "  int n, k[3]; write(lb(n, 0), lb(k + undeclared_f, 0), ub(q), lb(k, (2)))\nend\n"
    ));
    assert!(c.is_empty());
    errors_in_order(
        &d,
        &[
            "3:9: error: undefined identifier: undeclared_a",
            "3:33: error: undefined identifier: undeclared_b",
            "3:23: error: illegal conversion: cannot convert a pt to int",
            "3:53: error: wrong number of items for rec constructor (pt has 2 fields, not 1)",
            "4:10: error: wrong number of items for rec constructor (pt has 2 fields, not 3)",
            "5:9: error: illegal conversion: a conversion takes one argument",
            "5:32: error: illegal conversion: cannot convert null or noop to bool",
            "5:44: error: illegal conversion: cannot convert a file to a string",
            "6:28: error: lb(), argument 2: value must be greater than zero",
            "6:25: error: lb(), argument 1: not an array (int)",
            "6:53: error: lb(), argument 2: value must be greater than zero",
            "6:39: error: undefined identifier: undeclared_f",
            "6:60: error: ub(), argument 1: not an array (pt)",
            "6:67: error: lb(), argument 2: array does not have that many dimensions",
        ],
    );
}

#[test]
fn a_direct_calls_argument_count_is_its_rules() {
    // proc_call_type words it, reported before the arguments (whose own
    // errors are then not reached), once though write types it ahead
    let (d, c) = compile(concat!(
        "resource r()\n  procedure two(int a, int b) { skip }\n",
        "  write(undeclared_g, 1); two(1); two(undeclared_h)\n",
        "  two(1, 2, undeclared_i); write(two(1) + 1)\nend\n"
    ));
    assert!(c.is_empty());
    errors_in_order(
        &d,
        &[
            "3:9: error: undefined identifier: undeclared_g",
            "3:27: error: two(): not enough arguments (two takes 2, not 1)",
            "3:35: error: two(): not enough arguments (two takes 2, not 1)",
            "4:3: error: two(): too many arguments (two takes 2, not 3)",
            "4:34: error: two(): not enough arguments (two takes 2, not 1)",
        ],
    );
}
