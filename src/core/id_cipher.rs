//! Numbered paste IDs: a store counts its pastes, and a secret permutation
//! of the ID space turns each number into an ID no one can guess or
//! enumerate without the key.
//!
//! Two different numbers always give two different IDs, so a store that
//! numbers its pastes never has to search for a new ID to prove it free,
//! nor keep a filter of every stored ID to make that search cheap; and
//! turning an ID back into its number tells at once whether the store can
//! hold it (a guessed ID decrypts to a number far beyond any issued).
//!
//! The first `min(random_len, 12)` symbols are the number, encrypted with a
//! 10-round Feistel network over the smallest even number of bits that holds
//! `31^k` values, AES-128 as its round function, and cycle-walking to stay
//! inside the `31^k` values (on average 1.5 times round at the default 12
//! symbols). Symbols past the 12th are random: the prefix alone is unique,
//! and 12 symbols (59 bits) keep every domain inside a `u64`. The check
//! symbol follows, as for every ID.

// aes-gcm's own block cipher, re-exported: no crate of its own to add.
use aes_gcm::aes::Aes128;
use aes_gcm::aes::cipher::{BlockCipherEncrypt, KeyInit};

use super::id::{MODULUS, PasteId, push_random, value_of};
use super::random::OsRandom;

/// Symbols of an ID that encode its number; any more are random.
const NUMBERED_LEN: usize = 12;

/// Feistel rounds: what NIST's FF1 uses for format-preserving encryption of
/// small domains.
const ROUNDS: u8 = 10;

/// Bytes of a key.
pub const KEY_BYTES: usize = 16;

/// The secret permutation of a store's ID space; see the module documentation.
pub struct IdCipher {
    aes: Aes128,
}

impl IdCipher {
    /// The permutation `key` chooses.
    pub fn new(key: &[u8; KEY_BYTES]) -> Self {
        Self {
            aes: Aes128::new(key.into()),
        }
    }

    /// The ID of `number` with `random_len` symbols before its check symbol,
    /// or `None` if the number does not fit the first `min(random_len, 12)`
    /// symbols (past 852 billion at the shortest length).
    pub fn id(
        &self,
        number: u64,
        random_len: usize,
        random: &mut OsRandom,
    ) -> Option<Result<PasteId, getrandom::Error>> {
        let random_len = random_len.clamp(super::id::MIN_RANDOM_LEN, super::id::MAX_RANDOM_LEN);
        let domain = Domain::of(random_len.min(NUMBERED_LEN));
        if number >= domain.size {
            return None;
        }
        let mut value = self.walk(&domain, number, Direction::Encrypt);
        let mut values = vec![0; domain.symbols];
        for slot in values.iter_mut().rev() {
            *slot = (value % u64::from(MODULUS)) as u32;
            value /= u64::from(MODULUS);
        }
        Some(
            push_random(&mut values, random_len - domain.symbols, random)
                .map(|()| PasteId::with_check(values)),
        )
    }

    /// The number whose ID starts as `id` does: exactly it for an ID made by
    /// [`Self::id`] with this key, an arbitrary one for any other. `id` is
    /// a parsed ID (symbols and check symbol), of any length.
    pub fn number(&self, id: &str) -> u64 {
        let random_len = id.len().saturating_sub(1);
        let domain = Domain::of(random_len.min(NUMBERED_LEN));
        let value = id.bytes().take(domain.symbols).fold(0u64, |value, byte| {
            value * u64::from(MODULUS) + u64::from(value_of(byte).unwrap_or(0))
        });
        self.walk(&domain, value, Direction::Decrypt)
    }

    /// Applies the Feistel network to `x` until the result is in the domain.
    fn walk(&self, domain: &Domain, mut x: u64, direction: Direction) -> u64 {
        loop {
            x = self.feistel(domain, x, direction);
            if x < domain.size {
                return x;
            }
        }
    }

    fn feistel(&self, domain: &Domain, x: u64, direction: Direction) -> u64 {
        let half = domain.half_bits;
        let mask = (1u64 << half) - 1;
        let (mut left, mut right) = (x >> half, x & mask);
        match direction {
            Direction::Encrypt => {
                for round in 0..ROUNDS {
                    (left, right) = (right, left ^ (self.round(domain, round, right) & mask));
                }
            }
            Direction::Decrypt => {
                for round in (0..ROUNDS).rev() {
                    (left, right) = (right ^ (self.round(domain, round, left) & mask), left);
                }
            }
        }
        (left << half) | right
    }

    /// The round function: AES of the round, the domain and the half.
    fn round(&self, domain: &Domain, round: u8, half: u64) -> u64 {
        let mut block = [0u8; 16];
        block[0] = round;
        block[1] = domain.symbols as u8;
        block[8..].copy_from_slice(&half.to_le_bytes());
        let mut block = block.into();
        self.aes.encrypt_block(&mut block);
        let bytes: [u8; 16] = block.into();
        u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default())
    }
}

