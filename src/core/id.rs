//! Paste IDs: random, typo-resistant, and checkable without touching storage.
//!
//! An ID is `n` random symbols followed by one check symbol, all drawn from a
//! 31-symbol alphabet with no look-alike characters (`2-9`, `a-z` minus `i l o`).
//!
//! The check symbol makes the weighted sum `Σ w_k · v_k` over the whole ID
//! (data symbols and check symbol) vanish modulo 31, where the weights are
//! `n+1, n, …, 2` for the data symbols and `1` for the check symbol. Because
//! 31 is prime and every weight is in `1..=30`:
//! - changing one symbol by `d ≠ 0` changes the sum by `w·d ≢ 0 (mod 31)`;
//! - swapping two adjacent different symbols `a, b` changes it by
//!   `(a − b)(w_k − w_{k+1}) = ±(a − b) ≢ 0`, since neighbouring weights differ by 1.
//!
//! So every single-symbol typo and every adjacent swap is detected; the tests
//! in this module try all of them on sample IDs. Weights must stay below 31,
//! which is why the random part is limited to [`MAX_RANDOM_LEN`] symbols.

use std::fmt;

use super::random::OsRandom;

/// The symbols an ID is made of, in value order. Its length (31) is prime.
pub const ALPHABET: &[u8; 31] = b"23456789abcdefghjkmnpqrstuvwxyz";

/// Default number of random symbols: 12 × log2(31) ≈ 59.4 bits.
pub const DEFAULT_RANDOM_LEN: usize = 12;
/// Shortest random part a server may be configured with (≈ 39.6 bits).
pub const MIN_RANDOM_LEN: usize = 8;
/// Longest random part: keeps every weight (`len + 1`) below the modulus.
pub const MAX_RANDOM_LEN: usize = 29;

pub(super) const MODULUS: u32 = ALPHABET.len() as u32;

/// A syntactically valid paste ID (lower case, correct check symbol).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PasteId(Box<str>);

/// Why a string is not a paste ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// Too short or too long to be an ID of any configuration.
    #[error("a paste ID has {min} to {max} characters", min = MIN_RANDOM_LEN + 1, max = MAX_RANDOM_LEN + 1)]
    Length,
    /// Contains a character outside the alphabet.
    #[error("a paste ID contains only 2-9 and a-z without i, l and o")]
    Character,
    /// Well-formed, but the check symbol does not match: most likely a typo.
    #[error("this link looks mistyped: its check character does not match")]
    Checksum,
}

impl PasteId {
    /// Makes a fresh ID with `random_len` symbols from the OS CSPRNG plus a check symbol.
    ///
    /// Fails only if the operating system cannot supply randomness.
    pub fn generate(random_len: usize) -> Result<Self, getrandom::Error> {
        Self::generate_from(random_len, &mut OsRandom::new()?)
    }

    /// [`Self::generate`] with bytes from `random` (which a create shares
    /// with its delete token).
    pub fn generate_from(
        random_len: usize,
        random: &mut OsRandom,
    ) -> Result<Self, getrandom::Error> {
        let random_len = random_len.clamp(MIN_RANDOM_LEN, MAX_RANDOM_LEN);
        let mut values = Vec::with_capacity(random_len + 1);
        push_random(&mut values, random_len, random)?;
        Ok(Self::with_check(values))
    }

    /// The ID made of the symbol values `data` (each below 31) and their
    /// check symbol.
    pub(super) fn with_check(mut data: Vec<u32>) -> Self {
        data.push(check_value(&data));
        let text: String = data.iter().map(|&v| char::from(symbol(v))).collect();
        Self(text.into_boxed_str())
    }

    /// Parses user input: case-insensitive, checked, never touching storage.
    pub fn parse(input: &str) -> Result<Self, IdError> {
        Self::check(input)?;
        Ok(Self(input.to_ascii_lowercase().into_boxed_str()))
    }

    /// Whether `input` would parse, without allocating: one pass over its
    /// bytes, which is all the read path's routing needs.
    pub fn check(input: &str) -> Result<(), IdError> {
        let len = input.len();
        if !(MIN_RANDOM_LEN + 1..=MAX_RANDOM_LEN + 1).contains(&len) {
            return Err(IdError::Length);
        }
        // Position k (from 0) weighs len − k: n+1 … 2 for the data, 1 for the check.
        let mut sum = 0;
        for (k, byte) in input.bytes().enumerate() {
            let value = value_of(byte).ok_or(IdError::Character)?;
            sum += (len - k) as u32 * value;
        }
        if sum % MODULUS != 0 {
            return Err(IdError::Checksum);
        }
        Ok(())
    }

    /// The canonical (lower-case) text of the ID.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PasteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for PasteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PasteId({})", self.0)
    }
}

/// Appends `count` symbol values drawn uniformly from `random`.
pub(super) fn push_random(
    values: &mut Vec<u32>,
    count: usize,
    random: &mut OsRandom,
) -> Result<(), getrandom::Error> {
    let target = values.len() + count;
    // 248 = 8 × 31: bytes below it map uniformly onto the alphabet.
    let mut pool = [0u8; 48];
    while values.len() < target {
        random.fill(&mut pool)?;
        values.extend(
            pool.iter()
                .filter(|&&b| b < 248)
                .map(|&b| u32::from(b) % MODULUS)
                .take(target - values.len()),
        );
    }
    Ok(())
}

/// The check value that makes the weighted sum of `data ‖ check` vanish mod 31.
fn check_value(data: &[u32]) -> u32 {
    let n = data.len() as u32;
    let sum: u32 = data
        .iter()
        .enumerate()
        .map(|(k, &v)| (n + 1 - k as u32) * v)
        .sum::<u32>()
        % MODULUS;
    (MODULUS - sum) % MODULUS
}

