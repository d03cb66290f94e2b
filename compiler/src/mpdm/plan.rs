//! plan: from the components found in the sources to what the makefile must say —
//! which components compile to objects, what each object depends on, the main
//! resource and the link order — with the errors and warnings mpdm reports.
use super::deps::{FileDeps, Form, Kind};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A component defined in the scanned files.
#[derive(Clone, Debug)]
pub struct Comp {
    pub name: String,
    pub kind: Kind,
    /// File holding the spec (`mpd -s FILE` writes `X.spec`).
    pub spec_file: Option<String>,
    /// File holding the code compiled into `X.o` (`mpd -b FILE`); a global without
    /// a body still compiles to an object, from its spec file.
    pub body_file: Option<String>,
    pub spec_imports: Vec<String>,
    pub body_imports: Vec<String>,
}

impl Comp {
    pub fn has_object(&self) -> bool {
        self.spec_file.is_some() && self.body_file.is_some()
    }
}

/// One prerequisite of an object: an interface or (for imported globals) an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prereq {
    Spec(String),
    Object(String),
}

#[derive(Debug)]
pub struct Plan {
    /// Defined components in the order they were first met (defined or imported)
    /// while reading the files in command-line order.
    pub comps: Vec<Comp>,
    /// Imported components not defined in the files but found compiled elsewhere
    /// (MPD_PATH, MPDinter) with an object: linked, never rebuilt.
    pub externals: Vec<String>,
    pub main: String,
}

/// Errors (no makefile can be written) and warnings.
#[derive(Debug, Default)]
pub struct Notes {
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// Builds the plan for `files`. `main` is the -m choice; `search` the directories
/// where imported components missing from the files are looked for (`X.spec`).
pub fn plan(files: &[FileDeps], main: Option<&str>, search: &[PathBuf], notes: &mut Notes) -> Option<Plan> {
    // order of first mention, and who first imported each name
    let mut order: Vec<String> = Vec::new();
    let mut importer: HashMap<String, String> = HashMap::new();
    for f in files {
        for c in &f.comps {
            mention(&mut order, &c.name);
            for i in c.spec_imports.iter().chain(&c.body_imports) {
                mention(&mut order, i);
                importer.entry(i.clone()).or_insert_with(|| c.name.clone());
            }
        }
    }
    let mut defs: HashMap<String, Comp> = HashMap::new();
    let mut defined_in: Vec<String> = Vec::new(); // definition order
    for f in files {
        for c in &f.comps {
            let e = defs.entry(c.name.clone()).or_insert_with(|| {
                defined_in.push(c.name.clone());
                Comp {
                    name: c.name.clone(),
                    kind: c.kind,
                    spec_file: None,
                    body_file: None,
                    spec_imports: vec![],
                    body_imports: vec![],
                }
            });
            if c.form.has_spec() {
                if let Some(prev) = &e.spec_file {
                    notes.errors.push(format!("duplicate spec for {} (in {} and {})", c.name, prev, f.path));
                    continue;
                }
                e.kind = c.kind;
                e.spec_file = Some(f.path.clone());
                e.spec_imports = c.spec_imports.clone();
            }
            let object_from_here = c.form.has_body() || (c.form == Form::SpecOnly && c.kind == Kind::Global);
            if object_from_here {
                if let Some(prev) = &e.body_file {
                    notes.errors.push(format!("duplicate body for {} (in {} and {})", c.name, prev, f.path));
                    continue;
                }
                e.body_file = Some(f.path.clone());
                e.body_imports = c.body_imports.clone();
            }
        }
    }
    let mut comps = Vec::new();
    let mut externals = Vec::new();
    for name in &order {
        match defs.get(name) {
            Some(c) => {
                let what = kind_word(c.kind);
                match (&c.spec_file, &c.body_file) {
                    (None, Some(b)) => notes.errors.push(format!("spec for {} not found (its body is in {})", name, b)),
                    (Some(_), None) => notes
                        .warnings
                        .push(format!("body for {} {} missing; it is not compiled to an object", what, name)),
                    _ => {}
                }
                comps.push(c.clone());
            }
            None => {
                let by = importer.get(name).map(String::as_str).unwrap_or("?");
                match find_compiled(name, search) {
                    Some(dir) => {
                        if dir.join(format!("{}.o", name)).exists() {
                            externals.push(name.clone());
                        }
                    }
                    None => notes.errors.push(format!(
                        "missing resource or global {} (imported by {}): not defined in the files given \
                         nor compiled in {}",
                        name,
                        by,
                        search.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
                    )),
                }
            }
        }
    }
    let main = choose_main(&comps, &defined_in, main, notes)?;
    if !notes.errors.is_empty() {
        return None;
    }
    Some(Plan { comps, externals, main })
}

fn mention(order: &mut Vec<String>, name: &str) {
    if !order.iter().any(|n| n == name) {
        order.push(name.to_string());
    }
}

fn kind_word(k: Kind) -> &'static str {
    if k == Kind::Global {
        "global"
    } else {
        "resource"
    }
}

