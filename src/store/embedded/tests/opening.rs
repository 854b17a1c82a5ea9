//! Opening and checking a data dir: its format, orphan files, pings, the
//! persisted counts, and removals that wait without holding the runtime.

use super::*;

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
                    store.delete(&id, None).await
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
    let options = options(Durability::Os);
    let refused = EmbeddedStore::open(&unknown, options);
    assert!(
        matches!(refused, Err(StoreError::UnknownFormat { ref found, reads, .. })
            if found == "999" && reads == format::CURRENT),
        "{:?}",
        refused.err()
    );
    assert!(!unknown.join("fjall").exists());
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
