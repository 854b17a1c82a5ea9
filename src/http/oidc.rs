//! Signing in through an OpenID Connect provider: the provider's metadata
//! (discovery, cached, fetched again when an ID token names a key the cached
//! JWKS lacks, so the provider can rotate its keys), the authorization
//! request (code flow with PKCE, `state` and `nonce`), and the exchange of
//! the code for an ID token checked against the JWKS (signature, issuer,
//! audience, expiry, nonce) by the `openidconnect` crate.
//!
//! Every request to the provider goes through [`ProviderHttp`]: snip's own
//! reqwest and rustls, no redirects followed (a redirect could point the
//! server at any address), each answer bounded in size
//! ([`MAX_ANSWER_BYTES`]) and time ([`ANSWER_TIME`]). Errors name what went
//! wrong, never a code, a token or the client secret.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use base64::Engine as _;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreIdToken, CoreIdTokenVerifier, CoreJwsSigningAlgorithm,
    CoreTokenResponse,
};
use openidconnect::{
    AsyncHttpClient, AuthorizationCode, ClientId, ClientSecret, CsrfToken, HttpRequest,
    HttpResponse, IssuerUrl, Nonce, NonceVerifier, OAuth2TokenResponse, PkceCodeChallenge,
    PkceCodeVerifier, ProviderMetadataWithLogout, RedirectUrl, Scope, TokenResponse,
};

use crate::core::tenant::{Person, RefreshToken};

pub mod device;
pub mod refresh;

/// The most bytes of one answer of the provider (its metadata, JWKS, token
/// response): real ones are a few KiB.
pub const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// How long one request to the provider may take, from connecting to the
/// answer's last byte.
pub const ANSWER_TIME: Duration = Duration::from_secs(10);

/// How long the cached metadata and keys are used before they are fetched
/// again.
const METADATA_FRESH: Duration = Duration::from_secs(3600);

/// The soonest the metadata is fetched again for a key the cached JWKS
/// lacks: an ID token naming unknown keys cannot make snip hammer the
/// provider.
const REFETCH_AFTER: Duration = Duration::from_secs(30);

/// The signature algorithms an ID token may use: asymmetric ones only (no
/// `none`, no HMAC with the client secret).
const ALLOWED_ALGS: [CoreJwsSigningAlgorithm; 9] = [
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha384,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha512,
    CoreJwsSigningAlgorithm::RsaSsaPssSha256,
    CoreJwsSigningAlgorithm::RsaSsaPssSha384,
    CoreJwsSigningAlgorithm::RsaSsaPssSha512,
    CoreJwsSigningAlgorithm::EcdsaP256Sha256,
    CoreJwsSigningAlgorithm::EcdsaP384Sha384,
    CoreJwsSigningAlgorithm::EdDsa,
];

/// The server's OpenID Connect settings (`--oidc-*`).
#[derive(Clone)]
pub struct OidcSettings {
    /// The issuer (`--oidc-issuer`): its `/.well-known/openid-configuration`
    /// is the discovery document.
    pub issuer: String,
    /// The client ID registered at the provider.
    pub client_id: String,
    /// The client secret, read from `--oidc-client-secret-file`.
    pub client_secret: String,
    /// The claim listing the person's groups, each of which may name a tenant.
    pub tenant_claim: String,
    /// How long a session opened through the provider lasts
    /// (`--oidc-session-lifetime`).
    pub session_lifetime: std::time::Duration,
    /// How often a session's person is checked again at the provider
    /// (`--oidc-recheck-interval`; zero: at every request).
    pub recheck_interval: std::time::Duration,
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"(hidden)")
            .field("tenant_claim", &self.tenant_claim)
            .field("session_lifetime", &self.session_lifetime)
            .field("recheck_interval", &self.recheck_interval)
            .finish()
    }
}

/// Why a sign-in through the provider failed.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// The provider could not be asked (down, slow, an oversized or
    /// malformed answer, an error status).
    #[error("the identity provider cannot be reached: {0}")]
    Unreachable(String),
    /// The provider answered, but what it answered is not acceptable (the
    /// code was refused, the ID token does not verify).
    #[error("the identity provider's answer is not acceptable: {0}")]
    Refused(String),
}

/// A person who signed in, as the verified ID token says.
#[derive(Debug, Clone)]
pub struct Identity {
    pub person: Person,
    /// The values of the tenant claim (strings only), in the token's order.
    pub groups: Vec<String>,
    /// The provider's refresh token, when its answer carried one.
    pub refresh_token: Option<RefreshToken>,
}

