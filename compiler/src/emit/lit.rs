//! lit: C literals that reproduce MPD values exactly, whatever bytes they hold.

/// A C string literal for arbitrary bytes: printable ASCII stays, the rest is octal.
pub fn c_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'?' => s.push_str("\\?"), // no trigraphs
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{:03o}", b)),
        }
    }
    s.push('"');
    s
}

/// A C double literal that round-trips.
pub fn c_real(x: f64) -> String {
    if x.is_nan() {
        "(0.0/0.0)".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "(1.0/0.0)".into()
        } else {
            "(-1.0/0.0)".into()
        }
    } else {
        let s = format!("{:?}", x);
        if s.contains('.') || s.contains('e') || s.contains("inf") {
            s
        } else {
            format!("{}.0", s)
        }
    }
}

/// A C int literal (INT_MIN needs care).
pub fn c_int(v: i64) -> String {
    if v == i32::MIN as i64 {
        "(-2147483647-1)".into()
    } else if v < 0 {
        format!("({})", v)
    } else {
        format!("{}", v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn escapes() {
        assert_eq!(c_string(b"a\"b\\c\n?"), "\"a\\\"b\\\\c\\012\\?\"");
        assert_eq!(c_string(&[0, 255]), "\"\\000\\377\"");
    }
    #[test]
    fn reals() {
        assert_eq!(c_real(1.0), "1.0");
        assert_eq!(c_real(1.5e300), "1.5e300");
        assert_eq!(c_int(-2147483648), "(-2147483647-1)");
    }
}

/// A char constant: its code.
pub fn c_char(c: u8) -> String {
    c.to_string()
}
