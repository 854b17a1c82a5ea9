//! Reading pastes: `GET /{id}` (negotiated), `GET /raw/{id}`, `GET /download/{id}`,
//! and `POST /{id}/reveal`, the only way to read (and so destroy) a burn paste.
//!
//! This is the hot path: the ID is checked before any lookup, there is one
//! store lookup per request, and a small body is sent from the store's
//! shared bytes without a copy. A large body is sent as it is read, a chunk
//! at a time, within the bound on bytes held by responses (`outbound`); a
//! burn paste's body is never read to refuse it.
//!
//! A paste the store keeps compressed has two representations: its stored
//! zstd stream (`Content-Encoding: zstd`), sent to clients whose
//! `Accept-Encoding` takes zstd when they ask for the whole body, and the
//! body itself, sent to everyone else and for every `Range`. Each has its own
//! entity tag, and both say `Vary: Accept-Encoding`.

use std::sync::LazyLock;

use axum::Extension;
use axum::extract::{FromRequestParts, Path, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use bytes::Bytes;

use super::files::{self, ZipSource};
use super::range::{RangeOutcome, single_range};
use crate::core::envelope::Proof;
use crate::core::files::find as find_file;
use crate::core::paste::{self, PasteMeta, ProofStanding};
use crate::core::{PasteId, Visibility};
use crate::http::api_error::ApiError;
use crate::http::context::Caller;
use crate::http::context::Origin;
use crate::http::credentials;
use crate::http::outbound::{self, Streamed, reservation_bytes};
use crate::http::render::language;
use crate::http::render::layout::Account;
use crate::http::render::negotiate::{Accepts, accept_encoding, accepts, vary_by_accept};
use crate::http::render::pages;
use crate::http::render::preview::Instance;
use crate::http::render::security_headers::{RAW_CSP, SECURITY_HEADERS};
use crate::http::state::SharedState;
use crate::store::{Encoding, Opened, OpenedBody, StoredBody, Taken};

/// Parses the path's ID; a bad one is answered `404` without a store lookup.
pub fn parse_id(raw: &str) -> Result<PasteId, ApiError> {
    PasteId::parse(raw).map_err(ApiError::bad_id)
}

/// Whether `caller` may see the paste at all. A team paste of another
/// tenant, or another person's only-me paste, answers exactly like a missing
/// one.
pub fn visible(meta: &PasteMeta, caller: &Caller) -> bool {
    match meta.visibility {
        Visibility::Unlisted => true,
        Visibility::Team => caller.owns(meta.owner.as_deref()),
        Visibility::Me => {
            caller.owns(meta.owner.as_deref())
                && caller
                    .person()
                    .is_some_and(|p| meta.authored_by(&p.subject))
        }
    }
}

/// Loads a live paste's metadata only (no body), or `404`.
pub async fn load_meta(
    state: &SharedState,
    caller: &Caller,
    raw_id: &str,
) -> Result<(PasteId, PasteMeta), ApiError> {
    let id = parse_id(raw_id)?;
    let meta = state.store.meta(&id, paste::now()).await?;
    let meta = meta
        .filter(|m| visible(m, caller))
        .ok_or_else(ApiError::not_found)?;
    Ok((id, meta))
}

/// Opens a live paste for sending: from the paste cache, else from the store
/// (a large body left unread, a burn paste's body not read at all).
pub(super) async fn load(
    state: &SharedState,
    caller: &Caller,
    id: &PasteId,
) -> Result<Opened, ApiError> {
    let now = paste::now();
    let opened = match state.store.cached(id, now) {
        Some(paste) => Some(Opened::from(paste)),
        None => state.store.open(id, now).await?,
    };
    opened
        .filter(|o| visible(&o.meta, caller))
        .ok_or_else(ApiError::not_found)
}

/// The header a reader presents its proof of key in (`docs/envelope.md`).
pub const PROOF_HEADER: &str = "x-snip-proof";

/// The proof of key a request presents for `meta`, if any; a malformed one
/// is `400`. For a paste without a key check the header is not even read, so
/// such pastes are served whatever it holds.
fn presented_proof(meta: &PasteMeta, headers: &HeaderMap) -> Result<Option<Proof>, ApiError> {
    if meta.key_check.is_none() {
        return Ok(None);
    }
    let Some(value) = headers.get(PROOF_HEADER) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|text| Proof::parse(text.trim()).ok())
        .map(Some)
        .ok_or_else(|| {
            ApiError::bad_request("X-Snip-Proof must be 43 characters of base64url (32 bytes)")
        })
}

