//! Fuzz target: lexer + parser + diagnostic rendering + AST dump must never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpdc::syntax::{dump, parse_source, Diagnostics, SourceMap};

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let file = parse_source(&mut map, "fuzz.mpd", &src, &mut diags);
    let _ = dump::file(&file);
    let _ = diags.render(&map);
});
