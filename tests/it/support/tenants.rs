//! Tenants and the admin API: a server with the admin API on, small wrappers
//! for admin requests, and paste requests made as a tenant.

use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};

use super::http::{Fetch, client, json_or_text};
use super::server::Server;

/// The admin token every test server is started with.
pub const ADMIN: &str = "admin-token-for-tests-0123456789";

/// Starts a server with the admin API on and `extra` flags.
pub fn start(extra: &[&str]) -> Server {
    let admin = format!("--admin-token={ADMIN}");
    let mut args = vec![admin.as_str()];
    args.extend_from_slice(extra);
    Server::start_with(&args)
}

/// Sends an admin API request with the right admin token; returns (status, JSON or Null).
pub async fn admin(
    server: &Server,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server.request(method, path).bearer_auth(ADMIN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.fetch().await;
    let status = response.status().as_u16();
    (status, json_or_text(response).await)
}

/// Creates a tenant with `settings` (merged into the name) and returns its first token.
pub async fn tenant(server: &Server, name: &str, settings: Value) -> String {
    let mut body = json!({ "name": name });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), settings.as_object()) {
        body.extend(extra.clone());
    }
    let (status, answer) = admin(server, Method::POST, "/api/admin/tenants", Some(body)).await;
    assert_eq!(status, 201, "tenant create: {answer}");
    answer["token"]["token"].as_str().unwrap().to_owned()
}

/// Creates a token of `name` with `options`; returns (public ID, secret).
pub async fn token(server: &Server, name: &str, options: Value) -> (String, String) {
    let path = format!("/api/admin/tenants/{name}/tokens");
    let (status, answer) = admin(server, Method::POST, &path, Some(options)).await;
    assert_eq!(status, 201, "token create: {answer}");
    (
        answer["id"].as_str().unwrap().to_owned(),
        answer["token"].as_str().unwrap().to_owned(),
    )
}

/// Changes a tenant's limits.
pub async fn update(server: &Server, name: &str, change: Value) {
    let path = format!("/api/admin/tenants/{name}");
    let (status, answer) = admin(server, Method::PATCH, &path, Some(change)).await;
    assert_eq!(status, 200, "tenant update: {answer}");
}

/// A request to `path` with an optional bearer token, asking for JSON.
pub fn request(server: &Server, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
    let request = server
        .request(method, path)
        .header("accept", "application/json");
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

/// Creates a paste as `token` with query `options`; returns the status and the JSON answer.
pub async fn try_create(
    server: &Server,
    token: Option<&str>,
    body: impl Into<reqwest::Body>,
    options: &str,
) -> (StatusCode, Value) {
    let response = request(server, Method::POST, &format!("/?{options}"), token)
        .body(body)
        .fetch()
        .await;
    let status = response.status();
    (status, json_or_text(response).await)
}

/// Creates a paste as `token` and returns its ID; panics unless `201`.
pub async fn create_as(
    server: &Server,
    token: Option<&str>,
    body: impl Into<reqwest::Body>,
    options: &str,
) -> String {
    let (status, answer) = try_create(server, token, body, options).await;
    assert_eq!(status, 201, "create failed: {answer}");
    answer["id"].as_str().unwrap().to_owned()
}

/// Creates a paste on the server at `url` as `token`, on a client of its
/// own (for many at once from spawned tasks); returns the status.
pub async fn create_status(url: String, token: String, body: Vec<u8>) -> u16 {
    client()
        .post(format!("{url}/"))
        .bearer_auth(token)
        .body(body)
        .fetch()
        .await
        .status()
        .as_u16()
}

/// The status of `method path` as `token`.
pub async fn status(server: &Server, method: Method, path: &str, token: Option<&str>) -> u16 {
    request(server, method, path, token)
        .fetch()
        .await
        .status()
        .as_u16()
}

/// Lists the caller's pastes with `query`; returns the JSON page.
pub async fn list(server: &Server, token: &str, query: &str) -> Value {
    let path = format!("/api/pastes?{query}");
    let response = request(server, Method::GET, &path, Some(token))
        .fetch()
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// The IDs of a listing page.
pub fn ids(page: &Value) -> Vec<String> {
    page["pastes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}