/// Lets the read of a paste with a key check go on only with the right
/// proof: a missing one is refused, a wrong one is refused and counted
/// against the caller's rate bucket.
async fn check_proof(
    state: &SharedState,
    read: &PasteRead,
    standing: ProofStanding,
) -> Result<(), ApiError> {
    match standing {
        ProofStanding::Admitted => Ok(()),
        ProofStanding::Missing => Err(refuse(state, read, false).await),
        ProofStanding::Wrong => Err(refuse(state, read, true).await),
    }
}

/// The refusal of a read without the right proof; a `wrong` one is counted
/// against the caller's rate bucket.
async fn refuse(state: &SharedState, read: &PasteRead, wrong: bool) -> ApiError {
    if !wrong {
        return ApiError::proof_required();
    }
    credentials::charge_wrong_guess(state, &read.caller, read.origin.client).await;
    ApiError::wrong_proof()
}

fn burn_conflict(state: &SharedState, origin: &Origin, meta: &PasteMeta) -> ApiError {
    if meta.key_check.is_some() {
        return ApiError::burn_conflict_proved();
    }
    ApiError::burn_conflict(&format!("{}/{}/reveal", state.base_url(origin), meta.id))
}

/// One read of a paste: who asks, where they came from, and the paste's ID
/// (checked before any lookup). The routed reads extract it; the hot routes
/// build it from what they have already decided.
pub struct PasteRead {
    /// Who asks.
    pub caller: Caller,
    /// Where the request came from (for printed URLs).
    pub origin: Origin,
    /// The paste.
    pub id: PasteId,
}

impl FromRequestParts<SharedState> for PasteRead {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &SharedState) -> Result<Self, Response> {
        let Extension(caller) = Extension::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let Extension(origin) = Extension::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        match parse_id(&id) {
            Ok(id) => Ok(Self { caller, origin, id }),
            Err(error) => {
                Err(chat_punctuation_redirect(parts, &id).unwrap_or_else(|| error.into_response()))
            }
        }
    }
}

/// What chat programs and prose glue to the end of a link: `see /abc…x.`,
/// `(/abc…x)`, `/abc…x!`.
const CHAT_PUNCTUATION: &[char] = &['.', ',', '!', ')', ';', ':', '\'', '"', ']', '>'];

/// A link copied from a chat message often carries the sentence's last
/// character. When the path's last segment is an ID that fails to parse, but
/// parses once such trailing characters are dropped, a `GET` or `HEAD` is
/// sent there with `308` (before any lookup, so nothing is read or burned);
/// anything else stays the usual `404`.
fn chat_punctuation_redirect(parts: &Parts, id: &str) -> Option<Response> {
    if parts.method != Method::GET && parts.method != Method::HEAD {
        return None;
    }
    let trimmed = id.trim_end_matches(CHAT_PUNCTUATION);
    if trimmed.len() == id.len() || PasteId::parse(trimmed).is_err() {
        return None;
    }
    // Only when the ID is the path's last segment, as written: `/{id}` and
    // `/raw/{id}`, not `/{id}/download`.
    let (prefix, last) = parts.uri.path().rsplit_once('/')?;
    if last != id || !matches!(prefix, "" | "/raw") {
        return None;
    }
    let query = parts
        .uri
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    Some(Redirect::permanent(&format!("{prefix}/{trimmed}{query}")).into_response())
}

// The read handlers take the whole `Request` last and borrow its headers:
// axum's `HeaderMap` extractor would clone every header.

