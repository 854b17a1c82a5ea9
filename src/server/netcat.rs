//! The netcat port (`--netcat-listen`, off by default), for machines with
//! `nc` but no HTTP client: `echo hi | nc paste.example.com 9999` stores
//! what the client sends as a paste and writes its URL back, as termbin
//! does.
//!
//! A connection's bytes are the body of a `POST /` sent through the same
//! router as every HTTP request, so nothing about creating a paste is
//! written twice: the anonymous policy, the per-IP rate limit, the paste
//! size limit, the bytes-in-flight bounds and the body's pace all apply as
//! they do to `curl --data-binary`, and the request is logged and counted
//! like any other. Connections count against the same per-client cap as the
//! HTTP listener's.
//!
//! The input ends when the client half-closes, or when it has sent nothing
//! for [`IDLE_TIMEOUT`]: OpenBSD's `nc` (Debian's default) keeps its side
//! open after its input ends unless given `-N`, so without the idle end the
//! one-liner would hang. The answer is the URL and a newline, or `error: `
//! and the reason; then the server closes the connection.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, header};
use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::conn_limit::ConnLimit;
use super::{SHUTDOWN_GRACE, accept};
use crate::http::Peer;

/// How long a client may send nothing before what it sent is taken as the
/// whole paste (or, if it sent nothing, the connection is closed).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(2);

/// The most bytes read from the socket at once.
const READ_CHUNK: usize = 64 * 1024;

/// The most bytes of an answer written back (a URL, or an error's message).
const MAX_ANSWER: usize = 16 * 1024;

/// Accepts connections on `listener` and stores what each sends through
/// `router`, until `shutdown` resolves; then lets the connections in flight
/// finish (up to the grace period every listener has).
pub async fn run(
    listener: TcpListener,
    router: Router,
    conn_limit: Option<Arc<ConnLimit>>,
    shutdown: impl Future<Output = ()>,
) {
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = accept(&listener) => accepted,
            () = &mut shutdown => break,
        };
        while connections.try_join_next().is_some() {}
        let slot = match &conn_limit {
            None => None,
            Some(limit) => match limit.admit(peer.ip()) {
                Some(slot) => Some(slot),
                None => {
                    tracing::debug!(%peer, "refused a netcat connection: too many open from this client");
                    continue;
                }
            },
        };
        let router = router.clone();
        connections.spawn(async move {
            serve_connection(stream, peer, router).await;
            drop(slot);
        });
    }
    drop(listener);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(SHUTDOWN_GRACE, drained).await.is_err() {
        tracing::warn!("some netcat connections did not finish within {SHUTDOWN_GRACE:?}");
    }
}

/// Stores what `stream` sends as one paste and writes the answer back.
async fn serve_connection(stream: TcpStream, peer: SocketAddr, router: Router) {
    let (read, mut write) = stream.into_split();
    let mut request = Request::new(Body::from_stream(input(read)));
    *request.method_mut() = Method::POST;
    *request.uri_mut() = axum::http::Uri::from_static("/");
    // The URL as text, as `curl` gets it.
    request.headers_mut().insert(
        header::ACCEPT,
        axum::http::HeaderValue::from_static("text/plain"),
    );
    request.extensions_mut().insert(Peer::direct(peer));
    let Ok(response) = router.oneshot(request).await;
    let ok = response.status().is_success();
    let text = match axum::body::to_bytes(response.into_body(), MAX_ANSWER).await {
        Ok(text) => text,
        Err(e) => {
            tracing::debug!(error = %e, %peer, "a netcat answer was not read");
            return;
        }
    };
    let answer = if ok {
        text
    } else {
        [b"error: ".as_slice(), &text].concat().into()
    };
    // The client may be gone already; it then misses its answer, nothing else.
    if write.write_all(&answer).await.is_ok() {
        let _ = write.shutdown().await;
    }
}

/// The bytes a client sends, until it half-closes or sends nothing for
/// [`IDLE_TIMEOUT`].
fn input(
    read: OwnedReadHalf,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    futures_util::stream::unfold(Some(read), |read| async move {
        let mut read = read?;
        let mut buf = BytesMut::with_capacity(READ_CHUNK);
        match tokio::time::timeout(IDLE_TIMEOUT, read.read_buf(&mut buf)).await {
            Ok(Ok(0)) | Err(_) => None,
            Ok(Ok(_)) => Some((Ok(buf.freeze()), Some(read))),
            Ok(Err(e)) => Some((Err(e), None)),
        }
    })
}
