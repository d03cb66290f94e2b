//! csp2sr: CSP (communicating sequential processes) in SR.
//!
//!   _program(p) _specs _process_spec(A) _port(A, o, (params)) ... _specs_end
//!   _process_body(A) ... _process_end ... _program_end
//!   _stmt_i(B, o, (vars)) / _stmt_o(B, o, (exprs)), quantified _stmt_iq1/2, _stmt_oq1/2
//!   _if / _do  guards: _guard(b), _guard_i(b, B, o, (vars)), _guard_o(b, B, o, (exprs)),
//!              quantified _guard_q1/2, _guard_iq1/2, _guard_oq1/2  (each followed by `-> stmts`)
//!   _fi / _od
//!
//! A program is an SR resource; each CSP process (or array of them) is an SR
//! process, numbered 1, 2, ... (a process name is a variable holding its
//! number). A port `o` of process A is an operation array indexed like A.
//!
//! Matching is done by a clearing house, the process `csp_house`. A process
//! about to communicate sends it its offers -- (partner, input or output,
//! port, arm, quantifier values) -- to the operation `csp_alt`, then
//! `csp_ready(me, count, answer)`, and receives on `answer` the partner
//! chosen (0: every partner has terminated). The house keeps the offers of
//! blocked processes in `csp_alt` itself; a new offer matches a blocked
//! process's complementary offer (same port, the two name each other, one
//! inputs and one outputs). Once matched, the outputter sends its values to
//! the inputter's port and the inputter receives them.
//!
//! Termination (-ti, the default: implicit): an offer naming a terminated
//! process is dropped; a process left with no offer is answered 0, which ends
//! an _if or _do and aborts a plain statement. With -te (explicit) offers are
//! kept: such a process waits for ever.
//!
//! An _if runs its guards twice: the first pass evaluates them (a true
//! boolean guard is chosen at once; I/O guards collect offers), the house
//! matches, and the second pass runs the chosen arm. Each guard closes the
//! previous arm and ends in `if true` so the programmer's `-> stmts` follows.

use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Default)]
struct State {
    /// process name -> its bounds (lo1, hi1, lo2, hi2) as SR text
    procs: HashMap<String, [String; 4]>,
    /// specs in order: (name, dimensions)
    order: Vec<(String, usize)>,
    /// port name -> (its process, its number)
    ports: HashMap<String, (String, usize)>,
    in_program: bool,
    in_specs: bool,
    in_process: bool,
    /// open _if / _do constructs: (number, is a _do)
    open: Vec<(usize, bool)>,
    count: usize,
}

struct Csp {
    implicit: bool,
    st: RefCell<State>,
}

/// The operations a communicating block needs (each block its own: SR
/// rejects an operation never received).
const OFFER_OPS: &str = "op csp_mine(with: int; out: bool; ty, arm, q1, q2: int); \
op csp_ans(with, arm, q1, q2: int)";

/// Hands this process's offers (in `csp_mine`) to the house and waits for
/// its answer into `csp_with{n}`, `csp_arm{n}`, `csp_q1{n}`, `csp_q2{n}`.
fn ask(n: &str) -> String {
    format!(
        "begin var csp_cnt := ?csp_mine; var csp_w, csp_t, csp_a, csp_x, csp_y: int; var csp_o: bool; \
         fa csp_k := 1 to csp_cnt -> receive csp_mine(csp_w, csp_o, csp_t, csp_a, csp_x, csp_y); \
         send csp_alt(csp_me, csp_w, csp_o, csp_t, csp_a, csp_x, csp_y) af; \
         send csp_ready(csp_me, csp_cnt, csp_ans); \
         receive csp_ans(csp_with{n}, csp_arm{n}, csp_q1{n}, csp_q2{n}) end",
        n = n
    )
}

/// Quantifier (v1, l1, u1, v2, l2, u2) of a macro, the unused ones `None`.
type Quant<'a> = [Option<(&'a str, &'a str, &'a str)>; 2];

fn q1(a: &[String]) -> Quant<'_> {
    [Some((a[0].as_str(), a[1].as_str(), a[2].as_str())), None]
}

