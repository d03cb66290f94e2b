//! ccr2sr: conditional critical regions in SR.
//!
//!   _resource(r) vars... _resource_end(r)          shared variables of r (a global)
//!   _region(r, B) stmts... _region_end(r)          run stmts alone in r, once B holds
//!   _resource1(r, l1, u1) / _region1(r, i, B) / _region_end1(r, i)
//!   _resource2(r, l1, u1, l2, u2) / _region2(r, i, j, B) / _region_end2(r, i, j)
//!                                                  arrays of resources, one lock each
//!
//! Each resource r is a global holding its variables, a lock `ccr_mx_r` (a
//! semaphore at 1), a delay semaphore `ccr_dl_r` and the count of processes
//! delayed `ccr_nd_r`. Entering a region takes the lock and tests B; while B
//! is false the process counts itself delayed, gives the lock back and waits on
//! the delay semaphore. Leaving a region wakes every delayed process (each
//! takes the lock again and re-tests its own condition: the region's exit may
//! have made any of them true) and gives the lock back. Semaphores count, so a
//! wake-up given before its waiter reaches P is not lost.

/// Subscript text for `n` indices taken from `args` (`[i]`, `[i, j]`).
fn subs(idx: &[String]) -> String {
    if idx.is_empty() {
        String::new()
    } else {
        format!("[{}]", idx.join(", "))
    }
}

/// Declarations of resource `name` with bounds `b` (pairs lo, hi).
fn resource(name: &str, b: &[String]) -> String {
    if b.is_empty() {
        return format!("global {n}; sem ccr_mx_{n} := 1; sem ccr_dl_{n} := 0; var ccr_nd_{n} := 0;", n = name);
    }
    let dims: Vec<String> = b.chunks(2).map(|p| format!("{}:{}", p[0], p[1])).collect();
    // ([n1] ([n2] v)): one initial value per element
    let fill = |v: &str| b.chunks(2).rev().fold(v.to_string(), |acc, p| format!("([({})-({})+1] {})", p[1], p[0], acc));
    format!(
        "global {n}; sem ccr_mx_{n}[{d}] := {one}; sem ccr_dl_{n}[{d}] := {zero}; var ccr_nd_{n}[{d}] := {zero};",
        n = name,
        d = dims.join(", "),
        one = fill("1"),
        zero = fill("0")
    )
}

fn region(name: &str, idx: &[String], cond: &str) -> String {
    let s = subs(idx);
    format!(
        "begin; import {n}; P(ccr_mx_{n}{s}); \
         do not ({c}) -> ccr_nd_{n}{s}++; V(ccr_mx_{n}{s}); P(ccr_dl_{n}{s}); P(ccr_mx_{n}{s}) od;",
        n = name,
        s = s,
        c = cond
    )
}

fn region_end(name: &str, idx: &[String]) -> String {
    let s = subs(idx);
    format!(
        "fa ccr_k := 1 to ccr_nd_{n}{s} -> V(ccr_dl_{n}{s}) af; ccr_nd_{n}{s} := 0; V(ccr_mx_{n}{s}); end;",
        n = name,
        s = s
    )
}

/// The expansion of one ccr2sr macro call, `None` for other names.
pub fn expand_call(name: &str, a: Option<&[String]>) -> Option<Result<String, String>> {
    let a = a?;
    let want = |n: usize| -> Result<(), String> {
        if a.len() == n {
            Ok(())
        } else {
            Err(format!("{} takes {} arguments, not {}", name, n, a.len()))
        }
    };
    let r = match name {
        "_resource" => want(1).map(|_| resource(&a[0], &[])),
        "_resource1" => want(3).map(|_| resource(&a[0], &a[1..3])),
        "_resource2" => want(5).map(|_| resource(&a[0], &a[1..5])),
        "_resource_end" | "_resource_end1" | "_resource_end2" => want(1).map(|_| format!("end {}", a[0])),
        "_region" => want(2).map(|_| region(&a[0], &[], &a[1])),
        "_region1" => want(3).map(|_| region(&a[0], &a[1..2], &a[2])),
        "_region2" => want(4).map(|_| region(&a[0], &a[1..3], &a[3])),
        "_region_end" => want(1).map(|_| region_end(&a[0], &[])),
        "_region_end1" => want(2).map(|_| region_end(&a[0], &a[1..2])),
        "_region_end2" => want(3).map(|_| region_end(&a[0], &a[1..3])),
        _ => return None,
    };
    Some(r)
}

/// Entry point of the `ccr2sr` binary.
pub fn ccr2sr_main() -> i32 {
    super::tool_main("ccr2sr", ".ccr", &[], &|_| Box::new(expand_call))
}
