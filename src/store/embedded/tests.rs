//! Tests of the embedded store through its own API, on a temp data dir.

use super::*;
use crate::core::paste::Visibility;
use crate::store::Encoding;
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
    }
}

fn open(dir: &Path) -> EmbeddedStore {
    let options = EmbeddedOptions {
        durability: Durability::Os,
        max_bytes: None,
        cache_bytes: 1 << 20,
    };
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

/// A large body is a file, not a fjall value; reading, taking and sweeping it work, and each removes the file.
#[tokio::test]
async fn large_bodies_are_files() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let big = FILE_BODY_BYTES as usize;
    let ids: Vec<String> = (0..3).map(|_| new_id()).collect();
    for (n, text) in ids.iter().enumerate() {
        let body = Bytes::from(vec![n as u8; big]);
        store
            .put(
                meta(text, big, None),
                NewBody::new(body),
                PutLimits::default(),
            )
            .await
            .unwrap();
        assert!(store.inner.files.path(text).unwrap().is_file());
        let (_, at) = store.inner.read_entry(text).unwrap().unwrap();
        assert_eq!(at, None, "a file-backed body is not in the body log");
    }
    assert_eq!(store.used_bytes(), 3 * big as u64);
    let got = store.get(&id(&ids[0]), 50).await.unwrap().unwrap();
    assert_eq!(got.body, vec![0u8; big]);
    let Taken::Paste(taken) = store.take(&id(&ids[1]), None, 50).await.unwrap() else {
        panic!("not taken");
    };
    assert_eq!(taken.body, vec![1u8; big]);
    assert!(!store.inner.files.path(&ids[1]).unwrap().exists());
    assert!(store.get(&id(&ids[1]), 50).await.unwrap().is_none());
    let report = store.sweep(100, 10).await.unwrap();
    assert_eq!(report.removed, 2);
    for text in &ids {
        assert!(!store.inner.files.path(text).unwrap().exists());
    }
    assert_eq!(store.used_bytes(), 0);
}

/// Concurrent puts of one ID, small and file-backed: exactly one is stored,
/// the others are told the ID is taken and leave no file or usage behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_id_is_stored_once() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(open(tmp.path()));
    let text = new_id();
    let big = FILE_BODY_BYTES as usize;
    let tasks: Vec<_> = (0..16u8)
        .map(|n| {
            let (store, text) = (store.clone(), text.clone());
            tokio::spawn(async move {
                let size = if n % 2 == 0 { 100 } else { big };
                let body = Bytes::from(vec![n; size]);
                let outcome = store
                    .put(
                        meta(&text, size, Some("a")),
                        NewBody::new(body),
                        PutLimits::default(),
                    )
                    .await;
                (n, size, outcome)
            })
        })
        .collect();
    let mut stored = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            (n, size, Ok(())) => stored.push((n, size)),
            (_, _, Err(StoreError::IdTaken)) => {}
            (_, _, Err(e)) => panic!("unexpected {e}"),
        }
    }
    let [(n, size)] = stored[..] else {
        panic!("stored {} times", stored.len());
    };
    let paste = store.get(&id(&text), 50).await.unwrap().unwrap();
    assert_eq!(paste.body, vec![n; size]);
    let usage = Usage {
        bytes: size as u64,
        pastes: 1,
    };
    assert_eq!(store.owner_usage("a").await.unwrap(), usage);
    assert_eq!(store.used_bytes(), size as u64);
    assert_eq!(store.inner.files.path(&text).unwrap().exists(), size == big);
    // A later put of the ID is refused too and changes nothing.
    let again = store
        .put(
            meta(&text, 100, Some("a")),
            NewBody::new(Bytes::from_static(&[0; 100])),
            PutLimits::default(),
        )
        .await;
    assert!(matches!(again, Err(StoreError::IdTaken)), "{again:?}");
    assert_eq!(store.owner_usage("a").await.unwrap(), usage);
    assert_eq!(
        store.get(&id(&text), 50).await.unwrap().unwrap().body,
        vec![n; size]
    );
}

