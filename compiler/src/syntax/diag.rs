//! Compiler diagnostics: collect errors/warnings with spans, render them with codespan-reporting.
//!
//! Output format of one error (what users and tests see):
//! ```text
//! prog.mpd:3:9: error: expected an expression, found `)`
//!   |
//! 3 |     x = )
//!   |         ^ expected an expression
//! ```
//! The first line is codespan's "short" style; the source excerpt is codespan's "rich"
//! rendering with its own header removed, so all layout comes from the crate.
//! The checker and later stages reuse this module for their own errors.

use super::ast::{FileId, Span};
use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::{Files, SimpleFiles};
use codespan_reporting::term::{self, termcolor::Buffer, Chars, Config, DisplayStyle};

/// All source files of one compilation, indexed by [`FileId`].
pub struct SourceMap {
    files: SimpleFiles<String, String>,
}

impl Default for SourceMap {
    fn default() -> Self {
        SourceMap::new()
    }
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap { files: SimpleFiles::new() }
    }

    /// Register a file; `name` is what messages print (normally the path as given).
    pub fn add(&mut self, name: impl Into<String>, source: impl Into<String>) -> FileId {
        self.files.add(name.into(), source.into()) as FileId
    }

    /// Register a file from raw bytes (invalid UTF-8 is replaced by U+FFFD).
    pub fn add_bytes(&mut self, name: impl Into<String>, bytes: &[u8]) -> FileId {
        self.add(name, String::from_utf8_lossy(bytes).into_owned())
    }

    pub fn name(&self, file: FileId) -> &str {
        self.files.get(file as usize).map(|f| f.name().as_str()).unwrap_or("<unknown>")
    }

    pub fn source(&self, file: FileId) -> &str {
        self.files.get(file as usize).map(|f| f.source().as_str()).unwrap_or("")
    }

    /// 1-based (line, column) of byte offset `pos` in `file` (column counts characters).
    pub fn line_col(&self, file: FileId, pos: u32) -> (usize, usize) {
        let id = file as usize;
        let pos = self.clamp(file, pos);
        match self.files.location(id, pos) {
            Ok(loc) => (loc.line_number, loc.column_number),
            Err(_) => (1, 1),
        }
    }

    /// Offsets must land on a char boundary inside the file for codespan; clamp defensively.
    fn clamp(&self, file: FileId, pos: u32) -> usize {
        let src = self.source(file);
        let mut p = (pos as usize).min(src.len());
        while p > 0 && !src.is_char_boundary(p) {
            p -= 1;
        }
        p
    }

    fn clamp_span(&self, span: Span) -> std::ops::Range<usize> {
        let lo = self.clamp(span.file, span.lo);
        let hi = self.clamp(span.file, span.hi.max(span.lo)).max(lo);
        lo..hi
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Note,
}

/// One message about a span, with optional secondary notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Diag {
    pub level: Level,
    pub span: Span,
    pub message: String,
    /// Short text under the caret (defaults to nothing).
    pub label: String,
    /// Extra spans with explanations ("previous declaration here").
    pub secondary: Vec<(Span, String)>,
    /// Free-form notes printed after the excerpt.
    pub notes: Vec<String>,
}

/// A collection of diagnostics in report order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diag>,
    errors: usize,
    /// Only the first `max_errors` errors are rendered (0 = all), so a hopeless file does
    /// not flood the terminal; the rest are summarised in one line.  MPD 1.0.1 stops
    /// at 20 fatal errors (and at 200 messages in all): the same bounds here.
    pub max_errors: usize,
}

