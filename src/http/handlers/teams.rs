//! The sessions of people the identity provider signed in, and the tenants
//! ("teams") their groups let them act for: which tenants those are
//! (`tenants_of`), opening such a session (`open`, for the browser
//! callback, `snip login` and its refresh alike), and `POST /session/tenant`,
//! the header's switcher, which moves a browser session to another of them.
//!
//! A session keeps what the provider said ([`ProviderGrant`]): the person's
//! groups and the tenants those allowed at sign-in. The switcher takes only
//! a tenant of that list that still accepts one of the groups, whatever the
//! form says; it opens a new session on a token of the chosen tenant (same
//! person, sign-in time and expiry) and ends the old one. A person whose
//! groups name no tenant gets a session without a token: their name and an
//! anonymous visitor's rights ([`Caller::Teamless`]).

use axum::Extension;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::session::{check_form_post, is_secure, query_field, see_other};
use crate::core::UnixTime;
use crate::core::paste::{self, hash_token};
use crate::core::tenant::{MAX_GROUPS, Person, ProviderGrant, SessionRecord, TokenRecord};
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::body;
use crate::http::context::{Caller, Origin, session_cookie};
use crate::http::state::SharedState;

/// The largest switcher form: a tenant's name.
const MAX_FORM_BYTES: u64 = 1024;

/// The tenants accepting one of `groups`, by name (a tenant accepts the
/// group it names, else the group named like it).
pub(super) async fn tenants_of(
    state: &SharedState,
    groups: &[String],
) -> Result<Vec<String>, ApiError> {
    let mut tenants: Vec<String> = state
        .store
        .tenants()
        .await?
        .into_iter()
        .filter(|t| groups.iter().any(|g| g == t.accepted_group()))
        .map(|t| t.name)
        .collect();
    tenants.sort();
    Ok(tenants)
}

/// What the provider said of a person at `now`, as a session keeps it.
pub(super) async fn grant_of(
    state: &SharedState,
    identity: crate::http::oidc::Identity,
    now: UnixTime,
) -> Result<(Person, ProviderGrant), ApiError> {
    let mut groups = identity.groups;
    groups.truncate(MAX_GROUPS);
    let tenants = tenants_of(state, &groups).await?;
    Ok((
        identity.person,
        ProviderGrant {
            groups,
            tenants,
            refresh_token: identity.refresh_token,
            checked_at: now,
        },
    ))
}

/// Opens a session of `person` acting for `tenant` (none: a person in no
/// tenant), who signed in at the provider at `signed_in`, until `expires`:
/// for a tenant, on a token of it made for this session that expires with
/// it. The session's secret (cookie value, or the credential's part after
/// `snipl_`).
pub(super) async fn open(
    state: &SharedState,
    person: Person,
    grant: ProviderGrant,
    tenant: Option<&str>,
    signed_in: UnixTime,
    expires: UnixTime,
) -> Result<String, ApiError> {
    let now = paste::now();
    let no_randomness = |e| ApiError::internal_from("no randomness for a session", e);
    let (secret, mut session) = match tenant {
        Some(tenant) => {
            let (_, token) = TokenRecord::generate(tenant, false, now, Some(expires))
                .map_err(|e| ApiError::internal_from("no randomness for a token", e))?;
            let opened = SessionRecord::generate(token.hash, signed_in).map_err(no_randomness)?;
            state.store.create_token(token).await?;
            opened
        }
        None => {
            let (secret, mut session) =
                SessionRecord::generate([0; 32], signed_in).map_err(no_randomness)?;
            session.token_hash = None;
            (secret, session)
        }
    };
    session.expires_at = expires;
    session.person = Some(person);
    session.provider = Some(grant);
    state.store.create_session(session).await?;
    Ok(secret)
}

