//! The admin API under `/api/admin`, protected by the admin token
//! (`--admin-token`); `snip admin …` drives it. Every handler takes an
//! `AdminCaller` first, so the token is checked before anything else;
//! then path parameters are checked (`TenantName`, `TokenId`) before any
//! store call, and a body is read last (`AdminBody`), bounded in size and
//! by its pace, its bytes held against the in-flight bounds.
//! Changes apply to the next request: tenants and tokens are read from the
//! store on every request.
//!
//! | route | does |
//! |---|---|
//! | `POST /api/admin/tenants` | create a tenant and its first token |
//! | `GET /api/admin/tenants` | list tenants with usage |
//! | `PATCH /api/admin/tenants/{name}` | change limits (`null` removes one) |
//! | `DELETE /api/admin/tenants/{name}` | delete (refused while it owns pastes) |
//! | `POST /api/admin/tenants/{name}/tokens` | create a token |
//! | `GET /api/admin/tenants/{name}/tokens` | list its tokens |
//! | `DELETE /api/admin/tokens/{id}` | revoke a token |
//! | `PUT`, `GET`, `DELETE /api/admin/tenants/{name}/program` | its program (see [`super::program`]) |
//! | `GET /api/admin/backup` | stream a dump of the whole store (see [`super::backup`]) |
//!
//! The route table (`src/http/routes.rs`) routes them.

use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::core::Ttl;
use crate::core::api::{
    NewTenant, NewToken, TenantChange, TenantCreated, TenantView, TokenView, Usage,
};
use crate::core::paste;
use crate::core::tenant::{self, Rate, Tenant, TokenRecord};
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::body;
use crate::http::context::Origin;
use crate::http::credentials::AdminCaller;
use crate::http::state::SharedState;
use crate::programs::{MAX_FUEL, MAX_MEMORY_BYTES};

/// The largest admin request body. Admin bodies are a few fields of JSON;
/// anything larger is a mistake or an attack, and is not held in memory.
const ADMIN_BODY_MAX: u64 = 64 << 10;

/// A tenant name from the path, checked before it reaches the store (a name
/// the rules refuse cannot exist, and some bytes, such as NUL, are refused by
/// PostgreSQL itself).
pub(crate) struct TenantName(pub(super) String);

impl FromRequestParts<SharedState> for TenantName {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &SharedState) -> Result<Self, ApiError> {
        let name = path_param(parts, state).await?;
        tenant::validate_name(&name).map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(Self(name))
    }
}

/// A token ID from the path, checked like [`TenantName`].
pub(crate) struct TokenId(String);

impl FromRequestParts<SharedState> for TokenId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &SharedState) -> Result<Self, ApiError> {
        let id = path_param(parts, state).await?;
        tenant::validate_token_id(&id).map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(Self(id))
    }
}

async fn path_param(parts: &mut Parts, state: &SharedState) -> Result<String, ApiError> {
    Path::<String>::from_request_parts(parts, state)
        .await
        .map(|Path(value)| value)
        .map_err(|e| ApiError::bad_request(e.body_text()))
}

/// An admin request body, read whole within [`ADMIN_BODY_MAX`] bytes and
/// the body's pace ([`crate::http::body`]), so a slow or endless body holds
/// neither memory nor a connection for long. Its bytes count against the
/// in-flight bounds (`--max-inflight-bytes` and the client's share) as
/// they arrive, like an upload's: many slow admin requests could otherwise
/// hold memory past them.
pub(crate) struct AdminBody(Bytes);

impl FromRequest<SharedState> for AdminBody {
    type Rejection = Response;

    async fn from_request(request: Request, state: &SharedState) -> Result<Self, Response> {
        let client = client_of(&request).map_err(IntoResponse::into_response)?;
        let mut reservation = state.inflight.reservation(client);
        let pace = state.limits.body_pace;
        body::read_whole(request.into_body(), ADMIN_BODY_MAX, pace, &mut reservation)
            .await
            .map(Self)
            .map_err(|e| e.into_answer(|_| body_too_large()))
    }
}