/// What the browser must bring back to the callback, kept in its sign-in
/// cookie: the `state` sent, the `nonce` the ID token must carry, and the
/// PKCE verifier.
#[derive(Debug)]
pub struct Pending {
    pub state: String,
    pub nonce: String,
    pub verifier: String,
}

/// The provider's metadata (with its JWKS), and when it was fetched.
struct Discovered {
    metadata: ProviderMetadataWithLogout,
    at: Instant,
}

/// The OpenID Connect relying party: settings, the HTTP client towards the
/// provider, and the cached metadata.
pub struct Oidc {
    settings: OidcSettings,
    http: ProviderHttp,
    discovered: tokio::sync::Mutex<Option<Discovered>>,
}

impl Oidc {
    /// The relying party of `settings`. Nothing is fetched until the first
    /// sign-in, so a provider that is down does not stop the server.
    pub fn new(settings: OidcSettings) -> Result<Self, OidcError> {
        Ok(Self {
            settings,
            http: ProviderHttp::new()?,
            discovered: tokio::sync::Mutex::new(None),
        })
    }

    /// The claim naming the person's tenants.
    pub fn tenant_claim(&self) -> &str {
        &self.settings.tenant_claim
    }

    /// Seconds a session opened through the provider lasts (at least one).
    pub fn session_secs(&self) -> u64 {
        self.settings.session_lifetime.as_secs().max(1)
    }

    /// The provider's metadata: the cached one if fresh (and, with `refetch`,
    /// fetched at least [`REFETCH_AFTER`] ago), else fetched again.
    async fn metadata(&self, refetch: bool) -> Result<ProviderMetadataWithLogout, OidcError> {
        let mut cached = self.discovered.lock().await;
        if let Some(found) = cached.as_ref() {
            let age = found.at.elapsed();
            let stale = if refetch {
                age >= REFETCH_AFTER
            } else {
                age >= METADATA_FRESH
            };
            if !stale {
                return Ok(found.metadata.clone());
            }
        }
        let issuer = IssuerUrl::new(self.settings.issuer.clone())
            .map_err(|e| OidcError::Unreachable(format!("the issuer is no URL: {e}")))?;
        let metadata = ProviderMetadataWithLogout::discover_async(issuer, &self.http)
            .await
            .map_err(|e| OidcError::Unreachable(format!("discovery failed: {}", chain(&e))))?;
        *cached = Some(Discovered {
            metadata: metadata.clone(),
            at: Instant::now(),
        });
        Ok(metadata)
    }

    /// Where a browser signing out goes to end its session at the provider
    /// too (its `end_session_endpoint`, RP-initiated logout), coming back
    /// to `back`; `None` if the provider offers none or cannot be asked.
    pub async fn end_session_url(&self, back: &str) -> Option<String> {
        let metadata = self.metadata(false).await.ok()?;
        let endpoint = metadata
            .additional_metadata()
            .end_session_endpoint
            .as_ref()?;
        let mut url = endpoint.url().clone();
        url.query_pairs_mut()
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("post_logout_redirect_uri", back);
        Some(url.to_string())
    }

    /// The scopes a sign-in asks for: `openid`, `profile`, the tenant
    /// claim's, and `offline_access` (a refresh token, to check the
    /// person's groups again) where the provider lists it.
    async fn scopes(&self) -> Result<Vec<String>, OidcError> {
        let metadata = self.metadata(false).await?;
        let offline = metadata
            .scopes_supported()
            .is_some_and(|scopes| scopes.iter().any(|s| s.as_str() == "offline_access"));
        let mut scopes = vec![
            "openid".to_owned(),
            "profile".to_owned(),
            self.settings.tenant_claim.clone(),
        ];
        if offline {
            scopes.push("offline_access".to_owned());
        }
        Ok(scopes)
    }

    /// How often a session's person is checked again, in seconds (0: at
    /// every request).
    pub fn recheck_secs(&self) -> u64 {
        self.settings.recheck_interval.as_secs()
    }

