//! m2sr: monitors in SR.
//!
//!   _monitor(m) ops... _body(m) decls, _condvar(c), _proc(h) ... _proc_end ... _monitor_end
//!   _condvar(c) / _condvar1(c, range) / _condvar2(c, range, range)
//!   _wait(c), _pri_wait(c, rank), _signal(c), _signal_all(c) (SC only),
//!   _empty(c), _minrank(c), _print(c)
//!
//! A monitor is an SR global. Its lock is a semaphore `m_mx`; each `_proc`
//! takes it on entry and gives it back at `_proc_end`. A condition variable is
//! a record of capabilities for the operations of its own server: a process of
//! the global's proc `m_cv_new`, which replies the record and then serves the
//! variable for ever. Its queue is the operation `m_w(rank, go)`: a waiter
//! sends its rank and a capability for an operation `m_go` of its own, gives
//! the lock away and receives `m_go`. Signalling takes the waiter of least
//! rank (the earliest of equal ranks) and sends to its `m_go`. Inspecting the
//! queue (`_minrank`, `_print`) receives every entry and sends it back in
//! order, which keeps the queue's order. Only lock holders call the server,
//! so its answers are the monitor's state.
//!
//! The signalling disciplines differ in who holds the lock after a signal:
//!   SC (default) the signaller keeps it; the woken process takes it again.
//!   SW  the woken process gets it; the signaller waits to take it again.
//!   SU  the woken process gets it; the signaller waits on the urgent
//!       semaphore `m_urg`, which a leaving process serves before `m_mx`.
//!   SX  the woken process gets it; the signaller leaves its procedure.

use std::cell::RefCell;

#[derive(Clone, Copy, PartialEq)]
pub enum Discipline {
    SC,
    SW,
    SU,
    SX,
}

/// Where the expansion is: inside a monitor's body, inside one of its procs.
#[derive(Default)]
struct State {
    monitor: Option<String>,
    in_body: bool,
    in_proc: bool,
}

struct Monitors {
    disc: Discipline,
    st: RefCell<State>,
}

/// Giving the lock away: SU serves a signaller waiting on `m_urg` first.
fn leave(d: Discipline) -> &'static str {
    match d {
        Discipline::SU => "if m_nurg > 0 -> m_nurg--; V(m_urg) [] else -> V(m_mx) fi",
        _ => "V(m_mx)",
    }
}

/// The declarations opening a monitor's body. SR rejects a semaphore never
/// P'd, so the body uses both once (a monitor may have no procs, and only SU
/// uses `m_urg`), leaving their values as they were.
const BODY_DECLS: &str = "type m_cv = rec(m_wait: cap (rank: int; go: cap ()); \
m_signal: cap () returns woke: bool; m_signal_all: cap (); m_empty: cap () returns e: bool; \
m_minrank: cap () returns r: int; m_print: cap ()); \
op m_cv_new(nm: string[*]) returns c: m_cv; sem m_mx := 1; sem m_urg := 0; var m_nurg := 0; \
P(m_mx); V(m_mx); V(m_urg); P(m_urg)";