fn body_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        format!(
            "an admin request body is at most {}",
            crate::core::units::format_size(ADMIN_BODY_MAX)
        ),
    )
}

/// The client of `request`, as the response layer decided it.
pub(super) fn client_of(request: &Request) -> Result<std::net::IpAddr, ApiError> {
    request
        .extensions()
        .get::<Origin>()
        .map(|origin| origin.client)
        .ok_or_else(|| ApiError::internal("the response layer left no origin"))
}

fn no_such_tenant() -> ApiError {
    ApiError::from(crate::store::StoreError::NoSuchTenant)
}

pub(super) fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    (status, axum::Json(value)).into_response()
}

fn parse_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))
}

/// A burst within what every backend stores ([`tenant::MAX_COUNT`]).
fn check_paste_limit(limit: Option<u64>) -> Result<Option<u64>, ApiError> {
    match limit {
        Some(bytes) if bytes > paste::MAX_PASTE_BYTES => Err(ApiError::bad_request(format!(
            "max_paste_bytes must be at most {} (1 GiB), the largest paste snip stores",
            paste::MAX_PASTE_BYTES
        ))),
        _ => Ok(limit),
    }
}

fn check_burst(burst: Option<u32>) -> Result<Option<u32>, ApiError> {
    match burst {
        Some(b) if b > tenant::MAX_COUNT => Err(ApiError::bad_request(format!(
            "burst must be at most {}",
            tenant::MAX_COUNT
        ))),
        _ => Ok(burst),
    }
}

/// A program limit within what the runtime allows.
fn check_program_limit(
    field: &str,
    value: Option<u64>,
    least: u64,
    most: u64,
) -> Result<Option<u64>, ApiError> {
    match value {
        Some(v) if !(least..=most).contains(&v) => Err(ApiError::bad_request(format!(
            "{field} must be {least} to {most}"
        ))),
        _ => Ok(value),
    }
}

fn parse_rate(rate: Option<String>) -> Result<Option<Rate>, ApiError> {
    rate.map(|r| Rate::parse(&r).map_err(|e| ApiError::bad_request(e.to_string())))
        .transpose()
}

async fn view(state: &SharedState, tenant: Tenant) -> Result<TenantView, ApiError> {
    let usage = state.store.owner_usage(&tenant.name).await?;
    let usage = Usage {
        bytes: usage.bytes,
        pastes: usage.pastes,
    };
    Ok(TenantView::new(tenant, usage))
}

async fn issue_token(
    state: &SharedState,
    tenant: &str,
    request: NewToken,
) -> Result<TokenView, ApiError> {
    let now = paste::now();
    let expires_at = match request.expires.as_deref().map(Ttl::parse) {
        None => None,
        Some(Ok(ttl)) => ttl.expires_at(now),
        Some(Err(e)) => {
            return Err(ApiError::bad_request(format!(
                "expires must be a lifetime like 30d, or never: {e}"
            )));
        }
    };
    let (secret, record) = TokenRecord::generate(tenant, request.read_only, now, expires_at)
        .map_err(|e| ApiError::internal_from("no randomness for a token", e))?;
    state.store.create_token(record.clone()).await?;
    tracing::info!(tenant, token_id = %record.id, read_only = record.read_only, "token created");
    Ok(TokenView::new(record, Some(secret)))
}

pub(crate) async fn create_tenant(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    AdminBody(body): AdminBody,
) -> Result<Response, ApiError> {
    let request: NewTenant = parse_body(&body)?;
    tenant::validate_name(&request.name).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let tenant = Tenant {
        name: request.name,
        created_at: paste::now(),
        max_bytes: request.max_bytes,
        max_paste_bytes: check_paste_limit(request.max_paste_bytes)?,
        rate: parse_rate(request.rate)?,
        burst: check_burst(request.burst)?,
        program: None,
        program_fuel: None,
        program_memory: None,
        group: check_group(request.group)?,
    };
    state.store.create_tenant(tenant.clone()).await?;
    tracing::info!(tenant = %tenant.name, "tenant created");
    let token = issue_token(&state, &tenant.name, NewToken::default()).await?;
    let answer = TenantCreated {
        tenant: view(&state, tenant).await?,
        token,
    };
    Ok(json(StatusCode::CREATED, &answer))
}