/// The directory of `search` holding `name.spec`, if any.
fn find_compiled(name: &str, search: &[PathBuf]) -> Option<PathBuf> {
    search.iter().find(|d| Path::new(d).join(format!("{}.spec", name)).is_file()).cloned()
}

/// The main resource: the -m choice, else the first resource (in definition order)
/// with a body that the fewest other components import.
fn choose_main(comps: &[Comp], defined_in: &[String], want: Option<&str>, notes: &mut Notes) -> Option<String> {
    let candidates: Vec<&Comp> = defined_in
        .iter()
        .filter_map(|n| comps.iter().find(|c| &c.name == n))
        .filter(|c| c.kind == Kind::Resource && c.has_object())
        .collect();
    let importers = |name: &str| {
        comps
            .iter()
            .filter(|c| c.name != name && c.spec_imports.iter().chain(&c.body_imports).any(|i| i == name))
            .count()
    };
    let main = match want {
        Some(m) => match candidates.iter().find(|c| c.name == m) {
            Some(c) => c.name.clone(),
            None => {
                let why = match comps.iter().find(|c| c.name == m) {
                    Some(c) if c.kind == Kind::Global => "it is a global",
                    Some(_) => "it has no body",
                    None => "no such resource in the files given",
                };
                notes.errors.push(format!("missing main resource {}: {}", m, why));
                return None;
            }
        },
        None => match candidates.iter().min_by_key(|c| importers(&c.name)) {
            Some(c) => c.name.clone(),
            None => {
                notes.errors.push("no resource with a body to be the main resource".to_string());
                return None;
            }
        },
    };
    for c in &candidates {
        if c.name != main && importers(&c.name) == 0 {
            notes.warnings.push(format!(
                "resource {} is not imported by any other resource and is not the main resource {}",
                c.name, main
            ));
        }
    }
    Some(main)
}

impl Plan {
    pub fn comp(&self, name: &str) -> Option<&Comp> {
        self.comps.iter().find(|c| c.name == name)
    }

    /// Components compiled to objects, in first-mention order.
    pub fn objects(&self) -> impl Iterator<Item = &Comp> {
        self.comps.iter().filter(|c| c.has_object())
    }

    /// Components named to mpdl: every object but the main resource, the compiled
    /// externals, then the main resource (mpdl takes the last resource as main).
    pub fn link_order(&self) -> Vec<String> {
        let mut v: Vec<String> = self.objects().filter(|c| c.name != self.main).map(|c| c.name.clone()).collect();
        v.extend(self.externals.iter().cloned());
        v.push(self.main.clone());
        v
    }

