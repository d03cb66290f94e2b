//! files: the components of one compilation, checked in the order their
//! imports need (specs first, twice for import cycles), with duplicate
//! components reported first.
use super::*;

pub fn check_files(
    map: &SourceMap,
    files: &[(ast::SourceFile, String)],
    diags: &mut Diagnostics,
    opts: &Opts,
    ifaces: &mut BTreeMap<String, Iface>,
    types: &mut Types,
    specs: &mut HashMap<String, ast::Component>,
) -> Vec<CompOut> {
    let mut outs = Vec::new();
    duplicate_components(files, diags);
    let order = import_order(files);
    // first pass: the specs alone (twice, for cycles), so that components may
    // import each other
    let known: Vec<String> = ifaces.keys().cloned().collect();
    for (c, name) in order.iter().chain(order.iter()) {
        if known.contains(&c.name.name) || c.form == ast::ComponentForm::SeparateBody {
            continue;
        }
        let mut pre = (*c).clone();
        if let Some(b) = &mut pre.body {
            b.items.clear();
        }
        let snapshot = ifaces.clone();
        let mut scratch = Diagnostics::new();
        let mut ck = Checker::new(map, &mut scratch, opts.clone(), &snapshot);
        ck.types = std::mem::take(types);
        ck.lenient = true;
        let r = ck.component(&pre, name);
        *types = std::mem::take(&mut ck.types);
        if let Some((_, iface)) = r {
            ifaces.insert(c.name.name.clone(), iface);
        }
    }
    for (c, name) in order {
        {
            if c.form == ast::ComponentForm::SeparateSpec || c.form == ast::ComponentForm::SpecOnly {
                specs.insert(c.name.name.clone(), c.clone());
            }
            // a separately compiled body is checked together with its spec
            let joined;
            let c = if c.form == ast::ComponentForm::SeparateBody {
                match specs.get(&c.name.name) {
                    Some(sp) => {
                        let mut j = sp.clone();
                        let mut b = c.body.clone().unwrap_or_else(|| sp.body.clone().unwrap());
                        if b.params.is_none() {
                            b.params = sp.body.as_ref().and_then(|x| x.params.clone());
                        }
                        b.separate = false;
                        j.body = Some(b);
                        j.form = ast::ComponentForm::Combined;
                        joined = j;
                        &joined
                    }
                    None => {
                        diags.error(
                            c.name.span,
                            format!(
                                "can't open spec file {}.spec (compile the spec of {} first)",
                                c.name.name, c.name.name
                            ),
                        );
                        continue;
                    }
                }
            } else {
                c
            };
            let snapshot = ifaces.clone();
            let mut ck = Checker::new(map, diags, opts.clone(), &snapshot);
            // one type table for the whole run: imported types keep their identity
            ck.types = std::mem::take(types);
            let r = ck.component(c, name);
            *types = std::mem::take(&mut ck.types);
            if let Some((out, iface)) = r {
                ifaces.insert(out.name.clone(), iface);
                // the names its spec and the specs it imports may use, in MPD's
                // order; an abstract resource spec or a spec whose body comes
                // apart is not compiled on its own (a global's spec is)
                let abstract_spec = (c.form == ast::ComponentForm::SpecOnly && c.kind == ast::ComponentKind::Resource)
                    || c.form == ast::ComponentForm::SeparateSpec;
                if !abstract_spec {
                    let body_imports: Vec<String> = c
                        .body
                        .iter()
                        .flat_map(|b| b.items.iter())
                        .flat_map(|st| match &st.kind {
                            ast::StmtKind::Decl(ast::Decl { kind: ast::DeclKind::Import { names, .. }, .. }) => {
                                names.iter().map(|n| n.name.clone()).collect()
                            }
                            _ => vec![],
                        })
                        .collect();
                    spec_order::check(&out.name, &body_imports, ifaces, diags);
                }
                outs.push(out);
            }
        }
    }
    outs
}

/// A component name comes once per run, except a spec and then its separate
/// body: a second definition would give two C layouts to one name (MPD
/// 1.0.1's mpdl: "resource duplicated").
fn duplicate_components(files: &[(ast::SourceFile, String)], diags: &mut Diagnostics) {
    use ast::ComponentForm as F;
    let mut seen: HashMap<&str, F> = HashMap::new();
    for c in files.iter().flat_map(|(f, _)| f.components.iter()) {
        let ok = match seen.get(c.name.name.as_str()) {
            None => true,
            Some(prev) => matches!((prev, c.form), (F::SeparateSpec | F::SpecOnly, F::SeparateBody)),
        };
        if !ok {
            diags.error(
                c.name.span,
                format!(
                    "resource duplicated ({}): a component of that name is already defined in this run",
                    c.name.name
                ),
            );
        }
        seen.insert(&c.name.name, c.form);
    }
}

/// Components of the files in an order where each comes after the components it
/// imports or extends (when they are compiled in the same run); otherwise the
/// order of the source.  A spec comes before its separate body.
fn import_order(files: &[(ast::SourceFile, String)]) -> Vec<(&ast::Component, &String)> {
    let all: Vec<(&ast::Component, &String)> =
        files.iter().flat_map(|(f, n)| f.components.iter().map(move |c| (c, n))).collect();
    let deps = |c: &ast::Component| -> Vec<String> {
        let mut out = Vec::new();
        let body = c.body.as_ref().map(|b| b.items.as_slice()).unwrap_or(&[]);
        for s in c.spec.iter().chain(body.iter()) {
            if let ast::StmtKind::Decl(d) = &s.kind {
                if let ast::DeclKind::Import { names, .. } = &d.kind {
                    out.extend(names.iter().map(|n| n.name.clone()).filter(|n| *n != c.name.name));
                }
            }
        }
        out
    };
    let mut done: Vec<bool> = vec![false; all.len()];
    let mut order = Vec::new();
    while order.len() < all.len() {
        let mut progressed = false;
        for i in 0..all.len() {
            if done[i] {
                continue;
            }
            let (c, _) = all[i];
            let ready = deps(c)
                .iter()
                .all(|d| all.iter().enumerate().all(|(j, (o, _))| o.name.name != *d || done[j] || j == i))
                && (c.form != ast::ComponentForm::SeparateBody
                    || all.iter().enumerate().all(|(j, (o, _))| o.name.name != c.name.name || j >= i || done[j]));
            if ready {
                done[i] = true;
                order.push(all[i]);
                progressed = true;
                break;
            }
        }
        if !progressed {
            // a cycle of imports: keep the source order for the rest
            for i in 0..all.len() {
                if !done[i] {
                    done[i] = true;
                    order.push(all[i]);
                }
            }
        }
    }
    order
}