/// Stores a 3-byte paste `new` under the ID `text`.
async fn put(store: &EmbeddedStore, text: &str) -> Result<(), StoreError> {
    let body = Bytes::from_static(b"new");
    store
        .put(
            meta(text, 3, None),
            NewBody::new(body),
            PutLimits::default(),
        )
        .await
}

/// Checks that each of `ids` is refused as taken.
async fn all_taken(store: &EmbeddedStore, ids: &[String]) {
    for text in ids {
        let again = put(store, text).await;
        assert!(
            matches!(again, Err(StoreError::IdTaken)),
            "{text}: {again:?}"
        );
    }
}

/// The filter of stored IDs (`known_ids`) never lets a stored ID through:
/// not after a restart (it is rebuilt from a scan after a stop without a
/// close) and not after it was rebuilt because it outgrew its size.
#[tokio::test]
async fn stored_ids_stay_taken_after_reopening_and_rebuilding() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<String> = (0..50).map(|_| new_id()).collect();
    {
        let store = open(dir.path());
        for text in &ids {
            put(&store, text).await.unwrap();
        }
        all_taken(&store, &ids).await;
        let inner = &store.inner;
        inner
            .known
            .rebuild(ids.len(), |add| known_ids::scan(&inner.meta, add))
            .unwrap();
        all_taken(&store, &ids).await;
        shut(store);
    }
    let store = open(dir.path());
    all_taken(&store, &ids).await;
    for text in &ids {
        let paste = store.get(&id(text), 50).await.unwrap().unwrap();
        assert_eq!(paste.body, &b"new"[..]);
    }
}

/// A removal that has to wait (here for its ID's lock; in production for
/// fjall's writer stall) waits on a blocking thread, so the runtime's
/// worker keeps running other tasks meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_waiting_removal_does_not_hold_a_runtime_worker() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(open(tmp.path()));
    for take in [false, true] {
        let text = new_id();
        store
            .put(
                meta(&text, 10, None),
                NewBody::new(Bytes::from_static(&[1; 10])),
                PutLimits::default(),
            )
            .await
            .unwrap();
        let guard = store.inner.lock_id(&text);
        let asked = store.inner.lock_waits.load(SeqCst);
        let removing = tokio::spawn({
            let (store, id) = (store.clone(), id(&text));
            async move {
                if take {
                    store
                        .take(&id, None, 50)
                        .await
                        .map(|t| matches!(t, Taken::Paste(_)))
                } else {
                    store.delete(&id).await
                }
            }
        });
        // Wait until the removal asks for the lock, then ask the only worker
        // for something else. Plain thread waits: this test's own future
        // runs on the runtime's calling thread, not on the worker, and must
        // not depend on the worker. The timeout only ends a test that
        // already failed (the worker is stuck behind the lock for good).
        while store.inner.lock_waits.load(SeqCst) == asked {
            std::thread::yield_now();
        }
        let (done, answered) = std::sync::mpsc::channel();
        tokio::spawn(async move { done.send(()) });
        let other = answered.recv_timeout(Duration::from_secs(60));
        drop(guard);
        assert!(
            other.is_ok(),
            "a waiting removal (take: {take}) held the only worker"
        );
        assert!(removing.await.unwrap().unwrap(), "take: {take}");
    }
}

/// A stored body is the store's own copy: a caller's body that is a
/// slice of a larger buffer (as hyper's request bodies are) does not keep
/// that buffer alive in the memtable.
#[tokio::test]
async fn a_stored_body_does_not_keep_the_callers_buffer() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let buffer = Bytes::from(vec![b'x'; 8192]);
    let text = new_id();
    store
        .put(
            meta(&text, 16, None),
            NewBody::new(buffer.slice(..16)),
            PutLimits::default(),
        )
        .await
        .unwrap();
    assert!(buffer.is_unique(), "the store still holds the 8 KiB buffer");
    let paste = store.get(&id(&text), 50).await.unwrap().unwrap();
    assert_eq!(paste.body, vec![b'x'; 16]);
}

