//! Tests of the embedded store through its own API, on a temp data dir.

mod bodies;
mod ids;
mod numbering;
mod opening;
mod owners;
mod settling;

use super::*;
use crate::core::paste::Visibility;
use crate::core::{PasteId, PasteMeta};
use crate::store::{
    AccountStore, Encoding, ListQuery, Maintenance, NewBody, PasteStore, PutLimits, Taken,
};
use body_files::FILE_BODY_BYTES;
use bytes::Bytes;
use read::Read;
use std::sync::atomic::Ordering::SeqCst;
use std::time::Duration;

fn meta(id: &str, size: usize, owner: Option<&str>) -> PasteMeta {
    PasteMeta {
        id: id.into(),
        created_at: 1,
        expires_at: Some(100),
        burn: false,
        encrypted: false,
        lang: None,
        name: None,
        content_type: crate::core::paste::OCTET_STREAM.into(),
        size: size as u64,
        delete_token_hash: [0; 32],
        owner: owner.map(str::to_owned),
        visibility: Visibility::Unlisted,
        redirect: None,
        key_check: None,
        files: Vec::new(),
        author: None,
    }
}

/// The tests' store options: no storage limit, 1 MiB of caches.
fn options(durability: Durability) -> EmbeddedOptions {
    EmbeddedOptions {
        durability,
        max_bytes: None,
        cache_bytes: 1 << 20,
    }
}

fn open(dir: &Path) -> EmbeddedStore {
    let options = options(Durability::Os);
    let store = EmbeddedStore::open(dir, options).unwrap();
    // The owners the tests' pastes name: a paste of an unknown owner is refused.
    for name in ["a", "b"] {
        if store.inner.accounts.tenant(name).is_none() {
            store.inner.accounts.create_tenant(tenant(name)).unwrap();
        }
    }
    store
}

/// Drops `store` once no committer or removal thread holds it any more, so
/// that the data dir can be opened again at once (fjall locks it while open).
fn shut(store: EmbeddedStore) {
    while Arc::strong_count(&store.inner) > 1 {
        std::thread::yield_now();
    }
    drop(store);
}

fn tenant(name: &str) -> crate::core::tenant::Tenant {
    crate::core::tenant::Tenant {
        name: name.into(),
        created_at: 1,
        max_bytes: None,
        max_paste_bytes: None,
        rate: None,
        burst: None,
        program: None,
        program_fuel: None,
        program_memory: None,
        group: None,
    }
}

/// `len` bytes that do not compress (the store keeps them as they are), from `seed`.
fn noise(seed: u64, len: usize) -> Bytes {
    let words = (0..len.div_ceil(8) as u64)
        .flat_map(|i| xxhash_rust::xxh3::xxh3_64_with_seed(&i.to_le_bytes(), seed).to_le_bytes());
    words.take(len).collect()
}

fn new_id() -> String {
    PasteId::generate(12).unwrap().to_string()
}

fn id(text: &str) -> PasteId {
    PasteId::parse(text).unwrap()
}

/// `len` bytes of log-like text, which compress well.
fn log_text(len: usize) -> Bytes {
    let lines = (0..).map(|n: u64| {
        format!(
            "2026-11-25T21:{:02}:{:02}Z INFO worker-{} request {n} took {}ms\n",
            n % 60,
            n * 7 % 60,
            n % 4,
            n * 13 % 97
        )
    });
    let mut text: Vec<u8> = lines.flat_map(String::into_bytes).take(len).collect();
    text.truncate(len);
    Bytes::from(text)
}

fn deferred(dir: &Path) -> EmbeddedStore {
    let options = options(Durability::Os);
    let kernel = Arc::new(body_log::Kernel);
    EmbeddedStore::open_with(dir, options, kernel, open::IdScan::Deferred).unwrap()
}

/// The persisted counts equal a count of every stored paste, and admission
/// (nothing is staged here) starts from them.
fn assert_counts_match(store: &EmbeddedStore) {
    let inner = &store.inner;
    let scratch = known_ids::KnownIds::new(0, 1);
    let (counted, _) = usage::count(&inner.meta, &scratch).unwrap();
    assert_eq!(inner.counters.counts(), counted);
    assert_eq!(store.used_bytes(), counted.bytes);
    assert_eq!(store.stored_pastes(), counted.pastes);
    assert_eq!(*lock(&inner.usage), counted.owners);
}

/// Pastes of two owners and none, in the body log and in files, some removed.
async fn fill_and_remove(store: &EmbeddedStore) -> Vec<String> {
    let mut kept = Vec::new();
    for (n, owner) in [None, Some("a"), Some("b"), Some("a")]
        .iter()
        .cycle()
        .take(24)
        .enumerate()
    {
        let text = new_id();
        let size = if n % 7 == 0 {
            FILE_BODY_BYTES as usize
        } else {
            100 + n
        };
        let body = Bytes::from(vec![b'x'; size]);
        let m = meta(&text, size, *owner);
        store
            .put(m, NewBody::new(body), PutLimits::default())
            .await
            .unwrap();
        if n % 3 == 0 {
            assert!(store.delete(&id(&text), None).await.unwrap());
        } else {
            kept.push(text);
        }
    }
    kept
}
