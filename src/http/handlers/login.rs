//! Signing the command line in as a person (`snip login`): the server runs
//! the provider's device authorization grant (RFC 8628) with its own client
//! secret, and answers the CLI a **login credential**, which stands for the
//! person in their tenant exactly as a browser session does.
//!
//! - `POST /api/login/device` starts a device sign-in at the provider and
//!   answers the verification URL, the user code and the device code.
//! - `POST /api/login/device/token` (`{"device_code"}`) asks the provider
//!   whether the person finished: `202` while not, else the ID token is
//!   verified with the browser callback's checks and the answer is the
//!   credential, for the first tenant by name the person's groups name (a
//!   person in no tenant is told so, and gets none).
//! - `GET /api/login` says who the credential is; `POST /api/login/refresh`
//!   swaps it for a fresh one; `DELETE /api/login` revokes it.
//!
//! A credential is `snipl_` and the secret of a session opened on a token
//! of the tenant, the person stored beside it, as the browser callback opens
//! one: deleting the tenant or revoking the token ends it, and the request
//! resolves to the same caller with a person a browser session does. It
//! lasts [`LOGIN_SECS`]; a refresh opens a new one (and ends the old) no
//! later than [`SESSION_SECS`] after the person signed in at the provider.

use axum::Extension;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::admin::json;
use super::oidc::not_configured;
use super::session::count_attempt;
use super::teams;
use crate::core::UnixTime;
use crate::core::paste;
use crate::core::tenant::{LOGIN_PREFIX, Person, ProviderGrant, SESSION_SECS, SessionRecord};
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::body;
use crate::http::context::{Caller, Origin};
use crate::http::oidc::OidcError;
use crate::http::oidc::device::DevicePoll;
use crate::http::state::SharedState;

/// How long a login credential lasts before it must be refreshed.
pub const LOGIN_SECS: u64 = 12 * 3600;

/// The largest body `POST /api/login/device/token` takes.
const MAX_POLL_BYTES: u64 = 4096;

/// The answer of `POST /api/login/device`.
#[derive(Serialize)]
struct DeviceStarted {
    device_code: String,
    user_code: String,
    verification_uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    verification_uri_complete: Option<String>,
    expires_in: u64,
    interval: u64,
}

/// The body of `POST /api/login/device/token`.
#[derive(Deserialize)]
struct DevicePollBody {
    device_code: String,
}

/// A login credential, as answered once.
#[derive(Serialize)]
struct LoginAnswer {
    credential: String,
    tenant: String,
    person: Person,
    expires_at: UnixTime,
}

/// `GET /api/login`'s answer.
#[derive(Serialize)]
struct Whoami {
    tenant: String,
    person: Option<Person>,
    expires_at: Option<UnixTime>,
}

/// `POST /api/login/device`: starts a device sign-in at the provider.
pub async fn device_start(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
) -> Result<Response, ApiError> {
    let Some(oidc) = state.oidc.as_ref() else {
        return Ok(not_configured());
    };
    if let Some(refusal) = count_attempt(&state, origin.client).await {
        return Ok(refusal);
    }
    let Some(started) = oidc.device_start().await.map_err(provider_failed)? else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::ProviderDisabled,
            "the identity provider offers no device sign-in (no device_authorization_endpoint); \
             sign in in a browser instead",
        ));
    };
    Ok(json(
        StatusCode::OK,
        &DeviceStarted {
            device_code: started.device_code,
            user_code: started.user_code,
            verification_uri: started.verification_uri,
            verification_uri_complete: started.verification_uri_complete,
            expires_in: started.expires_in,
            interval: started.interval,
        },
    ))
}