/// Concurrent pings all succeed and leave no probe file; a vanished data dir fails the ping.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ping_checks_the_data_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let store = Arc::new(open(&dir));
    let pings: Vec<_> = (0..16)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.ping().await })
        })
        .collect();
    for ping in pings {
        ping.await.unwrap().unwrap();
    }
    let leftovers = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".ready")
        })
        .count();
    assert_eq!(leftovers, 0);
    std::fs::rename(&dir, tmp.path().join("gone")).unwrap();
    assert!(matches!(store.ping().await, Err(StoreError::Backend(_))));
}

/// Opening the store deletes body files that belong to no paste and keeps the others.
#[tokio::test]
async fn orphan_files_are_deleted_on_open() {
    let tmp = tempfile::tempdir().unwrap();
    let (kept, orphan) = (new_id(), new_id());
    {
        let store = open(tmp.path());
        let big = FILE_BODY_BYTES as usize + 1;
        let body = Bytes::from(vec![7; big]);
        store
            .put(
                meta(&kept, big, None),
                NewBody::new(body),
                PutLimits::default(),
            )
            .await
            .unwrap();
        store
            .inner
            .files
            .write(&orphan, b"half a paste", crate::store::Encoding::Identity)
            .unwrap();
        store.close().await.unwrap();
    }
    let store = open(tmp.path());
    assert!(store.inner.files.path(&kept).unwrap().is_file());
    assert!(!store.inner.files.path(&orphan).unwrap().exists());
    assert!(store.get(&id(&kept), 50).await.unwrap().is_some());
}

/// Owner quotas hold under concurrent writers, and deleting frees quota; usage survives reopening.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn owner_quota_is_atomic() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(open(tmp.path()));
    let limits = PutLimits {
        owner_max_bytes: Some(1000),
    };
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let text = new_id();
                let result = store
                    .put(
                        meta(&text, 100, Some("a")),
                        NewBody::new(Bytes::from(vec![1; 100])),
                        limits,
                    )
                    .await;
                (text, result)
            })
        })
        .collect();
    let mut stored = Vec::new();
    for task in tasks {
        let (text, result) = task.await.unwrap();
        match result {
            Ok(()) => stored.push(text),
            Err(StoreError::QuotaExceeded { limit: 1000 }) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(stored.len(), 10);
    assert_eq!(
        store.owner_usage("a").await.unwrap(),
        Usage {
            bytes: 1000,
            pastes: 10
        }
    );
    assert!(store.delete(&id(&stored[0])).await.unwrap());
    assert_eq!(store.owner_usage("a").await.unwrap().bytes, 900);
    store.close().await.unwrap();
    drop(store);
    let reopened = open(tmp.path());
    assert_eq!(
        reopened.owner_usage("a").await.unwrap(),
        Usage {
            bytes: 900,
            pastes: 9
        }
    );
}

/// Listing is per owner, newest first, paged by cursor, filtered by name prefix.
#[tokio::test]
async fn listing_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let mut ids = Vec::new();
    for n in 0..7u64 {
        let text = new_id();
        let mut m = meta(&text, 1, Some("a"));
        m.created_at = 10 + n;
        m.expires_at = None;
        m.name = Some(if n % 2 == 0 {
            format!("log-{n}")
        } else {
            format!("x-{n}")
        });
        store
            .put(
                m,
                NewBody::new(Bytes::from_static(b"x")),
                PutLimits::default(),
            )
            .await
            .unwrap();
        ids.push(text);
    }
    store
        .put(
            meta(&new_id(), 1, Some("b")),
            NewBody::new(Bytes::from_static(b"x")),
            PutLimits::default(),
        )
        .await
        .unwrap();
    let mut query = ListQuery {
        limit: 3,
        ..ListQuery::default()
    };
    let mut seen = Vec::new();
    loop {
        let page = store.list("a", &query, 50).await.unwrap();
        seen.extend(page.pastes.iter().map(|m| m.id.clone()));
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids);
    let logs = ListQuery {
        limit: 10,
        name_prefix: Some("log-".into()),
        ..ListQuery::default()
    };
    assert_eq!(store.list("a", &logs, 50).await.unwrap().pastes.len(), 4);
    let bad = ListQuery {
        limit: 3,
        cursor: Some("nonsense".into()),
        ..ListQuery::default()
    };
    assert!(matches!(
        store.list("a", &bad, 50).await,
        Err(StoreError::BadCursor)
    ));
}

