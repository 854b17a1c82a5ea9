//! `DELETE /{id}`: remove a paste with the delete token its creator received.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};

use super::SharedState;
use super::errors::ApiError;
use super::read::load_meta;

/// Deletes the paste if `X-Delete-Token` matches (compared in constant time).
pub async fn delete(
    State(state): State<SharedState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let (id, meta) = load_meta(&state, &id).await?;
    let token = headers
        .get("x-delete-token")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            ApiError::forbidden(
                "deleting needs the paste's delete token in the X-Delete-Token header",
            )
        })?;
    if !meta.delete_token_matches(token.trim()) {
        return Err(ApiError::forbidden("wrong delete token for this paste"));
    }
    if state.store.delete(&id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        // Burned or swept between our check and the delete: it is gone either way.
        Err(ApiError::not_found())
    }
}