fn fa_head(q: &Quant, guard: &str) -> Option<String> {
    let parts: Vec<String> = q.iter().flatten().map(|(v, l, u)| format!("{} := {} to {}", v, l, u)).collect();
    if parts.is_empty() {
        None
    } else {
        Some(format!("fa {} st {} ->", parts.join(", "), guard))
    }
}

/// `var v1 := csp_q1N; var v2 := csp_q2N` for the quantifier's variables.
fn bind(q: &Quant, n: &str) -> String {
    let mut s = String::new();
    for (k, v) in q.iter().enumerate() {
        if let Some((v, _, _)) = v {
            s.push_str(&format!("var {} := csp_q{}{}; ", v, k + 1, n));
        }
    }
    s
}

fn qvals(q: &Quant) -> (String, String) {
    let v = |k: usize| q[k].map(|(v, _, _)| v.to_string()).unwrap_or_else(|| "0".into());
    (v(0), v(1))
}

impl Csp {
    fn port<'a>(&self, st: &'a State, o: &str) -> Result<(usize, &'a [String; 4]), String> {
        let (p, ty) = st.ports.get(o).ok_or_else(|| format!("{} is not a port declared with _port", o))?;
        Ok((*ty, &st.procs[p]))
    }

    /// A plain input or output statement (with its quantifier).
    fn stmt(&self, st: &mut State, out: bool, q: Quant, pname: &str, o: &str, args: &str) -> Result<String, String> {
        if !st.in_process {
            return Err("communication outside a _process_body".into());
        }
        let (ty, _) = self.port(st, o)?;
        st.count += 1;
        let n = st.count.to_string();
        let (q1, q2) = qvals(&q);
        let offer = format!("send csp_mine({}, {}, {}, 1, {}, {})", pname, out, ty, q1, q2);
        let offers = match fa_head(&q, "true") {
            Some(h) => format!("{} {} af", h, offer),
            None => offer,
        };
        let xfer = transfer(out, o, &n, args);
        Ok(format!(
            "begin {ops}; var csp_with{n}, csp_arm{n}, csp_q1{n}, csp_q2{n}: int; {offers}; {ask}; \
             if csp_with{n} = 0 -> write(\"cannot match {what} stmt (user error)\", {lp}, {lo}, {la}); stop(1) fi; \
             {bind}{xfer} end",
            ops = OFFER_OPS,
            n = n,
            offers = offers,
            ask = ask(&n),
            what = if out { "output" } else { "input" },
            lp = literal(pname),
            lo = literal(o),
            la = literal(args),
            bind = bind(&q, &n),
            xfer = xfer
        ))
    }

    /// A guard of the innermost _if/_do: closes the previous arm, opens its own.
    fn guard(
        &self,
        st: &mut State,
        io: Option<bool>,
        q: Quant,
        g: &str,
        rest: Option<(&str, &str, &str)>,
    ) -> Result<String, String> {
        let n = match st.open.last() {
            Some((n, _)) => n.to_string(),
            None => return Err("a guard outside _if ... _fi or _do ... _od".into()),
        };
        let (q1, q2) = qvals(&q);
        let (first, second) = match (io, rest) {
            (Some(out), Some((pname, o, args))) => {
                let (ty, _) = self.port(st, o)?;
                let offer = format!("send csp_mine({}, {}, {}, csp_narm{}, {}, {})", pname, out, ty, n, q1, q2);
                let first = match fa_head(&q, g) {
                    Some(h) => format!("{} {} af", h, offer),
                    None => format!("if {} -> {} fi", g, offer),
                };
                (first, transfer(out, o, &n, args))
            }
            _ => {
                let chosen =
                    format!("csp_arm{n} := csp_narm{n}; csp_q1{n} := {q1}; csp_q2{n} := {q2}", n = n, q1 = q1, q2 = q2);
                let first = match fa_head(&q, g) {
                    Some(h) => format!("{} {}; exit af", h, chosen),
                    None => format!("if {} -> {} fi", g, chosen),
                };
                (first, "skip".to_string())
            }
        };
        Ok(format!(
            "fi fi; csp_narm{n}++; \
             if csp_pass{n} = 1 & csp_arm{n} = 0 -> {first} \
             [] csp_pass{n} = 2 & csp_arm{n} = csp_narm{n} -> {bind}{second}; if true",
            n = n,
            first = first,
            bind = bind(&q, &n),
            second = second
        ))
    }

    fn open(&self, st: &mut State, is_do: bool) -> Result<String, String> {
        if !st.in_process {
            return Err(format!("{} outside a _process_body", if is_do { "_do" } else { "_if" }));
        }
        st.count += 1;
        let n = st.count;
        st.open.push((n, is_do));
        Ok(format!(
            "{lp}begin {ops}; var csp_with{n}, csp_q1{n}, csp_q2{n}: int; var csp_o{n}: bool; var csp_arm{n} := 0, csp_narm{n} := 0; \
             fa csp_pass{n} := 1 to 2 -> csp_narm{n} := 0; if false -> if false -> skip",
            lp = if is_do { "do true -> " } else { "" },
            ops = OFFER_OPS,
            n = n
        ))
    }

    fn close(&self, st: &mut State, is_do: bool) -> Result<String, String> {
        let (n, was_do) = st.open.pop().ok_or_else(|| {
            format!("{} without {}", if is_do { "_od" } else { "_fi" }, if is_do { "_do" } else { "_if" })
        })?;
        if was_do != is_do {
            return Err(format!(
                "{} closes {}",
                if is_do { "_od" } else { "_fi" },
                if was_do { "a _do" } else { "an _if" }
            ));
        }
        let n = n.to_string();
        // pass 1 chose nothing: the house matches the offers, if any; a true
        // boolean guard's leftover offers are dropped
        Ok(format!(
            "fi fi; \
             if csp_pass{n} = 1 & csp_arm{n} = 0 & ?csp_mine > 0 -> {ask} \
             [] csp_pass{n} = 1 -> var csp_cm{n} := ?csp_mine; fa csp_k := 1 to csp_cm{n} -> receive csp_mine(csp_with{n}, csp_o{n}, csp_q1{n}, csp_q1{n}, csp_q1{n}, csp_q1{n}) af fi; \
             if csp_arm{n} = 0 -> exit fi af; {end}",
            n = n,
            ask = ask(&n),
            end = if is_do { format!("if csp_arm{} = 0 -> exit fi end od", n) } else { "end".into() }
        ))
    }

    /// The SR text of macro `name` with arguments `a` ("" at the end of the text): None
    /// when it is no CSP macro, Err with a message when it is misused.
    fn expand(&self, name: &str, a: Option<&[String]>) -> Option<Result<String, String>> {
        let mut st = self.st.borrow_mut();
        let st = &mut *st;
        let args = |n: usize| -> Result<&[String], String> {
            match a {
                Some(a) if a.len() == n => Ok(a),
                Some(a) => Err(format!("{} takes {} argument(s), not {}", name, n, a.len())),
                None => Err(format!("{} needs its argument(s) in parentheses", name)),
            }
        };
        let bare = |st: &State| a.is_none() && (st.in_program || name == "_program_end");
        let r = match name {
            "" => return at_end(st),
            "_program" => args(1).and_then(|a| {
                if st.in_program {
                    return Err("_program inside a _program".into());
                }
                *st = State { in_program: true, ..State::default() };
                Ok(format!(
                    "resource {}(); const csp_implicit := {}; \
                     op csp_alt(who, with: int; out: bool; ty, arm, q1, q2: int); \
                     op csp_ready(who, n: int; answer: cap (with, arm, q1, q2: int)); op csp_die(who: int)",
                    a[0], self.implicit
                ))
            }),
            "_program_end" if bare(st) => {
                if !st.in_program || st.in_process || st.in_specs {
                    Err("_program_end without _program, or inside _specs or a process".into())
                } else {
                    st.in_program = false;
                    Ok(format!("{}; end", HOUSE))
                }
            }
            "_specs" if bare(st) => {
                st.in_specs = true;
                Ok("var csp_np := 1".into())
            }
            "_specs_end" if bare(st) => specs_end(st),
            "_dump_pidx" if bare(st) => {
                Ok("fa csp_i := 1 to csp_np-1 -> write(csp_i, csp_ix1[csp_i], csp_ix2[csp_i]) af".into())
            }
            "_process_spec" | "_process_spec1" | "_process_spec2" => {
                let dims = match name {
                    "_process_spec" => 0,
                    "_process_spec1" => 1,
                    _ => 2,
                };
                args(1 + 2 * dims).and_then(|a| process_spec(st, name, dims, a))
            }
            "_port" => args(3).and_then(|a| {
                if !st.in_specs {
                    return Err("_port outside _specs ... _specs_end".into());
                }
                let b = st
                    .procs
                    .get(&a[0])
                    .ok_or_else(|| format!("_port of {}, which no _process_spec declares", a[0]))?
                    .clone();
                let ty = st.ports.len() + 1;
                if st.ports.insert(a[1].clone(), (a[0].clone(), ty)).is_some() {
                    return Err(format!("port {} declared twice (port names are global)", a[1]));
                }
                Ok(format!("op {}[{}:{}, {}:{}] {}", a[1], b[0], b[1], b[2], b[3], a[2]))
            }),
            "_process_body" | "_process_body1" | "_process_body2" => {
                let dims = match name {
                    "_process_body" => 0,
                    "_process_body1" => 1,
                    _ => 2,
                };
                args(1 + dims).and_then(|a| process_body(st, name, dims, a))
            }
            "_process_end" if bare(st) => process_end(st),
            "_stmt_i" | "_stmt_o" => {
                args(3).and_then(|a| self.stmt(st, name == "_stmt_o", [None, None], &a[0], &a[1], &a[2]))
            }
            "_stmt_iq1" | "_stmt_oq1" => {
                args(6).and_then(|a| self.stmt(st, name == "_stmt_oq1", q1(a), &a[3], &a[4], &a[5]))
            }
            "_stmt_iq2" | "_stmt_oq2" => args(9).and_then(|a| {
                let q = [
                    Some((a[0].as_str(), a[1].as_str(), a[2].as_str())),
                    Some((a[3].as_str(), a[4].as_str(), a[5].as_str())),
                ];
                self.stmt(st, name == "_stmt_oq2", q, &a[6], &a[7], &a[8])
            }),
            "_if" if bare(st) => self.open(st, false),
            "_do" if bare(st) => self.open(st, true),
            "_fi" if bare(st) => self.close(st, false),
            "_od" if bare(st) => self.close(st, true),
            "_guard" => args(1).and_then(|a| self.guard(st, None, [None, None], &a[0], None)),
            "_guard_q1" => args(4).and_then(|a| self.guard(st, None, q1(a), &a[3], None)),
            "_guard_q2" => args(7).and_then(|a| {
                let q = [
                    Some((a[0].as_str(), a[1].as_str(), a[2].as_str())),
                    Some((a[3].as_str(), a[4].as_str(), a[5].as_str())),
                ];
                self.guard(st, None, q, &a[6], None)
            }),
            "_guard_i" | "_guard_o" => args(4).and_then(|a| {
                self.guard(st, Some(name == "_guard_o"), [None, None], &a[0], Some((&a[1], &a[2], &a[3])))
            }),
            "_guard_iq1" | "_guard_oq1" => args(7)
                .and_then(|a| self.guard(st, Some(name == "_guard_oq1"), q1(a), &a[3], Some((&a[4], &a[5], &a[6])))),
            "_guard_iq2" | "_guard_oq2" => args(10).and_then(|a| {
                let q = [
                    Some((a[0].as_str(), a[1].as_str(), a[2].as_str())),
                    Some((a[3].as_str(), a[4].as_str(), a[5].as_str())),
                ];
                self.guard(st, Some(name == "_guard_oq2"), q, &a[6], Some((&a[7], &a[8], &a[9])))
            }),
            _ => return None,
        };
        Some(r)
    }
}

