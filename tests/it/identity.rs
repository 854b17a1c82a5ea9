//! Writes bound to the identity that authorised them: a create is stored
//! only if the token that authorised it still exists when it commits, so a
//! token revoked, or a tenant deleted (and re-created under its name), while
//! a create's body was on its way leaves nothing behind. Browser sessions
//! are in `sessions`, other instances' caches in `pg_cache`.

use reqwest::Method;
use serde_json::json;

use crate::support::{
    Server,
    slow::SlowCreate,
    tenants::{admin, ids, list, start, tenant, token},
};

/// The answer to a create whose authority ended before it was stored.
const GONE: &str = "before it was carried out; nothing was changed";

/// Begins a private create as `token`, paused after its first bytes.
async fn begin_create(server: &Server, token: &str) -> SlowCreate {
    let auth = format!("Authorization: Bearer {token}\r\n");
    SlowCreate::begin(
        server,
        "/?visibility=private",
        &auth,
        b"sent after the admin",
    )
    .await
}

/// Deletes tenant `name`, which must hold nothing.
async fn delete_tenant(server: &Server, name: &str) {
    let path = format!("/api/admin/tenants/{name}");
    let (code, answer) = admin(server, Method::DELETE, &path, None).await;
    assert_eq!(code, 204, "{answer}");
}

/// A create checked with T's token, whose body ends after T was deleted and
/// re-created, is refused and stored nowhere: the new T lists nothing and
/// holds nothing (it can be deleted).
#[tokio::test]
async fn a_create_begun_for_a_deleted_tenant_is_not_stored_in_its_namesake() {
    let server = start(&[]);
    let old = tenant(&server, "reborn", json!({})).await;
    let create = begin_create(&server, &old).await;
    delete_tenant(&server, "reborn").await;
    let new = tenant(&server, "reborn", json!({})).await;
    let (status, answer) = create.finish().await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains(GONE), "{answer}");
    assert!(ids(&list(&server, &new, "").await).is_empty());
    delete_tenant(&server, "reborn").await;
}

/// A create whose token is revoked while its body is on its way is refused,
/// and the tenant, whose other token still works, holds nothing.
#[tokio::test]
async fn a_create_whose_token_is_revoked_midway_is_not_stored() {
    let server = start(&[]);
    let kept = tenant(&server, "team", json!({})).await;
    let (id, revoked) = token(&server, "team", json!({})).await;
    let create = begin_create(&server, &revoked).await;
    let (code, answer) = admin(
        &server,
        Method::DELETE,
        &format!("/api/admin/tokens/{id}"),
        None,
    )
    .await;
    assert_eq!(code, 204, "{answer}");
    let (status, answer) = create.finish().await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains(GONE), "{answer}");
    assert!(ids(&list(&server, &kept, "").await).is_empty());
    delete_tenant(&server, "team").await;
}