/// `POST /session/tenant` (form `tenant=NAME`): moves the browser's session
/// to another tenant its person's groups allow, then `303` to `/my`. Who is
/// asking is checked before the form is read.
pub async fn switch(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    Extension(caller): Extension<Caller>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refusal) = check_form_post(&state, &origin, &parts.method, &parts.headers) {
        return refusal.into_response();
    }
    // The caller was resolved from the session cookie: a person in a tenant.
    if !matches!(
        &caller,
        Caller::Tenant {
            person: Some(_),
            ..
        }
    ) {
        return ApiError::forbidden(
            "only a person signed in through the identity provider with a team can switch teams",
        )
        .into_response();
    }
    let mut reservation = state.inflight.reservation(origin.client);
    let pace = state.limits.body_pace;
    let form = match body::read_whole(body, MAX_FORM_BYTES, pace, &mut reservation).await {
        Ok(form) => form,
        Err(e) => {
            return e.into_answer(|_| {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    ErrorCode::TooLarge,
                    "the form is too large: it names one team",
                )
            });
        }
    };
    drop(reservation);
    let secure = is_secure(&state, &origin);
    switch_to(&state, &parts.headers, &form, secure)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// Moves the session of the cookie in `headers` to the tenant `form` names.
async fn switch_to(
    state: &SharedState,
    headers: &axum::http::HeaderMap,
    form: &[u8],
    secure: bool,
) -> Result<Response, ApiError> {
    let chosen = query_field(&String::from_utf8_lossy(form), "tenant")
        .filter(|name| !name.is_empty())
        .ok_or_else(|| ApiError::bad_request("the form must name a team: tenant=NAME"))?;
    let ended = || ApiError::unauthorized("this session has ended; sign in again");
    let hash = session_cookie::session_cookie(headers, secure)
        .map(hash_token)
        .ok_or_else(ended)?;
    let session = state.store.session(&hash).await?.ok_or_else(ended)?;
    let (Some(grant), Some(person)) = (session.provider.clone(), session.person.clone()) else {
        return Err(ApiError::forbidden(
            "this session was not opened through the identity provider",
        ));
    };
    let tenant = state.store.tenant(&chosen).await?;
    if !tenant.as_ref().is_some_and(|t| grant.admits(t)) {
        return Err(ApiError::forbidden(format!(
            "your groups do not let you act for the team {chosen:?}"
        )));
    }
    let secret = open(
        state,
        person,
        grant,
        Some(&chosen),
        session.created_at,
        session.expires_at,
    )
    .await?;
    end(state, &session).await?;
    let lifetime = session.expires_at.saturating_sub(paste::now()).max(1);
    tracing::info!(tenant = %chosen, "a person switched teams");
    Ok(see_other(
        "/my",
        &session_cookie::set_session_cookie(&secret, lifetime, secure),
    ))
}

/// Ends `session` and revokes the token it stood on.
pub(super) async fn end(state: &SharedState, session: &SessionRecord) -> Result<(), ApiError> {
    state.store.delete_session(&session.hash).await?;
    if let Some(hash) = session.token_hash
        && let Some(token) = state.store.token(&hash).await?
    {
        state.store.revoke_token(&token.id).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grant admits a tenant it listed that still accepts one of the groups.
    #[test]
    fn grants_admit_listed_tenants_of_their_groups() {
        let tenant = |name: &str, group: Option<&str>| -> crate::core::tenant::Tenant {
            serde_json::from_value(serde_json::json!({
                "name": name, "created_at": 0, "group": group,
            }))
            .unwrap()
        };
        let grant = ProviderGrant {
            groups: vec!["devs".into(), "ops".into()],
            tenants: vec!["devs".into(), "infra".into()],
            refresh_token: None,
            checked_at: 0,
        };
        assert!(grant.admits(&tenant("devs", None)));
        assert!(grant.admits(&tenant("infra", Some("ops"))));
        assert!(
            !grant.admits(&tenant("infra", Some("infra"))),
            "group changed"
        );
        assert!(!grant.admits(&tenant("ops", None)), "not listed at sign-in");
    }
}
