//! Lowercase hex, for the few places that put bytes into text: token
//! secrets and IDs, schema-derived names, temporary file names and
//! opaque cursors.

/// `bytes` as lowercase hex, two digits a byte.
pub fn encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of `text`, an even number of hex digits; `None` for anything else.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    // `from_str_radix` alone would also take a sign ("+1").
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_it_encodes_and_nothing_else() {
        let bytes = [0u8, 1, 0x7f, 0xab, 0xff];
        assert_eq!(encode(&bytes), "00017fabff");
        assert_eq!(decode(&encode(&bytes)).unwrap(), bytes);
        for bad in ["0", "zz", "0g", "+1", "é0"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