    /// The client towards the provider of `metadata`, redirecting to `redirect_uri`.
    fn client(
        &self,
        metadata: ProviderMetadataWithLogout,
        redirect_uri: &str,
    ) -> Result<OidcClient, OidcError> {
        let redirect = RedirectUrl::new(redirect_uri.to_owned())
            .map_err(|e| OidcError::Refused(format!("the redirect URI is no URL: {e}")))?;
        Ok(CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.settings.client_id.clone()),
            Some(ClientSecret::new(self.settings.client_secret.clone())),
        )
        .set_redirect_uri(redirect))
    }

    /// Starts a sign-in: the provider's authorization URL (code flow, PKCE
    /// S256, a random `state` and `nonce`) and what the callback must check.
    pub async fn begin(&self, redirect_uri: &str) -> Result<(String, Pending), OidcError> {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let pending = Pending {
            state: CsrfToken::new_random().secret().clone(),
            nonce: Nonce::new_random().secret().clone(),
            verifier: verifier.secret().clone(),
        };
        let url = self
            .authorization_url(
                redirect_uri,
                &pending.state,
                &pending.nonce,
                challenge.as_str(),
            )
            .await?;
        Ok((url, pending))
    }

    /// The provider's authorization URL for the code flow back to
    /// `redirect_uri`, with `state`, `nonce` and the PKCE S256 `challenge`
    /// given (by the browser sign-in, or by `snip login`'s loopback
    /// sign-in, which keeps the verifier).
    pub async fn authorization_url(
        &self,
        redirect_uri: &str,
        state: &str,
        nonce: &str,
        challenge: &str,
    ) -> Result<String, OidcError> {
        let client = self.client(self.metadata(false).await?, redirect_uri)?;
        let (state, nonce) = (state.to_owned(), nonce.to_owned());
        let (url, _, _) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                move || CsrfToken::new(state),
                move || Nonce::new(nonce),
            )
            .add_scopes(self.scopes().await?.into_iter().skip(1).map(Scope::new))
            .add_extra_param("code_challenge", challenge.to_owned())
            .add_extra_param("code_challenge_method", "S256")
            .url();
        Ok(url.to_string())
    }

    /// Finishes a sign-in: exchanges `code` (with the PKCE verifier) for
    /// tokens and verifies the ID token; the person and their groups.
    pub async fn finish(
        &self,
        redirect_uri: &str,
        pending: &Pending,
        code: &str,
    ) -> Result<Identity, OidcError> {
        let client = self.client(self.metadata(false).await?, redirect_uri)?;
        let response: CoreTokenResponse = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| OidcError::Refused(format!("no token endpoint: {e}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier.clone()))
            .request_async(&self.http)
            .await
            .map_err(|e| match e {
                openidconnect::RequestTokenError::Request(e) => {
                    OidcError::Unreachable(format!("the token request failed: {}", chain(&e)))
                }
                other => OidcError::Refused(format!("the code was refused: {}", chain(&other))),
            })?;
        let id_token = response
            .id_token()
            .ok_or_else(|| OidcError::Refused("the answer carries no ID token".into()))?;
        let mut identity = self
            .identity_of(id_token, &Nonce::new(pending.nonce.clone()))
            .await?;
        identity.refresh_token = response
            .refresh_token()
            .map(|token| RefreshToken(token.secret().clone()));
        Ok(identity)
    }

    /// The person and groups of `id_token`, after the checks every sign-in
    /// makes (signature against the JWKS, fetched again once for a key it
    /// lacks; issuer, audience, expiry, `nonce`).
    async fn identity_of<N: NonceVerifier + Copy>(
        &self,
        id_token: &CoreIdToken,
        nonce: N,
    ) -> Result<Identity, OidcError> {
        let metadata = self.metadata(false).await?;
        let verified = id_token.claims(&self.verifier(&metadata), nonce).cloned();
        let claims = match verified {
            Ok(claims) => claims,
            Err(openidconnect::ClaimsVerificationError::SignatureVerification(
                openidconnect::SignatureVerificationError::NoMatchingKey,
            )) => {
                // The provider may have rotated its keys: fetch them again (at
                // most every REFETCH_AFTER) and try once more.
                let metadata = self.metadata(true).await?;
                id_token
                    .claims(&self.verifier(&metadata), nonce)
                    .map_err(|e| OidcError::Refused(format!("the ID token: {}", chain(&e))))?
                    .clone()
            }
            Err(e) => {
                return Err(OidcError::Refused(format!("the ID token: {}", chain(&e))));
            }
        };
        let subject = claims.subject().as_str().to_owned();
        let name = claims
            .name()
            .and_then(|name| name.get(None))
            .map(|name| name.as_str().to_owned())
            .or_else(|| claims.preferred_username().map(|n| n.as_str().to_owned()))
            .unwrap_or_else(|| subject.clone());
        let groups = groups_of(&id_token.to_string(), &self.settings.tenant_claim);
        Ok(Identity {
            person: Person { subject, name },
            groups,
            refresh_token: None,
        })
    }

    /// The verifier of ID tokens from the provider of `metadata`, for this
    /// client, taking asymmetric signatures only.
    fn verifier(&self, metadata: &ProviderMetadataWithLogout) -> CoreIdTokenVerifier<'static> {
        CoreIdTokenVerifier::new_confidential_client(
            ClientId::new(self.settings.client_id.clone()),
            ClientSecret::new(self.settings.client_secret.clone()),
            metadata.issuer().clone(),
            metadata.jwks().clone(),
        )
        .set_allowed_algs(ALLOWED_ALGS)
    }
}