/// Warnings rendered at most (MPD 1.0.1 stops at 200 messages of either kind).
const MAX_WARNINGS: usize = 180;

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics { list: Vec::new(), errors: 0, max_errors: 20 }
    }

    /// Record an error; returns a handle to add notes/labels.
    /// The same error at the same place is recorded once (a checker may look
    /// at an expression twice).
    pub fn error(&mut self, span: Span, message: impl Into<String>) -> &mut Diag {
        let message = message.into();
        let recent = self.list.len().saturating_sub(16);
        if let Some(i) =
            self.list[recent..].iter().position(|d| d.level == Level::Error && d.span == span && d.message == message)
        {
            return &mut self.list[recent + i];
        }
        self.errors += 1;
        self.push(Level::Error, span, message)
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>) -> &mut Diag {
        self.push(Level::Warning, span, message.into())
    }

    fn push(&mut self, level: Level, span: Span, message: String) -> &mut Diag {
        self.list.push(Diag { level, span, message, label: String::new(), secondary: Vec::new(), notes: Vec::new() });
        self.list.last_mut().unwrap()
    }

    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    pub fn error_count(&self) -> usize {
        self.errors
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diag> {
        self.list.iter()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Order diagnostics by file and position (stable: equal positions keep their order).
    pub fn sort_by_position(&mut self) {
        self.list.sort_by_key(|d| (d.span.file, d.span.lo));
    }

    /// Move all diagnostics of `other` into `self`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.errors += other.errors;
        self.list.extend(other.list);
    }

    /// Render every diagnostic (in order) as plain text.
    pub fn render(&self, map: &SourceMap) -> String {
        let mut out = String::new();
        let limit = if self.max_errors == 0 { usize::MAX } else { self.max_errors };
        let (mut shown, mut warned, mut unwarned) = (0, 0, 0);
        for d in &self.list {
            if d.level == Level::Error {
                if shown >= limit {
                    continue;
                }
                shown += 1;
            } else if d.level == Level::Warning {
                if warned >= MAX_WARNINGS {
                    unwarned += 1;
                    continue;
                }
                warned += 1;
            }
            out.push_str(&render_one(d, map));
        }
        if self.errors > shown {
            out.push_str(&format!("... and {} more errors (too many errors)\n", self.errors - shown));
        }
        if unwarned > 0 {
            out.push_str(&format!("... and {} more warnings\n", unwarned));
        }
        out
    }

    /// Write [`Diagnostics::render`] to standard error.
    pub fn emit_stderr(&self, map: &SourceMap) {
        use std::io::Write;
        let text = self.render(map);
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
}

impl Diag {
    /// Set the text printed next to the caret.
    pub fn with_label(&mut self, label: impl Into<String>) -> &mut Diag {
        self.label = label.into();
        self
    }
    /// Add a secondary span with its explanation.
    pub fn with_secondary(&mut self, span: Span, text: impl Into<String>) -> &mut Diag {
        self.secondary.push((span, text.into()));
        self
    }
    /// Add a trailing note.
    pub fn with_note(&mut self, note: impl Into<String>) -> &mut Diag {
        self.notes.push(note.into());
        self
    }
}

fn to_codespan(d: &Diag, map: &SourceMap) -> Diagnostic<usize> {
    let severity = match d.level {
        Level::Error => Severity::Error,
        Level::Warning => Severity::Warning,
        Level::Note => Severity::Note,
    };
    let mut labels = vec![Label::primary(d.span.file as usize, map.clamp_span(d.span)).with_message(d.label.clone())];
    for (s, t) in &d.secondary {
        labels.push(Label::secondary(s.file as usize, map.clamp_span(*s)).with_message(t.clone()));
    }
    Diagnostic::new(severity).with_message(d.message.clone()).with_labels(labels).with_notes(d.notes.clone())
}

/// `file:line:col: error: message` then the excerpt with a caret.
fn render_one(d: &Diag, map: &SourceMap) -> String {
    let diag = to_codespan(d, map);
    let short = Config { display_style: DisplayStyle::Short, ..Config::default() };
    let rich = Config { display_style: DisplayStyle::Rich, chars: Chars::ascii(), ..Config::default() };
    let mut head = Buffer::no_color();
    let mut body = Buffer::no_color();
    if term::emit(&mut head, &short, &map.files, &diag).is_err() {
        return format!("{}: error: {}\n", map.name(d.span.file), d.message);
    }
    let _ = term::emit(&mut body, &rich, &map.files, &diag);
    let head = String::from_utf8_lossy(head.as_slice()).into_owned();
    let body = String::from_utf8_lossy(body.as_slice()).into_owned();
    // Rich style starts with "error: msg" and a "--> file:l:c" line; the short line
    // already says both, so keep only what follows the first locator line.
    let mut out = head;
    let mut seen_locator = false;
    for line in body.lines() {
        if !seen_locator {
            if line.trim_start().starts_with("-->") || line.trim_start().starts_with("┌─") {
                seen_locator = true;
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