fn segment_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("body-log"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_unstable();
    names
}

/// Small bodies go to the body log, not to fjall, and are read back after reopening.
#[tokio::test]
async fn small_bodies_are_in_the_body_log() {
    let tmp = tempfile::tempdir().unwrap();
    let ids: Vec<String> = (0..20).map(|_| new_id()).collect();
    {
        let store = open(tmp.path());
        for (n, text) in ids.iter().enumerate() {
            let body = Bytes::from(vec![n as u8; 1000 + n]);
            store
                .put(
                    meta(text, 1000 + n, None),
                    NewBody::new(body),
                    PutLimits::default(),
                )
                .await
                .unwrap();
            let (_, at) = store.inner.read_entry(text).unwrap().unwrap();
            assert!(
                at.is_some(),
                "the metadata says where in the log the body is"
            );
        }
        store.close().await.unwrap();
    }
    assert_eq!(segment_files(tmp.path()), ["1.seg"]);
    let store = open(tmp.path());
    for (n, text) in ids.iter().enumerate() {
        let paste = store.get(&id(text), 50).await.unwrap().unwrap();
        assert_eq!(paste.body, vec![n as u8; 1000 + n]);
    }
    assert_eq!(store.used_bytes(), (0..20).map(|n| 1000 + n).sum::<u64>());
}

/// Sweeping deletes a segment whose bodies all expired, and compacts one that
/// is mostly dead: its live bodies move, its file goes, and every live paste
/// reads back, before and after reopening.
#[tokio::test]
async fn sweeping_gives_back_the_space_of_dead_bodies() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let size = 32 << 10;
    let per_segment = (body_log::SEGMENT_BYTES / size as u64) as usize;
    let mut kept = Vec::new();
    // Segment 1: all expire. Segment 2: one in four is kept. Segment 3: active.
    for n in 0..per_segment * 2 + 10 {
        let text = new_id();
        let mut m = meta(&text, size, None);
        let keep = n >= per_segment && n % 4 == 0;
        if keep {
            m.expires_at = None;
            kept.push((text.clone(), n));
        }
        let body = noise(n as u64, size);
        store
            .put(m, NewBody::new(body), PutLimits::default())
            .await
            .unwrap();
    }
    let before = segment_files(tmp.path());
    assert_eq!(before, ["1.seg", "2.seg", "3.seg"]);
    store.sweep(100, usize::MAX).await.unwrap();
    let after = segment_files(tmp.path());
    assert!(
        !after.contains(&"1.seg".to_owned()) && !after.contains(&"2.seg".to_owned()),
        "{after:?}"
    );
    assert_eq!(store.used_bytes(), (kept.len() * size) as u64);
    let check = |store: EmbeddedStore| {
        let kept = kept.clone();
        async move {
            for (text, n) in &kept {
                let paste = store.get(&id(text), 200).await.unwrap().unwrap();
                assert_eq!(paste.body, noise(*n as u64, size));
            }
        }
    };
    assert_counts_match(&store);
    check(store).await;
    let store = open(tmp.path());
    assert_counts_match(&store);
    check(store).await;
}

/// With `--sync`, a segment whose pastes all expired is deleted by the sweep
/// that removed them, after the journal is synced.
#[tokio::test]
async fn with_sync_sweeping_deletes_dead_segments() {
    let tmp = tempfile::tempdir().unwrap();
    let options = EmbeddedOptions {
        durability: Durability::Fsync,
        max_bytes: None,
        cache_bytes: 1 << 20,
    };
    let store = EmbeddedStore::open(tmp.path(), options).unwrap();
    let text = new_id();
    let body = Bytes::from_static(b"short-lived");
    store
        .put(
            meta(&text, body.len(), None),
            NewBody::new(body),
            PutLimits::default(),
        )
        .await
        .unwrap();
    assert_eq!(segment_files(tmp.path()), ["1.seg"]);
    let report = store.sweep(100, 10).await.unwrap();
    assert_eq!(report.removed, 1);
    assert_eq!(segment_files(tmp.path()), ["2.seg"]);
    assert!(store.get(&id(&text), 100).await.unwrap().is_none());
}

