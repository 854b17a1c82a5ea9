//! The send timeout of one connection: a client that takes nothing of what
//! it is sent for `--send-timeout` has its connection closed.
//!
//! A response waits for its client: while the socket's send buffer is full,
//! the response's unsent bytes (and the response itself) stay in memory.
//! Without a bound, a client that opens connections, asks for large pastes
//! and never reads would hold that memory for as long as it likes. As with
//! nginx's `send_timeout`, the bound is between two writes that make
//! progress, not on the whole response: a slow but steady reader of a large
//! paste is served, one that stops is dropped.
//!
//! [`SendTimeout`] wraps the connection's socket (under TLS, if any): a write
//! the socket cannot take arms one timer, the next write it takes disarms it,
//! and a write still waiting when the timer goes off fails with
//! `TimedOut`, which ends the connection. A connection that is idle between
//! requests writes nothing and is bounded by the header timeout instead.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A socket whose writes fail once they have made no progress for a while.
pub struct SendTimeout<S> {
    inner: S,
    timeout: Duration,
    peer: SocketAddr,
    /// Armed when a write could not go on, kept for the connection's life.
    stall: Option<Pin<Box<Sleep>>>,
    /// Whether the last write waited (the timer runs from its first wait).
    stalled: bool,
}

impl<S> SendTimeout<S> {
    /// `inner`, the connection from `peer`, whose writes may wait at most `timeout`.
    pub fn new(inner: S, peer: SocketAddr, timeout: Duration) -> Self {
        Self {
            inner,
            timeout,
            peer,
            stall: None,
            stalled: false,
        }
    }

    /// The socket this wraps.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// What a write that made `progress` answers: progress disarms the
    /// timer; a wait arms it (at its first wait) and fails once it goes off.
    fn watch<T>(
        &mut self,
        progress: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        if progress.is_ready() {
            self.stalled = false;
            return progress;
        }
        let deadline = Instant::now() + self.timeout;
        let stall = self
            .stall
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if !self.stalled {
            self.stalled = true;
            stall.as_mut().reset(deadline);
        }
        ready!(stall.as_mut().poll(cx));
        tracing::info!(
            peer = %self.peer,
            "closed a connection: its client took nothing for {:?} (--send-timeout)",
            self.timeout
        );
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client took nothing within the send timeout",
        )))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for SendTimeout<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for SendTimeout<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let progress = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch(progress, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let progress = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.watch(progress, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let progress = Pin::new(&mut this.inner).poll_flush(cx);
        this.watch(progress, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let progress = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.watch(progress, cx)
    }
}
