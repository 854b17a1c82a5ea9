//! The files of a several-file paste: `GET /raw/{id}/{name}` (one file's
//! bytes), the answer of `GET /raw/{id}` that lists them, and the zip of
//! all of them (`GET /download/{id}`, and a reveal of a several-file burn
//! paste).
//!
//! The zip is streamed: a blocking task writes it (the `zip` crate's
//! streaming writer, entries stored as they are, so a download costs no
//! compression) into a channel of a few chunks, which the response sends as
//! the connection takes them; a body read from the store is read a chunk at
//! a time on the way. So a download holds a few chunks, not the archive.

use std::io::{self, Write};

use axum::Extension;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::sync::mpsc;

use super::read::{PasteRead, parse_id, readable_file};
use crate::core::PasteMeta;
use crate::core::files;
use crate::http::api_error::ApiError;
use crate::http::context::{Caller, Origin};
use crate::http::inflight::Reservation;
use crate::http::outbound::{self, CHUNK, reservation_bytes};
use crate::http::render::security_headers::{RAW_CSP, SECURITY_HEADERS};
use crate::http::state::SharedState;
use crate::store::{BodyReader, StoredBody};

/// `GET /raw/{id}/{name}`: one file of a several-file paste, served as a
/// one-file paste's raw read is (`Range`, entity tag, its own media type,
/// the same safety headers).
pub async fn raw_file(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Extension(origin): Extension<Origin>,
    Path((id, name)): Path<(String, String)>,
    request: Request,
) -> Result<Response, ApiError> {
    let read = PasteRead {
        caller,
        origin,
        id: parse_id(&id)?,
    };
    readable_file(&state, &read, &name, request.headers()).await
}

/// The answer of `GET /raw/{id}` (and of `GET /{id}` outside a browser) for
/// a several-file paste: `300 Multiple Choices`, a text that names each
/// file's URL and the zip's.
pub fn listing(state: &SharedState, origin: &Origin, meta: &PasteMeta) -> Response {
    let base = state.base_url(origin);
    let mut text = format!(
        "This paste holds {} files; read each at its own URL:\n",
        meta.files.len()
    );
    for file in &meta.files {
        text.push_str(&format!(
            "{base}/raw/{}/{}\n",
            meta.id,
            files::path_segment(&file.name)
        ));
    }
    text.push_str(&format!(
        "or all of them as a zip: {base}/download/{}\n",
        meta.id
    ));
    let mut response = (StatusCode::MULTIPLE_CHOICES, text).into_response();
    let headers = response.headers_mut();
    safety_headers(headers);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The security headers of a raw answer (with the raw CSP), on `headers`.
fn safety_headers(headers: &mut axum::http::HeaderMap) {
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, value);
    }
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(RAW_CSP),
    );
}

/// Where a zip's bytes come from.
pub enum ZipSource {
    /// The body, in memory.
    Memory(Bytes),
    /// The body as stored, read as the zip is written.
    Stored(StoredBody),
}

/// How many chunks a zip's channel holds: the writer stays one chunk ahead.
const ZIP_CHANNEL: usize = 2;

/// A zip of every file of a several-file paste, streamed, as an attachment
/// named after the paste. A body read from the store is held against the
/// bound on bytes held by responses, as a raw read's is.
pub async fn zip(
    state: &SharedState,
    client: std::net::IpAddr,
    meta: &PasteMeta,
    source: ZipSource,
) -> Result<Response, ApiError> {
    let (reader, hold) = match source {
        ZipSource::Memory(body) => (Entries::Memory(body), None),
        ZipSource::Stored(stored) => {
            let bytes = reservation_bytes(&stored, true);
            let hold = match outbound::reserve(&state.outbound, client, bytes) {
                Ok(hold) => hold,
                Err(refused) => return Ok(refused.into_response()),
            };
            let stored = stored.load().await?.ok_or_else(ApiError::not_found)?;
            let reader = stored
                .body_reader(meta.size, 0, meta.size.saturating_sub(1))
                .map_err(|e| ApiError::internal_from("cannot start reading a paste's body", e))?;
            (Entries::Stored(reader), Some(hold))
        }
    };
    let table = meta.files.clone();
    let (sender, receiver) = mpsc::channel::<io::Result<Bytes>>(ZIP_CHANNEL);
    tokio::task::spawn_blocking(move || {
        let _hold: Option<Reservation> = hold;
        let mut out = ChannelWriter {
            buffer: Vec::with_capacity(CHUNK),
            sender: sender.clone(),
        };
        if let Err(e) = write_zip(&table, reader, &mut out) {
            // The client sees a cut-off download, never a well-formed wrong one.
            let _ = sender.blocking_send(Err(e));
        }
    });
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    });
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    safety_headers(headers);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    let disposition = format!("attachment; filename=\"{}.zip\"", meta.id);
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// The files' bytes, in body order.
enum Entries {
    Memory(Bytes),
    Stored(BodyReader),
}

/// Writes the zip of `table`'s files, their bytes read from `entries`.
/// Every entry name is a safe base name (checked again here), so no entry
/// can name a path outside the archive.
fn write_zip(
    table: &[files::PasteFile],
    mut entries: Entries,
    out: &mut ChannelWriter,
) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new_stream(&mut *out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    for span in files::spans(table) {
        if !files::is_safe_base_name(&span.file.name) {
            return Err(io::Error::other("a file name is not a safe base name"));
        }
        zip.start_file(span.file.name.as_str(), options)
            .map_err(io::Error::other)?;
        match &mut entries {
            Entries::Memory(body) => {
                let start = usize::try_from(span.offset).map_err(io::Error::other)?;
                let end =
                    usize::try_from(span.offset + span.file.size).map_err(io::Error::other)?;
                let bytes = body
                    .get(start..end)
                    .ok_or_else(|| io::Error::other("a file lies outside its paste's body"))?;
                for piece in bytes.chunks(CHUNK) {
                    zip.write_all(piece)?;
                }
            }
            Entries::Stored(reader) => {
                let mut left = span.file.size;
                while left > 0 {
                    let max = usize::try_from(left).unwrap_or(usize::MAX).min(CHUNK);
                    let chunk = reader.next_chunk(max)?;
                    if chunk.is_empty() {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    left -= chunk.len() as u64;
                    zip.write_all(&chunk)?;
                }
            }
        }
    }
    zip.finish().map_err(io::Error::other)?;
    out.flush()
}

/// A writer that sends what it is given as chunks of about [`CHUNK`]
/// bytes, waiting while the channel is full; fails once the response is
/// gone.
struct ChannelWriter {
    buffer: Vec<u8>,
    sender: mpsc::Sender<io::Result<Bytes>>,
}

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK));
        self.sender
            .blocking_send(Ok(Bytes::from(chunk)))
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}
