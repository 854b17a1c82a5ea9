//! Recently read pastes, kept decoded in memory, for both backends.
//!
//! A shared link is read many times. Without the cache, each read is a
//! lookup in the store (a fjall get and a body read, or a round trip to
//! PostgreSQL) and a decode of the metadata with its allocations; a hit here
//! is a hash lookup and a clone.
//!
//! The cache itself knows nothing of coherence: each backend evicts what it
//! removes and makes sure a fill cannot resurrect a paste removed meanwhile
//! (the embedded store under the ID's lock, PostgreSQL with generations, see
//! `postgres::coherent_cache`). Entries are never trusted for expiry: readers check
//! `expires_at` against the clock on every hit, as on every store read.
//!
//! Burn pastes are never cached (they are read once, by a reveal), nor are
//! bodies of [`LARGEST`] bytes and more, which would crowd out many small
//! pastes for one large one (in the embedded store they are also the bodies
//! kept in files of their own).
//!
//! A paste stored compressed is kept both decompressed (what most reads
//! send) and compressed (what clients accepting zstd get), and weighs both.

use std::sync::Arc;

use bytes::Bytes;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

use crate::core::PasteMeta;
use crate::store::Paste;

/// Bodies this large or larger are not cached.
pub const LARGEST: u64 = 64 << 10;

/// Heap bytes of a cached paste besides its bodies and the text of its
/// strings: the decoded metadata behind its `Arc` (a few hundred bytes even
/// when most fields are `None`), the key, the bodies' handles and the
/// table's slot with the room the table keeps free. Counting less would let
/// a cache of small pastes hold well over its share of `--cache-size`.
const ENTRY_FIXED: u64 = 512;

/// A cached paste: metadata, body, and the body compressed if it is stored so.
type Entry = (Arc<PasteMeta>, Bytes, Option<Bytes>);

/// Decoded pastes by ID, bounded by their total size.
pub struct PasteCache {
    pastes: Cache<String, Entry, BySize>,
}

#[derive(Clone)]
struct BySize;

impl Weighter<String, Entry> for BySize {
    fn weight(&self, id: &String, (meta, body, compressed): &Entry) -> u64 {
        let compressed = compressed.as_ref().map_or(0, Bytes::len);
        (id.len() + text_bytes(meta) + body.len() + compressed) as u64 + ENTRY_FIXED
    }
}

/// The bytes of the metadata's strings, each a heap allocation of its own.
fn text_bytes(meta: &PasteMeta) -> usize {
    [&meta.lang, &meta.name, &meta.owner, &meta.redirect]
        .into_iter()
        .flatten()
        .chain([&meta.id, &meta.content_type])
        .map(String::len)
        .sum()
}

impl PasteCache {
    /// A cache holding up to about `bytes` of pastes.
    pub fn new(bytes: u64) -> Self {
        // quick_cache sizes its tables from an item count; assume small pastes.
        let items = usize::try_from(bytes / 2048).unwrap_or(usize::MAX).max(16);
        Self {
            pastes: Cache::with_weighter(items, bytes.max(1), BySize),
        }
    }

    /// The cached paste with ID `id`, if any (expired or not: the caller
    /// checks). Its metadata is shared with the cache, not copied.
    pub fn get(&self, id: &str) -> Option<Paste> {
        self.pastes.get(id).map(|(meta, body, compressed)| Paste {
            meta,
            body,
            compressed,
        })
    }

    /// The cached metadata of `id`, if any.
    pub fn meta(&self, id: &str) -> Option<PasteMeta> {
        self.pastes
            .get(id)
            .map(|(meta, ..)| PasteMeta::clone(&meta))
    }

    /// Keeps `paste` if it is worth caching. The caller makes sure no
    /// removal of the paste can happen meanwhile (see the module docs).
    pub fn fill(&self, paste: &Paste) {
        if paste.meta.burn || paste.meta.size >= LARGEST {
            return;
        }
        // A copy, not a share: the cache counts a paste by its body's length,
        // so it must not keep alive a larger buffer the body may be a slice
        // of. A fill happens on a miss, never on a hit.
        let body = Bytes::copy_from_slice(&paste.body);
        let compressed = paste.compressed.as_deref().map(Bytes::copy_from_slice);
        self.pastes.insert(
            paste.meta.id.clone(),
            (paste.meta.clone(), body, compressed),
        );
    }

