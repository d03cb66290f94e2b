//! Rendering of diagnostics: `file:line:col: level: message`, source line, caret, extras.

use mpdc::syntax::ast::Span;
use mpdc::syntax::{Diagnostics, SourceMap};

#[test]
fn error_warning_secondary_and_note() {
    let mut map = SourceMap::new();
    let f = map.add("p.mpd", "resource main()\n  int a\n  int a\nend\n");
    assert_eq!(map.line_col(f, 30), (3, 7));
    let mut d = Diagnostics::new();
    d.error(Span::new(f, 30, 31), "duplicate identifier: a")
        .with_secondary(Span::new(f, 22, 23), "first declared here")
        .with_note("rename one of them");
    d.warning(Span::new(f, 0, 8), "suspicious comparison");
    assert!(d.has_errors());
    assert_eq!(d.error_count(), 1);
    let out = d.render(&map);
    let expected = "p.mpd:3:7: error: duplicate identifier: a\n  |\n2 |   int a\n  |       - first declared here\n3 |   int a\n  |       ^\n  |\n  = rename one of them\n\np.mpd:1:1: warning: suspicious comparison\n  |\n1 | resource main()\n  | ^^^^^^^^\n\n";
    assert_eq!(out, expected, "\n{}", out);
}

#[test]
fn too_many_errors_are_summarised() {
    let mut map = SourceMap::new();
    let f = map.add("p.mpd", "x\n");
    let mut d = Diagnostics::new();
    d.max_errors = 3;
    for i in 0..10 {
        d.error(Span::new(f, 0, 1), format!("bad {}", i));
    }
    let out = d.render(&map);
    assert_eq!(out.matches(": error: bad").count(), 3);
    assert!(out.ends_with("... and 7 more errors (too many errors)\n"), "{}", out);
}

#[test]
fn garbage_stops_at_mpds_limits() {
    // MPD 1.0.1 stops at 20 fatal errors and 200 messages in all
    let mut map = SourceMap::new();
    let f = map.add("p.mpd", "x\n");
    let mut d = Diagnostics::new();
    for i in 0..300 {
        d.warning(Span::new(f, 0, 1), format!("odd {}", i));
        d.error(Span::new(f, 0, 1), format!("bad {}", i));
    }
    let out = d.render(&map);
    assert_eq!(out.matches(": error: bad").count(), 20);
    assert_eq!(out.matches(": warning: odd").count(), 180);
    assert!(out.contains("... and 280 more errors (too many errors)\n"), "{}", out);
    assert!(out.ends_with("... and 120 more warnings\n"), "{}", out);
}

#[test]
fn the_same_error_at_the_same_place_counts_once() {
    let mut map = SourceMap::new();
    let f = map.add("p.mpd", "x y\n");
    let mut d = Diagnostics::new();
    d.error(Span::new(f, 0, 1), "undeclared x");
    d.error(Span::new(f, 0, 1), "undeclared x");
    d.error(Span::new(f, 2, 3), "undeclared x");
    assert_eq!(d.error_count(), 2);
    assert_eq!(d.render(&map).matches("error: undeclared x").count(), 2);
}

#[test]
fn spans_out_of_range_or_inside_a_character_do_not_panic() {
    let mut map = SourceMap::new();
    let f = map.add("p.mpd", "é\n");
    let mut d = Diagnostics::new();
    d.error(Span::new(f, 1, 1), "inside a character");
    d.error(Span::new(f, 500, 900), "past the end");
    d.error(Span::new(f, 2, 1), "reversed");
    d.error(Span::new(7, 0, 1), "unknown file");
    let out = d.render(&map);
    assert_eq!(out.matches("error: ").count(), 4, "{}", out);
}
