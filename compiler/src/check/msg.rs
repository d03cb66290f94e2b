//! msg: MPD 1.0.1's wording for diagnostics that several checks share, and
//! the few that SR 2.3.3 words differently.
//!
//! SR 2.3.3 and MPD 1.0.1 share their compilers' messages almost word for
//! word (MPD's compiler is SR's, renamed): of SR's ~150 error strings, the
//! ones that differ for the same error are in `Wording` below; the rest,
//! SR-only constructs (`initial`, `string(n)`, type restrictions, `var x`
//! without type or value, `var a, b := e`), are the SR parser's own.  The
//! language is the source file's (`dialect`): a program may mix both only
//! through imported specs, and each message follows the file it points at.
use crate::syntax::ast::Span;
use crate::syntax::SourceMap;

/// A call with the wrong number of arguments: `p(): not enough arguments`.
pub fn arity(name: &str, want: usize, got: usize) -> String {
    let how = if got < want { "not enough" } else { "too many" };
    format!("{}(): {} arguments ({} takes {}, not {})", name, how, name, want, got)
}

/// The language a diagnostic's source is written in.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Dialect {
    Mpd,
    Sr,
}

/// The dialect of the file `span` points into (the SR front end reads the
/// files whose name says SR: `syntax::sr::is_sr_name`).
pub fn dialect(map: &SourceMap, span: Span) -> Dialect {
    if crate::syntax::sr::is_sr_name(map.name(span.file)) {
        Dialect::Sr
    } else {
        Dialect::Mpd
    }
}

/// Errors whose words differ between MPD 1.0.1 and SR 2.3.3.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Wording {
    /// `send` (MPD: also `fork`) to an op restricted to {call}.
    SendRestrictedCall,
    /// An expression statement `a = b`: the assignment is spelled differently.
    SuspiciousComparison,
    /// `return e`: neither language's return takes a value.
    ReturnValue,
}

/// The message head for `w` in dialect `d` (callers may add an explanation).
pub fn words(w: Wording, d: Dialect) -> &'static str {
    use Dialect::*;
    use Wording::*;
    match (w, d) {
        (SendRestrictedCall, Mpd) => "send/fork: op is restricted {call}",
        (SendRestrictedCall, Sr) => "send: op is restricted {call}",
        (SuspiciousComparison, Mpd) => "suspicious comparison -- was `=' intended?",
        (SuspiciousComparison, Sr) => "suspicious comparison -- was `:=' intended?",
        (ReturnValue, Mpd) => "MPD's return takes no value; assign the result variable instead",
        (ReturnValue, Sr) => "SR's return takes no value; assign the result variable instead",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wording_has_both_dialects_and_they_differ() {
        for w in [Wording::SendRestrictedCall, Wording::SuspiciousComparison, Wording::ReturnValue] {
            assert_ne!(words(w, Dialect::Mpd), words(w, Dialect::Sr));
        }
    }
}