/// The end of the text: an error if an _if/_do, a process or the program is still open.
fn at_end(st: &State) -> Option<Result<String, String>> {
    if let Some((_, is_do)) = st.open.last() {
        Some(Err(format!(
            "{} is not closed by {}",
            if *is_do { "a _do" } else { "an _if" },
            if *is_do { "_od" } else { "_fi" }
        )))
    } else if st.in_process {
        Some(Err("a process body is not closed by _process_end".into()))
    } else if st.in_program {
        Some(Err("the program is not closed by _program_end".into()))
    } else {
        None
    }
}

/// `_specs_end`: the arrays giving each process's subscripts (to find its ports).
fn specs_end(st: &mut State) -> Result<String, String> {
    if !st.in_specs {
        return Err("_specs_end without _specs".into());
    }
    st.in_specs = false;
    // each process's subscripts, to find its ports
    let mut s = "var csp_ix1[1:csp_np-1], csp_ix2[1:csp_np-1]: int".to_string();
    for (p, dims) in &st.order {
        let b = &st.procs[p];
        let (el, i2) = match dims {
            0 => (p.clone(), "1"),
            1 => (format!("{}[csp_i]", p), "1"),
            _ => (format!("{}[csp_i, csp_j]", p), "csp_j"),
        };
        s.push_str(&format!(
            "; fa csp_i := {} to {}, csp_j := {} to {} -> csp_ix1[{el}] := csp_i; csp_ix2[{el}] := {i2} af",
            b[0],
            b[1],
            b[2],
            b[3],
            el = el,
            i2 = i2
        ));
    }
    Ok(s)
}