fn symbol(value: u32) -> u8 {
    ALPHABET[value as usize]
}

/// Value of each byte (either case), or `NOT_A_SYMBOL`.
const VALUES: [u8; 256] = {
    let mut table = [NOT_A_SYMBOL; 256];
    let mut value = 0;
    while value < ALPHABET.len() {
        let symbol = ALPHABET[value];
        table[symbol as usize] = value as u8;
        table[symbol.to_ascii_uppercase() as usize] = value as u8;
        value += 1;
    }
    table
};
const NOT_A_SYMBOL: u8 = u8::MAX;

/// The value of a symbol, case-insensitively.
pub(super) fn value_of(byte: u8) -> Option<u32> {
    let value = VALUES[usize::from(byte)];
    (value != NOT_A_SYMBOL).then_some(u32::from(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<PasteId> {
        (0..200)
            .map(|i| PasteId::generate(MIN_RANDOM_LEN + i % (MAX_RANDOM_LEN - MIN_RANDOM_LEN + 1)))
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// Generated IDs have the configured length, use only the alphabet and pass their own check.
    #[test]
    fn generated_ids_are_valid() {
        for len in MIN_RANDOM_LEN..=MAX_RANDOM_LEN {
            let id = PasteId::generate(len).unwrap();
            assert_eq!(id.as_str().len(), len + 1);
            assert!(id.as_str().bytes().all(|b| ALPHABET.contains(&b)));
            assert_eq!(PasteId::parse(id.as_str()).unwrap(), id);
        }
    }

    /// Input is case-insensitive and canonicalised to lower case.
    #[test]
    fn parsing_ignores_case() {
        let id = PasteId::generate(DEFAULT_RANDOM_LEN).unwrap();
        let upper = id.as_str().to_ascii_uppercase();
        assert_eq!(PasteId::parse(&upper).unwrap(), id);
    }

    /// Every single-character substitution, by any other alphabet symbol, is caught.
    #[test]
    fn every_single_substitution_is_detected() {
        for id in samples() {
            let bytes = id.as_str().as_bytes();
            for pos in 0..bytes.len() {
                for &other in ALPHABET.iter().filter(|&&s| s != bytes[pos]) {
                    let mut typo = bytes.to_vec();
                    typo[pos] = other;
                    let typo = String::from_utf8(typo).unwrap();
                    assert_eq!(
                        PasteId::parse(&typo),
                        Err(IdError::Checksum),
                        "{id} -> {typo}"
                    );
                }
            }
        }
    }

    /// Every swap of two adjacent different characters, the check character included, is caught.
    #[test]
    fn every_adjacent_swap_is_detected() {
        let mut swaps = 0;
        for id in samples() {
            let bytes = id.as_str().as_bytes();
            for pos in 0..bytes.len() - 1 {
                if bytes[pos] == bytes[pos + 1] {
                    continue;
                }
                let mut typo = bytes.to_vec();
                typo.swap(pos, pos + 1);
                let typo = String::from_utf8(typo).unwrap();
                assert_eq!(
                    PasteId::parse(&typo),
                    Err(IdError::Checksum),
                    "{id} -> {typo}"
                );
                swaps += 1;
            }
        }
        assert!(swaps > 1000, "too few swaps exercised: {swaps}");
    }

    /// The check also holds exhaustively for every two-symbol pair at every position of a fixed ID.
    #[test]
    fn exhaustive_swaps_on_a_fixed_id() {
        let base = vec![0u32; MAX_RANDOM_LEN];
        for pos in 0..MAX_RANDOM_LEN - 1 {
            for a in 0..MODULUS {
                for b in 0..MODULUS {
                    if a == b {
                        continue;
                    }
                    let mut data = base.clone();
                    data[pos] = a;
                    data[pos + 1] = b;
                    let mut swapped = data.clone();
                    swapped.swap(pos, pos + 1);
                    assert_ne!(check_value(&data), check_value(&swapped));
                }
            }
        }
    }

    /// Wrong lengths and foreign characters are rejected with their own reasons.
    #[test]
    fn malformed_input_is_rejected() {
        assert_eq!(PasteId::parse(""), Err(IdError::Length));
        assert_eq!(PasteId::parse("abc"), Err(IdError::Length));
        assert_eq!(PasteId::parse(&"a".repeat(31)), Err(IdError::Length));
        assert_eq!(PasteId::parse("k7m3q9xw2hd4o"), Err(IdError::Character));
        assert_eq!(PasteId::parse("k7m3q9xw2hd4/"), Err(IdError::Character));
        assert_eq!(PasteId::parse("k7m3q9xw2hd4é"), Err(IdError::Character));
    }
}

/// Property tests of ID parsing, which sees every client's path; run with a
/// large `PROPTEST_CASES` by `bench/fuzz`.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any text parses or is refused without a panic; what parses is
        /// the input in lower case and checks again.
        #[test]
        fn fuzz_paste_ids(input in prop_oneof![
            "\\PC{0,40}",
            "[2-9a-hjkmnp-zA-Z]{7,31}",
            any::<Vec<u8>>().prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        ]) {
            let checked = PasteId::check(&input);
            match PasteId::parse(&input) {
                Ok(id) => {
                    prop_assert!(checked.is_ok());
                    prop_assert_eq!(id.as_str(), input.to_ascii_lowercase());
                    prop_assert!(PasteId::check(id.as_str()).is_ok());
                }
                Err(e) => prop_assert_eq!(checked, Err(e)),
            }
        }
    }
}
