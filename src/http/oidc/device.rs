//! The device authorization grant (RFC 8628) with the provider, for
//! `snip login`: the server asks the provider's
//! `device_authorization_endpoint` (from its discovery document) for a
//! device code and a user code, and later redeems the device code at the
//! token endpoint with the client secret, which never leaves the server.
//! The ID token it gets is verified with exactly the checks of a browser
//! sign-in (`super::Oidc::identity_of`), except that a device sign-in sends
//! no `nonce`, so its ID token must carry none.
//!
//! Every request goes through the relying party's bounded client; errors
//! name what went wrong, never a code, a token or the secret.

use base64::Engine as _;
use openidconnect::core::CoreIdToken;
use openidconnect::{AsyncHttpClient, Nonce, NonceVerifier};
use serde::Deserialize;

use super::{Identity, Oidc, OidcError, chain};
use crate::core::tenant::RefreshToken;

/// What the provider answers a device authorization request with.
#[derive(Debug, Clone, Deserialize)]
pub struct DeviceStart {
    /// The code the server redeems; the CLI holds it between polls.
    pub device_code: String,
    /// The code the person types at the verification page.
    pub user_code: String,
    /// The page where the person types the user code.
    pub verification_uri: String,
    /// The page with the user code filled in, when the provider offers one.
    #[serde(default)]
    pub verification_uri_complete: Option<String>,
    /// Seconds until the codes expire.
    pub expires_in: u64,
    /// The fewest seconds between two polls.
    #[serde(default = "default_interval")]
    pub interval: u64,
}

fn default_interval() -> u64 {
    5
}

/// Where a device sign-in stands.
#[derive(Debug)]
pub enum DevicePoll {
    /// The person has not finished at the provider yet.
    Pending,
    /// Polling too fast: wait 5 s more between polls.
    SlowDown,
    /// Signed in: the person and their groups, from a verified ID token.
    Done(Identity),
}

/// The part of the discovery document the `openidconnect` crate does not read.
#[derive(Deserialize)]
struct DeviceMetadata {
    #[serde(default)]
    device_authorization_endpoint: Option<String>,
}

/// A device sign-in's ID token must carry no `nonce` (none was sent).
fn no_nonce(nonce: Option<&Nonce>) -> Result<(), String> {
    match nonce {
        None => Ok(()),
        Some(_) => Err("a nonce no device sign-in sent".into()),
    }
}

impl Oidc {
    /// The provider's device authorization endpoint; `None` if it offers none.
    pub async fn device_endpoint(&self) -> Result<Option<String>, OidcError> {
        let url = format!(
            "{}/.well-known/openid-configuration",
            self.settings.issuer.trim_end_matches('/')
        );
        let request = openidconnect::http::Request::builder()
            .method("GET")
            .uri(url)
            .header("accept", "application/json")
            .body(Vec::new())
            .map_err(|e| OidcError::Unreachable(format!("the issuer is no URL: {e}")))?;
        let answer = self
            .http
            .call(request)
            .await
            .map_err(|e| OidcError::Unreachable(format!("discovery failed: {}", chain(&e))))?;
        if !answer.status().is_success() {
            return Err(OidcError::Unreachable(format!(
                "discovery answered {}",
                answer.status()
            )));
        }
        let metadata: DeviceMetadata = serde_json::from_slice(answer.body())
            .map_err(|e| OidcError::Unreachable(format!("discovery is malformed: {e}")))?;
        Ok(metadata.device_authorization_endpoint)
    }

    /// A form `fields` posted to `url` with the client's credentials
    /// (`client_secret_basic`): the status and the JSON answer.
    pub(super) async fn post_form(
        &self,
        url: &str,
        fields: &[(&str, &str)],
    ) -> Result<(u16, serde_json::Value), OidcError> {
        let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let basic = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            encode(&self.settings.client_id),
            encode(&self.settings.client_secret)
        ));
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let request = openidconnect::http::Request::builder()
            .method("POST")
            .uri(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .header("authorization", format!("Basic {basic}"))
            .body(body.into_bytes())
            .map_err(|e| OidcError::Unreachable(format!("the endpoint is no URL: {e}")))?;
        let answer =
            self.http.call(request).await.map_err(|e| {
                OidcError::Unreachable(format!("the request failed: {}", chain(&e)))
            })?;
        let json = serde_json::from_slice(answer.body()).map_err(|_| {
            OidcError::Unreachable(format!("a malformed answer ({})", answer.status()))
        })?;
        Ok((answer.status().as_u16(), json))
    }

    /// Starts a device sign-in; `None` if the provider offers no device flow.
    pub async fn device_start(&self) -> Result<Option<DeviceStart>, OidcError> {
        let Some(endpoint) = self.device_endpoint().await? else {
            return Ok(None);
        };
        let scope = self.scopes().await?.join(" ");
        let (status, json) = self
            .post_form(
                &endpoint,
                &[("client_id", &self.settings.client_id), ("scope", &scope)],
            )
            .await?;
        if status != 200 {
            return Err(OidcError::Refused(format!(
                "the device authorization was refused: {}",
                error_of(&json)
            )));
        }
        serde_json::from_value(json)
            .map(Some)
            .map_err(|e| OidcError::Unreachable(format!("a malformed device authorization: {e}")))
    }

    /// The provider's token endpoint.
    pub(super) async fn token_endpoint(&self) -> Result<String, OidcError> {
        Ok(self
            .metadata(false)
            .await?
            .token_endpoint()
            .ok_or_else(|| OidcError::Refused("the provider has no token endpoint".into()))?
            .url()
            .to_string())
    }

    /// Asks the provider whether the device sign-in of `device_code` is done.
    pub async fn device_poll(&self, device_code: &str) -> Result<DevicePoll, OidcError> {
        let token_endpoint = self.token_endpoint().await?;
        let (status, json) = self
            .post_form(
                &token_endpoint,
                &[
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                    ("device_code", device_code),
                    ("client_id", &self.settings.client_id),
                ],
            )
            .await?;
        if status != 200 {
            return match error_of(&json).as_str() {
                "authorization_pending" => Ok(DevicePoll::Pending),
                "slow_down" => Ok(DevicePoll::SlowDown),
                "access_denied" => Err(OidcError::Refused(
                    "the person declined the sign-in at the provider".into(),
                )),
                "expired_token" => Err(OidcError::Refused(
                    "the device code expired; start again".into(),
                )),
                other => Err(OidcError::Refused(format!(
                    "the device code was refused: {other}"
                ))),
            };
        }
        self.identity_in(&json, no_nonce)
            .await
            .map(DevicePoll::Done)
    }

    /// The identity in a token endpoint's JSON answer: its ID token verified
    /// (`nonce` checking the nonce), and its refresh token if any.
    pub(super) async fn identity_in<N: NonceVerifier + Copy>(
        &self,
        json: &serde_json::Value,
        nonce: N,
    ) -> Result<Identity, OidcError> {
        let id_token: CoreIdToken = json
            .get("id_token")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| OidcError::Refused("the answer carries no ID token".into()))?
            .parse()
            .map_err(|e| OidcError::Refused(format!("the ID token is malformed: {e}")))?;
        let mut identity = self.identity_of(&id_token, nonce).await?;
        identity.refresh_token = json
            .get("refresh_token")
            .and_then(serde_json::Value::as_str)
            .map(|token| RefreshToken(token.to_owned()));
        Ok(identity)
    }
}

/// The OAuth `error` of an answer, at most 64 characters of it.
pub(super) fn error_of(json: &serde_json::Value) -> String {
    json.get("error")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("(no error code)")
        .chars()
        .take(64)
        .collect()
}