/// `_process_spec[12](p, bounds)`: process p's number(s), in an int or an array of them.
fn process_spec(st: &mut State, name: &str, dims: usize, a: &[String]) -> Result<String, String> {
    if !st.in_specs {
        return Err(format!("{} outside _specs ... _specs_end", name));
    }
    let p = a[0].clone();
    let one = || "1".to_string();
    let b = match dims {
        0 => [one(), one(), one(), one()],
        1 => [a[1].clone(), a[2].clone(), one(), one()],
        _ => [a[1].clone(), a[2].clone(), a[3].clone(), a[4].clone()],
    };
    let decl = match dims {
        0 => format!("var {p} := csp_np; csp_np++", p = p),
        1 => format!(
            "var {p}[{}:{}]: int; fa csp_i := lb({p}) to ub({p}) -> {p}[csp_i] := csp_np; csp_np++ af",
            b[0],
            b[1],
            p = p
        ),
        _ => format!(
            "var {p}[{}:{}, {}:{}]: int; fa csp_i := lb({p}) to ub({p}), csp_j := lb({p}, 2) to ub({p}, 2) -> \
             {p}[csp_i, csp_j] := csp_np; csp_np++ af",
            b[0],
            b[1],
            b[2],
            b[3],
            p = p
        ),
    };
    if st.procs.insert(p.clone(), b).is_some() {
        return Err(format!("process {} specified twice", p));
    }
    st.order.push((p, dims));
    Ok(decl)
}

