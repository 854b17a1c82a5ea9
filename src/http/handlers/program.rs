//! A tenant's program through the admin API: `PUT` compiles the uploaded
//! module (`application/wasm`), checks it against the ABI and stores it,
//! `GET` describes it, `DELETE` removes it. The module is compiled before it
//! is stored, so one that does not compile or lacks an export is refused
//! with `400` and the reason, and the next create of the tenant, on any
//! instance, runs what was stored (`programs`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::admin::{TenantName, client_of, existing, json};
use crate::core::api::ProgramView;
use crate::core::paste;
use crate::core::tenant::{ProgramInfo, Tenant};
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::body;
use crate::http::credentials::AdminCaller;
use crate::http::state::SharedState;
use crate::programs::{MAX_MODULE_BYTES, sha256};

/// The media type of a WebAssembly module.
const WASM: &str = "application/wasm";

fn no_program() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NoProgram,
        "this tenant has no program",
    )
}

fn view(state: &SharedState, tenant: &Tenant) -> Result<ProgramView, ApiError> {
    let program = tenant.program.as_deref().copied().ok_or_else(no_program)?;
    let defaults = state.programs.defaults();
    Ok(ProgramView::new(
        &tenant.name,
        program,
        tenant.program_fuel.unwrap_or(defaults.fuel),
        tenant.program_memory.unwrap_or(defaults.memory),
    ))
}

/// `PUT /api/admin/tenants/{name}/program`: sets or replaces the program.
pub(crate) async fn set_program(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
    request: Request,
) -> Result<Response, ApiError> {
    let media_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim);
    if !media_type.is_some_and(|t| t.eq_ignore_ascii_case(WASM)) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "a program is a WebAssembly module sent as application/wasm",
        ));
    }
    existing(&state, &name).await?;
    let client = client_of(&request)?;
    let mut reservation = state.inflight.reservation(client);
    let pace = state.limits.body_pace;
    let module = match body::read_whole(
        request.into_body(),
        MAX_MODULE_BYTES,
        pace,
        &mut reservation,
    )
    .await
    {
        Ok(module) => module,
        Err(e) => return Ok(e.into_answer(|_| module_too_large())),
    };
    let bytes: Arc<[u8]> = module.as_ref().into();
    state
        .programs
        .compile(bytes)
        .await
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let info = ProgramInfo {
        sha256: sha256(&module),
        size: module.len() as u64,
        set_at: paste::now(),
    };
    state.store.set_program(&name, info, module).await?;
    tracing::info!(tenant = %name, size = info.size, "tenant program set");
    let tenant = existing(&state, &name).await?;
    Ok(json(StatusCode::OK, &view(&state, &tenant)?))
}

fn module_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        format!(
            "a program is at most {}",
            crate::core::units::format_size(MAX_MODULE_BYTES)
        ),
    )
}

/// `GET /api/admin/tenants/{name}/program`: its size, SHA-256, when it was
/// set and its limits.
pub(crate) async fn show_program(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
) -> Result<Response, ApiError> {
    let tenant = existing(&state, &name).await?;
    Ok(json(StatusCode::OK, &view(&state, &tenant)?))
}

/// `DELETE /api/admin/tenants/{name}/program`: removes it.
pub(crate) async fn clear_program(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
) -> Result<Response, ApiError> {
    existing(&state, &name).await?;
    if state.store.clear_program(&name).await? {
        tracing::info!(tenant = %name, "tenant program cleared");
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(no_program())
    }
}
