//! Who is calling and what they may do: the [`Caller`] of a request (a
//! tenant's token, or anonymous) and the server's [`AuthConfig`]. The
//! pipeline establishes the caller ([`super::auth`]); handlers ask it.

use super::forwarded::ProxyConfig;
use crate::core::tenant::{Authority, Tenant};
use crate::http::api_error::ApiError;

/// What anonymous (token-less) clients may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AnonymousPolicy {
    /// Create and read.
    #[default]
    Allowed,
    /// Read only.
    ReadOnly,
    /// Nothing: every paste route needs a token.
    Off,
}

/// Authentication settings.
#[derive(Debug, Clone, Default)]
pub struct AuthConfig {
    /// What anonymous clients may do.
    pub anonymous: AnonymousPolicy,
    /// Whose forwarding headers are believed, and which.
    pub proxy: ProxyConfig,
    /// SHA-256 of the admin token; `None` disables the admin API.
    pub admin_token_hash: Option<[u8; 32]>,
}

/// The caller of a request, as established by [`super::auth`].
#[derive(Debug, Clone)]
pub enum Caller {
    /// No token.
    Anonymous,
    /// A valid token of a tenant.
    Tenant {
        /// The tenant's current settings.
        tenant: Tenant,
        /// The token's public ID.
        token_id: String,
        /// Whether the token may only read.
        read_only: bool,
        /// The token and session that authorised the request: the store
        /// checks that they still hold when a write commits.
        authority: Authority,
    },
}

impl Caller {
    /// The tenant's name, if any.
    pub fn tenant_name(&self) -> Option<&str> {
        match self {
            Self::Anonymous => None,
            Self::Tenant { tenant, .. } => Some(&tenant.name),
        }
    }

    /// What authorised a tenant's request (`None` for anonymous callers).
    pub fn authority(&self) -> Option<&Authority> {
        match self {
            Self::Anonymous => None,
            Self::Tenant { authority, .. } => Some(authority),
        }
    }

    /// Whether this caller owns pastes of `owner`.
    pub fn owns(&self, owner: Option<&str>) -> bool {
        owner.is_some() && self.tenant_name() == owner
    }

    /// Refuses callers that may not write (read-only tokens, anonymous when not allowed).
    pub fn check_can_write(&self, anonymous: AnonymousPolicy) -> Result<(), ApiError> {
        match self {
            Self::Tenant {
                read_only: true, ..
            } => Err(ApiError::forbidden("this token is read-only")),
            Self::Tenant { .. } => Ok(()),
            Self::Anonymous if anonymous == AnonymousPolicy::Allowed => Ok(()),
            Self::Anonymous => Err(ApiError::unauthorized(
                "anonymous pastes are disabled on this server; send Authorization: Bearer TOKEN",
            )),
        }
    }
}