/// `_process_body[12](p, vars)`: the process, its quantifier variables and csp_me.
fn process_body(st: &mut State, name: &str, dims: usize, a: &[String]) -> Result<String, String> {
    if st.in_process || st.in_specs || !st.in_program {
        return Err(format!("{} outside a _program, or inside _specs or another process", name));
    }
    let b = st.procs.get(&a[0]).ok_or_else(|| format!("{}({}) without _process_spec", name, a[0]))?;
    st.in_process = true;
    Ok(match dims {
        0 => format!("process csp_{p}; var csp_me := {p}", p = a[0]),
        1 => format!("process csp_{p}({v} := {} to {}); var csp_me := {p}[{v}]", b[0], b[1], p = a[0], v = a[1]),
        _ => format!(
            "process csp_{p}({v} := {} to {}, {w} := {} to {}); var csp_me := {p}[{v}, {w}]",
            b[0],
            b[1],
            b[2],
            b[3],
            p = a[0],
            v = a[1],
            w = a[2]
        ),
    })
}

/// `_process_end`: the process tells the house it is done.
fn process_end(st: &mut State) -> Result<String, String> {
    if !st.in_process || !st.open.is_empty() {
        return Err("_process_end without _process_body, or with an _if/_do open".into());
    }
    st.in_process = false;
    Ok("send csp_die(csp_me) end".into())
}

