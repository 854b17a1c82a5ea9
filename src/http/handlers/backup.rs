//! `GET /api/admin/backup`: streams a dump of the whole store (admin token),
//! so a running server, whose embedded data dir no other process may open,
//! can be backed up online (`snip backup --server`).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::BytesMut;
use tokio::io::AsyncReadExt;

use crate::http::api_error::ApiError;
use crate::http::credentials::AdminCaller;
use crate::http::state::SharedState;
use crate::store::transfer;

/// Bytes buffered between the dump writer and the response.
const PIPE: usize = 256 << 10;

/// Streams the dump as it is written. A failure half way ends the response
/// early, without the dump's trailer, so the client sees a truncated dump.
pub async fn backup(
    _admin: AdminCaller,
    State(state): State<SharedState>,
) -> Result<Response, ApiError> {
    // Fail with a status while that is still possible.
    state.store.ping().await?;
    let (mut writer, reader) = tokio::io::duplex(PIPE);
    let store = state.store.clone();
    tokio::spawn(async move {
        match transfer::backup(store.as_ref(), &mut writer).await {
            Ok(summary) => tracing::info!(%summary, "backup sent"),
            Err(e) => tracing::error!(error = %e, "backup failed"),
        }
    });
    let stream = futures_util::stream::unfold(reader, |mut reader| async move {
        let mut buf = BytesMut::with_capacity(64 << 10);
        match reader.read_buf(&mut buf).await {
            Ok(0) => None,
            Ok(_) => Some((Ok::<_, std::io::Error>(buf.freeze()), reader)),
            Err(e) => Some((Err(e), reader)),
        }
    });
    let mut response = Body::from_stream(stream).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"snip.snipdump\""),
    );
    Ok(response)
}
