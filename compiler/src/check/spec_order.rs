//! Declaration order of specs in an import cycle (MPD 1.0.1's rule).
//!
//! MPD 1.0.1 compiles a component by reading its spec with every `import`
//! replaced by the imported spec, recursively, where it stands; a component
//! already being read is skipped (that ends the cycle).  Names are then
//! resolved in that one text, in order.  So in a cycle `a` <-> `b`, a name of
//! `a` used in `b`'s spec (a constant, a bound, an op's type) is undefined
//! when `a` is compiled unless `a` declared it before its `import b`.  Every
//! component of a run is compiled, so a spec may use a name of a partner only
//! if that holds for each compilation; otherwise "undefined identifier".
//! (Without this rule constants defined in terms of each other, `x = y + 3`
//! and `y = x - 2`, had no value at all.)
//!
//! The checker records, per component, what its spec items declare and which
//! names of imported components they use ([`SpecOrder`]); [`check`] replays
//! MPD's reading order over those records for the component being compiled.
use super::Iface;
use crate::syntax::ast::Span;
use crate::syntax::Diagnostics;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What the top-level items of one spec declare and use, by item index.
#[derive(Clone, Debug, Default)]
pub struct SpecOrder {
    /// Span of each spec item (where an error is reported).
    pub items: Vec<Span>,
    /// Components imported (or extended) by each item.
    pub imports: Vec<(usize, Vec<String>)>,
    /// The item declaring each exported name.
    pub decls: HashMap<String, usize>,
    /// Names of imported components used by an item: (item, component, name,
    /// written qualified `component.name`).
    pub uses: Vec<(usize, String, String, bool)>,
}

/// Replays MPD 1.0.1's reading of `root`'s spec with the imported specs in
/// place, then of the specs its body imports (`body_imports`, in order), and
/// reports each use of a name that comes before its declaration.
pub fn check(root: &str, body_imports: &[String], ifaces: &BTreeMap<String, Iface>, diags: &mut Diagnostics) {
    let mut r = Replay { ifaces, declared: HashSet::new(), open: Vec::new(), seen: HashSet::new(), errs: Vec::new() };
    r.seen.insert(root.to_string());
    r.read(root);
    for n in body_imports {
        if r.seen.insert(n.clone()) {
            r.read(n);
        }
    }
    for (span, name, inner, qualified) in r.errs {
        // MPD 1.0.1's words: a qualified name is found but has no meaning yet
        let what = if qualified { "forward reference in recursive import" } else { "undefined identifier" };
        diags.error(
            span,
            format!(
                "{}: {} (in the spec of {}, imported by {}: in an import cycle a spec sees only the names declared before the `import` that reads it, as in MPD 1.0.1)",
                what, name, inner, root
            ),
        );
    }
}

struct Replay<'a> {
    ifaces: &'a BTreeMap<String, Iface>,
    /// (component, name) declared so far in the reading.
    declared: HashSet<(String, String)>,
    /// Components whose spec is being read (outermost first).
    open: Vec<String>,
    /// Components already read or being read (an import of one is skipped).
    seen: HashSet<String>,
    errs: Vec<(Span, String, String, bool)>,
}

impl Replay<'_> {
    fn read(&mut self, comp: &str) {
        let Some(iface) = self.ifaces.get(comp) else { return };
        let ord = &iface.order;
        self.open.push(comp.to_string());
        let mut by_item: HashMap<usize, Vec<&String>> = HashMap::new();
        for (n, i) in &ord.decls {
            by_item.entry(*i).or_default().push(n);
        }
        for i in 0..ord.items.len() {
            for (_, names) in ord.imports.iter().filter(|(j, _)| *j == i) {
                for n in names {
                    if self.seen.insert(n.clone()) {
                        self.read(n);
                    }
                }
            }
            for (_, owner, name, qualified) in ord.uses.iter().filter(|(j, _, _, _)| *j == i) {
                // only a partner still being read can lack the name: the others
                // were read completely before
                let partner_open = self.open.iter().any(|o| o == owner);
                let declares = self.ifaces.get(owner).map_or(false, |o| o.order.decls.contains_key(name));
                if partner_open && declares && !self.declared.contains(&(owner.clone(), name.clone())) {
                    let e = (ord.items[i], name.clone(), comp.to_string(), *qualified);
                    if !self.errs.iter().any(|x| x.0 == e.0 && x.1 == e.1) {
                        self.errs.push(e);
                    }
                }
            }
            for n in by_item.get(&i).into_iter().flatten() {
                self.declared.insert((comp.to_string(), (*n).clone()));
            }
        }
        self.open.pop();
    }
}
