//! emit: C generation helpers — the code buffer with #line directives, names, literals.
//!
//! The checker drives generation (as Lua's parser drives lcode.c): it resolves and
//! types each construct and asks this module to write the C for it.
pub mod builtin;
pub mod call;
pub mod co;
pub mod component;
pub mod convert;
pub mod data;
pub mod expr;
pub mod inop;
pub mod io;
pub mod lit;
pub mod names;
pub mod ops;
pub mod stmt;
pub mod trace;
pub mod var;

/// The end of a C block.
pub const BLOCK_END: &str = "}";

/// A growing C function body with indentation and #line directives.
#[derive(Default)]
pub struct Code {
    pub out: String,
    pub indent: usize,
    last_line: u32,
    file: String,
    pub lines: bool,
}

impl Code {
    pub fn new(file: &str, lines: bool) -> Code {
        Code { out: String::new(), indent: 1, last_line: 0, file: file.to_string(), lines }
    }
    /// Emits `#line` when the MPD line changes.
    pub fn line(&mut self, line: u32) {
        if self.lines && line != 0 && line != self.last_line {
            self.out.push_str(&format!("#line {} {}\n", line, lit::c_string(self.file.as_bytes())));
            self.last_line = line;
        }
    }
    pub fn put(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }
    pub fn open(&mut self, s: &str) {
        self.put(s);
        self.indent += 1;
    }
    pub fn close(&mut self, s: &str) {
        self.indent = self.indent.saturating_sub(1);
        self.put(s);
    }
    /// `{`: opens a C block.
    pub fn open_block(&mut self) {
        self.open("{");
    }
    /// `}`: closes a C block.
    pub fn close_block(&mut self) {
        self.close(BLOCK_END);
    }
    /// `} else {`.
    pub fn else_block(&mut self) {
        self.close("} else {");
    }
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.out)
    }
}
