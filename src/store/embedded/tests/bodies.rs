//! Bodies: where they are stored (body log, files), compressed or not, how
//! they are read back, and how sweeping and compaction give back their space.

use super::*;

fn segment_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("body-log"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_unstable();
    names
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

/// A body the OS must read from disk is read on a blocking thread, and then
/// served from the paste cache. The page cache is a stand-in that calls every
/// read cold, so the test does not depend on what the kernel keeps.
#[tokio::test]
async fn cold_bodies_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Arc::new(body_log::tests::Scripted::default());
    let options = options(Durability::Os);
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
    let inline = store.inner.read_filling(&text, 50, false, false).unwrap();
    assert!(matches!(inline, Read::Cold));
    assert!(store.cached(&id(&text), 50).is_none());
    let got = store.get(&id(&text), 50).await.unwrap().unwrap();
    assert_eq!(got.body, body);
    assert_eq!(store.cached(&id(&text), 50).unwrap().body, body);
}

/// Text is stored compressed, in the body log and in body files, and reads
/// back as itself with its compressed form beside it (from the paste cache
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

/// Once the store has taken enough compressible bodies (not burn pastes)
/// it learns a dictionary: small text is then stored with it, smaller than zstd alone,
/// and read back as itself with no stream for clients beside it, also
/// after reopening; larger bodies stay standalone zstd streams. A backup
/// holds standalone streams, which another store restores.
#[tokio::test]
async fn small_text_is_compressed_with_a_learned_dictionary() {
    use crate::store::codec::zstd_dictionary::{SAMPLES, tests::log_bodies};
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let bodies = log_bodies(SAMPLES + 1, 2048);
    // A burn paste is to leave nothing behind: it is not sampled.
    let burn = PasteMeta {
        burn: true,
        ..meta(&new_id(), 2048, None)
    };
    let body = NewBody::new(Bytes::from(bodies[0].clone()));
    store.put(burn, body, PutLimits::default()).await.unwrap();
    assert_eq!(store.inner.dictionary.sampled(), 0);
    for body in &bodies[..SAMPLES] {
        assert!(store.inner.dictionary.get().is_none());
        let m = meta(&new_id(), body.len(), None);
        let body = NewBody::new(Bytes::from(body.clone()));
        store.put(m, body, PutLimits::default()).await.unwrap();
    }
    assert!(store.inner.dictionary.get().is_some());

    let (small, large) = (new_id(), new_id());
    let small_body = Bytes::from(bodies[SAMPLES].clone());
    let large_body = log_text(crate::store::codec::INLINE_BYTES * 2);
    for (text, body) in [(&small, &small_body), (&large, &large_body)] {
        // Lasting, so that a backup at the clock's time holds it.
        let m = PasteMeta {
            expires_at: None,
            ..meta(text, body.len(), None)
        };
        let body = NewBody::new(body.clone());
        store.put(m, body, PutLimits::default()).await.unwrap();
    }
    let alone = NewBody::new(small_body.clone()).into_stored(&meta(&small, 2048, None));
    let (_, at) = store.inner.read_entry(&small).unwrap().unwrap();
    let at = at.unwrap();
    assert_eq!(at.encoding, Encoding::ZstdDictionary);
    assert!(
        (at.len as usize) < alone.bytes.len(),
        "{} vs {}",
        at.len,
        alone.bytes.len()
    );
    let (_, at) = store.inner.read_entry(&large).unwrap().unwrap();
    assert_eq!(at.unwrap().encoding, Encoding::Zstd);

    let check = |store: EmbeddedStore| {
        let (small, large) = (small.clone(), large.clone());
        let (small_body, large_body) = (small_body.clone(), large_body.clone());
        async move {
            store.inner.paste_cache.evict(&small);
            for _ in 0..2 {
                let paste = store.get(&id(&small), 50).await.unwrap().unwrap();
                assert_eq!((paste.body, paste.compressed), (small_body.clone(), None));
            }
            let paste = store.get(&id(&large), 50).await.unwrap().unwrap();
            assert_eq!((paste.body, paste.compressed.is_some()), (large_body, true));
            store
        }
    };
    let store = check(store).await;

    let dump = tmp.path().join("dump");
    let mut out = Vec::new();
    crate::store::transfer::backup(&store, &mut out)
        .await
        .unwrap();
    std::fs::write(&dump, out).unwrap();
    let other = tempfile::tempdir().unwrap();
    let options = options(Durability::Os);
    let restored = EmbeddedStore::open(other.path(), options).unwrap();
    crate::store::transfer::restore(&restored, &dump)
        .await
        .unwrap();
    let (_, at) = restored.inner.read_entry(&small).unwrap().unwrap();
    assert_eq!(at.unwrap().encoding, Encoding::Zstd);
    let paste = restored.get(&id(&small), 50).await.unwrap().unwrap();
    assert_eq!(paste.body, small_body);

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
    store.inner.paste_cache.evict(&kept);
    assert_eq!(
        store.get(&id(&kept), 200).await.unwrap().unwrap().body,
        body
    );
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
        // As the committer does: reads ask the filter of stored IDs first.
        let _rebuild = store.inner.known.add(text.as_bytes());
        let e = store.get(&id(text), 50).await.unwrap_err();
        assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
    }
    assert_eq!(store.get(&id(&good), 50).await.unwrap().unwrap().body, body);
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
    let options = options(Durability::Fsync);
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