#[derive(Clone, Copy)]
enum Direction {
    Encrypt,
    Decrypt,
}

/// The numbers `k` symbols hold, and the Feistel network's half width.
struct Domain {
    symbols: usize,
    size: u64,
    half_bits: u32,
}

impl Domain {
    fn of(symbols: usize) -> Self {
        let size = u64::from(MODULUS).pow(symbols as u32);
        Self::sized(symbols, size)
    }

    /// A domain of `size` numbers (tests use small ones).
    fn sized(symbols: usize, size: u64) -> Self {
        let bits = u64::BITS - (size - 1).leading_zeros();
        Self {
            symbols,
            size,
            half_bits: bits.div_ceil(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::core::id::{DEFAULT_RANDOM_LEN, MAX_RANDOM_LEN, MIN_RANDOM_LEN};

    fn cipher(seed: u8) -> IdCipher {
        IdCipher::new(&[seed; KEY_BYTES])
    }

    fn id(cipher: &IdCipher, number: u64, len: usize) -> PasteId {
        let mut random = OsRandom::new().unwrap();
        cipher.id(number, len, &mut random).unwrap().unwrap()
    }

    /// On a small domain, encryption visits every value once and decryption
    /// undoes it: a permutation, with cycle-walking (1000 of 1024 values).
    #[test]
    fn the_network_permutes_a_small_domain() {
        let cipher = cipher(1);
        let domain = Domain::sized(3, 1000);
        let images: Vec<u64> = (0..1000)
            .map(|n| cipher.walk(&domain, n, Direction::Encrypt))
            .collect();
        assert_eq!(images.iter().copied().collect::<HashSet<_>>().len(), 1000);
        assert!(images.iter().all(|&v| v < 1000));
        for (n, &v) in images.iter().enumerate() {
            assert_eq!(cipher.walk(&domain, v, Direction::Decrypt), n as u64);
        }
        assert_ne!(images, (0..1000).collect::<Vec<_>>(), "not the identity");
    }

    /// Consecutive numbers give distinct, valid IDs that decrypt to their
    /// numbers, at every length.
    #[test]
    fn ids_are_valid_distinct_and_give_back_their_numbers() {
        let cipher = cipher(2);
        for len in MIN_RANDOM_LEN..=MAX_RANDOM_LEN {
            let mut seen = HashSet::new();
            for number in (0..300).chain([10_000_000, 852_891_037_440]) {
                let id = id(&cipher, number, len);
                assert_eq!(id.as_str().len(), len + 1);
                assert_eq!(PasteId::parse(id.as_str()).unwrap(), id);
                assert_eq!(cipher.number(id.as_str()), number, "{id} of {number}");
                assert!(seen.insert(id.as_str()[..len.min(NUMBERED_LEN)].to_owned()));
            }
        }
    }

    /// A number the shortest IDs cannot hold is refused, not wrapped.
    #[test]
    fn a_number_past_the_domain_is_refused() {
        let mut random = OsRandom::new().unwrap();
        let size = Domain::of(MIN_RANDOM_LEN).size;
        assert!(cipher(3).id(size, MIN_RANDOM_LEN, &mut random).is_none());
        assert!(
            cipher(3)
                .id(size, DEFAULT_RANDOM_LEN, &mut random)
                .is_some()
        );
    }

    /// Another key gives other IDs, and IDs it did not make decrypt to
    /// numbers far beyond the few issued.
    #[test]
    fn the_key_decides_the_ids() {
        let (a, b) = (cipher(4), cipher(5));
        let ids: Vec<PasteId> = (0..1000).map(|n| id(&a, n, DEFAULT_RANDOM_LEN)).collect();
        assert!((0..1000).all(|n| id(&b, n, DEFAULT_RANDOM_LEN) != ids[n as usize]));
        let below = ids
            .iter()
            .filter(|id| b.number(id.as_str()) < 1_000_000)
            .count();
        assert_eq!(below, 0, "random numbers below 10^6 of 7.9 × 10^17");
        let guessed = (0..1000)
            .map(|_| PasteId::generate(DEFAULT_RANDOM_LEN).unwrap())
            .filter(|id| a.number(id.as_str()) < 1_000_000)
            .count();
        assert_eq!(guessed, 0);
    }

    /// Numbers in order do not give IDs in order: the first symbols of
    /// consecutive numbers' IDs spread over the alphabet.
    #[test]
    fn consecutive_numbers_look_unrelated() {
        let cipher = cipher(6);
        let firsts: HashSet<u8> = (0..200)
            .map(|n| id(&cipher, n, DEFAULT_RANDOM_LEN).as_str().as_bytes()[0])
            .collect();
        assert!(firsts.len() > 25, "{} of 31 first symbols", firsts.len());
    }
}
