//! mpdc: the MPD compiler as a library.
//! The path of a program: syntax (text -> AST) -> check (AST -> typed IR)
//! -> emit (typed IR -> C) ; driver runs cc and the linker; inter keeps
//! MPDinter (separate compilation).
pub mod check;
pub mod driver;
pub mod emit;
pub mod inter;
pub mod mpdm;
pub mod prep;
pub mod prof;
pub mod srfmt;
pub mod syntax;
