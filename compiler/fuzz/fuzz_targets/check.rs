//! Fuzz target: the whole front end (lexer, parser, name resolution, type
//! checking, constant folding and C generation) must never panic or hang,
//! whatever the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mpdc::check::{self, types::Types, Opts};
use mpdc::syntax::{parse_source, Diagnostics, SourceMap};
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let mut map = SourceMap::new();
    let mut diags = Diagnostics::new();
    let file = parse_source(&mut map, "fuzz.mpd", &src, &mut diags);
    if !diags.has_errors() {
        let mut ifaces = HashMap::new();
        let mut types = Types::default();
        let mut specs = HashMap::new();
        let opts = Opts { lines: true, ..Opts::default() };
        let _ = check::check_files(&map, &[(file, "fuzz.mpd".into())], &mut diags, &opts, &mut ifaces, &mut types, &mut specs);
    }
    let _ = diags.render(&map);
});
