//! `DELETE /{id}`: remove a paste, with the delete token its creator received
//! or a writing token of the tenant that owns it.

use axum::Extension;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};

use super::read::load_meta;
use crate::core::api::DELETE_TOKEN_HEADER;
use crate::http::api_error::ApiError;
use crate::http::context::Caller;
use crate::http::state::SharedState;

/// Deletes the paste if the caller owns it or `X-Delete-Token` matches
/// (compared in constant time).
pub async fn delete(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let (id, meta) = load_meta(&state, &caller, &id).await?;
    let token = headers
        .get(DELETE_TOKEN_HEADER)
        .and_then(|v| v.to_str().ok());
    let owner = caller.owns(meta.owner.as_deref());
    // The delete token is authority enough; an owner's token (or session)
    // must still hold as the delete commits.
    let authority = match token {
        Some(token) if meta.delete_token_matches(token.trim()) => None,
        Some(_) => return Err(ApiError::forbidden("wrong delete token for this paste")),
        None if owner => {
            super::check_can_write(&caller, state.auth.anonymous)?;
            caller.authority()
        }
        None => {
            return Err(ApiError::forbidden(
                "deleting needs the paste's delete token in the X-Delete-Token header",
            ));
        }
    };
    if state.store.delete(&id, authority).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        // Burned or swept between our check and the delete: it is gone either way.
        Err(ApiError::not_found())
    }
}