/// `GET /{id}`: the HTML page for browsers, the raw bytes for everyone else; a
/// short link redirects. Burn pastes are never consumed here: browsers get an
/// interstitial, others `409`.
pub async fn view(
    State(state): State<SharedState>,
    read: PasteRead,
    request: Request,
) -> Result<Response, ApiError> {
    let (state, read, headers) = (&state, &read, request.headers());
    let opened = load(state, &read.caller, &read.id).await?;
    if let Some(target) = &opened.meta.redirect {
        return Ok(redirect(target));
    }
    let wants = accepts(headers);
    if opened.meta.burn {
        return match wants {
            Accepts::Html => Ok(vary_by_accept(page(pages::burn_interstitial(
                &opened.meta,
                Account::of(&read.caller),
                &state.site.name,
                language::of_request(headers),
            )))),
            _ => Err(burn_conflict(state, &read.origin, &opened.meta)),
        };
    }
    if wants != Accepts::Html {
        let proof = presented_proof(&opened.meta, headers)?;
        check_proof(state, read, opened.meta.proof_standing(proof.as_ref())).await?;
    }
    Ok(vary_by_accept(match wants {
        Accepts::Html => {
            let Opened { meta, body } = opened;
            let shown = shown_prefix(&meta, body).await?;
            let base_url = state.base_url(&read.origin);
            let instance = Instance {
                site: &state.site,
                base_url: &base_url,
            };
            page(pages::view(
                &meta,
                &shown,
                Account::of(&read.caller),
                &instance,
                language::of_request(headers),
            ))
        }
        _ => send(state, read, opened, headers, Disposition::Inline).await?,
    }))
}

/// What the HTML view of a paste needs of its body: nothing for an
/// encrypted paste (the page never holds the ciphertext: the script fetches
/// it with the proof), else at most [`pages::VIEW_MAX_BYTES`].
pub(super) async fn shown_prefix(meta: &PasteMeta, body: OpenedBody) -> Result<Bytes, ApiError> {
    let size = meta.size;
    match body {
        _ if meta.encrypted => Ok(Bytes::new()),
        OpenedBody::Loaded { body, .. } => Ok(body),
        OpenedBody::Withheld => Ok(Bytes::new()),
        OpenedBody::Stored(stored) => {
            let Some(stored) = stored.load().await? else {
                return Err(ApiError::not_found());
            };
            let max = pages::VIEW_MAX_BYTES;
            let end = size.min(max as u64).saturating_sub(1);
            tokio::task::spawn_blocking(move || {
                stored.body_reader(size, 0, end)?.read_to_bytes(max)
            })
            .await
            .map_err(|e| ApiError::internal_from("a paste's body for its page was not read", e))?
            .map_err(|e| ApiError::internal_from("cannot read a paste's body for its page", e))
        }
    }
}

/// `GET /raw/{id}`: always the raw bytes.
pub async fn raw(
    State(state): State<SharedState>,
    read: PasteRead,
    request: Request,
) -> Result<Response, ApiError> {
    answer_raw(&state, &read, request.headers()).await
}

/// [`raw`] of a read already established (also the hot route's).
pub async fn answer_raw(
    state: &SharedState,
    read: &PasteRead,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let opened = readable(state, read, headers).await?;
    send(state, read, opened, headers, Disposition::Inline).await
}

/// `GET /download/{id}`: the raw bytes as an attachment.
pub async fn download(
    State(state): State<SharedState>,
    read: PasteRead,
    request: Request,
) -> Result<Response, ApiError> {
    let opened = readable(&state, &read, request.headers()).await?;
    send(
        &state,
        &read,
        opened,
        request.headers(),
        Disposition::Attachment,
    )
    .await
}

/// Opens a paste for a raw read, refusing burn pastes (they are only
/// revealed) and, without the right proof, pastes with a key check.
pub async fn readable(
    state: &SharedState,
    read: &PasteRead,
    headers: &HeaderMap,
) -> Result<Opened, ApiError> {
    let opened = load(state, &read.caller, &read.id).await?;
    if opened.meta.burn {
        return Err(burn_conflict(state, &read.origin, &opened.meta));
    }
    let proof = presented_proof(&opened.meta, headers)?;
    check_proof(state, read, opened.meta.proof_standing(proof.as_ref())).await?;
    Ok(opened)
}

/// Where a file's bytes are in its paste's body.
#[derive(Clone, Copy)]
struct FileAt {
    /// The offset of its first byte.
    offset: u64,
    /// The size of the whole body.
    paste_size: u64,
}