    /// Forgets `id`.
    pub fn evict(&self, id: &str) {
        self.pastes.remove(id);
    }

    /// Forgets every paste.
    pub fn clear(&self) {
        self.pastes.clear();
    }

    /// How many pastes are cached.
    pub fn len(&self) -> usize {
        self.pastes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Visibility;

    fn paste(id: &str, burn: bool, size: usize) -> Paste {
        Paste {
            meta: Arc::new(PasteMeta {
                id: id.into(),
                created_at: 1,
                expires_at: None,
                burn,
                encrypted: false,
                lang: None,
                name: None,
                content_type: "text/plain; charset=utf-8".into(),
                size: size as u64,
                delete_token_hash: [0; 32],
                owner: None,
                visibility: Visibility::Unlisted,
                redirect: None,
                key_check: None,
                files: Vec::new(),
                author: None,
            }),
            body: Bytes::from(vec![b'x'; size]),
            compressed: None,
        }
    }

    #[test]
    fn fills_evicts_and_skips_burn_and_large_pastes() {
        let cache = PasteCache::new(1 << 20);
        cache.fill(&paste("a", false, 10));
        cache.fill(&paste("burn", true, 10));
        cache.fill(&paste("large", false, 64 << 10));
        assert_eq!(cache.get("a").map(|p| p.body.len()), Some(10));
        assert_eq!(cache.meta("a").map(|m| m.size), Some(10));
        assert!(cache.get("burn").is_none());
        assert!(cache.get("large").is_none());
        cache.evict("a");
        assert!(cache.get("a").is_none());
    }

    /// The cache keeps its own copy of a body that is a slice of a larger
    /// buffer, which its size accounting would not see.
    #[test]
    fn does_not_keep_the_buffer_a_body_was_sliced_from() {
        let cache = PasteCache::new(1 << 20);
        let block = Bytes::from(vec![b'x'; 4096]);
        let mut sliced = paste("a", false, 16);
        sliced.body = block.slice(100..116);
        cache.fill(&sliced);
        drop(sliced);
        assert!(block.is_unique(), "the cache holds the 4 KiB block");
        assert_eq!(
            cache.get("a").map(|p| p.body),
            Some(Bytes::from(vec![b'x'; 16]))
        );
    }

    /// A paste stored compressed keeps both forms, and weighs both.
    #[test]
    fn keeps_and_weighs_the_compressed_form() {
        let mut compressed = paste("z", false, 1000);
        compressed.compressed = Some(Bytes::from(vec![b'z'; 300]));
        Arc::make_mut(&mut compressed.meta).name = Some("main.rs".into());
        let entry = (
            compressed.meta.clone(),
            compressed.body.clone(),
            compressed.compressed.clone(),
        );
        // The bodies, the key "z", then the ID, content type and name.
        assert_eq!(
            BySize.weight(&"z".to_owned(), &entry),
            1300 + 1 + (1 + 25 + 7) + ENTRY_FIXED
        );
        let cache = PasteCache::new(1 << 20);
        cache.fill(&compressed);
        let hit = cache.get("z").unwrap();
        assert_eq!(
            (hit.body.len(), hit.compressed.map(|c| c.len())),
            (1000, Some(300))
        );
    }

    #[test]
    fn stays_within_its_size() {
        let cache = PasteCache::new(64 << 10);
        for i in 0..1000 {
            cache.fill(&paste(&format!("p{i}"), false, 1024));
        }
        let held = (0..1000)
            .filter(|i| cache.get(&format!("p{i}")).is_some())
            .count() as u64;
        assert!(
            held > 0 && held * (1024 + ENTRY_FIXED) <= 64 << 10,
            "{held}"
        );
    }
}
