//! Tenants' pastes: quotas, listing, the order of a paste and its owner's
//! deletion, and sessions.

use super::*;

/// Owner quotas hold under concurrent writers, and deleting frees quota; usage survives reopening.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn owner_quota_is_atomic() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Arc::new(open(tmp.path()));
    let limits = PutLimits {
        owner_max_bytes: Some(1000),
        authority: None,
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
    assert!(store.delete(&id(&stored[0]), None).await.unwrap());
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

/// One listing reads at most `MAX_LIST_SCAN` pastes: a prefix that matches
/// nothing among more ends the page there, empty, with a cursor; following
/// it finds the match further on, then the end.
#[tokio::test]
async fn listing_reads_a_bounded_number_of_pastes() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let put = |created_at: u64, name: &str| {
        let mut m = meta(&new_id(), 1, Some("a"));
        m.created_at = created_at;
        m.expires_at = None;
        m.name = Some(name.to_owned());
        store.put(
            m,
            NewBody::new(Bytes::from_static(b"x")),
            PutLimits::default(),
        )
    };
    put(1, "zzz-old").await.unwrap();
    for n in 0..crate::store::MAX_LIST_SCAN as u64 {
        put(2 + n, "a.txt").await.unwrap();
    }
    let mut query = ListQuery {
        limit: 1,
        name_prefix: Some("zzz".into()),
        ..ListQuery::default()
    };
    let first = store.list("a", &query, 50).await.unwrap();
    assert!(first.pastes.is_empty());
    query.cursor = Some(first.next_cursor.expect("a cursor to go on from"));
    let second = store.list("a", &query, 50).await.unwrap();
    let names: Vec<_> = second.pastes.iter().map(|m| m.name.as_deref()).collect();
    assert_eq!(names, [Some("zzz-old")]);
    assert_eq!(second.next_cursor, None);
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
    assert!(
        matches!(refused, Err(StoreError::AuthorityGone)),
        "{refused:?}"
    );
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

/// A write for a tenant holds only while its authority does: a create and an
/// owner's delete by a revoked token, or through an ended session, are
/// refused and change nothing; with the token and session alive both pass.
#[tokio::test]
async fn writes_need_their_authority_at_commit() {
    use crate::core::tenant::{Authority, SessionRecord, TokenRecord};
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path());
    let (_, token) = TokenRecord::generate("a", false, 1, None).unwrap();
    store.create_token(token.clone()).await.unwrap();
    let (_, session) = SessionRecord::generate(token.hash, crate::core::paste::now()).unwrap();
    store.create_session(session.clone()).await.unwrap();
    let browser = Authority {
        token_hash: token.hash,
        session_hash: Some(session.hash),
    };
    let with = |authority: Authority| PutLimits {
        owner_max_bytes: None,
        authority: Some(authority),
    };
    let body = || NewBody::new(Bytes::from_static(b"x"));
    let kept = new_id();
    store
        .put(meta(&kept, 1, Some("a")), body(), with(browser))
        .await
        .unwrap();
    store.delete_session(&session.hash).await.unwrap();
    let refused = store
        .put(meta(&new_id(), 1, Some("a")), body(), with(browser))
        .await;
    assert!(
        matches!(refused, Err(StoreError::AuthorityGone)),
        "{refused:?}"
    );
    let refused = store.delete(&id(&kept), Some(&browser)).await;
    assert!(
        matches!(refused, Err(StoreError::AuthorityGone)),
        "{refused:?}"
    );
    let bearer = Authority {
        session_hash: None,
        ..browser
    };
    store.revoke_token(&token.id).await.unwrap();
    let refused = store.delete(&id(&kept), Some(&bearer)).await;
    assert!(
        matches!(refused, Err(StoreError::AuthorityGone)),
        "{refused:?}"
    );
    assert_eq!(store.owner_usage("a").await.unwrap().pastes, 1);
    let (_, other) = TokenRecord::generate("a", false, 1, None).unwrap();
    store.create_token(other.clone()).await.unwrap();
    let owner = Authority {
        token_hash: other.hash,
        session_hash: None,
    };
    assert!(store.delete(&id(&kept), Some(&owner)).await.unwrap());
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