/// A raw read of the file called `name` of a several-file paste (see
/// [`files::raw_file`]): refused as a raw read of the paste is, else its
/// bytes, with its own media type and an entity tag of its own
/// (`"{id}.{index}"`). `404` for a name the paste has not.
pub async fn readable_file(
    state: &SharedState,
    read: &PasteRead,
    name: &str,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let Opened { meta, body } = readable(state, read, headers).await?;
    let Some(span) = find_file(&meta.files, name) else {
        return Err(ApiError::not_found_because(if meta.files.is_empty() {
            "this paste holds one file: read it at /raw/ID".to_owned()
        } else {
            "this paste holds no file of that name".to_owned()
        }));
    };
    let file = &span.file;
    // The file as a paste of its own; its `id` names its entity tag.
    // Only what a raw answer's headers read is copied.
    let file_meta = PasteMeta {
        id: format!("{}.{}", meta.id, span.index),
        created_at: meta.created_at,
        expires_at: meta.expires_at,
        burn: meta.burn,
        encrypted: meta.encrypted,
        lang: None,
        name: Some(file.name.clone()),
        content_type: file.content_type.clone(),
        size: file.size,
        delete_token_hash: meta.delete_token_hash,
        owner: None,
        visibility: meta.visibility,
        redirect: None,
        key_check: None,
        files: Vec::new(),
        author: None,
    };
    match body {
        OpenedBody::Loaded { body, .. } => {
            let start = usize::try_from(span.offset).unwrap_or(usize::MAX);
            let end = start.saturating_add(usize::try_from(file.size).unwrap_or(usize::MAX));
            if end > body.len() {
                return Err(ApiError::internal("a file lies outside its paste's body"));
            }
            let body = body.slice(start..end);
            Ok(raw_response(
                &file_meta,
                body,
                None,
                headers,
                Disposition::Inline,
            ))
        }
        OpenedBody::Stored(stored) => {
            let at = FileAt {
                offset: span.offset,
                paste_size: meta.size,
            };
            let disposition = Disposition::Inline;
            streamed_response(
                state,
                read,
                &file_meta,
                stored,
                headers,
                disposition,
                Some(at),
            )
            .await
        }
        OpenedBody::Withheld => Err(ApiError::internal(
            "the store withheld the body of a paste that is read whole",
        )),
    }
}

