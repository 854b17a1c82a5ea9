//! When a sweep leaves the store settled (`SweepReport::settled`), and the
//! writes that wake a sweeper waiting for work.

use futures_util::FutureExt;

use super::*;
use crate::core::tenant::{SessionRecord, TokenRecord};

/// Whether a sweeper's wait for work would end at once.
fn woken(store: &EmbeddedStore) -> bool {
    store.sweep_work().now_or_never().is_some()
}

/// Sweeps (at time 200, past every test paste's expiry) until the store
/// settles; each round does a bounded step (a batch, one compaction), so a
/// few rounds are enough.
async fn sweep_until_settled(store: &EmbeddedStore) {
    for _ in 0..5 {
        if store.sweep(200, 1000).await.unwrap().settled {
            return;
        }
    }
    panic!("five sweeps did not settle the store");
}

async fn put(store: &EmbeddedStore, expires: bool) -> String {
    let text = new_id();
    let mut m = meta(&text, 5, None);
    if !expires {
        m.expires_at = None;
    }
    store
        .put(
            m,
            NewBody::new(Bytes::from_static(b"hello")),
            PutLimits::default(),
        )
        .await
        .unwrap();
    text
}

/// An empty store settles; a paste that never expires wakes the sweeper
/// but leaves it settled; one that expires keeps it busy until swept; a
/// delete and a browser session wake it again.
#[tokio::test]
async fn a_store_settles_until_a_write_gives_the_sweeper_work() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    assert!(
        store.sweep(50, 1000).await.unwrap().settled,
        "an empty store"
    );
    assert!(!woken(&store), "woken without a write");

    let kept = put(&store, false).await;
    assert!(woken(&store), "a create did not wake the sweeper");
    assert!(
        store.sweep(50, 1000).await.unwrap().settled,
        "nothing expires"
    );
    assert!(!woken(&store));

    put(&store, true).await;
    assert!(woken(&store));
    let report = store.sweep(50, 1000).await.unwrap();
    assert!(!report.settled, "a paste still expires");
    sweep_until_settled(&store).await;
    assert!(!woken(&store));

    assert!(store.delete(&id(&kept), None).await.unwrap());
    assert!(woken(&store), "a delete did not wake the sweeper");
    sweep_until_settled(&store).await;

    let (_, token) = TokenRecord::generate("a", false, 1, None).unwrap();
    store.create_token(token.clone()).await.unwrap();
    sweep_until_settled(&store).await;
    let session = SessionRecord {
        hash: [1; 32],
        token_hash: Some(token.hash),
        created_at: 1,
        expires_at: 100,
        person: None,
        provider: None,
    };
    store.create_session(session).await.unwrap();
    assert!(woken(&store), "a session did not wake the sweeper");
    assert!(
        !store.sweep(50, 1000).await.unwrap().settled,
        "a session is stored"
    );
    assert_eq!(store.purge_sessions(200).await.unwrap(), 1);
    assert!(store.sweep(200, 1000).await.unwrap().settled);
}

/// A sweeper that waits (a task of its own) wakes at the next create.
#[tokio::test]
async fn a_waiting_sweeper_wakes_at_a_create() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(open(tmp.path()));
    assert!(store.sweep(50, 1000).await.unwrap().settled);
    let waiter = tokio::spawn({
        let store = store.clone();
        async move { store.sweep_work().await }
    });
    while !store.inner.writes.is_waited_on() {
        tokio::task::yield_now().await;
    }
    put(&store, false).await;
    tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the create did not wake the sweeper")
        .unwrap();
}
