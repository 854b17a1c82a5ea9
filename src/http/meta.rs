//! `GET /api/pastes/{id}`: a paste's metadata as JSON, without reading (or burning) it.

use axum::extract::{Path, State};
use axum::{Extension, Json};
use serde::Serialize;

use super::SharedState;
use super::auth::Caller;
use super::errors::ApiError;
use super::read::load_meta;
use crate::core::paste::{self, PasteMeta, Visibility};

/// The public view of a paste's metadata (no delete token hash, no owner).
#[derive(Serialize)]
pub struct MetaView {
    id: String,
    size: u64,
    lang: Option<String>,
    name: Option<String>,
    content_type: String,
    created_at: String,
    expires_at: Option<String>,
    burn: bool,
    encrypted: bool,
    visibility: Visibility,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl From<PasteMeta> for MetaView {
    fn from(meta: PasteMeta) -> Self {
        Self {
            id: meta.id,
            size: meta.size,
            lang: meta.lang,
            name: meta.name,
            content_type: meta.content_type,
            created_at: paste::rfc3339(meta.created_at),
            expires_at: meta.expires_at.map(paste::rfc3339),
            burn: meta.burn,
            encrypted: meta.encrypted,
            visibility: meta.visibility,
            url: meta.redirect,
        }
    }
}

/// Answers the metadata of a live paste the caller may see.
pub async fn metadata(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<MetaView>, ApiError> {
    let (_, meta) = load_meta(&state, &caller, &id).await?;
    Ok(Json(meta.into()))
}