/// `POST /{id}/reveal`: reads a burn paste and deletes it in the same atomic
/// step, checking its proof of key (if it has a key check) in that step
/// too. For other pastes it is a plain read.
///
/// A browser's form (no script) is answered a page only when the page shows
/// the whole paste; a larger paste, or one the page would only link to, is
/// answered as its raw bytes, so a burn paste revealed there is never lost.
/// An encrypted burn paste is not revealed to a form at all: only the script
/// (or `snip get`) can decrypt it, so it stays, and the answer says so.
pub async fn reveal(
    State(state): State<SharedState>,
    read: PasteRead,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, meta) = load_meta(&state, &read.caller, read.id.as_str()).await?;
    let proof = presented_proof(&meta, &headers)?;
    let wants = accepts(&headers);
    if meta.burn && meta.encrypted && wants == Accepts::Html {
        return Err(ApiError::reveal_needs_script());
    }
    let now = paste::now();
    let paste = if meta.burn {
        match state.store.take(&id, proof.as_ref(), now).await? {
            Taken::Paste(paste) => paste,
            Taken::Absent => return Err(ApiError::not_found()),
            Taken::Refused => return Err(refuse(&state, &read, proof.is_some()).await),
        }
    } else {
        let paste = state
            .store
            .get(&id, now)
            .await?
            .filter(|p| visible(&p.meta, &read.caller))
            .ok_or_else(ApiError::not_found)?;
        check_proof(&state, &read, paste.meta.proof_standing(proof.as_ref())).await?;
        paste
    };
    let on_page = wants == Accepts::Html
        && (!paste.meta.burn || pages::shows_whole(&paste.meta, &paste.body));
    let mut response = if !paste.meta.files.is_empty() && !on_page {
        // One reveal gives every file: they are gone after it.
        let source = ZipSource::Memory(paste.body);
        files::zip(&state, read.origin.client, &paste.meta, source).await?
    } else if on_page {
        let base_url = state.base_url(&read.origin);
        let instance = Instance {
            site: &state.site,
            base_url: &base_url,
        };
        page(pages::view(
            &paste.meta,
            &paste.body,
            Account::of(&read.caller),
            &instance,
            language::of_request(&headers),
        ))
    } else {
        // One answer, never stored, so one representation: the body itself.
        raw_response(
            &paste.meta,
            paste.body,
            None,
            &HeaderMap::new(),
            Disposition::Inline,
        )
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// A short link's answer: `302 Found`, what every link shortener sends (`303`
/// is for answers to a POST, and `307`/`308` are not what clients expect here).
fn redirect(target: &str) -> Response {
    match HeaderValue::from_str(target) {
        Ok(location) => (StatusCode::FOUND, [(header::LOCATION, location)]).into_response(),
        Err(e) => ApiError::internal_from("a short link's target is no Location header", e)
            .into_response(),
    }
}

/// `X-Robots-Tag`: a search engine that finds a paste link anyway (robots.txt
/// is only advice) must still not list it.
pub(super) const ROBOTS: HeaderName = HeaderName::from_static("x-robots-tag");

fn page(html: String) -> Response {
    let mut response = Html(html).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    headers.insert(ROBOTS, HeaderValue::from_static("noindex"));
    response
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Disposition {
    Inline,
    Attachment,
}

/// The raw answer of an opened paste (never a burn paste: those are refused
/// before), in memory or streamed.
async fn send(
    state: &SharedState,
    read: &PasteRead,
    opened: Opened,
    request: &HeaderMap,
    disposition: Disposition,
) -> Result<Response, ApiError> {
    let Opened { meta, body } = opened;
    if !meta.files.is_empty() {
        // A several-file paste's body is its files one after the other:
        // never sent as such.
        return match (disposition, body) {
            (Disposition::Inline, _) => Ok(files::listing(state, &read.origin, &meta)),
            (Disposition::Attachment, OpenedBody::Loaded { body, .. }) => {
                files::zip(state, read.origin.client, &meta, ZipSource::Memory(body)).await
            }
            (Disposition::Attachment, OpenedBody::Stored(stored)) => {
                files::zip(state, read.origin.client, &meta, ZipSource::Stored(stored)).await
            }
            (Disposition::Attachment, OpenedBody::Withheld) => Err(ApiError::internal(
                "the store withheld the body of a paste that is read whole",
            )),
        };
    }
    match body {
        OpenedBody::Loaded { body, compressed } => {
            Ok(raw_response(&meta, body, compressed, request, disposition))
        }
        OpenedBody::Stored(stored) => {
            streamed_response(state, read, &meta, stored, request, disposition, None).await
        }
        OpenedBody::Withheld => Err(ApiError::internal(
            "the store withheld the body of a paste that is read whole",
        )),
    }
}

/// What a raw answer sends, decided from the request before any byte of the
/// body is touched.
enum Selection {
    /// `304`: the client has this representation.
    NotModified,
    /// The stored zstd stream, whole.
    Stream,
    /// Bytes `start..=end` of the body itself, `206` if they are not all of it.
    Body { start: u64, end: u64, part: bool },
    /// `416`.
    Unsatisfiable,
}

/// The raw answer's representation, entity tag and what it selects of a
/// paste of `meta`, stored compressed if `has_stream`.
fn select(meta: &PasteMeta, has_stream: bool, request: &HeaderMap) -> (Coding, String, Selection) {
    let coding = match has_stream {
        true if sends_zstd(request) => Coding::Zstd,
        true => Coding::Identity { varies: true },
        false => Coding::Identity { varies: false },
    };
    // Paste bodies never change, so the ID (and the coding) is a strong validator.
    let etag = entity_tag(&meta.id, &coding);
    let size = meta.size;
    let whole = Selection::Body {
        start: 0,
        end: size.saturating_sub(1),
        part: false,
    };
    let selection = if if_none_match(request, &etag) {
        Selection::NotModified
    } else if coding == Coding::Zstd {
        Selection::Stream
    } else {
        match request.get(header::RANGE).and_then(|v| v.to_str().ok()) {
            None => whole,
            Some(range) => match single_range(range, size) {
                RangeOutcome::Whole => whole,
                RangeOutcome::Unsatisfiable => Selection::Unsatisfiable,
                RangeOutcome::Part(start, end) => Selection::Body {
                    start,
                    end,
                    part: true,
                },
            },
        }
    };
    (coding, etag, selection)
}

/// The raw bytes of a paste in memory with safe headers, honouring
/// `If-None-Match`, `Range` and, for a paste stored compressed,
/// `Accept-Encoding`.
fn raw_response(
    meta: &PasteMeta,
    body: Bytes,
    compressed: Option<Bytes>,
    request: &HeaderMap,
    disposition: Disposition,
) -> Response {
    let (coding, etag, selection) = select(meta, compressed.is_some(), request);
    let (body, range) = match selection {
        Selection::NotModified => return not_modified(meta, etag, disposition, coding),
        Selection::Unsatisfiable => return ApiError::range_not_satisfiable(meta.size),
        Selection::Stream => (compressed.unwrap_or_default(), None),
        Selection::Body { part: false, .. } => (body, None),
        Selection::Body { start, end, .. } => (
            body.slice(start as usize..=end as usize),
            Some((start, end)),
        ),
    };
    answer(
        meta,
        axum::body::Body::from(body),
        range,
        etag,
        disposition,
        coding,
    )
}

/// The raw bytes of a paste read as they are sent (see [`raw_response`]),
/// within the bytes responses may hold: a client over its share gets `429`,
/// a server over its bound `503`. A body in a database row is fetched only
/// once the reservation is made.
async fn streamed_response(
    state: &SharedState,
    read: &PasteRead,
    meta: &PasteMeta,
    stored: StoredBody,
    request: &HeaderMap,
    disposition: Disposition,
    file: Option<FileAt>,
) -> Result<Response, ApiError> {
    let compressed = stored.encoding() == Encoding::Zstd;
    // A file's bytes are part of the stream: it has no stream of its own.
    let has_stream = compressed && file.is_none();
    let (coding, etag, selection) = select(meta, has_stream, request);
    let (decodes, range) = match selection {
        Selection::NotModified => return Ok(not_modified(meta, etag, disposition, coding)),
        Selection::Unsatisfiable => return Ok(ApiError::range_not_satisfiable(meta.size)),
        Selection::Stream => (false, None),
        Selection::Body { start, end, part } => (compressed, Some((start, end, part))),
    };
    let bytes = reservation_bytes(&stored, decodes);
    let hold = match outbound::reserve(&state.outbound, read.origin.client, bytes) {
        Ok(hold) => hold,
        Err(refused) => return Ok(refused.into_response()),
    };
    let stored = stored.load().await?.ok_or_else(ApiError::not_found)?;
    let reader = match (range, file) {
        (None, _) => stored.stored_reader(),
        (Some((start, end, _)), None) => stored.body_reader(meta.size, start, end),
        (Some((start, end, _)), Some(at)) => {
            stored.body_reader(at.paste_size, at.offset + start, at.offset + end)
        }
    };
    let reader =
        reader.map_err(|e| ApiError::internal_from("cannot start reading a paste's body", e))?;
    let body = axum::body::Body::new(Streamed::new(reader, hold));
    let range = range
        .filter(|(.., part)| *part)
        .map(|(start, end, _)| (start, end));
    Ok(answer(meta, body, range, etag, disposition, coding))
}

/// `304 Not Modified` for a raw read.
fn not_modified(
    meta: &PasteMeta,
    etag: String,
    disposition: Disposition,
    coding: Coding,
) -> Response {
    let mut response = StatusCode::NOT_MODIFIED.into_response();
    *response.headers_mut() = raw_headers(meta, etag, disposition);
    coding.mark(response.headers_mut());
    response
}

/// A raw answer of `body`: `206` with its `Content-Range` for a `range`
/// (inclusive bounds), else `200`.
fn answer(
    meta: &PasteMeta,
    body: axum::body::Body,
    range: Option<(u64, u64)>,
    etag: String,
    disposition: Disposition,
    coding: Coding,
) -> Response {
    // Built directly: `(status, body).into_response()` would first set a
    // content type that is replaced at once.
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    *headers = raw_headers(meta, etag, disposition);
    if let Some((start, end)) = range {
        let value = format!("bytes {start}-{end}/{}", meta.size);
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::CONTENT_RANGE, value);
        }
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
    }
    coding.mark(response.headers_mut());
    response
}

