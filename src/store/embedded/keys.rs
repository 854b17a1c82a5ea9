//! The key layouts of the index keyspaces, in one place because writes,
//! removals, listings and the sweep must agree on them byte for byte.

use crate::core::UnixTime;

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