/// The server of one condition variable (see the module comment).
const CV_SERVER: &str = "proc m_cv_new(nm) returns c; \
op m_w(rank: int; go: cap ()), m_s() returns woke: bool, m_sa(), m_e() returns e: bool, \
m_mr() returns r: int, m_pr(); \
c.m_wait := m_w; c.m_signal := m_s; c.m_signal_all := m_sa; c.m_empty := m_e; \
c.m_minrank := m_mr; c.m_print := m_pr; reply; \
do true -> \
in m_s() returns woke -> woke := ?m_w > 0; \
if woke -> in m_w(m_r, m_g) by m_r -> send m_g() ni fi \
[] m_sa() -> var m_c := ?m_w; fa m_k := 1 to m_c -> in m_w(m_r, m_g) by m_r -> send m_g() ni af \
[] m_e() returns e -> e := ?m_w = 0 \
[] m_mr() returns r -> var m_n := ?m_w; var m_r: int; var m_g: cap (); \
if m_n = 0 -> write(\"\\t**** minrank called on empty Q ****\"); r := 999999 fi; \
fa m_k := 1 to m_n -> receive m_w(m_r, m_g); if m_k = 1 or m_r < r -> r := m_r fi; send m_w(m_r, m_g) af \
[] m_pr() -> var m_n := ?m_w; var m_g: cap (); \
writes(\"\\t**** Printing for \", nm, \" **** \", m_n, \" waiting process(es)\"); \
if m_n > 0 -> var m_rs[1:m_n]: int; \
fa m_k := 1 to m_n -> receive m_w(m_rs[m_k], m_g); send m_w(m_rs[m_k], m_g) af; \
fa m_k := 2 to m_n, m_j := m_k downto 2 st m_rs[m_j] < m_rs[m_j-1] -> m_rs[m_j] :=: m_rs[m_j-1] af; \
if m_rs[1] = m_rs[m_n] -> writes(\", all with rank \", m_rs[1]) \
[] else -> write(\", with ranks:\"); fa m_k := 1 to m_n -> writes(\" \", m_rs[m_k]) af fi \
fi; write(); flush(stdout) \
ni \
od \
end";

impl Monitors {
    fn expand(&self, name: &str, a: Option<&[String]>) -> Option<Result<String, String>> {
        let d = self.disc;
        let mut st = self.st.borrow_mut();
        let want = |n: usize| -> Result<&[String], String> {
            match a {
                Some(a) if a.len() == n => Ok(a),
                Some(a) => Err(format!("{} takes {} argument(s), not {}", name, n, a.len())),
                None => Err(format!("{} needs its argument(s) in parentheses", name)),
            }
        };
        let in_proc = |st: &State| -> Result<(), String> {
            if st.in_proc {
                Ok(())
            } else {
                Err(format!("{} is only allowed inside a monitor procedure (_proc ... _proc_end)", name))
            }
        };
        let in_body = |st: &State| -> Result<(), String> {
            if st.in_body {
                Ok(())
            } else {
                Err(format!("{} is only allowed inside a monitor's body", name))
            }
        };
        let r = match name {
            "" => match &st.monitor {
                Some(m) if st.in_proc => Err(format!("a procedure of monitor {} is not closed by _proc_end", m)),
                Some(m) => Err(format!("monitor {} is not closed by _monitor_end", m)),
                None => return None,
            },
            "_monitor" => want(1).and_then(|a| {
                if let Some(m) = &st.monitor {
                    return Err(format!("_monitor({}) inside monitor {} (missing _monitor_end)", a[0], m));
                }
                st.monitor = Some(a[0].clone());
                Ok(format!("global {}", a[0]))
            }),
            "_body" => want(1).and_then(|a| match &st.monitor {
                Some(m) if *m == a[0] && !st.in_body => {
                    st.in_body = true;
                    Ok(format!("body {}; {}", a[0], BODY_DECLS))
                }
                Some(m) if *m != a[0] => Err(format!("_body({}) in monitor {}", a[0], m)),
                Some(_) => Err("a second _body in one monitor".to_string()),
                None => Err(format!("_body({}) without _monitor({})", a[0], a[0])),
            }),
            "_monitor_end" => {
                if a.is_some() {
                    return None;
                }
                if !st.in_body {
                    Err("_monitor_end without _monitor(name) ... _body(name)".to_string())
                } else if st.in_proc {
                    Err("_monitor_end inside a procedure (missing _proc_end)".to_string())
                } else {
                    *st = State::default();
                    Ok(format!("{}; end", CV_SERVER))
                }
            }
            "_condvar" | "_condvar1" | "_condvar2" => {
                let dims = match name {
                    "_condvar" => 0,
                    "_condvar1" => 1,
                    _ => 2,
                };
                want(dims + 1).and_then(|a| {
                    if !st.in_body {
                        return Err(format!("{} outside a monitor's body", name));
                    }
                    Ok(condvar(&a[0], &a[1..]))
                })
            }
            "_proc" => want(1).and_then(|a| {
                if !st.in_body || st.in_proc {
                    return Err("_proc outside a monitor's body, or inside another _proc".to_string());
                }
                st.in_proc = true;
                Ok(format!("proc {}; P(m_mx)", a[0]))
            }),
            "_proc_end" => {
                if a.is_some() {
                    return None;
                }
                in_proc(&st).map(|_| {
                    st.in_proc = false;
                    format!("{}; end", leave(d))
                })
            }
            "_wait" => want(1).and_then(|a| in_proc(&st).map(|_| wait(d, &a[0], "0"))),
            "_pri_wait" => want(2).and_then(|a| in_proc(&st).map(|_| wait(d, &a[0], &a[1]))),
            "_signal" => want(1).and_then(|a| in_proc(&st).map(|_| signal(d, &a[0]))),
            "_signal_all" => want(1).and_then(|a| {
                in_proc(&st)?;
                if d != Discipline::SC {
                    return Err("_signal_all is only defined for the signal and continue discipline (-sc)".to_string());
                }
                Ok(format!("{}.m_signal_all()", a[0]))
            }),
            "_empty" => want(1).and_then(|a| in_body(&st).map(|_| format!("{}.m_empty()", a[0]))),
            "_minrank" => want(1).and_then(|a| in_body(&st).map(|_| format!("{}.m_minrank()", a[0]))),
            "_print" => want(1).and_then(|a| in_body(&st).map(|_| format!("{}.m_print()", a[0]))),
            _ => return None,
        };
        Some(r)
    }
}

