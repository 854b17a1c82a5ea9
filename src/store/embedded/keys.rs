//! The key layouts of `meta` and the index keyspaces, in one place because
//! writes, removals, listings and the sweep must agree on them byte for byte.
//!
//! `meta` holds a paste the store numbered (`sequence`) under
//! [`numbered_key`], and any other paste (restored from a backup, or stored
//! before the store numbered its pastes) under its ID's bytes. IDs are
//! printable ASCII, so the two kinds of key never meet, and the numbered
//! ones sort first.

use crate::core::UnixTime;

/// The first byte of every [`numbered_key`].
const NUMBERED_TAG: u8 = 0;

/// `meta`'s key of the paste numbered `number`: big-endian, so new pastes
/// arrive in key order and each memtable flushed holds a range of keys of
/// its own, which fjall moves down the levels without rewriting it.
pub fn numbered_key(number: u64) -> [u8; 9] {
    let mut key = [NUMBERED_TAG; 9];
    key[1..].copy_from_slice(&number.to_be_bytes());
    key
}

/// No key of `meta` below this is an ID: it follows every [`numbered_key`].
pub const ID_KEYS_START: &[u8] = &[NUMBERED_TAG + 1];

/// Where a paste's entry is in `meta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaKey {
    /// Under [`numbered_key`] of this number.
    Numbered(u64),
    /// Under the paste's ID.
    Id,
}

impl MetaKey {
    /// The key's bytes, for the paste whose ID is `id`.
    pub fn bytes(self, id: &str) -> KeyBytes<'_> {
        match self {
            MetaKey::Numbered(number) => KeyBytes::Numbered(numbered_key(number)),
            MetaKey::Id => KeyBytes::Id(id.as_bytes()),
        }
    }
}

/// The bytes of a [`MetaKey`], without an allocation.
pub enum KeyBytes<'a> {
    Numbered([u8; 9]),
    Id(&'a [u8]),
}

impl AsRef<[u8]> for KeyBytes<'_> {
    fn as_ref(&self) -> &[u8] {
        match self {
            KeyBytes::Numbered(key) => key,
            KeyBytes::Id(id) => id,
        }
    }
}

/// `expires_at` big-endian then the ID, so byte order is expiry order.
pub fn expiry_key(at: UnixTime, id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + id.len());
    key.extend_from_slice(&at.to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

/// Tenant names never contain 0x00, so it ends the owner part unambiguously.
pub fn owner_prefix(owner: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(owner.len() + 1);
    key.extend_from_slice(owner.as_bytes());
    key.push(0);
    key
}

/// Inverted creation time makes ascending key order newest-first.
pub fn owner_key(owner: &str, created_at: UnixTime, id: &str) -> Vec<u8> {
    let mut key = owner_prefix(owner);
    key.extend_from_slice(&(!created_at).to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}
