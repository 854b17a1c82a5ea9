//! `GET /api/pastes/{id}`: a paste's metadata as JSON, without reading (or burning) it.

use axum::extract::{Path, State};
use axum::{Extension, Json};

use super::read::load_meta;
use crate::core::api::PasteInfo;
use crate::http::api_error::ApiError;
use crate::http::context::Caller;
use crate::http::state::SharedState;

/// Answers the metadata of a live paste the caller may see.
pub async fn metadata(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<PasteInfo>, ApiError> {
    let (_, meta) = load_meta(&state, &caller, &id).await?;
    Ok(Json(meta.into()))
}
