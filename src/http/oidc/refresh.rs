//! Asking the provider again about a person signed in earlier: the refresh
//! token grant (at the token endpoint, with the client secret, through the
//! relying party's bounded client), whose new ID token is verified with the
//! checks of every sign-in (`super::Oidc::identity_of`) and gives the
//! person's groups as the provider says them now.
//!
//! A refreshed ID token may repeat the sign-in's `nonce` or carry none
//! (OpenID Connect Core 12.2); it comes straight from the token endpoint
//! over the client's authenticated request, so no nonce is checked.

use openidconnect::Nonce;

use super::device::error_of;
use super::{Identity, Oidc, OidcError};
use crate::core::tenant::RefreshToken;

/// A refreshed ID token's `nonce` is not checked.
fn any_nonce(_: Option<&Nonce>) -> Result<(), String> {
    Ok(())
}

impl Oidc {
    /// Redeems `token` at the provider: the person and their groups now,
    /// and the new refresh token if the provider rotated it. `Refused` when
    /// the provider no longer honours the token (revoked, expired, the
    /// person disabled) or its answer does not verify.
    pub async fn refresh(&self, token: &RefreshToken) -> Result<Identity, OidcError> {
        let token_endpoint = self.token_endpoint().await?;
        let (status, json) = self
            .post_form(
                &token_endpoint,
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", &token.0),
                    ("client_id", &self.settings.client_id),
                ],
            )
            .await?;
        if status >= 500 {
            return Err(OidcError::Unreachable(format!(
                "the refresh answered {status}"
            )));
        }
        if status != 200 {
            return Err(OidcError::Refused(format!(
                "the refresh was refused: {}",
                error_of(&json)
            )));
        }
        self.identity_in(&json, any_nonce).await
    }
}