/// `POST /api/login/device/token`: `202 {"pending":true,"interval"}` until
/// the person finished at the provider, then `200` and the credential.
pub async fn device_token(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Result<Response, ApiError> {
    let shape = "{\"device_code\": \"…\"}";
    let (oidc, asked) = match cli_request::<DevicePollBody>(&state, &origin, request, shape).await {
        Ok(asked) => asked,
        Err(answer) => return Ok(answer),
    };
    if asked.device_code.is_empty() {
        return Err(ApiError::bad_request(
            "the body must be {\"device_code\": \"…\"}, at most 4 KiB",
        ));
    }
    let identity = match oidc.device_poll(&asked.device_code).await {
        Ok(DevicePoll::Done(identity)) => identity,
        Ok(poll) => {
            let interval = if matches!(poll, DevicePoll::SlowDown) {
                10
            } else {
                5
            };
            return Ok(json(
                StatusCode::ACCEPTED,
                &serde_json::json!({ "pending": true, "interval": interval }),
            ));
        }
        Err(e) => return Err(provider_failed(e)),
    };
    credential_for(&state, identity).await
}

/// The provider and the JSON body of a sign-in request of the CLI, after the
/// checks each makes first: a provider configured (else `404`), the
/// client's IP bucket (else `429`), the body read within its bounds (else
/// `400`). `Err` is the answer.
pub(super) async fn cli_request<'s, T: serde::de::DeserializeOwned>(
    state: &'s SharedState,
    origin: &Origin,
    request: Request,
    shape: &str,
) -> Result<(&'s crate::http::oidc::Oidc, T), Response> {
    let Some(oidc) = state.oidc.as_ref() else {
        return Err(not_configured());
    };
    if let Some(refusal) = count_attempt(state, origin.client).await {
        return Err(refusal);
    }
    read_json(state, origin, request, shape)
        .await
        .map(|asked| (oidc, asked))
        .map_err(IntoResponse::into_response)
}

/// The body of `request` as JSON of `T` (at most 4 KiB), read within the
/// body bounds; `400` naming `shape` otherwise.
async fn read_json<T: serde::de::DeserializeOwned>(
    state: &SharedState,
    origin: &Origin,
    request: Request,
    shape: &str,
) -> Result<T, ApiError> {
    let refused = || ApiError::bad_request(format!("the body must be {shape}, at most 4 KiB"));
    let mut reservation = state.inflight.reservation(origin.client);
    let bytes = body::read_whole(
        request.into_body(),
        MAX_POLL_BYTES,
        state.limits.body_pace,
        &mut reservation,
    )
    .await
    .map_err(|_| refused())?;
    drop(reservation);
    serde_json::from_slice(&bytes).map_err(|_| refused())
}

/// `200` and a login credential for the person `identity` in the first
/// tenant by name their groups allow; `403` saying so if none does.
pub(super) async fn credential_for(
    state: &SharedState,
    identity: crate::http::oidc::Identity,
) -> Result<Response, ApiError> {
    let now = paste::now();
    let (person, grant) = teams::grant_of(state, identity, now).await?;
    let Some(tenant) = grant.tenants.first().cloned() else {
        return Err(ApiError::forbidden(format!(
            "you signed in as {}, but you belong to no team on this server, so there is \
             nothing to log in to: snip works for you as for anyone without an account",
            person.name
        )));
    };
    let answer = open(state, &tenant, person, grant, now, now).await?;
    tracing::info!(tenant = %tenant, "a person signed in from the command line");
    Ok(json(StatusCode::OK, &answer))
}

/// Opens a login credential of `person` in `tenant`, who signed in at the
/// provider at `signed_in` and was granted `grant`.
async fn open(
    state: &SharedState,
    tenant: &str,
    person: Person,
    grant: ProviderGrant,
    signed_in: UnixTime,
    now: UnixTime,
) -> Result<LoginAnswer, ApiError> {
    let expires = (now + LOGIN_SECS).min(signed_in + SESSION_SECS);
    let secret = teams::open(
        state,
        person.clone(),
        grant,
        Some(tenant),
        signed_in,
        expires,
    )
    .await?;
    Ok(LoginAnswer {
        credential: format!("{LOGIN_PREFIX}{secret}"),
        tenant: tenant.to_owned(),
        person,
        expires_at: expires,
    })
}