    /// What `X.o` depends on. Compiling X's body reads the specs X imports and,
    /// through them, the specs those import; the order is: interfaces reached only
    /// indirectly (latest found first), those X's spec imports (source order), X's
    /// own, those X's body imports (latest first). An imported global brings its
    /// object as well. Externals are not dependencies.
    pub fn prerequisites(&self, x: &Comp) -> Vec<Prereq> {
        let direct: Vec<&String> = x.spec_imports.iter().chain(&x.body_imports).collect();
        let mut seen: HashSet<&str> = direct.iter().map(|s| s.as_str()).collect();
        seen.insert(&x.name);
        let mut indirect: Vec<&str> = Vec::new();
        for d in &direct {
            self.spec_closure(d, &mut seen, &mut indirect);
        }
        let mut names: Vec<&str> = indirect.into_iter().rev().collect();
        names.extend(x.spec_imports.iter().map(String::as_str));
        names.push(&x.name);
        names.extend(x.body_imports.iter().rev().map(String::as_str));
        let mut out = Vec::new();
        let mut done: HashSet<&str> = HashSet::new();
        for n in names {
            let Some(c) = self.comp(n) else { continue };
            if !done.insert(n) {
                continue;
            }
            out.push(Prereq::Spec(n.to_string()));
            if n != x.name && c.kind == Kind::Global && c.has_object() {
                out.push(Prereq::Object(n.to_string()));
            }
        }
        out
    }

    /// Depth first through spec imports from `name`, collecting names not yet seen.
    fn spec_closure<'a>(&'a self, name: &str, seen: &mut HashSet<&'a str>, found: &mut Vec<&'a str>) {
        let Some(c) = self.comp(name) else { return };
        for i in &c.spec_imports {
            if seen.insert(i.as_str()) {
                found.push(i.as_str());
                self.spec_closure(i, seen, found);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::deps::CompDeps;
    use super::*;

    fn comp(kind: Kind, form: Form, name: &str, spec: &[&str], body: &[&str]) -> CompDeps {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect();
        CompDeps { kind, form, name: name.into(), spec_imports: v(spec), body_imports: v(body) }
    }

    fn names(p: &[Prereq]) -> Vec<String> {
        p.iter()
            .map(|x| match x {
                Prereq::Spec(n) => format!("{}.spec", n),
                Prereq::Object(n) => format!("{}.o", n),
            })
            .collect()
    }

    #[test]
    fn main_is_least_imported_and_links_last() {
        let f = vec![FileDeps {
            path: "a.mpd".into(),
            comps: vec![
                comp(Kind::Global, Form::SpecOnly, "g", &[], &[]),
                comp(Kind::Resource, Form::Combined, "r", &["g"], &[]),
                comp(Kind::Resource, Form::Combined, "s", &["g", "r"], &[]),
            ],
        }];
        let mut n = Notes::default();
        let p = plan(&f, None, &[], &mut n).unwrap();
        assert!(n.errors.is_empty() && n.warnings.is_empty(), "{:?}", n);
        assert_eq!(p.main, "s");
        assert_eq!(p.link_order(), vec!["g", "r", "s"]);
        let s = p.comp("s").unwrap();
        assert_eq!(names(&p.prerequisites(s)), vec!["g.spec", "g.o", "r.spec", "s.spec"]);
    }

    #[test]
    fn indirect_specs_are_prerequisites() {
        let f = vec![FileDeps {
            path: "m.mpd".into(),
            comps: vec![
                comp(Kind::Resource, Form::Combined, "a", &["b"], &[]),
                comp(Kind::Resource, Form::Combined, "b", &["c"], &[]),
                comp(Kind::Resource, Form::SpecOnly, "c", &[], &[]),
                comp(Kind::Resource, Form::Simple, "m", &[], &["a"]),
            ],
        }];
        let mut n = Notes::default();
        let p = plan(&f, Some("m"), &[], &mut n).unwrap();
        let m = p.comp("m").unwrap();
        assert_eq!(names(&p.prerequisites(m)), vec!["c.spec", "b.spec", "m.spec", "a.spec"]);
        assert!(n.warnings.iter().any(|w| w.contains("body for resource c")));
    }

    #[test]
    fn errors() {
        let mut n = Notes::default();
        let f = vec![FileDeps {
            path: "x.mpd".into(),
            comps: vec![
                comp(Kind::Resource, Form::Combined, "a", &["b"], &[]),
                comp(Kind::Resource, Form::SeparateBody, "z", &[], &[]),
            ],
        }];
        assert!(plan(&f, Some("nope"), &[], &mut n).is_none());
        let all = n.errors.join("\n");
        assert!(all.contains("missing resource or global b"), "{}", all);
        assert!(all.contains("spec for z not found"), "{}", all);
        assert!(all.contains("missing main resource nope"), "{}", all);
    }
}