/// A body the OS must read from disk is read on a blocking thread, and then
/// served from the hot cache. The page cache is a stand-in that calls every
/// read cold, so the test does not depend on what the kernel keeps.
#[tokio::test]
async fn cold_bodies_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Arc::new(body_log::tests::Scripted::default());
    let options = EmbeddedOptions {
        durability: Durability::Os,
        max_bytes: None,
        cache_bytes: 1 << 20,
    };
    let store =
        EmbeddedStore::open_with(tmp.path(), options, cache.clone(), open::IdScan::Background)
            .unwrap();
    let text = new_id();
    let body = Bytes::from_static(b"a body that left the page cache");
    store
        .put(
            meta(&text, body.len(), None),
            NewBody::new(body.clone()),
            PutLimits::default(),
        )
        .await
        .unwrap();
    cache.cold.store(true, std::sync::atomic::Ordering::SeqCst);
    // On the runtime, the read is handed over rather than waited for.
    let inline = store.inner.read_filling(&text, 50, false).unwrap();
    assert!(matches!(inline, Read::Cold));
    assert!(store.cached(&id(&text), 50).is_none());
    let got = store.get(&id(&text), 50).await.unwrap().unwrap();
    assert_eq!(got.body, body);
    assert_eq!(store.cached(&id(&text), 50).unwrap().body, body);
}

/// A data dir gets a `FORMAT` file when it is created; one in a format this
/// snip does not read is refused before anything in it is opened.
#[tokio::test]
async fn the_data_dir_records_its_format() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    drop(open(&dir));
    let file = dir.join(format::FILE_NAME);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        format::CURRENT.to_string()
    );
    // A data dir without the file gets it at open.
    std::fs::remove_file(&file).unwrap();
    drop(open(&dir));
    assert!(file.is_file());

    let unknown = tmp.path().join("unknown");
    std::fs::create_dir(&unknown).unwrap();
    std::fs::write(unknown.join(format::FILE_NAME), "999\n").unwrap();
    let options = EmbeddedOptions {
        durability: Durability::Os,
        max_bytes: None,
        cache_bytes: 1 << 20,
    };
    let refused = EmbeddedStore::open(&unknown, options);
    assert!(
        matches!(refused, Err(StoreError::UnknownFormat { ref found, reads, .. })
            if found == "999" && reads == format::CURRENT),
        "{:?}",
        refused.err()
    );
    assert!(!unknown.join("fjall").exists());
}

/// A paste and its owner's deletion are ordered: a paste of a deleted tenant
/// is refused, and a tenant with a paste cannot be deleted.
#[tokio::test]
async fn no_paste_outlives_its_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    assert!(store.delete_tenant("b").await.unwrap());
    let refused = store
        .put(
            meta(&new_id(), 1, Some("b")),
            NewBody::new(Bytes::from_static(b"x")),
            PutLimits::default(),
        )
        .await;
    assert!(matches!(refused, Err(StoreError::OwnerGone)), "{refused:?}");
    assert_eq!(store.stored_pastes(), 0);
    assert_eq!(store.owner_usage("b").await.unwrap(), Usage::default());
    store
        .put(
            meta(&new_id(), 1, Some("a")),
            NewBody::new(Bytes::from_static(b"x")),
            PutLimits::default(),
        )
        .await
        .unwrap();
    let kept = store.delete_tenant("a").await;
    assert!(
        matches!(kept, Err(StoreError::TenantNotEmpty(1))),
        "{kept:?}"
    );
}

