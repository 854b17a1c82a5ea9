//! One HTTPS connection: the TLS handshake under a deadline, then HTTP/2 or
//! HTTP/1.1 as ALPN decided.
//!
//! The handshake has the same deadline as request headers (`--header-timeout`):
//! a client that opens TCP and never speaks must not hold a task forever.
//! ALPN already says which protocol follows, so the connection goes straight
//! to hyper's HTTP/2 or HTTP/1.1 server instead of sniffing the preface.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::{Body, Incoming};
use hyper::server::conn::{http1, http2};
use hyper::service::HttpService;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::Watcher;
use tokio::io::{AsyncRead, AsyncWrite};

use super::{ACME_TLS_ALPN, Tls, TlsStats};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Accepts TLS on accepted TCP connections and serves HTTP over it.
pub struct TlsConnections {
    acceptor: tokio_rustls::TlsAcceptor,
    stats: Arc<TlsStats>,
    handshake_timeout: Duration,
    http2: http2::Builder<TokioExecutor>,
}

impl TlsConnections {
    /// `header_timeout` bounds the handshake, and HTTP/2 pings a silent peer
    /// at that interval and drops it if the ping goes unanswered as long.
    pub fn new(tls: &Tls, header_timeout: Duration) -> Self {
        let mut http2 = http2::Builder::new(TokioExecutor::new());
        http2
            .timer(TokioTimer::new())
            .keep_alive_interval(header_timeout)
            .keep_alive_timeout(header_timeout);
        Self {
            acceptor: tls.acceptor.clone(),
            stats: tls.stats(),
            handshake_timeout: header_timeout,
            http2,
        }
    }

    /// The counters shared with the metrics.
    pub fn stats(&self) -> Arc<TlsStats> {
        self.stats.clone()
    }

    /// Spawns the task that shakes hands and then serves `service`; `watcher`
    /// lets graceful shutdown wait for it, and `hold` is dropped when it ends.
    /// `stream` is the accepted connection (the server's, wrapped in its send
    /// timeout).
    pub fn spawn<Io, S, B>(
        &self,
        stream: Io,
        peer: SocketAddr,
        service: S,
        http1: http1::Builder,
        watcher: Watcher,
        hold: impl Send + 'static,
    ) where
        Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        S: HttpService<Incoming, ResBody = B> + Clone + Send + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let acceptor = self.acceptor.clone();
        let stats = self.stats.clone();
        let deadline = self.handshake_timeout;
        let http2 = self.http2.clone();
        tokio::spawn(async move {
            // Kept for the connection's life (its per-client count).
            let _hold = hold;
            let stream = match tokio::time::timeout(deadline, acceptor.accept(stream)).await {
                Ok(Ok(stream)) => stream,
                Ok(Err(e)) => {
                    stats.count_handshake(false);
                    tracing::debug!(error = %e, %peer, "TLS handshake failed");
                    return;
                }
                Err(_) => {
                    stats.count_handshake(false);
                    tracing::debug!(%peer, "TLS handshake timed out");
                    return;
                }
            };
            let alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
            if alpn.as_deref() == Some(ACME_TLS_ALPN) {
                // A TLS-ALPN-01 validation: the handshake itself was the answer.
                tracing::debug!(%peer, "answered an ACME TLS-ALPN-01 validation");
                return;
            }
            stats.count_handshake(true);
            let io = TokioIo::new(stream);
            let result = if alpn.as_deref() == Some(b"h2") {
                watcher.watch(http2.serve_connection(io, service)).await
            } else {
                watcher.watch(http1.serve_connection(io, service)).await
            };
            if let Err(e) = result {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
        });
    }
}