/// `text` as an SR string literal, its blanks squeezed (for messages).
fn literal(text: &str) -> String {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\""))
}

/// After a match: the outputter sends to the inputter's port, the inputter
/// receives from its own.
fn transfer(out: bool, o: &str, n: &str, args: &str) -> String {
    if out {
        format!("send {o}[csp_ix1[csp_with{n}], csp_ix2[csp_with{n}]] {args}", o = o, n = n, args = args)
    } else {
        format!("receive {o}[csp_ix1[csp_me], csp_ix2[csp_me]] {args}", o = o, args = args)
    }
}

/// The clearing house (see the module comment). `state`: 0 running, 1 blocked
/// (its offers wait in csp_alt), 2 terminated; it stops when no process runs.
/// csp_alt may also hold the offers of a process whose csp_ready is still on
/// its way: only a blocked process's offers are matched.
const HOUSE: &str = "process csp_house; \
var np := csp_np - 1; var active := np; \
var state[1:np]: int := ([np] 0); var nalt[1:np]: int := ([np] 0); \
var answer[1:np]: cap (with, arm, q1, q2: int); \
var w, wi, t, a, x, y: int; var o: bool; \
do active > 0 -> \
in csp_ready(who, n, c) -> \
  answer[who] := c; \
  var mw[1:n], mt[1:n], ma[1:n], mx[1:n], my[1:n]: int; var mo[1:n]: bool; var m := 0; \
  var csp_na1 := ?csp_alt; fa k := 1 to csp_na1 -> receive csp_alt(w, wi, o, t, a, x, y); \
    if w = who -> var dead := wi < 1 or wi > np; if not dead -> dead := csp_implicit & state[wi] = 2 fi; \
      if not dead -> m++; mw[m] := wi; mo[m] := o; mt[m] := t; ma[m] := a; mx[m] := x; my[m] := y fi \
    [] else -> send csp_alt(w, wi, o, t, a, x, y) fi af; \
  var partner := 0, pa, px, py, mine: int; \
  var csp_na2 := ?csp_alt; fa k := 1 to csp_na2 -> receive csp_alt(w, wi, o, t, a, x, y); \
    if partner = 0 & wi = who & state[w] = 1 -> \
      fa j := 1 to m st mw[j] = w & mo[j] != o & mt[j] = t -> partner := w; pa := a; px := x; py := y; mine := j; exit af fi; \
    send csp_alt(w, wi, o, t, a, x, y) af; \
  if partner != 0 -> \
    var csp_na3 := ?csp_alt; fa k := 1 to csp_na3 -> receive csp_alt(w, wi, o, t, a, x, y); if w != partner -> send csp_alt(w, wi, o, t, a, x, y) fi af; \
    state[partner] := 0; nalt[partner] := 0; active++; \
    send answer[partner](who, pa, px, py); send c(partner, ma[mine], mx[mine], my[mine]) \
  [] m = 0 -> send c(0, 0, 0, 0) \
  [] else -> \
    fa k := 1 to m -> send csp_alt(who, mw[k], mo[k], mt[k], ma[k], mx[k], my[k]) af; \
    state[who] := 1; nalt[who] := m; active-- \
  fi \
[] csp_die(who) -> \
  state[who] := 2; active--; \
  if csp_implicit -> \
    var csp_na4 := ?csp_alt; fa k := 1 to csp_na4 -> receive csp_alt(w, wi, o, t, a, x, y); \
      if wi = who -> nalt[w]-- [] else -> send csp_alt(w, wi, o, t, a, x, y) fi af; \
    fa k := 1 to np st state[k] = 1 & nalt[k] = 0 -> state[k] := 0; active++; send answer[k](0, 0, 0, 0) af \
  fi \
ni \
od \
end";

/// Entry point of the `csp2sr` binary.
pub fn csp2sr_main() -> i32 {
    super::tool_main("csp2sr", ".csp", &["-ti", "-te"], &|opt| {
        let c = Csp { implicit: opt != "-te", st: RefCell::new(State::default()) };
        Box::new(move |n: &str, a: Option<&[String]>| c.expand(n, a))
    })
}
