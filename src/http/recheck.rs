//! Checking a signed-in person again at the identity provider, so that a
//! person taken out of a group loses its tenant at their next request: when
//! a session's last check is `--oidc-recheck-interval` old (zero: always),
//! the request that finds it redeems the session's refresh token at the
//! provider (`Oidc::refresh`, bounded like every call to it) and keeps the
//! groups of the new ID token with the session (`ProviderGrant`), for every
//! instance to see. The caller's resolution then ends the session if its
//! tenant accepts none of them (`credentials`).
//!
//! A provider that refuses the refresh (the person disabled or signed out
//! there, the token revoked), or gave no refresh token, ends the session;
//! one that cannot be reached answers `502` and keeps it, to be checked at
//! the next request. Nothing of a token reaches the log.

use axum::http::StatusCode;

use super::api_error::{ApiError, ErrorCode};
use super::oidc::OidcError;
use super::state::SharedState;
use crate::core::paste;
use crate::core::tenant::{MAX_GROUPS, ProviderGrant, SessionRecord};

/// Why a session ended at a check.
const REFUSED: &str = "your session has ended: the identity provider no longer confirms your \
     sign-in (it refused to renew it); sign in again";

/// [`REFUSED`], for a provider that gave no refresh token.
const NO_REFRESH_TOKEN: &str = "your session has ended: your team membership must be checked \
     again, and the identity provider gave no way to do it without you; sign in again";

/// `record`, checked again at the provider if its last check is due (its
/// grant then holds the groups the provider says now); `401` if the check
/// ended the session, `502` if the provider cannot be asked.
pub async fn recheck(
    state: &SharedState,
    mut record: SessionRecord,
) -> Result<SessionRecord, ApiError> {
    let (Some(oidc), Some(grant), Some(person)) = (
        state.oidc.as_ref(),
        record.provider.as_ref(),
        record.person.as_ref(),
    ) else {
        return Ok(record);
    };
    let now = paste::now();
    if record.token_hash.is_none() || now < grant.checked_at.saturating_add(oidc.recheck_secs()) {
        return Ok(record);
    }
    let Some(token) = grant.refresh_token.as_ref() else {
        return end(state, &record, NO_REFRESH_TOKEN).await;
    };
    let identity = match oidc.refresh(token).await {
        Ok(identity) if identity.person.subject == person.subject => identity,
        Ok(_) => {
            tracing::warn!("the identity provider renewed a session for another subject");
            return end(state, &record, REFUSED).await;
        }
        Err(OidcError::Refused(why)) => {
            tracing::info!(why = %why, "the identity provider refused to renew a session");
            return end(state, &record, REFUSED).await;
        }
        Err(e @ OidcError::Unreachable(_)) => {
            tracing::warn!(error = %e, "a session's membership could not be checked");
            return Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::ProviderUnavailable,
                "your team membership cannot be checked: the identity provider cannot be \
                 reached or did not answer in time; try again later",
            ));
        }
    };
    let mut groups = identity.groups;
    groups.truncate(MAX_GROUPS);
    let checked = ProviderGrant {
        groups,
        tenants: grant.tenants.clone(),
        refresh_token: identity
            .refresh_token
            .or_else(|| grant.refresh_token.clone()),
        checked_at: now,
    };
    // Another instance may have checked meanwhile: its answer is as good.
    state
        .store
        .save_grant(&record.hash, &checked, grant.checked_at)
        .await?;
    record.provider = Some(checked);
    Ok(record)
}

/// Ends `record`'s session: `401` with `why`.
async fn end(
    state: &SharedState,
    record: &SessionRecord,
    why: &'static str,
) -> Result<SessionRecord, ApiError> {
    state.store.delete_session(&record.hash).await?;
    Err(ApiError::unauthorized(why))
}