/// Sessions survive a reopen; purging removes the expired ones and those of
/// revoked tokens, and keeps the rest.
#[tokio::test]
async fn sessions_are_kept_and_purged() {
    use crate::core::tenant::{SessionRecord, TokenRecord};
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let (_, kept_token) = TokenRecord::generate("a", false, 1, None).unwrap();
    let (_, revoked_token) = TokenRecord::generate("a", false, 1, None).unwrap();
    store.create_token(kept_token.clone()).await.unwrap();
    store.create_token(revoked_token.clone()).await.unwrap();
    let (_, live) = SessionRecord::generate(kept_token.hash, 1000).unwrap();
    let (_, expired) = SessionRecord::generate(kept_token.hash, 1).unwrap();
    let (_, orphan) = SessionRecord::generate(revoked_token.hash, 1000).unwrap();
    for session in [&live, &expired, &orphan] {
        store.create_session(session.clone()).await.unwrap();
    }
    store.revoke_token(&revoked_token.id).await.unwrap();
    store.close().await.unwrap();
    shut(store);

    let store = open(dir.path());
    assert_eq!(store.session(&live.hash).await.unwrap(), Some(live.clone()));
    let now = expired.expires_at + 1;
    assert_eq!(store.purge_sessions(now).await.unwrap(), 2);
    assert_eq!(store.session(&expired.hash).await.unwrap(), None);
    assert_eq!(store.session(&orphan.hash).await.unwrap(), None);
    assert_eq!(store.session(&live.hash).await.unwrap(), Some(live.clone()));
    assert!(store.delete_session(&live.hash).await.unwrap());
    assert!(!store.delete_session(&live.hash).await.unwrap());
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

/// Text is stored compressed, in the body log and in body files, and reads
/// back as itself with its compressed form beside it (from the hot cache
/// too, and after reopening); an encrypted body is stored as it is.
#[tokio::test]
async fn text_is_stored_compressed() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let (small, large, sealed) = (new_id(), new_id(), new_id());
    let small_body = log_text(2048);
    let large_body = log_text(FILE_BODY_BYTES as usize * 2);
    for (text, body, encrypted) in [
        (&small, &small_body, false),
        (&large, &large_body, false),
        (&sealed, &small_body, true),
    ] {
        let m = PasteMeta {
            encrypted,
            ..meta(text, body.len(), None)
        };
        store
            .put(m, NewBody::new(body.clone()), PutLimits::default())
            .await
            .unwrap();
    }
    let (_, at) = store.inner.read_entry(&small).unwrap().unwrap();
    let at = at.unwrap();
    assert_eq!(at.encoding, Encoding::Zstd);
    assert!(u64::from(at.len) < 2048 / 4, "{at:?}");
    let (_, at) = store.inner.read_entry(&sealed).unwrap().unwrap();
    assert_eq!(at.unwrap().encoding, Encoding::Identity);
    let (file, encoding) = store.inner.files.read(&large, 0).unwrap().unwrap();
    assert_eq!(encoding, Encoding::Zstd);
    assert!(file.len() < large_body.len() / 4);
    let check = |store: EmbeddedStore| {
        let (small, large, sealed) = (small.clone(), large.clone(), sealed.clone());
        let (small_body, large_body) = (small_body.clone(), large_body.clone());
        async move {
            for _ in 0..2 {
                let paste = store.get(&id(&small), 50).await.unwrap().unwrap();
                assert_eq!(paste.body, small_body);
                let compressed = paste.compressed.unwrap();
                assert_eq!(
                    crate::store::codec::decompress("x", &compressed, 2048).unwrap(),
                    small_body
                );
            }
            assert!(store.cached(&id(&small), 50).unwrap().compressed.is_some());
            let paste = store.get(&id(&large), 50).await.unwrap().unwrap();
            assert_eq!((paste.body, paste.compressed.is_some()), (large_body, true));
            let paste = store.get(&id(&sealed), 50).await.unwrap().unwrap();
            assert_eq!((paste.body, paste.compressed), (small_body, None));
            store
        }
    };
    let store = check(store).await;
    store.close().await.unwrap();
    drop(store);
    check(open(tmp.path())).await;
}

