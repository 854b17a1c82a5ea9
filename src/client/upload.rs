//! Sending one paste: with a progress bar on a terminal, and with the
//! server's own answer when it refuses the upload half way.
//!
//! A server refuses an upload from its headers alone (too large, bad token)
//! and then closes the connection. A client still sending can see the reset
//! before the answer, and would report "cannot reach" where the server said
//! "too large". So when sending fails, the same request is asked again with
//! its declared length and no body bytes: the server answers it from the
//! headers, and that answer is what the user sees.

use std::time::Duration;

use anyhow::Context;
use bytes::Bytes;
use reqwest::{RequestBuilder, Url, header};

use super::{check, progress};
use crate::core::api::Created;

/// How long the server has to answer the headers-only question.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Uploads `body` with the request `make` builds (everything but the body),
/// showing progress labelled `label`; the created paste, or the server's
/// reason for refusing it.
pub async fn send(
    make: impl Fn() -> RequestBuilder,
    body: Vec<u8>,
    label: &str,
    server: &Url,
) -> anyhow::Result<Created<'static>> {
    let length = body.len() as u64;
    let bar = progress::bar(length, label);
    let body = match &bar {
        Some(bar) => progress::upload_body(body, bar.clone()),
        None => reqwest::Body::from(body),
    };
    let sent = make()
        .header(header::CONTENT_LENGTH, length)
        .body(body)
        .send()
        .await;
    progress::finish(bar);
    let response = match sent {
        Ok(response) => response,
        Err(error) => {
            return Err(refusal(&make, length).await.unwrap_or_else(|| {
                anyhow::Error::new(error).context(format!("cannot reach {server}"))
            }));
        }
    };
    check(response)
        .await?
        .json()
        .await
        .context("unexpected answer from the server")
}

/// The server's refusal of an upload of `length` bytes, asked with the
/// headers alone; `None` if it does not refuse it (or cannot be asked).
async fn refusal(make: &impl Fn() -> RequestBuilder, length: u64) -> Option<anyhow::Error> {
    // The body never yields a byte: the answer can only come from the headers.
    let nothing = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
    let response = make()
        .header(header::CONTENT_LENGTH, length)
        .body(reqwest::Body::wrap_stream(nothing))
        .timeout(PROBE_TIMEOUT)
        .send()
        .await
        .ok()?;
    check(response).await.err()
}