/// The representation of a raw answer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Coding {
    /// The body itself; `varies` if the paste has a compressed one too.
    Identity { varies: bool },
    /// The stored zstd stream.
    Zstd,
}

impl Coding {
    /// Adds the headers that say which representation this is.
    fn mark(&self, headers: &mut HeaderMap) {
        match self {
            Self::Identity { varies: false } => return,
            Self::Identity { varies: true } => {}
            Self::Zstd => {
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("zstd"));
            }
        }
        headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    }
}

/// Whether a request gets a compressed paste's zstd stream: it takes zstd,
/// and asks for the whole body (a range is of the body itself).
fn sends_zstd(request: &HeaderMap) -> bool {
    !request.contains_key(header::RANGE) && accept_encoding(request).zstd > 0.0
}

/// The entity tag of a paste's representation: `"{id}"` for the body itself,
/// `"{id}-zstd"` for its stream (IDs never hold a `-`).
fn entity_tag(id: &str, coding: &Coding) -> String {
    let suffix = match coding {
        Coding::Identity { .. } => "",
        Coding::Zstd => "-zstd",
    };
    let mut etag = String::with_capacity(id.len() + suffix.len() + 2);
    etag.push('"');
    etag.push_str(id);
    etag.push_str(suffix);
    etag.push('"');
    etag
}

