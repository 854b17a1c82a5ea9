//! Large pastes on their way out: the response body that sends a stored
//! body a chunk at a time ([`Streamed`]), and the bound on the bytes such
//! responses hold in memory ([`reservation_bytes`]), across the server and
//! per client.
//!
//! A response waits for its client. A streamed one holds the chunk it is
//! reading, what the connection has queued for the socket (hyper's write
//! buffer, [`CONNECTION_BUFFER`], and one more chunk), a decoder's window if it
//! decodes a compressed body, and, for a body that came from a database row,
//! that row's bytes. Each response reserves that much before it starts
//! ([`reservation_bytes`]) from the server's bound on bytes responses hold
//! (an [`InflightBytes`]); a reservation past the client's share is refused
//! with `429`, one past the server's bound with `503`, both with
//! `Retry-After`. Every chunk handed to the connection holds the reservation,
//! so it is given back only when the connection has written (or dropped) the
//! last of them. The send timeout (`server::send_timeout`) bounds how long
//! a client that reads nothing keeps its share.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use tokio::task::JoinHandle;

use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::inflight::{InflightBytes, InflightRefusal, Reservation};
use crate::store::{BodyReader, StoredBody};

/// The most bytes of a body read at once: one chunk.
pub const CHUNK: usize = 64 << 10;

/// The most a connection buffers ([`hyper`]'s `max_buf_size`): it queues
/// chunks for the socket while less than this is queued, so one chunk past it
/// at most. Also the largest request head it reads, more than any client sends.
pub const CONNECTION_BUFFER: usize = 128 << 10;

/// What a streamed response holds besides its source and decoder: the
/// chunk being read, and what the connection may queue for the socket.
pub const STREAM_WINDOW: u64 = (CHUNK + CONNECTION_BUFFER + CHUNK) as u64;

/// The bytes a response sending `body` holds at most, decoding it or not.
pub fn reservation_bytes(body: &StoredBody, decodes: bool) -> u64 {
    let decoder = if decodes { body.decoder_bytes() } else { 0 };
    STREAM_WINDOW + body.resident_bytes() + decoder
}

/// Why a response was not started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The client holds its share already.
    #[error("too many large pastes are being sent to you at once; retry once one has arrived")]
    Client,
    /// The server holds its bound already.
    #[error("the server is sending too many large pastes at once; retry in a moment")]
    Server,
}

impl From<InflightRefusal> for Refused {
    fn from(refusal: InflightRefusal) -> Self {
        match refusal {
            InflightRefusal::OverShare { .. } => Self::Client,
            InflightRefusal::Busy => Self::Server,
        }
    }
}

/// Reserves `bytes` of `bound` for a response to `client`. A reservation
/// larger than a bound is admitted while nothing else is held under it, so
/// that any paste can be sent, one at a time.
pub fn reserve(
    bound: &Arc<InflightBytes>,
    client: std::net::IpAddr,
    bytes: u64,
) -> Result<Reservation, Refused> {
    let mut hold = bound.reservation(client);
    hold.grow(bytes)?;
    Ok(hold)
}

/// When a refused client may try again.
const RETRY_SECS: u64 = 1;

impl IntoResponse for Refused {
    /// `429` for a client over its share, `503` for a server over its bound,
    /// both with `Retry-After`.
    fn into_response(self) -> Response {
        let (status, code) = match self {
            Self::Client => (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyDownloads),
            Self::Server => (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Busy),
        };
        let mut response = ApiError::new(status, code, self.to_string()).into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_SECS));
        response
    }
}

/// A chunk on its way to the socket, holding its response's reservation.
struct Chunk {
    bytes: Vec<u8>,
    _hold: Arc<Reservation>,
}

impl AsRef<[u8]> for Chunk {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// A response body read from a stored body a [`CHUNK`] at a time, each
/// read on a blocking thread, the next only once the connection asks for it.
pub struct Streamed {
    state: State,
    /// Bytes not handed out yet.
    remaining: u64,
    hold: Arc<Reservation>,
}

enum State {
    /// Waiting for the connection to ask for the next chunk.
    Idle(BodyReader),
    /// Reading a chunk.
    Reading(JoinHandle<(BodyReader, io::Result<Vec<u8>>)>),
    /// Everything was sent, or reading failed.
    Done,
}

impl Streamed {
    /// Sends what `reader` reads, holding `hold` until the last byte is written.
    pub fn new(reader: BodyReader, hold: Reservation) -> Self {
        Self {
            remaining: reader.remaining(),
            state: State::Idle(reader),
            hold: Arc::new(hold),
        }
    }
}

impl hyper::body::Body for Streamed {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        loop {
            match std::mem::replace(&mut this.state, State::Done) {
                State::Done => return Poll::Ready(None),
                State::Idle(reader) if reader.remaining() == 0 => return Poll::Ready(None),
                State::Idle(mut reader) => {
                    // Allocated here, on a runtime thread: a buffer allocated on
                    // one of the many blocking threads would keep a page of that
                    // thread's heap for each response that has a chunk queued.
                    let mut chunk = reader.chunk_buffer(CHUNK);
                    this.state = State::Reading(tokio::task::spawn_blocking(move || {
                        let read = reader.fill_chunk(&mut chunk).map(|()| chunk);
                        (reader, read)
                    }));
                }
                State::Reading(mut task) => {
                    let (reader, chunk) = match Pin::new(&mut task).poll(cx) {
                        Poll::Pending => {
                            this.state = State::Reading(task);
                            return Poll::Pending;
                        }
                        Poll::Ready(Ok(read)) => read,
                        Poll::Ready(Err(e)) => return Poll::Ready(Some(Err(io::Error::other(e)))),
                    };
                    let bytes = match chunk {
                        Ok(bytes) => bytes,
                        Err(e) => {
                            // The answer is cut short: the client sees fewer
                            // bytes than its Content-Length, never a wrong body.
                            tracing::error!(error = %e, "a paste body could not be read while it was sent");
                            return Poll::Ready(Some(Err(e)));
                        }
                    };
                    this.remaining = reader.remaining();
                    this.state = State::Idle(reader);
                    let chunk = Chunk {
                        bytes,
                        _hold: this.hold.clone(),
                    };
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from_owner(chunk)))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.state {
            State::Done => true,
            State::Idle(reader) => reader.remaining() == 0,
            State::Reading(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    /// A client over its share is refused as `Client` (429), a server over
    /// its bound as `Server` (503); one reservation larger than a bound is
    /// admitted alone.
    #[test]
    fn refusals_say_whose_bound_is_held() {
        let bound = Arc::new(InflightBytes::new(1000, 400, 64));
        let a = reserve(&bound, ip(1), 300).unwrap();
        assert_eq!(reserve(&bound, ip(1), 200).unwrap_err(), Refused::Client);
        let b = reserve(&bound, ip(2), 400).unwrap();
        let c = reserve(&bound, ip(3), 300).unwrap();
        assert_eq!(reserve(&bound, ip(4), 1).unwrap_err(), Refused::Server);
        drop((a, b, c));
        let huge = reserve(&bound, ip(1), 5000).unwrap();
        assert_eq!(reserve(&bound, ip(2), 1).unwrap_err(), Refused::Server);
        drop(huge);
        assert!(reserve(&bound, ip(2), 1).is_ok());
    }
}
