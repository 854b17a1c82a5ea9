//! `POST /`: create a paste from a raw body or a multipart form. Its options
//! are parsed in `options`, its body read in `upload`; `GET /`, the form
//! that posts here, is in [`form`].

mod form;
mod options;
mod policy;
mod upload;

use std::borrow::Cow;

use axum::Extension;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use self::options::{CreateOptions, resolve_ttl};
use self::upload::{Upload, UploadError};
use crate::core::api::{Created, DELETE_TOKEN_HEADER};
use crate::core::envelope;
use crate::core::paste::{self, KeyCheck, PasteMeta, Visibility};
use crate::core::random::OsRandom;
use crate::http::api_error::ApiError;
use crate::http::body;
use crate::http::context::Caller;
use crate::http::context::Origin;
use crate::http::inflight::Reservation;
use crate::http::render::negotiate::{Accepts, accepts};
use crate::http::state::SharedState;
use crate::store::{NewBody, PutLimits};

pub use self::form::form;

/// The header that carries the new paste's delete token.
const X_DELETE_TOKEN: HeaderName = HeaderName::from_static(DELETE_TOKEN_HEADER);

/// `POST /`: store the body (or the form's `file`/`content` part) as a new paste.
pub async fn create(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Response {
    // The parts are borrowed, not extracted: axum's `HeaderMap` extractor
    // would clone every header.
    let (parts, body) = request.into_parts();
    answer_create(
        &state,
        &caller,
        &origin,
        parts.uri.query(),
        &parts.headers,
        body,
    )
    .await
}

/// [`create`] for a caller already established (also the hot route's).
pub async fn answer_create(
    state: &SharedState,
    caller: &Caller,
    origin: &Origin,
    query: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Response {
    match create_paste(state, caller, origin, query, headers, body).await {
        Ok(created) => {
            let base = state.base_url(origin);
            created_response(&base, &created, accepts(headers))
        }
        Err(answer) => answer,
    }
}

/// A paste just stored.
pub struct NewPaste {
    /// Its metadata (with its ID).
    pub meta: PasteMeta,
    /// Its delete token.
    pub token: String,
    /// Whether it came as a `multipart/form-data` form.
    pub form: bool,
}

/// Checks that `caller` may create, reads the paste from `body` (with the
/// options of `query` and `headers`) and stores it; a refusal is the answer.
pub async fn create_paste(
    state: &SharedState,
    caller: &Caller,
    origin: &Origin,
    query: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Result<NewPaste, Response> {
    if let Err(error) = super::check_can_write(caller, state.auth.anonymous) {
        return Err(body::closing(error));
    }
    let limit = paste_limit(state, caller);
    // Holds the body's bytes as they arrive, until the paste is stored.
    let mut reservation = state.inflight.reservation(origin.client);
    let upload = read_upload(state, query, headers, body, limit, &mut reservation)
        .await
        .map_err(UploadError::into_answer)?;
    let form = upload.form;
    let (meta, token) = store_paste(state, caller, upload)
        .await
        .map_err(IntoResponse::into_response)?;
    Ok(NewPaste { meta, token, form })
}

/// Sets the headers every answer to a create carries: the paste's delete
/// token, and `no-store` (the answer holds that token).
pub fn created_headers(response: &mut Response, token: &str) {
    let headers = response.headers_mut();
    if let Ok(token) = HeaderValue::from_str(token) {
        headers.insert(X_DELETE_TOKEN, token);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// The largest paste `caller` may create.
fn paste_limit(state: &SharedState, caller: &Caller) -> u64 {
    match caller {
        Caller::Tenant { tenant, .. } => tenant
            .max_paste_bytes
            .unwrap_or(state.limits.max_paste_bytes),
        Caller::Anonymous | Caller::Teamless { .. } => state.limits.max_paste_bytes,
    }
}

/// Checks the options, then reads the paste from the body.
async fn read_upload(
    state: &SharedState,
    query: Option<&str>,
    headers: &HeaderMap,
    body: Body,
    limit: u64,
    reservation: &mut Reservation,
) -> Result<Upload, UploadError> {
    let options = CreateOptions::from_request(query, headers)?;
    let pace = state.limits.body_pace;
    let max_files = state.limits.max_files;
    upload::read(options, headers, body, limit, max_files, pace, reservation).await
}

async fn store_paste(
    state: &SharedState,
    caller: &Caller,
    upload: Upload,
) -> Result<(PasteMeta, String), ApiError> {
    let Upload {
        options,
        body,
        declared_type,
        form: _,
        files,
    } = upload;
    let ttl = resolve_ttl(options.ttl, &state.limits)?;
    let owner = caller.tenant_name().map(str::to_owned);
    if options.visibility == Visibility::Team && owner.is_none() {
        return Err(ApiError::bad_request(
            "team pastes need a tenant: sign in or send a tenant token",
        ));
    }
    // Only a person signed in to the tenant authors a paste: a token alone
    // names no one.
    let author = owner.as_ref().and(caller.person()).cloned();
    if options.visibility == Visibility::Me && author.is_none() {
        return Err(ApiError::bad_request(
            "visibility=me needs a person signed in through the identity provider: a token alone names no author",
        ));
    }
    let (body, files) = match caller {
        Caller::Tenant { tenant, .. } => {
            let max_body = paste_limit(state, caller);
            policy::apply(state, tenant, &options, ttl, (body, files), max_body).await?
        }
        Caller::Anonymous | Caller::Teamless { .. } => (body, files),
    };
    let limits = PutLimits {
        owner_max_bytes: match caller {
            Caller::Tenant { tenant, .. } => tenant.max_bytes,
            Caller::Anonymous | Caller::Teamless { .. } => None,
        },
        authority: caller.authority().copied(),
    };
    let no_randomness = |e| ApiError::internal_from("no randomness for a delete token", e);
    let mut random = OsRandom::new().map_err(no_randomness)?;
    let token = paste::generate_token(&mut random).map_err(no_randomness)?;
    let now = paste::now();
    let key_check = options
        .verifier
        .map(|verifier| key_check(verifier, &options, &body))
        .transpose()?;
    let content_type = if options.encrypted {
        paste::OCTET_STREAM.to_owned()
    } else if !files.is_empty() {
        // Never served as such: each file is, with its own type.
        paste::content_type_for(None, None, &body)
    } else {
        paste::content_type_for(options.name.as_deref(), declared_type.as_deref(), &body)
    };
    let mut meta = PasteMeta {
        id: String::new(),
        created_at: now,
        expires_at: ttl.expires_at(now),
        burn: options.burn,
        encrypted: options.encrypted,
        lang: options.lang,
        name: options.name,
        content_type,
        size: body.len() as u64,
        delete_token_hash: paste::hash_token(&token),
        owner,
        visibility: options.visibility,
        redirect: options.url,
        key_check,
        files,
        author,
    };
    meta.id = state
        .store
        .create(
            meta.clone(),
            NewBody::new(body),
            limits,
            state.limits.id_length,
        )
        .await?;
    Ok((meta, token))
}

/// The key check of an encrypted paste created with `verifier`: the
/// verifier and the envelope's public key-derivation parameters, which a
/// reader needs to compute its proof before it has the ciphertext.
fn key_check(
    verifier: [u8; 32],
    options: &CreateOptions,
    body: &[u8],
) -> Result<KeyCheck, ApiError> {
    if !options.encrypted || options.url.is_some() {
        return Err(ApiError::bad_request(
            "a verifier is only for encrypted pastes (encrypted=true)",
        ));
    }
    let header = envelope::Header::parse(body).map_err(|e| {
        ApiError::bad_request(format!(
            "a paste with a verifier must be an encryption envelope: {e}"
        ))
    })?;
    Ok(KeyCheck {
        verifier,
        iterations: header.iterations,
        salt: header.salt,
    })
}

/// The answer to a create: `303` to the paste for a browser's form, the
/// JSON [`Created`] with `201`, or the URL as text: with `201` to a raw
/// body, with `200` to a form, as rustypaste, 0x0.st and their clients
/// (`rpaste` accepts nothing else) answer a form upload.
fn created_response(base: &str, created: &NewPaste, wants: Accepts) -> Response {
    let NewPaste { meta, token, form } = created;
    // `concat`, not `format!`: every create builds these, and a plain copy
    // skips the formatting machinery.
    let url = [base, "/", &meta.id].concat();
    let mut response = match wants {
        // A browser's plain form post: go and look at the new paste.
        Accepts::Html => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, format!("/{}", meta.id))],
        )
            .into_response(),
        Accepts::Json => {
            let created = Created {
                id: Cow::Borrowed(&meta.id),
                url: Cow::Borrowed(&url),
                raw_url: Cow::Owned(format!("{base}/raw/{}", meta.id)),
                delete_token: Cow::Borrowed(token),
                expires_at: meta.expires_at.map(paste::rfc3339),
                burn: meta.burn,
                size: meta.size,
                files: Cow::Borrowed(&meta.files),
            };
            (StatusCode::CREATED, axum::Json(created)).into_response()
        }
        Accepts::Other => {
            let status = if *form {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            };
            (status, [&url, "\n"].concat()).into_response()
        }
    };
    if let Some(location) = HeaderValue::from_str(&url)
        .ok()
        .filter(|_| wants != Accepts::Html)
    {
        response.headers_mut().insert(header::LOCATION, location);
    }
    created_headers(&mut response, token);
    response
}
