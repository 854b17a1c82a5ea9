//! A hostile middle between snip and the real OpenID Connect provider: an
//! HTTP proxy whose URL the provider takes as its issuer (so discovery, the
//! login pages and the token endpoint are all reached through it), which
//! forwards every request as it is and can rewrite what the token endpoint
//! answers: the `id_token` changed by a test's function (claims edited,
//! re-signed with the provider's key or a stranger's, `alg: none`), or an
//! answer larger than snip takes. The provider itself stays real; and the
//! JWT helpers a test rewrites tokens with.

use std::sync::{Arc, Mutex, OnceLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::Value;

/// What the proxy does to the token endpoint's answer.
pub enum Rewrite {
    /// Forwards it as it is.
    Nothing,
    /// Replaces its `id_token` with what the function makes of it.
    IdToken(Box<dyn Fn(&str) -> String + Send + Sync>),
    /// Answers `bytes` bytes of JSON instead.
    Oversized(usize),
}

/// What the proxy's task shares with the test.
struct Shared {
    target: OnceLock<String>,
    rewrite: Mutex<Rewrite>,
    client: reqwest::Client,
}

/// The proxy; it stops when dropped.
pub struct TamperingProxy {
    /// `http://127.0.0.1:PORT`: the issuer the provider names.
    pub url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl TamperingProxy {
    /// Listens on an ephemeral port; it answers `503` until
    /// [`Self::forward_to`] names the provider.
    pub async fn bind() -> Self {
        // reqwest needs a process-wide crypto provider; a second install is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Shared {
            target: OnceLock::new(),
            rewrite: Mutex::new(Rewrite::Nothing),
            client: super::oidc_provider::no_redirects(),
        });
        let state = shared.clone();
        let app = axum::Router::new().fallback(move |request: Request<Body>| {
            let state = state.clone();
            async move { forward(&state, request).await }
        });
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { url, shared, task }
    }

    /// Forwards to the provider listening at `listening`.
    pub fn forward_to(&self, listening: &str) {
        self.shared.target.set(listening.to_owned()).unwrap();
    }

    /// What to do to the token endpoint's answers from now on.
    pub fn rewrite(&self, rewrite: Rewrite) {
        *self.shared.rewrite.lock().unwrap() = rewrite;
    }
}

impl Drop for TamperingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The headers a hop sets for itself, not forwarded. `Host` is: the
/// provider builds the URLs it answers from it.
const HOP: [&str; 4] = [
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
];

fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let mut kept = headers.clone();
    for name in HOP {
        kept.remove(name);
    }
    kept
}

/// Forwards `request` to the provider, rewriting the token endpoint's answer.
async fn forward(shared: &Shared, request: Request<Body>) -> Response {
    let Some(target) = shared.target.get() else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let path = parts.uri.path().to_owned();
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let answer = shared
        .client
        .request(parts.method.clone(), format!("{target}{path_and_query}"))
        .headers(end_to_end(&parts.headers))
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let headers = end_to_end(answer.headers());
    let mut bytes = answer.bytes().await.unwrap();
    if parts.method == "POST" && path == "/token" {
        match &*shared.rewrite.lock().unwrap() {
            Rewrite::Nothing => {}
            Rewrite::IdToken(change) => {
                let mut json: Value = serde_json::from_slice(&bytes).unwrap();
                if let Some(Value::String(token)) = json.get("id_token") {
                    json["id_token"] = Value::String(change(token));
                }
                bytes = Bytes::from(serde_json::to_vec(&json).unwrap());
            }
            Rewrite::Oversized(size) => {
                let padding = "x".repeat(*size);
                bytes = Bytes::from(format!(
                    r#"{{"access_token":"a","token_type":"Bearer","padding":"{padding}"}}"#
                ));
            }
        }
    }
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
}

/// The header and the claims of a JWT.
pub fn decode(jwt: &str) -> (Value, Value) {
    let mut parts = jwt.split('.');
    let header = serde_json::from_slice(&unb64(parts.next().unwrap())).unwrap();
    let claims = serde_json::from_slice(&unb64(parts.next().unwrap())).unwrap();
    (header, claims)
}

/// A JWT of `header` and `claims` with `signature` (base64url) as it is.
pub fn assemble(header: &Value, claims: &Value, signature: &str) -> String {
    format!(
        "{}.{}.{signature}",
        b64(&serde_json::to_vec(header).unwrap()),
        b64(&serde_json::to_vec(claims).unwrap())
    )
}

/// A JWT of `claims` signed RS256 with the key `(kid, base64 PKCS#8)`.
pub fn sign(claims: &Value, (kid, pkcs8): &(String, String)) -> String {
    let header = serde_json::json!({ "alg": "RS256", "typ": "JWT", "kid": kid });
    let unsigned = assemble(&header, claims, "");
    let input = unsigned.trim_end_matches('.');
    let der = base64::engine::general_purpose::STANDARD
        .decode(pkcs8)
        .unwrap();
    let key = ring::signature::RsaKeyPair::from_pkcs8(&der).unwrap();
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        input.as_bytes(),
        &mut signature,
    )
    .unwrap();
    format!("{input}.{}", b64(&signature))
}