/// Compacting the body log copies a compressed body as it is stored.
#[tokio::test]
async fn compaction_keeps_the_encoding() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let kept = new_id();
    let body = log_text(4096);
    let m = PasteMeta {
        expires_at: None,
        ..meta(&kept, body.len(), None)
    };
    store
        .put(m, NewBody::new(body.clone()), PutLimits::default())
        .await
        .unwrap();
    let size = 32 << 10;
    // One more than a segment holds, so that the first one is sealed.
    for n in 0..=(body_log::SEGMENT_BYTES / size as u64) {
        let filler = noise(n, size);
        let m = meta(&new_id(), size, None);
        store
            .put(m, NewBody::new(filler), PutLimits::default())
            .await
            .unwrap();
    }
    let (_, before) = store.inner.read_entry(&kept).unwrap().unwrap();
    store.sweep(100, usize::MAX).await.unwrap();
    let (_, after) = store.inner.read_entry(&kept).unwrap().unwrap();
    let (before, after) = (before.unwrap(), after.unwrap());
    assert_ne!(before.segment, after.segment, "the body moved");
    assert_eq!((after.encoding, after.len), (Encoding::Zstd, before.len));
    store.inner.hot.evict(&kept);
    assert_eq!(
        store.get(&id(&kept), 200).await.unwrap().unwrap().body,
        body
    );
}

/// A data dir of format 2 (every body as it is; located entries without an
/// encoding) is read, and recorded as the current format.
#[tokio::test]
async fn a_format_2_data_dir_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (small, large) = (new_id(), new_id());
    let (small_body, large_body) = (noise(1, 3000), noise(2, FILE_BODY_BYTES as usize));
    {
        let store = open(tmp.path());
        for (text, body) in [(&small, &small_body), (&large, &large_body)] {
            let m = meta(text, body.len(), None);
            store
                .put(m, NewBody::new(body.clone()), PutLimits::default())
                .await
                .unwrap();
        }
        // Format 2's located entry: version 4, the location without its encoding byte.
        let mut entry = store.inner.meta.get(&small).unwrap().unwrap().to_vec();
        assert_eq!(entry[0], 5);
        entry[0] = 4;
        entry.remove(1 + body_log::Location::PLACE_LEN);
        store.inner.meta.insert(&small, entry).unwrap();
        store.close().await.unwrap();
    }
    let file = tmp.path().join(format::FILE_NAME);
    std::fs::write(&file, "2\n").unwrap();
    let store = open(tmp.path());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        format::CURRENT.to_string()
    );
    let paste = store.get(&id(&small), 50).await.unwrap().unwrap();
    assert_eq!((paste.body, paste.compressed), (small_body, None));
    let paste = store.get(&id(&large), 50).await.unwrap().unwrap();
    assert_eq!(paste.body, large_body);
}

/// A stored stream that passes its checksum but does not decompress (or
/// decompresses to another length) is `Corrupt`, and other pastes are served.
#[tokio::test]
async fn a_stream_that_does_not_decompress_is_corrupt() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let (good, bad, short) = (new_id(), new_id(), new_id());
    let body = log_text(2048);
    store
        .put(
            meta(&good, 2048, None),
            NewBody::new(body.clone()),
            PutLimits::default(),
        )
        .await
        .unwrap();
    let stream = NewBody::new(body.clone())
        .into_stored(&meta(&good, 2048, None))
        .bytes;
    for (text, stored, size) in [
        (&bad, &b"not a zstd stream"[..], 2048),
        (&short, &stream[..], 2047),
    ] {
        let at = store
            .inner
            .log
            .append(&[(text.as_str(), Encoding::Zstd, stored)])
            .unwrap()[0];
        let encoded = meta_codec::encode(&meta(text, size, None)).unwrap();
        store
            .inner
            .meta
            .insert(text.as_str(), meta_codec::with_location(&encoded, &at))
            .unwrap();
        let e = store.get(&id(text), 50).await.unwrap_err();
        assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
    }
    assert_eq!(store.get(&id(&good), 50).await.unwrap().unwrap().body, body);
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
            assert!(store.delete(&id(&text)).await.unwrap());
        } else {
            kept.push(text);
        }
    }
    kept
}