pub(crate) async fn list_tenants(
    _admin: AdminCaller,
    State(state): State<SharedState>,
) -> Result<Response, ApiError> {
    let mut views = Vec::new();
    for tenant in state.store.tenants().await? {
        views.push(view(&state, tenant).await?);
    }
    Ok(json(StatusCode::OK, &views))
}

pub(super) async fn existing(state: &SharedState, name: &str) -> Result<Tenant, ApiError> {
    state.store.tenant(name).await?.ok_or_else(no_such_tenant)
}

pub(crate) async fn update_tenant(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
    AdminBody(body): AdminBody,
) -> Result<Response, ApiError> {
    let change: TenantChange = parse_body(&body)?;
    let mut tenant = existing(&state, &name).await?;
    if let Some(v) = change.max_bytes {
        tenant.max_bytes = v;
    }
    if let Some(v) = change.max_paste_bytes {
        tenant.max_paste_bytes = check_paste_limit(v)?;
    }
    if let Some(v) = change.rate {
        tenant.rate = parse_rate(v)?;
    }
    if let Some(v) = change.burst {
        tenant.burst = check_burst(v)?;
    }
    if let Some(v) = change.program_fuel {
        tenant.program_fuel = check_program_limit("program_fuel", v, 1, MAX_FUEL)?;
    }
    if let Some(v) = change.program_memory {
        tenant.program_memory =
            check_program_limit("program_memory", v, 64 << 10, MAX_MEMORY_BYTES)?;
    }
    if let Some(v) = change.group {
        tenant.group = check_group(v)?;
    }
    state.store.update_tenant(tenant.clone()).await?;
    tracing::info!(tenant = %name, "tenant limits changed");
    Ok(json(StatusCode::OK, &view(&state, tenant).await?))
}

/// A tenant's accepted group: 1 to [`tenant::MAX_GROUP_BYTES`] bytes
/// without control characters.
fn check_group(group: Option<String>) -> Result<Option<String>, ApiError> {
    match group {
        Some(g)
            if g.is_empty()
                || g.len() > tenant::MAX_GROUP_BYTES
                || g.chars().any(char::is_control) =>
        {
            Err(ApiError::bad_request(format!(
                "group must be 1 to {} bytes without control characters",
                tenant::MAX_GROUP_BYTES
            )))
        }
        other => Ok(other),
    }
}

pub(crate) async fn delete_tenant(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
) -> Result<StatusCode, ApiError> {
    if state.store.delete_tenant(&name).await? {
        state.rate_limits.forget_tenant(&name);
        tracing::info!(tenant = %name, "tenant deleted");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(no_such_tenant())
    }
}

pub(crate) async fn create_token(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
    AdminBody(body): AdminBody,
) -> Result<Response, ApiError> {
    let request: NewToken = if body.is_empty() {
        NewToken::default()
    } else {
        parse_body(&body)?
    };
    existing(&state, &name).await?;
    Ok(json(
        StatusCode::CREATED,
        &issue_token(&state, &name, request).await?,
    ))
}

pub(crate) async fn list_tokens(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TenantName(name): TenantName,
) -> Result<Response, ApiError> {
    existing(&state, &name).await?;
    let tokens: Vec<TokenView> = state
        .store
        .tokens(&name)
        .await?
        .into_iter()
        .map(|t| TokenView::new(t, None))
        .collect();
    Ok(json(StatusCode::OK, &tokens))
}

pub(crate) async fn revoke_token(
    _admin: AdminCaller,
    State(state): State<SharedState>,
    TokenId(id): TokenId,
) -> Result<StatusCode, ApiError> {
    if state.store.revoke_token(&id).await? {
        tracing::info!(token_id = %id, "token revoked");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NoSuchToken,
            "no such token",
        ))
    }
}