/// The session behind a caller's login credential; `400` for any other
/// credential.
async fn login_session(
    state: &SharedState,
    caller: &Caller,
) -> Result<(String, String, SessionRecord), ApiError> {
    let Caller::Tenant {
        tenant,
        token_id,
        authority,
        person: Some(_),
        ..
    } = caller
    else {
        return Err(ApiError::unauthorized(
            "this needs a login credential (snip login): Authorization: Bearer snipl_…",
        ));
    };
    let session = match authority.session_hash {
        Some(hash) => state.store.session(&hash).await?,
        None => None,
    };
    let session = session.ok_or_else(|| ApiError::unauthorized("this login has ended"))?;
    Ok((tenant.name.clone(), token_id.clone(), session))
}

/// `GET /api/login`: the tenant, the person (for a login credential or a
/// browser session) and when the credential expires.
pub async fn whoami(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
) -> Result<Response, ApiError> {
    let Caller::Tenant {
        tenant,
        person,
        authority,
        ..
    } = &caller
    else {
        return Err(ApiError::unauthorized(
            "not signed in: run snip login, or send a token",
        ));
    };
    let expires_at = match authority.session_hash {
        Some(hash) => state.store.session(&hash).await?.map(|s| s.expires_at),
        None => state
            .store
            .token(&authority.token_hash)
            .await?
            .and_then(|t| t.expires_at),
    };
    Ok(json(
        StatusCode::OK,
        &Whoami {
            tenant: tenant.name.clone(),
            person: person.as_deref().cloned(),
            expires_at,
        },
    ))
}

/// `POST /api/login/refresh`: a fresh credential for the same person and
/// tenant; the old one ends.
pub async fn refresh(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
) -> Result<Response, ApiError> {
    let (tenant, token_id, session) = login_session(&state, &caller).await?;
    let now = paste::now();
    if session.created_at + SESSION_SECS <= now {
        return Err(ApiError::unauthorized(
            "this login is 30 days old; run snip login again",
        ));
    }
    let person = session
        .person
        .clone()
        .ok_or_else(|| ApiError::unauthorized("this needs a login credential (snip login)"))?;
    let Some(grant) = session.provider.clone() else {
        return Err(ApiError::unauthorized(
            "this login was not opened through the identity provider; run snip login again",
        ));
    };
    let answer = open(&state, &tenant, person, grant, session.created_at, now).await?;
    end(&state, &session, &token_id).await?;
    Ok(json(StatusCode::OK, &answer))
}

/// `DELETE /api/login`: revokes the login credential.
pub async fn logout(
    State(state): State<SharedState>,
    Extension(caller): Extension<Caller>,
) -> Result<Response, ApiError> {
    let (_, token_id, session) = login_session(&state, &caller).await?;
    end(&state, &session, &token_id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Ends a login: its session and the token behind it.
async fn end(state: &SharedState, session: &SessionRecord, token_id: &str) -> Result<(), ApiError> {
    state.store.delete_session(&session.hash).await?;
    state.store.revoke_token(token_id).await?;
    Ok(())
}

/// The answer to a device sign-in the provider's side failed: `502` when it
/// cannot be reached, `400` when its answer is not acceptable; the reason
/// goes to the log.
pub(super) fn provider_failed(error: OidcError) -> ApiError {
    tracing::warn!(error = %error, "a device sign-in through the identity provider failed");
    match error {
        OidcError::Unreachable(_) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            ErrorCode::ProviderUnavailable,
            "the identity provider cannot be reached or did not answer in time; try again later",
        ),
        OidcError::Refused(why) => ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::SigninFailed,
            format!("the sign-in did not complete: {why}"),
        ),
    }
}
