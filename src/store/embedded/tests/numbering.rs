//! Numbered IDs (`sequence`): never handed out twice, across clean and
//! unclean restarts; free without a filter while the store holds nothing
//! else; checked against pastes from elsewhere once it does. Their entries
//! are keyed by number (`keys`), except in stores that numbered them before.

use std::collections::HashSet;

use super::*;
use keys::numbered_key;

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
    assert!(sequence.number(&mine).is_some());
    let guessed: Vec<String> = (0..1000).map(|_| new_id()).collect();
    assert!(guessed.iter().all(|text| sequence.number(text).is_none()));
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

/// Numbered pastes' entries are keyed by their numbers, so they are stored
/// in the order they were made.
#[tokio::test]
async fn numbered_entries_are_keyed_in_the_order_made() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let mut made = Vec::new();
    for _ in 0..20 {
        made.push(create(&store).await);
    }
    let numbers: Vec<u64> = made
        .iter()
        .map(|text| store.inner.sequence.number(text).unwrap())
        .collect();
    assert_eq!(numbers, (0..20).collect::<Vec<u64>>());
    let keys: Vec<Vec<u8>> = store
        .inner
        .meta
        .iter()
        .map(|entry| entry.key().unwrap().to_vec())
        .collect();
    let expected: Vec<Vec<u8>> = numbers.iter().map(|&n| numbered_key(n).to_vec()).collect();
    assert_eq!(keys, expected);
}

/// Past the cipher's twelve symbols an ID is random: another ID with the
/// same number is not the paste, for reads and for deletes.
#[tokio::test]
async fn a_long_id_must_match_to_its_last_symbol() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let body = Bytes::from_static(b"long");
    let long = store
        .create(
            meta("", 4, None),
            NewBody::new(body),
            PutLimits::default(),
            20,
        )
        .await
        .unwrap();
    let number = store.inner.sequence.number(&long).unwrap();
    let twin = store.inner.sequence.id(number, 20).unwrap().to_string();
    assert_ne!(twin, long);
    assert_eq!(store.inner.sequence.number(&twin), Some(number));
    assert!(store.get(&id(&twin), 50).await.unwrap().is_none());
    assert!(!store.delete(&id(&twin), None).await.unwrap());
    let kept = store.get(&id(&long), 50).await.unwrap().unwrap();
    assert_eq!(kept.body, &b"long"[..]);
}

/// A store that numbered pastes before entries were keyed by number keeps
/// those under their IDs: they are still read and deleted, and new pastes
/// are keyed by number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pastes_numbered_under_their_ids_stay_readable() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let mut old = Vec::new();
    for _ in 0..3 {
        old.push(create(&store).await);
    }
    // The earlier layout: each entry under its ID, and no mark.
    let inner = &store.inner;
    for text in &old {
        let key = numbered_key(inner.sequence.number(text).unwrap());
        let entry = inner.meta.get(key).unwrap().unwrap();
        inner.meta.insert(text.as_bytes(), entry).unwrap();
        inner.meta.remove(key).unwrap();
    }
    let counters = inner.counters.keyspace();
    counters.remove(sequence::BY_NUMBER).unwrap();
    drop(counters);
    store.close().await.unwrap();
    shut(store);

    let store = open(tmp.path());
    let sequence = &store.inner.sequence;
    assert!(sequence.may_be_id_keyed(sequence.number(&old[2]).unwrap()));
    assert!(!sequence.may_be_id_keyed(sequence.peek_next()));
    for text in &old {
        assert!(store.get(&id(text), 50).await.unwrap().is_some(), "{text}");
    }
    let new = create(&store).await;
    let key = numbered_key(sequence.number(&new).unwrap());
    assert!(store.inner.meta.contains_key(key).unwrap());
    assert!(store.delete(&id(&old[0]), None).await.unwrap());
    assert!(!store.inner.meta.contains_key(old[0].as_bytes()).unwrap());
    store.close().await.unwrap();
    shut(store);

    let store = open(tmp.path());
    assert!(store.get(&id(&old[0]), 50).await.unwrap().is_none());
    for text in [&old[1], &old[2], &new] {
        assert!(store.get(&id(text), 50).await.unwrap().is_some(), "{text}");
    }
}

/// A backup's scan pages through numbered pastes and pastes from
/// elsewhere, and returns each live one once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_returns_every_live_paste_once() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let mut live = HashSet::new();
    for _ in 0..7 {
        live.insert(create(&store).await);
    }
    let given = |text: &str, expires_at| {
        let mut m = meta(text, 3, None);
        m.expires_at = Some(expires_at);
        store.put(
            m,
            NewBody::new(Bytes::from_static(b"old")),
            PutLimits::default(),
        )
    };
    for _ in 0..5 {
        let text = new_id();
        given(&text, 100).await.unwrap();
        live.insert(text);
    }
    given(&new_id(), 10).await.unwrap();
    let mut seen = Vec::new();
    let mut from: Option<String> = None;
    loop {
        let page = store.scan(from.as_deref(), 3, 50).await.unwrap();
        assert!(page.pastes.len() <= 3);
        seen.extend(page.pastes.into_iter().map(|m| m.id));
        match page.next {
            Some(next) => from = Some(next),
            None => break,
        }
    }
    assert_eq!(seen.len(), live.len(), "{seen:?}");
    assert_eq!(seen.into_iter().collect::<HashSet<_>>(), live);
    let bad = store.scan(Some("not hex"), 3, 50).await;
    assert!(matches!(bad, Err(StoreError::BadCursor)), "{bad:?}");
}
