//! write: the text of the generated makefile (the layout of MPD 1.0.1's mpdm).
use super::plan::{Plan, Prereq};
use crate::driver::Lang;

/// First line of every makefile mpdm writes; mpdm overwrites only files starting so.
pub const HEADER: &str = "#\tMakefile created by MPDM";

/// The first line for `lang` (srm writes SRM).
pub fn header(lang: Lang) -> String {
    format!("#\tMakefile created by {}", lang.maker().to_uppercase())
}

/// Longest line (in columns, a tab counting 8) written unless `wide`.
const WIDTH: usize = 78;

/// What the makefile needs beyond the plan: the command-line choices.
pub struct Layout<'a> {
    /// MPDinter directory (`$I`).
    pub inter: String,
    /// Executable name.
    pub exe: &'a str,
    /// Options for mpd (MPDFLAGS) and for mpdl.
    pub mpd_flags: String,
    pub mpdl_flags: String,
    /// -I dir, which mpdl gets after `-o exe` (where MPD 1.0.1 puts it).
    pub link_inter: Option<String>,
    /// Arguments for `make run`, files for `make cleanx`.
    pub run_args: String,
    pub cleanx_files: Vec<String>,
    /// Source files listed by `make ls`: .mpd files then .c files.
    pub sources: Vec<String>,
    /// Extra link arguments (-lxx, .a, .o, and .c as its .o), in command-line order.
    pub extras: Vec<String>,
    /// Objects mpdm's makefile produces from .c files (removed by `make clean`).
    pub c_objects: Vec<String>,
    /// The mpdm command line that re-makes this makefile.
    pub remake: String,
    pub wide: bool,
    /// mpdm's or srm's names (MPD/mpdl or SR/srl).
    pub lang: Lang,
}

/// The makefile text.
pub fn makefile(p: &Plan, l: &Layout) -> String {
    let mut m = Text { s: String::new(), wide: l.wide };
    let (up, comp, linker) = (l.lang.upper(), l.lang.compiler(), l.lang.linker());
    m.raw(&format!("{}\n\n\n", header(l.lang)));
    m.raw(&format!("{up} = {comp}\n{up}FLAGS = {}\nI = {}\n\n", l.mpd_flags, l.inter));
    m.raw(".SUFFIXES:\n\n");
    m.raw(&format!("link: {}\n\n", l.exe));
    // the extras that are files are prerequisites too; libraries are not
    let mut objs: Vec<String> = p.objects().map(|c| format!("$I/{}.o", c.name)).collect();
    objs.extend(l.extras.iter().filter(|e| !e.starts_with("-l")).cloned());
    m.line(&format!("{}: {}", l.exe, objs.join(" ")));
    let mut link = p.link_order();
    link.extend(l.extras.iter().cloned());
    let inter = l.link_inter.as_ref().map(|d| format!("-I {} ", d)).unwrap_or_default();
    m.line(&format!("\t{linker} {} -o {} {}{}", l.mpdl_flags, l.exe, inter, link.join(" ")));
    m.raw("\n");
    m.line(&format!("compile: {}", objs.join(" ")));
    m.raw("\n");
    m.raw("run: link\n");
    // as MPD 1.0.1 writes it (the suite compares makefiles byte for byte):
    // the shell looks a bare name up in PATH, so `mpdm -o ./prog` runs it here
    m.line(&format!("\t{} {}", l.exe, l.run_args));
    m.raw("\n");
    for c in &p.comps {
        if c.has_object() {
            let body = c.body_file.as_deref().unwrap_or_default();
            let mut pre: Vec<String> = p
                .prerequisites(c)
                .into_iter()
                .map(|x| match x {
                    Prereq::Spec(n) => format!("$I/{}.spec", n),
                    Prereq::Object(n) => format!("$I/{}.o", n),
                })
                .collect();
            pre.push(body.to_string());
            m.line(&format!("$I/{}.o: {}", c.name, pre.join(" ")));
            m.line(&format!("\t$({up}) $({up}FLAGS) -b {}", body));
            m.raw("\n");
        }
        if let Some(spec) = &c.spec_file {
            m.line(&format!("$I/{}.spec: {}", c.name, spec));
            m.line(&format!("\t$({up}) $({up}FLAGS) -s {}", spec));
            m.raw("\n");
        }
    }
    m.raw("clean:\n");
    m.line(&format!("\trm -rf $I {}", l.c_objects.iter().map(|o| format!(" {}", o)).collect::<String>()));
    m.raw("\n");
    m.raw("cleanx: clean\n");
    m.line(&format!("\trm -f core {}{}", l.exe, l.cleanx_files.iter().map(|o| format!(" {}", o)).collect::<String>()));
    m.raw("\n");
    m.raw("ls:\n");
    m.line(&format!("\t@echo {}", l.sources.join(" ")));
    m.raw("\n");
    m.raw("make:\n");
    m.line(&format!("\t{}", l.remake));
    m.raw("\n");
    m.s
}

struct Text {
    s: String,
    wide: bool,
}

impl Text {
    fn raw(&mut self, t: &str) {
        self.s.push_str(t);
    }

    /// One logical line, folded at spaces with backslash-newline-tab when it is
    /// longer than WIDTH columns (make and the shell both read the fold as a space).
    fn line(&mut self, t: &str) {
        if self.wide || columns(t) <= WIDTH {
            self.s.push_str(t);
            self.s.push('\n');
            return;
        }
        let lead = if t.starts_with('\t') { "\t" } else { "" };
        let mut col = columns(lead);
        let mut out = lead.to_string();
        let mut first = true;
        for w in t.split(' ').filter(|w| !w.is_empty()) {
            let w = w.trim_start_matches('\t');
            if !first && col + 1 + w.len() + 2 > WIDTH {
                out.push_str(" \\\n\t");
                col = 8;
            } else if !first {
                out.push(' ');
                col += 1;
            }
            out.push_str(w);
            col += w.len();
            first = false;
        }
        self.s.push_str(&out);
        self.s.push('\n');
    }
}

fn columns(t: &str) -> usize {
    t.chars().fold(0, |c, ch| if ch == '\t' { (c / 8 + 1) * 8 } else { c + 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_long_lines_unless_wide() {
        let words: Vec<String> = (0..30).map(|i| format!("word{}", i)).collect();
        let long = format!("target: {}", words.join(" "));
        let mut t = Text { s: String::new(), wide: false };
        t.line(&long);
        assert!(t.s.lines().count() > 1);
        for l in t.s.lines() {
            assert!(columns(l) <= WIDTH, "{:?}", l);
        }
        assert_eq!(t.s.replace(" \\\n\t", " "), format!("{}\n", long));
        let mut w = Text { s: String::new(), wide: true };
        w.line(&long);
        assert_eq!(w.s, format!("{}\n", long));
    }
}
