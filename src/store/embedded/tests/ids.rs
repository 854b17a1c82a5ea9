//! IDs: each is stored once, also while the filter of stored IDs is rebuilt,
//! after a restart and with a saved filter.

use super::*;

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
    rebuild_filter(&store, stored.len());
    let inner = &store.inner;
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
    assert!(store.delete(&id(&stored[0]), None).await.unwrap());
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

/// Reads ask the filter of stored IDs before fjall, so the filter must never
/// hide a stored paste: every live paste reads back with no filter yet (a
/// stop without a close), with a paste stored before the rebuild, after the
/// rebuild, and after a clean close and reopen (the saved filter); removed
/// and unknown IDs read as missing.
#[tokio::test]
async fn the_filter_of_stored_ids_never_hides_a_paste() {
    async fn all_read(store: &EmbeddedStore, live: &[String], gone: &[String]) {
        for text in live {
            let paste = store.get(&id(text), 50).await.unwrap();
            assert!(paste.is_some(), "{text} is stored but was not read");
        }
        for text in gone {
            assert!(store.get(&id(text), 50).await.unwrap().is_none());
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let mut live = fill_and_remove(&store).await;
    let gone = vec![new_id(), new_id()];
    all_read(&store, &live, &gone).await;
    shut(store);

    let store = deferred(dir.path());
    assert!(!store.inner.known.is_complete());
    all_read(&store, &live, &gone).await;
    let before_rebuild = new_id();
    put(&store, &before_rebuild).await.unwrap();
    live.push(before_rebuild);
    rebuild_filter(&store, live.len());
    let inner = &store.inner;
    all_read(&store, &live, &gone).await;
    assert!(
        gone.iter().any(|t| !inner.known.may_hold(t.as_bytes())),
        "the filter answers for unknown IDs"
    );
    store.close().await.unwrap();
    shut(store);

    let store = deferred(dir.path());
    assert!(store.inner.known.is_complete());
    all_read(&store, &live, &gone).await;
}

/// Builds the filter of stored IDs of a store opened with [`deferred`], as
/// its scan thread would, sized for `stored` IDs.
fn rebuild_filter(store: &EmbeddedStore, stored: usize) {
    let inner = &store.inner;
    inner
        .known
        .rebuild(stored, |add| known_ids::scan(&inner.meta, add))
        .unwrap();
    assert!(inner.known.is_complete());
}
