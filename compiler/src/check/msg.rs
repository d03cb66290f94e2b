//! msg: MPD 1.0.1's wording for diagnostics that several checks share.

/// A call with the wrong number of arguments: `p(): not enough arguments`.
pub fn arity(name: &str, want: usize, got: usize) -> String {
    let how = if got < want { "not enough" } else { "too many" };
    format!("{}(): {} arguments ({} takes {}, not {})", name, how, name, want, got)
}
