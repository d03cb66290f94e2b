//! typed: the side table of the typed, resolved program, keyed by the
//! parser's node ids (`ast::NodeId`).
//!
//! For each expression node the type rules (type_of.rs and the files it
//! names) have answered, the table holds what they found: the type
//! (`type_of`), the compile-time value (`const_of`), whether it designates
//! a variable and whether that is a blob in place (`place`).  The rules
//! memoise into it, so a question asked again -- by the translation after
//! an argument check, by `||`'s folding of its operands, by the audit at
//! every node -- is a table read, not a second walk of the subtree.
//!
//! An answer depends on what the names mean where it was asked: the table
//! is the typing of the program for the scopes open now.  Every change to
//! them (a scope opened or closed, a name declared or completed, the
//! component or function being compiled) makes the answers
//! stale (`Typed::stale`, an epoch), and so does a new entry in the type
//! table; an answer whose own computation registered a type (a type written
//! in place: `new(rec(...))`) is not kept, so that asking again registers
//! it again exactly as before (the generated C stays byte-identical).  When
//! check becomes one pass that records the program (docs/architecture.md's
//! plan), the epoch goes: each node is then typed once, in its own scope.
//!
//! The errors are the rules' too: a rule that rejects its node words the
//! error (`rule_error`), which the table keeps by node; it is reported when
//! the walk reaches the node (`checked`), once however many times the node
//! is typed or checked.  Why not at once: a rule is asked ahead of the walk
//! (an argument check types a later argument first, the audit every node),
//! and the messages come in the order of the walk, MPD 1.0.1's.
use super::konst::KV;
use super::types::{Ty, Types};
use super::{Checker, V};
use crate::syntax::ast::{Expr, NodeId, Span};
use std::collections::{HashMap, HashSet};

/// When an answer was given: the epoch of the names and the size of the
/// type table.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Stamp(u64, usize, usize, usize);

/// What the rules found for one node (None: not asked yet).
#[derive(Clone, Default)]
pub(crate) struct Node {
    stamp: Stamp,
    pub ty: Option<Ty>,
    pub k: Option<Option<KV>>,
    /// (a variable, a blob in place)
    pub place: Option<(bool, bool)>,
    /// What a name or field names (resolved.rs).
    pub res: Option<super::resolved::Resolved>,
}

/// The table.
#[derive(Default)]
pub(crate) struct Typed {
    nodes: HashMap<NodeId, Node>,
    epoch: u64,
    /// The error each node's rule found the last time it ran (not stamped:
    /// the last run is the one the node's current entry comes from).
    found: HashMap<NodeId, (Span, String)>,
    /// The nodes whose error was reported.
    reported: HashSet<NodeId>,
}

impl Typed {
    /// The names changed: every answer so far is stale.
    pub fn stale(&mut self) {
        self.epoch += 1;
    }

    fn stamp(&self, types: &Types) -> Stamp {
        Stamp(self.epoch, types.recs.len(), types.enums.len(), types.sigs.len())
    }

    /// The entry of `id`, if it was made under the names and types of now.
    pub fn get(&self, id: NodeId, types: &Types) -> Option<&Node> {
        let s = self.stamp(types);
        self.nodes.get(&id).filter(|n| n.stamp == s)
    }

    /// The rule of `id` runs again: what it found before goes.
    pub fn forget_error(&mut self, id: NodeId) {
        self.found.remove(&id);
    }

    /// The entry of `id` to fill, made anew if stale.
    fn entry(&mut self, id: NodeId, s: Stamp) -> &mut Node {
        let n = self.nodes.entry(id).or_default();
        if n.stamp != s {
            *n = Node { stamp: s, ..Node::default() };
        }
        n
    }
}

impl<'a> Checker<'a> {
    /// The stamp answers are given under now.
    pub(super) fn typed_stamp(&self) -> Stamp {
        self.typed.stamp(&self.types)
    }

    /// Keeps `f`'s part of node `id`, found under stamp `s`, unless finding
    /// it changed the stamp (it registered a type: not kept, see above).
    pub(super) fn typed_keep(&mut self, id: NodeId, s: Stamp, f: impl FnOnce(&mut Node)) {
        if self.typed.stamp(&self.types) == s {
            f(self.typed.entry(id, s));
        }
    }

    /// The rule of node `e` rejects it: `msg` at `span` (e's, or a part
    /// of it), reported when the walk reaches it (`checked`).
    pub(super) fn rule_error(&mut self, e: &Expr, span: Span, msg: String) {
        self.typed.found.insert(e.id, (span, msg));
    }

    /// The type of `e`, whose error, if its rule found one, is reported
    /// now (once per node): the walk has reached `e`.
    pub(super) fn checked(&mut self, e: &Expr) -> Ty {
        let t = self.type_of(e);
        if let Some((span, msg)) = self.typed.found.get(&e.id).cloned() {
            if self.typed.reported.insert(e.id) {
                self.error(span, msg);
            }
        }
        t
    }

    /// Whether node `e` passes its rule, whose error is reported now if
    /// it has one (`checked`).
    pub(super) fn passes(&mut self, e: &Expr) -> bool {
        self.checked(e);
        !self.typed.found.contains_key(&e.id)
    }

    /// Node `e`, which the translation cannot take, is one its rule
    /// rejected: the rule's error is reported now if it was not (`checked`).
    /// Should the rule have passed it, the program is still refused, with
    /// an internal error, rather than compiled wrong.
    pub(super) fn rejected(&mut self, e: &Expr) -> V {
        self.checked(e);
        if !self.typed.found.contains_key(&e.id) {
            self.error(e.span, "internal error: this construct's type rule accepted what its translation cannot take");
        }
        V::err()
    }

    /// The names changed (a scope, a declaration, the unit or function).
    pub(super) fn names_changed(&mut self) {
        self.typed.stale();
    }
}