/// The headers every raw answer starts from: those of a plain-text,
/// unlisted, inline paste, and the security headers the response layer
/// would add (with the raw CSP). Cloning a finished map costs a fraction of
/// building one (each insert hashes and probes), and the layer then finds
/// every security header present.
static RAW_TEMPLATE: LazyLock<HeaderMap> = LazyLock::new(|| {
    // Room for what may be added: a content disposition or range.
    let mut headers = HeaderMap::with_capacity(16);
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, value);
    }
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(RAW_CSP),
    );
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(paste::TEXT_PLAIN),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    headers.insert(ROBOTS, HeaderValue::from_static("noindex"));
    // Replaced by every answer's own: present so that no insert grows the map.
    headers.insert(header::ETAG, HeaderValue::from_static("\"\""));
    headers
});

/// The headers of a raw answer about `meta` with entity tag `etag`.
fn raw_headers(meta: &PasteMeta, etag: String, disposition: Disposition) -> HeaderMap {
    let mut headers = RAW_TEMPLATE.clone();
    // From the owned string: no second copy.
    match HeaderValue::try_from(etag) {
        Ok(etag) => headers.insert(header::ETAG, etag),
        Err(_) => headers.remove(header::ETAG),
    };
    if meta.content_type != paste::TEXT_PLAIN {
        let content_type = HeaderValue::from_str(&meta.content_type)
            .unwrap_or(HeaderValue::from_static(paste::OCTET_STREAM));
        headers.insert(header::CONTENT_TYPE, content_type);
    }
    if meta.visibility != Visibility::Unlisted {
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-cache"),
        );
    }
    // Anything that is not text or inert media is only ever offered as a download.
    let attach = disposition == Disposition::Attachment || meta.content_type == paste::OCTET_STREAM;
    if attach {
        headers.insert(header::CONTENT_DISPOSITION, attachment(meta));
    }
    headers
}

/// `attachment; filename="…"` with an RFC 5987 `filename*` for non-ASCII names.
fn attachment(meta: &PasteMeta) -> HeaderValue {
    let name = meta.name.clone().unwrap_or_else(|| {
        let ext = if meta.content_type == paste::TEXT_PLAIN {
            "txt"
        } else {
            "bin"
        };
        format!("{}.{ext}", meta.id)
    });
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    HeaderValue::from_str(&format!(
        "attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}"
    ))
    .unwrap_or(HeaderValue::from_static("attachment"))
}

fn if_none_match(request: &HeaderMap, etag: &str) -> bool {
    request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',').any(|t| {
                let t = t.trim();
                t == "*" || t.trim_start_matches("W/") == etag
            })
        })
}