/// The client type of a provider found by discovery.
type OidcClient = openidconnect::Client<
    openidconnect::EmptyAdditionalClaims,
    openidconnect::core::CoreAuthDisplay,
    openidconnect::core::CoreGenderClaim,
    openidconnect::core::CoreJweContentEncryptionAlgorithm,
    openidconnect::core::CoreJsonWebKey,
    openidconnect::core::CoreAuthPrompt,
    openidconnect::StandardErrorResponse<openidconnect::core::CoreErrorResponseType>,
    CoreTokenResponse,
    openidconnect::core::CoreTokenIntrospectionResponse,
    openidconnect::core::CoreRevocableToken,
    openidconnect::core::CoreRevocationErrorResponse,
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
>;

/// The string values of `claim` in the payload of a JWT whose signature was
/// verified (a list of strings, or one string); empty if absent.
fn groups_of(jwt: &str, claim: &str) -> Vec<String> {
    let Some(payload) = jwt.split('.').nth(1) else {
        return Vec::new();
    };
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(claims)) = serde_json::from_slice(&bytes) else {
        return Vec::new();
    };
    match claims.get(claim) {
        Some(serde_json::Value::String(one)) => vec![one.clone()],
        Some(serde_json::Value::Array(many)) => many
            .iter()
            .filter_map(|value| value.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// An error and its causes, on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Why a request to the provider failed.
#[derive(Debug, thiserror::Error)]
pub enum ProviderHttpError {
    #[error("cannot reach the provider: {0}")]
    Send(reqwest::Error),
    #[error("the provider's answer broke off: {0}")]
    Read(reqwest::Error),
    #[error("the provider's answer is larger than {MAX_ANSWER_BYTES} bytes")]
    TooLarge,
    #[error("the provider did not answer within {ANSWER_TIME:?}")]
    Timeout,
    #[error("the provider's answer is malformed")]
    Malformed,
}

/// The HTTP client towards the provider: no redirects, answers bounded in
/// size and time.
pub struct ProviderHttp {
    client: reqwest::Client,
}

impl ProviderHttp {
    fn new() -> Result<Self, OidcError> {
        // rustls needs a process-wide crypto provider; a second install is a harmless no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(concat!("snip/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(ANSWER_TIME)
            .timeout(ANSWER_TIME)
            .build()
            .map_err(|e| OidcError::Unreachable(format!("no HTTP client: {e}")))?;
        Ok(Self { client })
    }

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, ProviderHttpError> {
        let (parts, body) = request.into_parts();
        let mut response = self
            .client
            .request(parts.method, parts.uri.to_string())
            .headers(parts.headers)
            .body(body)
            .send()
            .await
            .map_err(ProviderHttpError::Send)?;
        if response
            .content_length()
            .is_some_and(|length| length > MAX_ANSWER_BYTES as u64)
        {
            return Err(ProviderHttpError::TooLarge);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(ProviderHttpError::Read)? {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(ProviderHttpError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        let mut answer = openidconnect::http::Response::builder().status(response.status());
        for (name, value) in response.headers() {
            answer = answer.header(name, value);
        }
        answer.body(body).map_err(|_| ProviderHttpError::Malformed)
    }
}

impl<'c> AsyncHttpClient<'c> for ProviderHttp {
    type Error = ProviderHttpError;
    type Future =
        Pin<Box<dyn Future<Output = Result<HttpResponse, ProviderHttpError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            tokio::time::timeout(ANSWER_TIME, self.send(request))
                .await
                .unwrap_or(Err(ProviderHttpError::Timeout))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tenant claim is read as a list of strings or one string; other
    /// values and a missing claim give no groups.
    #[test]
    fn reads_groups() {
        let jwt = |payload: &str| {
            format!(
                "e30.{}.sig",
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload)
            )
        };
        assert_eq!(
            groups_of(&jwt(r#"{"groups":["a",1,"b"]}"#), "groups"),
            ["a", "b"]
        );
        assert_eq!(groups_of(&jwt(r#"{"team":"a"}"#), "team"), ["a"]);
        assert!(groups_of(&jwt(r#"{"groups":{"a":1}}"#), "groups").is_empty());
        assert!(groups_of(&jwt(r#"{}"#), "groups").is_empty());
        assert!(groups_of("garbage", "groups").is_empty());
    }
}
