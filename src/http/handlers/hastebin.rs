//! The hastebin API, spoken by haste-client, editor plugins and chat bots:
//! `POST /documents` stores the raw body as a paste and answers
//! `{"key": ID}`, `GET /documents/{id}` answers a text paste as
//! `{"key": ID, "data": TEXT}`. (Its third route, `GET /raw/{id}`, is
//! snip's own.) They are the create and the raw read under other names:
//! the same caller, limits, options and refusals, a burn paste included
//! (refused here, revealed only by `POST /{id}/reveal`).

use axum::Extension;
use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::create::{create_paste, created_headers};
use super::read::{PasteRead, readable};
use crate::core::paste;
use crate::http::api_error::ApiError;
use crate::http::context::{Caller, Origin};
use crate::http::state::SharedState;

/// The answer to `POST /documents`.
#[derive(Serialize)]
struct Key<'a> {
    key: &'a str,
}

/// The answer to `GET /documents/{id}`.
#[derive(Serialize)]
struct Document<'a> {
    key: &'a str,
    data: &'a str,
}

/// `POST /documents`: creates a paste as `POST /` does, answering
/// `200 {"key": ID}` (with the delete token in `X-Delete-Token`).
pub async fn create(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let query = parts.uri.query();
    match create_paste(&state, &caller, &origin, query, &parts.headers, body).await {
        Ok(created) => {
            let mut response = Json(Key {
                key: &created.meta.id,
            })
            .into_response();
            created_headers(&mut response, &created.token);
            response
        }
        Err(answer) => answer,
    }
}

/// `GET /documents/{id}`: a text paste as `{"key", "data"}`; a paste that
/// is not UTF-8 text is `406` (its bytes are at `/raw/{id}`), and whatever
/// `GET /raw/{id}` refuses (a burn paste, an encrypted one without its
/// proof) is refused alike.
pub async fn read(
    State(state): State<SharedState>,
    read: PasteRead,
    request: Request,
) -> Result<Response, ApiError> {
    readable(&state, &read, request.headers()).await?;
    let paste = state
        .store
        .get(&read.id, paste::now())
        .await?
        .ok_or_else(ApiError::not_found)?;
    let data = std::str::from_utf8(&paste.body).map_err(|_| ApiError::not_text(&paste.meta.id))?;
    let mut response = Json(Document {
        key: &paste.meta.id,
        data,
    })
    .into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    Ok(response)
}
