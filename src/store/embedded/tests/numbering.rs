//! Numbered IDs (`sequence`): never handed out twice, across clean and
//! unclean restarts; free without a filter while the store holds nothing
//! else; checked against pastes from elsewhere once it does.

use std::collections::HashSet;

use super::*;

/// Creates a 3-byte paste under a numbered ID; returns the ID.
async fn create(store: &EmbeddedStore) -> String {
    let body = Bytes::from_static(b"new");
    store
        .create(
            meta("", 3, None),
            NewBody::new(body),
            PutLimits::default(),
            12,
        )
        .await
        .unwrap()
}

/// Numbers continue after a clean close and after a stop without one, and
/// what a stop leaves of a reservation is skipped: every ID is new.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_are_never_handed_out_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = HashSet::new();
    let store = open(tmp.path());
    for _ in 0..50 {
        assert!(seen.insert(create(&store).await));
    }
    store.close().await.unwrap();
    shut(store);
    let store = open(tmp.path());
    let first = create(&store).await;
    assert!(seen.insert(first.clone()));
    assert!(store.inner.sequence.numbered_only());
    // No filter of stored IDs was saved, and none is filled.
    assert!(!tmp.path().join(known_ids::FILE_NAME).exists());
    for _ in 0..50 {
        assert!(seen.insert(create(&store).await));
    }
    // Dropped without closing, as after `kill -9`.
    shut(store);
    let store = open(tmp.path());
    let after_stop = create(&store).await;
    assert!(seen.insert(after_stop.clone()));
    assert!(
        store.inner.sequence.reserved_end() >= 3 << 20,
        "three reservations, one per open"
    );
    for text in &seen {
        let paste = store.get(&id(text), 50).await.unwrap();
        assert_eq!(paste.unwrap().body, &b"new"[..], "{text}");
    }
}

/// Creates that all find their numbers unreserved, at a store's first
/// create, share one reservation and get distinct IDs.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_first_creates_share_one_reservation() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(open(tmp.path()));
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { create(&store).await })
        })
        .collect();
    let mut ids = HashSet::new();
    for task in tasks {
        assert!(ids.insert(task.await.unwrap()));
    }
    assert_eq!(store.inner.sequence.reserved_end(), 1 << 20);
    assert_eq!(store.inner.sequence.peek_next(), 64);
}

/// A paste put under an ID from elsewhere that a later number would give
/// makes that create take the next number, and the store remembers across
/// a restart that its IDs are no longer all its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_from_elsewhere_is_never_overwritten_by_a_numbered_one() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let mine = create(&store).await;
    assert!(store.inner.sequence.numbered_only());
    // The ID the next number gives (12 symbols: no random part).
    let next = store.inner.sequence.peek_next();
    let clash = store.inner.sequence.id(next, 12).unwrap().to_string();
    let body = Bytes::from_static(b"old");
    store
        .put(
            meta(&clash, 3, None),
            NewBody::new(body),
            PutLimits::default(),
        )
        .await
        .unwrap();
    assert!(!store.inner.sequence.numbered_only());
    let created = create(&store).await;
    assert_ne!(created, clash);
    assert_eq!(
        store.inner.sequence.peek_next(),
        next + 2,
        "one number skipped"
    );
    let kept = store.get(&id(&clash), 50).await.unwrap().unwrap();
    assert_eq!(kept.body, &b"old"[..]);
    store.close().await.unwrap();
    shut(store);
    let store = deferred(tmp.path());
    assert!(!store.inner.sequence.numbered_only());
    for text in [&mine, &clash, &created] {
        assert!(store.get(&id(text), 50).await.unwrap().is_some(), "{text}");
    }
    // The saved filter holds the ID from elsewhere, not the numbered ones.
    assert!(store.inner.known.may_hold(clash.as_bytes()));
    let again = store
        .put(
            meta(&created, 3, None),
            NewBody::new(Bytes::from_static(b"new")),
            PutLimits::default(),
        )
        .await;
    assert!(matches!(again, Err(StoreError::IdTaken)), "{again:?}");
}

/// A store that numbers every ID answers a read of an ID it never made
/// without a lookup, and of one it made with the paste.
#[tokio::test]
async fn reads_of_ids_never_made_stop_at_the_number() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let mine = create(&store).await;
    let sequence = &store.inner.sequence;
    assert!(sequence.may_have_numbered(&mine));
    let guessed: Vec<String> = (0..1000).map(|_| new_id()).collect();
    assert!(guessed.iter().all(|text| !sequence.may_have_numbered(text)));
    assert!(
        guessed
            .iter()
            .all(|text| !store.inner.known.may_hold(text.as_bytes()))
    );
    for text in &guessed[..20] {
        assert!(store.get(&id(text), 50).await.unwrap().is_none());
    }
    assert!(store.get(&id(&mine), 50).await.unwrap().is_some());
}
