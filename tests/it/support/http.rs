//! Talking HTTP to a test server: a client that shows exactly what was sent,
//! one-line requests on a [`Server`], and readers for answers on raw
//! connections.

use std::time::Duration;

use reqwest::{Body, Method, RequestBuilder, Response};
use serde_json::Value;

use super::server::Server;

/// An HTTP client that never follows redirects, so tests see exactly what was sent.
pub fn client() -> reqwest::Client {
    client_builder().build().unwrap()
}

/// A [`client`] whose connections come from the loopback address `local`
/// (any 127.0.0.0/8 address is loopback on Linux): another client to the server.
pub fn client_from(local: &str) -> reqwest::Client {
    client_builder()
        .local_address(local.parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap()
}

fn client_builder() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none())
}

/// Sends a request and panics if no answer arrives (a test cannot go on without one).
pub trait Fetch {
    /// The response to this request.
    fn fetch(self) -> impl Future<Output = Response>;
}

impl Fetch for RequestBuilder {
    async fn fetch(self) -> Response {
        self.send().await.unwrap()
    }
}

/// One-line requests. Each uses a fresh [`client`] (its own connections), as a
/// separate `curl` would.
impl Server {
    /// A request to `path` on this server, to add headers or a body to.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        client().request(method, self.at(path))
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path).fetch().await
    }

    /// `GET path` with an `Accept` header.
    pub async fn get_accepting(&self, path: &str, accept: &str) -> Response {
        self.request(Method::GET, path)
            .header("accept", accept)
            .fetch()
            .await
    }

    /// `HEAD path`.
    pub async fn head(&self, path: &str) -> Response {
        self.request(Method::HEAD, path).fetch().await
    }

    /// `POST path` with `body`.
    pub async fn post(&self, path: &str, body: impl Into<Body>) -> Response {
        self.request(Method::POST, path).body(body).fetch().await
    }

    /// `DELETE path`, with `token` as the delete token if given.
    pub async fn delete(&self, path: &str, token: Option<&str>) -> Response {
        let request = self.request(Method::DELETE, path);
        match token {
            Some(token) => request.header("x-delete-token", token),
            None => request,
        }
        .fetch()
        .await
    }

    /// `POST /{id}/reveal`: reads a burn paste (and so destroys it).
    pub async fn reveal(&self, id: &str) -> Response {
        self.request(Method::POST, &format!("/{id}/reveal"))
            .fetch()
            .await
    }

    /// The status of `GET path` (the body is not read).
    pub async fn status(&self, path: &str) -> u16 {
        self.get(path).await.status().as_u16()
    }

    /// `GET path`: (status, body as text).
    pub async fn text(&self, path: &str) -> (u16, String) {
        get_text(&client(), &self.at(path)).await
    }

    /// `GET path`: (status, body as JSON); panics if the body is not JSON.
    pub async fn json(&self, path: &str) -> (u16, Value) {
        get_json(&client(), &self.at(path)).await
    }

    /// The metadata of paste `id`: (status, JSON).
    pub async fn metadata(&self, id: &str) -> (u16, Value) {
        self.json(&format!("/api/pastes/{id}")).await
    }

    /// Creates a paste with query `options` and returns (id, delete token).
    pub async fn create(&self, body: impl Into<Body>, options: &str) -> (String, String) {
        let json = self.create_json(body, options).await;
        (
            json["id"].as_str().unwrap().to_owned(),
            json["delete_token"].as_str().unwrap().to_owned(),
        )
    }

    /// Creates a paste with query `options` and returns the create answer's JSON.
    pub async fn create_json(&self, body: impl Into<Body>, options: &str) -> Value {
        create_json(&client(), &self.url, body, options).await
    }
}

/// Creates a paste on a shared client and returns the create answer's JSON.
pub async fn create_json(
    client: &reqwest::Client,
    server_url: &str,
    body: impl Into<Body>,
    options: &str,
) -> Value {
    let response = client
        .post(format!("{server_url}/?{options}"))
        .header("accept", "application/json")
        .body(body)
        .fetch()
        .await;
    assert_eq!(
        response.status(),
        201,
        "create failed: {:?}",
        response.text().await
    );
    response.json().await.unwrap()
}

/// GETs `url` and returns (status, body bytes).
pub async fn get_bytes(client: &reqwest::Client, url: &str) -> (u16, Vec<u8>) {
    let response = client.get(url).fetch().await;
    let status = response.status().as_u16();
    (status, response.bytes().await.unwrap().to_vec())
}

/// GETs `url` and returns the status (the body is not read).
pub async fn get_status(client: &reqwest::Client, url: &str) -> u16 {
    client.get(url).fetch().await.status().as_u16()
}

/// GETs `url` and returns (status, body as text).
pub async fn get_text(client: &reqwest::Client, url: &str) -> (u16, String) {
    let response = client.get(url).fetch().await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// GETs `url` and returns (status, body as JSON); panics if the body is not JSON.
pub async fn get_json(client: &reqwest::Client, url: &str) -> (u16, Value) {
    let response = client.get(url).fetch().await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A response's body as text, or as a JSON string if it is not JSON: what an
/// error message looks like either way.
pub async fn json_or_text(response: Response) -> Value {
    let text = response.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// Reads one HTTP/1.1 response whose body has a Content-Length from a
/// kept-alive connection (plain TCP or TLS); returns its status and body.
/// Panics if the connection closes first or nothing arrives for 10 s.
pub async fn read_response<S>(stream: &mut S) -> (u16, String)
where
    S: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("response within 10 s")
            .unwrap();
        assert!(n > 0, "connection closed before a full response");
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().unwrap())
            })
            .expect("Content-Length");
        if body.len() >= length {
            let status = head.split(' ').nth(1).unwrap().parse().unwrap();
            return (status, body[..length].to_owned());
        }
    }
}

/// Reads until the server closes the connection (or `limit` passes);
/// returns what arrived, `None` if the connection was still open.
pub async fn read_until_closed<S>(stream: &mut S, limit: Duration) -> Option<Vec<u8>>
where
    S: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let closed = tokio::time::timeout(limit, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    closed.ok().map(|()| received)
}
