//! Property tests of the envelope's parsers (the header, the sealed
//! metadata, the key in a link), which read what any client uploads;
//! `bench/fuzz` runs them long.

use proptest::prelude::*;

use super::*;

/// Bytes that often start like an envelope, so the checks past the
/// magic are reached.
fn envelope_like() -> impl Strategy<Value = Vec<u8>> {
    let head = prop_oneof![
        Just(Vec::new()),
        Just(MAGIC.to_vec()),
        Just([&MAGIC[..], &[VERSION, 0]].concat()),
        Just([&MAGIC[..], &[VERSION, FLAG_PASSWORD]].concat()),
    ];
    (head, proptest::collection::vec(any::<u8>(), 0..200))
        .prop_map(|(head, tail)| [head, tail].concat())
}

proptest! {
    /// Any upload parses as a header or is refused, and opening it with
    /// a key (no password: no key stretching) fails cleanly or gives
    /// back metadata and content no larger than the upload.
    #[test]
    fn fuzz_envelopes(bytes in envelope_like(), fragment in "\\PC{0,60}", json in any::<Vec<u8>>()) {
        if let Ok(header) = Header::parse(&bytes) {
            prop_assert!(bytes.len() >= MIN_LEN);
            prop_assert!(header.iterations <= MAX_ITERATIONS);
        }
        if let Ok((_, content)) = open(&bytes, &Key::from_bytes([7; KEY_LEN]), None) {
            prop_assert!(content.len() <= bytes.len());
        }
        let _ = Key::from_fragment(&fragment);
        let _ = Meta::from_json(&json);
    }
}
