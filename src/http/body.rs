//! Reading a request body, the one way every route that reads one does
//! (creates, admin requests, the sign-in form): its bytes are held against
//! the in-flight bounds as they arrive ([`super::inflight`]), and it must
//! keep a [`Pace`]: start within the first-byte timeout, then keep up the
//! minimum rate, and end within the body timeout. A body that fails either
//! is cut off, and its answer closes the connection.

use std::pin::pin;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use http_body_util::BodyExt;
use tokio::time::Instant;

use super::api_error::ApiError;
use super::inflight::{InflightRefusal, Reservation};
use crate::core::units::format_size;

/// How fast a request body must arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// Time to send the whole body (`--body-timeout`).
    pub whole: Duration,
    /// Time to start sending it, after the headers; also the slack of the
    /// minimum rate (`--body-first-byte-timeout`).
    pub first_byte: Duration,
    /// The least average rate, in bytes per second, counted from the end of
    /// the first-byte timeout; 0: none (`--body-min-rate`).
    pub min_rate: u64,
}

/// Why a body was not read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The body passed the route's size limit.
    #[error("the body is larger than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The body's bytes found no room in the in-flight bounds.
    #[error(transparent)]
    Inflight(#[from] InflightRefusal),
    /// The body did not keep its pace.
    #[error(transparent)]
    Stalled(#[from] Stall),
    /// The connection failed, or the body's framing is broken.
    #[error("could not read the request body: {0}")]
    Broken(String),
}

/// Which rule of a [`Pace`] a body broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Stall {
    /// Not a byte within the first-byte timeout.
    #[error("the request body did not start within {} s", .0.as_secs())]
    NotStarted(Duration),
    /// Slower than the minimum rate.
    #[error(
        "the request body arrived slower than {}/s, the least accepted after its first {} s",
        format_size(*rate), grace.as_secs()
    )]
    TooSlow {
        /// The minimum rate, in bytes per second.
        rate: u64,
        /// The first-byte timeout, before the rate counts.
        grace: Duration,
    },
    /// Not whole within the body timeout.
    #[error("the request body did not arrive within {} s", .0.as_secs())]
    NotWhole(Duration),
}

/// When a body must have arrived, given what has.
#[derive(Debug)]
struct Deadline {
    pace: Pace,
    start: Instant,
    received: u64,
}

impl Deadline {
    fn new(pace: Pace) -> Self {
        Self {
            pace,
            start: Instant::now(),
            received: 0,
        }
    }

    /// The rule that ends the body first, and when.
    fn next(&self) -> (Instant, Stall) {
        let pace = self.pace;
        let whole = (self.start + pace.whole, Stall::NotWhole(pace.whole));
        if self.received == 0 {
            let first = Stall::NotStarted(pace.first_byte);
            return std::cmp::min_by_key((self.start + pace.first_byte, first), whole, |d| d.0);
        }
        // Each byte buys 1 / min_rate seconds past the first-byte timeout.
        let Some(earned_ms) = self
            .received
            .saturating_mul(1000)
            .checked_div(pace.min_rate)
        else {
            return whole;
        };
        let slow = Stall::TooSlow {
            rate: pace.min_rate,
            grace: pace.first_byte,
        };
        let due = self.start + pace.first_byte + Duration::from_millis(earned_ms);
        std::cmp::min_by_key((due, slow), whole, |d| d.0)
    }
}

/// The body's data, chunk by chunk, each held in `reservation` (if any)
/// before it is handed on. The stream ends after its first error.
pub fn chunks<'r>(
    body: Body,
    pace: Pace,
    reservation: Option<&'r mut Reservation>,
) -> impl Stream<Item = Result<Bytes, BodyError>> + Send + 'r {
    let reading = Some((body, reservation, Deadline::new(pace)));
    futures_util::stream::unfold(reading, |reading| async move {
        let (mut body, mut reservation, mut deadline) = reading?;
        loop {
            let (at, stall) = deadline.next();
            let data = match tokio::time::timeout_at(at, body.frame()).await {
                Err(_) => return Some((Err(stall.into()), None)),
                Ok(None) => return None,
                Ok(Some(Err(e))) => return Some((Err(BodyError::Broken(e.to_string())), None)),
                Ok(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) if !data.is_empty() => data,
                    // Trailers and empty chunks.
                    _ => continue,
                },
            };
            let len = data.len() as u64;
            if let Some(reservation) = reservation.as_deref_mut()
                && let Err(refusal) = reservation.grow(len)
            {
                return Some((Err(refusal.into()), None));
            }
            deadline.received += len;
            return Some((Ok(data), Some((body, reservation, deadline))));
        }
    })
}