fn deferred(dir: &Path) -> EmbeddedStore {
    let options = EmbeddedOptions {
        durability: Durability::Os,
        max_bytes: None,
        cache_bytes: 1 << 20,
    };
    let kernel = Arc::new(body_log::Kernel);
    EmbeddedStore::open_with(dir, options, kernel, open::IdScan::Deferred).unwrap()
}

/// Counts read at open, after a clean close and after a stop without one,
/// are those a count of every paste gives.
#[tokio::test]
async fn counts_are_exact_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill_and_remove(&store).await;
    assert_counts_match(&store);
    let before = store.inner.counters.counts();
    assert!(before.owners.contains_key("a") && !before.segments.is_empty());
    store.close().await.unwrap();
    shut(store);
    let store = open(dir.path());
    assert_eq!(store.inner.counters.counts(), before);
    assert_counts_match(&store);
    // No close: the counts were written with each batch.
    fill_and_remove(&store).await;
    let before = store.inner.counters.counts();
    shut(store);
    let store = open(dir.path());
    assert_eq!(store.inner.counters.counts(), before);
    assert_counts_match(&store);
}

/// A data dir whose counts were never persisted (format 2) is counted at
/// open, and its counts written.
#[tokio::test]
async fn a_store_without_counts_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    fill_and_remove(&store).await;
    let before = store.inner.counters.counts();
    store.inner.counters.forget_all().unwrap();
    shut(store);
    let store = open(dir.path());
    assert_eq!(store.inner.counters.counts(), before);
    assert_counts_match(&store);
    shut(store);
    // Written: the next open reads them.
    let loaded = counters::Counters::load(&deferred(dir.path()).inner.counters.keyspace()).unwrap();
    assert_eq!(loaded.counts, Some(before));
}

/// After a stop without a clean close there is no valid saved filter: the
/// store opens without one and asks fjall about every new ID, so no stored
/// ID is reused before, during or after the scan that rebuilds it.
#[tokio::test]
async fn no_id_is_reused_while_the_filter_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut stored: Vec<String> = fill_and_remove(&store).await;
    shut(store);
    let store = deferred(dir.path());
    assert!(!store.inner.known.is_complete());
    all_taken(&store, &stored).await;
    let during = new_id();
    put(&store, &during).await.unwrap();
    stored.push(during);
    let inner = &store.inner;
    inner
        .known
        .rebuild(stored.len(), |add| known_ids::scan(&inner.meta, add))
        .unwrap();
    assert!(inner.known.is_complete());
    assert!(stored.iter().all(|t| inner.known.may_hold(t.as_bytes())));
    all_taken(&store, &stored).await;
}

/// A clean close saves the filter and the next open loads it; the first new
/// ID stored after that open makes the saved filter stale, so a stop
/// without a close then leaves none to load.
#[tokio::test]
async fn a_saved_filter_is_loaded_only_while_it_is_current() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let stored = fill_and_remove(&store).await;
    store.close().await.unwrap();
    shut(store);
    let store = deferred(dir.path());
    assert!(store.inner.known.is_complete());
    assert!(
        stored
            .iter()
            .all(|t| store.inner.known.may_hold(t.as_bytes()))
    );
    // Removals do not make it stale (removed IDs may stay in a filter).
    assert!(store.delete(&id(&stored[0])).await.unwrap());
    shut(store);
    let store = deferred(dir.path());
    assert!(store.inner.known.is_complete());
    let text = new_id();
    let body = Bytes::from_static(b"after");
    store
        .put(
            meta(&text, 5, None),
            NewBody::new(body),
            PutLimits::default(),
        )
        .await
        .unwrap();
    shut(store);
    let store = deferred(dir.path());
    assert!(!store.inner.known.is_complete());
}