/// `_condvar`: one variable, or an array whose elements are named with their
/// subscripts ("scan[0]", "foo[2,7]") for `_print`.
fn condvar(x: &str, ranges: &[String]) -> String {
    match ranges.len() {
        0 => format!("var {x}: m_cv; {x} := m_cv_new(\"{x}\")", x = x),
        1 => format!(
            "var {x}[{r}]: m_cv; fa m_i := lb({x}) to ub({x}) -> var m_s: string[24]; \
             sprintf(m_s, \"[%d]\", int(m_i)); {x}[m_i] := m_cv_new(\"{x}\" || m_s) af",
            x = x,
            r = ranges[0]
        ),
        _ => format!(
            "var {x}[{r}, {t}]: m_cv; fa m_i := lb({x}) to ub({x}), m_j := lb({x}, 2) to ub({x}, 2) -> \
             var m_s: string[48]; sprintf(m_s, \"[%d,%d]\", int(m_i), int(m_j)); \
             {x}[m_i, m_j] := m_cv_new(\"{x}\" || m_s) af",
            x = x,
            r = ranges[0],
            t = ranges[1]
        ),
    }
}

fn wait(d: Discipline, cv: &str, rank: &str) -> String {
    // a block of its own: SR rejects an operation declared and never received
    let enqueue = format!("begin op m_go(); send {}.m_wait({}, m_go); {}; receive m_go()", cv, rank, leave(d));
    match d {
        // the woken process competes for the lock again
        Discipline::SC => format!("{}; P(m_mx) end", enqueue),
        // the signaller handed the lock over
        _ => format!("{} end", enqueue),
    }
}

fn signal(d: Discipline, cv: &str) -> String {
    match d {
        Discipline::SC => format!("if {}.m_signal() -> skip fi", cv),
        Discipline::SW => format!("if {}.m_signal() -> P(m_mx) fi", cv),
        // counted before the signal: the woken process may leave before we block
        Discipline::SU => format!("m_nurg++; if {}.m_signal() -> P(m_urg) [] else -> m_nurg-- fi", cv),
        Discipline::SX => format!("if true -> if not {}.m_signal() -> V(m_mx) fi; return fi", cv),
    }
}

/// Entry point of the `m2sr` binary.
pub fn m2sr_main() -> i32 {
    super::tool_main("m2sr", ".m", &["-sc", "-sw", "-su", "-sx"], &|opt| {
        let disc = match opt {
            "-sw" => Discipline::SW,
            "-su" => Discipline::SU,
            "-sx" => Discipline::SX,
            _ => Discipline::SC,
        };
        let m = Monitors { disc, st: RefCell::new(State::default()) };
        Box::new(move |n: &str, a: Option<&[String]>| m.expand(n, a))
    })
}