/// The whole body, at most `limit` bytes, held in `reservation`.
pub async fn read_whole(
    body: Body,
    limit: u64,
    pace: Pace,
    reservation: &mut Reservation,
) -> Result<Bytes, BodyError> {
    let mut chunks = pin!(chunks(body, pace, Some(reservation)));
    // A body of one chunk (most small ones) is handed on without a copy.
    let mut first: Option<Bytes> = None;
    let mut joined = BytesMut::new();
    let mut len = 0u64;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        len += chunk.len() as u64;
        if len > limit {
            return Err(BodyError::TooLarge { limit });
        }
        match first.take() {
            None if joined.is_empty() => first = Some(chunk),
            Some(earlier) => {
                joined.extend_from_slice(&earlier);
                joined.extend_from_slice(&chunk);
            }
            None => joined.extend_from_slice(&chunk),
        }
    }
    Ok(first.unwrap_or_else(|| joined.freeze()))
}

/// Reads and drops the body while it keeps `pace`.
pub async fn discard(body: Body, pace: Pace) {
    let mut chunks = pin!(chunks(body, pace, None));
    while let Some(Ok(_)) = chunks.next().await {}
}

/// When a client refused for lack of room may try again: bodies in flight
/// are usually done within seconds.
const RETRY_SECS: u64 = 1;

impl BodyError {
    /// The answer to a body not read, with `too_large` the route's own
    /// `413` for [`BodyError::TooLarge`]. It closes the connection: the rest
    /// of the body is unread.
    pub fn into_answer(self, too_large: impl FnOnce(u64) -> ApiError) -> Response {
        let message = self.to_string();
        let (error, retry) = match self {
            Self::TooLarge { limit } => (too_large(limit), false),
            Self::Inflight(InflightRefusal::OverShare { .. }) => {
                (ApiError::inflight_share(message), true)
            }
            Self::Inflight(InflightRefusal::Busy) => (ApiError::busy(message), true),
            Self::Stalled(_) => (ApiError::body_too_slow(message), false),
            Self::Broken(_) => (ApiError::bad_request(message), false),
        };
        let mut response = closing(error);
        if retry {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_SECS));
        }
        response
    }
}

/// An error answered before the request body was read to its end: the client
/// may still be sending it, so the connection cannot carry another request.
/// hyper then drains the rest or closes the connection, depending on timing;
/// without `Connection: close` a client would reuse the connection and its
/// next request could fail with a connection error instead of an answer.
pub fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACE: Pace = Pace {
        whole: Duration::from_secs(60),
        first_byte: Duration::from_secs(10),
        min_rate: 1000,
    };

    /// The first byte is due after the first-byte timeout; every byte then
    /// buys time at the minimum rate, up to the body timeout.
    #[test]
    fn each_byte_buys_time_up_to_the_whole() {
        let mut deadline = Deadline::new(PACE);
        let start = deadline.start;
        assert_eq!(
            deadline.next(),
            (start + PACE.first_byte, Stall::NotStarted(PACE.first_byte))
        );
        deadline.received = 5000;
        let slow = Stall::TooSlow {
            rate: 1000,
            grace: PACE.first_byte,
        };
        assert_eq!(deadline.next(), (start + Duration::from_secs(15), slow));
        deadline.received = 1 << 20;
        assert_eq!(
            deadline.next(),
            (start + PACE.whole, Stall::NotWhole(PACE.whole))
        );
        deadline.pace.min_rate = 0;
        deadline.received = 1;
        assert_eq!(deadline.next().1, Stall::NotWhole(PACE.whole));
    }
}
